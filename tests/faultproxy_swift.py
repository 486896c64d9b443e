"""faultproxy_swift: with --swift KIND[,KIND], tests/faultproxy.py plays a
server that refuses the conditions ferry sends for safety, as OpenStack
Swift's s3api (2.30) refuses them, with its own status, code and message
(swift/common/middleware/s3api/s3request.py, s3response.py), without
forwarding the request:

  delete-etags     a DeleteObjects (POST ?delete) whose body has an <ETag>:
                   400 MalformedXML (Swift's schema allows Key and
                   VersionId only)
  put-cond         a PUT with If-Match, If-None-Match, If-Modified-Since or
                   If-Unmodified-Since: 501 NotImplemented, "Conditional
                   object PUTs are not supported."
  copy-if-match    a PUT with x-amz-copy-source-if-match (CopyObject,
                   UploadPartCopy) of a source key that --swift-match
                   matches: 412 PreconditionFailed, as Swift answers for a
                   multipart (SLO) source, whose own ETag it compares
  delete-if-match  a DELETE with If-Match of a key --swift-match matches:
                   412 PreconditionFailed, for the same reason

A HEAD is always forwarded (Swift compares its If-Match with the S3
ETag).  Each refusal is logged as one line "swift KIND METHOD TARGET".
"""
import re
import urllib.parse

KINDS = ("delete-etags", "put-cond", "copy-if-match", "delete-if-match")

MALFORMED = ("The XML you provided was not well-formed or did not validate "
             "against our published schema.")
UNCOND = "Conditional object PUTs are not supported."
PRECOND = "At least one of the preconditions you specified did not hold."


def parse(spec):
    kinds = [k.strip() for k in (spec or "").split(",") if k.strip()]
    for k in kinds:
        if k not in KINDS:
            raise SystemExit("faultproxy: unknown --swift kind %r" % k)
    return set(kinds)


def error(status, code, message, resource):
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code>'
            "<Message>%s</Message><Resource>%s</Resource>"
            "<RequestId>faultproxy-swift</RequestId></Error>" %
            (code, message, resource.replace("&", "&amp;")
             .replace("<", "&lt;"))).encode()
    head = ("HTTP/1.1 %s\r\nContent-Type: application/xml\r\n"
            "Content-Length: %d\r\nx-amz-request-id: faultproxy-swift\r\n"
            "Connection: keep-alive\r\n\r\n" % (status, len(body)))
    return head.encode() + body


class Swift:
    """Decides, per request, whether Swift would refuse it."""

    def __init__(self, spec, match, log):
        self.kinds = parse(spec)
        self.match = re.compile(match) if match else None
        self.log = log

    def matches(self, name):
        return self.match is None or self.match.search(
            urllib.parse.unquote(name)) is not None

    def needs_body(self, method, target):
        q = urllib.parse.urlsplit(target).query
        return "delete-etags" in self.kinds and method == "POST" and \
            "delete" in urllib.parse.parse_qs(q, keep_blank_values=True)

    def refusal(self, req, method, target, body):
        """The reply Swift gives to this request, or None to forward it."""
        path = urllib.parse.urlsplit(target).path
        kind, reply = None, None
        if self.needs_body(method, target) and b"<ETag>" in body:
            kind = "delete-etags"
            reply = error("400 Bad Request", "MalformedXML", MALFORMED, path)
        elif method == "PUT" and "put-cond" in self.kinds and any(
                req.header(h) for h in ("if-match", "if-none-match",
                                        "if-modified-since",
                                        "if-unmodified-since")):
            kind = "put-cond"
            reply = error("501 Not Implemented", "NotImplemented", UNCOND,
                          path)
        elif method == "PUT" and "copy-if-match" in self.kinds and \
                req.header("x-amz-copy-source-if-match") and \
                self.matches(req.header("x-amz-copy-source")):
            kind = "copy-if-match"
            reply = error("412 Precondition Failed", "PreconditionFailed",
                          PRECOND, path)
        elif method == "DELETE" and "delete-if-match" in self.kinds and \
                req.header("if-match") and self.matches(path):
            kind = "delete-if-match"
            reply = error("412 Precondition Failed", "PreconditionFailed",
                          PRECOND, path)
        if kind:
            self.log.write("swift %s %s %s\n" % (kind, method, target))
            self.log.flush()
        return reply
