#!/usr/bin/env python3
"""faultproxy: an HTTP/1.1 forwarding proxy on loopback that injects faults
between ferry and the test S3 gateway.

Requests pass through byte-exact (request line and headers unchanged,
Host included, since ferry signs them); bodies are framed by Content-Length
or chunked encoding; connections are kept alive on both sides.  For each
request that matches --only-methods and --match, a seeded RNG decides, at
--rate (or always with --always), whether to inject one of --kinds:

  500    reply 500 InternalError (S3 XML error body), without forwarding
  503    reply 503 SlowDown (S3 XML error body), without forwarding
  reset  close the client connection before replying (for a request with a
         body, after reading the body or before, at random)
  cut    forward, then send the reply's headers and only part of its body
         (part of the status line when it has no body), then close
  delay  sleep 0.2-1.5 s (or --delay SECONDS), then forward; with
         --hold FILE, wait instead until FILE exists (at most IO_TIMEOUT),
         so that a test acts while the request is held, then lets it go
  flip   forward, then relay a 2xx reply whole but for one bit of its
         body, flipped (a body framed by Content-Length; others pass
         unchanged); not part of "all", it must be named
  flipup forward the request with one bit of its body flipped (a body
         framed by Content-Length), as a link that corrupts what it
         carries would; not part of "all"
  stall  read the request, then answer nothing, holding the connection
         open until the client gives up on it, as a server that has
         stopped would; not part of "all"
  501    reply 501 NotImplemented, without forwarding, as GCS's XML API
         answers DeleteObjects (POST ?delete); not part of "all"

With --log-headers NAME[,NAME], each request is logged as one line
"hdr METHOD TARGET name=value ..." with the value of each named header
("-" when absent), so that a test sees what reached the server.

With --tls-cert CERT --tls-key KEY, the proxy speaks TLS to its clients
(plain HTTP to the gateway, with X-Forwarded-Proto: https added, which a
gateway told to trust it, rgw_trust_forwarded_https, takes as a secure
connection: SSE-C needs one).


With --kms, the proxy plays a bucket whose objects are encrypted with
SSE-KMS, as AWS answers for one: each 2xx reply carries
x-amz-server-side-encryption: aws:kms, and every ETag it names (in the
ETag header, and in XML bodies: listings, ListParts, Complete, copies) is
another of the same length, so that none is an MD5 of the bytes.  A
CompleteMultipartUpload must name each part by the ETag it was given: those
are put back for the gateway; one that names a part by the gateway's own
ETag (its MD5) is refused 400 InvalidPart, as S3 refuses it, and logged as
"kms-refused TARGET".

With --bucket-region (or FAULTPROXY_BUCKET_REGION), the proxy also plays
buckets that live in another region than the one ferry signs for, as AWS
answers them: a request whose Authorization credential scope names another
region than its bucket's is not forwarded but refused, per
--wrong-region-reply:

  301       301 PermanentRedirect (S3 XML error body) with the header
            x-amz-bucket-region (the default)
  301-bare  the same without the header: the client must ask the bucket
            (a HEAD always gets the header)
  400       400 AuthorizationHeaderMalformed naming the region in <Region>
            and its message, without the header

A HEAD gets the status and headers with an empty body.  Requests for other
buckets, and the rest, are forwarded.  Each refusal is logged as one line
"redirect METHOD TARGET REGION".

With --lie-reply KIND[,KIND] (longbody, hugelength, badrange, hugemtime),
the 2xx replies to GETs and HEADs of objects lie about their numbers; with
--cond-delete, the proxy honours the ETag conditions of DeleteObject and
DeleteObjects as AWS does: see tests/faultproxy_lies.py.

With --swift KIND[,KIND] (delete-etags, put-cond, copy-if-match,
delete-if-match) and --swift-match REGEX, the proxy refuses the conditions
ferry sends as OpenStack Swift's s3api does: see tests/faultproxy_swift.py.

With --lie MODE, the proxy plays a server whose listings lie: the body of
each 2xx ListObjectsV2 reply (a GET on a bucket with list-type=2) is read
whole and its <Contents> entries rewritten, per MODE:

  reverse   each page's entries in reverse order
  repeat    the middle entry of each page listed twice in a row
  outside   an entry whose key is not under the prefix asked for
            ("zz-outside-the-prefix/x"), appended to each page
  hugesize  the middle entry's size is 2^64-1
  baddate   the middle entry's LastModified is 9999-12-31T23:59:59.000Z
  unsorted  each page's entries shuffled (seeded by --seed), as an S3
            Express directory bucket (a name ending in "--x-s3") may list
            them: no order within a page nor across pages; the gateway
            takes such bucket names as they are
  archive   the entries whose key holds "cold" listed in the storage
            class GLACIER, and "deep" in DEEP_ARCHIVE, as objects moved
            to an archive class are

Modes joined by commas apply in turn ("repeat,unsorted": a repeated entry,
then the page shuffled).  Each rewritten page is logged as one line
"lie MODE TARGET".

With --latency MS, the proxy plays a far-away server: every request waits
MS milliseconds before it goes upstream and every reply MS milliseconds
before its first byte goes back (a round trip of 2 x MS on top of the
gateway's own time; bandwidth is not limited).  Each request is logged as
one line "lat METHOD TARGET inflight=N", N being the requests the proxy
held at once as it arrived (itself included), so that a test can count how
many a client keeps in flight.  Give --rate 0 for latency alone.

With --list-delay SECONDS, each listing request (ListObjectsV2 or v1: a
GET on a bucket, path style, with no other subresource) waits that long
before it is forwarded, as a far-away server answers a page, and is
logged as one line "list GET TARGET".

Each fault is logged as one line "fault KIND METHOD TARGET" to --log FILE,
else to stderr.  The port is printed on stdout as "PORT <n>" once the proxy
listens, and written to --port-file if given.  The proxy exits on SIGTERM,
SIGINT, or by itself after --lifetime seconds.

usage: faultproxy.py --upstream http://127.0.0.1:PORT [--seed N]
           [--rate 0.10] [--kinds all|500,503,reset,cut,delay,flip,stall]
           [--max-faults N] [--only-methods GET,PUT] [--match REGEX]
           [--always] [--delay SECONDS] [--hold FILE] [--log FILE]
           [--port-file FILE]
           [--port N] [--lifetime SECONDS]
           [--bucket-region [BUCKET=]REGION]...
           [--wrong-region-reply 301|301-bare|400] [--kms]
           [--lie-reply KIND[,KIND]] [--cond-delete]
           [--lie reverse|repeat|outside|hugesize|baddate|unsorted|archive]
           [--log-headers NAME[,NAME]] [--tls-cert CERT --tls-key KEY]
           [--list-delay SECONDS] [--latency MS] [--swift KIND[,KIND]]
           [--swift-match REGEX]
"""
import argparse
import base64
import hashlib
import hmac
import os
import random
import re
import select
import signal
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import urllib.parse

