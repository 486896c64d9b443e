/*
 * resume.c: multipart uploads that outlive a run.  Each upload of a local
 * file is kept in the manifest's uploads table from CreateMultipartUpload
 * until it is completed or aborted.  A later run that uploads the same,
 * unchanged file asks ListParts which parts the server holds, checks each
 * against the MD5 of the local bytes, and sends only the others.  An upload
 * that cannot be resumed (the file changed, another part size, the upload
 * gone) is aborted and started afresh; one that no key of the run took up
 * is aborted at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/resume.h"
#include "sync/up/xfer.h"

/*
 * Aborts the upload upload_id of the full key key, now, and logs the
 * outcome.  Returns non-zero when the upload is gone (aborted, or unknown
 * to the server).
 */
int
resume_abort_upload(struct push *p, const char *key, const char *upload_id)
{
	struct remote_upload u = {
	    p->run.loc.bucket, key, strlen(key), upload_id};
	struct remote_req *q;
	ferry_err e;
	int gone;

	if ((e = remote_abort_upload(p->run.r, &u, &q)) == FERRY_OK)
		e = remote_perform(p->run.r, q, 0);
	gone = e == FERRY_OK ||
	       (q && remote_req_resp(q)->outcome == REMOTE_NOT_FOUND);
	if (e == FERRY_OK)
		log_info(
		    "aborted the upload of %s left by an earlier run", key);
	else if (!gone)
		log_warn("could not abort the upload of %s: %s", key,
		    ferry_errmsg());
	remote_req_free(q);
	return gone;
}

/* Drops the manifest's record of the upload of x's key. */
void
resume_forget(struct xfer *x)
{
	if (x->source != XS_FILE)
		return;
	if (manifest_upload_del(x->p->run.m, x->t.key, x->t.keylen) != FERRY_OK)
		sync_manifest_warn();
}

/* Keeps the upload x has just created, committed at once. */
void
resume_record(struct xfer *x)
{
	struct manifest_upload u;
	struct push *p = x->p;

	memset(&u, 0, sizeof(u));
	snprintf(u.upload_id, sizeof(u.upload_id), "%s", x->upload_id);
	u.part_size = x->t.part_size;
	u.file = x->t.local;
	/* so that a run killed from now on leaves the upload to the next */
	if (manifest_upload_put(p->run.m, x->t.key, x->t.keylen, &u) !=
	        FERRY_OK ||
	    manifest_commit(p->run.m) != FERRY_OK)
		sync_manifest_warn();
}

/* Why the recorded upload u cannot go on for x, or NULL when it can. */
static const char *
unfit(const struct xfer *x, const struct manifest_upload *u)
{
	const struct manifest_local *a = &u->file, *b = &x->t.local;

	if (a->size != b->size || a->mtime_ns != b->mtime_ns ||
	    a->ctime_ns != b->ctime_ns || a->ino != b->ino ||
	    a->dev != b->dev || memcmp(a->hash, b->hash, 16) != 0)
		return "the file changed since";
	if (u->part_size != x->t.part_size)
		return "it has another part size";
	return NULL;
}

int
resume_note_part(
    struct xfer *x, uint32_t number, uint64_t size, const char *etag)
{
	if (x->part_etag == NULL || number == 0 || number > x->t.nparts ||
	    size != part_len(x, number) || !remote_etag_is_md5(etag))
		return 0;
	memcpy(x->part_etag[number - 1], etag, sizeof(x->part_etag[0]) - 1);
	x->part_etag[number - 1][sizeof(x->part_etag[0]) - 1] = '\0';
	return 1;
}

int
resume_part_there(struct xfer *x, uint32_t number)
{
	if (x->part_etag == NULL || x->part_etag[number - 1][0] == '\0')
		return 0;
	if (!remote_etag_is_md5_of(
	        x->part_etag[number - 1], x->part_md5[number - 1])) {
		log_info("%s: part %u on the server differs; sending it again",
		    x->t.fullkey, number);
		return 0;
	}
	x->parts_reused++;
	return 1;
}

static void
on_old_aborted(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	const struct remote_resp *s = remote_req_resp(q);
	ferry_err e;

	if (remote_req_result(q, 0) != FERRY_OK &&
	    s->outcome != REMOTE_NOT_FOUND)
		log_warn("abort of the earlier upload of %s: %s", x->t.fullkey,
		    ferry_errmsg());
	remote_req_free(q);
	resume_forget(x);
	if ((e = send_create(x)) != FERRY_OK)
		xfer_fail(x, e);
}

/*
 * Aborts the earlier upload in x->upload_id, then starts a new one.  The id
 * leaves x first, so that a failure of x aborts nothing more.
 */
