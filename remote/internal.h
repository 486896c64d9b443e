/*
 * internal.h: what the files of remote/ share about clients and requests.
 * Private to remote/.
 */
#ifndef FERRY_REMOTE_INTERNAL_H
#define FERRY_REMOTE_INTERNAL_H

#include <curl/curl.h>

#include "common/sparse.h"
#include "remote/concur.h"
#include "remote/config.h"
#include "remote/creds.h"
#include "remote/ops.h"
#include "remote/region.h"
#include "remote/remote.h"
#include "remote/req.h"
#include "remote/sigv4.h"
#include "remote/ssec.h"
#include "remote/throttle.h"
#include "remote/url.h"

#define REMOTE_MAX_QUERY 8
#define REMOTE_MAX_HEADERS 128 /* an object's metadata may take many */
#define REMOTE_DEFAULT_RETRIES 10
#define REMOTE_CONNECT_TIMEOUT 10 /* seconds */

/* The multi loop, shared by the clients of both sides of a mirror. */
struct remote_loop {
	CURLM *multi;
	unsigned inflight;
	struct remote_req *waiting;   /* requests backing off before a retry */
	struct remote_req *submitted; /* every request not yet completed */
	uint64_t rng;
	int refs;
	struct concur concur;       /* requests in flight allowed now */
	remote_concur_fn on_concur; /* remote_on_concur() */
	void *on_concur_arg;
	double budget;    /* retries left to the run */
	int epfd;         /* the sockets curl waits on, and wakefd */
	int wakefd;       /* an eventfd written by remote_wakeup() */
	int64_t timer_ns; /* when curl wants to run next, or -1 */
	int events_errno; /* an epoll_ctl() failure in curl's callback */
	uint8_t *fds;     /* what the set holds, by descriptor (events.c) */
	size_t nfds;
	/* stall.c: what is told of retries, and a server that went silent */
	int64_t stall_ns;    /* silence that ends the run; 0: never */
	int64_t answered_ns; /* when the server last answered (or moved) */
	int64_t checked_ns;  /* the last stall_check() */
	uint64_t moved;      /* body bytes that went either way */
	uint64_t moved_seen; /* moved at the last stall_check() */
	const struct remote *failed; /* the client of the last retry */
	char failed_why[160];        /* why that attempt failed */
	int64_t told_ns;             /* the last retry line */
	unsigned untold;             /* retries since then, not told yet */
	char untold_line[640];       /* the last of them, as a line */
	struct bw_bucket *bw;        /* --bwlimit; NULL: none */
};

/* events.c: the loop's sockets in an epoll set. */
ferry_err loop_events_init(struct remote_loop *l) FERRY_WUR;
void loop_events_clear(struct remote_loop *l);
/* Has curl open and close c's sockets through the loop. */
void loop_socket_options(struct remote_loop *l, CURL *c);
/* Runs curl if its timer has expired (new transfers start so). */
ferry_err loop_timer(struct remote_loop *l) FERRY_WUR;
/* Waits up to timeout_ms and hands curl what became ready. */
ferry_err loop_wait(struct remote_loop *l, int timeout_ms) FERRY_WUR;
void loop_wake(struct remote_loop *l);

/* A bucket found to live in another region than the configured one. */
struct bucket_region {
	char *bucket;
	char region[REGION_MAX];
	char *host; /* the endpoint host that serves the region */
};

struct remote {
	struct config cfg;
	struct endpoint ep;
	struct remote_loop *loop;
	struct remote_stats stats;
	unsigned retries;
	unsigned read_timeout; /* seconds without a byte that end an attempt */
	int no_verify_ssl;
	unsigned list_ranges;     /* ranges a listing fetches at once */
	remote_retry_fn on_retry; /* remote_on_retry() */
	void *on_retry_arg;
	unsigned conds_lost;            /* 1 << each enum remote_cond refused */
	remote_fallback_fn on_fallback; /* remote_on_fallback() */
	void *on_fallback_arg;
	struct creds creds; /* what requests are signed with */
	struct sigv4_algs algs;
	struct bucket_region *regions;
	size_t nregions;
	struct ssec ssec;  /* --sse-c-key; wiped on free */
	int no_sign;       /* requests go unsigned */
	int request_payer; /* x-amz-request-payer on every request */
	CURL **easy_pool;  /* idle easy handles, reused */
	size_t npool;
	size_t pool_cap;
};

