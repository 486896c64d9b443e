/*
 * remote.h: everything ferry says to an S3-compatible server.
 *
 * A struct remote is one endpoint with its credentials and one libcurl
 * multi handle; requests are built with remote_req_new(), given a body and
 * a sink, and submitted; remote_run() drives every request in flight and
 * calls each one's completion callback from inside the loop.  One thread
 * uses a struct remote and everything made from it.
 *
 * How a request flows.  remote_req_new() and its setters (request.c)
 * record the method, bucket, key, query, headers, body and sink, unencoded.
 * remote_req_submit() (loop.c) queues it; when the window has room,
 * req_start() encodes the path, signs with SigV4 (sigv4.c) at the current
 * date and adds a curl easy handle to the multi handle.  remote_run() turns
 * the multi loop: reply headers and body land in bounded buffers or the
 * sink as they arrive.  On completion, a network error, 429, 5xx, a 400
 * RequestTimeout or a 200 carrying <Error> is retried, re-signed, after a
 * jittered backoff while the run's retry budget lasts; a wrong-region
 * reply is sent again to the right region, once.  The done callback then
 * runs; it calls remote_req_result() for the one ferry_err (the S3 <Code>
 * read by expat) and replies.c's parsers for the body.
 */
#ifndef FERRY_REMOTE_H
#define FERRY_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* What the command line said for one side (NULL or 0: not given). */
struct remote_opts {
	const char *endpoint_url;
	const char *region;
	const char *profile;
	int path_style;
	int no_verify_ssl;
	unsigned max_connections; /* connections to the host, e.g. --jobs */
	unsigned retries;         /* attempts per request, 0: the default */
	/* seconds an attempt may pass without a byte either way before it
	 * is retried; 0: the default */
	unsigned read_timeout;
	/* seconds requests may wait with no answer from the server before
	 * the run gives up on it; 0: the default, -1: never */
	int stall_timeout;
};
#define REMOTE_DEFAULT_READ_TIMEOUT 60
#define REMOTE_DEFAULT_STALL_TIMEOUT 180

/* Requests sent, per kind, for the summary. */
enum remote_kind {
	REMOTE_LIST,
	REMOTE_GET,
	REMOTE_HEAD,
	REMOTE_PUT,
	REMOTE_POST,
	REMOTE_DELETE,
	REMOTE_NKINDS
};

struct remote_stats {
	uint64_t requests[REMOTE_NKINDS];
	uint64_t retries;
	uint64_t bytes_sent;
	uint64_t bytes_received;
	uint64_t body_out; /* request body bytes handed to curl so far */
};

struct remote;

/*
 * Resolves the configuration (flags, environment, AWS files) and creates
 * the client.  FERRY_EUSAGE for bad configuration, FERRY_ENOTFOUND when
 * there is nowhere to get credentials from, with the reason in
 * ferry_errmsg().  Keys from a credential_process or the instance
 * metadata service are fetched when the first request is signed; failing
 * to get them fails that request.  *out is NULL on failure.  Free with
 * remote_free().
 */
ferry_err remote_new(
    const struct remote_opts *o, struct remote **out) FERRY_WUR;
/*
 * The same, for a client whose requests run on share's multi loop, so
 * that one remote_run() drives both (the two sides of a mirror).  share
 * must outlive the new client.
 */
ferry_err remote_new_sharing(const struct remote_opts *o, struct remote *share,
    struct remote **out) FERRY_WUR;
void remote_free(struct remote *r);

/* Counters so far; the pointer is valid until remote_free(). */
const struct remote_stats *remote_stats(const struct remote *r);

/* The endpoint URL in use, for messages ("http://127.0.0.1:7480"). */
const char *remote_endpoint(const struct remote *r);

/* Non-zero when both clients reach the same endpoint with the same keys. */
int remote_same_account(const struct remote *a, const struct remote *b);

/* An "s3://bucket[/prefix]" location; prefix is "" or ends in '/'. */
struct remote_loc {
	char *bucket;
	char *prefix;
};
int remote_is_url(const char *s);
ferry_err remote_loc_parse(const char *s, struct remote_loc *out) FERRY_WUR;
void remote_loc_clear(struct remote_loc *l);

