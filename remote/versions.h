/*
 * versions.h: the versions of the objects of a versioned bucket
 * (ListObjectVersions, versions.c).  Included by remote.h.
 */
#ifndef FERRY_REMOTE_VERSIONS_H
#define FERRY_REMOTE_VERSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct remote;

/* One version of an object, or a delete marker. */
struct remote_version {
	const char *key; /* the whole key; valid during the callback */
	size_t keylen;
	const char *version_id; /* "null" for one written unversioned */
	int latest;             /* the current version of its key */
	int delete_marker;      /* then size is 0 and etag "" */
	uint64_t size;
	const char *etag;      /* quotes kept */
	int64_t last_modified; /* seconds since the epoch */
};
/*
 * A non-zero return stops the listing with FERRY_ECANCEL, and the message
 * fn gave with ferry_fail().
 */
typedef int (*remote_version_fn)(const struct remote_version *v, void *arg);

/*
 * Lists every version and delete marker under bucket/prefix (every page,
 * in this call), calling fn for each: keys in ascending order, the
 * versions of a key newest first, as S3 lists them.  Each entry is
 * checked as a listing's are (listcheck.h: keys in order and under the
 * prefix, sizes and dates in range): a fault of the server ends the
 * listing with FERRY_EPARSE.  FERRY_ES3 for an S3 error.  Runs the loop
 * while it waits.
 */
ferry_err remote_list_versions(struct remote *r, const char *bucket,
    const char *prefix, remote_version_fn fn, void *arg) FERRY_WUR;

#endif
