/*
 * ops.h: the S3 operations, one typed call each, over the requests of
 * remote.h.  Each call knows its operation's method, query parameters,
 * headers and conditions, and the quirks of the servers ferry meets, so
 * that its caller names none of them.
 *
 * How an operation flows:
 *   1. remote_<operation>(r, bucket, key, ..., &q) builds the request and
 *      returns it prepared, not sent (*q NULL and the failure recorded
 *      with ferry_fail() otherwise; the request is the caller's).
 *   2. The caller adds what is the transfer's, not the operation's: a
 *      body (remote_req_body(), remote_req_body_file(), whose MD5 goes as
 *      the digest), a sink for the reply's body, a body limit.
 *   3. It sends it like any request: remote_req_submit() with its
 *      completion callback, on the one multi loop (or remote_perform()
 *      where the caller waits); retries and signing happen below.
 *   4. In the callback, remote_<operation>_reply(q, ...), where there is
 *      one, reads the reply: the HTTP result, a 200 that carries an
 *      <Error>, and the values of the body; else remote_req_result() and
 *      the fields of struct remote_resp.  The caller frees the request.
 * Listings that run in one call (buckets, uploads) and ListObjectsV2's
 * stream are in remote.h (remote_list_*).
 */
#ifndef FERRY_REMOTE_OPS_H
#define FERRY_REMOTE_OPS_H

#include "remote/remote.h"

/* Conditions and a range on reading an object. */
struct remote_get {
	const char *if_match; /* the ETag it must have; NULL or "": any */
	uint64_t off;         /* with len > 0: only bytes [off, off + len) */
	uint64_t len;         /* 0: the whole object */
};

/*
 * HeadObject of bucket/key, only while it has the ETag if_match (NULL or
 * "": any).  The object's headers are in the reply's struct remote_resp.
 */
ferry_err remote_head_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const char *if_match,
    struct remote_req **out) FERRY_WUR;
/*
 * GetObject of bucket/key, as g says (NULL: all of it, unconditionally).
 * A ranged reply is checked with remote_resp_check_range().
 */
ferry_err remote_get_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const struct remote_get *g,
    struct remote_req **out) FERRY_WUR;

#endif
