/* replies.c: the small XML bodies of multipart, copy and delete replies. */
#include <stdlib.h>

#include "remote/internal.h"
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

ferry_err
remote_parse_complete(struct remote_req *q, char **etag)
{
	struct xml_error x = {0};
	const struct buf *b = &q->resp.body;
	ferry_err e;

	*etag = NULL;
	e = xml_complete_parse(b->data ? b->data : "", b->len, etag, &x);
	return body_failure(q, e, &x);
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
	return body_failure(q, e, &x);
}

ferry_err
remote_complete_body(struct buf *out, const char *const *etags, size_t n)
{
	return xml_complete_body(out, etags, n);
}

ferry_err
remote_delete_body(
    struct buf *out, const char *const *keys, const size_t *key_lens, size_t n)
{
	return xml_delete_body(out, keys, key_lens, n);
}

struct deleted_ctx {
	remote_deleted_fn fn;
	void *arg;
};

static int
on_deleted(const struct xml_deleted *d, void *arg)
{
	struct deleted_ctx *c = arg;

	c->fn(d->key, d->key_len, d->ok, d->code, d->message, c->arg);
	return 0;
}

ferry_err
remote_parse_deleted(struct remote_req *q, remote_deleted_fn fn, void *arg)
{
	struct deleted_ctx c = {fn, arg};
	const struct buf *b = &q->resp.body;

	return xml_delete_result_parse(
	    b->data ? b->data : "", b->len, on_deleted, &c);
}
