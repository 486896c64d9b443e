/*
 * loop.h: driving the requests of a struct remote: the window, retries,
 * running, waiting and ending the multi loop (loop.c).  Included by
 * remote.h.
 */
#ifndef FERRY_REMOTE_LOOP_H
#define FERRY_REMOTE_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct remote;
struct remote_req;

/*
 * Requests the loop keeps in flight now, as the controller (concur.c)
 * decides: with a fixed --jobs, that number, halved on each 503 SlowDown,
 * timeout or reset and climbing back; otherwise from REMOTE_JOBS_START up
 * while throughput rises, to a cap set by --memory and descriptors.
 */
unsigned remote_window(const struct remote *r);

/* Why the controller holds the number it does. */
enum remote_concur_why {
	REMOTE_CONCUR_START,      /* the starting number, not measured yet */
	REMOTE_CONCUR_FIXED,      /* --jobs */
	REMOTE_CONCUR_GROWING,    /* throughput rose with more: doubled */
	REMOTE_CONCUR_FLAT,       /* throughput stopped rising: held */
	REMOTE_CONCUR_QUEUEING,   /* requests wait at the server: held */
	REMOTE_CONCUR_CAP,        /* at the cap (--memory, descriptors) */
	REMOTE_CONCUR_PROBING,    /* held a while: trying a quarter more */
	REMOTE_CONCUR_SLOWDOWN,   /* a 503 or 429 from the server: halved */
	REMOTE_CONCUR_LOST,       /* a timeout or a reset: halved */
	REMOTE_CONCUR_RECOVERING, /* climbing back after a cut */
	REMOTE_CONCUR_RECOVERED   /* back where it was cut: held */
};

/* A decision of the controller, as remote_on_concur()'s hook sees it. */
struct remote_concur {
	unsigned in_flight; /* requests in flight allowed from now */
	unsigned cap;       /* the most it may allow */
	int fixed;          /* set by --jobs */
	enum remote_concur_why why;
	const char *reason; /* why, as a word: "growing", "slowdown" */
	double rate;        /* completions a second in the last epoch */
	double bytes_rate;  /* bytes a second in the last epoch */
};
/* Everything in t is valid during the call only. */
typedef void (*remote_concur_fn)(const struct remote_concur *t, void *arg);
/*
 * Has fn(t, arg) called from within remote_run() for each decision of
 * the controller of r's loop (shared by both sides of a mirror), before
 * it is told with -v.  NULL: none.
 */
void remote_on_concur(struct remote *r, remote_concur_fn fn, void *arg);
/*
 * The most requests in flight a run allowed memory bytes of buffers
 * (--memory) may have, within the descriptors it may open: the cap of
 * struct remote_opts's max_connections when adaptive.
 */
unsigned remote_concur_cap(uint64_t memory);
/* The controller's present decision, into *t. */
void remote_concur_get(const struct remote *r, struct remote_concur *t);

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

#endif
