/*
 * bounds.c: the numbers a server sends in reply headers (Content-Length,
 * Content-Range, Last-Modified, x-amz-meta-ferry-mtime), read strictly
 * and bounded before any arithmetic is done with them.  A reply whose
 * header breaks a bound is the server's fault: the request stops at that
 * header, before its body, and fails with FERRY_EPARSE.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "remote/internal.h"

int
remote_parse_size(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	*out = 0;
	if (*s == '\0')
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int
remote_parse_mtime_ns(const char *s, int64_t *out)
{
	uint64_t v;
	int neg = *s == '-';

	*out = 0;
	if (remote_parse_size(s + neg, (uint64_t)INT64_MAX, &v) != 0)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* A decimal of digits up to the first of stop: 0 and *s past it, or -1. */
static int
take_number(const char **s, char stop, uint64_t *out)
{
	const char *end = strchr(*s, stop);
	char num[24];
	size_t n;

	if (end == NULL || (n = (size_t)(end - *s)) == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, *s, n);
	num[n] = '\0';
	*s = end + 1;
	return remote_parse_size(num, REMOTE_MAX_OBJECT, out);
}

int
remote_parse_content_range(const char *s, struct remote_range *r)
{
	memset(r, 0, sizeof(*r));
	if (strncmp(s, "bytes ", 6) != 0)
		return -1;
	s += 6;
	if (*s == '*') {
		/* the form of a 416: no range, only the length */
		if (s[1] != '/' ||
		    remote_parse_size(s + 2, REMOTE_MAX_OBJECT, &r->total) != 0)
			return -1;
		return 0;
	}
	if (take_number(&s, '-', &r->first) != 0 ||
	    take_number(&s, '/', &r->last) != 0 ||
	    remote_parse_size(s, REMOTE_MAX_OBJECT, &r->total) != 0 ||
	    r->first > r->last || r->last >= r->total) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	r->has_bytes = 1;
	return 0;
}

ferry_err
remote_resp_check_range(
    const struct remote_resp *s, uint64_t off, uint64_t len, uint64_t total)
{
	const struct remote_range *r = &s->range;

	/* a 200 is the whole object: acceptable only as the whole range
	 * (a chunked one is held to it byte by byte by its caller) */
	if (s->status == 200 && off == 0 && len == total &&
	    (!s->has_content_length || s->content_length == total))
		return FERRY_OK;
	if (s->status == 200)
		return ferry_fail(FERRY_EHTTP,
		    "the server ignored the Range header (HTTP 200 with "
		    "%" PRIu64 " bytes for bytes %" PRIu64 "-%" PRIu64
		    " of %" PRIu64 ")",
		    s->content_length, off, off + len - 1, total);
	if (s->status == 206 && r->has_bytes && r->first == off &&
	    r->last == off + len - 1 && r->total == total &&
	    (!s->has_content_length || s->content_length == len))
		return FERRY_OK;
	return ferry_fail(FERRY_EPARSE,
	    "the server answered bytes %" PRIu64 "-%" PRIu64 " of %" PRIu64
	    " (Content-Length %" PRIu64 ") to a request for bytes %" PRIu64
	    "-%" PRIu64 " of %" PRIu64 ": a fault of the server",
	    r->first, r->last, r->total, s->content_length, off, off + len - 1,
	    total);
}

/* Records why the header name: value is refused; returns 0 (curl stops). */
static size_t
refuse(
    struct remote_req *q, const char *name, const char *value, const char *why)
{
	snprintf(q->fault, sizeof(q->fault),
	    "the server sent %s: '%.40s', %s: a fault of the server", name,
	    value, why);
	return 0;
}

size_t
bounds_refuse_long(struct remote_req *q, const char *name, size_t max)
{
	snprintf(q->fault, sizeof(q->fault),
	    "the server sent a %s longer than the %zu bytes it can have: a "
	    "fault of the server",
	    name, max);
	return 0;
}

size_t
bounds_check_header(struct remote_req *q, const char *name, const char *value)
{
	struct remote_resp *s = &q->resp;
	int64_t t;

	if (strcmp(name, "content-length") == 0) {
		if (remote_parse_size(
		        value, REMOTE_MAX_OBJECT, &s->content_length) != 0)
			return refuse(q, "Content-Length", value,
			    "not a size of at most 5 TiB");
		s->has_content_length = 1;
	} else if (strcmp(name, "content-range") == 0) {
		if (remote_parse_content_range(value, &s->range) != 0)
			return refuse(q, "Content-Range", value,
			    "not a range within an object of at most 5 TiB");
	} else if (strcmp(name, "last-modified") == 0) {
		t = remote_parse_time(value);
		if (t < 0 || t > REMOTE_TIME_MAX)
			return refuse(q, "Last-Modified", value,
			    "not a date from 1970 to 2262");
	} else if (strcmp(name, "x-amz-meta-ferry-mtime") == 0) {
		if (remote_parse_mtime_ns(value, &t) != 0)
			return refuse(q, "x-amz-meta-ferry-mtime", value,
			    "not a time in nanoseconds that fits 64 bits");
	}
	return 1;
}