/*
 * Bounds on the numbers a server sends: an object is at most 5 TiB, a
 * multipart upload has parts numbered 1 to 10,000 of at most 5 GiB, and a
 * time is one whose nanoseconds since 1970 fit 64 bits (up to 2262).
 */
#define REMOTE_MAX_OBJECT (5ULL << 40)
#define REMOTE_MAX_PART_SIZE (5ULL << 30)
#define REMOTE_MAX_PARTS 10000u
#define REMOTE_TIME_MAX (INT64_MAX / 1000000000LL)

/* A Content-Range: bytes first-last/total, or (has_bytes 0) total alone. */
struct remote_range {
	uint64_t first, last, total;
	int has_bytes;
};

/*
 * One request.  The response fields are valid in the completion callback
 * and until remote_req_free().  The numbers in its headers are checked
 * as they arrive (bounds.c): a reply whose Content-Length, Content-Range,
 * Last-Modified or x-amz-meta-ferry-mtime is malformed or out of bounds
 * ends the request with FERRY_EPARSE, naming the header.
 */
struct remote_resp {
	long status;     /* HTTP status, 0 if none was received */
	ferry_err err;   /* FERRY_OK, or why the request failed */
	struct buf body; /* the body, when no sink was set */
	char etag[96];   /* ETag header, quotes kept */
	char last_modified[64];
	char content_type[128];
	char meta_hash[40];  /* x-amz-meta-ferry-xxh128 */
	char meta_mtime[32]; /* x-amz-meta-ferry-mtime */
	char bucket_region[64];
	char sse[32];     /* x-amz-server-side-encryption */
	int sse_customer; /* x-amz-server-side-encryption-customer-algorithm */
	uint64_t content_length; /* at most REMOTE_MAX_OBJECT */
	int has_content_length;
	struct remote_range range; /* Content-Range, zeros without one */
	/* with remote_req_keep_meta(): "name: value\n" lines, names in
	 * lower case; meta_overflow when they passed REMOTE_META_MAX */
	struct buf meta;
	int meta_overflow;
};

struct remote_req;
typedef void (*remote_done_fn)(struct remote_req *q, void *arg);

/*
 * Creates a request for method on bucket/key (key NULL or "" for the
 * bucket itself; key bytes are sent exactly, encoded once).  kind is what
 * it counts as.  Returns NULL when out of memory.
 */
struct remote_req *remote_req_new(struct remote *r, enum remote_kind kind,
    const char *method, const char *bucket, const char *key, size_t keylen);
void remote_req_free(struct remote_req *q);

/* Adds a query parameter (copied, unencoded). */
ferry_err remote_req_query(
    struct remote_req *q, const char *name, const char *value) FERRY_WUR;
/* Adds a header (copied).  Signed along with the request. */
ferry_err remote_req_header(
    struct remote_req *q, const char *name, const char *value) FERRY_WUR;
/*
 * Adds x-amz-copy-source naming bucket/key (encoded once, '/' kept), for
 * CopyObject and UploadPartCopy.
 */
ferry_err remote_req_copy_source(struct remote_req *q, const char *bucket,
    const char *key, size_t keylen) FERRY_WUR;
/*
 * The body: len bytes at data, borrowed until completion.  md5 (16 bytes,
 * or NULL) is sent as Content-MD5.  Without a body, none is sent.
 */
void remote_req_body(
    struct remote_req *q, const void *data, size_t len, const uint8_t *md5);
/*
 * The body: len bytes of the file fd from offset at, read as they are
 * sent (fd borrowed until completion), with md5 (16 bytes) as Content-MD5;
 * NULL sends none, and the caller checks the reply's ETag instead.
 * A file that turns out shorter, or that cannot be read, ends the request
 * with an error that says so; one whose bytes changed, with the server's
 * refusal of the Content-MD5.
 */
void remote_req_body_file(struct remote_req *q, int fd, uint64_t at, size_t len,
    const uint8_t md5[16]);
/*
 * fn(arg) once the last byte of the body has been given to the connection
 * (the reply still to come), from within the transfer: it may count, not
 * start or end requests.  At most once, even if the request is resent.
 */
void remote_req_on_body_end(
    struct remote_req *q, void (*fn)(void *), void *arg);
