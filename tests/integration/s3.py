#!/usr/bin/env python3
"""A small S3 client for the tests, independent of ferry: its own SigV4
signer on Python's standard library, path-style requests to
$FERRY_TEST_ENDPOINT with $AWS_ACCESS_KEY_ID / $AWS_SECRET_ACCESS_KEY.  It
starts in a few tens of milliseconds (it speaks HTTP/1.1 on a socket of
its own, and imports little), where the AWS CLI takes seconds of CPU, so the suite checks results with it wherever the AWS CLI is not the
point of the check.

usage: s3.py mb BUCKET
       s3.py ls BUCKET [PREFIX]          size<TAB>key per object
       s3.py lshex BUCKET [PREFIX]       the whole keys in hex, sorted, on
                                         one line (for any bytes)
       s3.py get BUCKET KEY FILE
       s3.py getall BUCKET PREFIX DIR [GLOB]
                                         each object under PREFIX whose
                                         name after it matches GLOB, into
                                         DIR/name
       s3.py put BUCKET KEY FILE [Header:value ...]
       s3.py head BUCKET KEY             the reply's headers as JSON
       s3.py rm BUCKET [PREFIX]          every object under PREFIX
       s3.py del BUCKET KEY              one object
       s3.py uploads BUCKET [PREFIX]     how many multipart uploads are open
       s3.py abort BUCKET KEY            abort KEY's open multipart uploads

Keys are given and printed as UTF-8 with surrogate escapes, so names that
are not valid UTF-8 keep their bytes.
"""
import hashlib
import hmac
import os
import socket
import sys
import time

# What most calls do not need is imported where it is used: the suite
# starts this client thousands of times, and its start-up is most of its
# time (http.client and urllib.parse alone would double it).
NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
EMPTY = hashlib.sha256(b"").hexdigest()


def quote(b, safe=b"-_.~"):
    return "".join(chr(c) if chr(c).isalnum() and c < 128 or c in safe
                   else "%%%02X" % c for c in b)


def kbytes(key):
    return key.encode("utf-8", "surrogateescape")


def unquote(s):
    """%XX escapes of s (str) decoded, as bytes (urllib.parse's
    unquote_to_bytes)."""
    b = s.encode("utf-8")
    if b"%" not in b:
        return b
    parts = b.split(b"%")
    out = [parts[0]]
    for p in parts[1:]:
        if len(p) >= 2 and all(c in b"0123456789abcdefABCDEF" for c in p[:2]):
            out.append(bytes([int(p[:2], 16)]) + p[2:])
        else:
            out.append(b"%" + p)
    return b"".join(out)


def parse_xml(data):
    import xml.etree.ElementTree as ET
    return ET.fromstring(data)


class Reply:
    """The parts of http.client's response that the callers use."""

    def __init__(self, status, reason, headers):
        self.status = status
        self.reason = reason
        self.headers = headers

    def getheader(self, name, default=None):
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return default

    def getheaders(self):
        return list(self.headers)


class Connection:
    """One keep-alive HTTP/1.1 connection: a request, then its reply's
    status, headers and body (by Content-Length, chunked, or up to the
    close)."""

    def __init__(self, host, tls, timeout):
        name, port = host, 443 if tls else 80
        if host.startswith("["):
            name, _, rest = host[1:].partition("]")
            if rest.startswith(":"):
                port = int(rest[1:])
        elif ":" in host:
            name, p = host.rsplit(":", 1)
            port = int(p)
        self.sock = socket.create_connection((name, port), timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            import ssl
            self.sock = ssl.create_default_context().wrap_socket(
                self.sock, server_hostname=name)
        self.f = self.sock.makefile("rb")
        self.left = None  # the body still to read: bytes, chunked, to close
        self.keep = True

    def close(self):
        try:
            self.f.close()
            self.sock.close()
        except OSError:
            pass

    def request(self, method, target, body, headers):
        head = ["%s %s HTTP/1.1" % (method, target)]
        head += ["%s: %s" % (k, v) for k, v in headers.items()]
        head.append("Content-Length: %d" % len(body))
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
                          + body)
        while True:
            line = self.f.readline(65537)
            if not line:
                raise ConnectionResetError("the server closed the connection")
            try:
                _, code, reason = (line.decode("latin-1").rstrip("\r\n")
                                   + " ").split(" ", 2)
                status = int(code)
            except ValueError:
                raise ConnectionError("bad status line %r" % line[:100])
            headers = []
            while True:
                h = self.f.readline(65537)
                if not h:
                    raise ConnectionResetError("the reply's headers end early")
                if h in (b"\r\n", b"\n"):
                    break
                k, _, v = h.decode("latin-1").partition(":")
                headers.append((k.strip(), v.strip()))
            if status // 100 != 1:
                break
        r = Reply(status, reason.strip(), headers)
        te = (r.getheader("Transfer-Encoding") or "").lower()
        cl = r.getheader("Content-Length")
        self.keep = (r.getheader("Connection") or "").lower() != "close"
        if method == "HEAD" or status in (204, 304):
            self.left = 0
        elif "chunked" in te:
            self.left = "chunked"
        elif cl is not None:
            self.left = int(cl)
        else:
            self.left = "close"
            self.keep = False
        return r

    def exactly(self, n):
        """The next n bytes of the reply, in pieces of at most 1 MiB."""
        while n > 0:
            b = self.f.read(min(n, 1 << 20))
            if not b:
                raise ConnectionResetError("the body ends early")
            n -= len(b)
            yield b

    def chunks(self):
        """The reply's body, in pieces of at most 1 MiB."""
        if self.left == "chunked":
            while True:
                line = self.f.readline(65537)
                if not line:
                    raise ConnectionResetError("a chunked body ends early")
                n = int(line.split(b";")[0].strip(), 16)
                if n == 0:
                    while self.f.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                yield from self.exactly(n)
                self.f.readline(65537)
        elif self.left == "close":
            while True:
                b = self.f.read(1 << 20)
                if not b:
                    break
                yield b
        else:
            yield from self.exactly(self.left)
        self.left = 0

    def read(self):
        return b"".join(self.chunks())


