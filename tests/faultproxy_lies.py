"""faultproxy_lies: the lying and the conditional-delete servers that
tests/faultproxy.py plays, kept apart from its forwarding.

--lie-reply KIND[,KIND] rewrites every 2xx reply to a GET or HEAD of an
object (a path with a key and no query) as a server that lies about its
numbers would send it, then closes the connection:

  longbody   the body gets 1000 more bytes, and Content-Length says so
  hugelength Content-Length: 2^60, then the real body and a close
  badrange   a 206 names a Content-Range of an object twice the size; a
             200 becomes a 206 with the first half of the body, naming
             that half as its range
  hugemtime  x-amz-meta-ferry-mtime: 99999999999999999999 and
             Last-Modified: Fri, 31 Dec 9999 23:59:59 GMT

Each lie is logged as "lie KIND METHOD TARGET".

--cond-delete plays a server that honours the ETag conditions of deletes,
as AWS documents them: a DELETE with If-Match gets 412 PreconditionFailed
(or 404 NoSuchKey) unless the object has that ETag now, found by a HEAD
to the upstream signed with $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY
(tests/integration/s3.py); a DeleteObjects whose <Object>s carry <ETag>s
is forwarded whole when all of them hold, else answered here: the objects
whose ETag holds are deleted with the proxy's own DELETEs, the others are
each an <Error> with PreconditionFailed.  Each refusal is logged as
"cond-refused METHOD KEY".
"""
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "integration"))
import s3  # noqa: E402

LIES = ("longbody", "hugelength", "badrange", "hugemtime")
NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"


def parse_lies(spec):
    kinds = [k.strip() for k in (spec or "").split(",") if k.strip()]
    for k in kinds:
        if k not in LIES:
            sys.exit("faultproxy: unknown --lie-reply %r" % k)
    return kinds


def object_target(method, target):
    """(bucket, key bytes) of a GET or HEAD of an object, else None."""
    if method not in ("GET", "HEAD") or "?" in target:
        return None
    path = urllib.parse.urlsplit(target).path.lstrip("/")
    bucket, _, key = path.partition("/")
    if not key:
        return None
    return bucket, urllib.parse.unquote_to_bytes(key)


def _set(head, name, value):
    """head (bytes, ending in a blank line) with header name set."""
    pat = re.compile(rb"(?im)^" + re.escape(name) + rb":[^\r\n]*\r\n")
    head = pat.sub(b"", head)
    return head[:-2] + name + b": " + value + b"\r\n\r\n"


def lie(kind, head, body, method, status):
    """The lying reply: (head, body)."""
    if kind == "longbody" and method == "GET":
        body += b"L" * 1000
        head = _set(head, b"Content-Length", b"%d" % len(body))
    elif kind == "hugelength":
        head = _set(head, b"Content-Length", b"%d" % (1 << 60))
    elif kind == "badrange" and status == 206:
        m = re.search(rb"(?im)^content-range:\s*bytes (\d+)-(\d+)/(\d+)",
                      head)
        if m:
            head = _set(head, b"Content-Range", b"bytes %s-%s/%d" % (
                m.group(1), m.group(2), 2 * int(m.group(3))))
    elif kind == "badrange" and method == "GET" and len(body) > 1:
        half = len(body) // 2
        head = head.replace(b" 200 OK", b" 206 Partial Content", 1)
        head = _set(head, b"Content-Range",
                    b"bytes 0-%d/%d" % (half - 1, len(body)))
        body = body[:half]
        head = _set(head, b"Content-Length", b"%d" % len(body))
    elif kind == "hugemtime":
        head = _set(head, b"x-amz-meta-ferry-mtime", b"99999999999999999999")
        head = _set(head, b"Last-Modified", b"Fri, 31 Dec 9999 23:59:59 GMT")
    head = _set(head, b"Connection", b"close")
    return head, body


def etag_now(bucket, key):
    """The object's ETag without quotes, or None when it is absent."""
    r, _ = s3.S3().request("HEAD", bucket, key)
    if r.status == 404:
        return None
    return (r.getheader("ETag") or "").strip('"')


def plain(etag):
    return etag.strip().strip('"')


def reply(status, body, ctype="application/xml"):
    head = ("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
            "x-amz-request-id: faultproxy-cond\r\nConnection: keep-alive"
            "\r\n\r\n" % (status, ctype, len(body)))
    return head.encode() + body


def error_xml(code, message, key):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code>'
            "<Message>%s</Message><Key>%s</Key>"
            "<RequestId>faultproxy-cond</RequestId></Error>" % (
                code, message, escape(key))).encode()


PRECONDITION = "At least one of the pre-conditions you specified did not hold"


def cond_delete(req, method, target, body, log):
    """The reply to a conditional delete, or None to forward it."""
    path = urllib.parse.urlsplit(target).path.lstrip("/")
    bucket, _, key = path.partition("/")
    if method == "DELETE" and key and "?" not in target:
        want = req.header("if-match")
        if not want:
            return None
        kb = urllib.parse.unquote_to_bytes(key)
        now = etag_now(bucket, kb)
        if now == plain(want) or (now is not None and want == "*"):
            return None
        log.write("cond-refused DELETE %s\n" % key)
        log.flush()
        if now is None:
            return reply("404 Not Found", error_xml(
                "NoSuchKey", "The specified key does not exist.", key))
        return reply("412 Precondition Failed", error_xml(
            "PreconditionFailed", PRECONDITION, key))
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query,
                                  keep_blank_values=True)
    if method == "POST" and not key and "delete" in query:
        return delete_objects(bucket, body, log)
    return None


def child(el, name):
    """el's child name, with or without S3's namespace, or None."""
    c = el.find(NS + name)
    return c if c is not None else el.find(name)


def delete_objects(bucket, body, log):
    """A DeleteObjects with ETags, answered here unless all of them hold."""
    objs = []
    for o in ET.fromstring(body).iter():
        if o.tag not in (NS + "Object", "Object"):
            continue
        k, e = child(o, "Key"), child(o, "ETag")
        objs.append((k.text or "", e.text if e is not None else None))
    client = s3.S3()
    verdicts = []
    for k, e in objs:
        kb = k.encode("utf-8", "surrogateescape")
        now = etag_now(bucket, kb) if e is not None else ""
        verdicts.append(e is None or now == plain(e))
    if all(verdicts):
        return None
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult '
           'xmlns="http://s3.amazonaws.com/doc/2006-03-01/">']
    for (k, e), ok in zip(objs, verdicts):
        if ok:
            client.request("DELETE", bucket, k.encode("utf-8",
                                                     "surrogateescape"))
            out.append("<Deleted><Key>%s</Key></Deleted>" % escape(k))
            continue
        log.write("cond-refused POST %s\n" % k)
        log.flush()
        out.append("<Error><Key>%s</Key><Code>PreconditionFailed</Code>"
                   "<Message>%s</Message></Error>" % (escape(k),
                                                      PRECONDITION))
    out.append("</DeleteResult>")
    return reply("200 OK", "".join(out).encode())
