/*
 * push.c: a local tree to a bucket.  Scan the tree into the manifest, then
 * merge-join it with the listing in key order, planning each key and
 * starting its transfer as soon as there is room; deletes run last.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/up/xfer.h"
#include "sync/up/backup.h"

/*
 * A dry run's metadata-only change, of the file l under key whose bytes
 * the object o holds.  A plan (ferry plan) has no such action: it
 * names an upload, which ferry apply runs as one.
 */
static ferry_err
planned_metadata(struct push *p, const struct plan_decision *d, const char *key,
    size_t keylen, const struct manifest_local *l, const struct remote_obj *o)
{
	struct plan_entry src = {.present = 1,
	    .size = l->size,
	    .mtime_ns = l->mtime_ns,
	    .hash = l->hash};
	struct plan_entry dst = {
	    .present = 1, .size = o->size, .etag = o->etag};
	int plan = p->run.o->cmd == SYNC_CMD_PLAN;
	ferry_err e;

	if ((e = sync_run_planned(&p->run, plan ? "upload" : "metadata", key,
	         keylen, l->size, d->reason, &src, &dst)) != FERRY_OK)
		return e;
	if (!plan) {
		p->run.counts.metadata++;
		return FERRY_OK;
	}
	p->run.counts.uploaded++;
	p->run.counts.bytes += l->size;
	return FERRY_OK;
}

/* Acts on the decision for one key. */
static ferry_err
dispatch(struct push *p, const struct plan_decision *d, const char *key,
    size_t keylen, const struct manifest_local *l, const struct remote_obj *o)
{
	struct plan_entry src = {.present = 1}, dst = {0};
	int taken, kept = 0;
	ferry_err e;

	if ((e = hardlink_take(p, d, key, keylen, l, o, &taken)) != FERRY_OK ||
	    taken)
		return e;
	switch (d->action) {
	case PLAN_SKIP:
		if (l)
			p->run.counts.skipped++;
		return FERRY_OK;
	case PLAN_DELETE:
		return push_gather_delete(p, o);
	case PLAN_METADATA:
		if (!p->run.o->dry_run)
			break;
		return planned_metadata(p, d, key, keylen, l, o);
	case PLAN_PUT:
	case PLAN_MULTIPART_PUT:
		if (o == NULL && (e = renames_defer(
		                      p, d, key, keylen, l, &kept)) != FERRY_OK)
			return e;
		if (kept)
			return FERRY_OK;
		if (!p->run.o->dry_run)
			break;
		src.size = l->size;
		src.mtime_ns = l->mtime_ns;
		src.hash = l->hash;
		if (o) {
			dst = (struct plan_entry){
			    .present = 1, .size = o->size, .etag = o->etag};
			backup_planned(p, key, keylen, o->size, o->etag);
		}
		if ((e = sync_run_planned(&p->run, "upload", key, keylen,
		         l->size, d->reason, &src, &dst)) != FERRY_OK)
			return e;
		p->run.counts.uploaded++;
		p->run.counts.bytes += l->size;
		return FERRY_OK;
	default:
		break;
	}
	return xfer_begin(p, d->action, key, keylen, l, o);
}

/*
 * After the merge: starts the next new key held back for --track-renames
 * (rename.h), a copy or its upload; the run's planning is done with the
 * last.
 */
static ferry_err
held_step(struct push *p)
{
	struct rename_new *n;
	struct rename_src *src;
	ferry_err e;

	if (!renames_take(p, &n, &src))
		return FERRY_OK;
	if (src)
		e = renames_start(p, n, src);
	else
		e = dispatch(p, &n->d, n->key, n->keylen, &n->l, NULL);
	p->run.mg.done = p->renames.next >= p->renames.nnew;
	return e;
}

/* Plans the smallest key of the two streams and advances past it. */
static ferry_err
merge_step(struct push *p)
{
	struct merge *mg = &p->run.mg;
	struct plan_decision d;
	int c;
	ferry_err e;

	if (!merge_head(mg, &c))
		return held_step(p);
	if ((e = sync_run_plan(&p->run, c, NULL, plan_push, &d)) != FERRY_OK)
		return e;
	if (c <= 0)
		e = dispatch(p, &d, mg->lkey, mg->lkeylen, &mg->lrec,
		    c == 0 ? &mg->remote.obj : NULL);
	else
		e = dispatch(p, &d, mg->remote.obj.key, mg->remote.obj.keylen,
		    NULL, &mg->remote.obj);
	if (e != FERRY_OK)
		return e;
	return sync_run_advance(&p->run, c, NULL, 1);
}

ferry_err
push_open(struct push *p)
{
	char root[PATH_MAX];
	ferry_err e;

	if ((e = sync_run_root_open(&p->run, p->run.o->src, "source", root)) !=
	        FERRY_OK ||
	    (e = remote_loc_parse(p->run.o->dst, &p->run.loc)) != FERRY_OK)
		return e;
	output_set_local(&p->run.out, p->run.loc.prefix);
	if ((e = sync_run_remote_open(&p->run)) != FERRY_OK)
		return e;
	if ((p->root = strdup(root)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	p->merge_step = merge_step;
	return sync_manifest_open_local(
	    p->run.o, &p->run.loc, p->run.r, root, 1, &p->run.m);
}

/* Scans the tree into the manifest, then starts the merge. */
static ferry_err
start(struct push *p)
{
	ferry_err e;

	e = merge_scan(p->run.o, p->run.m, p->run.rootfd, &p->run.out,
	    &p->run.counts, &p->run.scan_errors);
	if (e != FERRY_OK)
		return e;
	merge_plan_opts(&p->run.popts, p->run.o);
	return merge_open(
	    &p->run.mg, p->run.o, p->run.m, p->run.r, &p->run.loc, 1);
}

int
sync_push(const struct sync_opts *o)
{
	return push_execute(o, push_open, start);
}
