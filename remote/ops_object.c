/*
 * ops_object.c: the operations on one object (HeadObject, GetObject,
 * PutObject, CopyObject, DeleteObject, DeleteObjects), built as ops.h
 * describes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/ops.h"

ferry_err
ops_new(struct remote *r, enum remote_kind kind, const char *method,
    const char *bucket, const char *key, size_t keylen, struct remote_req **out)
{
	*out = remote_req_new(r, kind, method, bucket, key, keylen);
	return *out ? FERRY_OK : ferry_fail(FERRY_ENOMEM, "out of memory");
}

void
ops_body_own(struct remote_req *q, struct buf *b)
{
	free(q->body_owned);
	q->body_owned = b->data;
	remote_req_body(q, b->data ? b->data : "", b->len, NULL);
	buf_init(b, b->limit);
}

ferry_err
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

/* A request for method on bucket/key, only while it has the ETag etag. */
static ferry_err
on_etag(struct remote *r, enum remote_kind kind, const char *method,
    const char *bucket, const char *key, size_t keylen, const char *etag,
    struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, kind, method, bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = if_match(*out, etag);
	return ops_end(out, e);
}

ferry_err
remote_head_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const char *etag, struct remote_req **out)
{
	return on_etag(r, REMOTE_HEAD, "HEAD", bucket, key, keylen, etag, out);
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
	if (e == FERRY_OK && g && g->version_id && g->version_id[0])
		e = remote_req_query(*out, "versionId", g->version_id);
	return ops_end(out, e);
}

/* A PUT's ETag condition, bare: Ceph's gateway compares it so. */
static ferry_err
put_if_match(struct remote_req *q, const char *etag)
{
	char tag[128];
	size_t n = strlen(etag);

	if (n >= 2 && etag[0] == '"' && etag[n - 1] == '"')
		snprintf(tag, sizeof(tag), "%.*s", (int)(n - 2), etag + 1);
	else
		snprintf(tag, sizeof(tag), "%s", etag);
	return remote_req_header(q, "If-Match", tag);
}

ferry_err
ops_object_meta(struct remote_req *q, const struct remote_put *o)
{
	char hex[33], mt[32];
	ferry_err e = FERRY_OK;

	if (o->content_type)
		e = remote_req_header(q, "Content-Type", o->content_type);
	if (e == FERRY_OK && o->hash) {
		hex_encode(o->hash, 16, hex);
		snprintf(mt, sizeof(mt), "%lld", (long long)o->mtime_ns);
		if ((e = remote_req_header(q, REMOTE_META_HASH, hex)) ==
		    FERRY_OK)
			e = remote_req_header(q, REMOTE_META_MTIME, mt);
	}
	if (e == FERRY_OK && o->meta)
		e = remote_req_meta_headers(q, o->meta);
	return e;
}

ferry_err
remote_put_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_put *o, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, REMOTE_PUT, "PUT", bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = ops_object_meta(*out, o);
	if (e == FERRY_OK && o->if_absent)
		e = remote_req_header(*out, "If-None-Match", "*");
	else if (e == FERRY_OK && o->if_match && o->if_match[0])
		e = put_if_match(*out, o->if_match);
	return ops_end(out, e);
}

/* Ceph's gateway reads the condition as x-amz-copy-if-match: both go. */
ferry_err
ops_copy_source(struct remote_req *q, const struct remote_copy_src *src)
{
	char range[64];
	ferry_err e;

	if ((e = remote_req_copy_source(
	         q, src->bucket, src->key, src->keylen)) != FERRY_OK ||
	    (e = remote_req_header(
	         q, "x-amz-copy-source-if-match", src->if_match)) != FERRY_OK ||
	    (e = remote_req_header(q, "x-amz-copy-if-match", src->if_match)) !=
	        FERRY_OK)
		return e;
	if (src->len == 0)
		return FERRY_OK;
	snprintf(range, sizeof(range), "bytes=%" PRIu64 "-%" PRIu64, src->off,
	    src->off + src->len - 1);
	return remote_req_header(q, "x-amz-copy-source-range", range);
}

ferry_err
remote_copy_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_copy_src *src, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, REMOTE_PUT, "PUT", bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = ops_copy_source(*out, src);
	return ops_end(out, e);
}

ferry_err
ops_reply(struct remote_req *q,
    ferry_err (*parse)(struct remote_req *, char **), char **out)
{
	ferry_err e;

	*out = NULL;
	if ((e = remote_req_result(q, 1)) != FERRY_OK)
		return e;
	return parse(q, out);
}

ferry_err
remote_copy_reply(struct remote_req *q, char **etag)
{
	return ops_reply(q, remote_parse_copy, etag);
}

ferry_err
remote_delete_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const char *etag, struct remote_req **out)
{
	return on_etag(
	    r, REMOTE_DELETE, "DELETE", bucket, key, keylen, etag, out);
}

ferry_err
remote_delete_objects(struct remote *r, const char *bucket,
    const char *const *keys, const size_t *key_lens, const char *const *etags,
    size_t n, struct remote_req **out)
{
	struct buf body;
	ferry_err e;

	buf_init(&body, (size_t)1000 * 6200 + 128);
	e = ops_new(r, REMOTE_POST, "POST", bucket, NULL, 0, out);
	if (e == FERRY_OK &&
	    (e = remote_req_query(*out, "delete", "")) == FERRY_OK &&
	    (e = remote_delete_body(&body, keys, key_lens, etags, n)) ==
	        FERRY_OK &&
	    (e = remote_req_header(*out, "Content-Type", "application/xml")) ==
	        FERRY_OK) {
		ops_body_own(*out, &body);
		/* a reply names every key, each in up to a few KiB */
		remote_req_body_limit(*out, 16u << 20);
	}
	buf_free(&body);
	return ops_end(out, e);
}

ferry_err
remote_delete_objects_reply(
    struct remote_req *q, remote_deleted_fn fn, void *arg)
{
	ferry_err e;

	if ((e = remote_req_result(q, 1)) != FERRY_OK)
		return e;
	return remote_parse_deleted(q, fn, arg);
}
