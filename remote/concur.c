/*
 * concur.c: the controller of requests in flight.  It starts at
 * REMOTE_JOBS_START and doubles while each doubling raises completions (or
 * bytes) a second by more than RISE (20%); when one does not, it goes back to
 * the best limit and holds there, probing a quarter more now and then,
 * since a path's capacity moves.  Neither a doubling nor a probe is tried
 * while requests take more than QUEUE times the fastest one seen: they
 * then wait in a queue at the server (or in this process), which more in
 * flight would only lengthen; a far path's requests take its round trip,
 * as its fastest did, and go on growing.  A 503 or 429, a timeout or a reset
 * halves it and it climbs back in small steps to where it was cut
 * (AIMD).  Another refusal halves it again only a round trip later
 * (once the requests sent before the cut have ended) and only if
 * refusals are now more than twice the share that made the last cut,
 * by more than chance (MARGIN) (or
 * the steady share seen over ROLL round trips since): a server that
 * refuses a steady share whatever the load is not helped by fewer
 * requests, and a burst counts once.  Throughput is
 * measured over epochs: at least the limit's worth of completions and
 * EPOCH_MIN_NS, begun when the window is mostly full; an epoch in which
 * the window mostly was not full says nothing about the path (the
 * planner or the disk held the run) and is dropped.  Only requests sent
 * since the last decision count, and throughput is taken by Little's
 * law, the requests in flight over the time each took (handshakes and
 * waits for a connection left out): replies come back in bursts a round
 * trip apart, and completions counted over a round trip or two (what
 * an epoch lasts far away) caught one burst or two, doubling or halving
 * the rate seen.
 */
#include <string.h>

#include "remote/concur.h"

#define EPOCH_MIN_NS 50000000LL /* 0.05 s */
#define EPOCH_MIN_DONE 8
#define RISE 1.2      /* a gain below 20% is noise */
#define HOLD_EPOCHS 8 /* epochs held between probes */
#define MARGIN 3      /* refusals beyond twice the share, not chance */
#define ROLL 16       /* round trips over which a steady share is taken */
#define QUEUE 2       /* requests taking twice the fastest: a queue */

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
}

void
concur_sent(struct concur *c, unsigned inflight, int64_t now_ns)
{
	if (c->epoch_ns != 0 || (uint64_t)inflight * 4 < (uint64_t)c->limit * 3)
		return;
	c->epoch_ns = now_ns;
	c->done = c->busy = c->wasted = 0;
	c->bytes = c->held = 0;
	c->waited = 0;
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
	c->epoch_ns = 0;
	return 1;
}

/* The share of refusals since the last cut, over at least the limit. */
static double
share(const struct concur *c)
{
	unsigned n = c->seen > c->limit ? c->seen : c->limit;

	return (double)c->refused / n;
}

/*
 * Refusals a long while apart without a cut: their share becomes the
 * one the next cut must double (0 after a clean stretch: the next
 * refusal cuts at once).
 */
static void
roll(struct concur *c)
{
	unsigned n = c->limit > c->cut_gen ? c->limit : c->cut_gen;

	if (c->seen < (uint64_t)n * ROLL)
		return;
	c->cut_share = share(c);
	c->seen = c->refused = 0;
}

/* Halves the limit for ev (CONCUR_THROTTLED or CONCUR_LOST), or not yet. */
static int
cut(struct concur *c, enum concur_event ev)
{
	if (c->cut_share > 0 &&
	    (c->seen < c->cut_gen ||
	        c->refused <= c->cut_share * 2 * c->seen + MARGIN))
		return 0;
	c->cut_share = share(c);
	c->cut_gen = c->limit;
	c->seen = c->refused = 0;
	/* a probe refused: back to the limit before it, no higher */
	c->ceiling = c->phase == PROBE ? c->prior : c->limit;
	c->phase = CLIMB;
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

/* Non-zero when the last epoch's requests waited in a queue. */
static int
queued(const struct concur *c)
{
	return c->fastest_ns > 0 && c->took_s * 1e9 > QUEUE * c->fastest_ns;
}

/* The growing phase: doubles while throughput rises and nothing queues. */
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
	if (queued(c)) {
		c->phase = HOLD;
		return decide(c, c->limit, REMOTE_CONCUR_QUEUEING);
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
	if (c->fixed || ++c->epochs < HOLD_EPOCHS || c->limit >= c->cap ||
	    queued(c))
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

/* After a cut: back up in steps of an eighth, to where it was cut. */
static int
climb(struct concur *c)
{
	unsigned step = (c->limit + 7) / 8;

	if (c->limit + step >= c->ceiling) {
		c->phase = HOLD;
		return decide(c, c->ceiling, REMOTE_CONCUR_RECOVERED);
	}
	return decide(c, c->limit + step, REMOTE_CONCUR_RECOVERING);
}

/* Ends the epoch and decides from it. */
static int
judge(struct concur *c)
{
	int valid = (uint64_t)c->busy * 4 >= (uint64_t)c->done * 3;

	c->epoch_ns = 0;
	if (!valid || c->waited <= 0)
		return 0;
	/* Little's law: requests in flight over the time each took */
	c->rate = (double)c->held / c->waited * c->done / (c->done + c->wasted);
	c->took_s = c->waited / (c->done + c->wasted);
	c->byte_rate = (double)c->bytes / c->done * c->rate;
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

/* Counts e toward the epoch under way, and judges it when it is long enough. */
static int
count(struct concur *c, const struct concur_end *e, int64_t now_ns)
{
	unsigned need = c->limit > EPOCH_MIN_DONE ? c->limit : EPOCH_MIN_DONE;

	if (e->ev == CONCUR_NEUTRAL || c->epoch_ns == 0 ||
	    e->sent_ns < c->since_ns)
		return 0;
	c->held += e->inflight;
	c->waited += (double)e->took_ns / 1e9;
	/* a refused request held its place for nothing */
	if (e->ev != CONCUR_OK) {
		c->wasted++;
		return 0;
	}
	c->done++;
	c->bytes += e->bytes;
	if ((uint64_t)e->inflight * 2 >= c->limit)
		c->busy++;
	if (c->done < need || now_ns - c->epoch_ns < EPOCH_MIN_NS)
		return 0;
	return judge(c);
}

int
concur_done(struct concur *c, const struct concur_end *e, int64_t now_ns)
{
	int told = 0;

	c->seen++;
	if (e->ev == CONCUR_OK && e->took_ns > 0 &&
	    (c->fastest_ns == 0 || e->took_ns < c->fastest_ns))
		c->fastest_ns = e->took_ns;
	if (e->ev == CONCUR_THROTTLED || e->ev == CONCUR_LOST) {
		c->refused++;
		told = cut(c, e->ev);
	}
	if (!told)
		told = count(c, e, now_ns);
	roll(c);
	if (told)
		c->since_ns = now_ns;
	return told;
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
