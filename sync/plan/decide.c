/* decide.c: what to do with one key, decided from the facts at hand. */
#include <string.h>
#include <sys/stat.h>

#include "sync/plan/decide.h"

static struct plan_decision
decide(enum plan_action a, const char *reason)
{
	struct plan_decision d = {a, reason};

	return d;
}

/* A local file's modification time in seconds. */
static int64_t
local_time(const struct plan_entry *e)
{
	return e->mtime_ns / 1000000000;
}

/*
 * When a local file last changed, in seconds: its mtime, or the change of
 * its inode when later (a pull gives a new file its object's older mtime).
 */
static int64_t
local_changed(const struct plan_entry *e)
{
	int64_t c = e->ctime_ns / 1000000000;

	return c > local_time(e) ? c : local_time(e);
}

/* Non-zero when e, modified at t, is inside the size and age bounds. */
static int
in_bounds(const struct plan_entry *e, int64_t t, const struct plan_opts *o)
{
	return e->size >= o->min_size && e->size <= o->max_size &&
	       t >= o->oldest && t <= o->newest;
}

/*
 * Non-zero when the key is left alone for its size or age: the source's
 * entry decides, and without one the destination's, so that what the
 * bounds leave out is never deleted either.
 */
static int
left_alone(const struct plan_entry *src, int64_t src_t,
    const struct plan_entry *dst, int64_t dst_t, const struct plan_opts *o)
{
	if (!o->bounded)
		return 0;
	if (src->present)
		return !in_bounds(src, src_t, o);
	return dst->present && !in_bounds(dst, dst_t, o);
}

/*
 * The decision on a key only the destination has, last changed at t
 * (seconds): deleted with --delete, unless the source's inventory was
 * made before it (the inventory could not see the source's copy).
 */
static struct plan_decision
dest_only(int64_t t, const struct plan_opts *o)
{
	if (!o->delete)
		return decide(PLAN_SKIP, "only in destination");
	if (o->inventory_time && t >= o->inventory_time)
		return decide(PLAN_SKIP, "newer than the source's inventory");
	return decide(PLAN_DELETE, "not in source");
}

static enum plan_action
put_kind(const struct plan_entry *src, const struct plan_opts *o)
{
	if (o->multipart_threshold && src->size >= o->multipart_threshold)
		return PLAN_MULTIPART_PUT;
	return PLAN_PUT;
}

/* The record still describes the listed object: nobody else wrote it. */
static int
record_matches(const struct manifest_remote *rec, const struct plan_entry *dst)
{
	return rec != NULL && rec->etag[0] != '\0' && dst->etag != NULL &&
	       strcmp(rec->etag, dst->etag) == 0 && rec->size == dst->size;
}

/* Whether the file src has the metadata rec says its object was stored with. */
static int
metadata_same(const struct plan_entry *src, const struct manifest_remote *rec)
{
	/* an owner not scanned (a record of an older ferry) is not compared */
	return src->mode == rec->meta_mode && src->mtime_ns == rec->mtime_ns &&
	       (!src->has_owner ||
	           (src->uid == rec->meta_uid && src->gid == rec->meta_gid));
}

/*
 * A push's decision on a file whose bytes the object dst holds already
 * (rec says so): nothing, or its metadata sent by a copy of the object
 * onto itself, no byte of the file sent.  A record without
 * the metadata (written before ferry kept it) stands for what the file
 * had, unless its inode changed after the object was written.
 */
static struct plan_decision
same_bytes(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o)
{
	const char *why = "metadata changed";

	if (!o->metadata || !S_ISREG(src->mode))
		return decide(PLAN_SKIP, "unchanged");
	if (o->xattrs &&
	    (!rec->has_xattr || src->ctime_ns != rec->xattr_ctime_ns)) {
		if (!rec->has_meta || metadata_same(src, rec))
			why = "changed after it was stored: attributes may "
			      "have changed";
		return decide(PLAN_METADATA, why);
	}
	if (rec->has_meta && metadata_same(src, rec))
		return decide(PLAN_SKIP, "unchanged");
	if (!rec->has_meta) {
		if (src->ctime_ns / 1000000000 <= dst->last_modified)
			return decide(PLAN_SKIP, "unchanged");
		why = "changed after it was stored, metadata not recorded";
	}
	return decide(PLAN_METADATA, why);
}

