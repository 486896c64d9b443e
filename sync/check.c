/*
 * check.c: the content checks that decide whether an object already holds
 * the local bytes when no manifest record says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include "sync/xfer.h"

/* The check found the object holds the local bytes: note it and skip. */
static void
checked_same(struct xfer *x, const uint8_t hash[16])
{
	struct push *p = x->p;

	xfer_record(x, x->dst_size, x->dst_etag, hash, x->local.mtime_ns, 0);
	p->counts.checked++;
	p->counts.skipped++;
	xfer_finish(x);
}

static void
checked_differs(struct xfer *x, const char *reason)
{
	struct push *p = x->p;

	p->counts.checked++;
	xfer_planned(x);
	x->multipart = x->local.size >= p->o->multipart_threshold;
	if (p->o->dry_run) {
		struct plan_entry src = {.present = 1,
		    .size = x->local.size,
		    .mtime_ns = x->local.mtime_ns,
		    .hash = x->local.hash};
		struct plan_entry dst = {
		    .present = 1, .size = x->dst_size, .etag = x->dst_etag};
		output_planned(&p->out, "upload", x->fullkey,
		    strlen(x->fullkey), x->local.size, reason, &src, &dst);
		p->counts.uploaded++;
		p->counts.bytes += x->local.size;
		xfer_finish(x);
		return;
	}
	x->state = XF_PUT_READY;
}

static void
on_head(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	const struct remote_resp *s = remote_req_resp(q);
	char hex[33];
	ferry_err e;

	e = remote_req_result(q, 0);
	hex_encode(x->local.hash, 16, hex);
	if (e == FERRY_OK && x->md5_differs && !remote_resp_etag_opaque(s))
		checked_differs(x, "content differs");
	else if (e == FERRY_OK && s->meta_hash[0] &&
	         strcmp(s->meta_hash, hex) == 0)
		checked_same(x, x->local.hash);
	else if (e == FERRY_OK && s->meta_hash[0])
		checked_differs(x, "content hash differs");
	else if (e == FERRY_OK &&
	         x->local.mtime_ns / 1000000000 <= x->dst_last_modified) {
		/* written by another tool: size and time are all there is */
		x->p->counts.skipped++;
		xfer_finish(x);
	} else if (e == FERRY_OK)
		checked_differs(x, "newer than the object");
	else if (e == FERRY_ENOTFOUND)
		checked_differs(x, "object vanished");
	else
		xfer_fail(x, e);
	remote_req_free(q);
}

void
start_check(struct xfer *x)
{
	struct remote_req *q;
	uint8_t xxh[16], md5[16];
	char want[MANIFEST_ETAG_MAX];
	struct stat st;
	uint64_t n;
	ferry_err e;
	int fd;

	if (etag_is_md5(x->dst_etag)) {
		if ((e = xfer_open_local(x, &fd, &st)) != FERRY_OK) {
			xfer_fail(x, e);
			return;
		}
		e = manifest_hash_fd(fd, xxh, md5, &n);
		close(fd);
		if (e != FERRY_OK) {
			xfer_fail(x, e);
			return;
		}
		md5_etag(md5, want, sizeof(want));
		if (strcmp(want, x->dst_etag) == 0) {
			checked_same(x, xxh);
			return;
		}
		/* a HEAD tells whether the ETag is an MD5 at all (an
		 * encrypted object's is not) */
		x->md5_differs = 1;
	}
	if ((e = remote_head_object(x->p->r, x->p->loc.bucket, x->fullkey,
	         strlen(x->fullkey), NULL, &q)) != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	if ((e = remote_req_submit(q, on_head, x)) != FERRY_OK) {
		remote_req_free(q);
		xfer_fail(x, e);
		return;
	}
	x->state = XF_HEAD_SENT;
}
