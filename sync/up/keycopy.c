/*
 * keycopy.c: an object made by a server-side copy of another object of
 * the same bucket (CopyObject, x-amz-metadata-directive: REPLACE), for a
 * file whose bytes that object holds already: no byte of the file is
 * sent, and the copy carries the file's own metadata (type, hash, mtime,
 * mode, owner) and, for a hard link (-H), the marker naming the first
 * name.  Two callers: -H's other names of a file (hardlink.c, counted as
 * linked) and --track-renames' new keys whose content a key the run
 * deletes holds (rename.c, counted as renamed).  A copy past what one
 * CopyObject copies, or one the server refuses, is an upload of the file
 * instead (with the marker): a refused condition (the source changed)
 * for that file alone, any other refusal for the rest of the run, said
 * once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/xfer.h"

ferry_err
xfer_begin_keycopy(struct push *p, const char *key, size_t keylen,
    const struct manifest_local *l, const struct keycopy_from *from)
{
	struct xfer *x;

	if ((x = xfer_new(p, key, keylen, NULL)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	x->t.local = *l;
	snprintf(x->from_etag, sizeof(x->from_etag), "%s", from->etag);
	x->from_part_size = from->part_size;
	x->from_copied = from->copied;
	x->from_kind = (int)from->kind;
	x->from_key =
	    remote_key_join(p->run.loc.prefix, from->key, from->keylen, NULL);
	if (x->from_key == NULL ||
	    (from->marker && (x->marker = strdup(from->marker)) == NULL)) {
		x->t.done = 1;
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	/* one CopyObject copies up to 5 GiB: a larger file is uploaded */
	if (l->size > REMOTE_MAX_COPY) {
		free(x->from_key);
		x->from_key = NULL;
		x->multipart = l->size >= p->run.o->multipart_threshold;
		xfer_planned(x);
		return FERRY_OK;
	}
	transfer_planned(&x->t, 0);
	return FERRY_OK;
}

/*
 * The copy was refused: x goes as an upload of its file, marker kept.
 * changed: the refusal was of its condition, for x alone.
 */
static void
upload_instead(struct xfer *x, int changed)
{
	struct push *p = x->p;

	if (changed)
		log_info("%s: not copied from %s (%s); uploaded instead",
		    x->t.fullkey, x->from_key, ferry_errmsg());
	else if (!p->keycopy_refused)
		log_warn("%s: the server refused to copy %s to it (%s): such "
		         "files are uploaded instead",
		    x->t.fullkey, x->from_key, ferry_errmsg());
	if (!changed)
		p->keycopy_refused = 1;
	free(x->from_key);
	x->from_key = NULL;
	x->from_copied = NULL;
	xfer_upload_instead(x);
}

static void
on_keycopy(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	struct push *p = x->p;
	int changed, done, rename = x->from_kind == KEYCOPY_RENAME;

	done = xfer_copy_settle(x, q, x->from_part_size, &changed);
	if (done == 0)
		upload_instead(x, changed);
	if (done != 1)
		return;
	if (x->from_copied)
		(*x->from_copied)++;
	if (rename)
		p->run.counts.renamed++;
	else
		p->run.counts.linked++;
	output_written(&p->run.out, rename ? "rename" : "link", x->t.fullkey,
	    strlen(x->t.fullkey), x->t.local.size, x->version_id);
	xfer_finish(x);
}

ferry_err
start_keycopy(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_copy_src src;
	struct remote_req *q;
	struct remote_put o;
	ferry_err e;

	if (p->keycopy_refused) {
		upload_instead(x, 0);
		return FERRY_OK;
	}
	/* the file's metadata as it is now, while it is the file scanned */
	if ((e = metadata_read(x)) != FERRY_OK)
		return e;
	xfer_put_opts(x, x->t.local.hash, x->t.local.mtime_ns, &o);
	src = (struct remote_copy_src){p->run.loc.bucket, x->from_key,
	    strlen(x->from_key), x->from_etag, 0, 0, NULL, NULL};
	if ((e = remote_copy_replace(p->run.r, p->run.loc.bucket, x->t.fullkey,
	         strlen(x->t.fullkey), &src, &o, &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_keycopy, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_PUT_SENT;
	return FERRY_OK;
}
