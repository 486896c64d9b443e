/*
 * merge.c: the two sorted streams of a push, a pull or a mirror, the scan
 * of the tree into the manifest, and the guard on the deletes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "manifest/scan.h"
#include "sync/plan/plan.h"
#include "sync/merge/merge.h"
#include "sync/run/run.h"

ferry_err
merge_next_local(struct merge *mg)
{
	ferry_err e;

	e = manifest_iter_local(mg->it, &mg->lkey, &mg->lkeylen, &mg->lrec);
	mg->lhave = e == FERRY_OK;
	if (e == FERRY_ENOTFOUND)
		return FERRY_OK;
	if (e == FERRY_OK)
		mg->nlocal++;
	return e;
}

/* The next listed object into l->obj, from the server or the table. */
static ferry_err
list_read(struct merge_list *l)
{
	struct remote_obj *o = &l->obj;
	ferry_err e;

	if (l->it == NULL)
		return remote_list_next(l->list, o);
	e = manifest_iter_remote(l->it, &o->key, &o->keylen, &l->rec);
	if (e != FERRY_OK)
		return e;
	o->size = l->rec.size;
	o->etag = l->rec.etag;
	o->last_modified = l->rec.last_modified;
	o->archived = NULL;
	o->version_id = l->rec.version_id[0] ? l->rec.version_id : NULL;
	return FERRY_OK;
}

/*
 * Whether l's object is a link's whose plain twin a pull with --links
 * took (linkpair.h), saying so.  FERRY_ENOMEM when l cannot keep track.
 */
