/*
 * metadata.c: a push's metadata-only change.  A file whose bytes its
 * object holds already, but whose mode, owner or mtime is not what the
 * object was stored with (a chmod, chown or touch), has its object copied
 * onto itself with the new metadata: one CopyObject, no byte sent; at or
 * above the multipart threshold (and always above 5 GiB), as a mirror
 * copies, a multipart upload of the new metadata whose parts are copied
 * from the object itself (UploadPartCopy; copy.c, multipart.c).  A
 * server that refuses the single copy has the file uploaded instead,
 * said once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/engine/engine.h"
#include "sync/up/xfer.h"

/*
 * The copy was answered with a refusal: x goes as an ordinary upload,
 * the next time the engine advances it.  changed: the refusal was of its
 * condition (the object changed since it was listed); any other has
 * every later such file of the run uploaded at once, said once.
 */
static void
upload_instead(struct xfer *x, int changed)
{
	struct push *p = x->p;

	if (changed)
		log_info(
		    "%s: %s; uploaded instead", x->t.fullkey, ferry_errmsg());
	else if (!p->metadata_refused)
		log_warn("%s: the server refused to copy the object onto "
		         "itself with new metadata (%s): files whose metadata "
		         "alone changed are uploaded again instead",
		    x->t.fullkey, ferry_errmsg());
	if (!changed)
		p->metadata_refused = 1;
	x->metadata = 0;
	xfer_upload_instead(x);
}

void
metadata_parts_refused(struct xfer *x)
{
	struct push *p = x->p;

	if (!p->metadata_parts_refused)
		log_warn("%s: the server refused to copy the object's parts "
		         "onto itself (%s): uploaded again instead, at the end",
		    x->t.fullkey, ferry_errmsg());
	p->metadata_parts_refused = 1;
	/* still a copy until its parts are all answered and its upload
	 * aborted; then retry_changed() (xfer.c) makes it an upload */
	x->retry_later = 1;
}

/* The part size recorded for the object of x, before the copy. */
static uint64_t
part_size_of(const struct xfer *x)
{
	struct manifest_remote rec;

	if (manifest_remote_get(x->p->run.m, x->t.key, x->t.keylen, &rec) !=
	    FERRY_OK)
		return 0;
	return rec.part_size;
}

static void
on_metadata(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	int changed, done;

	done = xfer_copy_settle(x, q, part_size_of(x), &changed);
	if (done == 0)
		upload_instead(x, changed);
	if (done != 1)
		return;
	xfer_uploaded(x, x->t.local.size);
	xfer_finish(x);
}

ferry_err
metadata_read(struct xfer *x)
{
	struct stat st;
	ferry_err e;
	int fd;

	if ((e = xfer_open_local(x, &fd, &st)) != FERRY_OK)
		return e;
	close(fd);
	if (!stat_matches_scan(&st, &x->t.local))
		return ferry_fail(
		    FERRY_ECHANGED, "the file changed since it was scanned");
	return FERRY_OK;
}

/*
 * -X, -A: whether the file of x, read again, has the mode, owner, mtime,
 * attributes and ACL its object was stored with: its ctime moved for
 * something else (a link, a rename), and only its record is written.
 */
static int
nothing_changed(struct xfer *x, struct manifest_remote *rec)
{
	const struct sync_opts *o = x->p->run.o;
	struct posix_attrs a;

	if ((!o->xattrs && !o->acls) ||
	    manifest_remote_get(x->p->run.m, x->t.key, x->t.keylen, rec) !=
	        FERRY_OK ||
	    !rec->has_meta || posix_decode(&x->posix, &a, NULL) != 0)
		return 0;
	return a.has_mode && a.has_uid && a.has_gid &&
	       a.mode == rec->meta_mode && a.uid == rec->meta_uid &&
	       a.gid == rec->meta_gid && x->t.local.mtime_ns == rec->mtime_ns &&
	       xfer_xattr_hash(x) == (rec->has_xattr ? rec->xattr_hash : 0);
}

ferry_err
start_metadata(struct xfer *x)
{
	struct manifest_remote rec;
	struct push *p = x->p;
	struct remote_req *q;
	struct remote_put o;
	ferry_err e;

	if (p->metadata_refused) {
		upload_instead(x, 0);
		return FERRY_OK;
	}
	if ((e = metadata_read(x)) != FERRY_OK)
		return e;
	if (nothing_changed(x, &rec)) {
		xfer_record(x, x->t.local.size, x->t.listed.etag,
		    x->t.local.hash, x->t.local.mtime_ns, rec.part_size);
		p->run.counts.skipped++;
		xfer_finish(x);
		return FERRY_OK;
	}
	xfer_put_opts(x, x->t.local.hash, x->t.local.mtime_ns, &o);
	if ((e = remote_copy_metadata(p->run.r, p->run.loc.bucket, x->t.fullkey,
	         strlen(x->t.fullkey), x->t.listed.etag, &o, &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_metadata, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_PUT_SENT;
	return FERRY_OK;
}
