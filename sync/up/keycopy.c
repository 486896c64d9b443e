/*
 * keycopy.c: an object made by a server-side copy of another object of
 * the same bucket (CopyObject, x-amz-metadata-directive: REPLACE), for a
 * file whose bytes that object holds already: no byte of the file is
 * sent, and the copy carries the file's own metadata (type, hash, mtime,
 * mode, owner) and, for a hard link (-H), the marker naming the first
 * name.  A copy past what one CopyObject copies, or one the server
 * refuses, is an upload of the file instead (with the marker), the
 * refusal said once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/xfer.h"

ferry_err
xfer_begin_keycopy(struct push *p, const char *key, size_t keylen,
    const struct manifest_local *l, const char *from, size_t fromlen,
    const char *from_etag, const char *marker)
{
	struct xfer *x;

	if ((x = xfer_new(p, key, keylen, NULL)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	x->t.local = *l;
	snprintf(x->from_etag, sizeof(x->from_etag), "%s", from_etag);
	x->from_key = remote_key_join(p->run.loc.prefix, from, fromlen, NULL);
	if (x->from_key == NULL ||
	    (marker && (x->marker = strdup(marker)) == NULL)) {
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

/* The copy was refused: x goes as an upload of its file, marker kept. */
static void
upload_instead(struct xfer *x)
{
	struct push *p = x->p;

	if (!p->keycopy_refused)
		log_warn("%s: the server refused to copy %s to it (%s): such "
		         "files are uploaded instead",
		    x->t.fullkey, x->from_key, ferry_errmsg());
	p->keycopy_refused = 1;
	free(x->from_key);
	x->from_key = NULL;
	xfer_upload_instead(x);
}

static void
on_keycopy(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	struct push *p = x->p;
	char *etag = NULL;
	ferry_err e;

	e = xfer_copy_reply(x, q, &etag);
	remote_req_free(q);
	/* the server answered, and refused: a condition that failed
	 * included, since the source changed since it was stored */
	if (e == FERRY_EHTTP || e == FERRY_ES3) {
		free(etag);
		upload_instead(x);
		return;
	}
	if (e != FERRY_OK) {
		free(etag);
		xfer_fail(x, e);
		return;
	}
	xfer_record(
	    x, x->t.local.size, etag, x->t.local.hash, x->t.local.mtime_ns, 0);
	free(etag);
	p->run.counts.linked++;
	output_written(&p->run.out, "link", x->t.fullkey, strlen(x->t.fullkey),
	    x->t.local.size, x->version_id);
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
		upload_instead(x);
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
