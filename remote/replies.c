/*
 * replies.c: the small XML bodies of multipart and copy replies, and the
 * listings read in one call (uploads, buckets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/markers.h"
#include "remote/xml.h"

/* Records an <Error> that came with a 200 as the failure. */
static ferry_err
body_failure(struct remote_req *q, ferry_err e, struct xml_error *x)
{
	if (e == FERRY_ES3)
		e = ferry_fail(FERRY_ES3, "%s %s/%s: %s: %s", q->method,
		    q->bucket, q->key, x->code ? x->code : "error",
		    x->message ? x->message : "");
	xml_error_clear(x);
	return e;
}

ferry_err
remote_parse_upload_id(struct remote_req *q, char **upload_id)
{
	struct xml_error x = {0};
	const struct buf *b = &q->resp.body;
	ferry_err e;

	*upload_id = NULL;
	e = xml_initiate_parse(b->data ? b->data : "", b->len, upload_id, &x);
	return body_failure(q, e, &x);
}

/*
 * ETags as listings carry them, in quotes: some replies (a repeated
 * CompleteMultipartUpload on Ceph) send them bare.
 */
static ferry_err
quote_etag(char **etag)
{
	size_t n;
	char *q;

	if (*etag == NULL || **etag == '\0' || **etag == '"')
		return FERRY_OK;
	n = strlen(*etag);
	if ((q = malloc(n + 3)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	q[0] = '"';
	memcpy(q + 1, *etag, n);
	q[n + 1] = '"';
	q[n + 2] = '\0';
	free(*etag);
	*etag = q;
	return FERRY_OK;
}

ferry_err
remote_parse_complete(struct remote_req *q, char **etag)
{
	struct xml_error x = {0};
	const struct buf *b = &q->resp.body;
	ferry_err e;

	*etag = NULL;
	e = xml_complete_parse(b->data ? b->data : "", b->len, etag, &x);
	if ((e = body_failure(q, e, &x)) != FERRY_OK)
		return e;
	return quote_etag(etag);
}

ferry_err
remote_parse_copy(struct remote_req *q, char **etag)
{
	struct xml_error x = {0};
	const struct buf *b = &q->resp.body;
	char *lm = NULL;
	ferry_err e;

	*etag = NULL;
	e = xml_copy_parse(b->data ? b->data : "", b->len, etag, &lm, &x);
	free(lm);
	if ((e = body_failure(q, e, &x)) != FERRY_OK)
		return e;
	return quote_etag(etag);
}

ferry_err
remote_complete_body(struct buf *out, const char *const *etags, size_t n)
{
	return xml_complete_body(out, etags, n);
}

struct uploads_ctx {
	remote_upload_fn fn;
	void *arg;
};

static int
on_upload(const struct xml_upload *u, void *arg)
{
	struct uploads_ctx *c = arg;

	c->fn(u->key, u->key_len, u->upload_id, c->arg);
	return 0;
}

/* The ListMultipartUploads page of body into c's callback. */
static ferry_err
uploads_parse(const char *body, size_t len, void *ctx, int *more,
    char **key_marker, char **id_marker)
{
	return xml_list_uploads_parse(
	    body, len, on_upload, ctx, more, key_marker, id_marker);
}

/* One page of ml; moves the next markers to the caller. */
static ferry_err
marker_page(struct remote *r, const char *bucket, const char *prefix,
    const struct remote_marker_list *ml, char **key_marker, char **id_marker,
    int *more)
{
	struct remote_req *q;
	ferry_err e;

	q = remote_req_new(r, REMOTE_LIST, "GET", bucket, NULL, 0);
	if (q == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	remote_req_body_limit(q, 16u << 20);
	if ((e = remote_req_query(q, ml->subresource, "")) != FERRY_OK ||
	    (e = remote_req_query(q, "prefix", prefix)) != FERRY_OK ||
	    (ml->url_encoded && (e = remote_req_query(
	                             q, "encoding-type", "url")) != FERRY_OK) ||
	    (*key_marker && (e = remote_req_query(
	                         q, "key-marker", *key_marker)) != FERRY_OK) ||
	    (*id_marker && (e = remote_req_query(
	                        q, ml->id_param, *id_marker)) != FERRY_OK) ||
	    (e = remote_perform(r, q, 1)) != FERRY_OK)
		goto out;
	free(*key_marker);
	free(*id_marker);
	*key_marker = *id_marker = NULL;
	e = ml->parse(q->resp.body.data ? q->resp.body.data : "",
	    q->resp.body.len, ml->ctx, more, key_marker, id_marker);
out:
	remote_req_free(q);
	return e;
}

/* Pages of one key in a row: a million uploads or versions of one key. */
#define SAME_KEY_PAGES 1000

/*
 * Whether the markers of the next page, key and id, move on from the
 * last, prev_key and prev_id: a server whose markers stand still or go
 * back would be listed forever.  *same counts pages on one key.
 */
static ferry_err
markers_moved(const char *op, const char *prev_key, const char *prev_id,
    const char *key, const char *id, unsigned *same)
{
	int c = prev_key ? strcmp(key, prev_key) : 1;

	if (c > 0) {
		*same = 0;
		return FERRY_OK;
	}
	if (c == 0 && ++*same < SAME_KEY_PAGES && id &&
	    (prev_id == NULL || strcmp(id, prev_id) != 0))
		return FERRY_OK;
	return ferry_fail(FERRY_EPARSE,
	    "%s: the next page's markers do not move on "
	    "(NextKeyMarker '%.64s'): a fault of the server",
	    op, key);
}

ferry_err
remote_list_markers(struct remote *r, const char *bucket, const char *prefix,
    const struct remote_marker_list *ml)
{
	char *key_marker = NULL, *id_marker = NULL, *pk = NULL, *pi = NULL;
	unsigned same = 0;
	int more = 1;
	ferry_err e = FERRY_OK;

	while (more && e == FERRY_OK) {
		free(pk);
		free(pi);
		pk = key_marker ? strdup(key_marker) : NULL;
		pi = id_marker ? strdup(id_marker) : NULL;
		if ((key_marker && pk == NULL) || (id_marker && pi == NULL)) {
			e = ferry_fail(FERRY_ENOMEM, "out of memory");
			break;
		}
		e = marker_page(
		    r, bucket, prefix, ml, &key_marker, &id_marker, &more);
		if (e == FERRY_OK && more)
			e = markers_moved(
			    ml->op, pk, pi, key_marker, id_marker, &same);
	}
	free(pk);
	free(pi);
	free(key_marker);
	free(id_marker);
	return e;
}

ferry_err
remote_list_uploads(struct remote *r, const char *bucket, const char *prefix,
    remote_upload_fn fn, void *arg)
{
	struct uploads_ctx c = {fn, arg};
	const struct remote_marker_list ml = {"ListMultipartUploads", "uploads",
	    "upload-id-marker", 0, uploads_parse, &c};

	return remote_list_markers(r, bucket, prefix, &ml);
}

struct remote_req *
remote_list_parts_req(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const char *upload_id, uint32_t marker)
{
	struct remote_req *q;
	char num[16];

	q = remote_req_new(r, REMOTE_LIST, "GET", bucket, key, keylen);
	if (q == NULL)
		return NULL;
	/* a page holds at most 1,000 parts of a few hundred bytes each */
	remote_req_body_limit(q, 4u << 20);
	snprintf(num, sizeof(num), "%u", marker);
	if (remote_req_query(q, "uploadId", upload_id) != FERRY_OK ||
	    remote_req_query(q, "max-parts", "1000") != FERRY_OK ||
	    (marker > 0 &&
	        remote_req_query(q, "part-number-marker", num) != FERRY_OK)) {
		remote_req_free(q);
		return NULL;
	}
	return q;
}

struct parts_ctx {
	remote_part_fn fn;
	void *arg;
};

static int
on_part(const struct xml_part *x, void *arg)
{
	struct parts_ctx *c = arg;
	struct remote_part p = {x->number, x->size, x->etag};

	c->fn(&p, c->arg);
	return 0;
}

ferry_err
remote_parse_parts(
    struct remote_req *q, remote_part_fn fn, void *arg, uint32_t *next_marker)
{
	struct parts_ctx c = {fn, arg};
	const struct buf *b = &q->resp.body;
	int truncated = 0;
	ferry_err e;

	*next_marker = 0;
	e = xml_list_parts_parse(b->data ? b->data : "", b->len, on_part, &c,
	    &truncated, next_marker);
	if (e == FERRY_OK && !truncated)
		*next_marker = 0;
	return e;
}

struct buckets_ctx {
	remote_bucket_fn fn;
	void *arg;
};

static int
on_bucket(const struct xml_bucket *x, void *arg)
{
	struct buckets_ctx *c = arg;
	struct remote_bucket b = {x->name, remote_parse_time(x->created)};

	c->fn(&b, c->arg);
	return 0;
}

/* One page of ListBuckets; *token becomes the next page's, or NULL. */
static ferry_err
buckets_page(struct remote *r, struct buckets_ctx *c, char **token)
{
	struct remote_req *q;
	ferry_err e;

	q = remote_req_new(r, REMOTE_LIST, "GET", "", NULL, 0);
	if (q == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	/* servers that do not page send every bucket, up to 10,000 of
	 * a few hundred bytes on AWS */
	remote_req_body_limit(q, 16u << 20);
	if ((e = remote_req_query(q, "max-buckets", "1000")) != FERRY_OK ||
	    (*token && (e = remote_req_query(
	                    q, "continuation-token", *token)) != FERRY_OK) ||
	    (e = remote_perform(r, q, 1)) != FERRY_OK)
		goto out;
	free(*token);
	*token = NULL;
	e = xml_list_buckets_parse(q->resp.body.data ? q->resp.body.data : "",
	    q->resp.body.len, on_bucket, c, token);
out:
	remote_req_free(q);
	return e;
}

ferry_err
remote_list_buckets(struct remote *r, remote_bucket_fn fn, void *arg)
{
	struct buckets_ctx c = {fn, arg};
	char *token = NULL, *last = NULL;
	ferry_err e;

	while ((e = buckets_page(r, &c, &token)) == FERRY_OK && token) {
		/* a server that gives the same token again would never end */
		if (last && strcmp(last, token) == 0) {
			e = ferry_fail(FERRY_EPARSE,
			    "ListBuckets gave the same "
			    "ContinuationToken twice");
			break;
		}
		free(last);
		if ((last = strdup(token)) == NULL) {
			e = ferry_fail(FERRY_ENOMEM, "out of memory");
			break;
		}
	}
	free(token);
	free(last);
	return e;
}
