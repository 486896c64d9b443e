/*
 * getcheck.c: the checks of a pull: whether a local file already holds
 * the listed object, by its MD5 against a single-part ETag, else by the
 * content hash ferry stored with the object, from a HEAD, else by size and
 * time.  An MD5 that is not the ETag takes the HEAD too: an object encrypted
 * with a KMS or a customer's key has an ETag that is no MD5.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/pull.h"

#define NS_PER_S 1000000000LL

/* The check found the local file holds the object: note it and skip. */
static void
checked_same(struct dl *d, const uint8_t xxh[16])
{
	struct pull *p = d->p;

	dl_record_remote(d, d->etag, d->size, xxh, d->local.mtime_ns);
	p->counts.checked++;
	p->counts.skipped++;
	dl_finish(d);
}

static void
checked_differs(struct dl *d, const char *reason)
{
	struct pull *p = d->p;

	p->counts.checked++;
	d->ranged = d->size > 0 && d->size >= p->o->multipart_threshold;
	if (p->o->dry_run) {
		struct plan_entry src = {
		    .present = 1, .size = d->size, .etag = d->etag};
		struct plan_entry dst = {.present = 1,
		    .size = d->local.size,
		    .mtime_ns = d->local.mtime_ns,
		    .hash = d->local.hash};
		output_planned(&p->out, "download", d->fullkey,
		    strlen(d->fullkey), d->size, reason, &src, &dst);
		p->counts.downloaded++;
		p->counts.bytes += d->size;
		dl_finish(d);
		return;
	}
	p->planned++;
	p->planned_bytes += d->size;
	d->state = DL_READY;
}

/* Without a stored hash, size and time are all there is to compare. */
static void
checked_by_time(struct dl *d)
{
	if (dl_object_mtime_ns(d) / NS_PER_S <= d->local.mtime_ns / NS_PER_S) {
		d->p->counts.skipped++;
		dl_finish(d);
		return;
	}
	checked_differs(d, "newer than the local file");
}

static void
on_head(struct remote_req *q, void *arg)
{
	struct dl *d = arg;
	char hex[33];
	ferry_err e;

	e = remote_req_result(q, 0);
	if (e == FERRY_OK)
		dl_take_meta(d, remote_req_resp(q));
	remote_req_free(q);
	hex_encode(d->local.hash, 16, hex);
	if (e == FERRY_OK && d->md5_differs && !d->meta.etag_opaque)
		checked_differs(d, "content differs");
	else if (e == FERRY_OK && d->meta.hash[0] &&
	         strcasecmp(d->meta.hash, hex) == 0)
		checked_same(d, d->local.hash);
	else if (e == FERRY_OK && d->meta.hash[0])
		checked_differs(d, "content hash differs");
	else if (e == FERRY_OK)
		checked_by_time(d);
	else if (e == FERRY_ENOTFOUND) {
		/* deleted since it was listed: nothing to fetch */
		d->p->counts.skipped++;
		dl_finish(d);
	} else
		dl_fail(d, e);
	memset(&d->meta, 0, sizeof(d->meta));
}

/*
 * Reads the local file for its MD5 and XXH3-128, only while it is the
 * file the scan saw.
 */
static ferry_err
hash_local(struct dl *d, uint8_t xxh[16], uint8_t md5[16])
{
	struct stat st;
	uint64_t n;
	ferry_err e;
	int fd;

	e = manifest_local_open(d->p->rootfd, d->key, &d->local, 0, &fd, &st);
	if (e != FERRY_OK)
		return e;
	e = manifest_hash_fd(fd, xxh, md5, &n);
	close(fd);
	return e;
}

void
dl_check_start(struct dl *d)
{
	struct remote_req *q;
	uint8_t xxh[16], md5[16];
	char want[MANIFEST_ETAG_MAX];
	ferry_err e;

	if (etag_is_md5(d->etag)) {
		if ((e = hash_local(d, xxh, md5)) != FERRY_OK) {
			dl_fail(d, e);
			return;
		}
		md5_etag(md5, want, sizeof(want));
		if (strcasecmp(want, d->etag) == 0) {
			checked_same(d, xxh);
			return;
		}
		/* a HEAD tells whether the ETag is an MD5 at all (an
		 * encrypted object's is not) */
		d->md5_differs = 1;
	}
	/* a HEAD reads the current object, not the version of --at */
	if (d->version_id != NULL) {
		checked_differs(d, "content differs");
		return;
	}
	if ((e = remote_head_object(d->p->r, d->p->loc.bucket, d->fullkey,
	         strlen(d->fullkey), NULL, &q)) != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	if ((e = remote_req_submit(q, on_head, d)) != FERRY_OK) {
		remote_req_free(q);
		dl_fail(d, e);
		return;
	}
	d->state = DL_HEAD_SENT;
}
