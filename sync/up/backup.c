/*
 * backup.c: what a push or a mirror overwrites or deletes, first copied
 * server-side (CopyObject) to the backup prefix of the run's date, under
 * the ETag it was listed with, so that the backup holds the bytes being
 * replaced and not those of a change made meanwhile.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/backup.h"

/* One backup copy in flight. */
struct backup {
	struct push *p;
	char *key;  /* the backup's full key */
	char *from; /* the object's full key */
	uint64_t size;
	char etag[MANIFEST_ETAG_MAX]; /* as listed */
	int cond;                     /* the copy in flight is under it */
	backup_done_fn done;
	void *arg;
};

int
backup_on(const struct push *p)
{
	return p->run.o->backup.bucket != NULL;
}

/*
 * The backup's full key of fullkey: the backup prefix, then the key
 * relative to the destination's prefix; malloc'd, NULL when out of
 * memory.
 */
static char *
backup_key(const struct push *p, const char *fullkey, size_t *len)
{
	size_t plen = strlen(p->run.loc.prefix);
	const char *rel = fullkey;

	if (strncmp(fullkey, p->run.loc.prefix, plen) == 0)
		rel += plen;
	return remote_key_join(p->run.o->backup.prefix, rel, strlen(rel), len);
}

static void
backup_free(struct backup *b)
{
	if (b == NULL)
		return;
	free(b->key);
	free(b->from);
	free(b);
}

/*
 * Tells that the object from (size bytes, listed with etag) is, or in a
 * dry run would be, kept under the backup's full key key, and counts it.
 */
static void
told(struct push *p, const char *from, const char *key, uint64_t size,
    const char *etag)
{
	const char *bucket = p->run.o->backup.bucket;
	struct plan_entry kept = {.present = 1, .size = size, .etag = etag};
	char *to;

	p->run.counts.backed_up++;
	if ((to = malloc(strlen(bucket) + strlen(key) + 8)) != NULL)
		sprintf(to, "s3://%s/%s", bucket, key);
	output_backup(
	    &p->run.out, from, strlen(from), 0, size, to ? to : key, &kept);
	free(to);
}

static void on_backup(struct remote_req *q, void *arg);
static void on_head(struct remote_req *q, void *arg);

/*
 * Sends the copy of b, under its ETag where cond is set and the server
 * is not known to refuse that condition for it.
 */
static ferry_err
send_copy(struct backup *b, int cond)
{
	struct push *p = b->p;
	struct remote_copy_src src = {p->run.loc.bucket, b->from,
	    strlen(b->from), NULL, 0, 0, NULL, NULL};
	struct remote_req *q = NULL;
	ferry_err e;

	/* a server that refuses the condition (one that compares another
	 * ETag) copies what it has, just after a HEAD under the ETag found
	 * it (on_head()); Swift refuses an object of parts either way */
	b->cond =
	    cond && b->etag[0] && remote_copy_cond_usable(p->run.r, b->etag);
	if (b->cond)
		src.if_match = b->etag;
	if ((e = remote_copy_object(p->run.r, p->run.o->backup.bucket, b->key,
	         strlen(b->key), &src, &q)) == FERRY_OK &&
	    (e = remote_req_submit(q, on_backup, b)) == FERRY_OK)
		return FERRY_OK;
	remote_req_free(q);
	return e;
}

/* The end of b: told and counted when made, then done. */
static void
backup_end(struct backup *b, ferry_err e)
{
	if (e == FERRY_OK)
		told(b->p, b->from, b->key, b->size, b->etag);
	b->done(b->arg, e);
	backup_free(b);
}

/*
 * The HEAD under the ETag after the copy's 412: the object as listed has
 * the server's refusal contradicted, and is copied without the condition;
 * else it changed, and is left as it is.
 */
static void
on_head(struct remote_req *q, void *arg)
{
	struct backup *b = arg;
	ferry_err e = remote_req_result(q, 0);

	if (e == FERRY_OK && strcmp(remote_req_resp(q)->etag, b->etag) == 0) {
		remote_cond_contradicted(
		    b->p->run.r, REMOTE_COND_COPY_IF_MATCH);
		remote_req_free(q);
		if ((e = send_copy(b, 0)) != FERRY_OK)
			backup_end(b, e);
		return;
	}
	remote_req_free(q);
	backup_end(b, ferry_fail(FERRY_ECHANGED,
	                  "changed since it was listed: not backed up, so "
	                  "left as it is"));
}

static void
on_backup(struct remote_req *q, void *arg)
{
	struct backup *b = arg;
	char *etag = NULL;
	ferry_err e = remote_copy_reply(q, &etag);
	struct remote_req *h = NULL;
	char why[512];
	int refused = e != FERRY_OK &&
	              remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED;

	remote_req_free(q);
	free(etag);
	/* a 412: changed, or a server that compares another ETag */
	if (refused && b->cond &&
	    remote_head_object(b->p->run.r, b->p->run.loc.bucket, b->from,
	        strlen(b->from), b->etag, &h) == FERRY_OK) {
		if (remote_req_submit(h, on_head, b) == FERRY_OK)
			return;
		remote_req_free(h);
	}
	if (refused && b->cond)
		e = ferry_fail(FERRY_ECHANGED,
		    "changed since it was listed: not backed up, so left as "
		    "it is");
	else if (e != FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		e = ferry_fail(e,
		    "backup copy to %s failed (%s): left as it is", b->key,
		    why);
	}
	backup_end(b, e);
}

