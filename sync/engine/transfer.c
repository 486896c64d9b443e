/*
 * transfer.c: the engine every transfer runs in: the active list, the
 * failure path, and the run loop (one thread, one curl multi loop,
 * requests kept in flight under the window and --jobs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/workq.h"
#include "sync/run/run.h"
#include "sync/engine/transfer.h"

void
transfer_engine_init(struct transfer_engine *eng, struct output *out,
    struct sync_counts *counts, const struct sync_opts *o)
{
	memset(eng, 0, sizeof(*eng));
	eng->out = out;
	eng->counts = counts;
	eng->o = o;
	eng->commits.last_ns = now_mono_ns();
}

ferry_err
transfer_add(struct transfer_engine *eng, struct transfer *t,
    const struct transfer_ops *ops, const char *prefix, const char *key,
    size_t keylen)
{
	struct transfer **pp;

	t->ops = ops;
	t->eng = eng;
	t->key = strndup(key, keylen);
	t->keylen = keylen;
	t->fullkey = remote_key_join(prefix, key, keylen, NULL);
	if (t->key == NULL || t->fullkey == NULL) {
		transfer_clear(t);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	/* appended, so that older transfers get their parts sent first */
	pp = &eng->active;
	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	eng->nactive++;
	return FERRY_OK;
}

struct transfer *
transfer_new(struct transfer_engine *eng, size_t size,
    const struct transfer_ops *ops, const char *prefix, const char *key,
    size_t keylen, const struct remote_obj *listed)
{
	struct transfer *t;

	if ((t = calloc(1, size)) == NULL)
		return NULL;
	if (transfer_add(eng, t, ops, prefix, key, keylen) != FERRY_OK) {
		free(t);
		return NULL;
	}
	if (listed) {
		t->listed.size = listed->size;
		snprintf(t->listed.etag, sizeof(t->listed.etag), "%s",
		    listed->etag ? listed->etag : "");
		t->listed.last_modified = listed->last_modified;
	}
	return t;
}

void
transfer_clear(struct transfer *t)
{
	free(t->key);
	free(t->fullkey);
	t->key = t->fullkey = NULL;
}

unsigned
transfer_engine_room(const struct transfer_engine *eng)
{
	unsigned busy = remote_inflight(eng->r) + eng->reads;

	return busy < remote_window(eng->r) ? remote_window(eng->r) - busy : 0;
}

int
transfer_engine_memory(const struct transfer_engine *eng, uint64_t len)
{
	return sync_within(eng->mem_used, len, eng->o->memory);
}

int
transfer_engine_parts(
    const struct transfer_engine *eng, uint64_t more, uint64_t len)
{
	return sync_within(eng->parts_out + more, len, eng->o->memory) &&
	       sync_within(eng->parts_alive + more, len, 2 * eng->o->memory);
}

void
transfer_engine_advance(struct transfer_engine *eng)
{
	struct transfer *t;

	/* the reads done on workers first: their parts may go now */
	if (eng->wq)
		workq_collect(eng->wq);
	/* one that ended waits for the sweep: it is not started again */
	for (t = eng->active; t && transfer_engine_room(eng) > 0; t = t->next)
		if (!t->done)
			t->ops->advance(t);
	if (eng->turned)
		eng->turned(eng->planner);
}

void
transfer_engine_sweep(struct transfer_engine *eng)
{
	struct transfer **pp = &eng->active, *t;

	while ((t = *pp) != NULL) {
		if (!t->done) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		eng->nactive--;
		t->ops->free(t);
	}
}

void
transfer_engine_clear(struct transfer_engine *eng)
{
	struct transfer *t;

	while ((t = eng->active) != NULL) {
		eng->active = t->next;
		t->ops->free(t);
	}
	eng->nactive = eng->nparked = 0;
}

void
transfer_planned(struct transfer *t, uint64_t size)
{
	t->eng->planned++;
	t->eng->planned_bytes += size;
}

void
transfer_finish(struct transfer *t)
{
	t->done = 1;
	sync_note_completion(t->eng->m, &t->eng->commits);
}

