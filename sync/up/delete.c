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

#include "sync/up/up.h"
#include "sync/up/backup.h"

#define DELETE_BATCH 1000

struct batch {
	struct push *p;
	char *keys[DELETE_BATCH];
	size_t lens[DELETE_BATCH];
	uint64_t sizes[DELETE_BATCH];
	char etags[DELETE_BATCH][MANIFEST_ETAG_MAX];
	size_t n;
	int single; /* the server has no DeleteObjects: one DELETE a key */
	int heads;  /* this round only HEADs the keys, for a batch after */
	unsigned char match[DELETE_BATCH]; /* the HEAD found the listed ETag */
	struct single {
		struct batch *b;
		size_t i;
		int step;        /* what the request in flight is */
		int refused412;  /* a 412 to its DELETE, to check by HEAD */
	} singles[DELETE_BATCH]; /* the requests' arguments */
	size_t next, pending;    /* the next key to send; those in flight */
};

/* What a key's request in flight is. */
enum { STEP_DELETE, STEP_HEAD, STEP_DELETE_HEADED };

/*
 * A key the server did not delete: a failed precondition means the
 * object is no longer the one listed (its ETag, sent as the condition,
 * changed), and a changed object is never deleted; it is reported and
 * counted as failed, so the run ends with exit 1.
 */
static void
not_deleted(struct push *p, const char *key, size_t keylen,
    enum remote_outcome outcome, const char *code, const char *message)
{
	ferry_err e = FERRY_ES3;

	if (outcome == REMOTE_PRECONDITION_FAILED) {
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
on_deleted(const char *key, size_t keylen, enum remote_outcome outcome,
    const char *code, const char *message, void *arg)
{
	struct batch *b = arg;
	struct push *p = b->p;
	size_t plen = strlen(p->run.loc.prefix);

	/* with a condition, a key gone meanwhile is not found: gone all
	 * the same */
	if (outcome != REMOTE_SUCCEEDED && outcome != REMOTE_NOT_FOUND) {
		not_deleted(p, key, keylen, outcome, code, message);
		return;
	}
	p->run.counts.deleted++;
	output_action(&p->run.out, "delete", key, keylen, 0, NULL);
	if (keylen >= plen && manifest_remote_del(p->run.m, key + plen,
	                          keylen - plen) != FERRY_OK)
		sync_manifest_warn();
}

static void on_single(struct remote_req *q, void *arg);

/*
 * Sends s's next request, step: a DELETE under the key's ETag condition
 * (STEP_DELETE), a HEAD under it (STEP_HEAD), or a DELETE without it,
 * just after such a HEAD matched (STEP_DELETE_HEADED).
 */
static ferry_err
send_step(struct single *s, int step)
{
	struct batch *b = s->b;
	struct push *p = b->p;
	const char *etag = step == STEP_DELETE_HEADED ? NULL : b->etags[s->i];
	struct remote_req *q;
	ferry_err e;

	s->step = step;
	if (step == STEP_HEAD)
		e = remote_head_object(p->run.r, p->run.loc.bucket,
		    b->keys[s->i], b->lens[s->i], etag, &q);
	else
		e = remote_delete_object(p->run.r, p->run.loc.bucket,
		    b->keys[s->i], b->lens[s->i], etag, &q);
	if (e != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_single, s)) != FERRY_OK)
		remote_req_free(q);
	return e;
}

/* The end of s: deleted (or gone), changed, or failed with e's detail. */
static void
single_end(struct single *s, int gone, int changed)
{
	struct batch *b = s->b;

	if (gone)
		on_deleted(b->keys[s->i], b->lens[s->i], REMOTE_SUCCEEDED, NULL,
		    NULL, b);
	else
		on_deleted(b->keys[s->i], b->lens[s->i],
		    changed ? REMOTE_PRECONDITION_FAILED : REMOTE_FAILED,
		    "error", ferry_errmsg(), b);
	b->pending--;
}

/*
 * The reply to s's HEAD: the object as listed has it deleted without the
 * condition the server refused (or only marked, for the batch to come);
 * a 412 or another ETag, changed; none, gone.
 */
static void
on_head(struct remote_req *q, struct single *s, ferry_err e)
{
	struct batch *b = s->b;
	int match = e == FERRY_OK &&
	            strcmp(remote_req_resp(q)->etag, b->etags[s->i]) == 0;

	if (match && s->refused412)
		remote_cond_contradicted(
		    b->p->run.r, REMOTE_COND_DELETE_IF_MATCH);
	if (match && b->heads) {
		b->match[s->i] = 1;
		b->pending--;
	} else if (match) {
		if ((e = send_step(s, STEP_DELETE_HEADED)) != FERRY_OK)
			single_end(s, 0, 0);
	} else if (e == FERRY_ENOTFOUND) {
		single_end(s, 1, 0);
	} else {
		single_end(s, 0,
		    e == FERRY_OK || (remote_req_resp(q)->outcome ==
		                         REMOTE_PRECONDITION_FAILED));
	}
}

