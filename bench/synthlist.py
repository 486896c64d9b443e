#!/usr/bin/python3
"""synthlist.py: a far-away huge bucket, simulated for ferry's benchmark.

    synthlist.py --keys N [--folders F] [--port-file FILE] [--delay S]

Serves ListObjectsV2 (and ListObjects v1) on 127.0.0.1 for every bucket
it is asked about, as if each held the same N empty objects under any
prefix: PREFIX + "dNNNN/fNNNNNNNN" (F folders, N / F keys each; with
--folders 1, PREFIX + "fNNNNNNNN"), all with one size (0), one ETag (that
of no bytes) and one date.  Pages honour prefix, start-after,
continuation-token, marker, max-keys (at most 1000) and
encoding-type=url; each is held --delay seconds before it is sent.
Nothing is stored and nothing is checked (no signature): it is a listing
to measure a client's listing against (its memory, its requests), not a
server.  Other requests get 404 NoSuchKey, or 200 for a HEAD of a bucket.
It prints each request's method and path on stderr with --verbose, and
counts LIST requests in --count-file at exit (SIGTERM).
"""
import argparse
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ETAG = '"d41d8cd98f00b204e9800998ecf8427e"'
DATE = "2023-11-14T22:13:20.000Z"


class Keys:
    def __init__(self, n, folders):
        self.n = n
        self.folders = max(1, folders)
        self.per = max(1, -(-n // self.folders))

    def rel(self, i):
        if self.folders == 1:
            return "f%08d" % i
        return "d%04d/f%08d" % (i // self.per, i)

    def first_after(self, rel):
        """The index of the first key greater than rel (relative)."""
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) // 2
            if self.rel(mid) <= rel:
                lo = mid + 1
            else:
                hi = mid
        return lo


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("synthlist: " + fmt % args + "\n")

    def reply(self, code, body, ctype="application/xml"):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def not_found(self):
        self.reply(404, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                   "<Error><Code>NoSuchKey</Code><Message>synthlist holds "
                   "no objects</Message></Error>")

    def do_HEAD(self):
        path = urllib.parse.urlsplit(self.path).path
        if path.strip("/").count("/") == 0:
            self.reply(200, "")
        else:
            self.not_found()

    def do_PUT(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        self.not_found()

    do_POST = do_PUT
    do_DELETE = do_PUT

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        parts = u.path.lstrip("/").split("/", 1)
        q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        if len(parts) > 1 and parts[1]:
            return self.not_found()
        if "location" in q:
            return self.reply(200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                              "<LocationConstraint/>")
        if any(k in q for k in ("uploads", "versions", "acl", "tagging")):
            return self.not_found()
        self.listing(parts[0], q)

    def listing(self, bucket, q):
        with self.server.lock:
            self.server.lists += 1
        keys = self.server.keys
        v2 = q.get("list-type") == "2"
        prefix = q.get("prefix", "")
        url = q.get("encoding-type") == "url"
        maxk = min(1000, int(q.get("max-keys", "1000") or 1000))
        after = q.get("continuation-token") if v2 else None
        if after is None:
            after = q.get("start-after" if v2 else "marker", "")
        # every key is prefix + rel: find the first rel past after
        if after < prefix:
            i = 0
        elif after.startswith(prefix):
            i = keys.first_after(after[len(prefix):])
        else:
            i = keys.n
        j = min(keys.n, i + maxk)
        out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
               "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/"
               "2006-03-01/\"><Name>%s</Name><Prefix>%s</Prefix>"
               % (xml_escape(bucket), xml_escape(prefix)),
               "<MaxKeys>%d</MaxKeys>" % maxk]
        if url:
            out.append("<EncodingType>url</EncodingType>")
        out.append("<IsTruncated>%s</IsTruncated>"
                   % ("true" if j < keys.n else "false"))
        if v2:
            out.append("<KeyCount>%d</KeyCount>" % (j - i))
        last = None
        qprefix = urllib.parse.quote(prefix, safe="/") if url else \
            xml_escape(prefix)
        for k in range(i, j):
            last = prefix + keys.rel(k)
            # the synthesized part needs no escaping; the prefix may
            name = qprefix + keys.rel(k)
            out.append("<Contents><Key>%s</Key><LastModified>%s"
                       "</LastModified><ETag>%s</ETag><Size>0</Size>"
                       "<StorageClass>STANDARD</StorageClass></Contents>"
                       % (name, DATE, xml_escape(ETAG)))
        if j < keys.n and last is not None:
            if v2:
                out.append("<NextContinuationToken>%s"
                           "</NextContinuationToken>"
                           % xml_escape(last))
            else:
                out.append("<NextMarker>%s</NextMarker>" % xml_escape(last))
        out.append("</ListBucketResult>")
        if self.server.delay > 0:
            time.sleep(self.server.delay)
        self.reply(200, "".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, required=True)
    ap.add_argument("--folders", type=int, default=1000)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--count-file")
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.keys = Keys(a.keys, a.folders)
    srv.delay = a.delay
    srv.verbose = a.verbose
    srv.lock = threading.Lock()
    srv.lists = 0

    def stop(*_):
        if a.count_file:
            with open(a.count_file, "w") as f:
                f.write("%d\n" % srv.lists)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % srv.server_address[1])
        import os
        os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
