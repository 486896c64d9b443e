/*
 * apply.c: "ferry apply PLAN": the actions of a plan file, run through
 * the engine of a push, a pull or a mirror in place of its merge, each
 * only while what it depends on is as the plan saw it.  Nothing is listed
 * or scanned.  A local source is checked by a stat, and by its content
 * hash when the plan has one; a source object by its ETag, compared by
 * the server (a condition on the GET, or on the copy's source), and read
 * at the version the plan names (a plan made --at).  A
 * destination object is guarded by a condition on a single PUT (absent,
 * or with the planned ETag), and by a HEAD before a multipart upload, a
 * copy or a delete, which the test gateway takes no condition for.  An
 * action whose result is already in place (the plan applied before)
 * counts as done.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/cmd/cmd.h"
#include "sync/plan/plan.h"
#include "sync/down/down.h"
#include "sync/up/up.h"

/* What a HEAD said of a destination object. */
struct head {
	ferry_err e; /* FERRY_OK, FERRY_ENOTFOUND or the failure */
	uint64_t size;
	char etag[REMOTE_ETAG_MAX + 1]; /* as struct remote_resp holds it */
	char meta_hash[40];
};

static void
head_object(
    struct remote *r, const char *bucket, const char *key, struct head *h)
{
	struct remote_req *q;
	const struct remote_resp *s;

	memset(h, 0, sizeof(*h));
	h->e = remote_head_object(r, bucket, key, strlen(key), NULL, &q);
	if (h->e != FERRY_OK)
		return;
	if ((h->e = remote_perform(r, q, 0)) == FERRY_OK) {
		s = remote_req_resp(q);
		h->size = s->content_length;
		snprintf(h->etag, sizeof(h->etag), "%s", s->etag);
		snprintf(
		    h->meta_hash, sizeof(h->meta_hash), "%s", s->meta_hash);
	}
	remote_req_free(q);
}

/* The object is as the plan saw it: absent, or with the planned ETag. */
static int
head_as_planned(const struct head *h, const struct planfile_side *d)
{
	if (!d->present)
		return h->e == FERRY_ENOTFOUND;
	return h->e == FERRY_OK && strcmp(h->etag, d->etag) == 0;
}

/* Records why a destination object is not as planned. */
static ferry_err
dst_changed(const struct head *h, const struct planfile_side *d)
{
	if (h->e != FERRY_OK && h->e != FERRY_ENOTFOUND)
		return h->e;
	return ferry_fail(FERRY_ECHANGED,
	    "the destination changed since the plan (it is %s, the plan saw "
	    "%s): not written",
	    h->e == FERRY_OK ? h->etag : "absent",
	    d->present ? d->etag : "it absent");
}

/* Reports an action refused, with the detail recorded by ferry_fail(). */
static void
refuse(struct output *out, struct sync_counts *c, const char *key, ferry_err e)
{
	output_error(out, key, strlen(key), e, ferry_errmsg());
	c->failed++;
}

/*
 * The same for an action on a local file: key is its object key when
 * prefixed, else its path in the folder (a pull's delete).
 */
static void
refuse_local(struct output *out, struct sync_counts *c, const char *key,
    int prefixed, ferry_err e)
{
	if (prefixed)
		output_file_error(out, key, strlen(key), e, ferry_errmsg());
	else
		output_path_error(out, key, strlen(key), e, ferry_errmsg());
	c->failed++;
}

static void
in_place(struct sync_counts *c, const char *key)
{
	log_info("%s: already in place", key);
	c->skipped++;
}

/*
 * The XXH3-128 of the open file fd (stat st) at rel: the manifest's when
 * its record has the same stat, else read.
 */
