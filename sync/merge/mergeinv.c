/*
 * mergeinv.c: the source of a pull or a mirror read from an S3 Inventory
 * (--source-inventory) instead of listed.  Its rows come in no order, so
 * they go into the manifest table an unsorted listing takes, and are
 * merged from there in key order; the source itself is never listed.
 */
#include <stdio.h>
#include <string.h>

#include "remote/inventory.h"
#include "sync/merge/merge.h"

/* Where rows go, and what their messages name. */
struct inv_sink {
	struct merge_list *l;
	const char *url;
};

/* One object of the inventory into the table; a repeated key ends it. */
static ferry_err
put_row(const struct remote_obj *o, void *arg)
{
	struct inv_sink *s = arg;
	struct manifest_remote rec;
	ferry_err e;
	int dup;

	memset(&rec, 0, sizeof(rec));
	rec.size = o->size;
	rec.last_modified = o->last_modified;
	snprintf(rec.etag, sizeof(rec.etag), "%s", o->etag);
	e = manifest_listed_put(
	    s->l->m, s->l->table, o->key, o->keylen, &rec, &dup);
	if (e == FERRY_OK && dup)
		return ferry_fail(FERRY_EPARSE,
		    "the inventory %s lists '%.*s' twice: it cannot be "
		    "trusted, so the run stops and deletes nothing",
		    s->url, (int)(o->keylen > 200 ? 200 : o->keylen), o->key);
	return e;
}

ferry_err
merge_source_open(struct merge_list *l, const struct sync_opts *o,
    struct manifest *m, enum manifest_table t, struct remote *r,
    const struct remote_loc *loc)
{
	struct inv_sink s = {l, o->source_inventory};
	ferry_err e;

	/* --at: the source as it was then, from its versions */
	if (o->at_given && sync_way_from_bucket(o->way))
		return merge_list_open_at(l, m, t, r, loc, o->at);
	/* a push's listing is its destination's */
	if (o->source_inventory == NULL || !sync_way_from_bucket(o->way))
		return merge_list_open(l, o, m, t, r, loc);
	l->m = m;
	l->table = t;
	if ((e = manifest_listed_clear(m, t)) != FERRY_OK)
		return e;
	/* its data files read as many at once as listing ranges */
	e = remote_inventory_read(r, o->source_inventory, loc->bucket,
	    loc->prefix, o->jobs_fixed ? o->jobs : REMOTE_LIST_RANGES_START,
	    put_row, &s, &l->inventory_time);
	if (e != FERRY_OK)
		return e;
	return manifest_iter_new(m, t, &l->it);
}

void
merge_plan_inventory(struct plan_opts *po, const struct merge_list *src)
{
	po->inventory_time = src->inventory_time;
}
