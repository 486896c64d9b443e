#!/usr/bin/env python3
"""Writes a deterministic tree of N files in nested folders, with names that
hold spaces, unicode and the characters URLs treat specially.

usage: gen_tree.py DIR N [SEED] [MAXSIZE]
"""
import os
import random
import sys

NAMES = ["plain", "with space", "caf\u00e9", "plus+sign", "per%cent",
         "hash#tag", "question?mark", "semi;colon", "tilde~x", "\u65e5\u672c",
         "amp&ers", "eq=als", "paren(s)", "quote'd", "comma,s"]


def main():
    root, n = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    maxsize = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
    rnd = random.Random(seed)
    for i in range(n):
        depth = i % 4
        parts = [NAMES[(i // 7 + d) % len(NAMES)] + "-d%d" % (i % (3 + d))
                 for d in range(depth)]
        name = "%s %05d.bin" % (NAMES[i % len(NAMES)], i)
        folder = os.path.join(root, *parts)
        os.makedirs(folder, exist_ok=True)
        size = rnd.randint(0, maxsize)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(rnd.randbytes(size))


if __name__ == "__main__":
    main()
