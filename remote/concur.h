/*
 * concur.h: how many requests a multi loop keeps in flight: the
 * controller's decisions, a pure function of the completions it is told
 * of and the time they came (concur.c).  Private to remote/; its
 * decisions reach users through remote_on_concur().
 */
#ifndef FERRY_REMOTE_CONCUR_H
#define FERRY_REMOTE_CONCUR_H

#include <stdint.h>

#include "remote/remote.h"

/* The most requests in flight ever, whatever memory allows. */
#define CONCUR_MAX 512
/* Bytes of --memory each request in flight is counted to hold. */
#define CONCUR_REQ_BYTES (256u << 10)

/* What a completed request says about the path. */
enum concur_event {
	CONCUR_OK,        /* answered (2xx): counts toward throughput */
	CONCUR_NEUTRAL,   /* answered otherwise: no signal either way */
	CONCUR_THROTTLED, /* 503 or 429: the server asks for less */
	CONCUR_LOST       /* a timeout or a reset connection */
};

/* Where the controller stands; every field read-only to its callers. */
struct concur {
	unsigned limit;             /* requests in flight allowed now */
	unsigned cap;               /* the most it may allow */
	int fixed;                  /* --jobs: never above it */
	int phase;                  /* concur.c's enum phase */
	enum remote_concur_why why; /* the last decision's reason */
	unsigned changes;           /* decisions made, the first included */
	/* the epoch being measured: completions since epoch_ns */
	int64_t epoch_ns; /* 0: none under way */
	unsigned done;    /* CONCUR_OK completions */
	unsigned busy;    /* of those, ones with the window mostly full */
	unsigned wasted;  /* requests refused */
	uint64_t bytes;
	uint64_t held;    /* the requests in flight at each, summed */
	double waited;    /* their latencies summed, in seconds */
	unsigned epochs;  /* measured at the present limit */
	int64_t since_ns; /* the last decision: requests sent before say
	                     nothing of the limit it set */
	/* the best throughput so far, and the limit that reached it */
	double best_rate, best_bytes;
	unsigned best_limit;
	unsigned prior;   /* the limit before a probe, to go back to */
	unsigned ceiling; /* after a cut: where the climb back stops */
	/* refusals (503, 429, timeouts, resets) since the last cut */
	unsigned seen, refused; /* requests ended, and of those refused */
	unsigned cut_gen;       /* the limit cut: 0 when none stands */
	double cut_share;       /* the share of refusals that cut it */
	double rate, byte_rate; /* the last epoch's, a second */
	double took_s;          /* the last epoch's time a request took */
	int64_t fastest_ns;     /* the shortest any answered request took */
};

/*
 * Sets c up: start requests in flight (at most cap), growing up to cap
 * unless fixed (--jobs), where start is also the cap.
 */
void concur_init(struct concur *c, unsigned start, unsigned cap, int fixed);

/* A request was sent: inflight are in flight now, itself included. */
void concur_sent(struct concur *c, unsigned inflight, int64_t now_ns);

/* How a request ended, for concur_done(); times on a monotonic clock. */
struct concur_end {
	enum concur_event ev;
	uint64_t bytes;    /* moved, both ways */
	unsigned inflight; /* in flight as it ended, itself included */
	int64_t sent_ns;   /* when it was started */
	int64_t took_ns;   /* the exchange, without connecting or waiting */
};

/*
 * A request ended as e says, at now_ns.  Returns non-zero when c->limit
 * or c->why changed (a decision to tell).
 */
int concur_done(struct concur *c, const struct concur_end *e, int64_t now_ns);

/*
 * The cap for a run allowed memory bytes of buffers and nofile
 * descriptors (a connection and a file each, per request), between 1 and
 * CONCUR_MAX.
 */
unsigned concur_cap(uint64_t memory, uint64_t nofile);

#endif
