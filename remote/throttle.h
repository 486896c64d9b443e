/*
 * throttle.h: the one token bucket of --bwlimit that every transfer of a
 * multi loop draws on (bwlimit.c).  Private to remote/.
 */
#ifndef FERRY_REMOTE_THROTTLE_H
#define FERRY_REMOTE_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "remote/bwlimit.h"

struct remote_loop;
struct remote_req;

/* The token bucket of --bwlimit, for the whole loop. */
struct bw_bucket {
	struct remote_bwlimit table;
	uint64_t rate; /* bytes a second now; 0: no limit */
	double tokens; /* bytes that may move; below 0: a debt */
	int64_t last_ns, checked_ns;
	unsigned paused; /* transfers paused for it now */
	uint64_t pauses; /* times a transfer was paused, told with -v */
};

/* Sets up the loop's bucket for t (NULL or no slots: none). */
ferry_err bw_open(
    struct remote_loop *l, const struct remote_bwlimit *t) FERRY_WUR;
void bw_close(struct remote_loop *l);
/*
 * From a transfer's callback: non-zero when q must pause its direction
 * dir (CURLPAUSE_SEND, CURLPAUSE_RECV) for the bucket to refill.
 */
int bw_hold(struct remote_req *q, int dir);
/* Takes n bytes that moved from the bucket. */
void bw_spend(struct remote_loop *l, size_t n);
/* Forgets that q is paused (its handle is let go). */
void bw_forget(struct remote_req *q);
/*
 * Refills the bucket and resumes paused transfers when it allows; returns
 * the ms until it may allow them, or -1 when none waits.
 */
int bw_tick(struct remote_loop *l);

#endif
