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

#include "sync/push.h"

static void
report_cb(const char *path, ferry_err e, const char *msg, void *arg)
{
	struct push *p = arg;

	p->scan_errors++;
	p->counts.failed++;
	output_error(&p->out, path, strlen(path), e, msg);
}

static ferry_err
next_local(struct push *p)
{
	ferry_err e;

	e = manifest_iter_local(p->it, &p->lkey, &p->lkeylen, &p->lrec);
	p->lhave = e == FERRY_OK;
	if (e == FERRY_ENOTFOUND)
		return FERRY_OK;
	if (e == FERRY_OK)
		p->nlocal++;
	return e;
}

/* Acts on the decision for one key. */
static ferry_err
dispatch(struct push *p, const struct plan_decision *d, const char *key,
    size_t keylen, const struct manifest_local *l, const struct remote_obj *o)
{
	size_t plen = strlen(p->loc.prefix);
	struct plan_entry src = {.present = 1}, dst = {0};
	char *full;

	switch (d->action) {
	case PLAN_SKIP:
		if (l)
			p->counts.skipped++;
		return FERRY_OK;
	case PLAN_DELETE:
		return push_gather_delete(p, o);
	case PLAN_PUT:
	case PLAN_MULTIPART_PUT:
		if (!p->o->dry_run)
			break;
		if ((full = malloc(plen + keylen + 1)) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		memcpy(full, p->loc.prefix, plen);
		memcpy(full + plen, key, keylen);
		src.size = l->size;
		src.mtime_ns = l->mtime_ns;
		src.hash = l->hash;
		if (o)
			dst = (struct plan_entry){
			    .present = 1, .size = o->size, .etag = o->etag};
		output_planned(&p->out, "upload", full, plen + keylen, l->size,
		    d->reason, &src, &dst);
		free(full);
		p->counts.uploaded++;
		p->counts.bytes += l->size;
		return FERRY_OK;
	default:
		break;
	}
	return xfer_begin(p, d->action, key, keylen, l, o);
}

/* Plans the smallest key of the two streams and advances past it. */
static ferry_err
merge_step(struct push *p)
{
	struct plan_entry src = {0}, dst = {0};
	struct manifest_remote rec;
	struct plan_decision d;
	const struct manifest_remote *recp = NULL;
	int c;
	ferry_err e;

	if (!p->lhave && !p->rhave) {
		p->merge_done = 1;
		return FERRY_OK;
	}
	if (!p->lhave)
		c = 1;
	else if (!p->rhave)
		c = -1;
	else
		c = sync_key_cmp(
		    p->lkey, p->lkeylen, p->robj.key, p->robj.keylen);
	if (c <= 0) {
		src.present = 1;
		src.size = p->lrec.size;
		src.mtime_ns = p->lrec.mtime_ns;
		src.hash = p->lrec.hash;
	}
	if (c >= 0) {
		dst.present = 1;
		dst.size = p->robj.size;
		dst.etag = p->robj.etag;
		dst.last_modified = p->robj.last_modified;
		e = manifest_remote_get(
		    p->m, p->robj.key, p->robj.keylen, &rec);
		if (e == FERRY_OK)
			recp = &rec;
		else if (e != FERRY_ENOTFOUND)
			return e;
	}
	plan_push(&src, &dst, recp, &p->popts, &d);
	if (c <= 0)
		e = dispatch(p, &d, p->lkey, p->lkeylen, &p->lrec,
		    c == 0 ? &p->robj : NULL);
	else
		e = dispatch(
		    p, &d, p->robj.key, p->robj.keylen, NULL, &p->robj);
	if (e != FERRY_OK)
		return e;
	if (c <= 0 && (e = next_local(p)) != FERRY_OK)
		return e;
	if (c >= 0 && (e = push_next_remote(p)) != FERRY_OK) {
		p->list_err = e;
		return e;
	}
	return FERRY_OK;
}

/* The manifest identity of the pair: the real local path and the URL. */
static ferry_err
open_manifest(struct push *p, const char *root)
{
	char dst[4096];

	snprintf(dst, sizeof(dst), "s3://%s/%s @ %s", p->loc.bucket,
	    p->loc.prefix, remote_endpoint(p->r));
	return sync_manifest_open(p->o, root, dst, &p->m);
}

ferry_err
push_open(struct push *p)
{
	char root[PATH_MAX];
	ferry_err e;

	if (realpath(p->o->src, root) == NULL)
		return ferry_fail(FERRY_EUSAGE, "source folder '%s': %s",
		    p->o->src, strerror(errno));
	p->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->rootfd < 0)
		return ferry_fail(FERRY_EUSAGE, "source folder '%s': %s",
		    p->o->src, strerror(errno));
	if ((e = remote_loc_parse(p->o->dst, &p->loc)) != FERRY_OK)
		return e;
	if ((e = remote_new(&p->o->remote, &p->r)) != FERRY_OK)
		return e;
	if ((p->root = strdup(root)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	p->merge_step = merge_step;
	return open_manifest(p, root);
}

static ferry_err
scan(struct push *p)
{
	struct manifest_scan_opts so = {0};
	struct manifest_scan_stats st = {0};
	ferry_err e;

	so.checksum = p->o->checksum;
	if (p->o->filter || p->o->shard.count) {
		so.filter = sync_scan_wanted;
		so.filter_arg = (void *)p->o;
	}
	so.report = report_cb;
	so.report_arg = p;
	if ((e = manifest_scan(p->m, p->rootfd, &so, &st)) != FERRY_OK)
		return e;
	log_info("scanned %llu files, hashed %llu",
	    (unsigned long long)st.files, (unsigned long long)st.hashed);
	return manifest_commit(p->m);
}

static ferry_err
start_merge(struct push *p)
{
	ferry_err e;

	p->popts.delete = p->o->delete;
	p->popts.size_only = p->o->size_only;
	p->popts.multipart_threshold = p->o->multipart_threshold;
	if ((e = manifest_iter_new(p->m, MANIFEST_LOCAL, &p->it)) != FERRY_OK)
		return e;
	if ((e = remote_list_open(
	         p->r, p->loc.bucket, p->loc.prefix, &p->list)) != FERRY_OK)
		return e;
	if ((e = push_next_remote(p)) != FERRY_OK) {
		p->list_err = e;
		return e;
	}
	return next_local(p);
}

/* Scans the tree into the manifest, then starts the merge. */
static ferry_err
start(struct push *p)
{
	ferry_err e;

	if ((e = scan(p)) != FERRY_OK)
		return e;
	return start_merge(p);
}

int
sync_push(const struct sync_opts *o)
{
	return push_execute(o, push_open, start);
}
