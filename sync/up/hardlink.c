/*
 * hardlink.c: a push's hard links (-H).  The names of one inode in the
 * synced set (filters apply first: a name left out is not one of them)
 * are sent once: the transfers the merge plans for them wait until it has
 * gone through every key, since a later key may be a name already stored.
 * Then, per inode, its bytes go up once, in one upload of its first name,
 * unless a name is stored with them already; and each other name is a
 * server-side copy of that one (keycopy.c), marked with its key
 * (REMOTE_META_HARDLINK), once the upload has landed.  A name whose
 * source did not land is not copied: it fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sync/up/xfer.h"

/* A name waiting for its inode's bytes. */
struct hl_name {
	char *key;
	size_t keylen;
	enum plan_action action;
	struct manifest_local l;
	/* the object listed under the key, if any (a metadata copy's
	 * condition is its ETag) */
	int listed;
	uint64_t size;
	int64_t last_modified;
	char etag[MANIFEST_ETAG_MAX];
};

/* One inode with more than one name. */
struct hl_group {
	uint64_t dev, ino;
	struct hl_group *next; /* in its hash chain */
	char *stored;          /* a name planned unchanged, or NULL */
	size_t storedlen;
	struct hl_name *names; /* those that wait, in key order */
	size_t n, cap;
	int lead; /* names[0] went up as the others' source */
};

#define HL_BUCKETS 4096

struct hardlinks {
	struct hl_group *bucket[HL_BUCKETS];
	struct hl_group **all; /* in the order first seen */
	size_t nall, capall;
};

void
hardlink_free(struct hardlinks *hl)
{
	size_t i, j;

	if (hl == NULL)
		return;
	for (i = 0; i < hl->nall; i++) {
		for (j = 0; j < hl->all[i]->n; j++)
			free(hl->all[i]->names[j].key);
		free(hl->all[i]->names);
		free(hl->all[i]->stored);
		free(hl->all[i]);
	}
	free(hl->all);
	free(hl);
}

