#!/usr/bin/env python3
"""An S3 Inventory made from a listing, as S3 writes one, for the tests.

usage: inventory.py make SRC_BUCKET INV_BUCKET INV_PREFIX [options]
           Lists SRC_BUCKET whole and writes, under INV_PREFIX of
           INV_BUCKET, its rows as gzip-compressed CSV data files (shuffled,
           split in --parts) and a manifest.json naming each with its size
           and MD5checksum, creationTimestamp now; prints the manifest's
           s3:// URL.  Options:
             --parts N        data files (default 3)
             --format F       fileFormat to write (default CSV)
             --bad-md5        the first file's MD5checksum is wrong
             --damage         the first file's gzip data is cut short and
                              its MD5checksum is that of the cut bytes
             --old-version K  adds a row for K that is not the latest
                              version, and a delete marker for K
       inventory.py objects BUCKET PREFIX
           key<TAB>size<TAB>etag of each object under PREFIX, the key
           relative to it, in key order
"""
import gzip
import hashlib
import io
import json
import os
import random
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s3 import S3  # noqa: E402

SCHEMA = ("Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, "
          "LastModifiedDate, ETag, StorageClass")


def listed(s3, bucket, prefix=b""):
    """(key bytes, size, etag without quotes, LastModified) per object."""
    return s3.objects(bucket, prefix, full=True)


def csv_line(fields):
    return ",".join('"%s"' % f.replace('"', '""') for f in fields) + "\n"


def rows(s3, src, old_versions):
    out = []
    for key, size, etag, lm in listed(s3, src):
        k = urllib.parse.quote_plus(key, safe="")
        out.append(csv_line([src, k, "v1", "true", "false", str(size), lm,
                             etag, "STANDARD"]))
    for k in old_versions:
        k = urllib.parse.quote_plus(k.encode(), safe="")
        out.append(csv_line([src, k, "v0", "false", "false", "5",
                             "2020-01-01T00:00:00.000Z",
                             "0123456789abcdef0123456789abcdef",
                             "STANDARD"]))
        out.append(csv_line([src, k, "v2", "true", "true", "", "", "", ""]))
    return out


def make(args):
    src, inv, prefix = args[0], args[1], args[2].rstrip("/")
    opts = {"--parts": "3", "--format": "CSV"}
    flags, old = set(), []
    i = 3
    while i < len(args):
        if args[i] in ("--bad-md5", "--damage"):
            flags.add(args[i])
            i += 1
        elif args[i] == "--old-version":
            old.append(args[i + 1])
            i += 2
        else:
            opts[args[i]] = args[i + 1]
            i += 2
    s3 = S3()
    created = str(int(time.time() * 1000))
    lines = rows(s3, src, old)
    random.Random(7).shuffle(lines)
    parts = int(opts["--parts"])
    files = []
    for n in range(parts):
        body = gzip.compress("".join(lines[n::parts]).encode(), mtime=0)
        md5 = hashlib.md5(body).hexdigest()
        if n == 0 and "--damage" in flags:
            body = body[:len(body) * 2 // 3]
            md5 = hashlib.md5(body).hexdigest()
        if n == 0 and "--bad-md5" in flags:
            md5 = hashlib.md5(body + b"x").hexdigest()
        key = "%s/data/part-%d.csv.gz" % (prefix, n)
        r, data = s3.request("PUT", inv, key.encode(), body=body)
        s3.check(r, data, "put " + key)
        files.append({"key": key, "size": len(body), "MD5checksum": md5})
    manifest = {"sourceBucket": src,
                "destinationBucket": "arn:aws:s3:::" + inv,
                "version": "2016-11-30", "creationTimestamp": created,
                "fileFormat": opts["--format"], "fileSchema": SCHEMA,
                "files": files}
    key = prefix + "/manifest.json"
    r, data = s3.request("PUT", inv, key.encode(),
                         body=json.dumps(manifest, indent=2).encode())
    s3.check(r, data, "put " + key)
    print("s3://%s/%s" % (inv, key))


def objects(args):
    bucket, prefix = args[0], args[1].encode()
    out = io.StringIO()
    for key, size, etag, _ in sorted(listed(S3(), bucket, prefix)):
        out.write("%s\t%d\t%s\n" % (
            key[len(prefix):].decode("utf-8", "surrogateescape"), size, etag))
    sys.stdout.write(out.getvalue())


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("make", "objects"):
        sys.exit(__doc__)
    (make if sys.argv[1] == "make" else objects)(sys.argv[2:])
