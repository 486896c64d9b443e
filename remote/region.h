/*
 * region.h: which region a bucket lives in, as S3 replies tell it to a
 * request signed for another, and which host serves a region.  Private to
 * remote/.  Pure functions: no I/O, thread-safe.
 */
#ifndef FERRY_REGION_H
#define FERRY_REGION_H

#include <stddef.h>

#include "common/common.h"

/* Longest region name kept, with its NUL (config.c checks the names). */
#define REGION_MAX 64

/*
 * Takes cand as the bucket's region when it is a valid region name that
 * differs from signed_region: returns 1 and copies it into out.  Returns
 * 0 when cand is that same region, -1 when cand is NULL, empty or not a
 * region name (out is then "").
 */
int region_pick(
    const char *cand, const char *signed_region, char out[REGION_MAX]);

/* What a reply says about the region of the bucket it was sent to. */
enum region_reply {
	REGION_NONE,   /* nothing: the reply stands as it is */
	REGION_NAMED,  /* another region, in out */
	REGION_UNKNOWN /* a 301 naming no region: ask the bucket (HEAD) */
};

/*
 * Reads a reply to a request signed for signed_region: status, its
 * x-amz-bucket-region header (header, "" or NULL when absent) and its
 * body (len bytes, may be NULL).  A 2xx reply says nothing.  Otherwise a
 * header naming another region names it; else a 301 (PermanentRedirect)
 * or a 400 AuthorizationHeaderMalformed names it in the <Region> of its
 * <Error> or in the region the message says it expects ("... expecting
 * 'eu-west-3'"); a 301 that names no region at all is REGION_UNKNOWN.
 */
enum region_reply region_from_reply(long status, const char *header,
    const char *body, size_t len, const char *signed_region,
    char out[REGION_MAX]);

/*
 * Appends to out the host that serves region in place of the endpoint
 * host.  AWS's regional hosts name their region ("s3.eu-west-3.
 * amazonaws.com", "s3.dualstack.REGION...", "s3-fips.REGION...", the
 * global "s3.amazonaws.com" standing for us-east-1's), and the region's
 * own is put in; any other host is kept as it is, since a custom endpoint
 * serves its buckets at one place whatever their region.
 */
ferry_err region_host(
    const char *host, const char *region, struct buf *out) FERRY_WUR;

#endif
