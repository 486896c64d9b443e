#!/usr/bin/env python3
"""A stand-in for systemd's side of sd_notify(3): binds an AF_UNIX
datagram socket at ADDR (a path, or an abstract name when it begins with
'@') and writes each datagram it reads to LOG as one line: the wall clock
time, a tab, and the message with its newlines as '|'.  With --on-ready
CMD, runs CMD (through sh) as soon as a READY=1 arrives, its output
written to LOG.ready (whole once it is there), before it reads on.  Ends on SIGTERM, or on its own
after --max-seconds (default 600).

usage: notify_listen.py ADDR LOG [--on-ready CMD] [--max-seconds N]
"""
import os
import signal
import socket
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    on_ready, limit = None, 600.0
    if "--on-ready" in args:
        i = args.index("--on-ready")
        on_ready = args[i + 1]
        del args[i:i + 2]
    if "--max-seconds" in args:
        i = args.index("--max-seconds")
        limit = float(args[i + 1])
        del args[i:i + 2]
    addr, log = args
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    end = time.monotonic() + limit
    with open(log, "a", buffering=1) as out:
        out.write("%.6f\tlistening\n" % time.time())
        while time.monotonic() < end:
            s.settimeout(max(0.1, end - time.monotonic()))
            try:
                msg = s.recv(4096)
            except socket.timeout:
                break
            t = time.time()
            text = msg.decode("utf-8", "replace")
            out.write("%.6f\t%s\n" % (t, text.replace("\n", "|")))
            if on_ready and "READY=1" in text.split("\n"):
                r = subprocess.run(on_ready, shell=True,
                                   capture_output=True, text=True)
                with open(log + ".ready.tmp", "w") as f:
                    f.write(r.stdout)
                os.rename(log + ".ready.tmp", log + ".ready")


if __name__ == "__main__":
    main()