static ferry_err
link_twin(struct merge_list *l, const struct sync_opts *o, int *twin)
{
	char k[TEXT_ESCAPE_SIZE(MANIFEST_KEY_MAX)];
	const struct remote_obj *x = &l->obj;
	size_t n;

	*twin = 0;
	if (!o->links || o->way != SYNC_WAY_PULL)
		return FERRY_OK;
	if (l->pairs == NULL &&
	    (l->pairs = calloc(1, sizeof(*l->pairs))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (!(*twin = link_pairs_shadowed(l->pairs, x->key, x->keylen)))
		return FERRY_OK;
	n = text_escape(k, x->key, x->keylen) - MANIFEST_LINK_EXT_LEN;
	log_warn("'%.*s' and '%s' both name the file '%.*s' with --links: "
	         "the object '%.*s' is made, the link '%s' left out",
	    (int)n, k, k, (int)n, k, (int)n, k, k);
	return FERRY_OK;
}

/* Whether the run's filters keep path: the user's, and what it holds. */
static int
merge_kept(const struct sync_opts *o, const char *path, int is_dir)
{
	return filter_match(o->filter, path, is_dir) &&
	       filter_match(o->hold, path, is_dir);
}

ferry_err
merge_list_next(struct merge_list *l, const struct sync_opts *o,
    int all_in_shard, uint64_t *count)
{
	ferry_err e;
	int twin;

	for (;;) {
		e = list_read(l);
		l->have = e == FERRY_OK;
		if (e == FERRY_ENOTFOUND)
			return FERRY_OK;
		if (e != FERRY_OK)
			return e;
		/* another shard's objects are not this run's to count */
		if (!shard_match(&o->shard, l->obj.key, l->obj.keylen))
			continue;
		if (all_in_shard)
			(*count)++;
		/* excluded objects are neither compared nor deleted */
		if (!merge_kept(o, l->obj.key, 0))
			continue;
		if ((e = link_twin(l, o, &twin)) != FERRY_OK)
			return e;
		if (twin)
			continue;
		if (!all_in_shard)
			(*count)++;
		return FERRY_OK;
	}
}

/*
 * Lists l->list whole into l's table, where a key listed twice meets
 * itself: the server's fault, FERRY_EPARSE.  Memory stays bounded by the
 * listing's pages and LMDB's batches.
 */
static ferry_err
list_into_table(struct merge_list *l, const struct remote_loc *loc)
{
	struct manifest_remote rec;
	struct remote_obj o;
	ferry_err e;
	int dup;

	if ((e = manifest_listed_clear(l->m, l->table)) != FERRY_OK)
		return e;
	while ((e = remote_list_next(l->list, &o)) == FERRY_OK) {
		memset(&rec, 0, sizeof(rec));
		rec.size = o.size;
		rec.last_modified = o.last_modified;
		snprintf(rec.etag, sizeof(rec.etag), "%s", o.etag);
		e = manifest_listed_put(
		    l->m, l->table, o.key, o.keylen, &rec, &dup);
		if (e != FERRY_OK)
			return e;
		if (dup)
			return ferry_fail(FERRY_EPARSE,
			    "listing s3://%s/%s: the server listed '%s%.*s' "
			    "twice: its listing cannot be trusted, so the run "
			    "stops and deletes nothing",
			    loc->bucket, loc->prefix, loc->prefix,
			    (int)(o.keylen > 200 ? 200 : o.keylen), o.key);
	}
	return e == FERRY_ENOTFOUND ? FERRY_OK : e;
}

/* Keys a range of a listing starts with: one page (of 1000) even when
 * the prefix has grown a tenth since */
#define MERGE_RANGE_KEYS 900
/* Up to this many keys (two pages) a listing is not cut. */
#define MERGE_SMALL_KEYS 2000
/* The most ranges a listing starts cut in (their cuts, a key each, are
 * held while it runs; past 59 million keys a range holds more than a
 * page).  The listing makes ranges of them as its reader gets near. */
#define MERGE_RANGES_MAX 65536

/* Where a listing starts cut: keys of the manifest's last run. */
struct merge_hint {
	struct remote_list_hint h;
	char **cuts;
};

/*
 * Picks the cuts of a listing of about count keys into ranges of
 * MERGE_RANGE_KEYS keys (of more past MERGE_RANGES_MAX ranges), each
 * listed in one request: evenly spaced keys of m's table t, read in key
 * order.
 */
static ferry_err
hint_cuts(struct merge_hint *mh, struct manifest *m, enum manifest_table t,
    uint64_t count)
{
	uint64_t ranges = (count + MERGE_RANGE_KEYS - 1) / MERGE_RANGE_KEYS;
	uint64_t i = 0, want;
	struct manifest_iter *it;
	struct manifest_remote rrec;
	struct manifest_local lrec;
	const char *key;
	size_t keylen;
	ferry_err e;

	if (ranges > MERGE_RANGES_MAX)
		ranges = MERGE_RANGES_MAX;
	if (ranges < 2)
		return FERRY_OK; /* no cuts: the listing cuts itself */
	if ((mh->cuts = calloc(ranges, sizeof(*mh->cuts))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	mh->h.cuts = (const char *const *)mh->cuts;
	if ((e = manifest_iter_new(m, t, &it)) != FERRY_OK)
		return FERRY_OK; /* no cuts: the listing cuts itself */
	want = count / ranges;
	for (;;) {
		e = t == MANIFEST_LOCAL
		        ? manifest_iter_local(it, &key, &keylen, &lrec)
		        : manifest_iter_remote(it, &key, &keylen, &rrec);
		if (e != FERRY_OK || mh->h.ncuts + 1 >= ranges)
			break;
		if (++i % want != 0)
			continue;
		if ((mh->cuts[mh->h.ncuts] = strdup(key)) == NULL) {
			e = ferry_fail(FERRY_ENOMEM, "out of memory");
			break;
		}
		mh->h.ncuts++;
	}
	manifest_iter_free(it);
	return e == FERRY_ENOTFOUND ? FERRY_OK : e;
}

/*
 * The hint of a listing of a run of o: its shard's range, and where the
 * keys were, from m's record of the last listing or, before the first, of
 * the scanned tree (m NULL: none).  merge_hint_clear() frees it.
 */
static ferry_err
merge_hint_make(struct merge_hint *mh, const struct sync_opts *o,
    struct manifest *m, unsigned jobs)
{
	uint64_t nlocal = 0, nremote = 0;
	ferry_err e;

	memset(mh, 0, sizeof(*mh));
	shard_range(&o->shard, &mh->h.after, &mh->h.upto);
	if (m == NULL || jobs < 2)
		return FERRY_OK;
	if ((e = manifest_count(m, &nlocal, &nremote)) != FERRY_OK)
		return e;
	/* a listing known small is not cut: it costs no more requests */
	if (nremote + nlocal > 0 && nremote <= MERGE_SMALL_KEYS &&
	    nlocal <= MERGE_SMALL_KEYS) {
		mh->h.no_split = 1;
		return FERRY_OK;
	}
	if (nremote > MERGE_SMALL_KEYS)
		return hint_cuts(mh, m, MANIFEST_REMOTE, nremote);
	return hint_cuts(mh, m, MANIFEST_LOCAL, nlocal);
}

static void
merge_hint_clear(struct merge_hint *mh)
{
	size_t i;

	for (i = 0; i < mh->h.ncuts; i++)
		free(mh->cuts[i]);
	free(mh->cuts);
	mh->cuts = NULL;
	mh->h.ncuts = 0;
}

ferry_err
merge_list_open(struct merge_list *l, const struct sync_opts *o,
    struct manifest *m, enum manifest_table t, struct remote *r,
    const struct remote_loc *loc)
{
	struct merge_hint *mh;
	ferry_err e;

	if ((mh = malloc(sizeof(*mh))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	e = merge_hint_make(mh, o, m, o->jobs);
	if (e == FERRY_OK)
		e = remote_list_open_hint(
		    r, loc->bucket, loc->prefix, &mh->h, &l->list);
	merge_hint_clear(mh);
	free(mh);
	if (e != FERRY_OK || remote_bucket_sorted(loc->bucket))
		return e;
	log_info("s3://%s lists unsorted (a directory bucket): sorting its "
	         "listing in the manifest",
	    loc->bucket);
	l->m = m;
	l->table = t;
	if ((e = list_into_table(l, loc)) != FERRY_OK)
		return e;
	remote_list_free(l->list);
	l->list = NULL;
	return manifest_iter_new(m, t, &l->it);
}

void
merge_list_close(struct merge_list *l)
{
	remote_list_free(l->list);
	manifest_iter_free(l->it);
	free(l->pairs);
	l->pairs = NULL;
	/* the sorted copy is scratch: its pages go back to the manifest */
	if (l->m && manifest_listed_clear(l->m, l->table) != FERRY_OK)
		sync_manifest_warn();
	l->list = NULL;
	l->it = NULL;
	l->m = NULL;
}

ferry_err
merge_open(struct merge *mg, const struct sync_opts *o, struct manifest *m,
    struct remote *r, const struct remote_loc *loc, int all_in_shard)
{
	ferry_err e;

	if ((e = manifest_iter_new(m, MANIFEST_LOCAL, &mg->it)) != FERRY_OK)
		return e;
	if (mg->remote.list != NULL)
		return merge_next_local(mg);
	e = merge_source_open(&mg->remote, o, m, MANIFEST_LISTED, r, loc);
	if (e != FERRY_OK)
		return e;
	e = merge_list_next(&mg->remote, o, all_in_shard, &mg->nremote);
	if (e != FERRY_OK)
		return e;
	return merge_next_local(mg);
}

void
merge_close(struct merge *mg)
{
	merge_list_close(&mg->remote);
	manifest_iter_free(mg->it);
	mg->it = NULL;
}

/* remote_key_cmp() of two heads, one at its end (have 0) after any key. */
static int
head_cmp(int ahave, const char *a, size_t alen, int bhave, const char *b,
    size_t blen)
{
	if (!ahave)
		return bhave;
	if (!bhave)
		return -1;
	return remote_key_cmp(a, alen, b, blen);
}

int
merge_head(struct merge *mg, int *c)
{
	const struct remote_obj *o = &mg->remote.obj;

	mg->done = !mg->lhave && !mg->remote.have;
	*c = head_cmp(mg->lhave, mg->lkey, mg->lkeylen, mg->remote.have, o->key,
	    o->keylen);
	return !mg->done;
}

int
merge_head_lists(struct merge *mg, const struct merge_list *src, int *c)
{
	const struct merge_list *dst = &mg->remote;

	mg->done = !src->have && !dst->have;
	*c = head_cmp(src->have, src->obj.key, src->obj.keylen, dst->have,
	    dst->obj.key, dst->obj.keylen);
	return !mg->done;
}

void
merge_entry_local(const struct manifest_local *l, struct plan_entry *e)
{
	*e = (struct plan_entry){.present = 1,
	    .size = l->size,
	    .mtime_ns = l->mtime_ns,
	    .hash = l->hash,
	    .ctime_ns = l->ctime_ns,
	    .mode = l->mode,
	    .has_owner = l->has_owner,
	    .uid = l->uid,
	    .gid = l->gid};
}

void
merge_entry_listed(const struct remote_obj *o, struct plan_entry *e)
{
	e->present = 1;
	e->size = o->size;
	e->etag = o->etag;
	e->last_modified = o->last_modified;
}

ferry_err
merge_entry_recorded(struct manifest *m, const struct remote_obj *o,
    struct plan_entry *e, struct manifest_remote *rec,
    const struct manifest_remote **recp)
{
	ferry_err err = manifest_remote_get(m, o->key, o->keylen, rec);

	merge_entry_listed(o, e);
	*recp = err == FERRY_OK ? rec : NULL;
	return err == FERRY_ENOTFOUND ? FERRY_OK : err;
}

void
merge_plan_opts(struct plan_opts *po, const struct sync_opts *o)
{
	po->delete = o->delete;
	po->size_only = o->size_only;
	/* a push stores each file's metadata; --size-only compares none */
	po->metadata = !o->size_only;
	po->xattrs = o->xattrs || o->acls;
	po->multipart_threshold = o->multipart_threshold;
	po->copy_threshold = o->copy_threshold;
	po->bounded = o->min_size > 0 || o->max_size < UINT64_MAX ||
	              o->min_age >= 0 || o->max_age >= 0;
	po->min_size = o->min_size;
	po->max_size = o->max_size;
	/* the ages are counted from when the run plans */
	po->newest = o->min_age >= 0 ? time(NULL) - o->min_age : INT64_MAX;
	po->oldest = o->max_age >= 0 ? time(NULL) - o->max_age : INT64_MIN;
}

/* Where the scan reports the files it cannot read. */
struct scan_report {
	struct output *out;
	struct sync_counts *counts;
	uint64_t *errors;
};

static void
report_cb(const char *path, ferry_err e, const char *msg, void *arg)
{
	struct scan_report *r = arg;

	(*r->errors)++;
	r->counts->failed++;
	output_path_error(r->out, path, strlen(path), e, msg);
}

static void
progress_cb(const struct manifest_scan_stats *st, void *arg)
{
	struct scan_report *r = arg;

	output_scan_progress(r->out, st->files, st->bytes, st->hashed);
}

static void
left_out_cb(const char *path, const char *what, void *arg)
{
	struct scan_report *r = arg;

	r->counts->left_out++;
	output_left_out(r->out, path, what);
}

/*
 * The scan filter of a run, opts being its sync_opts: the keys the filter
 * keeps and that are in the run's shard.  Folders are never a shard's:
 * each holds keys of every shard.
 */
static int
scan_wanted(const char *path, int is_dir, void *opts)
{
	const struct sync_opts *o = opts;

	if (is_dir)
		return merge_kept(o, path, 1);
	return merge_kept(o, path, 0) &&
	       shard_match(&o->shard, path, strlen(path));
}

/*
 * The scan filter of a push: the run's (scan_wanted()), which never
 * takes the temporary files a killed pull can leave behind.
 */
static int
push_scan_wanted(const char *path, int is_dir, void *opts)
{
	const char *name = strrchr(path, '/');

	name = name != NULL ? name + 1 : path;
	if (!is_dir && ferry_tmp_name(name, strlen(name)))
		return 0;
	return scan_wanted(path, is_dir, opts);
}

ferry_err
merge_scan(const struct sync_opts *o, struct manifest *m, int rootfd,
    struct output *out, struct sync_counts *c, uint64_t *errors)
{
	struct scan_report rep = {out, c, errors};
	struct manifest_scan_opts so = {0};
	struct manifest_scan_stats st = {0};
	int64_t t0;
	ferry_err e;

	so.checksum = o->checksum;
	so.follow = o->follow_symlinks;
	so.links = o->links;
	so.keep_dirs = o->keep_dirs && o->way == SYNC_WAY_PUSH;
	if (o->filter || o->hold || o->shard.count) {
		so.filter = scan_wanted;
		so.filter_arg = (void *)o;
	}
	so.report = report_cb;
	if (out->progress)
		so.progress = progress_cb;
	/* what a push leaves out; a pull's folder only receives */
	if (o->way == SYNC_WAY_PUSH) {
		so.left_out = left_out_cb;
		so.filter = push_scan_wanted;
		so.filter_arg = (void *)o;
	}
	so.report_arg = &rep;
	output_expect_scan(out, m);
	t0 = now_mono_ns();
	if ((e = manifest_scan(m, rootfd, &so, &st)) != FERRY_OK)
		return e;
	log_info("scanned %llu files, hashed %llu, in %.3f s",
	    (unsigned long long)st.files, (unsigned long long)st.hashed,
	    (double)(now_mono_ns() - t0) / 1e9);
	return manifest_commit(m);
}

const char *
sync_over_max_delete(
    const struct sync_opts *o, uint64_t ndeletes, uint64_t total)
{
	uint64_t limit = o->max_delete_pct >= 0
	                     ? total * (uint64_t)o->max_delete_pct / 100
	                     : o->max_delete;

	if (ndeletes > limit)
		return "more deletes than --max-delete allows (use --force or "
		       "raise --max-delete)";
	return NULL;
}

int
sync_deletes_refused(
    struct output *out, uint64_t n, const char *why, int *fatal)
{
	if (why == NULL)
		return 0;
	ferry_fail(FERRY_EUSAGE, "refusing %llu deletes: %s",
	    (unsigned long long)n, why);
	output_error(out, NULL, 0, FERRY_EUSAGE, ferry_errmsg());
	*fatal = EXIT_ABORTED;
	return 1;
}
