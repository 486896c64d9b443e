/*
 * pullat.c: the listing of a prefix as it was at a past time (--at), from
 * its versions: of each key, the newest version written at or before that
 * time, unless that is a delete marker (the key was absent then).  The
 * versions are listed key by key, newest first; the chosen ones go into a
 * manifest table and are read back from there in key order, as an
 * unsorted bucket's listing is (merge.c), each naming its version.  A
 * pull and a mirror read their source so (merge_source_open()).
 */
#include <stdio.h>
#include <string.h>

#include "sync/merge/merge.h"

struct at_listing {
	struct merge_list *l;
	const struct remote_loc *loc;
	int64_t at;
	size_t plen;
	char done[MANIFEST_KEY_MAX]; /* the key chosen for, or passed over */
	size_t donelen;
	int have_done;
	ferry_err err;
};

/* Whether v's key is the one already decided. */
static int
decided(const struct at_listing *a, const struct remote_version *v)
{
	return a->have_done && a->donelen == v->keylen &&
	       memcmp(a->done, v->key, v->keylen) == 0;
}

/* A remote_version_fn: keeps the first version of a key not after at. */
static int
on_version(const struct remote_version *v, void *arg)
{
	struct at_listing *a = arg;
	struct manifest_remote rec;
	int dup;

	if (v->last_modified > a->at || decided(a, v))
		return 0;
	memcpy(a->done, v->key, v->keylen);
	a->donelen = v->keylen;
	a->have_done = 1;
	if (v->delete_marker || v->keylen <= a->plen)
		return 0;
	memset(&rec, 0, sizeof(rec));
	rec.size = v->size;
	rec.last_modified = v->last_modified;
	snprintf(rec.etag, sizeof(rec.etag), "%s", v->etag);
	if (strlen(v->version_id) >= sizeof(rec.version_id)) {
		a->err = ferry_fail(FERRY_EPARSE,
		    "listing the versions of s3://%s/%s: the version id of "
		    "'%.*s' is %zu bytes, more than %zu",
		    a->loc->bucket, a->loc->prefix,
		    (int)(v->keylen > 200 ? 200 : v->keylen), v->key,
		    strlen(v->version_id), sizeof(rec.version_id) - 1);
		return 1;
	}
	snprintf(rec.version_id, sizeof(rec.version_id), "%s", v->version_id);
	a->err = manifest_listed_put(a->l->m, a->l->table, v->key + a->plen,
	    v->keylen - a->plen, &rec, &dup);
	if (a->err == FERRY_OK && dup)
		a->err = ferry_fail(FERRY_EPARSE,
		    "listing the versions of s3://%s/%s: the server listed "
		    "'%.*s' apart from its other versions: its listing cannot "
		    "be trusted",
		    a->loc->bucket, a->loc->prefix,
		    (int)(v->keylen > 200 ? 200 : v->keylen), v->key);
	return a->err != FERRY_OK;
}

ferry_err
merge_list_open_at(struct merge_list *l, struct manifest *m,
    enum manifest_table t, struct remote *r, const struct remote_loc *loc,
    int64_t at)
{
	struct at_listing a = {0};
	ferry_err e;

	a.l = l;
	a.loc = loc;
	a.at = at;
	a.plen = strlen(loc->prefix);
	l->m = m;
	l->table = t;
	if ((e = manifest_listed_clear(m, t)) != FERRY_OK)
		return e;
	e = remote_list_versions(r, loc->bucket, loc->prefix, on_version, &a);
	if (e == FERRY_ECANCEL && a.err != FERRY_OK)
		e = a.err;
	if (e != FERRY_OK)
		return e;
	return manifest_iter_new(m, t, &l->it);
}
