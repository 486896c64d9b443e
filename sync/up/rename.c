/*
 * rename.c: --track-renames in a push (rename.h).  A renamed file is a
 * new key and a delete of the same content; the merge meets them in key
 * order, the new key perhaps first.  So new keys are held back until the
 * merge is done, the deletes whose content is known for certain kept by
 * hash meanwhile; then each new key held back is copied from a delete of
 * the same content and size (keycopy.c), or uploaded.  Two new keys may
 * copy from one delete: the deletes run after every transfer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/xfer.h"

/* Says once that the bound was met, and what follows. */
static void
bound_met(struct push *p)
{
	if (p->renames.full_said)
		return;
	p->renames.full_said = 1;
	log_info("--track-renames: more than %d new keys or deletes in this "
	         "run: the rest are not looked at as renames (uploaded, or "
	         "deleted only)",
	    RENAMES_MAX);
}

ferry_err
renames_gather(struct push *p, const struct remote_obj *o)
{
	struct renames *rn = &p->renames;
	struct manifest_remote rec;
	struct rename_src *s;

	if (!p->run.o->track_renames || o->size == 0 ||
	    o->size > REMOTE_MAX_COPY || o->etag == NULL)
		return FERRY_OK;
	/* the stored content known for certain: ferry's record of what it
	 * wrote under the key, and the object still the one it wrote */
	if (manifest_remote_get(p->run.m, o->key, o->keylen, &rec) !=
	        FERRY_OK ||
	    !rec.has_hash || rec.size != o->size ||
	    strcmp(rec.etag, o->etag) != 0)
		return FERRY_OK;
	if (rn->nsrc >= RENAMES_MAX) {
		bound_met(p);
		return FERRY_OK;
	}
	if (array_grow((void **)&rn->src, &rn->srccap, rn->nsrc, sizeof(*s)) <
	    0)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	s = &rn->src[rn->nsrc];
	memset(s, 0, sizeof(*s));
	if ((s->key = malloc(o->keylen + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(s->key, o->key, o->keylen);
	s->key[o->keylen] = '\0';
	s->keylen = o->keylen;
	memcpy(s->hash, rec.hash, sizeof(s->hash));
	s->size = rec.size;
	s->part_size = rec.part_size;
	snprintf(s->etag, sizeof(s->etag), "%s", rec.etag);
	rn->nsrc++;
	rn->sorted = 0;
	return FERRY_OK;
}

ferry_err
renames_defer(struct push *p, const struct plan_decision *d, const char *key,
    size_t keylen, const struct manifest_local *l, int *kept)
{
	struct renames *rn = &p->renames;
	struct rename_new *n;

	*kept = 0;
	/* rn->next: the merge is done, and this is a new key held back */
	if (!p->run.o->track_renames || rn->next > 0 || l->size == 0 ||
	    l->size > REMOTE_MAX_COPY)
		return FERRY_OK;
	if (rn->nnew >= RENAMES_MAX) {
		bound_met(p);
		return FERRY_OK;
	}
	if (array_grow((void **)&rn->nw, &rn->newcap, rn->nnew, sizeof(*n)) < 0)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	n = &rn->nw[rn->nnew];
	if ((n->key = malloc(keylen + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(n->key, key, keylen);
	n->key[keylen] = '\0';
	n->keylen = keylen;
	n->d = *d;
	n->l = *l;
	rn->nnew++;
	*kept = 1;
	return FERRY_OK;
}

/* Orders sources by content, then size. */
static int
cmp_src(const void *a, const void *b)
{
	const struct rename_src *x = a, *y = b;
	int c = memcmp(x->hash, y->hash, sizeof(x->hash));

	if (c != 0)
		return c;
	return (x->size > y->size) - (x->size < y->size);
}

int
renames_take(struct push *p, struct rename_new **n, struct rename_src **src)
{
	struct renames *rn = &p->renames;
	struct rename_src want;

	*n = NULL;
	*src = NULL;
	if (rn->next >= rn->nnew)
		return 0;
	if (!rn->sorted && rn->nsrc > 1)
		qsort(rn->src, rn->nsrc, sizeof(*rn->src), cmp_src);
	rn->sorted = 1;
	*n = &rn->nw[rn->next++];
	memcpy(want.hash, (*n)->l.hash, sizeof(want.hash));
	want.size = (*n)->l.size;
	if (rn->nsrc > 0)
		*src = bsearch(
		    &want, rn->src, rn->nsrc, sizeof(*rn->src), cmp_src);
	return 1;
}

ferry_err
renames_start(
    struct push *p, const struct rename_new *n, struct rename_src *src)
{
	struct keycopy_from kc = {src->key, src->keylen, src->etag,
	    src->part_size, &src->copied, NULL, KEYCOPY_RENAME};
	struct plan_entry from = {.present = 1,
	    .size = n->l.size,
	    .mtime_ns = n->l.mtime_ns,
	    .hash = n->l.hash};
	struct plan_entry to = {0};
	char reason[64 + MANIFEST_KEY_MAX];
	ferry_err e;

	if (!p->run.o->dry_run)
		return xfer_begin_keycopy(p, n->key, n->keylen, &n->l, &kc);
	snprintf(reason, sizeof(reason), "same content as %.*s, deleted",
	    (int)src->keylen, src->key);
	if ((e = sync_run_planned(&p->run, "rename", n->key, n->keylen,
	         n->l.size, reason, &from, &to)) != FERRY_OK)
		return e;
	src->copied++;
	p->run.counts.renamed++;
	return FERRY_OK;
}

uint64_t
renames_sources_copied(const struct push *p)
{
	const struct renames *rn = &p->renames;
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < rn->nsrc; i++)
		if (rn->src[i].copied > 0)
			n++;
	return n;
}

void
renames_free(struct renames *rn)
{
	size_t i;

	for (i = 0; i < rn->nsrc; i++)
		free(rn->src[i].key);
	for (i = 0; i < rn->nnew; i++)
		free(rn->nw[i].key);
	free(rn->src);
	free(rn->nw);
	memset(rn, 0, sizeof(*rn));
}