/*
 * A DELETE refused for its condition (not implemented), or a 412 that a
 * HEAD with the same condition may contradict: the HEAD goes next.
 */
static void
on_single(struct remote_req *q, void *arg)
{
	struct single *s = arg;
	ferry_err e = remote_req_result(q, 0);

	if (s->step == STEP_HEAD) {
		on_head(q, s, e);
	} else if (e == FERRY_OK || e == FERRY_ENOTFOUND) {
		single_end(s, 1, 0);
	} else if (s->step == STEP_DELETE &&
	           (remote_cond_refused(q, REMOTE_COND_DELETE_IF_MATCH) ||
	               (remote_req_resp(q)->outcome ==
	                   REMOTE_PRECONDITION_FAILED))) {
		s->refused412 =
		    (remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED);
		if (send_step(s, STEP_HEAD) != FERRY_OK)
			single_end(s, 0, 0);
	} else {
		single_end(s, 0, 0);
	}
	remote_req_free(q);
}

/*
 * The next key of b: a HEAD for a batch to come, else a DELETE under its
 * ETag condition, or a HEAD first where the server refuses it.
 */
static ferry_err
start_single(struct batch *b)
{
	struct push *p = b->p;
	size_t i = b->next++;
	ferry_err e;

	b->singles[i] = (struct single){b, i, STEP_DELETE, 0};
	b->match[i] = 0;
	e = send_step(&b->singles[i],
	    b->heads ||
	            !remote_cond_usable(p->run.r, REMOTE_COND_DELETE_IF_MATCH)
	        ? STEP_HEAD
	        : STEP_DELETE);
	if (e == FERRY_OK)
		b->pending++;
	return e;
}

