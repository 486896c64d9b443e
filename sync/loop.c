/*
 * loop.c: the run loop of every engine: one thread, one curl multi loop,
 * requests kept in flight under the window and --jobs.
 */
#include "sync/loop.h"
#include "sync/output.h"

#define COMMIT_EVERY 500
#define COMMIT_NS 1000000000LL

void
sync_note_completion(struct manifest *m, struct sync_commits *c)
{
	int64_t now = now_mono_ns();

	if (++c->since < COMMIT_EVERY && now - c->last_ns < COMMIT_NS)
		return;
	if (manifest_commit(m) != FERRY_OK)
		sync_manifest_warn();
	c->since = 0;
	c->last_ns = now;
}

static int
has_room(const struct sync_loop *l)
{
	return !*l->done && remote_inflight(l->r) < remote_window(l->r) &&
	       *l->nactive < l->max_active;
}

static void
progress(const struct sync_loop *l, int force)
{
	output_progress(
	    l->out, l->counts, *l->planned, *l->planned_bytes, *l->done, force);
}

/* Plans keys while there is room, starting their transfers. */
static ferry_err
fill(const struct sync_loop *l)
{
	ferry_err e;

	l->advance(l->engine);
	l->sweep(l->engine);
	while (has_room(l)) {
		if ((e = l->step(l->engine)) != FERRY_OK)
			return e;
		l->advance(l->engine);
	}
	l->sweep(l->engine);
	return FERRY_OK;
}

ferry_err
sync_loop_run(const struct sync_loop *l)
{
	ferry_err e;

	while (!*l->done || *l->nactive > 0) {
		if (ferry_interrupted)
			return ferry_fail(FERRY_ECANCEL,
			    "interrupted by signal %d", (int)ferry_interrupted);
		if ((e = fill(l)) != FERRY_OK)
			return e;
		if (*l->done && *l->nactive == 0)
			break;
		if (*l->done && l->retry && l->retry(l->engine))
			continue;
		if (remote_inflight(l->r) == 0 && l->pending &&
		    l->pending(l->engine))
			e = remote_idle(l->r, 100);
		else
			e = remote_run(l->r, 100);
		if (e != FERRY_OK)
			return e;
		progress(l, 0);
	}
	progress(l, 1);
	return FERRY_OK;
}

int64_t
sync_loop_drain_until(struct remote *r)
{
	unsigned n = remote_inflight(r);

	if (ferry_interrupted && n > 0)
		log_warn("interrupted: letting %u request%s in flight end (at "
		         "most %d s); interrupt again to stop at once",
		    n, n == 1 ? "" : "s", SYNC_DRAIN_SECONDS);
	return now_mono_ns() + SYNC_DRAIN_SECONDS * 1000000000LL;
}

void
sync_loop_drain(struct remote *r, int64_t until)
{
	while (remote_inflight(r) > 0 && now_mono_ns() < until)
		if (remote_run(r, 100) != FERRY_OK)
			break;
	/* what did not end in time (a server that does not answer) */
	remote_end_all(r);
}

int
sync_exit_for(ferry_err e)
{
	if (e == FERRY_EUSAGE || e == FERRY_EDB)
		return EXIT_USAGE;
	if (e == FERRY_EBUSY)
		return EXIT_BUSY;
	return EXIT_ABORTED;
}

int
sync_damage_status(
    struct output *out, const struct manifest *m, ferry_err e, int status)
{
	if (manifest_damaged(m) == FERRY_OK)
		return status;
	/* the run went on reading it as missing, or ended on another error */
	if (e != FERRY_EDB)
		output_error(out, NULL, 0, FERRY_EDB, ferry_errmsg());
	return EXIT_USAGE;
}