ferry_err
backup_start(struct push *p, const char *fullkey, uint64_t size,
    const char *etag, backup_done_fn done, void *arg)
{
	struct backup *b;
	ferry_err e;

	if (size > REMOTE_MAX_COPY)
		return ferry_fail(FERRY_EUSAGE,
		    "%" PRIu64 " bytes, more than one CopyObject copies: not "
		    "backed up, so left as it is",
		    size);
	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->from = strdup(fullkey)) == NULL ||
	    (b->key = backup_key(p, fullkey, NULL)) == NULL) {
		backup_free(b);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	b->p = p;
	b->size = size;
	b->done = done;
	b->arg = arg;
	snprintf(b->etag, sizeof(b->etag), "%s", etag ? etag : "");
	if ((e = send_copy(b, 1)) != FERRY_OK)
		backup_free(b);
	return e;
}

int
backup_due(const struct xfer *x)
{
	return backup_on(x->p) && !x->backed_up && !x->metadata;
}

static void
on_xfer(void *arg, ferry_err e)
{
	struct xfer *x = arg;

	if (e != FERRY_OK) {
		x->backup_failed = 1;
		xfer_fail(x, e);
		return;
	}
	x->backed_up = 1;
	x->state = XF_PUT_READY;
}

ferry_err
backup_xfer(struct xfer *x)
{
	ferry_err e;

	if ((e = backup_start(x->p, x->t.fullkey, x->t.listed.size,
	         x->t.listed.etag, on_xfer, x)) == FERRY_OK)
		x->state = XF_BACKUP_SENT;
	else
		x->backup_failed = 1;
	return e;
}

/* The copies of backup_keys(): the next to send, those in flight. */
struct keys_run {
	struct push *p;
	char *const *keys;
	unsigned char *kept;
	size_t next, pending;
};

/* One key of backup_keys(), as done's argument. */
struct key_done {
	struct keys_run *k;
	size_t i;
};

static void
on_key(void *arg, ferry_err e)
{
	struct key_done *d = arg;
	struct keys_run *k = d->k;

	k->pending--;
	if (e == FERRY_OK) {
		k->kept[d->i] = 1;
	} else {
		output_error(&k->p->run.out, k->keys[d->i],
		    strlen(k->keys[d->i]), e, ferry_errmsg());
		k->p->run.counts.failed++;
	}
	free(d);
}

/* Sends the copy of key i, or tells and counts its failure. */
static void
send_key(struct keys_run *k, size_t i, const char *etag, uint64_t size)
{
	struct key_done *d;
	ferry_err e;

	if ((d = malloc(sizeof(*d))) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
	} else {
		*d = (struct key_done){k, i};
		k->pending++;
		if ((e = backup_start(
		         k->p, k->keys[i], size, etag, on_key, d)) == FERRY_OK)
			return;
		k->pending--;
		free(d);
	}
	output_error(
	    &k->p->run.out, k->keys[i], strlen(k->keys[i]), e, ferry_errmsg());
	k->p->run.counts.failed++;
}

ferry_err
backup_keys(struct push *p, char *const *keys, const size_t *lens,
    const char (*etags)[MANIFEST_ETAG_MAX], const uint64_t *sizes, size_t n,
    unsigned char *kept)
{
	struct keys_run k = {p, keys, kept, 0, 0};
	ferry_err e = FERRY_OK;

	(void)lens;
	memset(kept, 0, n);
	while (e == FERRY_OK && (k.next < n || k.pending > 0)) {
		while (k.next < n && k.pending < remote_window(p->run.r)) {
			send_key(&k, k.next, etags[k.next], sizes[k.next]);
			k.next++;
		}
		if (ferry_interrupted)
			e = ferry_fail(FERRY_ECANCEL,
			    "interrupted by signal %d", (int)ferry_interrupted);
		else if (k.pending > 0)
			e = remote_run(p->run.r, 1000);
	}
	/* a signal: what is in flight ends, told as failed, not kept */
	if (k.pending > 0)
		remote_end_all(p->run.r);
	return e;
}

void
backup_planned(struct push *p, const char *rel, size_t rellen, uint64_t size,
    const char *etag)
{
	char *full, *key;

	if (!backup_on(p))
		return;
	full = remote_key_join(p->run.loc.prefix, rel, rellen, NULL);
	key = remote_key_join(p->run.o->backup.prefix, rel, rellen, NULL);
	if (full && key)
		told(p, full, key, size, etag);
	free(full);
	free(key);
}