/*
 * Keeps, in resp.meta, the reply's headers that describe the object and
 * that a copy of it carries: Content-Type, Cache-Control,
 * Content-Disposition, Content-Encoding, Content-Language, Expires and
 * every x-amz-meta-* (ferry's own x-amz-meta-ferry-* among them).
 */
#define REMOTE_META_MAX 8192
void remote_req_keep_meta(struct remote_req *q);
/*
 * Adds the headers of meta, as resp.meta holds them, to q.  FERRY_EUSAGE
 * when q would have too many headers.
 */
ferry_err remote_req_meta_headers(
    struct remote_req *q, const char *meta) FERRY_WUR;
/* Limits the buffered response body (default 1 MiB). */
void remote_req_body_limit(struct remote_req *q, size_t limit);
/*
 * Streams the response body to fn instead of buffering it (only for 2xx
 * replies; others are buffered for their <Error>).  fn returns non-zero
 * to abort the transfer.
 */
typedef int (*remote_sink_fn)(const char *data, size_t len, void *arg);
void remote_req_sink(struct remote_req *q, remote_sink_fn fn, void *arg);
/*
 * Lets a request whose body was partly given to the sink be retried:
 * restart(arg) is called first, to forget what the sink took.
 */
typedef void (*remote_restart_fn)(void *arg);
void remote_req_sink_restart(struct remote_req *q, remote_restart_fn restart);

/*
 * Sends the request; done(q, arg) is called from remote_run() when it has
 * finished (after its retries).  The request is owned by the caller, who
 * frees it (typically in done).
 */
ferry_err remote_req_submit(
    struct remote_req *q, remote_done_fn done, void *arg) FERRY_WUR;

/* The response; valid in done and until remote_req_free(). */
const struct remote_resp *remote_req_resp(const struct remote_req *q);
/*
 * Whether the response says its object is encrypted with a KMS key
 * (aws:kms, aws:kms:dsse) or a customer's key (SSE-C): S3 then gives ETags
 * that are not the MD5s of the bytes, for objects and for parts alike.
 */
int remote_resp_etag_opaque(const struct remote_resp *s);

/*
 * After completion: FERRY_OK for a 2xx reply, else the failure with its
 * detail (S3 code and message, HTTP status, curl's reason, the key)
 * recorded by ferry_fail().  Also checks a 2xx body that is an <Error>
 * when check_body is non-zero.
 */
ferry_err remote_req_result(struct remote_req *q, int check_body) FERRY_WUR;

/*
 * Requests the server takes in flight now: --jobs at first, halved on
 * each 503 SlowDown and climbing back with successes.
 */
unsigned remote_window(const struct remote *r);

/* One retry of a request, as remote_on_retry()'s hook sees it. */
struct remote_retry {
	const char *method;
	const char *bucket;
	const char *key; /* the object's key, not relative to a prefix */
	size_t keylen;
	unsigned attempt; /* the attempt about to be made, from 2 */
	unsigned of;      /* attempts allowed */
	const char *why;  /* "the server did not answer within 60 s" */
};
/* Everything in t is valid during the call only. */
typedef void (*remote_retry_fn)(const struct remote_retry *t, void *arg);
/*
 * Has fn(t, arg) called, from within remote_run(), for each retry of a
 * request of r, before the retry is told on stderr.  NULL: none.
 */
void remote_on_retry(struct remote *r, remote_retry_fn fn, void *arg);

/* Number of requests submitted and not yet completed. */
unsigned remote_inflight(const struct remote *r);

/*
 * Drives the transfers, waiting at most timeout_ms for activity, and runs
 * the completion callbacks of what finished.  FERRY_ENET for a failure of
 * the loop itself, or when requests have waited the stall timeout with no
 * answer from the server (then at every call, until the run ends).
 */
ferry_err remote_run(struct remote *r, int timeout_ms) FERRY_WUR;

/*
 * Waits at most timeout_ms for remote_wakeup(), even with nothing in
 * flight; for work done off the loop's thread.
 */
ferry_err remote_idle(struct remote *r, int timeout_ms) FERRY_WUR;
/*
 * Makes the remote_run() or remote_idle() under way, or the next one,
 * return at once.  r is a struct remote *; safe from any thread.
 */
