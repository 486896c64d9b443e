/*
 * commit.c: what the runs share around the transfer engine: the manifest's
 * commits, the drain after a fatal error, the exit statuses.
 */
#include "sync/run/commit.h"
#include "sync/run/output.h"

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

void
sync_side_name(
    const struct remote_loc *loc, const struct remote *r, char *out, size_t n)
{
	snprintf(out, n, "s3://%s/%s @ %s", loc->bucket, loc->prefix,
	    remote_endpoint(r));
}

ferry_err
sync_manifest_open_local(const struct sync_opts *o,
    const struct remote_loc *loc, const struct remote *r, const char *root,
    int push, struct manifest **m)
{
	char side[4096];

	sync_side_name(loc, r, side, sizeof(side));
	return sync_manifest_open(o, push ? root : side, push ? side : root, m);
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
