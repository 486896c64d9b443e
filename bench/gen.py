#!/usr/bin/python3
"""gen.py: deterministic data sets for ferry's benchmark (bench/run.sh).

    gen.py tree DIR COUNT FOLDERS MIN MAX SEED
        COUNT files spread over FOLDERS folders (d000/ ... ), sizes uniform
        in [MIN, MAX] bytes, pseudo-random (incompressible) bytes from a
        seeded stream (AES-CTR from openssl): the same arguments always give the same bytes.
        Every mtime is set to 2023-11-14 22:13:20 UTC (1700000000), so an
        upload is always newer than its file.
    gen.py big DIR COUNT SIZE SEED
        COUNT files big-N.bin of SIZE bytes each, seeded as above.
    gen.py touch DIR
        Set every file's mtime to now (a new mtime, the same bytes).
    gen.py mutate DIR PERCENT SEED
        Rewrite PERCENT % of the files (chosen by SEED among the sorted
        paths) with new bytes of the same size; their mtimes become now.
        Prints how many files changed.
    gen.py digest DIR
        Print "FILES BYTES SHA256" over the sorted relative paths and
        contents: two trees with the same line hold the same data.
    gen.py presign ENDPOINT BUCKET PREFIX METHOD DIR URLFILE
        For each file under DIR (sorted), write curl config lines that PUT
        it to (METHOD=put), or GET it from (METHOD=get) into DIR,
        s3://BUCKET/PREFIX/RELPATH through a SigV4 presigned URL made with
        the botocore that Debian's awscli ships. Keys come from the
        AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY variables.
    gen.py presign-list ENDPOINT BUCKET PREFIX LISTFILE DIR URLFILE
        As presign get, for the relative paths listed in LISTFILE.
SIZE, MIN and MAX take K, M and G suffixes (powers of 1024).
"""
import hashlib
import os
import random
import subprocess
import sys
import time

FIXED_MTIME = 1700000000
CHUNK = 1 << 20


def size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().rstrip("B").rstrip("I")
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def files(root):
    out = []
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(os.path.relpath(p, root))
    out.sort(key=lambda s: s.encode())
    return out


class Stream:
    """An endless, seeded stream of pseudo-random bytes: AES-128-CTR over
    zeros, keyed by SHA-256(SEED), from the openssl command (Python's own
    generators make about 10 MB/s on a busy machine; this is C speed)."""

    def __init__(self, seed):
        key = hashlib.sha256(seed.encode()).hexdigest()[:32]
        self.p = subprocess.Popen(
            ["openssl", "enc", "-aes-128-ctr", "-nosalt", "-K", key,
             "-iv", "0" * 32, "-in", "/dev/zero"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def read(self, n):
        b = self.p.stdout.read(n)
        if len(b) != n:
            sys.exit("gen.py: openssl stopped")
        return b

    def close(self):
        self.p.stdout.close()
        self.p.kill()
        self.p.wait()


def write_random(path, nbytes, stream):
    with open(path, "wb") as f:
        left = nbytes
        while left > 0:
            n = min(left, CHUNK)
            f.write(stream.read(n))
            left -= n


def cmd_tree(root, count, folders, lo, hi, seed):
    count, folders, lo, hi = int(count), int(folders), size(lo), size(hi)
    rng = random.Random(f"ferry-bench-tree-{seed}")
    stream = Stream(f"ferry-bench-tree-{seed}")
    os.makedirs(root, exist_ok=True)
    for i in range(count):
        d = os.path.join(root, "d%03d" % (i % folders))
        if i < folders:
            os.makedirs(d, exist_ok=True)
        p = os.path.join(d, "f%06d.bin" % i)
        write_random(p, rng.randint(lo, hi), stream)
        os.utime(p, (FIXED_MTIME, FIXED_MTIME))
    stream.close()


def cmd_big(root, count, nbytes, seed):
    os.makedirs(root, exist_ok=True)
    nbytes = size(nbytes)
    for i in range(int(count)):
        stream = Stream(f"ferry-bench-big-{seed}-{i}")
        p = os.path.join(root, "big-%d.bin" % i)
        write_random(p, nbytes, stream)
        stream.close()
        os.utime(p, (FIXED_MTIME, FIXED_MTIME))


def cmd_touch(root):
    now = time.time()
    for rel in files(root):
        os.utime(os.path.join(root, rel), (now, now))


def cmd_mutate(root, percent, seed):
    names = files(root)
    rng = random.Random(f"ferry-bench-mutate-{seed}")
    n = max(1, round(len(names) * float(percent) / 100))
    chosen = rng.sample(names, n)
    stream = Stream(f"ferry-bench-mutate-{seed}")
    for rel in chosen:
        p = os.path.join(root, rel)
        write_random(p, os.path.getsize(p), stream)
    stream.close()
    print(n)


def cmd_digest(root):
    h = hashlib.sha256()
    count = total = 0
    for rel in files(root):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            while True:
                b = f.read(CHUNK)
                if not b:
                    break
                h.update(b)
                total += len(b)
        h.update(b"\0")
        count += 1
    print(count, total, h.hexdigest())


def s3_client(endpoint):
    import awscli  # noqa: F401  (puts Debian's vendored botocore on the path)
    import botocore.session
    from botocore.config import Config

    s = botocore.session.get_session()
    return s.create_client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
        config=Config(signature_version="s3v4",
                      s3={"addressing_style": "path"}))


def write_presigned(endpoint, bucket, prefix, method, root, rels, urlfile):
    c = s3_client(endpoint)
    op = "put_object" if method == "put" else "get_object"
    with open(urlfile, "w") as out:
        for rel in rels:
            key = (prefix.strip("/") + "/" + rel) if prefix else rel
            url = c.generate_presigned_url(
                op, Params={"Bucket": bucket, "Key": key}, ExpiresIn=86400)
            p = os.path.join(root, rel)
            if method == "put":
                out.write('upload-file = "%s"\noutput = "/dev/null"\n' % p)
            else:
                out.write('output = "%s"\n' % p)
            out.write('url = "%s"\n' % url)


def cmd_presign(endpoint, bucket, prefix, method, root, urlfile):
    write_presigned(endpoint, bucket, prefix, method, root, files(root),
                    urlfile)


def cmd_presign_list(endpoint, bucket, prefix, listfile, root, urlfile):
    with open(listfile) as f:
        rels = [line.rstrip("\n") for line in f if line.strip()]
    write_presigned(endpoint, bucket, prefix, "get", root, rels, urlfile)


COMMANDS = {
    "tree": (cmd_tree, 6), "big": (cmd_big, 4), "touch": (cmd_touch, 1),
    "mutate": (cmd_mutate, 3), "digest": (cmd_digest, 1),
    "presign": (cmd_presign, 6), "presign-list": (cmd_presign_list, 6),
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    fn, nargs = COMMANDS[sys.argv[1]]
    if len(sys.argv) != nargs + 2:
        sys.exit(__doc__)
    fn(*sys.argv[2:])
