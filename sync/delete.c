/*
 * delete.c: the deletes of a push, run last, in DeleteObjects batches of
 * up to 1,000 keys, and only when nothing suggests the source is not what
 * it seems (a listing or a read that failed).  Each key carries its
 * listed ETag as a condition, so that a server that honours it never
 * deletes an object rewritten since the listing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/push.h"

#define DELETE_BATCH 1000

struct batch {
	struct push *p;
	char *keys[DELETE_BATCH];
	size_t lens[DELETE_BATCH];
	uint64_t sizes[DELETE_BATCH];
	char etags[DELETE_BATCH][MANIFEST_ETAG_MAX];
	size_t n;
	int single; /* the server has no DeleteObjects: one DELETE a key */
	struct single {
		struct batch *b;
		size_t i;
	} singles[DELETE_BATCH]; /* the DELETEs' arguments */
	size_t next, pending;    /* the next key to send; those in flight */
};

/*
 * A key the server did not delete: PreconditionFailed means the object
 * is no longer the one listed (its ETag, sent as the condition, changed),
 * and a changed object is never deleted; it is reported and counted as
 * failed, so the run ends with exit 1.
 */
static void
not_deleted(struct push *p, const char *key, size_t keylen, const char *code,
    const char *message)
{
	ferry_err e = FERRY_ES3;

	if (code && strcmp(code, "PreconditionFailed") == 0) {
		e = FERRY_ECHANGED;
		ferry_fail(e, "changed since it was listed (its ETag is no "
		              "longer the listed one): not deleted");
	} else {
		ferry_fail(e, "delete: %s: %s", code ? code : "error",
		    message ? message : "");
	}
	output_error(&p->run.out, key, keylen, e, ferry_errmsg());
	p->run.counts.failed++;
}

static void
on_deleted(const char *key, size_t keylen, int ok, const char *code,
    const char *message, void *arg)
{
	struct batch *b = arg;
	struct push *p = b->p;
	size_t plen = strlen(p->run.loc.prefix);

	/* with a condition, a key gone meanwhile is NoSuchKey: gone all
	 * the same */
	if (!ok && !(code && strcmp(code, "NoSuchKey") == 0)) {
		not_deleted(p, key, keylen, code, message);
		return;
	}
	p->run.counts.deleted++;
	output_action(&p->run.out, "delete", key, keylen, 0, NULL);
	if (keylen >= plen && manifest_remote_del(p->run.m, key + plen,
	                          keylen - plen) != FERRY_OK)
		sync_manifest_warn();
}

static void
on_single(struct remote_req *q, void *arg)
{
	struct single *s = arg;
	struct batch *b = s->b;
	ferry_err e = remote_req_result(q, 0);

	/* gone meanwhile is gone all the same */
	if (e == FERRY_OK || e == FERRY_ENOTFOUND)
		on_deleted(b->keys[s->i], b->lens[s->i], 1, NULL, NULL, b);
	else
		on_deleted(b->keys[s->i], b->lens[s->i], 0,
		    remote_req_resp(q)->status == 412 ? "PreconditionFailed"
		                                      : "error",
		    ferry_errmsg(), b);
	remote_req_free(q);
	b->pending--;
}

