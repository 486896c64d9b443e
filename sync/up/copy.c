/*
 * copy.c: the source side of a mirror.  On the same endpoint and account
 * the destination copies server-side (CopyObject, UploadPartCopy) and no
 * object byte passes through ferry; otherwise objects are streamed: ranged
 * GETs from the source feed PUT or UploadPart, in bounded memory, never
 * through the local disk.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/xfer.h"

/*
 * The source object of x (its bytes [off, off + len) for len > 0),
 * copied only while it has the ETag it was listed with, so that a source
 * replaced since is not copied.
 */
static void
copy_src(
    const struct xfer *x, uint64_t off, uint64_t len, struct remote_copy_src *s)
{
	/* a metadata copy's source is the object itself, as listed */
	if (x->metadata) {
		*s = (struct remote_copy_src){x->p->run.loc.bucket,
		    x->t.fullkey, strlen(x->t.fullkey), x->t.listed.etag, off,
		    len, NULL, NULL};
		return;
	}
	s->bucket = x->p->sloc.bucket;
	s->key = x->src_key;
	s->keylen = strlen(x->src_key);
	s->if_match = x->src_etag;
	s->off = off;
	s->len = len;
	s->version_id = x->src_version;
	s->store = &x->p->run.o->store;
}

/*
 * The HEAD of the source under the copy's condition, after a 412: the
 * object matched, the server refused the condition (x->restream);
 * then done(x, e), e the copy's failure.
 */
struct copy_check {
	struct xfer *x;
	ferry_err e;
	void (*done)(struct xfer *x, ferry_err e);
	char msg[512]; /* the copy's failure, told as it was */
};

static void
on_copy_check(struct remote_req *q, void *arg)
{
	struct copy_check *c = arg;
	struct xfer *x = c->x;
	ferry_err e = remote_req_result(q, 0);

	if (e == FERRY_OK &&
	    strcmp(remote_req_resp(q)->etag, x->src_etag) == 0) {
		remote_cond_contradicted(
		    x->p->run.r, REMOTE_COND_COPY_IF_MATCH);
		x->restream = 1;
	}
	remote_req_free(q);
	x->copy_checking = 0;
	c->done(x, ferry_fail(c->e, "%s", c->msg));
	free(c);
}

/*
 * Whether q, a copy of x's source, got a 412 that a HEAD of the source
 * is now checking (it then calls done(x, e)); 0: done(x, e) is the
 * caller's.
 */
static int
check_copy_refusal(struct xfer *x, const struct remote_req *q, ferry_err e,
    void (*done)(struct xfer *x, ferry_err e))
{
	struct copy_check *c;
	struct remote_req *h;

	/* a metadata copy's failed condition stands: no source elsewhere */
	if (e == FERRY_OK || x->metadata ||
	    !(remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED) ||
	    x->copy_checking || x->restream ||
	    (c = calloc(1, sizeof(*c))) == NULL)
		return 0;
	*c = (struct copy_check){x, e, done, ""};
	snprintf(c->msg, sizeof(c->msg), "%s", ferry_errmsg());
	if (remote_head_version(x->p->sr, x->p->sloc.bucket, x->src_key,
	        strlen(x->src_key), x->src_etag, x->src_version,
	        &h) != FERRY_OK) {
		free(c);
		return 0;
	}
	if (remote_req_submit(h, on_copy_check, c) != FERRY_OK) {
		remote_req_free(h);
		free(c);
		return 0;
	}
	x->copy_checking = 1;
	return 1;
}

ferry_err
xfer_copy_reply(struct xfer *x, struct remote_req *q, char **etag)
{
	ferry_err e;

	e = remote_copy_reply(q, etag);
	xfer_written_version(x, q);
	if (e == FERRY_OK && (*etag == NULL || (*etag)[0] == '\0'))
		e = ferry_fail(FERRY_EPARSE, "the copy reply has no ETag");
	return e;
}

