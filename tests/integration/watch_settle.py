#!/usr/bin/env python3
"""Writes into a watched tree as t_watchsettle.sh needs, and watches the
bucket meanwhile with tests/integration/s3.py: one file (log.txt)
appended to every 0.2 s for SECONDS s and then closed; 1 s in, five
files written and closed at once (f1..f5) and one written once and kept
open, idle, until the end (idle.txt).  The bucket is listed under PREFIX
all along.

usage: watch_settle.py TREE BUCKET PREFIX WATCHER_JSON SECONDS

Prints KEY=VALUE lines:
  five_after    seconds from the five closes to the first listing that
                holds the five (-1: never)
  idle_after    seconds from idle.txt's write to the first listing that
                holds it whole, the file still open (-1: never)
  log_early     listings before log.txt's close that held it, answered
                less than CAP s after it was made
  log_badsize   listings before its close that held it at a size the
                file never had
  log_sent_open listings before its close that held it at a size it had
  held_runs     "run" lines of the watcher with "held" >= 1 before the
                close of log.txt
  log_final     1 when, after its close, the object is the file's bytes
                (within 15 s), else 0
"""
import json
import os
import subprocess
import sys
import threading
import time

tree, bucket, prefix, wjson, seconds = sys.argv[1:6]
seconds = float(seconds)
CAP = 10.0  # WATCH_SETTLE_CAP settle times, at --watch-settle 1
S3 = [sys.executable, "-S",
      os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3.py")]

listings = []  # (time asked, time answered, {key: size})
stop = threading.Event()


def list_once():
    out = subprocess.run(S3 + ["ls", bucket, prefix], capture_output=True,
                         text=True).stdout
    objs = {}
    for line in out.splitlines():
        size, key = line.split("\t", 1)
        objs[key[len(prefix):]] = int(size)
    return objs


def poller():
    while not stop.is_set():
        t = time.monotonic()
        objs = list_once()
        listings.append((t, time.monotonic(), objs))
        time.sleep(0.2)


def held_runs():
    n = 0
    with open(wjson) as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("event") == "run" and d.get("held", 0) >= 1:
                n += 1
    return n


th = threading.Thread(target=poller)
th.start()
sizes = {0}
# before the file is made: the watcher's cap counts from its first event
t_first = time.monotonic()
log = open(os.path.join(tree, "log.txt"), "wb", buffering=0)
i = 0
t_five = t_idle = None
idle = None
while time.monotonic() - t_first < seconds:
    log.write(b"%07d %s\n" % (i, b"x" * 1015))
    i += 1
    sizes.add(os.fstat(log.fileno()).st_size)
    if t_five is None and time.monotonic() - t_first >= 1.0:
        for k in range(1, 6):
            with open(os.path.join(tree, "f%d" % k), "wb") as f:
                f.write(os.urandom(2048))
        t_five = time.monotonic()
        idle = open(os.path.join(tree, "idle.txt"), "wb", buffering=0)
        idle.write(b"i" * 300)
        t_idle = time.monotonic()
    time.sleep(0.2)
held = held_runs()
t_close = time.monotonic()
log.close()
final = open(os.path.join(tree, "log.txt"), "rb").read()

log_final = 0
deadline = time.monotonic() + 15
while time.monotonic() < deadline:
    if listings and listings[-1][0] > t_close and \
            listings[-1][2].get("log.txt") == len(final):
        break
    time.sleep(0.2)
stop.set()
th.join()
idle.close()
got = os.path.join(tree, "..", "log.got")
if subprocess.run(S3 + ["get", bucket, prefix + "log.txt", got],
                  capture_output=True).returncode == 0:
    log_final = int(open(got, "rb").read() == final)

five = ["f%d" % k for k in range(1, 6)]
five_after = idle_after = -1
early = badsize = sent_open = 0
# a listing tells what was there between its asking and its answer: a
# latency counts to its answer, a listing is early when answered early
for t, t_end, objs in listings:
    if five_after < 0 and t >= t_five and all(k in objs for k in five):
        five_after = t_end - t_five
    if idle_after < 0 and t >= t_idle and objs.get("idle.txt") == 300:
        idle_after = t_end - t_idle
    if t_end < t_close and "log.txt" in objs:
        if t_end - t_first < CAP:
            early += 1
        if objs["log.txt"] in sizes:
            sent_open += 1
        else:
            badsize += 1
print("five_after=%.2f" % five_after)
print("idle_after=%.2f" % idle_after)
print("log_early=%d" % early)
print("log_badsize=%d" % badsize)
print("log_sent_open=%d" % sent_open)
print("held_runs=%d" % held)
print("log_final=%d" % log_final)
print("listings=%d" % len(listings))
