/*
 * pushrun.c: what a push and a mirror share: their run on the transfer
 * engine (transfer.h), the gathered deletes, the uploads a run that did
 * not end left open, and the end of a run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sync/up/resume.h"
#include "sync/up/xfer.h"

ferry_err
push_gather_delete(struct push *p, const struct remote_obj *o)
{
	struct push_delete rec;
	ferry_err e;

	if ((e = renames_gather(p, o)) != FERRY_OK)
		return e;
	/* the listed size and ETag go along, for a plan's guard */
	memset(&rec, 0, sizeof(rec));
	rec.size = o->size;
	snprintf(rec.etag, sizeof(rec.etag), "%s", o->etag ? o->etag : "");
	return sync_run_delete_add(
	    &p->run, o->key, o->keylen, &rec, sizeof(rec));
}

/* Whether every transfer left waits for its file to be read again. */
static int
all_put_off(const struct push *p)
{
	struct transfer *t;

	for (t = p->run.eng.active; t; t = t->next)
		if (xfer_of(t)->state != XF_RETRY_LATER)
			return 0;
	return p->run.eng.active != NULL;
}

/* When only transfers put off for a changing file are left: restarts them. */
static int
retry_put_off(void *arg)
{
	struct push *p = arg;

	if (remote_inflight(p->run.r) > 0 || !all_put_off(p))
		return 0;
	xfer_retry_changed(p);
	return 1;
}

static ferry_err
step(void *arg)
{
	struct push *p = arg;

	return p->merge_step(p);
}

static void
turned(void *p)
{
	xfer_turned(p);
}

ferry_err
push_run(struct push *p)
{
	p->run.eng.turned = turned;
	p->run.eng.retry = retry_put_off;
	return sync_run_loop(&p->run, p, step);
}

void
push_close(struct push *p)
{
	transfer_engine_reads_stop(&p->run.eng);
	transfer_engine_clear(&p->run.eng);
	xfer_pool_free(p);
	hardlink_free(p->hl);
	merge_list_close(&p->src);
	/* the source client runs on the destination's loop: free it first */
	remote_free(p->sr);
	remote_loc_clear(&p->sloc);
	free(p->root);
	renames_free(&p->renames);
	sync_run_close(&p->run);
}

/* The uploads found open under the prefix after a run that did not end. */
struct stale {
	char **keys;
	char **ids;
	size_t n, cap;
};

static void
on_stale(const char *key, size_t keylen, const char *upload_id, void *arg)
{
	struct stale *st = arg;

	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;
		char **k = realloc(st->keys, cap * sizeof(*k));
		char **i = k ? realloc(st->ids, cap * sizeof(*i)) : NULL;
		if (k)
			st->keys = k;
		if (i == NULL)
			return;
		st->ids = i;
		st->cap = cap;
	}
	st->keys[st->n] = strndup(key, keylen);
	st->ids[st->n] = strdup(upload_id);
	if (st->keys[st->n] && st->ids[st->n])
		st->n++;
}

/* Whether an open upload is this run's: another shard may be sending it. */
static int
own_upload(const struct push *p, const char *key)
{
	size_t plen = strlen(p->run.loc.prefix);

	return strncmp(key, p->run.loc.prefix, plen) == 0 &&
	       shard_match(&p->run.o->shard, key + plen, strlen(key + plen));
}

/*
 * A run that did not end (killed, interrupted, aborted) may have left
 * multipart uploads open under the destination prefix, which a sync owns:
 * they are listed and aborted before anything else, so that none stays
 * open and billed, except those of local files the manifest keeps, for
 * this run to resume (resume.c).
 */
static ferry_err
clean_after_crash(struct push *p)
{
	struct stale st = {0};
	char state[16];
	size_t i;
	ferry_err e;

	e = manifest_meta_get(p->run.m, "run", state, sizeof(state));
	if (e == FERRY_OK &&
	    (strcmp(state, "running") == 0 ||
	        strcmp(state, "interrupted") == 0) &&
	    !p->run.o->dry_run) {
		e = remote_list_uploads(p->run.r, p->run.loc.bucket,
		    p->run.loc.prefix, on_stale, &st);
		if (e == FERRY_OK)
			resume_forget_gone(p, st.ids, st.n);
		for (i = 0; i < st.n; i++) {
			if (e == FERRY_OK && own_upload(p, st.keys[i]) &&
			    !resume_owns(p, st.keys[i], st.ids[i]))
				(void)resume_abort_upload(
				    p, st.keys[i], st.ids[i]);
			free(st.keys[i]);
			free(st.ids[i]);
		}
		free(st.keys);
		free(st.ids);
	}
	if (e != FERRY_OK && e != FERRY_ENOTFOUND)
		return e;
	if ((e = manifest_meta_put(p->run.m, "run", "running")) != FERRY_OK)
		return e;
	return manifest_commit(p->run.m);
}

/*
 * When the run ended and how, for "ferry manifest info": its state is
 * "done", or "interrupted" after a signal stopped it cleanly; a run
 * aborted otherwise stays "running", as one that was killed.  A run that
 * did not end as done may have left uploads open: the next looks.
 */
static void
note_last_run(struct manifest *m, int status)
{
	char when[32], st[8];
	const char *state = NULL;
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(st, sizeof(st), "%d", status);
	if (status != EXIT_ABORTED)
		state = "done";
	else if (ferry_interrupted)
		state = "interrupted";
	if ((state && manifest_meta_put(m, "run", state) != FERRY_OK) ||
	    manifest_meta_put(m, "last_run", when) != FERRY_OK ||
	    manifest_meta_put(m, "last_status", st) != FERRY_OK)
		sync_manifest_warn();
}

/* The requests of both sides, for the summary. */
static void
sum_stats(const struct push *p, struct remote_stats *rs)
{
	const struct remote_stats *a;
	int i;

	memset(rs, 0, sizeof(*rs));
	if (p->run.r == NULL)
		return;
	*rs = *remote_stats(p->run.r);
	if (p->sr == NULL)
		return;
	a = remote_stats(p->sr);
	for (i = 0; i < REMOTE_NKINDS; i++)
		rs->requests[i] += a->requests[i];
	rs->retries += a->retries;
}

int
push_execute(const struct sync_opts *o, ferry_err (*open)(struct push *),
    ferry_err (*start)(struct push *))
{
	struct remote_stats rs;
	struct push p;
	ferry_err e;
	int status;

	memset(&p, 0, sizeof(p));
	streams_init(&p.streams);
	sync_run_init(&p.run, o);
	e = open(&p);
	p.run.eng.r = p.run.r;
	p.run.eng.m = p.run.m;
	if (e != FERRY_OK) {
		status = sync_exit_for(e);
		goto fatal;
	}
	status = EXIT_ABORTED;
	if ((e = clean_after_crash(&p)) != FERRY_OK ||
	    (e = start(&p)) != FERRY_OK || (e = push_run(&p)) != FERRY_OK ||
	    (e = hardlink_run(&p)) != FERRY_OK ||
	    (e = push_deletes(&p)) != FERRY_OK)
		goto fatal;
	resume_sweep(&p);
	status = sync_run_status(&p.run);
	goto out;
fatal:
	sync_run_fatal(&p.run, e);
out:
	sum_stats(&p, &rs);
	status = sync_run_finish(
	    &p.run, e, status, p.run.r ? &rs : NULL, 0, note_last_run);
	push_close(&p);
	return status;
}
