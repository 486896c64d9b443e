/*
 * ops_object.c: the operations on one object (HeadObject, GetObject),
 * built as ops.h describes.
 */
#include <inttypes.h>
#include <stdio.h>

#include "remote/internal.h"
#include "remote/ops.h"

/* A new request for method on bucket/key, counted as kind, in *out. */
static ferry_err
ops_new(struct remote *r, enum remote_kind kind, const char *method,
    const char *bucket, const char *key, size_t keylen, struct remote_req **out)
{
	*out = remote_req_new(r, kind, method, bucket, key, keylen);
	return *out ? FERRY_OK : ferry_fail(FERRY_ENOMEM, "out of memory");
}

/* Ends a typed call: frees *out, and sets it NULL, when e is a failure. */
static ferry_err
ops_end(struct remote_req **out, ferry_err e)
{
	if (e != FERRY_OK) {
		remote_req_free(*out);
		*out = NULL;
	}
	return e;
}

/* Adds If-Match: etag unless etag is NULL or "". */
static ferry_err
if_match(struct remote_req *q, const char *etag)
{
	if (etag == NULL || etag[0] == '\0')
		return FERRY_OK;
	return remote_req_header(q, "If-Match", etag);
}

ferry_err
remote_head_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const char *etag, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, REMOTE_HEAD, "HEAD", bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = if_match(*out, etag);
	return ops_end(out, e);
}

ferry_err
remote_get_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_get *g, struct remote_req **out)
{
	char range[64];
	ferry_err e;

	e = ops_new(r, REMOTE_GET, "GET", bucket, key, keylen, out);
	if (e == FERRY_OK && g && g->len > 0) {
		snprintf(range, sizeof(range), "bytes=%" PRIu64 "-%" PRIu64,
		    g->off, g->off + g->len - 1);
		e = remote_req_header(*out, "Range", range);
	}
	if (e == FERRY_OK && g)
		e = if_match(*out, g->if_match);
	return ops_end(out, e);
}