static ferry_err
restart(struct xfer *x)
{
	struct remote_upload u;
	struct remote_req *q;
	ferry_err e;

	free(x->part_etag);
	x->part_etag = NULL;
	e = remote_abort_upload(x->p->run.r, xfer_upload(x, &u), &q);
	free(x->upload_id);
	x->upload_id = NULL;
	if (e == FERRY_OK)
		e = remote_req_submit(q, on_old_aborted, x);
	if (e != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_MP_RESUME_SENT;
	return FERRY_OK;
}

static void on_parts(struct remote_req *q, void *arg);

/* Asks for the page of x's parts after part number marker. */
static ferry_err
list_parts(struct xfer *x, uint32_t marker)
{
	struct push *p = x->p;
	struct remote_req *q;

	q = remote_list_parts_req(p->run.r, p->run.loc.bucket, x->t.fullkey,
	    strlen(x->t.fullkey), x->upload_id, marker);
	if (q == NULL || remote_req_submit(q, on_parts, x) != FERRY_OK) {
		remote_req_free(q);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	x->list_marker = marker;
	x->state = XF_MP_RESUME_SENT;
	return FERRY_OK;
}

static void
on_part(const struct remote_part *part, void *arg)
{
	(void)resume_note_part(arg, part->number, part->size, part->etag);
}

/* The parts present, to begin with, for the log. */
static uint32_t
parts_listed(const struct xfer *x)
{
	uint32_t i, n = 0;

	for (i = 0; i < x->t.nparts; i++)
		n += x->part_etag[i][0] != '\0';
	return n;
}

static void
on_parts(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	enum remote_outcome outcome = remote_req_resp(q)->outcome;
	uint32_t next = 0;
	ferry_err e;

	e = remote_req_result(q, 0);
	if (e == FERRY_OK)
		e = remote_parse_parts(q, on_part, x, &next);
	if (e == FERRY_OK && next != 0 && next <= x->list_marker)
		e = ferry_fail(FERRY_EPARSE, "ListParts marker went back");
	remote_req_free(q);
	if (e == FERRY_OK && next != 0) {
		e = list_parts(x, next);
	} else if (e == FERRY_OK) {
		log_info("%s: resuming an earlier upload, %u of %u parts there",
		    x->t.fullkey, parts_listed(x), x->t.nparts);
		x->state = XF_MP_PARTS;
	} else if (outcome == REMOTE_NOT_FOUND) {
		/* NoSuchUpload: completed or aborted meanwhile */
		log_info("%s: the earlier upload is gone; starting again",
		    x->t.fullkey);
		free(x->upload_id);
		free(x->part_etag);
		x->upload_id = NULL;
		x->part_etag = NULL;
		resume_forget(x);
		e = send_create(x);
	} else {
		log_info("%s: cannot resume the earlier upload: %s; starting "
		         "again",
		    x->t.fullkey, ferry_errmsg());
		e = restart(x);
	}
	if (e != FERRY_OK)
		xfer_fail(x, e);
}

ferry_err
resume_try(struct xfer *x)
{
	struct manifest_upload u;
	const char *why;
	ferry_err e;

	if (x->source != XS_FILE)
		return FERRY_ENOTFOUND;
	e = manifest_upload_get(x->p->run.m, x->t.key, x->t.keylen, &u);
	if (e == FERRY_ENOTFOUND)
		return e;
	if (e != FERRY_OK) {
		log_warn("%s", ferry_errmsg());
		resume_forget(x);
		return FERRY_ENOTFOUND;
	}
	if ((x->upload_id = strdup(u.upload_id)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((why = unfit(x, &u)) != NULL) {
		log_info("%s: the earlier upload cannot go on: %s; starting "
		         "again",
		    x->t.fullkey, why);
		return restart(x);
	}
	if ((x->part_etag = calloc(x->t.nparts, sizeof(*x->part_etag))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return list_parts(x, 0);
}

/* Whether the manifest keeps the upload id of the full key key. */
int
resume_owns(struct push *p, const char *key, const char *upload_id)
{
	size_t plen = strlen(p->run.loc.prefix), klen = strlen(key);
	struct manifest_upload u;

	if (klen <= plen || memcmp(key, p->run.loc.prefix, plen) != 0)
		return 0;
	if (manifest_upload_get(p->run.m, key + plen, klen - plen, &u) !=
	    FERRY_OK)
		return 0;
	return strcmp(u.upload_id, upload_id) == 0;
}

/*
 * Calls fn for each record of the uploads table (from a snapshot, so that
 * fn may delete), with ids and n passed on.
 */
static ferry_err
each_upload(struct push *p,
    void (*fn)(struct push *, const char *, size_t,
        const struct manifest_upload *, char *const *, size_t),
    char *const *ids, size_t n)
{
	struct manifest_iter *it;
	struct manifest_upload u;
	const char *key;
	size_t keylen;
	ferry_err e;

	if ((e = manifest_iter_new(p->run.m, MANIFEST_UPLOADS, &it)) !=
	    FERRY_OK)
		return e;
	while ((e = manifest_iter_upload(it, &key, &keylen, &u)) == FERRY_OK)
		fn(p, key, keylen, &u, ids, n);
	manifest_iter_free(it);
	return e == FERRY_ENOTFOUND ? FERRY_OK : e;
}

static void
forget_if_gone(struct push *p, const char *key, size_t keylen,
    const struct manifest_upload *u, char *const *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(ids[i], u->upload_id) == 0)
			return;
	if (manifest_upload_del(p->run.m, key, keylen) != FERRY_OK)
		sync_manifest_warn();
}

void
resume_forget_gone(struct push *p, char *const *ids, size_t n)
{
	if (each_upload(p, forget_if_gone, ids, n) != FERRY_OK)
		sync_manifest_warn();
}

static void
abort_unused(struct push *p, const char *key, size_t keylen,
    const struct manifest_upload *u, char *const *ids, size_t n)
{
	char *full = remote_key_join(p->run.loc.prefix, key, keylen, NULL);

	(void)ids;
	(void)n;
	if (full == NULL)
		return;
	/* a record whose abort failed stays, for the next run to try */
	if (resume_abort_upload(p, full, u->upload_id) &&
	    manifest_upload_del(p->run.m, key, keylen) != FERRY_OK)
		sync_manifest_warn();
	free(full);
}

void
resume_sweep(struct push *p)
{
	if (p->run.o->dry_run || p->run.m == NULL)
		return;
	if (each_upload(p, abort_unused, NULL, 0) != FERRY_OK)
		sync_manifest_warn();
}
