/*
 * decide.h: the planner, a pure function of (source entry, destination
 * entry, manifest record, options) that decides what to do with one key.
 * Seen from other wings through sync/plan/plan.h.
 */
#ifndef FERRY_PLAN_H
#define FERRY_PLAN_H

#include <stdint.h>

#include "manifest/manifest.h"

enum plan_action {
	PLAN_SKIP,
	PLAN_PUT,
	PLAN_MULTIPART_PUT,
	PLAN_CHECK, /* same size, no usable record: compare content once */
	PLAN_DELETE,
	PLAN_GET,
	PLAN_COPY,
	PLAN_MULTIPART_COPY,
	PLAN_RANGED_GET, /* parallel ranged GETs into one file */
	/* push: the bytes are stored, the file's metadata is not: the
	 * object copied onto itself with the new metadata, no byte sent */
	PLAN_METADATA
};

/* One side's entry for a key; present == 0 when the side lacks it. */
struct plan_entry {
	int present;
	uint64_t size;
	int64_t mtime_ns;      /* local files */
	const uint8_t *hash;   /* local files: XXH3-128 */
	const char *etag;      /* objects: as listed, quotes kept */
	int64_t last_modified; /* objects: seconds */
	int64_t ctime_ns;      /* local files: the inode's last change */
	/* objects: the version to read (--at); NULL: the current one */
	const char *version_id;
	/* local files: st_mode, and the owner when has_owner */
	uint32_t mode;
	int has_owner;
	uint32_t uid, gid;
};

struct plan_opts {
	int delete;
	int size_only;
	/*
	 * push: a file whose bytes are stored but whose metadata (mode,
	 * owner, mtime) is not as stored gets PLAN_METADATA; 0: it is
	 * unchanged (--size-only compares no metadata)
	 */
	int metadata;
	/*
	 * -X, -A: with metadata, a file whose ctime moved since its object
	 * was stored with its attributes (or that was stored without them)
	 * gets PLAN_METADATA too: its attributes may have changed, and only
	 * reading them tells (sync/up/metadata.c)
	 */
	int xattrs;
	uint64_t multipart_threshold;
	uint64_t copy_threshold; /* a mirror's copies in parts from here */
	/*
	 * With bounded set, a key whose source entry (or, absent, whose
	 * destination entry) is outside [min_size, max_size] or modified
	 * outside [oldest, newest] (seconds) is left alone: skipped.
	 */
	int bounded;
	uint64_t min_size, max_size;
	int64_t oldest, newest;
	/*
	 * The creation of the source's inventory (seconds), 0: none.  An
	 * inventory cannot see what was written after it, so only what the
	 * destination held before it may be deleted.
	 */
	int64_t inventory_time;
};

struct plan_decision {
	enum plan_action action;
	const char *reason; /* static string */
};

/*
 * Push: src is a local file, dst the listed object, rec the manifest's
 * record of what ferry last wrote under the key (NULL if none).
 */
void plan_push(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o,
    struct plan_decision *out);

/*
 * Pull: src is the listed object, dst the local file as scanned, rec the
 * manifest's record of what ferry last downloaded under the key (the
 * object's ETag and the hash of the bytes written; NULL if none).
 */
void plan_pull(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o,
    struct plan_decision *out);

/*
 * Mirror: src and dst are listed objects, rec the manifest's record of
 * the copy ferry last made under the key (the source's ETag then, and the
 * destination's ETag it produced; NULL if none).  PLAN_CHECK here means
 * the two objects hold the same bytes by their ETags: record, copy nothing.
 */
void plan_mirror(const struct plan_entry *src, const struct plan_entry *dst,
    const struct manifest_remote *rec, const struct plan_opts *o,
    struct plan_decision *out);

/*
 * How an object of size bytes is copied server-side: whole (PLAN_COPY),
 * or in parts (PLAN_MULTIPART_COPY) from threshold up (0: never).
 */
enum plan_action plan_copy_kind(uint64_t size, uint64_t threshold);

/* "put", "multipart_put", ...: the name used in output. */
const char *plan_action_name(enum plan_action a);

#endif
