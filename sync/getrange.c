/*
 * getrange.c: the ranged GETs of a pull, each written at its offset into
 * the temporary file, and the start of the downloads and their operations
 * for the engine (transfer.h): their turn, their failure, their answers
 * to the content check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/get.h"
#include "sync/pull.h"

#define NS_PER_S 1000000000LL

/* One ranged GET: bytes [off, off + len) of the object. */
struct part {
	struct dl *d;
	struct remote_req *q;
	uint64_t off, len, got;
	struct dl_pending pend;
};

/* Reads the assembled file back to hash it, then verifies and installs. */
static void
complete_ranged(struct dl *d)
{
	int want_md5 = !dl_is_xxh128_hex(d->meta.hash) && dl_etag_checks_md5(d);
	uint8_t xxh[16], md5[16];
	uint64_t n = 0;
	ferry_err e;

	if (lseek(d->fd, 0, SEEK_SET) != 0)
		e = ferry_fail(FERRY_ESYS, "seek: %s", strerror(errno));
	else
		e = manifest_hash_fd(d->fd, xxh, want_md5 ? md5 : NULL, &n);
	if (e == FERRY_OK && n != d->t.listed.size)
		e = ferry_fail(FERRY_ESYS,
		    "%s: %" PRIu64 " bytes in the file, %" PRIu64 " listed",
		    d->t.key, n, d->t.listed.size);
	d->written = n;
	if (e == FERRY_OK)
		e = dl_verify(d, xxh, want_md5 ? md5 : NULL);
	if (e == FERRY_OK)
		e = dl_install(d, xxh);
	if (e != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	dl_downloaded(d);
}

/* A range cut off is asked again whole: its bytes are written over. */
static void
restart_part(void *arg)
{
	struct part *pt = arg;

	pt->got = 0;
	pt->pend.len = 0;
	pt->pend.at = pt->off;
}

/* A range's bytes, written where they belong in the file. */
static int
sink_part(const char *data, size_t len, void *arg)
{
	struct part *pt = arg;
	struct dl *d = pt->d;
	ferry_err e;

	if (d->t.failed || d->sink_err != FERRY_OK)
		return 1;
	/* the headers are all in: they must name the range asked for */
	if (pt->got == 0 &&
	    (e = remote_resp_check_range(remote_req_resp(pt->q), pt->off,
	         pt->len, d->t.listed.size)) != FERRY_OK)
		return dl_sink_fail(d, e);
	if (len > pt->len - pt->got)
		return dl_sink_fail(
		    d, ferry_fail(FERRY_EHTTP,
		           "the server sent more than the range "
		           "asked for"));
	if ((e = dl_pending_add(d, &pt->pend, data, len)) != FERRY_OK)
		return dl_sink_fail(d, e);
	pt->got += len;
	return 0;
}

static ferry_err
part_result(struct part *pt, struct remote_req *q)
{
	const struct remote_resp *s = remote_req_resp(q);
	struct dl *d = pt->d;
	ferry_err e = remote_req_result(q, 0);

	if (s->outcome == REMOTE_PRECONDITION_FAILED)
		return ferry_fail(FERRY_ECHANGED,
		    "the object was replaced while it was downloaded (its "
		    "ETag is no longer %s)",
		    d->t.listed.etag);
	if (d->sink_err != FERRY_OK)
		return ferry_fail(d->sink_err, "%s", d->sinkmsg);
	if (e != FERRY_OK)
		return e;
	if ((e = remote_resp_check_range(
	         s, pt->off, pt->len, d->t.listed.size)) != FERRY_OK)
		return e;
	if (pt->got != pt->len)
		return ferry_fail(FERRY_ENET,
		    "%s: %" PRIu64 " bytes of a %" PRIu64 "-byte range",
		    d->t.fullkey, pt->got, pt->len);
	if ((e = dl_pending_flush(d, &pt->pend)) != FERRY_OK)
		return e;
	dl_take_meta(d, s);
	return FERRY_OK;
}

static void
on_part(struct remote_req *q, void *arg)
{
	struct part *pt = arg;
	struct dl *d = pt->d;
	ferry_err e;

	e = part_result(pt, q);
	remote_req_free(q);
	dl_pending_free(&pt->pend);
	d->p->run.eng.parts_out -= pt->len;
	d->p->run.eng.parts_alive -= pt->len;
	free(pt);
	if (transfer_part_ended(&d->t, e))
		complete_ranged(d);
}

/* Sends the ranged GET for pt, which stays owned by the caller on failure. */
static ferry_err
send_part(struct part *pt)
{
	struct dl *d = pt->d;
	/* every range must come from the object that was listed */
	struct remote_get g = {d->t.listed.etag, pt->off, pt->len, NULL};
	struct remote_req *q;
	ferry_err e;

	if ((e = dl_new_get(d, &g, &q)) != FERRY_OK)
		return e;
	remote_req_sink(q, sink_part, pt);
	remote_req_sink_restart(q, restart_part);
	pt->q = q;
	if ((e = remote_req_submit(q, on_part, pt)) != FERRY_OK) {
		pt->q = NULL;
		remote_req_free(q);
	}
	return e;
}

static ferry_err
start_part(struct dl *d)
{
	struct part *pt;
	ferry_err e;

	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	pt->d = d;
	pt->off = (uint64_t)d->t.next_part * d->t.part_size;
	pt->len = d->t.listed.size - pt->off < d->t.part_size
	              ? d->t.listed.size - pt->off
	              : d->t.part_size;
	dl_pending_init(&pt->pend, pt->len, pt->off);
	if ((e = send_part(pt)) != FERRY_OK) {
		dl_pending_free(&pt->pend);
		free(pt);
		return e;
	}
	d->t.next_part++;
	d->t.parts_inflight++;
	d->p->run.eng.parts_out += pt->len;
	d->p->run.eng.parts_alive += pt->len;
	return FERRY_OK;
}

static ferry_err
start_ranged(struct dl *d)
{
	ferry_err e;

	if ((e = dl_open_temp(d)) != FERRY_OK)
		return e;
	d->t.part_size =
	    sync_range_size(d->t.listed.size, d->p->run.o->part_size);
	d->t.nparts = sync_part_count(d->t.listed.size, d->t.part_size);
	d->state = DL_PARTS;
	return FERRY_OK;
}

/*
 * A pull's answers to the content check (check.c).  The local file holds
 * the object: noted, and skipped.  s: the HEAD's reply, for the stored
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
		e = start_ranged(d);
	else if (d->state == DL_READY)
		e = dl_start_get(d);
	while (e == FERRY_OK && d->state == DL_PARTS && !d->t.failed &&
	       d->t.next_part < d->t.nparts && has_room(p) && range_room(p, d))
		e = start_part(d);
	if (e != FERRY_OK)
		dl_fail(d, e);
}