static ferry_err
file_hash(struct manifest *m, const char *rel, size_t rellen, int fd,
    const struct stat *st, uint8_t hash[16])
{
	struct manifest_local rec;
	uint64_t n;

	if (manifest_local_get(m, rel, rellen, &rec) == FERRY_OK &&
	    stat_matches_scan(st, &rec) && rec.ino == (uint64_t)st->st_ino &&
	    rec.dev == (uint64_t)st->st_dev) {
		memcpy(hash, rec.hash, 16);
		return FERRY_OK;
	}
	return manifest_hash_fd(fd, hash, NULL, &n);
}

/*
 * Checks the file at rel against the plan's source s (size, mtime, and
 * content when the plan has its hash) and fills *now with what it is.
 * It is opened where the plan's scan found it, and when the manifest
 * keeps that scan's record (the plan's size and mtime), only while it has
 * the record's inode.
 */
static ferry_err
source_as_planned(const struct push *p, const char *rel, size_t rellen,
    const struct planfile_side *s, struct manifest_local *now)
{
	struct manifest_local rec;
	struct stat st;
	ferry_err e = FERRY_OK;
	int fd, scanned;

	memset(now, 0, sizeof(*now));
	scanned = manifest_local_get(p->run.m, rel, rellen, &rec) == FERRY_OK &&
	          rec.size == s->size && rec.mtime_ns == s->mtime_ns;
	e = manifest_local_open(p->run.rootfd, rel, scanned ? &rec : NULL,
	    p->run.o->follow_symlinks, &fd, &st);
	if (e != FERRY_OK)
		return e;
	manifest_local_from_stat(now, &st);
	if (now->size != s->size || now->mtime_ns != s->mtime_ns)
		e = ferry_fail(FERRY_ECHANGED,
		    "the file changed since the plan (size or mtime): "
		    "not uploaded");
	else
		e = file_hash(p->run.m, rel, rellen, fd, &st, now->hash);
	close(fd);
	if (e == FERRY_OK && s->has_hash && memcmp(now->hash, s->hash, 16) != 0)
		e = ferry_fail(FERRY_ECHANGED,
		    "the file's content changed since the plan: not uploaded");
	return e;
}

/* The object holds the file's bytes, by its stored content hash. */
static int
holds_file(const struct head *h, const struct manifest_local *now)
{
	char hex[33];

	hex_encode(now->hash, 16, hex);
	return h->e == FERRY_OK && h->size == now->size &&
	       strcasecmp(h->meta_hash, hex) == 0;
}

/* The manifest says these bytes were written under the key already. */
static int
written_before(struct manifest *m, const char *rel, size_t rellen,
    const struct manifest_local *now)
{
	struct manifest_remote rec;

	return manifest_remote_get(m, rel, rellen, &rec) == FERRY_OK &&
	       rec.has_hash && rec.size == now->size &&
	       memcmp(rec.hash, now->hash, 16) == 0;
}

static void
record_in_place(struct push *p, const char *rel, size_t rellen,
    const struct head *h, const struct manifest_local *now)
{
	struct manifest_remote rec;

	memset(&rec, 0, sizeof(rec));
	rec.size = now->size;
	rec.mtime_ns = now->mtime_ns;
	memcpy(rec.hash, now->hash, 16);
	rec.has_hash = 1;
	snprintf(rec.etag, sizeof(rec.etag), "%.*s", (int)sizeof(rec.etag) - 1,
	    h->etag);
	if (manifest_remote_put(p->run.m, rel, rellen, &rec) != FERRY_OK)
		sync_manifest_warn();
}

