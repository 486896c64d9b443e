/*
 * verdicts.c: a push's and a mirror's answers to the content check
 * (sync/engine/check.c): an object that holds the local bytes is
 * recorded and skipped, one that differs is uploaded, one that cannot be
 * told by content is judged by size and time.
 */
#include "sync/up/up.h"
#include "sync/up/backup.h"

/* The object holds the local bytes: noted, and skipped. */
void
check_same(
    struct transfer *t, const uint8_t hash[16], const struct remote_resp *s)
{
	struct xfer *x = xfer_of(t);
	struct push *p = x->p;

	(void)s;
	xfer_record(
	    x, t->listed.size, t->listed.etag, hash, t->local.mtime_ns, 0);
	p->run.counts.checked++;
	p->run.counts.skipped++;
	xfer_finish(x);
}

void
check_differs(struct transfer *t, const char *reason)
{
	struct xfer *x = xfer_of(t);
	struct push *p = x->p;

	p->run.counts.checked++;
	xfer_planned(x);
	x->multipart = t->local.size >= p->run.o->multipart_threshold;
	if (p->run.o->dry_run) {
		backup_planned(
		    p, t->key, t->keylen, t->listed.size, t->listed.etag);
		transfer_check_dry_run(
		    t, "upload", reason, 1, &p->run.counts.uploaded);
		xfer_finish(x);
		return;
	}
	x->state = XF_PUT_READY;
}

void
check_unhashed(struct transfer *t, ferry_err e, const struct remote_resp *s)
{
	struct xfer *x = xfer_of(t);

	(void)s;
	if (e == FERRY_ENOTFOUND)
		check_differs(t, "object vanished");
	else if (t->local.mtime_ns / 1000000000 <= t->listed.last_modified) {
		/* written by another tool: size and time are all there is */
		x->p->run.counts.skipped++;
		xfer_finish(x);
	} else
		check_differs(t, "newer than the object");
}

void
start_check(struct xfer *x)
{
	struct push *p = x->p;

	x->state = XF_HEAD_SENT;
	transfer_check_start(
	    &x->t, p->run.loc.bucket, p->run.rootfd, p->run.o->follow_symlinks);
}
