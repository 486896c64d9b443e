/*
 * pulldefer.c: a pull -H that downloads the bytes of a linked file once.
 * A listed object of at least PULL_DEFER_MIN bytes whose size and ETag
 * another object earlier in the listing has (a server-side copy keeps
 * them) is not downloaded during the merge: once the merge's downloads
 * have landed, it is asked with a HEAD, and when its hard link marker
 * names a key whose file is here with the same size, ETag and bytes, it
 * is made a link to that file with no GET; any other answer (no marker,
 * another key, not found, the object changed) downloads it as usual, in
 * a second round of the engine.
 *
 * Bounds: the (size, ETag) pairs seen are kept as 64-bit fingerprints,
 * at most PULL_DEFER_SEEN of them (16 MiB); the deferred keys at most
 * PULL_DEFER_KEYS.  Past either, an object is downloaded as without -H's
 * deferral: more bytes, never a wrong file.  A fingerprint collision
 * costs one HEAD, never a link: the marker's key is checked in full.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/down/down.h"

#define PULL_DEFER_SEEN (1u << 20)
#define PULL_DEFER_KEYS (1u << 16)

/* A listed object whose download waits for the merge's end. */
struct pull_deferred {
	struct dl_held h;
	enum plan_action action;
	int has_local;
	struct manifest_local local;
};

struct pull_defer {
	uint64_t *seen; /* open addressing; 0: free */
	size_t nseen;
	struct pull_deferred *keys;
	size_t nkeys, capkeys;
	size_t next; /* the second round: the next key to begin */
	int done;    /* the second round: all begun */
};

