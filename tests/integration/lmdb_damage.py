#!/usr/bin/env python3
"""lmdb_damage.py: damages a manifest's data.mdb (LMDB 0.9, 64-bit) the way
a disk or a crash could, for tests of what ferry does with it.

  lmdb_damage.py FILE truncate BYTES     cut the file to BYTES
  lmdb_damage.py FILE record TABLE       the first record of TABLE (local,
                                         remote, uploads) gets a bad version
  lmdb_damage.py FILE pages SEED [N]     N (default 6) runs of 1-4 random
                                         bytes over page headers, node
                                         pointers and node headers of branch
                                         and leaf pages, chosen from SEED

Prints what it changed, one line each.
"""
import random
import struct
import sys

PAGEHDR = 16


def metas(d):
    m = []
    for i in range(2):
        off = 0 if i == 0 else struct.unpack_from("<I", d, PAGEHDR + 24)[0]
        db = [struct.unpack_from("<IHHQQQQQ", d, off + PAGEHDR + 24 + 48 * j)
              for j in range(2)]
        last, txn = struct.unpack_from("<QQ", d, off + PAGEHDR + 120)
        m.append((txn, i, db, last))
    return max(m)  # the newest, page 0 on a tie as LMDB


def walk(d, ps, root, table, out):
    """Appends (pgno, 'branch'|'leaf', table) for every page of a tree."""
    if root == 2**64 - 1:
        return
    stack = [root]
    while stack:
        pg = stack.pop()
        base = pg * ps
        flags, lower = struct.unpack_from("<HH", d, base + 10)
        n = (lower - PAGEHDR) // 2
        kind = "branch" if flags & 1 else "leaf"
        out.append((pg, kind, table))
        for i in range(n):
            ptr = struct.unpack_from("<H", d, base + PAGEHDR + 2 * i)[0]
            lo, hi, fl, ks = struct.unpack_from("<HHHH", d, base + ptr)
            if kind == "branch":
                stack.append(lo | hi << 16 | fl << 32)
            elif table == "main" and fl & 2:
                name = d[base + ptr + 8:base + ptr + 8 + ks].decode()
                sub = struct.unpack_from("<Q", d, base + ptr + 8 + ks + 40)[0]
                walk(d, ps, sub, name, out)


def pages(d):
    ps = struct.unpack_from("<I", d, PAGEHDR + 24)[0]
    txn, i, db, last = metas(d)
    out = []
    walk(d, ps, db[1][7], "main", out)
    return ps, out


def node(d, ps, pg, i):
    base = pg * ps
    ptr = struct.unpack_from("<H", d, base + PAGEHDR + 2 * i)[0]
    return base + ptr


def main():
    path, mode = sys.argv[1], sys.argv[2]
    d = bytearray(open(path, "rb").read())
    if mode == "truncate":
        d = d[:int(sys.argv[3])]
        print("cut to %d bytes" % len(d))
    elif mode == "record":
        ps, pgs = pages(d)
        pg = min(p for p, k, t in pgs if k == "leaf" and t == sys.argv[3])
        at = node(d, ps, pg, 0)
        ks = struct.unpack_from("<H", d, at + 6)[0]
        d[at + 8 + ks] = 0xEE
        print("record version byte at %d (page %d)" % (at + 8 + ks, pg))
    elif mode == "pages":
        r = random.Random(int(sys.argv[3]))
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 6
        ps, pgs = pages(d)
        for _ in range(n):
            pg, kind, table = r.choice(pgs)
            where = r.choice(["header", "pointer", "node"])
            if where == "header":
                at = pg * ps + r.randrange(PAGEHDR)
            else:
                lower = struct.unpack_from("<H", d, pg * ps + 12)[0]
                i = r.randrange(max((lower - PAGEHDR) // 2, 1))
                at = (pg * ps + PAGEHDR + 2 * i if where == "pointer"
                      else node(d, ps, pg, i) + r.randrange(8))
            for k in range(r.randint(1, 4)):
                d[(at + k) % len(d)] = r.randrange(256)
            print("%s of %s page %d (%s) at %d" % (where, kind, pg, table, at))
    else:
        sys.exit(__doc__)
    open(path, "wb").write(d)


main()
