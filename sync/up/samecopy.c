/*
 * samecopy.c: a file's upload made a server-side copy.  When another key
 * of the same bucket holds the bytes of the file (its object's stored
 * content known for certain by the caller), the new key is a CopyObject
 * of it, only while it still has the ETag its record names, with the
 * file's own metadata (REPLACE): no byte of the file is sent.  The file
 * is looked at just before: one changed since the scan (size, mtime,
 * ctime) is uploaded instead, and so is one whose copy the server
 * refuses, whatever the reason.  Used by --track-renames (rename.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/xfer.h"

/*
 * The copy of x is not made: x goes as an ordinary upload, the next time
 * the engine advances it, its bytes counted as planned now.
 */
static void
upload_instead(struct xfer *x, const char *why)
{
	struct push *p = x->p;

	log_info("%s: not copied from %s (%s); uploaded instead", x->t.fullkey,
	    x->same_key, why);
	free(x->same_key);
	x->same_key = NULL;
	x->same_copied = NULL;
	x->multipart = x->t.local.size >= p->run.o->multipart_threshold;
	x->state = XF_PUT_READY;
	p->run.eng.planned_bytes += x->t.local.size;
}

static void
on_copied(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	struct push *p = x->p;
	int changed, done;

	done = xfer_copy_settle(x, q, x->same_part_size, &changed);
	if (done == 0)
		upload_instead(x, ferry_errmsg());
	if (done != 1)
		return;
	if (x->same_copied)
		(*x->same_copied)++;
	p->run.counts.renamed++;
	output_written(&p->run.out, "rename", x->t.fullkey,
	    strlen(x->t.fullkey), x->t.local.size, x->version_id);
	xfer_finish(x);
}

ferry_err
samecopy_start(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_copy_src src;
	struct remote_req *q;
	struct remote_put o;
	ferry_err e;

	/* the file as scanned, its metadata read for the copy */
	if (metadata_read(x) != FERRY_OK) {
		upload_instead(x, ferry_errmsg());
		return FERRY_OK;
	}
	memset(&src, 0, sizeof(src));
	src.bucket = p->run.loc.bucket;
	src.key = x->same_key;
	src.keylen = strlen(x->same_key);
	src.if_match = x->same_etag;
	xfer_put_opts(x, x->t.local.hash, x->t.local.mtime_ns, &o);
	if ((e = remote_copy_replace(p->run.r, p->run.loc.bucket, x->t.fullkey,
	         strlen(x->t.fullkey), &src, &o, &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_copied, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_PUT_SENT;
	return FERRY_OK;
}

ferry_err
samecopy_begin(struct push *p, const char *key, size_t keylen,
    const struct manifest_local *l, const struct samecopy_src *src)
{
	struct xfer *x;

	if ((x = xfer_new(p, key, keylen, NULL)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	x->t.local = *l;
	/* one CopyObject; upload_instead() chooses again */
	x->multipart = 0;
	x->same_part_size = src->part_size;
	x->same_copied = src->copied;
	snprintf(x->same_etag, sizeof(x->same_etag), "%s", src->etag);
	/* no byte of the file is planned to go */
	transfer_planned(&x->t, 0);
	if ((x->same_key = remote_key_join(
	         p->run.loc.prefix, src->key, src->keylen, NULL)) == NULL) {
		x->t.done = 1;
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	return FERRY_OK;
}