void
transfer_fail(struct transfer *t, ferry_err e)
{
	struct transfer_engine *eng = t->eng;

	if (!t->failed) {
		t->failed = 1;
		t->err = e;
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", ferry_errmsg());
		if (t->ops->put_off == NULL || !t->ops->put_off(t, e)) {
			output_file_error(eng->out, t->fullkey,
			    strlen(t->fullkey), e, t->errmsg);
			eng->counts->failed++;
			eng->failed++;
		}
	}
	t->ops->settle(t);
}

int
transfer_part_ended(struct transfer *t, ferry_err e)
{
	t->parts_inflight--;
	if (e != FERRY_OK) {
		transfer_fail(t, e);
		return 0;
	}
	if (t->failed) {
		if (t->parts_inflight == 0)
			transfer_fail(t, t->err);
		return 0;
	}
	return ++t->parts_done == t->nparts;
}

struct workq *
transfer_engine_workers(struct transfer_engine *eng)
{
	if (eng->wq == NULL && !eng->stopping &&
	    workq_new(workq_threads(), remote_wakeup, eng->r, &eng->wq) !=
	        FERRY_OK)
		log_info("reading and hashing on the loop's thread: %s",
		    ferry_errmsg());
	return eng->stopping ? NULL : eng->wq;
}

void
transfer_engine_reads_stop(struct transfer_engine *eng)
{
	eng->stopping = 1;
	workq_free(eng->wq);
	eng->wq = NULL;
}

void
transfer_engine_drain(struct transfer_engine *eng)
{
	int64_t until = sync_loop_drain_until(eng->r);
	struct transfer *t;

	transfer_engine_reads_stop(eng);
	sync_loop_drain(eng->r, until);
	for (t = eng->active; t; t = t->next)
		if (t->ops->stop && !t->done)
			t->ops->stop(t);
	sync_loop_drain(eng->r, until);
	transfer_engine_sweep(eng);
}

static int
has_room(const struct transfer_engine *eng)
{
	unsigned w = remote_window(eng->r), ahead = w;

	/* transfers planned ahead: twice what may be in flight */
	if (ahead < eng->o->jobs)
		ahead = eng->o->jobs;
	return !*eng->planned_all && remote_inflight(eng->r) < w &&
	       eng->nactive - eng->nparked < 2 * ahead;
}

static void
progress(const struct transfer_engine *eng, int force)
{
	output_progress(eng->out, eng->counts, eng->planned, eng->planned_bytes,
	    *eng->planned_all, force);
}

/* Plans keys while there is room, starting their transfers. */
static ferry_err
fill(struct transfer_engine *eng)
{
	ferry_err e;

	transfer_engine_advance(eng);
	transfer_engine_sweep(eng);
	while (has_room(eng)) {
		if ((e = eng->plan_next(eng->planner)) != FERRY_OK)
			return e;
		transfer_engine_advance(eng);
	}
	transfer_engine_sweep(eng);
	return FERRY_OK;
}

ferry_err
transfer_engine_run(struct transfer_engine *eng)
{
	const int *all = eng->planned_all;
	ferry_err e;
	int due;

	while (!*all || eng->nactive > 0) {
		if (ferry_interrupted)
			return ferry_fail(FERRY_ECANCEL,
			    "interrupted by signal %d", (int)ferry_interrupted);
		if ((e = fill(eng)) != FERRY_OK)
			return e;
		if (*all && eng->nactive == 0)
			break;
		if (*all && eng->retry && eng->retry(eng->planner))
			continue;
		/* work put off until requests are sent: no waiting for it */
		due = eng->idle != NULL && eng->idle_due > 0;
		/* reads on workers wake the loop when they end */
		if (remote_inflight(eng->r) == 0 && eng->reading > 0)
			e = remote_idle(eng->r, 100);
		else
			e = remote_run(eng->r, due ? 0 : 100);
		if (e != FERRY_OK)
			return e;
		if (due)
			eng->idle(eng->planner);
		progress(eng, 0);
	}
	progress(eng, 1);
	return FERRY_OK;
}