import faultproxy_lies as lies
import faultproxy_swift

KINDS = ("500", "503", "reset", "cut", "delay", "flip", "flipup",
         "stall", "501")
ALL_KINDS = ("500", "503", "reset", "cut", "delay")
MAX_HEAD = 64 << 10
BLOCK = 64 << 10
IO_TIMEOUT = 120

ERRORS = {
    "500": ("500 Internal Server Error", "InternalError",
            "We encountered an internal error. Please try again."),
    "503": ("503 Slow Down", "SlowDown", "Please reduce your request rate."),
    "501": ("501 Not Implemented", "NotImplemented",
            "A header you provided implies functionality that is not "
            "implemented"),
}


class Closed(Exception):
    """The peer closed the connection, or sent something unframeable."""


class Conn:
    """A socket with a read buffer, for parsing HTTP/1.1 messages."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def fill(self):
        data = self.sock.recv(BLOCK)
        if not data:
            raise Closed("connection closed")
        self.buf += data

    def read_head(self):
        """Returns the header block, up to and including the blank line."""
        while True:
            i = self.buf.find(b"\r\n\r\n")
            if i >= 0:
                head, self.buf = self.buf[:i + 4], self.buf[i + 4:]
                return head
            if len(self.buf) > MAX_HEAD:
                raise Closed("header block too large")
            self.fill()

    def read_line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line, self.buf = self.buf[:i + 2], self.buf[i + 2:]
                return line
            if len(self.buf) > MAX_HEAD:
                raise Closed("line too long")
            self.fill()

    def read_some(self, n):
        """Returns between 1 and n bytes."""
        if not self.buf:
            self.fill()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def read_exact(self, n):
        out = []
        while n > 0:
            data = self.read_some(min(n, BLOCK))
            out.append(data)
            n -= len(data)
        return b"".join(out)

    def at_eof(self):
        """True when an idle connection was closed by the peer."""
        if self.buf:
            return False
        try:
            r, _, _ = select.select([self.sock], [], [], 0)
            if not r:
                return False
            return self.sock.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


def resigned(raw, body=None, region=None):
    """The request head raw signed again with the key of the test user it
    names ($AWS_* or $FERRY_TEST_*2): with body (the body it now carries,
    a Complete whose ETags were put back), its Content-MD5 made the
    body's; with region, signed for that region.  The upstream server
    may check the MD5 and the region (Swift does; the Ceph gateway does
    not).  Unchanged if unsigned."""
    if body is not None:
        md5 = base64.b64encode(hashlib.md5(body).digest())
        raw = re.sub(rb"(?im)^(content-md5:)[ \t]*[^\r\n]*",
                     lambda m: m.group(1) + b" " + md5, raw)
    msg = Message(raw)
    auth = re.match(r"AWS4-HMAC-SHA256 Credential=([^/]*)/([^/]*)/([^/]*)/"
                    r"s3/aws4_request, ?SignedHeaders=([^,]*), ?Signature=",
                    msg.header("authorization"))
    keys = {os.environ.get("AWS_ACCESS_KEY_ID"):
            os.environ.get("AWS_SECRET_ACCESS_KEY"),
            os.environ.get("FERRY_TEST_ACCESS2"):
            os.environ.get("FERRY_TEST_SECRET2")}
    if not auth or not keys.get(auth.group(1)):
        return raw
    ak, day, signed, names = auth.groups()
    region = region or signed
    method, target = msg.first.split(" ")[:2]
    path, _, query = target.partition("?")
    pairs = sorted(tuple((p + "=").split("=")[:2])
                   for p in query.split("&") if p)
    creq = "\n".join([
        method, path, "&".join("%s=%s" % kv for kv in pairs),
        "".join("%s:%s\n" % (n, msg.header(n)) for n in names.split(";")),
        names, msg.header("x-amz-content-sha256")])
    scope = "%s/%s/s3/aws4_request" % (day, region)
    sts = "\n".join(["AWS4-HMAC-SHA256", msg.header("x-amz-date"), scope,
                     hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + keys[ak]).encode()
    for part in (day, region, "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    raw = re.sub(rb"(?im)^(authorization:[^\r\n]*Signature=)[0-9a-f]*",
                 lambda m: m.group(1) + sig.encode(), raw)
    return raw.replace(("/%s/%s/s3/" % (day, signed)).encode(),
                       ("/%s/%s/s3/" % (day, region)).encode(), 1)


class Message:
    """A parsed request or response head; the raw bytes are kept."""

    def __init__(self, raw):
        self.raw = raw
        lines = raw[:-4].split(b"\r\n")
        self.first = lines[0].decode("latin-1")
        self.headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            key = name.strip().lower().decode("latin-1")
            val = value.strip().decode("latin-1")
            if key in self.headers:
                self.headers[key] += "," + val
            else:
                self.headers[key] = val

    def header(self, name):
        return self.headers.get(name, "")

    def chunked(self):
        return "chunked" in self.header("transfer-encoding").lower()

    def length(self):
        v = self.header("content-length")
        if not v:
            return None
        try:
            return int(v.split(",")[0])
        except ValueError:
            raise Closed("bad Content-Length")

    def close_after(self):
        conn = self.header("connection").lower()
        if self.first.startswith("HTTP/1.0"):
            return "keep-alive" not in conn
        return "close" in conn


def body_pieces(conn, msg, is_response=False, method="", status=0):
    """Yields the raw bytes of msg's body as they arrive.  A response
    without framing runs to the end of the connection (then raises
    Closed at the end, which the caller treats as the end of the body)."""
    if is_response and (method == "HEAD" or status // 100 == 1 or
                        status in (204, 304)):
        return
    if msg.chunked():
        while True:
            line = conn.read_line()
            yield line
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise Closed("bad chunk size")
            if size == 0:
                while True:
                    line = conn.read_line()
                    yield line
                    if line == b"\r\n":
                        return
            left = size + 2
            while left > 0:
                data = conn.read_some(min(left, BLOCK))
                left -= len(data)
                yield data
    n = msg.length()
    if n is None:
        if not is_response:
            return
        while True:
            try:
                data = conn.read_some(BLOCK)
            except Closed:
                return
            yield data
    while n > 0:
        data = conn.read_some(min(n, BLOCK))
        n -= len(data)
        yield data


def dechunk(raw):
    """The payload of a whole chunked body (trailers dropped)."""
    out, i = [], 0
    while True:
        j = raw.index(b"\r\n", i)
        size = int(raw[i:j].split(b";")[0].strip(), 16)
        if size == 0:
            return b"".join(out)
        out.append(raw[j + 2:j + 2 + size])
        i = j + 2 + size + 2


class Faults:
    """The seeded decisions, shared by all connections."""

    def __init__(self, args):
        self.rng = random.Random(args.seed)
        self.lock = threading.Lock()
        self.rate = args.rate
        self.always = args.always
        self.kinds = list(ALL_KINDS) if args.kinds == "all" else \
            [k.strip() for k in args.kinds.split(",") if k.strip()]
        for k in self.kinds:
            if k not in KINDS:
                sys.exit("faultproxy: unknown fault kind %r" % k)
        self.left = args.max_faults
        self.methods = None
        if args.only_methods:
            self.methods = {m.strip().upper()
                            for m in args.only_methods.split(",")}
        self.match = re.compile(args.match) if args.match else None
        self.log = open(args.log, "a", buffering=1) if args.log else \
            sys.stderr
        self.count = 0
        self.delay = args.delay
        self.hold = args.hold

    def wait(self, seconds):
        """A delay fault: seconds, or until the --hold file exists."""
        if self.hold is None:
            time.sleep(seconds)
            return
        end = time.monotonic() + IO_TIMEOUT
        while not os.path.exists(self.hold) and time.monotonic() < end:
            time.sleep(0.02)

    def decide(self, method, target):
        """Returns (kind, params) for this request, or (None, None)."""
        if self.methods is not None and method not in self.methods:
            return None, None
        if self.match is not None and not self.match.search(target):
            return None, None
        with self.lock:
            if self.left is not None and self.left <= 0:
                return None, None
            if not self.always and self.rng.random() >= self.rate:
                return None, None
            kind = self.rng.choice(self.kinds)
            params = {"read_body": self.rng.random() < 0.5,
                      "fraction": self.rng.uniform(0.1, 0.9),
                      "delay": self.rng.uniform(0.2, 1.5)}
            if self.delay is not None:
                params["delay"] = self.delay
            if self.left is not None:
                self.left -= 1
            self.count += 1
            self.log.write("fault %s %s %s\n" % (kind, method, target))
            self.log.flush()
        return kind, params


# The region of the server behind the proxy.
UPSTREAM_REGION = os.environ.get("AWS_REGION", "us-east-1")


class Regions:
    """Buckets that live in a region of their own: SPEC is REGION (every
    bucket) or BUCKET=REGION."""

    SCOPE = re.compile(r"Credential=[^/,\s]+/\d{8}/([^/,\s]+)/s3/")

    def __init__(self, specs, reply, log):
        self.all = None
        self.buckets = {}
        for spec in specs:
            bucket, eq, region = spec.rpartition("=")
            if not region:
                sys.exit("faultproxy: bad --bucket-region %r" % spec)
            if eq:
                self.buckets[bucket] = region
            else:
                self.all = region
        self.reply = reply
        self.log = log
        self.count = 0
        self.lock = threading.Lock()

    def played(self, req):
        """Whether req is signed for another region than the upstream's
        (as for a bucket whose region is played)."""
        m = self.SCOPE.search(req.header("authorization"))
        return (self.all is not None or bool(self.buckets)) and \
            m is not None and m.group(1) != UPSTREAM_REGION

    def region_of(self, req, target):
        """The bucket a request is for (path style, else the Host's first
        label) and the region it lives in, or (None, None)."""
        path = urllib.parse.urlsplit(target).path
        bucket = urllib.parse.unquote(path.lstrip("/").split("/")[0])
        host = req.header("host").split(":")[0]
        if bucket not in self.buckets and host.split(".")[0] in \
                self.buckets:
            bucket = host.split(".")[0]
        if not bucket:
            return None, None
        return bucket, self.buckets.get(bucket, self.all)

    def refusal(self, req, method, target):
        """The reply to send instead of forwarding, or None."""
        bucket, region = self.region_of(req, target)
        m = self.SCOPE.search(req.header("authorization"))
        if region is None or m is None or m.group(1) == region:
            return None
        with self.lock:
            self.count += 1
            n = self.count
            self.log.write("redirect %s %s %s\n" % (method, target, region))
            self.log.flush()
        return moved_reply(self.reply, method, bucket, region, m.group(1), n)


class Kms:
    """The ETags of an SSE-KMS bucket: each of the gateway's (32 hex
    digits, then any "-N") stands for another, the same length, both ways."""

    ETAG_XML = re.compile(rb"(<ETag>(?:&quot;|&#34;|\")?)([0-9a-fA-F]{32})")
    ETAG_HEAD = re.compile(rb"(?im)^(etag:[ \t]*\"?)([0-9a-fA-F]{32})")

    def __init__(self, log):
        self.lock = threading.Lock()
        self.given = {}  # the gateway's ETag -> the one given out
        self.real = {}   # the one given out -> the gateway's
        self.log = log

    def other(self, m):
        real = m.group(2).lower()
        with self.lock:
            fake = self.given.get(real)
            if fake is None:
                fake = hashlib.md5(b"kms:" + real).hexdigest().encode()
                self.given[real] = fake
                self.real[fake] = real
        return m.group(1) + fake

    def reply_head(self, raw):
        """A 2xx reply's head with its ETag swapped and the header that
        says the object is encrypted with KMS."""
        raw = self.ETAG_HEAD.sub(self.other, raw, count=1)
        return raw[:-2] + b"x-amz-server-side-encryption: aws:kms\r\n\r\n"

    def reply_body(self, body):
        return self.ETAG_XML.sub(self.other, body)

    def complete_body(self, target, body):
        """The body of a Complete with the ETags given out put back, or
        None when it names a part by the gateway's own ETag."""
        bad = []

        def back(m):
            tag = m.group(2).lower()
            with self.lock:
                if tag in self.given:
                    bad.append(tag)
                return m.group(1) + self.real.get(tag, tag)
        out = self.ETAG_XML.sub(back, body)
        if bad:
            self.log.write("kms-refused %s\n" % target)
            self.log.flush()
            return None
        return out

    @staticmethod
    def object_etag(body):
        """The ETag the gateway lists for the object a Complete (with the
        gateway's part ETags) makes: the MD5 of their MD5s, "-N"."""
        parts = [bytes.fromhex(m.group(2).decode())
                 for m in Kms.ETAG_XML.finditer(body)]
        return b"&quot;%s-%d&quot;" % (
            hashlib.md5(b"".join(parts)).hexdigest().encode(), len(parts))