/* The keys of b, as many requests in flight as the client allows now. */
static ferry_err
send_singles(struct batch *b)
{
	struct push *p = b->p;
	ferry_err e = FERRY_OK;

	b->next = 0;
	while (e == FERRY_OK && (b->next < b->n || b->pending > 0)) {
		while (e == FERRY_OK && b->next < b->n &&
		       b->pending < remote_window(p->run.r))
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
 * One DeleteObjects of the n keys at keys, each under its ETag in etags
 * (NULL: none); *single set when the server has no DeleteObjects,
 * *refused when it refuses the ETags.
 */
static ferry_err
delete_objects(struct batch *b, char **keys, const size_t *lens,
    const char *const *etags, size_t n, int *single, int *refused)
{
	struct push *p = b->p;
	struct remote_req *q;
	ferry_err e;

	*single = *refused = 0;
	if ((e = remote_delete_objects(p->run.r, p->run.loc.bucket,
	         (const char *const *)keys, lens, etags, n, &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, NULL, NULL)) == FERRY_OK &&
	    (e = remote_wait(p->run.r, q)) == FERRY_OK) {
		*single = remote_req_not_implemented(q);
		*refused = !*single && etags &&
		           remote_cond_refused(q, REMOTE_COND_DELETE_ETAGS);
		if (!*single && !*refused)
			e = remote_delete_objects_reply(q, on_deleted, b);
	}
	remote_req_free(q);
	return e;
}

/*
 * Where the server refuses the ETags of DeleteObjects: a HEAD of each key
 * (its ETag the listed one, or it is not deleted), then one DeleteObjects
 * of the keys that matched, without ETags.
 */
static ferry_err
send_headed(struct batch *b, int *single)
{
	char *keys[DELETE_BATCH];
	size_t lens[DELETE_BATCH], i, n = 0;
	int refused;
	ferry_err e;

	b->heads = 1;
	e = send_singles(b);
	b->heads = 0;
	for (i = 0; i < b->n; i++)
		if (b->match[i]) {
			keys[n] = b->keys[i];
			lens[n++] = b->lens[i];
		}
	if (e != FERRY_OK || n == 0)
		return e;
	return delete_objects(b, keys, lens, NULL, n, single, &refused);
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
	int refused = 0;
	ferry_err e = FERRY_OK;
	size_t i;

	if (b->single)
		return send_singles(b);
	for (i = 0; i < b->n; i++)
		etags[i] = b->etags[i];
	if (remote_cond_usable(p->run.r, REMOTE_COND_DELETE_ETAGS))
		e = delete_objects(
		    b, b->keys, b->lens, etags, b->n, &b->single, &refused);
	if (e == FERRY_OK && !b->single &&
	    !remote_cond_usable(p->run.r, REMOTE_COND_DELETE_ETAGS))
		e = send_headed(b, &b->single);
	if (e == FERRY_OK && b->single) {
		log_info("the server has no DeleteObjects (NotImplemented): "
		         "deleting one key at a time");
		e = send_singles(b);
	}
	return e;
}

/*
 * A batch that failed as a whole: told once, naming its first keys, and
 * with --verbose each of them.
 */
static void
batch_failed(struct batch *b, ferry_err e)
{
	struct push *p = b->p;
	char msg[1024];
	size_t i;

	snprintf(msg, sizeof(msg), "%s (%zu key%s not deleted: %.*s%s%s%s)",
	    ferry_errmsg(), b->n, b->n == 1 ? "" : "s", (int)b->lens[0],
	    b->keys[0], b->n > 1 ? ", " : "", b->n > 1 ? b->keys[1] : "",
	    b->n > 2 ? ", ..." : "");
	output_error(&p->run.out, NULL, 0, e, msg);
	for (i = 0; i < b->n; i++)
		log_info("not deleted: %.*s", (int)b->lens[i], b->keys[i]);
	p->run.counts.failed += b->n;
}

/*
 * Reads the next gathered key into b (malloc'd, prefixed): 1, 0 at the
 * end, or -1 when out of memory or the kept keys cannot be read back
 * (recorded, its code in *e).
 */
static int
read_key(struct push *p, struct batch *b, ferry_err *e)
{
	size_t len;
	char key[MANIFEST_KEY_MAX + 1];
	struct push_delete rec;
	char *k;
	int got;

	if ((got = sync_run_delete_next(
	         &p->run, key, &len, &rec, sizeof(rec))) <= 0) {
		*e = got < 0 ? FERRY_ESYS : FERRY_OK;
		return got;
	}
	if ((k = remote_key_join(p->run.loc.prefix, key, len, &len)) == NULL) {
		*e =
		    ferry_fail(FERRY_ENOMEM, "out of memory while reading the "
		                             "keys to delete: the deletes stop "
		                             "here");
		return -1;
	}
	b->sizes[b->n] = rec.size;
	memcpy(b->etags[b->n], rec.etag, MANIFEST_ETAG_MAX);
	b->keys[b->n] = k;
	b->lens[b->n] = len;
	b->n++;
	return 1;
}

/*
 * With --backup-dir, each key of b copied to the backup first: those
 * whose copy failed (told and counted) leave the batch, not deleted.
 */
static ferry_err
keep_batch(struct batch *b)
{
	struct push *p = b->p;
	size_t i, n = 0;
	ferry_err e;

	if (!backup_on(p))
		return FERRY_OK;
	e = backup_keys(p, b->keys, b->lens,
	    (const char(*)[MANIFEST_ETAG_MAX])b->etags, b->sizes, b->n,
	    b->match);
	for (i = 0; i < b->n; i++) {
		if (!b->match[i] || e != FERRY_OK) {
			free(b->keys[i]);
			continue;
		}
		b->keys[n] = b->keys[i];
		b->lens[n] = b->lens[i];
		b->sizes[n] = b->sizes[i];
		memmove(b->etags[n], b->etags[i], MANIFEST_ETAG_MAX);
		n++;
	}
	b->n = n;
	return e;
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
 * reported and counted and the next one goes; FERRY_ENOMEM or FERRY_ESYS
 * (the kept keys cannot be read back: the deletes stop, the rest not
 * made) is the caller's to report.
 */
static ferry_err
run_batches(struct push *p)
{
	struct batch *b;
	ferry_err e = FERRY_OK, stop = FERRY_OK;
	size_t plen = strlen(p->run.loc.prefix);
	int got = 1;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return ferry_fail(FERRY_ENOMEM,
		    "out of memory before the deletes: none was made");
	b->p = p;
	while (got >= 0) {
		while (b->n < DELETE_BATCH && (got = read_key(p, b, &stop)) > 0)
			;
		if (b->n == 0 || got < 0)
			break;
		if (p->run.o->dry_run) {
			for (size_t i = 0; i < b->n; i++) {
				struct plan_entry dst = {.present = 1,
				    .size = b->sizes[i],
				    .etag = b->etags[i]};
				backup_planned(p, b->keys[i] + plen,
				    b->lens[i] - plen, b->sizes[i],
				    b->etags[i]);
				output_planned(&p->run.out, "delete",
				    b->keys[i], b->lens[i], 0, "not in source",
				    NULL, &dst);
			}
			p->run.counts.deleted += b->n;
		} else if ((stop = keep_batch(b)) != FERRY_OK) {
			/* a signal: nothing more is deleted */
			break;
		} else if (b->n > 0 && (e = send_batch(b)) != FERRY_OK) {
			/* counted as failed keys: the run goes on */
			batch_failed(b, e);
			e = FERRY_OK;
		}
		clear_batch(b);
	}
	clear_batch(b);
	free(b);
	return stop != FERRY_OK ? stop : e;
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
