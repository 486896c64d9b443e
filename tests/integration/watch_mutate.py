#!/usr/bin/env python3
"""Changes a tree at random, from a fixed seed, as a watcher must follow
it: files created, appended to, truncated, renamed, deleted and chmod'ed,
folders made deep (mkdir -p), renamed, and replaced by a file; in bursts
(many changes at once) with quiet gaps between them.

usage: watch_mutate.py DIR COUNT SEED

Prints how many changes of each kind were made.
"""
import os
import random
import shutil
import sys
import time


def walk(root):
    files, dirs = [], []
    for d, ds, fs in os.walk(root):
        dirs.extend(os.path.join(d, x) for x in ds)
        files.extend(os.path.join(d, x) for x in fs)
    return sorted(files), sorted(dirs)


class Mutator:
    def __init__(self, root, seed):
        self.root = root
        self.rng = random.Random(seed)
        self.n = 0
        self.done = {}
        self.refresh()

    def refresh(self):
        self.files, self.dirs = walk(self.root)

    def name(self):
        self.n += 1
        return "m%d-%04x" % (self.n, self.rng.getrandbits(16))

    def anydir(self):
        if self.dirs and self.rng.random() < 0.8:
            return self.rng.choice(self.dirs)
        return self.root

    def data(self):
        size = self.rng.choice([0, 1, 100, 3000, 20000, 70000])
        return self.rng.randbytes(size)

    def create(self):
        p = os.path.join(self.anydir(), self.name())
        with open(p, "wb") as f:
            f.write(self.data())
        self.files.append(p)

    def append(self):
        with open(self.rng.choice(self.files), "ab") as f:
            f.write(self.data())

    def truncate(self):
        p = self.rng.choice(self.files)
        os.truncate(p, self.rng.randrange(os.path.getsize(p) + 1))

    def rename_file(self):
        p = self.rng.choice(self.files)
        q = os.path.join(self.anydir(), self.name())
        os.rename(p, q)
        self.files[self.files.index(p)] = q

    def delete(self):
        p = self.rng.choice(self.files)
        os.unlink(p)
        self.files.remove(p)

    def chmod(self):
        os.chmod(self.rng.choice(self.files),
                 self.rng.choice([0o600, 0o644, 0o755]))

    def deep(self):
        d = self.anydir()
        for _ in range(self.rng.randrange(4, 12)):
            d = os.path.join(d, self.name())
        os.makedirs(d)
        with open(os.path.join(d, self.name()), "wb") as f:
            f.write(self.data())
        self.refresh()

    def rename_dir(self):
        d = self.rng.choice(self.dirs)
        t = os.path.join(self.anydir(), self.name())
        if t.startswith(d + os.sep):
            return
        os.rename(d, t)
        self.refresh()

    def dir_to_file(self):
        d = self.rng.choice(self.dirs)
        shutil.rmtree(d)
        with open(d, "wb") as f:
            f.write(self.data())
        self.refresh()

    def step(self):
        kinds = [(self.create, 25), (self.append, 15), (self.truncate, 8),
                 (self.rename_file, 12), (self.delete, 12), (self.chmod, 8),
                 (self.deep, 3), (self.rename_dir, 3), (self.dir_to_file, 2)]
        op = self.rng.choices([k for k, _ in kinds],
                              [w for _, w in kinds])[0]
        needs_file = op in (self.append, self.truncate, self.rename_file,
                            self.delete, self.chmod)
        if (needs_file and not self.files) or \
                (op in (self.rename_dir, self.dir_to_file) and not self.dirs):
            op = self.create
        try:
            op()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError,
                ValueError):
            self.refresh()
            return
        self.done[op.__name__] = self.done.get(op.__name__, 0) + 1


def main():
    root, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    m = Mutator(root, seed)
    left = count
    while left > 0:
        # a burst, then a gap shorter or longer than a settle time
        burst = min(left, m.rng.choice([1, 5, 20, 100, 400]))
        for _ in range(burst):
            m.step()
        left -= burst
        time.sleep(m.rng.choice([0, 0.01, 0.05, 0.2]))
    print(" ".join("%s=%d" % kv for kv in sorted(m.done.items())))


if __name__ == "__main__":
    main()