class Lie:
    """A listing that lies: each page's <Contents> rewritten per mode."""

    MODES = ("reverse", "repeat", "outside", "hugesize", "baddate",
             "unsorted", "archive")
    CONTENTS = re.compile(rb"<Contents>.*?</Contents>", re.S)
    OUTSIDE = (b"<Contents><Key>zz-outside-the-prefix/x</Key>"
               b"<LastModified>2024-01-01T00:00:00.000Z</LastModified>"
               b"<ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag>"
               b"<Size>0</Size><StorageClass>STANDARD</StorageClass>"
               b"</Contents>")

    def __init__(self, mode, seed, log):
        self.modes = mode.split(",")
        for m in self.modes:
            if m not in self.MODES:
                sys.exit("faultproxy: unknown lie %r" % m)
        self.mode = mode
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.log = log

    @staticmethod
    def applies(method, target, status):
        query = urllib.parse.urlsplit(target).query
        return method == "GET" and status // 100 == 2 and \
            "list-type=2" in query.split("&")

    def entries(self, ents):
        """The entries of one page, as the modes lie about them."""
        for mode in self.modes:
            ents = self.one(mode, ents)
        return ents

    def one(self, mode, ents):
        mid = len(ents) // 2
        if mode == "reverse":
            return ents[::-1]
        if mode == "unsorted":
            with self.lock:
                out = ents[:]
                self.rng.shuffle(out)
            return out[::-1] if len(out) > 1 and out == ents else out
        if mode == "repeat":
            return ents[:mid + 1] + ents[mid:]
        if mode == "outside":
            return ents + [self.OUTSIDE]
        if mode == "archive":
            return [self.archived(e) for e in ents]
        if mode == "hugesize":
            ents[mid] = re.sub(rb"<Size>\d*</Size>",
                               b"<Size>18446744073709551615</Size>", ents[mid])
        else:
            ents[mid] = re.sub(rb"<LastModified>[^<]*</LastModified>",
                               b"<LastModified>9999-12-31T23:59:59.000Z"
                               b"</LastModified>", ents[mid])
        return ents

    @staticmethod
    def archived(ent):
        """An entry whose key has "cold" (or "deep") in an archive class."""
        key = re.search(rb"<Key>([^<]*)</Key>", ent)
        cls = b"GLACIER" if key and b"cold" in key.group(1) else \
            b"DEEP_ARCHIVE" if key and b"deep" in key.group(1) else None
        if cls is None:
            return ent
        ent = re.sub(rb"<StorageClass>[^<]*</StorageClass>", b"", ent)
        return ent.replace(b"</Contents>", b"<StorageClass>" + cls +
                           b"</StorageClass></Contents>")

    def body(self, target, body):
        found = list(self.CONTENTS.finditer(body))
        if not found:
            return body
        ents = self.entries([m.group(0) for m in found])
        self.log.write("lie %s %s\n" % (self.mode, target))
        self.log.flush()
        return body[:found[0].start()] + b"".join(ents) + \
            body[found[-1].end():]

    def relay(self, conn, resp, method, target, status, up):
        """Relays a listing's reply with its body rewritten, framed by a
        Content-Length of its own."""
        body = b"".join(body_pieces(up, resp, True, method, status))
        if resp.chunked():
            body = dechunk(body)
        body = self.body(target, body)
        lines = [l for l in resp.raw[:-4].split(b"\r\n")
                 if not re.match(rb"(?i)(content-length|transfer-encoding):",
                                 l)]
        head = b"\r\n".join(lines) + b"\r\nContent-Length: %d\r\n\r\n" % \
            len(body)
        conn.sendall(head + body)


