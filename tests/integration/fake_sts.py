#!/usr/bin/env python3
"""fake_sts: STS and a container credentials endpoint on loopback, for the
credential tests: no S3 here, only keys for a role.

  POST /  Action=AssumeRoleWithWebIdentity: RoleArn must be --role, the
          WebIdentityToken what --token-file holds now, the request
          unsigned.
  POST /  Action=AssumeRole: RoleArn must be --role, the request SigV4-
          signed (service sts) with --source-key and --source-secret, or
          (a chain of roles) with the keys it gives out ("by_role").
  GET /creds  the container endpoint: Authorization must be what
          --auth-token-file holds now; answers the JSON of ECS and EKS.
  GET /counts                 what was asked so far, as JSON
  POST /reset?expires_in=N&fail_after=M   zeroes the counts, sets both

A request that fails a check gets STS's ErrorResponse (AccessDenied) or
401, and is counted as "refused".  The keys given out come from
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in its environment (the
gateway's), with SessionToken --session-token and an Expiration
expires_in seconds after each answer (default 3600).  After fail_after
answers (default: never) it answers 500.  The port is written to
--port-file once it listens; it exits on SIGTERM or after --lifetime s.
"""
import argparse
import datetime
import hashlib
import hmac
import json
import os
import re
import sys
import threading
import urllib.parse

from fake_imds import Quiet, serve

NS = "https://sts.amazonaws.com/doc/2011-06-15/"


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.reset({})

    def reset(self, query):
        with self.lock:
            self.expires_in = int(query.get("expires_in", ["3600"])[0])
            self.fail_after = int(query.get("fail_after", [1 << 30])[0])
            self.counts = {"web_identity": 0, "assume_role": 0,
                           "container": 0, "refused": 0, "by_role": 0, "failed": 0,
                           "answers": 0}

    def count(self, what):
        with self.lock:
            self.counts[what] += 1
            return self.counts[what]


def read_file(path):
    with open(path) as f:
        return f.read().strip()


def sigv4_ok(method, path, query, headers, body, key, secret):
    """Checks the Authorization of a request signed with key/secret."""
    auth = headers.get("Authorization") or ""
    m = re.match(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/"
                 r"sts/aws4_request, ?SignedHeaders=([^,]+), ?"
                 r"Signature=([0-9a-f]{64})$", auth)
    if not m or m.group(1) != key:
        return False
    date, region, signed, sig = m.group(2), m.group(3), m.group(4), m.group(5)
    names = signed.split(";")
    if "host" not in names or "x-amz-date" not in names:
        return False
    canon_headers = "".join(
        "%s:%s\n" % (n, " ".join((headers.get(n) or "").split()))
        for n in names)
    canon = "\n".join([method, path, query, canon_headers, signed,
                       hashlib.sha256(body).hexdigest()])
    amz_date = headers.get("x-amz-date") or ""
    scope = "%s/%s/sts/aws4_request" % (date, region)
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canon.encode()).hexdigest()])
    k = ("AWS4" + secret).encode()
    for part in (date, region, "sts", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    want = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, sig)


def make_handler(state):
    args = state.args

    class Handler(Quiet):
        def reply(self, status, body, ctype="text/xml"):
            Quiet.reply(self, status, body, ctype)

        def refuse(self, why):
            state.count("refused")
            sys.stderr.write("fake_sts: refused: %s\n" % why)
            return self.reply(403, (
                '<ErrorResponse xmlns="%s"><Error><Type>Sender</Type>'
                "<Code>AccessDenied</Code><Message>%s</Message></Error>"
                "<RequestId>1</RequestId></ErrorResponse>") % (NS, why))

        def keys(self):
            """The keys to give out, or None after a 500."""
            if state.count("answers") > state.fail_after:
                state.count("failed")
                self.reply(500, "unavailable", "text/plain")
                return None
            now = datetime.datetime.now(datetime.timezone.utc)
            exp = now + datetime.timedelta(seconds=state.expires_in)
            return {"AccessKeyId": os.environ["AWS_ACCESS_KEY_ID"],
                    "SecretAccessKey": os.environ["AWS_SECRET_ACCESS_KEY"],
                    "Token": args.session_token,
                    "Expiration": exp.strftime("%Y-%m-%dT%H:%M:%SZ")}

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/reset":
                state.reset(urllib.parse.parse_qs(url.query))
                return self.reply(200, "reset", "text/plain")
            if url.path != "/":
                return self.reply(404, "not found", "text/plain")
            form = urllib.parse.parse_qs(body.decode(), keep_blank_values=1)
            one = {k: v[0] for k, v in form.items() if len(v) == 1}
            action = one.get("Action")
            if one.get("Version") != "2011-06-15":
                return self.refuse("Version")
            if one.get("RoleArn") != args.role:
                return self.refuse("RoleArn")
            if not one.get("RoleSessionName"):
                return self.refuse("RoleSessionName")
            if action == "AssumeRoleWithWebIdentity":
                state.count("web_identity")
                if "Authorization" in self.headers:
                    return self.refuse("a signed web identity request")
                if one.get("WebIdentityToken") != read_file(args.token_file):
                    return self.refuse("WebIdentityToken")
            elif action == "AssumeRole":
                state.count("assume_role")
                # The source's keys, or (a chain of roles) those given out.
                if sigv4_ok("POST", "/", url.query, self.headers, body,
                            os.environ["AWS_ACCESS_KEY_ID"],
                            os.environ["AWS_SECRET_ACCESS_KEY"]):
                    state.count("by_role")
                elif not sigv4_ok("POST", "/", url.query, self.headers,
                                  body, args.source_key, args.source_secret):
                    return self.refuse("signature")
            else:
                return self.refuse("Action")
            k = self.keys()
            if k is None:
                return None
            res = action + "Result"
            return self.reply(200, (
                '<%sResponse xmlns="%s"><%s><Credentials>'
                "<AccessKeyId>%s</AccessKeyId>"
                "<SecretAccessKey>%s</SecretAccessKey>"
                "<SessionToken>%s</SessionToken>"
                "<Expiration>%s</Expiration>"
                "</Credentials></%s></%sResponse>") % (
                    action, NS, res, k["AccessKeyId"], k["SecretAccessKey"],
                    k["Token"], k["Expiration"], res, action))

        def do_GET(self):
            if self.path == "/counts":
                with state.lock:
                    body = json.dumps(state.counts)
                return self.reply(200, body, "application/json")
            if self.path != "/creds":
                return self.reply(404, "not found", "text/plain")
            state.count("container")
            want = read_file(args.auth_token_file)
            if self.headers.get("Authorization") != want:
                state.count("refused")
                return self.reply(401, '{"code": "Unauthorized"}',
                                  "application/json")
            k = self.keys()
            if k is not None:
                self.reply(200, json.dumps(k), "application/json")

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--role", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--auth-token-file", required=True)
    ap.add_argument("--source-key", required=True)
    ap.add_argument("--source-secret", required=True)
    ap.add_argument("--session-token", default="fake-sts-session-token")
    ap.add_argument("--lifetime", type=float, default=300)
    args = ap.parse_args()
    serve(make_handler(State(args)), args.port_file, args.lifetime)


if __name__ == "__main__":
    main()
