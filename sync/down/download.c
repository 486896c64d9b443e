/*
 * download.c: a pull's downloads on the engine (transfer.h): each begun
 * from its plan, its turn to send a GET or the next ranges, its failure
 * settled, its answers to the content check.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sync/down/get.h"

#define NS_PER_S 1000000000LL

/*
 * A pull's answers to the content check (sync/engine/check.c).  The local file
 * holds the object: noted, and skipped.  s: the HEAD's reply, for the stored
 * mtime and Last-Modified to record, or NULL.
 */
static void
dl_check_same(
    struct transfer *t, const uint8_t xxh[16], const struct remote_resp *s)
{
	struct dl *d = dl_of(t);
	struct pull *p = d->p;

	if (s)
		dl_take_meta(d, s);
	dl_record_remote(
	    d, t->listed.etag, t->listed.size, xxh, t->local.mtime_ns);
	memset(&d->meta, 0, sizeof(d->meta));
	p->run.counts.checked++;
	p->run.counts.skipped++;
	dl_finish(d);
}

static void
dl_check_differs(struct transfer *t, const char *reason)
{
	struct dl *d = dl_of(t);
	struct pull *p = d->p;

	p->run.counts.checked++;
	d->ranged = t->listed.size > 0 &&
	            t->listed.size >= p->run.o->multipart_threshold;
	if (p->run.o->dry_run) {
		pull_keep_planned(p, t->key, t->keylen, &t->local);
		transfer_check_dry_run(
		    t, "download", reason, 0, &p->run.counts.downloaded);
		dl_finish(d);
		return;
	}
	transfer_planned(t, t->listed.size);
	d->state = DL_READY;
}

/*
 * Without a stored hash, size and time are all there is to compare; an
 * object deleted since it was listed leaves nothing to fetch.
 */
static void
dl_check_unhashed(struct transfer *t, ferry_err e, const struct remote_resp *s)
{
	struct dl *d = dl_of(t);
	int64_t mtime;

	if (e == FERRY_ENOTFOUND) {
		d->p->run.counts.skipped++;
		dl_finish(d);
		return;
	}
	dl_take_meta(d, s);
	mtime = dl_object_mtime_ns(d);
	memset(&d->meta, 0, sizeof(d->meta));
	if (mtime / NS_PER_S <= t->local.mtime_ns / NS_PER_S) {
		d->p->run.counts.skipped++;
		dl_finish(d);
		return;
	}
	dl_check_differs(t, "newer than the local file");
}

static void advance_one(struct transfer *t);

/* After a failure: ends d once no ranged GET of it is in flight. */
static void
settle(struct transfer *t)
{
	if (t->parts_inflight == 0)
		dl_finish(dl_of(t));
}

static void
free_one(struct transfer *t)
{
	dl_free(dl_of(t));
}

static const struct transfer_ops dl_ops = {.advance = advance_one,
    .settle = settle,
    .same = dl_check_same,
    .differs = dl_check_differs,
    .unhashed = dl_check_unhashed,
    .free = free_one};

/* A new download of key, listed as obj, appended to the active list. */
static struct dl *
dl_new(struct pull *p, const char *key, size_t keylen,
    const struct remote_obj *obj)
{
	struct dl *d;

	d = dl_of(transfer_new(&p->run.eng, sizeof(*d), &dl_ops,
	    p->run.loc.prefix, key, keylen, obj));
	if (d == NULL)
		return NULL;
	d->p = p;
	d->fd = -1;
	d->dirfd = -1;
	return d;
}

ferry_err
dl_begin(struct pull *p, enum plan_action a, const char *key, size_t keylen,
    const struct remote_obj *obj, const struct manifest_local *local)
{
	struct dl *d;

	if ((d = dl_new(p, key, keylen, obj)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (obj->version_id != NULL &&
	    (d->version_id = strdup(obj->version_id)) == NULL) {
		dl_free(d);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	d->t.version_id = d->version_id;
	if (local) {
		d->t.local = *local;
		d->exists = 1;
	}
	d->ranged = a == PLAN_RANGED_GET && d->t.listed.size > 0;
	d->state = DL_READY;
	/* listings are held to this bound; a plan's sizes are too */
	if (d->t.listed.size > REMOTE_MAX_OBJECT) {
		dl_fail(
		    d, ferry_fail(FERRY_EPARSE,
		           "listed as %" PRIu64 " bytes, more than the 5 TiB "
		           "an object can have: not written",
		           d->t.listed.size));
		return FERRY_OK;
	}
	if (a == PLAN_CHECK) {
		d->state = DL_HEAD_SENT;
		d->t.no_head = d->version_id != NULL;
		transfer_check_start(
		    &d->t, p->run.loc.bucket, p->run.rootfd, 0);
		return FERRY_OK;
	}
	transfer_planned(&d->t, d->t.listed.size);
	return FERRY_OK;
}

ferry_err
dl_begin_held(struct pull *p, enum plan_action a, const struct dl_held *h,
    const struct manifest_local *local)
{
	struct remote_obj o;

	memset(&o, 0, sizeof(o));
	o.key = h->key;
	o.keylen = h->keylen;
	o.size = h->size;
	o.etag = h->etag;
	o.last_modified = h->last_modified;
	return dl_begin(p, a, h->key, h->keylen, &o, local);
}

ferry_err
dl_round_run(struct pull *p, int *all, ferry_err (*plan_next)(void *))
{
	*all = 0;
	p->run.eng.planned_all = all;
	p->run.eng.planner = p;
	p->run.eng.plan_next = plan_next;
	return transfer_engine_run(&p->run.eng);
}

static int
has_room(const struct pull *p)
{
	return transfer_engine_room(&p->run.eng) > 0;
}

/*
 * Room for one more range of d: the bytes of ranges in flight within
 * --memory, one range at least.  Each costs the server a request's
 * buffers and CPU: a Ceph gateway served 2 GiB in 64M ranges faster four
 * at a time than sixteen.
 */
static int
range_room(const struct pull *p, const struct dl *d)
{
	return transfer_engine_parts(&p->run.eng, 0, d->t.part_size);
}

static void
advance_one(struct transfer *t)
{
	struct dl *d = dl_of(t);
	struct pull *p = d->p;
	ferry_err e = FERRY_OK;

	if (d->state == DL_READY && d->ranged)
		e = dl_start_ranged(d);
	else if (d->state == DL_READY)
		e = dl_start_get(d);
	while (e == FERRY_OK && d->state == DL_PARTS && !d->t.failed &&
	       d->t.next_part < d->t.nparts && has_room(p) && range_room(p, d))
		e = dl_start_part(d);
	if (e != FERRY_OK)
		dl_fail(d, e);
}