struct remote_req {
	struct remote *r;
	enum remote_kind kind;
	char method[8];
	char *bucket;
	char *key;
	size_t keylen;
	struct sigv4_pair query[REMOTE_MAX_QUERY];
	size_t nquery;
	struct sigv4_pair *headers; /* grown up to REMOTE_MAX_HEADERS */
	size_t nheaders;
	size_t cap_headers;
	int keep_meta; /* remote_req_keep_meta() */
	const char *body;
	char *body_owned; /* ops_body_xml(): freed with the request */
	size_t body_len;
	size_t body_off;
	int has_body;
	int body_fd;      /* remote_req_body_file(): -1 for a buffer */
	uint64_t body_at; /* where in body_fd the body starts */
	struct sparse_reader body_rd; /* reads body_fd, holes as zeros */
	int body_errno;   /* why reading body_fd stopped; -1: it was short */
	size_t body_sent; /* the most of the body any attempt has sent */
	void (*body_end)(void *); /* remote_req_on_body_end() */
	void *body_end_arg;
	char md5_b64[32];
	remote_sink_fn sink;
	remote_restart_fn sink_restart;
	void *sink_arg;
	uint64_t sunk;   /* bytes given to the sink */
	uint64_t expect; /* with expect_known: the reply body's size */
	int expect_known;
	struct remote_resp resp;
	remote_done_fn done;
	void *done_arg;
	CURL *easy;
	struct curl_slist *slist;
	char errbuf[CURL_ERROR_SIZE];
	char fault[160]; /* a reply header refused by bounds.c, or "" */
	unsigned attempt;
	char
	    region[REGION_MAX]; /* the region the last attempt was signed for */
	int region_moved;       /* already sent again for another region */
	int is_probe;           /* a HEAD Bucket asking for the region */
	struct remote_req *probe; /* the HEAD Bucket asked for this request */
	int64_t retry_at;         /* monotonic ns */
	struct remote_req *next_waiting;
	struct remote_req *next_sub, *prev_sub; /* in loop->submitted */
	int inflight;  /* the easy handle is in the multi */
	int submitted; /* submitted and not yet completed */
	int completed;
	int bw_paused; /* CURLPAUSE_ bits paused by the bandwidth limit */
};

/* client.c */
/* The region recorded for bucket, or NULL: the configured one. */
const struct bucket_region *bucket_region_find(
    const struct remote *r, const char *bucket);
/* Records that bucket lives in region (a valid region name). */
ferry_err bucket_region_set(
    struct remote *r, const char *bucket, const char *region) FERRY_WUR;

/* meta.c */
/* Keeps the header line p (len bytes) in q's resp.meta if it is one. */
void meta_take(struct remote_req *q, const char *p, size_t len);

/* response.c */
/*
 * If the header line (len bytes, "Name: value") is name's (any case),
 * copies its value, trimmed, into dst: 1; or -1 when it has dstlen bytes
 * or more, dst then "" (never a cut value).  0 when it is another
 * header.  Pure.
 */
int remote_header_take(
    const char *line, size_t len, const char *name, char *dst, size_t dstlen);

/* bounds.c */
/*
 * Reads a reply header whose value carries a number (name in lower case)
 * into q->resp, bounded: 1, or 0 with the reason in q->fault.
 */
size_t bounds_check_header(
    struct remote_req *q, const char *name, const char *value);
/*
 * Refuses a reply header name whose value is longer than max bytes, as
 * bounds_check_header() refuses one out of bounds: 0, the reason in
 * q->fault.
 */
