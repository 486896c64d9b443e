/*
 * req.h: building a request by hand (method, query, headers) and the
 * small bodies of S3 operations and their replies.  Private to remote/:
 * callers outside it use the typed operations of ops.h.
 */
#ifndef FERRY_REMOTE_REQ_H
#define FERRY_REMOTE_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "remote/remote.h"

/*
 * Creates a request for method on bucket/key (key NULL or "" for the
 * bucket itself; key bytes are sent exactly, encoded once).  kind is what
 * it counts as.  Returns NULL when out of memory.
 */
struct remote_req *remote_req_new(struct remote *r, enum remote_kind kind,
    const char *method, const char *bucket, const char *key, size_t keylen);

/* Adds a query parameter (copied, unencoded). */
ferry_err remote_req_query(
    struct remote_req *q, const char *name, const char *value) FERRY_WUR;
/* Adds a header (copied).  Signed along with the request. */
ferry_err remote_req_header(
    struct remote_req *q, const char *name, const char *value) FERRY_WUR;
/*
 * Adds x-amz-copy-source naming bucket/key (encoded once, '/' kept), and
 * its version version_id when not NULL or "", for CopyObject and
 * UploadPartCopy.
 */
ferry_err remote_req_copy_source(struct remote_req *q, const char *bucket,
    const char *key, size_t keylen, const char *version_id) FERRY_WUR;
/*
 * Adds the headers of meta, as resp.meta holds them, to q; with own_only,
 * only ferry's own x-amz-meta-ferry-*.  FERRY_EUSAGE when q would have
 * too many headers.
 */
ferry_err remote_req_meta_headers(
    struct remote_req *q, const char *meta, int own_only) FERRY_WUR;

/*
 * Small bodies of S3 replies (complete, copy, initiate), checked for an
 * <Error> that came with a 200.  Each malloc's its outputs.
 */
ferry_err remote_parse_upload_id(
    struct remote_req *q, char **upload_id) FERRY_WUR;
ferry_err remote_parse_complete(struct remote_req *q, char **etag) FERRY_WUR;
ferry_err remote_parse_copy(struct remote_req *q, char **etag) FERRY_WUR;
ferry_err remote_complete_body(
    struct buf *out, const char *const *etags, size_t nparts) FERRY_WUR;

#endif