/* The next key of b by DeleteObject, under the same ETag condition. */
static ferry_err
start_single(struct batch *b)
{
	struct push *p = b->p;
	size_t i = b->next++;
	struct remote_req *q;
	ferry_err e;

	b->singles[i] = (struct single){b, i};
	if ((e = remote_delete_object(p->run.r, p->run.loc.bucket, b->keys[i],
	         b->lens[i], b->etags[i], &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_single, &b->singles[i])) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	b->pending++;
	return FERRY_OK;
}

/* The keys of b, --jobs DELETEs in flight. */
static ferry_err
send_singles(struct batch *b)
{
	struct push *p = b->p;
	ferry_err e = FERRY_OK;

	b->next = 0;
	while (e == FERRY_OK && (b->next < b->n || b->pending > 0)) {
		while (e == FERRY_OK && b->next < b->n &&
		       b->pending < p->run.o->jobs)
			e = start_single(b);
		if (e == FERRY_OK && ferry_interrupted)
			e = ferry_fail(FERRY_ECANCEL,
			    "interrupted by signal %d", (int)ferry_interrupted);
		else if (e == FERRY_OK && b->pending > 0)
			e = remote_run(p->run.r, 1000);
	}
	/* a signal, or no memory: what is in flight ends, told as failed */
	if (b->pending > 0)
		remote_end_all(p->run.r);
	return e;
}

/*
 * A server without DeleteObjects (GCS's XML API answers it 501
 * NotImplemented) has the keys deleted one at a time, for the rest of
 * the run.
 */
static ferry_err
send_batch(struct batch *b)
{
	struct push *p = b->p;
	const char *etags[DELETE_BATCH];
	struct remote_req *q;
	ferry_err e;
	size_t i;

	if (b->single)
		return send_singles(b);
	for (i = 0; i < b->n; i++)
		etags[i] = b->etags[i];
	if ((e = remote_delete_objects(p->run.r, p->run.loc.bucket,
	         (const char *const *)b->keys, b->lens, etags, b->n, &q)) !=
	    FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, NULL, NULL)) == FERRY_OK &&
	    (e = remote_wait(p->run.r, q)) == FERRY_OK) {
		b->single = remote_req_not_implemented(q);
		e = b->single ? FERRY_OK
		              : remote_delete_objects_reply(q, on_deleted, b);
	}
	remote_req_free(q);
	if (e == FERRY_OK && b->single) {
		log_info("the server has no DeleteObjects (NotImplemented): "
		         "deleting one key at a time");
		e = send_singles(b);
	}
	return e;
}

/*
 * Reads the next gathered key into b (malloc'd, prefixed): 1, 0 at the
 * end, or -1 out of memory (recorded).
 */
static int
read_key(struct push *p, struct batch *b)
{
	size_t plen = strlen(p->run.loc.prefix), len;
	char key[MANIFEST_KEY_MAX + 1];
	struct push_delete rec;
	char *k;

	if (!sync_run_delete_next(&p->run, key, &len, &rec, sizeof(rec)))
		return 0;
	if ((k = malloc(plen + len + 1)) == NULL) {
		ferry_fail(FERRY_ENOMEM, "out of memory while reading the keys "
		                         "to delete: the deletes stop here");
		return -1;
	}
	memcpy(k, p->run.loc.prefix, plen);
	memcpy(k + plen, key, len + 1);
	b->sizes[b->n] = rec.size;
	memcpy(b->etags[b->n], rec.etag, MANIFEST_ETAG_MAX);
	b->keys[b->n] = k;
	b->lens[b->n] = plen + len;
	b->n++;
	return 1;
}

static void
clear_batch(struct batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->keys[i]);
	b->n = 0;
}

/*
 * Runs the deletes gathered, a batch at a time.  A batch that fails is
 * reported and counted and the next one goes; FERRY_ENOMEM (the deletes
 * stop, the rest not made) is the caller's to report.
 */
static ferry_err
run_batches(struct push *p)
{
	struct batch *b;
	ferry_err e = FERRY_OK;
	int got = 1;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return ferry_fail(FERRY_ENOMEM,
		    "out of memory before the deletes: none was made");
	b->p = p;
	while (got >= 0) {
		while (b->n < DELETE_BATCH && (got = read_key(p, b)) > 0)
			;
		if (got < 0)
			e = FERRY_ENOMEM;
		if (b->n == 0 || got < 0)
			break;
		if (p->run.o->dry_run) {
			for (size_t i = 0; i < b->n; i++) {
				struct plan_entry dst = {.present = 1,
				    .size = b->sizes[i],
				    .etag = b->etags[i]};
				output_planned(&p->run.out, "delete",
				    b->keys[i], b->lens[i], 0, "not in source",
				    NULL, &dst);
			}
			p->run.counts.deleted += b->n;
		} else if ((e = send_batch(b)) != FERRY_OK) {
			output_error(&p->run.out, NULL, 0, e, ferry_errmsg());
			p->run.counts.failed += b->n;
		}
		clear_batch(b);
	}
	clear_batch(b);
	free(b);
	return e;
}

ferry_err
push_deletes(struct push *p)
{
	static const struct sync_run_guard g = {
	    "some source files could not be read", "some transfers failed",
	    "the source is empty (use --force to delete anyway)"};

	if (sync_run_deletes_allowed(&p->run, &g, p->run.counts.failed,
	        p->run.mg.nlocal, p->run.mg.nremote))
		return run_batches(p);
	return FERRY_OK;
}