static ferry_err
apply_upload(struct push *p, const struct planfile_line *l, const char *rel,
    size_t rellen)
{
	struct remote_obj dst = {0};
	struct manifest_local now;
	struct head h;
	int multipart;
	ferry_err e;

	e = source_as_planned(p, rel, rellen, &l->src, &now);
	if (e != FERRY_OK) {
		refuse_local(&p->run.out, &p->run.counts, l->key, 1, e);
		return FERRY_OK;
	}
	multipart = now.size >= p->run.o->multipart_threshold;
	/* a single PUT carries its condition, where the server takes it;
	 * the rest look first */
	if (multipart || written_before(p->run.m, rel, rellen, &now) ||
	    !remote_cond_usable(p->run.r, REMOTE_COND_PUT)) {
		head_object(p->run.r, p->run.loc.bucket, l->key, &h);
		if (holds_file(&h, &now)) {
			record_in_place(p, rel, rellen, &h, &now);
			in_place(&p->run.counts, l->key);
			return FERRY_OK;
		}
		if (!head_as_planned(&h, &l->dst)) {
			refuse_local(&p->run.out, &p->run.counts, l->key, 1,
			    dst_changed(&h, &l->dst));
			return FERRY_OK;
		}
	}
	dst.size = l->dst.size;
	dst.etag = l->dst.etag;
	return xfer_begin(p, multipart ? PLAN_MULTIPART_PUT : PLAN_PUT, rel,
	    rellen, &now, l->dst.present ? &dst : NULL);
}

static ferry_err
apply_copy(struct push *p, const struct planfile_line *l, const char *rel,
    size_t rellen)
{
	struct remote_obj src = {0}, dst = {0};
	struct manifest_remote rec;
	struct head h;

	head_object(p->run.r, p->run.loc.bucket, l->key, &h);
	if (h.e == FERRY_OK &&
	    manifest_remote_get(p->run.m, rel, rellen, &rec) == FERRY_OK &&
	    strcmp(rec.src_etag, l->src.etag) == 0 &&
	    strcmp(rec.etag, h.etag) == 0) {
		in_place(&p->run.counts, l->key);
		return FERRY_OK;
	}
	if (!head_as_planned(&h, &l->dst)) {
		refuse(&p->run.out, &p->run.counts, l->key,
		    dst_changed(&h, &l->dst));
		return FERRY_OK;
	}
	src.key = rel;
	src.keylen = rellen;
	src.size = l->src.size;
	src.etag = l->src.etag;
	src.version_id = l->src.version_id[0] ? l->src.version_id : NULL;
	dst.size = l->dst.size;
	dst.etag = l->dst.etag;
	return xfer_begin_copy(p,
	    plan_copy_kind(src.size, p->run.o->copy_threshold), &src,
	    l->dst.present ? &dst : NULL);
}

/*
 * Where the server refused the If-Match of l's DELETE (q412: its 412, to
 * be checked; NULL: not implemented): a HEAD under that condition, then,
 * the object as planned, a DELETE without it.
 */
static ferry_err
delete_headed(struct push *p, const struct planfile_line *l,
    const struct remote_req *q412)
{
	struct remote_req *q;
	ferry_err e;

	if ((e = remote_head_object(p->run.r, p->run.loc.bucket, l->key,
	         l->keylen, l->dst.etag, &q)) != FERRY_OK)
		return e;
	e = remote_perform(p->run.r, q, 0);
	if ((e == FERRY_OK &&
	        strcmp(remote_req_resp(q)->etag, l->dst.etag) != 0) ||
	    (e != FERRY_OK &&
	        (remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED)))
		e = ferry_fail(FERRY_ECHANGED,
		    "replaced since the plan (its ETag is no longer %s): not "
		    "deleted",
		    l->dst.etag);
	remote_req_free(q);
	if (e != FERRY_OK)
		return e;
	if (q412)
		remote_cond_contradicted(p->run.r, REMOTE_COND_DELETE_IF_MATCH);
	if ((e = remote_delete_object(p->run.r, p->run.loc.bucket, l->key,
	         l->keylen, NULL, &q)) != FERRY_OK)
		return e;
	e = remote_perform(p->run.r, q, 0);
	remote_req_free(q);
	return e;
}

/*
 * The DELETE of l's object, which a HEAD has just found as planned: on
 * the planned ETag, which AWS honours (412 when the object changed in
 * between) and the test gateway ignores.  Where the server refuses that
 * condition, or answers 412 while a HEAD under it matches (Swift compares
 * another ETag for a multipart object), without it, just after the HEAD
 * (delete_headed()).
 */
