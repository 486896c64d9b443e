/*
 * getrange.c: the ranged GETs of a pull, each written at its offset into
 * the temporary file, and the start and scheduling of the downloads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/get.h"
#include "sync/pull.h"

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
	if (e == FERRY_OK && n != d->size)
		e = ferry_fail(FERRY_ESYS,
		    "%s: %" PRIu64 " bytes in the file, %" PRIu64 " listed",
		    d->key, n, d->size);
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

	if (d->failed || d->sink_err != FERRY_OK)
		return 1;
	/* the headers are all in: they must name the range asked for */
	if (pt->got == 0 && (e = remote_resp_check_range(remote_req_resp(pt->q),
	                         pt->off, pt->len, d->size)) != FERRY_OK)
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

	if (s->status == 412)
		return ferry_fail(FERRY_ECHANGED,
		    "the object was replaced while it was downloaded (its "
		    "ETag is no longer %s)",
		    d->etag);
	if (d->sink_err != FERRY_OK)
		return ferry_fail(d->sink_err, "%s", d->sinkmsg);
	if (e != FERRY_OK)
		return e;
	if ((e = remote_resp_check_range(s, pt->off, pt->len, d->size)) !=
	    FERRY_OK)
		return e;
	if (pt->got != pt->len)
		return ferry_fail(FERRY_ENET,
		    "%s: %" PRIu64 " bytes of a %" PRIu64 "-byte range",
		    d->fullkey, pt->got, pt->len);
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
	d->p->ranges_out -= pt->len;
	free(pt);
	d->parts_inflight--;
	if (e != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	if (d->failed) {
		if (d->parts_inflight == 0)
			dl_fail(d, d->err);
		return;
	}
	if (++d->parts_done == d->nparts)
		complete_ranged(d);
}

/* Sends the ranged GET for pt, which stays owned by the caller on failure. */
static ferry_err
send_part(struct part *pt)
{
	struct dl *d = pt->d;
	/* every range must come from the object that was listed */
	struct remote_get g = {d->etag, pt->off, pt->len, NULL};
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
	pt->off = (uint64_t)d->next_part * d->part_size;
	pt->len =
	    d->size - pt->off < d->part_size ? d->size - pt->off : d->part_size;
	dl_pending_init(&pt->pend, pt->len, pt->off);
	if ((e = send_part(pt)) != FERRY_OK) {
		dl_pending_free(&pt->pend);
		free(pt);
		return e;
	}
	d->next_part++;
	d->parts_inflight++;
	d->p->ranges_out += pt->len;
	return FERRY_OK;
}

static ferry_err
start_ranged(struct dl *d)
{
	ferry_err e;

	if ((e = dl_open_temp(d)) != FERRY_OK)
		return e;
	d->part_size = sync_range_size(d->size, d->p->o->part_size);
	d->nparts = sync_part_count(d->size, d->part_size);
	d->state = DL_PARTS;
	return FERRY_OK;
}

static struct dl *
dl_new(struct pull *p, const char *key, size_t keylen)
{
	size_t plen = strlen(p->loc.prefix);
	struct dl *d;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->p = p;
	d->fd = -1;
	d->dirfd = -1;
	d->key = malloc(keylen + 1);
	d->fullkey = malloc(plen + keylen + 1);
	if (d->key == NULL || d->fullkey == NULL) {
		dl_free(d);
		return NULL;
	}
	memcpy(d->key, key, keylen);
	d->key[keylen] = '\0';
	d->keylen = keylen;
	memcpy(d->fullkey, p->loc.prefix, plen);
	memcpy(d->fullkey + plen, key, keylen);
	d->fullkey[plen + keylen] = '\0';
	return d;
}

ferry_err
dl_begin(struct pull *p, enum plan_action a, const char *key, size_t keylen,
    const struct remote_obj *obj, const struct manifest_local *local)
{
	struct dl *d, **pp;

	if ((d = dl_new(p, key, keylen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	d->size = obj->size;
	snprintf(d->etag, sizeof(d->etag), "%s", obj->etag ? obj->etag : "");
	d->last_modified = obj->last_modified;
	if (merge_list_version(&p->mg.remote) != NULL &&
	    (d->version_id = strdup(merge_list_version(&p->mg.remote))) ==
	        NULL) {
		dl_free(d);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	if (local) {
		d->local = *local;
		d->exists = 1;
	}
	d->ranged = a == PLAN_RANGED_GET && d->size > 0;
	d->state = DL_READY;
	/* appended, so that older downloads get their ranges sent first */
	pp = &p->active;
	while (*pp)
		pp = &(*pp)->next;
	*pp = d;
	p->nactive++;
	/* listings are held to this bound; a plan's sizes are too */
	if (d->size > SYNC_MAX_OBJECT) {
		dl_fail(
		    d, ferry_fail(FERRY_EPARSE,
		           "listed as %" PRIu64 " bytes, more than the 5 TiB "
		           "an object can have: not written",
		           d->size));
		return FERRY_OK;
	}
	if (a == PLAN_CHECK) {
		dl_check_start(d);
		return FERRY_OK;
	}
	p->planned++;
	p->planned_bytes += d->size;
	return FERRY_OK;
}

static int
has_room(const struct pull *p)
{
	return remote_inflight(p->r) < remote_window(p->r);
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
	return sync_within(p->ranges_out, d->part_size, p->o->memory);
}

static void
advance_one(struct pull *p, struct dl *d)
{
	ferry_err e = FERRY_OK;

	if (d->state == DL_READY && d->ranged)
		e = start_ranged(d);
	else if (d->state == DL_READY)
		e = dl_start_get(d);
	while (e == FERRY_OK && d->state == DL_PARTS && !d->failed &&
	       d->next_part < d->nparts && has_room(p) && range_room(p, d))
		e = start_part(d);
	if (e != FERRY_OK)
		dl_fail(d, e);
}

void
dl_advance(struct pull *p)
{
	struct dl *d;

	for (d = p->active; d && has_room(p); d = d->next)
		advance_one(p, d);
}

void
dl_sweep(struct pull *p)
{
	struct dl **pp = &p->active, *d;

	while ((d = *pp) != NULL) {
		if (d->state != DL_DONE) {
			pp = &d->next;
			continue;
		}
		*pp = d->next;
		p->nactive--;
		dl_free(d);
	}
}