/* The group of dev/ino, made when new; NULL when out of memory. */
static struct hl_group *
group_of(struct hardlinks *hl, uint64_t dev, uint64_t ino)
{
	size_t h = (size_t)((ino * 0x9e3779b97f4a7c15ULL) ^ dev) % HL_BUCKETS;
	struct hl_group *g, **all;

	for (g = hl->bucket[h]; g; g = g->next)
		if (g->dev == dev && g->ino == ino)
			return g;
	if (hl->nall == hl->capall) {
		size_t cap = hl->capall ? hl->capall * 2 : 64;
		if ((all = realloc(hl->all, cap * sizeof(*all))) == NULL)
			return NULL;
		hl->all = all;
		hl->capall = cap;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->dev = dev;
	g->ino = ino;
	g->next = hl->bucket[h];
	hl->bucket[h] = g;
	hl->all[hl->nall++] = g;
	return g;
}

/* Adds key to the names of g that wait; o: the object listed, or NULL. */
static ferry_err
add_name(struct hl_group *g, const char *key, size_t keylen, enum plan_action a,
    const struct manifest_local *l, const struct remote_obj *o)
{
	struct hl_name *n;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 4;
		if ((n = realloc(g->names, cap * sizeof(*n))) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		g->names = n;
		g->cap = cap;
	}
	n = &g->names[g->n];
	if ((n->key = strndup(key, keylen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	n->keylen = keylen;
	n->action = a;
	n->l = *l;
	n->listed = o != NULL;
	if (o) {
		n->size = o->size;
		n->last_modified = o->last_modified;
		snprintf(
		    n->etag, sizeof(n->etag), "%s", o->etag ? o->etag : "");
	}
	g->n++;
	return FERRY_OK;
}

/* Whether l's file has other names: one stat, of the file scanned. */
static int
has_links(const struct push *p, const char *key, const struct manifest_local *l)
{
	int fl = p->run.o->follow_symlinks ? 0 : AT_SYMLINK_NOFOLLOW;
	struct stat st;

	if (!S_ISREG(l->mode) || fstatat(p->run.rootfd, key, &st, fl) != 0)
		return 0;
	return st.st_nlink > 1 && (uint64_t)st.st_ino == l->ino &&
	       (uint64_t)st.st_dev == l->dev;
}

ferry_err
hardlink_take(struct push *p, const struct plan_decision *d, const char *key,
    size_t keylen, const struct manifest_local *l, const struct remote_obj *o,
    int *taken)
{
	struct hl_group *g;

	*taken = 0;
	/* a dry run tells what the merge planned */
	if (!p->run.o->hard_links || p->run.o->dry_run || l == NULL ||
	    (d->action != PLAN_SKIP && d->action != PLAN_PUT &&
	        d->action != PLAN_MULTIPART_PUT &&
	        d->action != PLAN_METADATA) ||
	    !has_links(p, key, l))
		return FERRY_OK;
	if (p->hl == NULL && (p->hl = calloc(1, sizeof(*p->hl))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((g = group_of(p->hl, l->dev, l->ino)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (d->action == PLAN_SKIP) {
		if (g->stored == NULL &&
		    (g->stored = strndup(key, keylen)) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		g->storedlen = keylen;
		return FERRY_OK;
	}
	*taken = 1;
	return add_name(g, key, keylen, d->action, l, o);
}

/*
 * Whether the object under key holds the bytes of l, as the manifest
 * recorded what was stored there; its ETag into etag.
 */
static int
holds(struct push *p, const char *key, size_t keylen,
    const struct manifest_local *l, char etag[MANIFEST_ETAG_MAX])
{
	struct manifest_remote rec;

	if (manifest_remote_get(p->run.m, key, keylen, &rec) != FERRY_OK ||
	    !rec.has_hash || rec.size != l->size ||
	    memcmp(rec.hash, l->hash, 16) != 0 || rec.etag[0] == '\0')
		return 0;
	memcpy(etag, rec.etag, MANIFEST_ETAG_MAX);
	return 1;
}

/* Starts the upload of g's first name, when no name holds its bytes. */
static ferry_err
start_lead(struct push *p, struct hl_group *g)
{
	char etag[MANIFEST_ETAG_MAX];
	struct hl_name *n = &g->names[0];
	struct remote_obj o = {0};

	if (g->n == 0 ||
	    (g->stored && holds(p, g->stored, g->storedlen, &n->l, etag)))
		return FERRY_OK;
	free(g->stored);
	g->stored = NULL;
	g->lead = 1;
	o.key = n->key;
	o.keylen = n->keylen;
	o.size = n->size;
	o.etag = n->etag;
	o.last_modified = n->last_modified;
	return xfer_begin(
	    p, n->action, n->key, n->keylen, &n->l, n->listed ? &o : NULL);
}

/* Starts the copies of g's other names from its source. */
static ferry_err
start_copies(struct push *p, struct hl_group *g)
{
	const char *src = g->lead ? g->names[0].key : g->stored;
	size_t srclen = g->lead ? g->names[0].keylen : g->storedlen;
	char marker[REMOTE_HARDLINK_MAX], etag[MANIFEST_ETAG_MAX];
	struct hl_name *n;
	struct xfer *x;
	ferry_err e;
	size_t i;

	if (src == NULL)
		return FERRY_OK;
	if ((e = remote_hardlink_encode(src, srclen, marker, sizeof(marker))) !=
	    FERRY_OK)
		return e;
	for (i = g->lead ? 1 : 0; i < g->n; i++) {
		n = &g->names[i];
		if (holds(p, src, srclen, &n->l, etag)) {
			e = xfer_begin_keycopy(p, n->key, n->keylen, &n->l, src,
			    srclen, etag, marker);
			if (e != FERRY_OK)
				return e;
			continue;
		}
		if ((x = xfer_new(p, n->key, n->keylen, NULL)) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		x->t.local = n->l;
		xfer_fail(x, ferry_fail(FERRY_ENOTFOUND,
		                 "not copied: %s, the first name of its file, "
		                 "was not stored",
		                 src));
	}
	return FERRY_OK;
}

ferry_err
hardlink_run(struct push *p)
{
	struct hardlinks *hl = p->hl;
	ferry_err e = FERRY_OK;
	size_t i;

	if (hl == NULL)
		return FERRY_OK;
	for (i = 0; i < hl->nall && e == FERRY_OK; i++)
		e = start_lead(p, hl->all[i]);
	if (e == FERRY_OK)
		e = push_run(p);
	for (i = 0; i < hl->nall && e == FERRY_OK; i++)
		e = start_copies(p, hl->all[i]);
	if (e == FERRY_OK)
		e = push_run(p);
	return e;
}
