/*
 * ops_delete.c: DeleteObjects, whole: its request (the XML body of keys
 * and their ETags, written by xml_body.c with CompleteMultipartUpload's,
 * whose escaping it shares), its DeleteResult parser, and its reply read
 * key by key into outcomes; and how a server without it answers.
 */
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/ops.h"
#include "remote/xml.h"
#include "remote/xml_sax.h"

/* The DeleteResult parser */

enum { D_KEY, D_CODE, D_MESSAGE };

struct delete_ctx {
	xml_deleted_fn fn;
	void *arg;
};

static ferry_err
deleted_record(struct xml_sax *s, int ok)
{
	struct delete_ctx *c = s->ctx;
	struct xml_deleted d;
	ferry_err e;

	if ((e = xml_sax_key(s, D_KEY, &d.key, &d.key_len)) != FERRY_OK)
		return e;
	d.ok = ok;
	d.code = ok ? NULL : xml_sax_str(s, D_CODE);
	d.message = ok ? NULL : xml_sax_str(s, D_MESSAGE);
	if (c->fn != NULL && c->fn(&d, c->arg) != 0)
		return ferry_fail(FERRY_ECANCEL, "delete result stopped");
	return FERRY_OK;
}

ferry_err
xml_delete_result_parse(
    const char *body, size_t len, xml_deleted_fn fn, void *arg)
{
	static const char *const roots[] = {"DeleteResult", NULL};
	static const struct xml_rule rules[] = {
	    {"Deleted/Key", D_KEY, XML_KEY_MAX, 0},
	    {"Error/Key", D_KEY, XML_KEY_MAX, 0},
	    {"Error/Code", D_CODE, XML_FIELD_MAX, 0},
	    {"Error/Message", D_MESSAGE, XML_FIELD_MAX, 1},
	};
	static const struct xml_record records[] = {
	    {"Deleted", 1,
	        XML_BIT(D_KEY) | XML_BIT(D_CODE) | XML_BIT(D_MESSAGE)},
	    {"Error", 0, XML_BIT(D_KEY) | XML_BIT(D_CODE) | XML_BIT(D_MESSAGE)},
	};
	static const struct xml_sax_spec spec = {roots, rules, XML_NELEM(rules),
	    records, XML_NELEM(records), deleted_record};
	struct delete_ctx c = {fn, arg};
	struct xml_sax s;
	ferry_err e;

	if ((e = xml_sax_init(&s, &spec, &c)) != FERRY_OK)
		goto out;
	e = xml_sax_reply(&s, body, len, NULL);
out:
	xml_sax_free(&s);
	return e;
}

/* The operation */

struct deleted_ctx {
	remote_deleted_fn fn;
	void *arg;
};

static int
on_deleted(const struct xml_deleted *d, void *arg)
{
	struct deleted_ctx *c = arg;

	c->fn(d->key, d->key_len,
	    d->ok ? REMOTE_SUCCEEDED : reply_code_outcome(d->code), d->code,
	    d->message, c->arg);
	return 0;
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
	    (e = xml_delete_body(&body, keys, key_lens, etags, n)) ==
	        FERRY_OK &&
	    (e = ops_body_xml(*out, &body)) == FERRY_OK)
		/* a reply names every key, each in up to a few KiB */
		remote_req_body_limit(*out, 16u << 20);
	buf_free(&body);
	return ops_end(out, e);
}

ferry_err
remote_delete_objects_reply(
    struct remote_req *q, remote_deleted_fn fn, void *arg)
{
	struct deleted_ctx c = {fn, arg};
	const struct buf *b = &q->resp.body;
	ferry_err e;

	if ((e = remote_req_result(q, 1)) != FERRY_OK)
		return e;
	return xml_delete_result_parse(
	    b->data ? b->data : "", b->len, on_deleted, &c);
}

int
remote_req_not_implemented(const struct remote_req *q)
{
	const struct remote_resp *s = &q->resp;
	struct xml_error x = {0};
	int no;

	if (s->status == 501)
		return 1;
	if (s->status / 100 == 2 || s->body.len == 0 ||
	    xml_error_parse(s->body.data, s->body.len, &x) != FERRY_OK)
		return 0;
	no = x.code && strcmp(x.code, "NotImplemented") == 0;
	xml_error_clear(&x);
	return no;
}
