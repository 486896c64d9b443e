/*
 * concur.c: the controller of requests in flight.  It starts at
 * REMOTE_JOBS_START and doubles while each doubling raises completions (or
 * bytes) a second by more than RISE (20%); when one does not, it goes back to
 * the best limit and holds there, probing a quarter more now and then,
 * since a path's capacity moves.  A 503 or 429, a timeout or a reset
 * halves it (once per CUT_GAP_NS, so that one burst counts once) and it
 * climbs back in small steps to where it was cut (AIMD).  Throughput is
 * measured over epochs: at least the limit's worth of completions and
 * EPOCH_MIN_NS, begun when the window is mostly full; an epoch in which
 * the window mostly was not full says nothing about the path (the
 * planner or the disk held the run) and is dropped.  The first epoch
 * after each decision, of the limit's worth of completions, is a
 * warm-up and not measured: new connections pay their handshakes then,
 * and the requests sent under the old limit end.
 */
#include <string.h>

#include "remote/concur.h"

#define EPOCH_MIN_NS 100000000LL /* 0.1 s */
#define EPOCH_MIN_DONE 8
#define CUT_GAP_NS 500000000LL /* 0.5 s */
#define RISE 1.2               /* a gain below 20% is noise */
#define HOLD_EPOCHS 8          /* epochs held between probes */

enum phase { GROW, HOLD, PROBE, CLIMB };

void
concur_init(struct concur *c, unsigned start, unsigned cap, int fixed)
{
	memset(c, 0, sizeof(*c));
	c->cap = cap ? cap : 1;
	c->limit = start && start < c->cap ? start : c->cap;
	c->fixed = fixed;
	c->phase = fixed ? HOLD : GROW;
	c->why = fixed ? REMOTE_CONCUR_FIXED : REMOTE_CONCUR_START;
	c->best_limit = c->limit;
	c->changes = 1;
	c->warm = 1;
}

void
concur_sent(struct concur *c, unsigned inflight, int64_t now_ns)
{
	if (c->epoch_ns != 0 || (uint64_t)inflight * 4 < (uint64_t)c->limit * 3)
		return;
	c->epoch_ns = now_ns;
	c->done = c->busy = 0;
	c->bytes = 0;
}

/* Sets the limit to n (within 1 and the cap) for why; returns 1. */
static int
decide(struct concur *c, unsigned n, enum remote_concur_why why)
{
	if (n > c->cap)
		n = c->cap;
	c->limit = n ? n : 1;
	c->why = why;
	c->epochs = 0;
	c->changes++;
	c->warm = 1;
	return 1;
}

/* Halves the limit for ev (CONCUR_THROTTLED or CONCUR_LOST). */
static int
cut(struct concur *c, enum concur_event ev, int64_t now_ns)
{
	if (c->cut_ns != 0 && now_ns - c->cut_ns < CUT_GAP_NS)
		return 0;
	c->cut_ns = now_ns;
	c->ceiling = c->limit;
	c->phase = CLIMB;
	c->epoch_ns = 0;
	c->best_rate = c->best_bytes = 0;
	return decide(c, c->limit / 2,
	    ev == CONCUR_THROTTLED ? REMOTE_CONCUR_SLOWDOWN
	                           : REMOTE_CONCUR_LOST);
}

/* Non-zero when the last epoch beat the best by more than noise. */
static int
rose(const struct concur *c)
{
	return c->rate > c->best_rate * RISE ||
	       c->byte_rate > c->best_bytes * RISE;
}

/* Takes the last epoch as the best, at the present limit. */
static void
keep_best(struct concur *c)
{
	c->best_rate = c->rate;
	c->best_bytes = c->byte_rate;
	c->best_limit = c->limit;
}

/* The growing phase: doubles while throughput rises. */
static int
grow(struct concur *c)
{
	if (c->best_rate > 0 && !rose(c)) {
		c->phase = HOLD;
		return decide(c, c->best_limit, REMOTE_CONCUR_FLAT);
	}
	keep_best(c);
	if (c->limit >= c->cap) {
		c->phase = HOLD;
		return decide(c, c->cap, REMOTE_CONCUR_CAP);
	}
	return decide(c, c->limit * 2, REMOTE_CONCUR_GROWING);
}

/* Holding: follows the throughput there, and probes above now and then. */
static int
hold(struct concur *c)
{
	/* the measure at this limit, smoothed: the path may change */
	c->best_rate =
	    c->best_rate > 0 ? (c->best_rate + c->rate) / 2 : c->rate;
	c->best_bytes = c->best_bytes > 0 ? (c->best_bytes + c->byte_rate) / 2
	                                  : c->byte_rate;
	c->best_limit = c->limit;
	if (c->fixed || ++c->epochs < HOLD_EPOCHS || c->limit >= c->cap)
		return 0;
	c->prior = c->limit;
	c->phase = PROBE;
	return decide(c, c->limit + (c->limit + 3) / 4, REMOTE_CONCUR_PROBING);
}

/* A probe's epoch: growing again if it paid, else back to before. */
static int
probe(struct concur *c)
{
	if (rose(c)) {
		c->phase = GROW;
		return grow(c);
	}
	c->phase = HOLD;
	return decide(c, c->prior, REMOTE_CONCUR_FLAT);
}

/* After a cut: back up in steps of a sixteenth, to where it was cut. */
static int
climb(struct concur *c)
{
	unsigned step = c->limit / 16 ? c->limit / 16 : 1;

	if (c->limit + step >= c->ceiling) {
		c->phase = HOLD;
		return decide(c, c->ceiling, REMOTE_CONCUR_RECOVERED);
	}
	return decide(c, c->limit + step, REMOTE_CONCUR_RECOVERING);
}

/* Ends the epoch at now_ns and decides from it. */
static int
judge(struct concur *c, int64_t now_ns)
{
	double secs = (double)(now_ns - c->epoch_ns) / 1e9;
	int valid = (uint64_t)c->busy * 4 >= (uint64_t)c->done * 3;

	c->epoch_ns = 0;
	if (!valid || secs <= 0)
		return 0;
	c->rate = c->done / secs;
	c->byte_rate = (double)c->bytes / secs;
	switch (c->phase) {
	case GROW:
		return grow(c);
	case PROBE:
		return probe(c);
	case CLIMB:
		return climb(c);
	default:
		return hold(c);
	}
}

int
concur_done(struct concur *c, enum concur_event ev, uint64_t bytes,
    unsigned inflight, int64_t now_ns)
{
	unsigned need = c->limit > EPOCH_MIN_DONE ? c->limit : EPOCH_MIN_DONE;

	if (ev == CONCUR_THROTTLED || ev == CONCUR_LOST)
		return cut(c, ev, now_ns);
	if (ev != CONCUR_OK || c->epoch_ns == 0)
		return 0;
	c->done++;
	c->bytes += bytes;
	if ((uint64_t)inflight * 2 >= c->limit)
		c->busy++;
	if (c->done < need)
		return 0;
	if (c->warm) {
		c->warm = 0;
		c->epoch_ns = 0;
		return 0;
	}
	if (now_ns - c->epoch_ns < EPOCH_MIN_NS)
		return 0;
	return judge(c, now_ns);
}

unsigned
concur_cap(uint64_t memory, uint64_t nofile)
{
	uint64_t cap = CONCUR_MAX, m = memory / CONCUR_REQ_BYTES;
	uint64_t f = nofile > 64 ? (nofile - 64) / 2 : 1;

	if (m < cap)
		cap = m;
	if (f < cap)
		cap = f;
	return cap ? (unsigned)cap : 1;
}