static ferry_err
delete_planned(struct push *p, const struct planfile_line *l)
{
	struct remote *r = p->run.r;
	struct remote_req *q;
	ferry_err e;
	int refused;

	if ((e = remote_delete_object(r, p->run.loc.bucket, l->key, l->keylen,
	         remote_cond_usable(r, REMOTE_COND_DELETE_IF_MATCH)
	             ? l->dst.etag
	             : NULL,
	         &q)) != FERRY_OK)
		return e;
	e = remote_perform(r, q, 0);
	refused = e != FERRY_OK &&
	          remote_cond_refused(q, REMOTE_COND_DELETE_IF_MATCH);
	if (refused || (e != FERRY_OK && (remote_req_resp(q)->outcome ==
	                                     REMOTE_PRECONDITION_FAILED)))
		e = delete_headed(p, l, refused ? NULL : q);
	remote_req_free(q);
	return e;
}

/* A delete of an object, only while it has the planned ETag. */
static ferry_err
apply_delete(struct push *p, const struct planfile_line *l, const char *rel,
    size_t rellen)
{
	struct head h;
	ferry_err e;

	head_object(p->run.r, p->run.loc.bucket, l->key, &h);
	if (h.e == FERRY_ENOTFOUND) {
		if (manifest_remote_del(p->run.m, rel, rellen) != FERRY_OK)
			sync_manifest_warn();
		in_place(&p->run.counts, l->key);
		return FERRY_OK;
	}
	if (h.e == FERRY_OK && strcmp(h.etag, l->dst.etag) != 0)
		h.e = ferry_fail(FERRY_ECHANGED,
		    "replaced since the plan (ETag %s, the plan saw %s): not "
		    "deleted",
		    h.etag, l->dst.etag);
	if (h.e != FERRY_OK) {
		refuse(&p->run.out, &p->run.counts, l->key, h.e);
		return FERRY_OK;
	}
	if ((e = delete_planned(p, l)) != FERRY_OK) {
		refuse(&p->run.out, &p->run.counts, l->key, e);
		return FERRY_OK;
	}
	p->run.counts.deleted++;
	output_action(&p->run.out, "delete", l->key, l->keylen, 0, NULL);
	if (manifest_remote_del(p->run.m, rel, rellen) != FERRY_OK)
		sync_manifest_warn();
	return FERRY_OK;
}

/* An action of the plan, and its key under the prefix. */
struct action {
	const struct planfile_line *l;
	const char *rel;
	size_t rellen;
};

/*
 * The next action of the plan into *a: a->l NULL, and *done set, after
 * the last.  Its key is relative to the prefix, but for a delete when
 * deletes_whole (a pull's deletes name paths in the folder).
 */
static ferry_err
next_action(const struct sync_opts *o, const char *prefix, int deletes_whole,
    int *done, struct action *a)
{
	size_t plen = strlen(prefix);
	ferry_err e;

	a->l = NULL;
	if ((e = planfile_next(o->plan, &a->l)) == FERRY_ENOTFOUND) {
		*done = 1;
		a->l = NULL;
		return FERRY_OK;
	}
	if (e != FERRY_OK || a->l == NULL)
		return e;
	if (deletes_whole && a->l->action == PLANFILE_DELETE)
		plen = 0;
	/* planfile_open() saw every key under the prefix */
	a->rel = a->l->key + plen;
	a->rellen = a->l->keylen - plen;
	return FERRY_OK;
}

/* Whether rel can name a file in the folder; refuses the action if not. */
static int
path_allowed(struct output *out, struct sync_counts *c,
    const struct planfile_line *l, const char *rel, size_t rellen, int prefixed)
{
	const char *why = pull_key_refused(rel, rellen, prefixed);

	if (why == NULL)
		return 1;
	refuse_local(out, c, l->key, prefixed,
	    ferry_fail(FERRY_EPARSE,
	        "refused: the key has %s, so it is not a path in the folder",
	        why));
	return 0;
}

