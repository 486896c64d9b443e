/*
 * list.h: listing objects, multipart uploads, buckets and the parts of
 * an upload (list.c, replies.c).  Included by remote.h.
 */
#ifndef FERRY_REMOTE_LIST_H
#define FERRY_REMOTE_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct remote;
struct remote_req;

/*
 * Listing: a stream of the objects under bucket/prefix in key order,
 * pages fetched on the multi loop (the next page is requested as soon as
 * the current one arrives, so that consuming one overlaps fetching the
 * next).  Each entry is checked before it is handed on (listcheck.h): a
 * key out of order, repeated or outside the prefix, a size over
 * REMOTE_MAX_OBJECT or a date outside 0 to REMOTE_TIME_MAX ends the
 * listing with FERRY_EPARSE, naming the server's fault.
 */

/*
 * Whether bucket's listings come in key order: not those of S3 Express
 * directory buckets (names ending in "--x-s3"), documented as unsorted.
 * Their listings are checked for all but order; the caller sorts them.
 */
int remote_bucket_sorted(const char *bucket);
/*
 * The order of keys in a listing, S3's: their bytes as memcmp() orders
 * them, a key before those it begins.  < 0, 0 or > 0 as a comes before,
 * is, or comes after b.  Pure.
 */
int remote_key_cmp(const char *a, size_t alen, const char *b, size_t blen);
struct remote_obj {
	const char *key; /* relative to the prefix */
	size_t keylen;
	uint64_t size;
	const char *etag;
	int64_t last_modified; /* seconds since the epoch */
	/* "GLACIER" or "DEEP_ARCHIVE" for an object in an archive storage
	 * class, which cannot be read until it is restored; NULL: readable */
	const char *archived;
	/* the version to read, of a listing of a past time (sync's --at);
	 * NULL: the current one */
	const char *version_id;
};

struct remote_list;
/*
 * Opens the listing of bucket/prefix, one range that is cut further when
 * its pages show it dense, so that a large listing is fetched several
 * pages at once (as many as the client's connections).  The environment's
 * FERRY_LIST_SERIAL=1 lists one page at a time.  Returns FERRY_OK with
 * *out owned by the caller (remote_list_free()), or the failure.
 */
ferry_err remote_list_open(struct remote *r, const char *bucket,
    const char *prefix, struct remote_list **out) FERRY_WUR;

/* Where a listing starts and ends, and where to cut it at first. */
struct remote_list_hint {
	const char *after; /* list keys after this one (relative); NULL: all */
	const char *upto;  /* and up to this one, included; NULL: to the end */
	/* keys (relative, ascending) where the key space is cut at first:
	 * where the last listing had its quantiles; those not between after
	 * and upto, or not ascending, are passed over */
	const char *const *cuts;
	size_t ncuts;
	int no_split; /* the listing is known small: never cut */
};
/*
 * remote_list_open() with h (NULL: none), which the caller keeps: the
 * listing holds the keys in (after, upto] only.  A bucket that lists
 * unsorted (remote_bucket_sorted()) is listed whole, h ignored.
 */
ferry_err remote_list_open_hint(struct remote *r, const char *bucket,
    const char *prefix, const struct remote_list_hint *h,
    struct remote_list **out) FERRY_WUR;
/*
 * Returns FERRY_OK with *obj valid until the next call, FERRY_ENOTFOUND at
 * the end of the listing, or the failure (a bucket that does not exist is
 * FERRY_ES3 with NoSuchBucket).  Runs the loop while it waits for a page.
 */
ferry_err remote_list_next(
    struct remote_list *l, struct remote_obj *obj) FERRY_WUR;
void remote_list_free(struct remote_list *l);

/*
 * Lists the multipart uploads open under bucket/prefix (every page, in
 * this call), calling fn for each.  Runs the loop while it waits.
 */
typedef void (*remote_upload_fn)(
    const char *key, size_t keylen, const char *upload_id, void *arg);
ferry_err remote_list_uploads(struct remote *r, const char *bucket,
    const char *prefix, remote_upload_fn fn, void *arg) FERRY_WUR;

/* One bucket, as ListBuckets lists it. */
struct remote_bucket {
	const char *name; /* valid during the callback */
	int64_t created;  /* seconds since the epoch; -1 when not given */
};
typedef void (*remote_bucket_fn)(const struct remote_bucket *b, void *arg);
/*
 * Lists the buckets of the account (every page, in this call: GET / on
 * the endpoint), calling fn for each in the server's order (by name).
 * FERRY_EPARSE for a malformed reply; the S3 error otherwise.  Runs the
 * loop while it waits.
 */
ferry_err remote_list_buckets(
    struct remote *r, remote_bucket_fn fn, void *arg) FERRY_WUR;

/* One part of a multipart upload, as ListParts lists it. */
struct remote_part {
	uint32_t number;
	uint64_t size;
	const char *etag; /* quotes kept; valid during the callback */
};
typedef void (*remote_part_fn)(const struct remote_part *p, void *arg);
/*
 * Returns a new request (NULL when out of memory) for the page of the
 * parts of upload_id on bucket/key that follows part number marker (0:
 * the first page), to submit and free like any other.
 */
struct remote_req *remote_list_parts_req(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const char *upload_id, uint32_t marker);
/*
 * Reads the reply of a completed ListParts request, calling fn for each
 * part; *next_marker is the marker of the next page, 0 after the last.
 * FERRY_EPARSE for a malformed page, FERRY_ES3 for an <Error>.
 */
ferry_err remote_parse_parts(struct remote_req *q, remote_part_fn fn, void *arg,
    uint32_t *next_marker) FERRY_WUR;

#endif