class S3:
    def __init__(self):
        ep = os.environ["FERRY_TEST_ENDPOINT"]
        scheme, _, rest = ep.partition("://")
        self.host = rest.split("/", 1)[0]
        self.tls = scheme.lower() == "https"
        self.ak = os.environ["AWS_ACCESS_KEY_ID"]
        self.sk = os.environ["AWS_SECRET_ACCESS_KEY"]
        self.region = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
        self.conn = None

    def _sign(self, method, path, query, headers, payload_hash):
        amzdate = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        day = amzdate[:8]
        headers["host"] = self.host
        headers["x-amz-date"] = amzdate
        headers["x-amz-content-sha256"] = payload_hash
        names = sorted(h.lower() for h in headers)
        low = {k.lower(): str(v).strip() for k, v in headers.items()}
        canon_q = "&".join(
            "%s=%s" % (quote(k.encode()),
                       quote(v.encode("utf-8", "surrogateescape")))
            for k, v in sorted(query))
        creq = "\n".join([
            method, path, canon_q,
            "".join("%s:%s\n" % (n, low[n]) for n in names),
            ";".join(names), payload_hash])
        scope = "%s/%s/s3/aws4_request" % (day, self.region)
        sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope,
                         hashlib.sha256(creq.encode()).hexdigest()])
        k = ("AWS4" + self.sk).encode()
        for part in (day, self.region, "s3", "aws4_request"):
            k = hmac.new(k, part.encode(), hashlib.sha256).digest()
        sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
        headers["Authorization"] = (
            "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, "
            "Signature=%s" % (self.ak, scope, ";".join(names), sig))
        return canon_q

    def request(self, method, bucket, key=b"", query=(), body=b"",
                headers=None, out=None):
        headers = dict(headers or {})
        path = "/" + quote(bucket.encode())
        if key:
            path += "/" + quote(key, b"-_.~/")
        q = self._sign(method, path, list(query), headers,
                       hashlib.sha256(body).hexdigest() if body else EMPTY)
        for attempt in range(3):
            if self.conn is None:
                self.conn = Connection(self.host, self.tls, 120)
            try:
                r = self.conn.request(method, path + ("?" + q if q else ""),
                                      body, headers)
                if out is not None and r.status == 200:
                    for chunk in self.conn.chunks():
                        out.write(chunk)
                    data = b""
                else:
                    data = self.conn.read()
                if not self.conn.keep:
                    self.conn.close()
                    self.conn = None
                return r, data
            except ConnectionError:
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise

    def check(self, r, data, what):
        if r.status // 100 != 2:
            sys.exit("s3.py: %s: HTTP %d %s" % (what, r.status,
                                                data[:300].decode("latin-1")))

    def objects(self, bucket, prefix=b"", full=False):
        """(key, size) per object; with full, (key, size, ETag without its
        quotes, LastModified as listed)."""
        token = None
        while True:
            q = [("list-type", "2"), ("encoding-type", "url"),
                 ("prefix", prefix.decode("utf-8", "surrogateescape"))]
            if token:
                q.append(("continuation-token", token))
            r, data = self.request("GET", bucket, query=q)
            self.check(r, data, "list " + bucket)
            root = parse_xml(data)
            for c in root.iter(NS + "Contents"):
                k = unquote(c.find(NS + "Key").text)
                n = int(c.find(NS + "Size").text)
                yield ((k, n, c.findtext(NS + "ETag").strip('"'),
                        c.findtext(NS + "LastModified")) if full else (k, n))
            token_el = root.find(NS + "NextContinuationToken")
            if root.findtext(NS + "IsTruncated") != "true" or token_el is None:
                return
            token = token_el.text


