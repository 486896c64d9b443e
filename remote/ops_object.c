/*
 * ops_object.c: the operations on one object (HeadObject, GetObject,
 * PutObject, CopyObject, DeleteObject), built as ops.h describes;
 * DeleteObjects is ops_delete.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote/internal.h"
#include "remote/ops.h"
#include "remote/ssec.h"
#include "remote/xml.h"

ferry_err
ops_new(struct remote *r, enum remote_kind kind, const char *method,
    const char *bucket, const char *key, size_t keylen, struct remote_req **out)
{
	*out = remote_req_new(r, kind, method, bucket, key, keylen);
	return *out ? FERRY_OK : ferry_fail(FERRY_ENOMEM, "out of memory");
}

ferry_err
ops_body_xml(struct remote_req *q, struct buf *b)
{
	free(q->body_owned);
	q->body_owned = b->data;
	remote_req_body(q, b->data ? b->data : "", b->len, NULL);
	buf_init(b, b->limit);
	/* a server may keep a body's type: Swift stores the one of a
	 * CompleteMultipartUpload as the object's */
	return remote_req_header(q, "Content-Type", "application/xml");
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
	return remote_head_version(r, bucket, key, keylen, etag, NULL, out);
}

ferry_err
remote_head_version(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const char *etag, const char *version_id,
    struct remote_req **out)
{
	ferry_err e;

	e = on_etag(r, REMOTE_HEAD, "HEAD", bucket, key, keylen, etag, out);
	if (e == FERRY_OK && version_id && version_id[0])
		e = remote_req_query(*out, "versionId", version_id);
	if (e == FERRY_OK)
		e = ssec_headers(&r->ssec, *out, 0);
	return ops_end(out, e);
}

ferry_err
remote_get_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_get *g, struct remote_req **out)
{
	char range[64];
	ferry_err e;

	e = ops_new(r, REMOTE_GET, "GET", bucket, key, keylen, out);
	if (e == FERRY_OK && g && (g->len > 0 || g->sized)) {
		(*out)->expect = g->len > 0 ? g->len : g->size;
		(*out)->expect_known = 1;
	}
	if (e == FERRY_OK && g && g->len > 0) {
		snprintf(range, sizeof(range), "bytes=%" PRIu64 "-%" PRIu64,
		    g->off, g->off + g->len - 1);
		e = remote_req_header(*out, "Range", range);
	}
	if (e == FERRY_OK && g)
		e = if_match(*out, g->if_match);
	if (e == FERRY_OK && g && g->version_id && g->version_id[0])
		e = remote_req_query(*out, "versionId", g->version_id);
	if (e == FERRY_OK)
		e = ssec_headers(&r->ssec, *out, 0);
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

/*
 * The headers of where and how the object is stored; with meta, also its
 * metadata, type and tags (what a CopyObject replaces).
 */
static ferry_err
store_headers(struct remote_req *q, const struct remote_store *s, int meta)
{
	const char *const names[] = {"x-amz-storage-class",
	    "x-amz-server-side-encryption",
	    "x-amz-server-side-encryption-aws-kms-key-id", "x-amz-acl",
	    "Cache-Control", "Content-Type"};
	const char *values[] = {s->storage_class, s->sse, s->sse_kms_key_id,
	    s->acl, s->cache_control, s->content_type};
	size_t i, n = meta ? 6 : 4;
	ferry_err e = FERRY_OK;

	for (i = 0; i < n && e == FERRY_OK; i++)
		if (values[i] != NULL)
			e = remote_req_header(q, names[i], values[i]);
	if (e == FERRY_OK && meta && s->ntags > 0)
		e = remote_req_header(q, "x-amz-tagging", s->tagging.data);
	if (e == FERRY_OK && meta && s->meta.len > 0)
		e = remote_req_meta_headers(q, s->meta.data, 0);
	return e;
}

/* ferry's content hash and mtime as metadata. */
static ferry_err
own_meta(struct remote_req *q, const struct remote_put *o)
{
	char hex[33], mt[32];
	ferry_err e;

	hex_encode(o->hash, 16, hex);
	snprintf(mt, sizeof(mt), "%lld", (long long)o->mtime_ns);
	if ((e = remote_req_header(q, REMOTE_META_HASH, hex)) == FERRY_OK)
		e = remote_req_header(q, REMOTE_META_MTIME, mt);
	return e;
}

/* The fields of a file's POSIX metadata that are not "". */
static ferry_err
posix_meta(struct remote_req *q, const struct remote_posix *x)
{
	const char *const names[REMOTE_POSIX_FIELDS] = {REMOTE_META_POSIX_MTIME,
	    REMOTE_META_POSIX_ATIME, REMOTE_META_POSIX_MODE,
	    REMOTE_META_POSIX_UID, REMOTE_META_POSIX_GID,
	    REMOTE_META_POSIX_UNAME, REMOTE_META_POSIX_GNAME};
	const char *const values[REMOTE_POSIX_FIELDS] = {
	    x->mtime, x->atime, x->mode, x->uid, x->gid, x->uname, x->gname};
	ferry_err e = FERRY_OK;
	size_t i;

	for (i = 0; i < REMOTE_POSIX_FIELDS && e == FERRY_OK; i++)
		if (values[i][0] != '\0')
			e = remote_req_header(q, names[i], values[i]);
	return e;
}

/*
 * The bytes of the user metadata in the "name: value\n" lines of meta
 * (with own_only, of ferry's own alone), names without x-amz-meta-.
 */
static size_t
lines_size(const char *meta, int own_only)
{
	const char *line, *end, *colon, *v;
	size_t n = 0;

	for (line = meta; *line != '\0'; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon == NULL ||
		    strncasecmp(line, "x-amz-meta-", 11) != 0 ||
		    (own_only && strncmp(line, "x-amz-meta-ferry-", 17) != 0))
			continue;
		v = colon + 1 < end && colon[1] == ' ' ? colon + 2 : colon + 1;
		n += (size_t)(colon - line) - 11 + (size_t)(end - v);
	}
	return n;
}