static void
on_copy(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	char *etag = NULL;
	ferry_err e;

	e = xfer_copy_reply(x, q, &etag);
	if (check_copy_refusal(x, q, e, xfer_fail)) {
		free(etag);
		remote_req_free(q);
		return;
	}
	remote_req_free(q);
	if (e != FERRY_OK) {
		free(etag);
		xfer_fail(x, e);
		return;
	}
	xfer_record(x, x->t.local.size, etag, NULL, 0, 0);
	free(etag);
	xfer_uploaded(x, x->t.local.size);
	xfer_finish(x);
}

ferry_err
start_copy_object(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_copy_src src;
	struct remote_req *q;
	ferry_err e;

	copy_src(x, 0, 0, &src);
	if ((e = remote_copy_object(p->run.r, p->run.loc.bucket, x->t.fullkey,
	         strlen(x->t.fullkey), &src, &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_copy, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_PUT_SENT;
	return FERRY_OK;
}

/*
 * A GET of the source object (its bytes [off, off + len) for len > 0),
 * guarded by its listed ETag.
 */
static ferry_err
source_get(struct xfer *x, uint64_t off, uint64_t len, struct remote_req **q)
{
	struct remote_get g = {.if_match = x->src_etag,
	    .off = off,
	    .len = len,
	    .version_id = x->src_version};

	return remote_get_object(
	    x->p->sr, x->p->sloc.bucket, x->src_key, strlen(x->src_key), &g, q);
}

/* Keeps what the source's HEAD or GET said to carry to the copy. */
static ferry_err
take_source_meta(struct xfer *x, const struct remote_resp *s)
{
	if (s->meta_overflow)
		return ferry_fail(FERRY_EPARSE,
		    "the source's metadata passes %d bytes", REMOTE_META_MAX);
	free(x->meta);
	if ((x->meta = strdup(s->meta.data ? s->meta.data : "")) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

static void
on_stream_get(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	struct remote_resp *s = (struct remote_resp *)remote_req_resp(q);
	ferry_err e;

	e = remote_req_result(q, 0);
	if (e == FERRY_OK && s->body.len != x->t.local.size)
		e = ferry_fail(FERRY_ECHANGED,
		    "the source object changed while it was read");
	if (e == FERRY_OK)
		e = take_source_meta(x, s);
	if (e != FERRY_OK) {
		x->p->run.eng.mem_used -= x->t.local.size;
		remote_req_free(q);
		xfer_fail(x, e);
		return;
	}
	/* the body becomes the PUT's: take it over rather than copy it */
	x->buf = (uint8_t *)s->body.data;
	x->buflen = s->body.len;
	buf_init(&s->body, 0);
	remote_req_free(q);
	x->p->run.eng.mem_used -= x->t.local.size;
	xfer_digest_buf(x);
	if ((e = send_put(x)) != FERRY_OK)
		xfer_fail(x, e);
}

ferry_err
start_stream_get(struct xfer *x)
{
	struct remote_req *q;
	ferry_err e;

	if ((e = source_get(x, 0, 0, &q)) != FERRY_OK)
		return e;
	remote_req_keep_meta(q);
	remote_req_body_limit(q, x->t.local.size + 1);
	if ((e = remote_req_submit(q, on_stream_get, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->p->run.eng.mem_used += x->t.local.size;
	x->state = XF_GET_SENT;
	return FERRY_OK;
}

static void
on_src_head(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	ferry_err e;

	e = remote_req_result(q, 0);
	if (e == FERRY_OK)
		e = take_source_meta(x, remote_req_resp(q));
	remote_req_free(q);
	if (e != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	x->have_src_head = 1;
	x->state = XF_PUT_READY;
}

/* The metadata a multipart copy must set itself (CopyObject copies it). */
ferry_err
start_src_head(struct xfer *x)
{
	struct remote_req *q;
	ferry_err e;

	if ((e = remote_head_version(x->p->sr, x->p->sloc.bucket, x->src_key,
	         strlen(x->src_key), x->src_etag, x->src_version, &q)) !=
	    FERRY_OK)
		return e;
	remote_req_keep_meta(q);
	if ((e = remote_req_submit(q, on_src_head, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_SRC_HEAD_SENT;
	return FERRY_OK;
}

/* Fills the part's MD5 from the ETag a copied part came back with. */
static ferry_err
part_md5_from_etag(const char *etag, uint8_t md5[16])
{
	struct remote_etag t;

	if (remote_etag_parse(etag, &t) != REMOTE_ETAG_MD5)
		return ferry_fail(FERRY_EPARSE, "part ETag %s is no MD5", etag);
	memcpy(md5, t.md5, 16);
	return FERRY_OK;
}

struct copy_part {
	struct xfer *x;
	uint32_t number;
};

static void
on_part_copy(struct remote_req *q, void *arg)
{
	struct copy_part *cp = arg;
	struct xfer *x = cp->x;
	char *etag = NULL;
	ferry_err e;

	e = remote_copy_reply(q, &etag);
	if (e == FERRY_OK)
		e = part_md5_from_etag(
		    etag ? etag : "", x->part_md5[cp->number - 1]);
	free(etag);
	free(cp);
	/* while a HEAD checks one part's 412, its verdict stands for all:
	 * that part fails the copy or has it streamed */
	if (e != FERRY_OK && x->copy_checking &&
	    (remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED))
		e = FERRY_OK;
	if (!check_copy_refusal(x, q, e, part_finished))
		part_finished(x, e);
	remote_req_free(q);
}

ferry_err
start_part_copy(struct xfer *x)
{
	struct copy_part *cp;
	struct remote_req *q = NULL;
	struct remote_copy_src src;
	struct remote_upload u;
	ferry_err e;

	if ((cp = calloc(1, sizeof(*cp))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	cp->x = x;
	cp->number = x->t.next_part + 1;
	copy_src(x, (uint64_t)(cp->number - 1) * x->t.part_size,
	    part_len(x, cp->number), &src);
	if ((e = remote_upload_part_copy(x->p->run.r, xfer_upload(x, &u),
	         cp->number, &src, &q)) != FERRY_OK ||
	    (e = remote_req_submit(q, on_part_copy, cp)) != FERRY_OK)
		goto out;
	x->t.next_part++;
	x->t.parts_inflight++;
	return FERRY_OK;
out:
	remote_req_free(q);
	free(cp);
	return e;
}

static void
on_part_get(struct remote_req *q, void *arg)
{
	struct copy_part *cp = arg;
	struct xfer *x = cp->x;
	struct remote_resp *s = (struct remote_resp *)remote_req_resp(q);
	uint64_t len = part_len(x, cp->number);
	uint8_t *buf;
	ferry_err e;

	x->p->run.eng.mem_used -= len;
	e = remote_req_result(q, 0);
	if (e == FERRY_OK)
		e = remote_resp_check_range(s,
		    (uint64_t)(cp->number - 1) * x->t.part_size, len,
		    x->t.local.size);
	if (e == FERRY_OK && s->body.len != len)
		e = ferry_fail(FERRY_ECHANGED,
		    "the source object changed while it was read");
	buf = (uint8_t *)s->body.data;
	buf_init(&s->body, 0);
	remote_req_free(q);
	x->t.parts_inflight--;
	if (e == FERRY_OK && !x->t.failed) {
		e = send_part(x, cp->number, buf, (size_t)len);
		buf = NULL;
	}
	free(buf);
	free(cp);
	if (e != FERRY_OK)
		xfer_fail(x, e);
	else if (x->t.failed && x->t.parts_inflight == 0)
		xfer_fail(x, x->t.err);
}

ferry_err
start_part_stream(struct xfer *x)
{
	struct copy_part *cp;
	struct remote_req *q;
	uint64_t start, len;
	ferry_err e;

	if ((cp = calloc(1, sizeof(*cp))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	cp->x = x;
	cp->number = x->t.next_part + 1;
	start = (uint64_t)(cp->number - 1) * x->t.part_size;
	len = part_len(x, cp->number);
	if ((e = source_get(x, start, len, &q)) != FERRY_OK) {
		free(cp);
		return e;
	}
	remote_req_body_limit(q, (size_t)len + 1);
	if ((e = remote_req_submit(q, on_part_get, cp)) != FERRY_OK) {
		remote_req_free(q);
		free(cp);
		return e;
	}
	x->t.next_part++;
	x->t.parts_inflight++;
	x->p->run.eng.mem_used += len;
	return FERRY_OK;
}