size_t bounds_refuse_long(struct remote_req *q, const char *name, size_t max);

/* stall.c */
/*
 * Tells of q's retry (its attempt already counted, r->retries allowed):
 * to the hook of remote_on_retry(), and on stderr, a line per retry or,
 * when many come at once, one every few seconds.  why says what failed.
 */
void stall_retry(struct remote *r, const struct remote_req *q, const char *why);
/* Notes that the server answered (any reply but a 5xx or a 429). */
void stall_answered(struct remote_loop *l);
/*
 * Tells what retries were held back, if it is time; then FERRY_ENET when
 * requests have waited stall_ns with no answer, naming r's endpoint or
 * that of the last failed attempt.
 */
ferry_err stall_check(struct remote *r) FERRY_WUR;
/* Tells what retries were held back, at once (the loop ends). */
void stall_flush(struct remote_loop *l);
/*
 * Writes into why (n bytes) what ended q's attempt: curl's rc on the
 * handle easy, else the HTTP status.
 */
void stall_reason(
    const struct remote_req *q, CURL *easy, CURLcode rc, char *why, size_t n);

/* loop.c */
/*
 * remote_run() for up to a second, for a caller that waits on a reply:
 * FERRY_ECANCEL once SIGINT or SIGTERM has come.
 */
ferry_err remote_run_once(struct remote *r) FERRY_WUR;

/* ops_object.c: what the typed calls of ops.h share. */
/* A new request for method on bucket/key, counted as kind, in *out. */
ferry_err ops_new(struct remote *r, enum remote_kind kind, const char *method,
    const char *bucket, const char *key, size_t keylen,
    struct remote_req **out) FERRY_WUR;
/* Ends a typed call: frees *out, and sets it NULL, when e is a failure. */
ferry_err ops_end(struct remote_req **out, ferry_err e) FERRY_WUR;
/* The headers of what a new object carries. */
ferry_err ops_object_meta(
    struct remote_req *q, const struct remote_put *o) FERRY_WUR;
/* The copy source of q, guarded by its ETag, and its range for a part. */
ferry_err ops_copy_source(
    struct remote_req *q, const struct remote_copy_src *src) FERRY_WUR;
/*
 * Reads a completed request's reply whose body says what it did: the
 * HTTP result, an <Error> in a 200, then parse(q, out).  *out NULL first.
 */
ferry_err ops_reply(struct remote_req *q,
    ferry_err (*parse)(struct remote_req *, char **), char **out) FERRY_WUR;
/*
 * Makes b's bytes (an XML document) q's body, held by q until
 * remote_req_free(), sent as application/xml; b is left empty.
 */
ferry_err ops_body_xml(struct remote_req *q, struct buf *b) FERRY_WUR;

/* request.c */
ferry_err req_start(struct remote_req *q) FERRY_WUR;
/* Releases the easy handle of a finished request back to the pool. */
void req_release(struct remote_req *q);
/* Forgets a submitted request that has not completed (loop.c). */
void req_cancel(struct remote_req *q);
/* Non-zero when q has a header name (in any case) of ours. */
int req_has_header(const struct remote_req *q, const char *name);
/* Classifies a finished attempt: non-zero when it should be retried. */
int req_retryable(const struct remote_req *q, CURLcode rc);

/* response.c */
void req_reset_response(struct remote_req *q);
/*
 * The outcome of q, which has ended: REMOTE_FAILED when no reply came
 * (resp.err), else what its status says.  Pure.
 */
enum remote_outcome reply_outcome(const struct remote_req *q);
/* The outcome of one key's S3 <Code> in a DeleteObjects reply.  Pure. */
enum remote_outcome reply_code_outcome(const char *code);
/* curl's header and write callbacks, with the request as arg. */
size_t req_on_header(char *p, size_t size, size_t n, void *arg);
size_t req_on_write(char *p, size_t size, size_t n, void *arg);

#endif