def invalid_part_reply(target):
    path = urllib.parse.urlsplit(target).path
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error>'
            "<Code>InvalidPart</Code><Message>One or more of the specified "
            "parts could not be found.  The part may not have been "
            "uploaded, or the specified entity tag may not match the "
            "part's entity tag.</Message><Resource>%s</Resource>"
            "<RequestId>faultproxy-kms</RequestId></Error>" %
            _xml(path)).encode()
    head = ("HTTP/1.1 400 Bad Request\r\n"
            "Content-Type: application/xml\r\n"
            "Content-Length: %d\r\n"
            "Connection: keep-alive\r\n\r\n" % len(body))
    return head.encode() + body


def moved_reply(kind, method, bucket, region, signed, n):
    if kind == "400":
        status, code = "400 Bad Request", "AuthorizationHeaderMalformed"
        detail = ("<Message>The authorization header is malformed; the "
                  "region '%s' is wrong; expecting '%s'</Message>"
                  "<Region>%s</Region>" % (signed, region, region))
    else:
        status, code = "301 Moved Permanently", "PermanentRedirect"
        detail = ("<Message>The bucket you are attempting to access must "
                  "be addressed using the specified endpoint. Please send "
                  "all future requests to this endpoint.</Message>"
                  "<Endpoint>%s.s3.%s.amazonaws.com</Endpoint>"
                  "<Bucket>%s</Bucket>" % (_xml(bucket), region,
                                           _xml(bucket)))
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code>'
            "%s<RequestId>faultproxy-r%d</RequestId></Error>" %
            (code, detail, n)).encode()
    if method == "HEAD":
        body = b""
    header = ""
    if kind == "301" or method == "HEAD":
        header = "x-amz-bucket-region: %s\r\n" % region
    head = ("HTTP/1.1 %s\r\n"
            "Content-Type: application/xml\r\n"
            "Content-Length: %d\r\n"
            "%s"
            "x-amz-request-id: faultproxy-r%d\r\n"
            "Connection: keep-alive\r\n\r\n" % (status, len(body), header, n))
    return head.encode() + body