void remote_wakeup(void *r);

/*
 * Ends every request of r's loop not yet completed, as failed
 * (FERRY_ECANCEL), calling each one's completion callback, and those
 * the callbacks submit: for a run that stops while requests are in
 * flight, so that each is answered and freed by its owner.
 */
void remote_end_all(struct remote *r);

/* Runs until q has completed (other requests progress too). */
ferry_err remote_wait(struct remote *r, struct remote_req *q) FERRY_WUR;

/* Runs one request to completion and returns remote_req_result(). */
ferry_err remote_perform(
    struct remote *r, struct remote_req *q, int check_body) FERRY_WUR;

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
struct remote_obj {
	const char *key; /* relative to the prefix */
	size_t keylen;
	uint64_t size;
	const char *etag;
	int64_t last_modified; /* seconds since the epoch */
};

struct remote_list;
ferry_err remote_list_open(struct remote *r, const char *bucket,
    const char *prefix, struct remote_list **out) FERRY_WUR;
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

/*
 * Parses a listing's time ("2023-11-14T22:13:20.000Z") or a Last-Modified
 * header's ("Tue, 14 Nov 2023 22:13:20 GMT") into seconds since the epoch,
 * UTC; -1 on failure.  Leading blanks are skipped; fields have their fixed
 * widths and must be in range (no February 29 outside leap years); second
 * 60 is taken as the next minute's first; names match in any case; what
 * follows the seconds of the first form, or "GMT" in the second, is
 * ignored.  Years 0000 to 9999: before 1970 the result is negative.  Safe
 * on any NUL-terminated bytes; no locale, thread-safe.
 */
int64_t remote_parse_time(const char *s);

/*
 * Parses the ISO 8601 form a credentials document writes,
 * "2024-05-01T12:00:00Z", with optional fractional seconds and a "Z",
 * "+hh:mm", "-hh:mm" or "+hhmm" zone (none: UTC), into seconds since the
 * epoch, UTC; -1 when the whole string is anything else (no leading
 * blanks, fields as remote_parse_time() reads them).  Thread-safe.
 */
int64_t remote_parse_time_zoned(const char *s);

/*
 * Strict readers of the numbers in reply headers (bounds.c), pure and
 * thread-safe.  remote_parse_size(): decimal digits only, at most max.
 * remote_parse_mtime_ns(): an optional '-' and digits that fit int64.
 * remote_parse_content_range(): "bytes F-L/T" with F <= L < T <=
 * REMOTE_MAX_OBJECT, or a 416's form, "*" for F-L.  Each returns 0, or -1 with
 * *out zeroed.
 */
int remote_parse_size(const char *s, uint64_t max, uint64_t *out);
int remote_parse_mtime_ns(const char *s, int64_t *out);
int remote_parse_content_range(const char *s, struct remote_range *out);
/*
 * Whether the reply s to a ranged GET carries exactly bytes [off, off +
 * len) of an object of total bytes: a 206 whose Content-Range says so, or
 * a 200 with the whole object when that is what was asked (without a
 * Content-Length, the caller counts the bytes).  FERRY_OK, or
 * the failure recorded with ferry_fail() (FERRY_EPARSE: a fault of the
 * server; FERRY_EHTTP: the Range header was ignored).
 */
ferry_err remote_resp_check_range(const struct remote_resp *s, uint64_t off,
    uint64_t len, uint64_t total) FERRY_WUR;

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
/*
 * A DeleteObjects body for n keys (1 to 1000); etags NULL, or each key's
 * listed ETag ("" or NULL: none), sent as its <ETag> so that a server
 * that honours it deletes the object only while it has that ETag, and
 * answers PreconditionFailed for that key otherwise.
 */
ferry_err remote_delete_body(struct buf *out, const char *const *keys,
    const size_t *key_lens, const char *const *etags, size_t n) FERRY_WUR;
/* Per key of a DeleteObjects reply: ok, or the code and message. */
typedef void (*remote_deleted_fn)(const char *key, size_t keylen, int ok,
    const char *code, const char *message, void *arg);
ferry_err remote_parse_deleted(
    struct remote_req *q, remote_deleted_fn fn, void *arg) FERRY_WUR;

#endif