/* FNV-1a of size and etag, never 0. */
static uint64_t
fingerprint(uint64_t size, const char *etag)
{
	uint64_t h = 14695981039346656037ULL;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (size >> (8 * i)) & 0xff;
		h *= 1099511628211ULL;
	}
	for (; *etag; etag++) {
		h ^= (unsigned char)*etag;
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

void
pull_defer_free(struct pull *p)
{
	struct pull_defer *df = p->defer;
	size_t i;

	if (df == NULL)
		return;
	for (i = 0; i < df->nkeys; i++) {
		free(df->keys[i].h.key);
		free(df->keys[i].h.etag);
	}
	free(df->keys);
	free(df->seen);
	free(df);
	p->defer = NULL;
}

/* Non-zero when fp was seen before; notes it otherwise, room allowing. */
static int
seen_before(struct pull_defer *df, uint64_t fp)
{
	size_t i = fp & (2 * PULL_DEFER_SEEN - 1);

	while (df->seen[i] != 0) {
		if (df->seen[i] == fp)
			return 1;
		i = (i + 1) & (2 * PULL_DEFER_SEEN - 1);
	}
	if (df->nseen < PULL_DEFER_SEEN) {
		df->seen[i] = fp;
		df->nseen++;
	}
	return 0;
}

static int
keep(struct pull_defer *df, const struct remote_obj *o, enum plan_action a,
    const struct manifest_local *local)
{
	struct pull_deferred *k;

	if (df->nkeys == PULL_DEFER_KEYS)
		return 0;
	if (df->nkeys == df->capkeys) {
		size_t cap = df->capkeys ? df->capkeys * 2 : 64;
		if ((k = realloc(df->keys, cap * sizeof(*k))) == NULL)
			return 0;
		df->keys = k;
		df->capkeys = cap;
	}
	k = &df->keys[df->nkeys];
	memset(k, 0, sizeof(*k));
	k->h.key = strndup(o->key, o->keylen);
	k->h.etag = strdup(o->etag);
	if (k->h.key == NULL || k->h.etag == NULL) {
		free(k->h.key);
		free(k->h.etag);
		return 0;
	}
	k->h.keylen = o->keylen;
	k->h.size = o->size;
	k->h.last_modified = o->last_modified;
	k->action = a;
	if (local) {
		k->has_local = 1;
		k->local = *local;
	}
	df->nkeys++;
	return 1;
}

int
pull_defer_listed(struct pull *p, const struct remote_obj *o,
    enum plan_action a, const struct manifest_local *local)
{
	struct pull_defer *df = p->defer;
	int dup;

	if (!p->run.o->hard_links || p->run.o->dry_run ||
	    o->version_id != NULL || o->archived != NULL ||
	    o->size < PULL_DEFER_MIN || o->etag == NULL || o->etag[0] == '\0')
		return 0;
	/* --backup-dir: a file replaced is kept aside by its download's
	 * install (publish()), which a link made here would pass by */
	if (local != NULL && p->run.o->backup_dir != NULL)
		return 0;
	if (df == NULL) {
		if ((df = calloc(1, sizeof(*df))) == NULL ||
		    (df->seen = calloc(
		         2 * PULL_DEFER_SEEN, sizeof(*df->seen))) == NULL) {
			free(df);
			return 0;
		}
		p->defer = df;
	}
	dup = seen_before(df, fingerprint(o->size, o->etag));
	if (!dup || (a != PLAN_GET && a != PLAN_RANGED_GET))
		return 0;
	return keep(df, o, a, local);
}

/*
 * The content hash of target's file when the manifest holds it as the
 * object k's bytes (same size and ETag) and the file as written since.
 */
static int
target_holds(struct pull *p, const struct pull_deferred *k, const char *target,
    size_t tlen, struct manifest_remote *rec)
{
	if (manifest_remote_get(p->run.m, target, tlen, rec) != FERRY_OK)
		return 0;
	return rec->has_hash && rec->size == k->h.size &&
	       strcmp(rec->etag, k->h.etag) == 0;
}

/*
 * Asks k's object with a HEAD; makes it a link to the file its marker
 * names when that file holds its bytes.  Non-zero when linked.
 */
static int
link_without_get(struct pull *p, struct pull_deferred *k)
{
	char target[MANIFEST_KEY_MAX + 1];
	const struct remote_resp *s;
	struct manifest_remote rec;
	struct remote_req *q;
	char *full;
	size_t tlen;
	int linked = 0;

	if ((full = remote_key_join(
	         p->run.loc.prefix, k->h.key, k->h.keylen, NULL)) == NULL)
		return 0;
	if (remote_head_object(p->run.r, p->run.loc.bucket, full, strlen(full),
	        NULL, &q) != FERRY_OK) {
		free(full);
		return 0;
	}
	free(full);
	if (remote_perform(p->run.r, q, 0) != FERRY_OK)
		goto out;
	s = remote_req_resp(q);
	if (s->meta_hardlink[0] == '\0' || strcmp(s->etag, k->h.etag) != 0 ||
	    !s->has_content_length || s->content_length != k->h.size ||
	    remote_hardlink_decode(
	        s->meta_hardlink, target, sizeof(target), &tlen) != FERRY_OK ||
	    (tlen == k->h.keylen && memcmp(target, k->h.key, tlen) == 0) ||
	    pull_key_refused(target, tlen, 1) != NULL ||
	    !target_holds(p, k, target, tlen, &rec))
		goto out;
	if (pull_hardlink_make(
	        p, k->h.key, k->h.keylen, target, tlen, rec.hash) != 0)
		goto out;
	rec.last_modified = k->h.last_modified;
	if (manifest_remote_put(p->run.m, k->h.key, k->h.keylen, &rec) !=
	    FERRY_OK)
		sync_manifest_warn();
	linked = 1;
out:
	remote_req_free(q);
	return linked;
}

/* The second round's planner: begins the next deferred download. */
static ferry_err
begin_next(void *arg)
{
	struct pull *p = arg;
	struct pull_defer *df = p->defer;
	struct pull_deferred *k;

	while (df->next < df->nkeys && df->keys[df->next].h.key == NULL)
		df->next++;
	if (df->next == df->nkeys) {
		df->done = 1;
		return FERRY_OK;
	}
	k = &df->keys[df->next++];
	return dl_begin_held(
	    p, k->action, &k->h, k->has_local ? &k->local : NULL);
}

ferry_err
pull_defer_run(struct pull *p)
{
	struct pull_defer *df = p->defer;
	size_t i;

	if (df == NULL || df->nkeys == 0)
		return FERRY_OK;
	for (i = 0; i < df->nkeys && !ferry_interrupted; i++) {
		if (!link_without_get(p, &df->keys[i]))
			continue;
		free(df->keys[i].h.key);
		df->keys[i].h.key = NULL;
	}
	df->next = 0;
	return dl_round_run(p, &df->done, begin_next);
}
