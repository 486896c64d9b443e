/*
 * remote.h: everything ferry says to an S3-compatible server.
 *
 * A struct remote is one endpoint with its credentials and one libcurl
 * multi handle; requests are built with remote_req_new() (req.h, private
 * to remote/: callers use the operations of ops.h), given a body and
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
#include "remote/bounds.h"
#include "remote/bwlimit.h"
#include "remote/caps.h"
#include "remote/etag.h"
#include "remote/list.h"
#include "remote/loop.h"
#include "remote/posixmeta.h"
#include "remote/versions.h"

/* What the command line said for one side (NULL or 0: not given). */
struct remote_opts {
	const char *endpoint_url;
	const char *region;
	const char *profile;
	int path_style;
	int no_verify_ssl;
	unsigned max_connections; /* connections to the host, e.g. --jobs */
	/* max_connections is a cap: requests in flight start at
	 * REMOTE_JOBS_START and follow the throughput (concur.c); 0: fixed */
	int adaptive;
	unsigned retries; /* attempts per request, 0: the default */
	/* seconds an attempt may pass without a byte either way before it
	 * is retried; 0: the default */
	unsigned read_timeout;
	/* seconds requests may wait with no answer from the server before
	 * the run gives up on it; 0: the default, -1: never */
	int stall_timeout;
	/* requests unsigned, for public buckets: no credentials needed */
	int no_sign;
	/* x-amz-request-payer: requester on every request */
	int request_payer;
	/* a customer's key for SSE-C: "env:NAME" or a file's path; NULL:
	 * none.  Refused unless the endpoint is https */
	const char *sse_c_key;
	/* the bandwidth limit of the run (its loop's owner's); NULL: none */
	const struct remote_bwlimit *bwlimit;
};
/*
 * Requests in flight at first: where the controller starts without
 * --jobs.  A server near by answers as fast with 128 as with 16; a far
 * one needs them at once: its round trip times the server's rate (100 ms
 * at 1,000 small requests a second), and each doubling from fewer costs
 * two round trips at a fraction of that rate.
 */
#define REMOTE_JOBS_START 128
/* Listing ranges in flight at first without --jobs (remote/list.c). */
#define REMOTE_LIST_RANGES_START 16
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
 * The whole key of rel (rellen bytes) under prefix: a new NUL-terminated
 * string the caller frees, its length in *len when len is not NULL.
 * NULL when out of memory.  Thread-safe.
 */
char *remote_key_join(
    const char *prefix, const char *rel, size_t rellen, size_t *len);

/*
 * What a finished request's reply means, as far as a caller acts on it:
 * set by remote/ where the reply ends (and per key of a DeleteObjects),
 * so that no caller reads an HTTP status or an S3 code.
 */
enum remote_outcome {
	REMOTE_FAILED = 0, /* no reply, or one of no meaning below */
	REMOTE_SUCCEEDED,  /* 2xx (the body may hold an <Error>) */
	REMOTE_NOT_FOUND,  /* no such key, upload or bucket */
	/* a condition did not hold: the object is not the one its ETag
	 * named.  Whether that is true is for a HEAD with the same
	 * condition to say: a server may compare another ETag than the
	 * one it lists (Swift, for a multipart object) */
	REMOTE_PRECONDITION_FAILED,
};

/*
 * One request.  The response fields are valid in the completion callback
 * and until remote_req_free().  The numbers in its headers are checked
 * as they arrive (bounds.c): a reply whose Content-Length, Content-Range,
 * Last-Modified or x-amz-meta-ferry-mtime is malformed, out of bounds or
 * longer than its field, or whose ETag is longer than REMOTE_ETAG_MAX,
 * ends the request with FERRY_EPARSE, naming the header.  No value is
 * ever cut: another too long for its field is left "" with a warning
 * naming the header (posix: see remote/posixmeta.h).
 */
/* Room for a hard link marker: a key of 1024 bytes, each one as %XX. */
#define REMOTE_HARDLINK_MAX (3 * 1024 + 1)

struct remote_resp {
	long status;                 /* HTTP status, 0 if none was received */
	enum remote_outcome outcome; /* set once the request has ended */
	ferry_err err;               /* FERRY_OK, or why the request failed */
	struct buf body;             /* the body, when no sink was set */
	char etag[REMOTE_ETAG_MAX + 1]; /* ETag header, quotes kept */
	char last_modified[64];
	char content_type[128];
	char meta_hash[40];  /* x-amz-meta-ferry-xxh128 */
	char meta_mtime[32]; /* x-amz-meta-ferry-mtime */
	/* x-amz-meta-ferry-hardlink, as sent (ops.h) */
	char meta_hardlink[REMOTE_HARDLINK_MAX];
	char bucket_region[64];
	char sse[32]; /* x-amz-server-side-encryption */
	/* x-amz-version-id: the version written or read, in a versioned
	 * bucket; "" when none was sent or it is longer than 255 bytes */
	char version_id[256];
	int sse_customer; /* x-amz-server-side-encryption-customer-algorithm */
	uint64_t content_length; /* at most REMOTE_MAX_OBJECT */
	int has_content_length;
	struct remote_range range; /* Content-Range, zeros without one */
	/* with remote_req_keep_meta(): "name: value\n" lines, names in
	 * lower case; meta_overflow when they passed REMOTE_META_MAX */
	struct buf meta;
	int meta_overflow;
	struct remote_posix posix; /* remote/posixmeta.h */
};

struct remote_req;
typedef void (*remote_done_fn)(struct remote_req *q, void *arg);

void remote_req_free(struct remote_req *q);

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
 * Whether the reply s to a ranged GET carries exactly bytes [off, off +
 * len) of an object of total bytes: a 206 whose Content-Range says so, or
 * a 200 with the whole object when that is what was asked (without a
 * Content-Length, the caller counts the bytes).  FERRY_OK, or
 * the failure recorded with ferry_fail() (FERRY_EPARSE: a fault of the
 * server; FERRY_EHTTP: the Range header was ignored).
 */
ferry_err remote_resp_check_range(const struct remote_resp *s, uint64_t off,
    uint64_t len, uint64_t total) FERRY_WUR;

#endif
