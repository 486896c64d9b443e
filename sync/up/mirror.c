/*
 * mirror.c: a bucket prefix to another.  Both listings are merged in key
 * order; each new or changed object is copied server-side when both sides
 * are one endpoint and account, streamed through bounded memory otherwise.
 * The manifest remembers, per key, the source ETag copied and the
 * destination ETag it produced, so an unchanged rerun only lists.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/xfer.h"
#include "sync/up/backup.h"

/* The two sides hold the same bytes already: remember it. */
static void
record_same(
    struct push *p, const struct remote_obj *src, const struct remote_obj *dst)
{
	struct manifest_remote rec;

	memset(&rec, 0, sizeof(rec));
	rec.size = dst->size;
	snprintf(rec.etag, sizeof(rec.etag), "%s", dst->etag);
	snprintf(rec.src_etag, sizeof(rec.src_etag), "%s", src->etag);
	if (manifest_remote_put(p->run.m, dst->key, dst->keylen, &rec) !=
	    FERRY_OK)
		sync_manifest_warn();
}

/* A planned copy, printed with the destination's full key. */
static ferry_err
dry_run_copy(struct push *p, const struct remote_obj *src,
    const struct remote_obj *dst, const char *why)
{
	struct plan_entry s = {.present = 1,
	    .size = src->size,
	    .etag = src->etag,
	    .version_id = src->version_id};
	struct plan_entry d = {.present = dst != NULL,
	    .size = dst ? dst->size : 0,
	    .etag = dst ? dst->etag : NULL};

	if (dst)
		backup_planned(p, dst->key, dst->keylen, dst->size, dst->etag);
	p->run.counts.copied++;
	p->run.counts.bytes += src->size;
	return sync_run_planned(
	    &p->run, "copy", src->key, src->keylen, src->size, why, &s, &d);
}

static ferry_err
dispatch(struct push *p, const struct plan_decision *d,
    const struct remote_obj *src, const struct remote_obj *dst)
{
	switch (d->action) {
	case PLAN_DELETE:
		return push_gather_delete(p, dst);
	case PLAN_CHECK:
		record_same(p, src, dst);
		/* FALLTHROUGH */
	case PLAN_SKIP:
		if (src)
			p->run.counts.skipped++;
		return FERRY_OK;
	default:
		break;
	}
	if (p->run.o->dry_run)
		return dry_run_copy(p, src, dst, d->reason);
	return xfer_begin_copy(p, d->action, src, dst);
}

/* Plans the smallest key of the two listings and advances past it. */
static ferry_err
merge_step(struct push *p)
{
	const struct remote_obj *so = &p->src.obj, *ro = &p->run.mg.remote.obj;
	struct plan_decision d;
	int c;
	ferry_err e;

	if (!merge_head_lists(&p->run.mg, &p->src, &c))
		return FERRY_OK;
	if ((e = sync_run_plan(&p->run, c, &p->src, plan_mirror, &d)) !=
	    FERRY_OK)
		return e;
	e = dispatch(p, &d, c <= 0 ? so : NULL, c >= 0 ? ro : NULL);
	if (e != FERRY_OK)
		return e;
	return sync_run_advance(&p->run, c, &p->src, 1);
}

static ferry_err
open_manifest(struct push *p)
{
	char src[4096], dst[4096];

	sync_side_name(&p->sloc, p->sr, src, sizeof(src));
	sync_side_name(&p->run.loc, p->run.r, dst, sizeof(dst));
	return sync_manifest_open(p->run.o, src, dst, &p->run.m);
}

ferry_err
mirror_open(struct push *p)
{
	const struct sync_opts *o = p->run.o;
	ferry_err e;

	if ((e = remote_loc_parse(o->src, &p->sloc)) != FERRY_OK ||
	    (e = remote_loc_parse(o->dst, &p->run.loc)) != FERRY_OK ||
	    (e = sync_run_remote_open(&p->run)) != FERRY_OK ||
	    (e = remote_new_sharing(&o->src_remote, p->run.r, &p->sr)) !=
	        FERRY_OK)
		return e;
	remote_on_retry(p->sr, output_retry, &p->run.out);
	if (strcmp(p->sloc.bucket, p->run.loc.bucket) == 0 &&
	    remote_same_account(p->run.r, p->sr) &&
	    (strncmp(p->sloc.prefix, p->run.loc.prefix,
	         strlen(p->sloc.prefix)) == 0 ||
	        strncmp(p->run.loc.prefix, p->sloc.prefix,
	            strlen(p->run.loc.prefix)) == 0))
		return ferry_fail(FERRY_EUSAGE,
		    "the source and destination prefixes overlap");
	p->source = remote_same_account(p->run.r, p->sr) ? XS_COPY : XS_STREAM;
	log_info("mirror by %s",
	    p->source == XS_COPY ? "server-side copy" : "streaming");
	p->merge_step = merge_step;
	if ((e = open_manifest(p)) != FERRY_OK ||
	    p->run.o->source_inventory == NULL)
		return e;
	/* read while opening, as a pull does: an inventory ferry cannot use
	 * is a usage error (2), a damaged one an aborted run (3) */
	return merge_source_open(
	    &p->src, p->run.o, p->run.m, MANIFEST_LISTED_SRC, p->sr, &p->sloc);
}

static ferry_err
start(struct push *p)
{
	ferry_err e;

	merge_plan_opts(&p->run.popts, p->run.o);
	if ((p->run.o->source_inventory == NULL &&
	        (e = merge_source_open(&p->src, p->run.o, p->run.m,
	             MANIFEST_LISTED_SRC, p->sr, &p->sloc)) != FERRY_OK) ||
	    (e = merge_list_open(&p->run.mg.remote, p->run.o, p->run.m,
	         MANIFEST_LISTED, p->run.r, &p->run.loc)) != FERRY_OK)
		return e;
	merge_plan_inventory(&p->run.popts, &p->src);
	/* the first object of each listing */
	return sync_run_advance(&p->run, 0, &p->src, 1);
}

int
sync_mirror(const struct sync_opts *o)
{
	return push_execute(o, mirror_open, start);
}