size_t
remote_put_meta_size(const struct remote_put *o)
{
	const struct remote_posix *x = o->posix;
	const struct remote_store *s = o->store;
	int given = o->meta == NULL || (s && s->replace);
	char mt[32];
	size_t n = 0;

	if (o->hash) {
		n += strlen(REMOTE_META_HASH) - 11 + 32;
		n += strlen(REMOTE_META_MTIME) - 11 +
		     (size_t)snprintf(
		         mt, sizeof(mt), "%lld", (long long)o->mtime_ns);
	}
	if (x) {
		const char *const v[REMOTE_POSIX_FIELDS] = {x->mtime, x->atime,
		    x->mode, x->uid, x->gid, x->uname, x->gname};
		/* the lengths of rclone's names: mtime, atime, mode... */
		const size_t names[REMOTE_POSIX_FIELDS] = {5, 5, 4, 3, 3, 5, 5};
		size_t i;

		for (i = 0; i < REMOTE_POSIX_FIELDS; i++)
			if (v[i][0] != '\0')
				n += names[i] + strlen(v[i]);
	}
	if (o->meta)
		n += lines_size(o->meta, given);
	if (o->xmeta)
		n += lines_size(o->xmeta, 0);
	if (s && given && s->meta.len > 0)
		n += lines_size(s->meta.data, 0);
	return n;
}

ferry_err
ops_object_meta(struct remote_req *q, const struct remote_put *o)
{
	const struct remote_store *s = o->store;
	/* a file's guessed type, unless one is given; a source's metadata,
	 * but for ferry's own, unless the store replaces it */
	int given = o->meta == NULL || (s && s->replace);
	ferry_err e = FERRY_OK;

	if (o->content_type && !(s && s->content_type))
		e = remote_req_header(q, "Content-Type", o->content_type);
	if (e == FERRY_OK && o->hash)
		e = own_meta(q, o);
	if (e == FERRY_OK && o->posix)
		e = posix_meta(q, o->posix);
	if (e == FERRY_OK && o->hardlink)
		e = remote_req_header(q, REMOTE_META_HARDLINK, o->hardlink);
	if (e == FERRY_OK && o->meta)
		e = remote_req_meta_headers(q, o->meta, given);
	if (e == FERRY_OK && o->xmeta)
		e = remote_req_meta_headers(q, o->xmeta, 0);
	if (e == FERRY_OK && s)
		e = store_headers(q, s, given);
	if (e == FERRY_OK)
		e = ssec_headers(&q->r->ssec, q, 0);
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

	if ((e = remote_req_copy_source(q, src->bucket, src->key, src->keylen,
	         src->version_id)) != FERRY_OK ||
	    (e = remote_req_header(
	         q, "x-amz-copy-source-if-match", src->if_match)) != FERRY_OK ||
	    (e = remote_req_header(q, "x-amz-copy-if-match", src->if_match)) !=
	        FERRY_OK)
		return e;
	if ((e = ssec_headers(&q->r->ssec, q, 1)) != FERRY_OK)
		return e;
	if (src->len == 0)
		return FERRY_OK;
	snprintf(range, sizeof(range), "bytes=%" PRIu64 "-%" PRIu64, src->off,
	    src->off + src->len - 1);
	return remote_req_header(q, "x-amz-copy-source-range", range);
}

/*
 * What a CopyObject's new object carries: where and how it is stored,
 * and with replace, the store's metadata and tags instead of the source's.
 */
static ferry_err
copy_store(struct remote_req *q, const struct remote_store *s)
{
	ferry_err e;

	if (!s->replace)
		return store_headers(q, s, 0);
	if ((e = remote_req_header(q, "x-amz-metadata-directive", "REPLACE")) !=
	        FERRY_OK ||
	    (e = remote_req_header(q, "x-amz-tagging-directive", "REPLACE")) !=
	        FERRY_OK)
		return e;
	return store_headers(q, s, 1);
}

ferry_err
remote_copy_object(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_copy_src *src, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, REMOTE_PUT, "PUT", bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = ops_copy_source(*out, src);
	if (e == FERRY_OK)
		e = ssec_headers(&r->ssec, *out, 0);
	if (e == FERRY_OK && src->store)
		e = copy_store(*out, src->store);
	return ops_end(out, e);
}

ferry_err
remote_copy_replace(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_copy_src *src,
    const struct remote_put *o, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, REMOTE_PUT, "PUT", bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = ops_copy_source(*out, src);
	/* a copy onto itself is refused unless it replaces the metadata;
	 * the store's tags, when it has any, replace the object's */
	if (e == FERRY_OK)
		e = remote_req_header(
		    *out, "x-amz-metadata-directive", "REPLACE");
	if (e == FERRY_OK && o->store && o->store->ntags > 0)
		e = remote_req_header(
		    *out, "x-amz-tagging-directive", "REPLACE");
	if (e == FERRY_OK)
		e = ops_object_meta(*out, o);
	return ops_end(out, e);
}

ferry_err
remote_copy_metadata(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const char *if_match, const struct remote_put *o,
    struct remote_req **out)
{
	struct remote_copy_src src = {
	    bucket, key, keylen, if_match, 0, 0, NULL, NULL};

	return remote_copy_replace(r, bucket, key, keylen, &src, o, out);
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
