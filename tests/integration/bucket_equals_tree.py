#!/usr/bin/env python3
"""Compares a local tree with what an independent client (s3.py, with its
own signer) lists under s3://BUCKET/PREFIX: the same keys and the same
sizes.  Prints the differences and exits 1 if there are any.

usage: bucket_equals_tree.py DIR BUCKET PREFIX
"""
import os
import sys

from s3 import listing


def tree(root):
    found = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            found[os.path.relpath(p, root)] = os.path.getsize(p)
    return found


def main():
    root, bucket, prefix = sys.argv[1:4]
    a, b = tree(root), listing(bucket, prefix)
    bad = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("# differs: %r local=%s bucket=%s" % (k, a.get(k), b.get(k)))
            bad += 1
    print("# %d local, %d in bucket, %d differ" % (len(a), len(b), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
