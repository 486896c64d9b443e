#!/usr/bin/env python3
"""fake_imds: an EC2 instance metadata service (IMDSv2) on loopback, for the
credential tests: no S3 here, only the keys of an instance role.

  PUT /latest/api/token        needs X-aws-ec2-metadata-token-ttl-seconds;
                               answers a fresh session token
  GET /latest/meta-data/iam/security-credentials/        the role's name
  GET /latest/meta-data/iam/security-credentials/ROLE    its keys, as JSON
  GET /counts                  what was asked so far, as JSON
  POST /reset?expires_in=N&fail_after=M   zeroes the counts, sets both

The GETs need X-aws-ec2-metadata-token with a token it gave (else 401).
The keys come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in its
environment, with Token from --session-token and an Expiration
expires_in seconds after each answer (default 3600).  After fail_after
answers of keys (default: never), it answers 500 instead.  The port is written to --port-file once it
listens; it exits on SIGTERM or after --lifetime seconds.
"""
import argparse
import datetime
import http.server
import json
import os
import secrets
import signal
import sys
import threading
import urllib.parse

ROLE_PATH = "/latest/meta-data/iam/security-credentials/"


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.tokens = set()
        self.reset({})

    def reset(self, query):
        with self.lock:
            self.expires_in = int(query.get("expires_in", ["3600"])[0])
            self.fail_after = int(query.get("fail_after", [1 << 30])[0])
            self.counts = {"token": 0, "role": 0, "creds": 0,
                           "unauthorized": 0, "failed": 0}

    def count(self, what):
        with self.lock:
            self.counts[what] += 1
            return self.counts[what]


class Quiet(http.server.BaseHTTPRequestHandler):
    """HTTP/1.1, no log, and reply() for a whole answer."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body, ctype="text/plain"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def make_handler(state):
    args = state.args

    class Handler(Quiet):

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            if url.path != "/reset":
                return self.reply(404, "not found")
            state.reset(urllib.parse.parse_qs(url.query))
            return self.reply(200, "reset")

        def do_PUT(self):
            n = int(self.headers.get("Content-Length") or 0)
            if n:
                self.rfile.read(n)
            if self.path != "/latest/api/token":
                return self.reply(404, "not found")
            if not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                return self.reply(400, "missing ttl")
            tok = secrets.token_urlsafe(32)
            with state.lock:
                state.tokens.add(tok)
            state.count("token")
            self.reply(200, tok)

        def authorized(self):
            tok = self.headers.get("X-aws-ec2-metadata-token")
            with state.lock:
                ok = tok in state.tokens
            if not ok:
                state.count("unauthorized")
                self.reply(401, "unauthorized")
            return ok

        def do_GET(self):
            if self.path == "/counts":
                with state.lock:
                    body = json.dumps(state.counts)
                return self.reply(200, body, "application/json")
            if not self.authorized():
                return None
            if self.path == ROLE_PATH:
                state.count("role")
                return self.reply(200, args.role + "\n")
            if self.path != ROLE_PATH + args.role:
                return self.reply(404, "not found")
            if state.count("creds") > state.fail_after:
                state.count("failed")
                return self.reply(500, "unavailable")
            now = datetime.datetime.now(datetime.timezone.utc)
            exp = now + datetime.timedelta(seconds=state.expires_in)
            body = json.dumps({
                "Code": "Success",
                "LastUpdated": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "Type": "AWS-HMAC",
                "AccessKeyId": os.environ["AWS_ACCESS_KEY_ID"],
                "SecretAccessKey": os.environ["AWS_SECRET_ACCESS_KEY"],
                "Token": args.session_token,
                "Expiration": exp.strftime("%Y-%m-%dT%H:%M:%SZ"),
            })
            return self.reply(200, body, "application/json")

    return Handler


def serve(handler, port_file, lifetime):
    """Serves handler on a loopback port, written to port_file once it
    listens, until SIGTERM or lifetime seconds; then exits."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True

    def bye(*_):
        threading.Thread(target=srv.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, bye)
    timer = threading.Timer(lifetime, bye)
    timer.daemon = True
    timer.start()
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, port_file)
    srv.serve_forever()
    sys.exit(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--role", default="ferry-test-role")
    ap.add_argument("--session-token", default="fake-imds-session-token")
    ap.add_argument("--lifetime", type=float, default=300)
    args = ap.parse_args()
    serve(make_handler(State(args)), args.port_file, args.lifetime)

if __name__ == "__main__":
    main()
