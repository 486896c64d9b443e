/*
 * scanahead.c: the files of a folder that the walk will read are hashed
 * ahead on worker threads, a few to a job, while the merge-join and every
 * manifest access stay on the walking thread (scan.c).
 */
#include <stdlib.h>
#include <string.h>

#include "manifest/scanwalk.h"

/* Hashes the files of a batch (a workq run function). */
static void
batch_run(struct workq_job *j)
{
	struct batch *b = (struct batch *)j;
	size_t i;

	for (i = 0; i < b->n; i++)
		filehash_run(&b->files[i].h);
}

static void
batch_done(struct workq_job *j)
{
	((struct batch *)j)->finished = 1;
}

/*
 * Hashes the file ent (at s->path) into *r: takes the job that hashed it
 * ahead, waiting for it to finish, or else hashes it now.  See
 * filehash_result().
 */
ferry_err
scan_hash_entry(struct scan *s, struct level *lv, const struct ent *ent,
    struct manifest_local *r)
{
	struct filehash now, *h;

	/* In the order of ents; any the loop passed stay unread. */
	while (lv->anext < lv->nahead && lv->ahead[lv->anext].ent < ent)
		lv->anext++;
	if (lv->anext < lv->nahead && lv->ahead[lv->anext].ent == ent) {
		while (!lv->ahead[lv->anext].batch->finished)
			workq_wait(s->wq);
		h = &lv->ahead[lv->anext++].h;
	} else {
		h = &now;
		filehash_init(h, lv->fd, ent->name, s->opts->follow);
		filehash_run(h);
	}
	s->stats->hashed_bytes += h->nread;
	*r = h->r;
	return filehash_result(h, s->path);
}

/* Whether the file ent, whose record is rec (NULL: none), is to be read. */
int
scan_stale(const struct scan *s, const struct manifest_local *rec,
    const struct ent *ent)
{
	return rec == NULL || s->opts->checksum ||
	       !filehash_same_stat(rec, &ent->st);
}

/*
 * Whether visit_file() will read the file ent of lv, by its record;
 * under says whether the table has any under the folder.  Nothing under
 * the folder has been written yet, so the record is the one the cursor
 * will meet.
 */
static int
file_stale(struct scan *s, struct level *lv, const struct ent *ent, int under)
{
	struct manifest_local rec;
	ferry_err e;

	if (!under || s->opts->checksum)
		return 1;
	scan_path_set(s, lv->base, ent->name, ent->namelen, 0);
	/* A record that does not decode stops the merge-join, not this. */
	e = manifest_local_get(s->m, s->path, s->plen, &rec);
	scan_path_cut(s, lv->base);
	return scan_stale(s, e == FERRY_OK ? &rec : NULL, ent);
}

/* Appends the file ent to lv->ahead. */
static ferry_err
ahead_add(struct scan *s, struct level *lv, const struct ent *ent)
{
	struct ahead *a;

	a = scan_room_for_one(
	    lv->ahead, lv->nahead, &lv->acap, sizeof(*lv->ahead));
	if (a == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	lv->ahead = a;
	a = &lv->ahead[lv->nahead++];
	filehash_init(&a->h, lv->fd, ent->name, s->opts->follow);
	a->ent = ent;
	return FERRY_OK;
}

/* Whether the file of size bytes starts a new batch after b. */
static int
batch_full(const struct batch *b, uint64_t bytes, uint64_t size)
{
	return b->n == SCAN_BATCH_FILES ||
	       (b->n > 0 && bytes + size > SCAN_BATCH_BYTES);
}

/*
 * Cuts lv->ahead into batches, in out when not NULL; returns how many.
 */
static size_t
batches_cut(struct level *lv, struct batch *out)
{
	struct batch one = {0}, *b = NULL;
	uint64_t bytes = 0, size;
	size_t i, n = 0;

	for (i = 0; i < lv->nahead; i++) {
		size = lv->ahead[i].ent->st.size;
		if (b == NULL || batch_full(b, bytes, size)) {
			b = out != NULL ? &out[n] : &one;
			b->n = 0;
			b->files = &lv->ahead[i];
			bytes = 0;
			n++;
		}
		lv->ahead[i].batch = b;
		b->n++;
		bytes += size;
	}
	return n;
}

/* Cuts lv->ahead into the jobs of lv->batches. */
static ferry_err
batches_make(struct level *lv)
{
	size_t i, n = batches_cut(lv, NULL);

	if ((lv->batches = calloc(n, sizeof(*lv->batches))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	lv->nbatches = batches_cut(lv, lv->batches);
	for (i = 0; i < lv->nbatches; i++) {
		lv->batches[i].j.run = batch_run;
		lv->batches[i].j.done = batch_done;
	}
	return FERRY_OK;
}

/* Whether s has workers, starting them the first time they are needed. */
static int
workers(struct scan *s)
{
	if (s->wq == NULL &&
	    workq_new(workq_threads(), NULL, NULL, &s->wq) != FERRY_OK)
		s->wq = NULL;
	return s->wq != NULL;
}

/*
 * Starts hashing on workers the files of lv from first on that
 * visit_file() will read, when they make two batches or more: a folder
 * with one small file or a few to read has them read on this thread as
 * before.  It runs when the walk meets the first file of the folder to
 * read, so that a folder of unchanged files costs no lookup, starts no
 * thread and reads no file.  Workers hold open only the files they are
 * reading.  s->path is left at first's path.
 */
ferry_err
scan_hash_ahead(struct scan *s, struct level *lv, const struct ent *first)
{
	ferry_err e;
	size_t i;
	int under;

	lv->ahead_done = 1;
	/* The cursor is at the first record from first's path on. */
	under = s->key != NULL && s->keylen >= lv->base &&
	        memcmp(s->key, s->path, lv->base) == 0;
	for (i = (size_t)(first - lv->ents); i < lv->n; i++)
		if (!lv->ents[i].is_dir && !lv->ents[i].special &&
		    file_stale(s, lv, &lv->ents[i], under) &&
		    (e = ahead_add(s, lv, &lv->ents[i])) != FERRY_OK)
			return e;
	scan_path_set(s, lv->base, first->name, first->namelen, 0);
	if (lv->nahead > 1 && (e = batches_make(lv)) != FERRY_OK)
		return e;
	/* Without workers, visit_file() hashes each file itself. */
	if (lv->nbatches < 2 || !workers(s)) {
		lv->nahead = 0;
		lv->nbatches = 0;
		return FERRY_OK;
	}
	for (i = 0; i < lv->nbatches; i++)
		workq_submit(s->wq, &lv->batches[i].j);
	return FERRY_OK;
}

/* Waits for the jobs of lv, which use its folder and names, then frees them. */
void
scan_ahead_free(struct scan *s, struct level *lv)
{
	size_t i;

	for (i = 0; i < lv->nbatches; i++)
		while (!lv->batches[i].finished)
			workq_wait(s->wq);
	free(lv->batches);
	free(lv->ahead);
}