def error_reply(kind, method, target, n):
    status, code, message = ERRORS[kind]
    path = urllib.parse.urlsplit(target).path
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            "<Error><Code>%s</Code><Message>%s</Message>"
            "<Resource>%s</Resource><RequestId>faultproxy-%d</RequestId>"
            "</Error>" % (code, message, _xml(path), n)).encode()
    head = ("HTTP/1.1 %s\r\n"
            "Content-Type: application/xml\r\n"
            "Content-Length: %d\r\n"
            "x-amz-request-id: faultproxy-%d\r\n"
            "Date: %s\r\n"
            "Connection: keep-alive\r\n\r\n" %
            (status, 0 if method == "HEAD" else len(body), n,
             time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())))
    return head.encode() + (b"" if method == "HEAD" else body)


def _xml(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Lagged:
    """A client socket whose next reply waits the latency still owed for
    its request (--latency): the way back of a far-away path."""

    def __init__(self, sock):
        self.sock = sock
        self.owed = 0.0

    def sendall(self, data):
        if self.owed > 0:
            time.sleep(self.owed)
            self.owed = 0.0
        return self.sock.sendall(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


class Latency:
    """--latency: the delay each way, and the requests held at once."""

    def __init__(self, ms, log):
        self.seconds = ms / 1000.0
        self.log = log
        self.lock = threading.Lock()
        self.held = 0

    def arrive(self, method, target):
        with self.lock:
            self.held += 1
            self.log.write("lat %s %s inflight=%d\n" % (method, target,
                                                        self.held))
        time.sleep(self.seconds)

    def leave(self):
        with self.lock:
            self.held -= 1


class Handler(socketserver.BaseRequestHandler):
    """One client connection: its requests in turn, over one upstream
    connection opened on demand."""

    def setup(self):
        if self.server.tls is not None:
            self.request.settimeout(IO_TIMEOUT)
            self.request = self.server.tls.wrap_socket(self.request,
                                                       server_side=True)
        self.request.settimeout(IO_TIMEOUT)
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.server.latency is not None:
            self.request = Lagged(self.request)
        self.client = Conn(self.request)
        self.up = None

    def finish(self):
        self.close_upstream()

    def close_upstream(self):
        if self.up is not None:
            try:
                self.up.sock.close()
            except OSError:
                pass
            self.up = None

    def upstream(self):
        if self.up is not None and self.up.at_eof():
            self.close_upstream()
        if self.up is None:
            s = socket.create_connection(self.server.upstream, IO_TIMEOUT)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.up = Conn(s)
        return self.up

    def handle(self):
        try:
            while self.one_request():
                pass
        except (Closed, OSError, ValueError, IndexError):
            pass

    def one_request(self):
        """Serves one request; returns False when the connection ends."""
        try:
            req = Message(self.client.read_head())
        except Closed:
            return False
        parts = req.first.split(" ")
        if len(parts) != 3:
            return False
        lat = self.server.latency
        if lat is None:
            return self.serve(req, parts[0], parts[1])
        lat.arrive(parts[0], parts[1])
        self.request.owed = lat.seconds
        try:
            return self.serve(req, parts[0], parts[1])
        finally:
            lat.leave()

    def serve(self, req, method, target):
        """Answers req, read up to its head; False when the connection
        ends."""
        moved = self.server.regions.refusal(req, method, target)
        if moved is not None:
            self.drain_request(req)
            self.request.sendall(moved)
            return not req.close_after()
        if self.server.swift is not None:
            answer = self.swift(req, method, target)
            if answer is not None:
                self.request.sendall(answer)
                return not req.close_after()
        if self.server.cond_delete and method in ("DELETE", "POST"):
            answer = self.cond_delete(req, method, target)
            if answer is not None:
                self.request.sendall(answer)
                return not req.close_after()
        if self.server.list_delay is not None and \
                is_listing(method, target):
            self.server.faults.log.write("list %s %s\n" % (method, target))
            self.server.faults.log.flush()
            time.sleep(self.server.list_delay)
        kind, params = self.server.faults.decide(method, target)
        self.log_headers(req, method, target)
        if kind in ("500", "503", "501"):
            self.drain_request(req)
            self.request.sendall(error_reply(kind, method, target,
                                             self.server.faults.count))
            return not req.close_after()
        if kind == "reset":
            if params["read_body"]:
                self.drain_request(req)
            self.reset_client()
            return False
        if kind == "stall":
            self.drain_request(req)
            self.hold_silent()
            return False
        if kind == "delay":
            self.server.faults.wait(params["delay"])
        return self.forward(req, method,
                            params["fraction"] if kind == "cut" else None,
                            params["fraction"] if kind == "flip" else None,
                            params["fraction"] if kind == "flipup" else None,
                            target)

    def log_headers(self, req, method, target):
        names = self.server.log_headers
        if not names:
            return
        vals = ["%s=%s" % (n, req.header(n) or "-") for n in names]
        self.server.faults.log.write("hdr %s %s %s\n" %
                                     (method, target, " ".join(vals)))
        self.server.faults.log.flush()

    def swift(self, req, method, target):
        """Swift's refusal of the request, or None: a body read to decide
        is then put back, to be forwarded."""
        raw = b""
        if self.server.swift.needs_body(method, target):
            raw = b"".join(body_pieces(self.client, req))
        body = dechunk(raw) if raw and req.chunked() else raw
        answer = self.server.swift.refusal(req, method, target, body)
        if answer is None and raw:
            self.client.buf = raw + self.client.buf
        elif answer is not None and not raw:
            self.drain_request(req)
        return answer

    def cond_delete(self, req, method, target):
        """The reply to a delete whose ETag condition fails, or None: the
        request's body is then put back, to be forwarded."""
        raw = b"".join(body_pieces(self.client, req))
        body = dechunk(raw) if req.chunked() else raw
        answer = lies.cond_delete(req, method, target, body,
                                  self.server.faults.log)
        if answer is None:
            self.client.buf = raw + self.client.buf
        return answer

    def relay_lie(self, resp, method, target, status):
        """Relays a 2xx reply to an object's GET or HEAD with the lies of
        --lie-reply, then closes the connection."""
        body = b"".join(body_pieces(self.up, resp, True, method, status))
        self.close_upstream()
        head = resp.raw
        for kind in self.server.lies:
            head, body = lies.lie(kind, head, body, method, status)
            self.server.faults.log.write("lie %s %s %s\n" % (kind, method,
                                                             target))
        self.server.faults.log.flush()
        self.request.sendall(head + (b"" if method == "HEAD" else body))

    def continue_if_expected(self, req):
        """Answers Expect: 100-continue here, since the body is read
        before anything goes upstream."""
        if "100-continue" in req.header("expect").lower():
            self.request.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            # the final reply has its own way back
            if self.server.latency is not None:
                self.request.owed = self.server.latency.seconds

    def drain_request(self, req):
        self.continue_if_expected(req)
        for _ in body_pieces(self.client, req):
            pass

    def hold_silent(self):
        """Reads and drops what the client sends until it closes."""
        self.request.settimeout(None)
        while self.request.recv(65536):
            pass

    def reset_client(self):
        """Closes the client connection with a TCP reset."""
        try:
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    struct.pack("ii", 1, 0))
            self.request.close()
        except OSError:
            pass

    def forward(self, req, method, cut, flip=None, flip_up=None,
                target=""):
        """Sends the request upstream and relays the reply; with cut (a
        fraction), relays only part of it and ends the connection; with
        flip (a fraction), flips one bit of a 2xx body at that point; with
        flip_up, one bit of the request's body.  Under --kms, a Complete's
        ETags and the 2xx replies go through Kms."""
        kms = self.server.kms
        made = None
        self.continue_if_expected(req)
        pieces = body_pieces(self.client, req)
        if kms and method == "POST" and "uploadId=" in target and \
                not req.chunked():
            body = kms.complete_body(target, b"".join(pieces))
            if body is None:
                self.request.sendall(invalid_part_reply(target))
                return not req.close_after()
            pieces = [body]
            made = Kms.object_etag(body)
        up = self.upstream()
        raw = req.raw
        if made is not None:
            raw = resigned(raw, pieces[0])
        if self.server.regions.played(req):
            # signed for the bucket's played region: the server behind
            # lives in the test's
            raw = resigned(raw, region=UPSTREAM_REGION)
        if self.server.tls is not None:
            raw = raw[:-2] + b"X-Forwarded-Proto: https\r\n\r\n"
        up.sock.sendall(raw)
        at_up = int((req.length() or 0) * flip_up) \
            if flip_up is not None and not req.chunked() else -1
        for data in pieces:
            if 0 <= at_up < len(data):
                data = data[:at_up] + bytes([data[at_up] ^ 0x10]) + \
                    data[at_up + 1:]
            at_up -= len(data)
            up.sock.sendall(data)
        while True:
            resp = Message(up.read_head())
            status = int(resp.first.split(" ")[1])
            if status // 100 != 1 or status == 101:
                break
        if cut is not None:
            self.relay_cut(resp, method, status, cut)
            return False
        if self.server.lies and status // 100 == 2 and \
                lies.object_target(method, target):
            self.relay_lie(resp, method, target, status)
            return False
        if kms and status // 100 == 2:
            self.relay_kms(resp, method, target, status, up, made)
            return not req.close_after()
        lie = self.server.lie
        if lie and Lie.applies(method, target, status):
            lie.relay(self.request, resp, method, target, status, up)
            if resp.close_after() or (resp.length() is None and
                                      not resp.chunked()):
                self.close_upstream()
            return not req.close_after()
        self.request.sendall(resp.raw)
        at = -1
        if flip is not None and status // 100 == 2 and not resp.chunked() \
                and (resp.length() or 0) > 0:
            at = int(resp.length() * flip)
        for data in body_pieces(up, resp, True, method, status):
            if 0 <= at < len(data):
                data = data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]
            at -= len(data)
            self.request.sendall(data)
        if resp.close_after() or (resp.length() is None and
                                  not resp.chunked()):
            self.close_upstream()
        return not req.close_after()

    def relay_kms(self, resp, method, target, status, up, made=None):
        """Relays a 2xx reply as a bucket under SSE-KMS gives it: the XML
        body of an S3 call (not an object's bytes) is read whole and its
        ETags swapped (a chunked one goes on as one chunk), others pass as
        they come.  A Complete's reply names the object's ETag, made, as
        AWS's does where the gateway's leaves it empty."""
        kms = self.server.kms
        head = kms.reply_head(resp.raw)
        pieces = body_pieces(up, resp, True, method, status)
        call = method in ("PUT", "POST") or "?" in target
        if not call or "xml" not in resp.header("content-type").lower() or \
                (resp.length() is None and not resp.chunked()):
            self.request.sendall(head)
            for data in pieces:
                self.request.sendall(data)
        else:
            body = b"".join(pieces)
            if resp.chunked():
                body = dechunk(body)
            if made is not None:
                body = body.replace(b"<ETag></ETag>",
                                    b"<ETag>%s</ETag>" % made)
            body = kms.reply_body(body)
            if resp.chunked():
                raw = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) \
                    if body else b"0\r\n\r\n"
            else:
                raw = body
                head = re.sub(rb"(?im)^(content-length:[ \t]*)\d+",
                              b"\\g<1>%d" % len(raw), head, count=1)
            self.request.sendall(head + raw)
        if resp.close_after() or (resp.length() is None and
                                  not resp.chunked()):
            self.close_upstream()

    def relay_cut(self, resp, method, status, fraction):
        body = b"".join(body_pieces(self.up, resp, True, method, status))
        self.close_upstream()
        if body:
            out = resp.raw + body[:int(len(body) * fraction)]
        else:
            # A client takes headers ended by the close as a whole reply:
            # cut inside the status line, so that none of it arrives.
            out = resp.raw[:int((len(resp.first) + 1) * fraction)]
        self.request.sendall(out)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 256


