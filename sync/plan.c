/* plan.c: what to do with one key, decided from the facts at hand. */
#include <string.h>

#include "sync/plan.h"

static struct plan_decision
decide(enum plan_action a, const char *reason)
{
	struct plan_decision d = {a, reason};

	return d;
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

static struct plan_decision
push_decide(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o)
{
	if (!src->present && !dst->present)
		return decide(PLAN_SKIP, "absent");
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
			return decide(PLAN_SKIP, "unchanged");
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
	if (!dst->present)
		return decide(get_kind(src, o), "new");
	if (!src->present) {
		if (o->delete)
			return decide(PLAN_DELETE, "not in source");
		return decide(PLAN_SKIP, "only in destination");
	}
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

static enum plan_action
copy_kind(const struct plan_entry *src, const struct plan_opts *o)
{
	if (o->multipart_threshold && src->size >= o->multipart_threshold)
		return PLAN_MULTIPART_COPY;
	return PLAN_COPY;
}

static struct plan_decision
mirror_decide(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o)
{
	if (!src->present && !dst->present)
		return decide(PLAN_SKIP, "absent");
	if (!dst->present)
		return decide(copy_kind(src, o), "new");
	if (!src->present) {
		if (o->delete)
			return decide(PLAN_DELETE, "not in source");
		return decide(PLAN_SKIP, "only in destination");
	}
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
	}
	return "unknown";
}