def listing(bucket, prefix):
    """{key relative to prefix (str, surrogate-escaped): size}"""
    s3 = S3()
    p = kbytes(prefix)
    return {k[len(p):].decode("utf-8", "surrogateescape"): n
            for k, n in s3.objects(bucket, p)}


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    s3, cmd, args = S3(), argv[0], argv[1:]
    bucket = args[0]
    if cmd == "mb":
        r, data = s3.request("PUT", bucket)
        s3.check(r, data, "create " + bucket)
    elif cmd == "ls":
        p = kbytes(args[1]) if len(args) > 1 else b""
        out = sys.stdout.buffer
        for k, n in s3.objects(bucket, p):
            out.write(b"%d\t%s\n" % (n, k))
    elif cmd == "get":
        with open(args[2], "wb") as f:
            r, data = s3.request("GET", bucket, kbytes(args[1]), out=f)
        s3.check(r, data, "get " + args[1])
    elif cmd == "lshex":
        p = kbytes(args[1]) if len(args) > 1 else b""
        print(" ".join(sorted(k.hex() for k, _ in s3.objects(bucket, p))))
    elif cmd == "getall":
        p = kbytes(args[1])
        pattern = args[3] if len(args) > 3 else "*"
        from fnmatch import fnmatchcase
        for k, _ in list(s3.objects(bucket, p)):
            name = k[len(p):].decode("utf-8", "surrogateescape")
            if not fnmatchcase(name, pattern):
                continue
            dest = os.path.join(args[2], name)
            os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
            with open(dest, "wb") as f:
                r, data = s3.request("GET", bucket, k, out=f)
            s3.check(r, data, "get " + name)
    elif cmd == "del":
        r, data = s3.request("DELETE", bucket, kbytes(args[1]))
        s3.check(r, data, "delete " + args[1])
    elif cmd == "put":
        with open(args[2], "rb") as f:
            body = f.read()
        hdr = dict(h.split(":", 1) for h in args[3:])
        r, data = s3.request("PUT", bucket, kbytes(args[1]), body=body,
                             headers=hdr)
        s3.check(r, data, "put " + args[1])
    elif cmd == "head":
        r, data = s3.request("HEAD", bucket, kbytes(args[1]))
        s3.check(r, data, "head " + args[1])
        import json
        print(json.dumps({k.lower(): v for k, v in r.getheaders()}))
    elif cmd == "rm":
        p = kbytes(args[1]) if len(args) > 1 else b""
        from binascii import b2a_base64
        keys, odd = [], []
        for k, _ in s3.objects(bucket, p):
            # XML cannot carry bytes that are not UTF-8, nor most controls
            try:
                if any(c < 0x20 for c in k):
                    raise UnicodeDecodeError("utf-8", k, 0, 1, "control")
                keys.append(k.decode("utf-8"))
            except UnicodeDecodeError:
                odd.append(k)
        for k in odd:
            r, data = s3.request("DELETE", bucket, k)
            s3.check(r, data, "delete %r" % k)
        for i in range(0, len(keys), 1000):
            body = ("<Delete><Quiet>true</Quiet>%s</Delete>" % "".join(
                "<Object><Key>%s</Key></Object>" % k.replace("&", "&amp;")
                .replace("<", "&lt;").replace(">", "&gt;")
                for k in keys[i:i + 1000])).encode("utf-8")
            md5 = b2a_base64(hashlib.md5(body).digest(), newline=False)
            md5 = md5.decode()
            r, data = s3.request("POST", bucket, query=[("delete", "")],
                                 body=body, headers={"Content-MD5": md5})
            s3.check(r, data, "delete")
    elif cmd == "uploads":
        q = [("uploads", "")]
        if len(args) > 1:
            q.append(("prefix", args[1]))
        r, data = s3.request("GET", bucket, query=q)
        s3.check(r, data, "list uploads")
        print(len(parse_xml(data).findall(NS + "Upload")))
    elif cmd == "abort":
        k = kbytes(args[1])
        r, data = s3.request("GET", bucket, query=[("uploads", ""),
                                                   ("prefix", args[1])])
        s3.check(r, data, "list uploads")
        for u in parse_xml(data).iter(NS + "Upload"):
            if kbytes(u.findtext(NS + "Key")) != k:
                continue
            q = [("uploadId", u.findtext(NS + "UploadId"))]
            r, data = s3.request("DELETE", bucket, k, query=q)
            s3.check(r, data, "abort " + args[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