def parse_upstream(url):
    u = urllib.parse.urlsplit(url)
    if u.scheme != "http" or not u.hostname:
        sys.exit("faultproxy: --upstream must be http://HOST:PORT")
    host = u.hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit("faultproxy: the upstream must be on loopback")
    return host, u.port or 80


# Query names that make a GET on a bucket something other than a listing.
BUCKET_SUBRESOURCES = {"acl", "cors", "encryption", "lifecycle", "location",
                       "logging", "notification", "object-lock", "policy",
                       "replication", "tagging", "uploads", "versioning",
                       "versions", "website"}


def is_listing(method, target):
    """A ListObjectsV2 or ListObjects (v1) request: a GET on a bucket
    (path style: one segment) with no other subresource."""
    u = urllib.parse.urlsplit(target)
    names = {kv.split("=")[0] for kv in u.query.split("&") if kv}
    return method == "GET" and u.path.strip("/") != "" and \
        "/" not in u.path.strip("/") and not names & BUCKET_SUBRESOURCES


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=float, default=0.10)
    ap.add_argument("--kinds", default="all")
    ap.add_argument("--max-faults", type=int, default=None)
    ap.add_argument("--only-methods", default=None)
    ap.add_argument("--match", default=None)
    ap.add_argument("--always", action="store_true")
    ap.add_argument("--delay", type=float, default=None)
    ap.add_argument("--hold", default=None)
    ap.add_argument("--log", default=None)
    ap.add_argument("--port-file", default=None)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--lifetime", type=float, default=600)
    env = os.environ.get("FAULTPROXY_BUCKET_REGION")
    ap.add_argument("--bucket-region", action="append",
                    default=[env] if env else [])
    ap.add_argument("--wrong-region-reply", default="301",
                    choices=("301", "301-bare", "400"))
    ap.add_argument("--kms", action="store_true")
    ap.add_argument("--lie-reply", default=None)
    ap.add_argument("--cond-delete", action="store_true")
    ap.add_argument("--lie", default=None)
    ap.add_argument("--log-headers", default=None)
    ap.add_argument("--tls-cert", default=None)
    ap.add_argument("--tls-key", default=None)
    ap.add_argument("--list-delay", type=float, default=None)
    ap.add_argument("--latency", type=float, default=None)
    ap.add_argument("--swift", default=None)
    ap.add_argument("--swift-match", default=None)
    args = ap.parse_args()

    upstream = parse_upstream(args.upstream)
    faults = Faults(args)
    regions = Regions(args.bucket_region, args.wrong_region_reply,
                      faults.log)

    def bye(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
    timer = threading.Timer(args.lifetime, bye)
    timer.daemon = True
    timer.start()

    srv = Server(("127.0.0.1", args.port), Handler)
    srv.upstream = upstream
    srv.faults = faults
    srv.regions = regions
    srv.kms = Kms(faults.log) if args.kms else None
    srv.lies = lies.parse_lies(args.lie_reply)
    srv.cond_delete = args.cond_delete
    srv.swift = faultproxy_swift.Swift(args.swift, args.swift_match,
                                       faults.log) if args.swift else None
    srv.list_delay = args.list_delay
    srv.latency = Latency(args.latency, faults.log) \
        if args.latency else None
    srv.lie = Lie(args.lie, args.seed, faults.log) if args.lie else None
    srv.log_headers = [h.strip().lower() for h in
                       (args.log_headers or "").split(",") if h.strip()]
    srv.tls = None
    if args.tls_cert:
        srv.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        srv.tls.load_cert_chain(args.tls_cert, args.tls_key)
    port = srv.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.rename(tmp, args.port_file)
    print("PORT %d" % port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