static struct plan_decision
push_decide(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o)
{
	if (!src->present && !dst->present)
		return decide(PLAN_SKIP, "absent");
	if (left_alone(src, local_time(src), dst, dst->last_modified, o))
		return decide(PLAN_SKIP, "outside the size or age bounds");
	if (!dst->present)
		return decide(put_kind(src, o), "new");
	if (!src->present) {
		if (o->delete)
			return decide(PLAN_DELETE, "not in source");
		return decide(PLAN_SKIP, "only in destination");
	}
	if (record_matches(rec, dst)) {
		if (src->size == rec->size && rec->has_hash &&
		    memcmp(src->hash, rec->hash, 16) == 0)
			return same_bytes(src, dst, rec, o);
		return decide(put_kind(src, o), "content changed");
	}
	if (src->size != dst->size)
		return decide(put_kind(src, o), "size differs");
	if (o->size_only)
		return decide(PLAN_SKIP, "same size");
	return decide(PLAN_CHECK, "no record: compare content");
}

void
plan_push(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o,
    struct plan_decision *out)
{
	*out = push_decide(src, dst, rec, o);
}

static enum plan_action
get_kind(const struct plan_entry *src, const struct plan_opts *o)
{
	if (o->multipart_threshold && src->size >= o->multipart_threshold)
		return PLAN_RANGED_GET;
	return PLAN_GET;
}

static struct plan_decision
pull_decide(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o)
{
	if (!src->present && !dst->present)
		return decide(PLAN_SKIP, "absent");
	if (left_alone(src, src->last_modified, dst, local_time(dst), o))
		return decide(PLAN_SKIP, "outside the size or age bounds");
	if (!dst->present)
		return decide(get_kind(src, o), "new");
	/* a file pulled after the inventory may be of an object newer */
	if (!src->present)
		return dest_only(local_changed(dst), o);
	if (record_matches(rec, src)) {
		if (dst->size == rec->size && rec->has_hash &&
		    memcmp(dst->hash, rec->hash, 16) == 0)
			return decide(PLAN_SKIP, "unchanged");
		return decide(get_kind(src, o), "local file changed");
	}
	if (src->size != dst->size)
		return decide(get_kind(src, o), "size differs");
	if (o->size_only)
		return decide(PLAN_SKIP, "same size");
	return decide(PLAN_CHECK, "no record: compare content");
}

void
plan_pull(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o,
    struct plan_decision *out)
{
	*out = pull_decide(src, dst, rec, o);
}

enum plan_action
plan_copy_kind(uint64_t size, uint64_t threshold)
{
	return threshold && size >= threshold ? PLAN_MULTIPART_COPY : PLAN_COPY;
}

static enum plan_action
copy_kind(const struct plan_entry *src, const struct plan_opts *o)
{
	return plan_copy_kind(src->size, o->copy_threshold);
}

static struct plan_decision
mirror_decide(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o)
{
	if (!src->present && !dst->present)
		return decide(PLAN_SKIP, "absent");
	if (left_alone(src, src->last_modified, dst, dst->last_modified, o))
		return decide(PLAN_SKIP, "outside the size or age bounds");
	if (!dst->present)
		return decide(copy_kind(src, o), "new");
	if (!src->present)
		return dest_only(dst->last_modified, o);
	if (rec != NULL && rec->src_etag[0] && record_matches(rec, dst)) {
		if (strcmp(rec->src_etag, src->etag) == 0)
			return decide(PLAN_SKIP, "unchanged");
		return decide(copy_kind(src, o), "source changed");
	}
	if (src->size != dst->size)
		return decide(copy_kind(src, o), "size differs");
	if (o->size_only)
		return decide(PLAN_SKIP, "same size");
	/* the same ETag is the same bytes when made the same way */
	if (strcmp(src->etag, dst->etag) == 0)
		return decide(PLAN_CHECK, "same ETag: record");
	return decide(copy_kind(src, o), "ETags differ");
}

void
plan_mirror(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o,
    struct plan_decision *out)
{
	*out = mirror_decide(src, dst, rec, o);
}

const char *
plan_action_name(enum plan_action a)
{
	switch (a) {
	case PLAN_SKIP:
		return "skip";
	case PLAN_PUT:
		return "put";
	case PLAN_MULTIPART_PUT:
		return "multipart_put";
	case PLAN_CHECK:
		return "check";
	case PLAN_DELETE:
		return "delete";
	case PLAN_GET:
		return "get";
	case PLAN_COPY:
		return "copy";
	case PLAN_MULTIPART_COPY:
		return "multipart_copy";
	case PLAN_RANGED_GET:
		return "ranged_get";
	case PLAN_METADATA:
		return "metadata";
	}
	return "unknown";
}
