#!/usr/bin/env python3
"""bench/watchlat.py: the latency of ferry sync --watch, from a file's
close (close_write) to its object in the bucket.  Starts the watcher
(CMD, with --json) on DIR, waits for its first run to end and its watches
to be set, then writes N new files of 1 KiB into DIR at RATE per second,
each time-stamped as it is closed, and reads the watcher's JSON lines as
they come: an "upload" line is written once the PUT has been answered,
so the object is listable from then on (S3's read-after-write).  At the
end it lists the bucket (tests/integration/s3.py, independent of ferry)
to check every key is there, stops the watcher with SIGTERM and prints
one line: p50 and p99 of the latencies in seconds, and the count.

usage: watchlat.py DIR BUCKET PREFIX N RATE -- CMD...
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    cut = sys.argv.index("--")
    d, bucket, prefix, n, rate = sys.argv[1:cut]
    n, rate = int(n), float(rate)
    cmd = sys.argv[cut + 1:]
    w = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    listed, ready = {}, threading.Event()
    summaries = [0]

    def reader():
        for line in w.stdout:
            t = time.monotonic()
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("type") == "summary":
                summaries[0] += 1
                ready.set()
            elif ev.get("type") == "upload" and ev.get("key"):
                listed.setdefault(ev["key"], t)

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    if not ready.wait(600):
        sys.exit("the watcher's first run did not end")
    time.sleep(1)
    closed = {}
    t0 = time.monotonic()
    tag = "w%d" % os.getpid()
    for i in range(n):
        due = t0 + i / rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        name = "%s-%05d" % (tag, i)
        with open(os.path.join(d, name), "wb") as f:
            f.write(os.urandom(1024))
        closed[prefix + name] = time.monotonic()
    end = time.monotonic() + 120
    while time.monotonic() < end and not all(k in listed for k in closed):
        time.sleep(0.1)
    out = subprocess.run([sys.executable, "-S",
                          os.path.join(TOP, "tests/integration/s3.py"),
                          "ls", bucket, prefix + tag],
                         capture_output=True, text=True).stdout
    in_bucket = len(out.splitlines())
    w.send_signal(signal.SIGTERM)
    w.wait(300)
    lat = [listed[k] - closed[k] for k in closed if k in listed]
    if not lat:
        sys.exit("no upload seen")
    print("n %d seen %d listed %d p50 %.3f p99 %.3f max %.3f" % (
        n, len(lat), in_bucket, pct(lat, 50), pct(lat, 99), max(lat)))


if __name__ == "__main__":
    main()