/* The next action of a push or a mirror, in place of the merge. */
static ferry_err
push_step(struct push *p)
{
	struct action a;
	ferry_err e;

	e = next_action(p->run.o, p->run.loc.prefix, 0, &p->run.mg.done, &a);
	if (e != FERRY_OK || a.l == NULL)
		return e;
	if (a.l->action == PLANFILE_DELETE)
		return apply_delete(p, a.l, a.rel, a.rellen);
	if (a.l->action == PLANFILE_COPY)
		return apply_copy(p, a.l, a.rel, a.rellen);
	if (!path_allowed(&p->run.out, &p->run.counts, a.l, a.rel, a.rellen, 1))
		return FERRY_OK;
	return apply_upload(p, a.l, a.rel, a.rellen);
}

static ferry_err
open_push(struct push *p)
{
	ferry_err e = push_open(p);

	p->merge_step = push_step;
	return e;
}

static ferry_err
open_mirror(struct push *p)
{
	ferry_err e = mirror_open(p);

	p->merge_step = push_step;
	return e;
}

/* Nothing to list or scan: the plan says what to do. */
static ferry_err
start_nothing(struct push *p)
{
	(void)p;
	return FERRY_OK;
}

/* The file at rel: 1 with *st, 0 when absent, -1 on failure (recorded). */
static int
local_stat(int rootfd, const char *rel, struct stat *st)
{
	if (fstatat(rootfd, rel, st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	if (errno == ENOENT || errno == ENOTDIR)
		return 0;
	ferry_fail(FERRY_ESYS, "stat: %s", strerror(errno));
	return -1;
}

/* A local destination as the plan saw it: absent, or same size and mtime. */
static int
local_as_planned(int have, const struct stat *st, const struct planfile_side *d)
{
	if (!d->present)
		return have == 0;
	return have == 1 && (uint64_t)st->st_size == d->size &&
	       ts_ns(&st->st_mtim) == d->mtime_ns;
}

/* The local file holds what the plan's source object held (pulled). */
static int
pulled_before(struct pull *p, const char *rel, size_t rellen,
    const struct stat *st, const struct planfile_side *s)
{
	struct manifest_remote rec;
	struct manifest_local seen;
	struct stat now;
	uint8_t hash[16];
	int fd, same = 0;

	if (manifest_remote_get(p->run.m, rel, rellen, &rec) != FERRY_OK ||
	    !rec.has_hash || strcmp(rec.etag, s->etag) != 0 ||
	    rec.size != (uint64_t)st->st_size)
		return 0;
	manifest_local_from_stat(&seen, st);
	if (manifest_local_open(p->run.rootfd, rel, &seen, 0, &fd, &now) !=
	    FERRY_OK)
		return 0;
	if (file_hash(p->run.m, rel, rellen, fd, &now, hash) == FERRY_OK)
		same = memcmp(hash, rec.hash, 16) == 0;
	close(fd);
	return same;
}

static ferry_err
apply_download(struct pull *p, const struct planfile_line *l, const char *rel,
    size_t rellen)
{
	struct remote_obj obj = {0};
	struct stat st;
	int have = local_stat(p->run.rootfd, rel, &st);

	if (have < 0) {
		refuse_local(
		    &p->run.out, &p->run.counts, l->key, 1, FERRY_ESYS);
		return FERRY_OK;
	}
	if (!local_as_planned(have, &st, &l->dst)) {
		if (have == 1 && pulled_before(p, rel, rellen, &st, &l->src)) {
			in_place(&p->run.counts, l->key);
			return FERRY_OK;
		}
		refuse_local(&p->run.out, &p->run.counts, l->key, 1,
		    ferry_fail(FERRY_ECHANGED,
		        "the local file changed since the plan: not "
		        "replaced"));
		return FERRY_OK;
	}
	obj.key = rel;
	obj.keylen = rellen;
	obj.size = l->src.size;
	obj.etag = l->src.etag;
	obj.version_id = l->src.version_id[0] ? l->src.version_id : NULL;
	return dl_begin(p,
	    obj.size > 0 && obj.size >= p->run.o->multipart_threshold
	        ? PLAN_RANGED_GET
	        : PLAN_GET,
	    rel, rellen, &obj, NULL);
}

static ferry_err
apply_local_delete(struct pull *p, const struct planfile_line *l)
{
	struct manifest_local now;
	struct stat st;
	int have = local_stat(p->run.rootfd, l->key, &st);

	if (have == 0) {
		if (manifest_local_del(p->run.m, l->key, l->keylen) !=
		        FERRY_OK ||
		    manifest_remote_del(p->run.m, l->key, l->keylen) !=
		        FERRY_OK)
			sync_manifest_warn();
		in_place(&p->run.counts, l->key);
		return FERRY_OK;
	}
	if (have < 0 || !local_as_planned(have, &st, &l->dst)) {
		if (have > 0)
			ferry_fail(FERRY_ECHANGED,
			    "the file changed since the plan: not deleted");
		refuse_local(&p->run.out, &p->run.counts, l->key, 0,
		    have < 0 ? FERRY_ESYS : FERRY_ECHANGED);
		return FERRY_OK;
	}
	manifest_local_from_stat(&now, &st);
	pull_delete_local(p, l->key, &now);
	return FERRY_OK;
}

/* The next action of a pull, in place of the merge. */
static ferry_err
pull_step(struct pull *p)
{
	struct action a;
	ferry_err e;

	e = next_action(p->run.o, p->run.loc.prefix, 1, &p->run.mg.done, &a);
	if (e != FERRY_OK || a.l == NULL)
		return e;
	/* a pull's deletes name paths in the folder, its downloads keys */
	if (!path_allowed(&p->run.out, &p->run.counts, a.l, a.rel, a.rellen,
	        a.rel != a.l->key))
		return FERRY_OK;
	if (a.l->action == PLANFILE_DELETE)
		return apply_local_delete(p, a.l);
	return apply_download(p, a.l, a.rel, a.rellen);
}

static ferry_err
start_pull(struct pull *p)
{
	p->merge_step = pull_step;
	return FERRY_OK;
}

int
sync_apply(const struct sync_opts *opts)
{
	const struct planfile_header *h;
	struct sync_opts o = *opts;
	struct planfile *pf;
	ferry_err e;
	int rc;

	if ((e = planfile_open(opts->src, &pf)) != FERRY_OK) {
		/* a plan that cannot be run is the caller's to mend */
		if (e != FERRY_ENOMEM)
			e = FERRY_EUSAGE;
		output_failure(opts->json, e);
		return metrics_run_write(opts, NULL, NULL, NULL,
		    e == FERRY_ENOMEM ? EXIT_ABORTED : EXIT_USAGE);
	}
	h = planfile_header(pf);
	/* what shaped the plan comes from it, not from this command line */
	o.src = h->src;
	o.dst = h->dst;
	o.delete = h->delete;
	o.follow_symlinks = h->follow_symlinks;
	o.part_size = h->part_size;
	o.multipart_threshold = h->multipart_threshold;
	o.copy_threshold = h->copy_threshold;
	if (o.memory < o.part_size)
		o.memory = o.part_size;
	o.dry_run = 0;
	o.filter = NULL;
	o.plan = pf;
	o.way = sync_way_of(o.src, o.dst);
	if (o.way == SYNC_WAY_MIRROR)
		rc = push_execute(&o, open_mirror, start_nothing);
	else if (o.way == SYNC_WAY_PULL)
		rc = pull_execute(&o, start_pull);
	else
		rc = push_execute(&o, open_push, start_nothing);
	planfile_close(pf);
	return rc;
}
