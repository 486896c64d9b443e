/* test_concur.c: the controller of requests in flight, on simulated paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/concur.h"

#define SEC 1000000000LL

/* Tells c of a request that ended as ev at now, having taken took ns. */
static int
ended(struct concur *c, enum concur_event ev, unsigned inflight, int64_t took,
    int64_t now)
{
	struct concur_end e = {ev, 4096, inflight, now - took, took};

	return concur_done(c, &e, now);
}

/*
 * Runs c on a path of rtt seconds in front of a server that answers at
 * most smax requests a second, with the window always full, from *now
 * for secs, refusing (503) a share of steady plus 1 - above / limit
 * when the limit is above above (0: never); returns the limit at the end.
 */
static unsigned
simulate_refusing(struct concur *c, double rtt, double smax, double steady,
    unsigned above, double secs, int64_t *now)
{
	int64_t end = *now + (int64_t)(secs * SEC);
	double owed = 0;

	while (*now < end) {
		double rate = c->limit / rtt < smax ? c->limit / rtt : smax;
		enum concur_event ev = CONCUR_OK;

		owed += steady;
		if (above != 0 && c->limit > above)
			owed += 1 - (double)above / c->limit;
		if (owed >= 1) {
			owed -= 1;
			ev = CONCUR_THROTTLED;
		}
		concur_sent(c, c->limit, *now);
		*now += (int64_t)(SEC / rate);
		(void)ended(
		    c, ev, c->limit, (int64_t)(c->limit / rate * SEC), *now);
	}
	return c->limit;
}

/* The same, refusing nothing. */
static unsigned
simulate(struct concur *c, double rtt, double smax, double secs, int64_t *now)
{
	return simulate_refusing(c, rtt, smax, 0, 0, secs, now);
}

/*
 * A path as the latency proxy makes it: each request waits rtt / 2 each
 * way and the server answers one at a time, smax a second; a request
 * goes out as soon as one ends or the limit grows, so replies come back
 * in bursts a round trip apart.  Runs c from *now for secs; returns the
 * limit at the end.
 */
static unsigned
simulate_bursts(struct concur *c, double rtt, double smax, double jitter,
    double secs, int64_t *now)
{
	uint64_t seed = 37;
	int64_t at[CONCUR_MAX + 1] = {0}, sent[CONCUR_MAX + 1] = {0};
	int64_t end_ns = *now + (int64_t)(secs * SEC), free_ns = 0;
	int64_t half = (int64_t)(rtt / 2 * SEC), each = (int64_t)(SEC / smax);
	unsigned i, k, active = 0;

	while (*now < end_ns) {
		/* requests go out up to the limit */
		for (; active < c->limit; active++) {
			int64_t arrive = *now + half;

			free_ns = (free_ns > arrive ? free_ns : arrive) + each;
			sent[active] = *now;
			seed = seed * 6364136223846793005ULL +
			       1442695040888963407ULL;
			at[active] =
			    free_ns + half +
			    (int64_t)(jitter * rtt * SEC *
			              (double)(seed >> 11) / (1ULL << 53));
			concur_sent(c, active + 1, *now);
		}
		for (k = 0, i = 1; i < active; i++)
			if (at[i] < at[k])
				k = i;
		*now = at[k];
		(void)ended(c, CONCUR_OK, active, *now - sent[k], *now);
		/* the last request takes the ended one's place */
		active--;
		at[k] = at[active];
		sent[k] = sent[active];
	}
	return c->limit;
}

static const struct path_case {
	const char *name;
	double rtt, smax; /* the path */
	unsigned start, cap;
	int fixed;
	unsigned lo, hi; /* where the limit must end */
	int bursts;      /* replies in bursts: simulate_bursts() */
} paths[] = {
    {"near, the server's limit at 16", 0.001, 400, 16, 512, 0, 16, 20, 0},
    {"far, a fast server: up to the cap", 0.080, 1e6, 16, 512, 0, 512, 512, 0},
    {"far, a fast server: past 256", 0.080, 5000, 16, 512, 0, 256, 512, 0},
    {"far, the server's limit at 32", 0.080, 400, 16, 512, 0, 32, 40, 0},
    {"far, at a cap of 64", 0.080, 1e6, 16, 64, 0, 64, 64, 0},
    {"far, --jobs 16 stays 16", 0.080, 1e6, 16, 16, 1, 16, 16, 0},
    {"cap below the start", 0.080, 1e6, 16, 4, 0, 4, 4, 0},
    {"bursts, near, the server's limit at 16", 0.001, 400, 16, 512, 0, 16, 20,
        1},
    {"bursts, far, a fast server: past 256", 0.080, 1e5, 16, 512, 0, 256, 512,
        1},
    {"bursts, far, the server's limit at 32", 0.080, 400, 16, 512, 0, 32, 64,
        1},
    {"bursts, farther, the server's limit at 64", 0.160, 400, 16, 512, 0, 64,
        128, 1},
};

static void
test_paths(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		const struct path_case *p = &paths[i];
		struct concur c;
		int64_t now = SEC;
		unsigned got;

		concur_init(&c, p->start, p->cap, p->fixed);
		got = p->bursts
		          ? simulate_bursts(&c, p->rtt, p->smax, 0.25, 20, &now)
		          : simulate(&c, p->rtt, p->smax, 20, &now);
		if (got < p->lo || got > p->hi)
			fail_msg("%s: %u in flight, not %u-%u", p->name, got,
			    p->lo, p->hi);
	}
}

/* How soon growth reaches a far path's needs: rtt, seconds, at least. */
static const struct soon_case {
	double rtt, secs;
	unsigned lo;
} soon[] = {
    {0.020, 0.35, 256},
    {0.080, 0.75, 256},
    {0.160, 1.40, 256},
};

/*
 * Each doubling is judged on the requests sent under it, a round trip
 * after it (no warm-up epoch), so a far path fills in a few round trips.
 */
static void
test_soon(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(soon) / sizeof(*soon); i++) {
		struct concur c;
		int64_t now = SEC;
		unsigned got;

		concur_init(&c, REMOTE_JOBS_START, 512, 0);
		got = simulate_bursts(
		    &c, soon[i].rtt, 1e5, 0.25, soon[i].secs, &now);
		if (got < soon[i].lo)
			fail_msg("%.0f ms: %u in flight after %.2f s, not %u",
			    soon[i].rtt * 1000, got, soon[i].secs, soon[i].lo);
	}
}

/*
 * A path whose server gets faster: the probes find the new capacity.
 * From 16, the slow server's 32 is found; from the start of a run, more
 * than it needs, which does not grow (no gain) and is not given up
 * either (none lost: the controller lowers the limit only on refusals).
 */
static void
test_path_changes(void **state)
{
	struct concur c;
	int64_t now = SEC;

	(void)state;
	concur_init(&c, 16, 512, 0);
	assert_in_range(simulate(&c, 0.080, 400, 10, &now), 32, 40);
	assert_in_range(simulate(&c, 0.080, 4000, 20, &now), 256, 512);
	now = SEC;
	concur_init(&c, REMOTE_JOBS_START, 512, 0);
	assert_int_equal(simulate(&c, 0.080, 400, 10, &now), REMOTE_JOBS_START);
	assert_in_range(simulate(&c, 0.080, 4000, 20, &now), 256, 512);
}

/*
 * A near server that answers one request at a time, 400 a second: from
 * 128 in flight each request waits in its queue for a third of a second,
 * a hundred times the fastest: held at 128, neither doubled nor probed
 * (more in flight would only lengthen the queue); the same server 80 ms
 * away, with 16 in flight, takes its round trip: it grows.
 */
static void
test_queueing(void **state)
{
	struct concur c;
	int64_t now = SEC;

	(void)state;
	concur_init(&c, 128, 512, 0);
	assert_int_equal(simulate_bursts(&c, 0.001, 400, 0.25, 20, &now), 128);
	assert_int_equal(c.why, REMOTE_CONCUR_QUEUEING);
	assert_int_equal(c.changes, 2);
	now = SEC;
	concur_init(&c, 16, 512, 0);
	assert_in_range(
	    simulate_bursts(&c, 0.080, 400, 0.25, 20, &now), 32, 64);
}

/* Epochs with the window mostly empty say nothing: no growth. */
static void
test_idle_window(void **state)
{
	struct concur c;
	int64_t now = SEC;
	int i;

	(void)state;
	concur_init(&c, 16, 512, 0);
	for (i = 0; i < 10000; i++) {
		concur_sent(&c, 16, now);
		now += SEC / 1000;
		assert_int_equal(ended(&c, CONCUR_OK, 2, SEC / 1000, now), 0);
	}
	assert_int_equal(c.limit, 16);
	assert_int_equal(c.why, REMOTE_CONCUR_START);
}

/* A script of ends: event, ms after the start, then the expected state. */
static const struct cut_case {
	const char *name;
	unsigned start, cap;
	int fixed;
	struct {
		enum concur_event ev;
		int ms;
		unsigned n; /* ends of this kind at ms; 0: one */
	} ends[4];
	size_t nends;
	unsigned limit;
	enum remote_concur_why why;
} cuts[] = {
    {"a SlowDown halves", 64, 512, 0, {{CONCUR_THROTTLED, 10, 0}}, 1, 32,
        REMOTE_CONCUR_SLOWDOWN},
    {"a burst counts once", 64, 512, 0,
        {{CONCUR_THROTTLED, 10, 0}, {CONCUR_THROTTLED, 20, 0},
            {CONCUR_THROTTLED, 400, 0}},
        3, 32, REMOTE_CONCUR_SLOWDOWN},
    {"a round trip later, a rising share halves again", 64, 512, 0,
        {{CONCUR_THROTTLED, 10, 0}, {CONCUR_OK, 20, 60},
            {CONCUR_THROTTLED, 700, 8}},
        3, 16, REMOTE_CONCUR_SLOWDOWN},
    {"a steady share does not", 64, 512, 0,
        {{CONCUR_THROTTLED, 10, 0}, {CONCUR_OK, 20, 63},
            {CONCUR_THROTTLED, 700, 0}},
        3, 32, REMOTE_CONCUR_SLOWDOWN},
    {"nor within a round trip", 64, 512, 0,
        {{CONCUR_THROTTLED, 10, 0}, {CONCUR_OK, 20, 10},
            {CONCUR_THROTTLED, 700, 20}},
        3, 32, REMOTE_CONCUR_SLOWDOWN},
    {"a reset halves", 64, 512, 0, {{CONCUR_LOST, 10, 0}}, 1, 32,
        REMOTE_CONCUR_LOST},
    {"never below one", 1, 512, 0, {{CONCUR_THROTTLED, 10, 0}}, 1, 1,
        REMOTE_CONCUR_SLOWDOWN},
    {"--jobs halves too", 16, 16, 1, {{CONCUR_THROTTLED, 10, 0}}, 1, 8,
        REMOTE_CONCUR_SLOWDOWN},
    {"a 404 says nothing", 64, 512, 0, {{CONCUR_NEUTRAL, 10, 0}}, 1, 64,
        REMOTE_CONCUR_START},
};

static void
test_cuts(void **state)
{
	size_t i, j, n;

	(void)state;
	for (i = 0; i < sizeof(cuts) / sizeof(*cuts); i++) {
		const struct cut_case *k = &cuts[i];
		struct concur c;

		concur_init(&c, k->start, k->cap, k->fixed);
		for (j = 0; j < k->nends; j++)
			for (n = 0; n < (k->ends[j].n ? k->ends[j].n : 1); n++)
				(void)ended(&c, k->ends[j].ev, c.limit, 0,
				    SEC + k->ends[j].ms * 1000000LL);
		if (c.limit != k->limit || c.why != k->why)
			fail_msg("%s: %u (%d), not %u (%d)", k->name, c.limit,
			    (int)c.why, k->limit, (int)k->why);
	}
}

/* Servers that refuse: a share, steady or rising with the load. */
static const struct refuse_case {
	const char *name;
	double steady;
	unsigned above;
	unsigned lo, hi; /* where the limit must stay after the first 5 s */
} refusing[] = {
    {"5% refused at any load: no collapse", 0.05, 0, 128, 512},
    {"1% refused at any load", 0.01, 0, 256, 512},
    {"refused above 64 in flight: held near it", 0, 64, 24, 96},
};

static void
test_refusing(void **state)
{
	size_t i;
	int s;

	(void)state;
	for (i = 0; i < sizeof(refusing) / sizeof(*refusing); i++) {
		const struct refuse_case *k = &refusing[i];
		struct concur c;
		int64_t now = SEC;
		unsigned got;

		concur_init(&c, REMOTE_JOBS_START, 512, 0);
		(void)simulate_refusing(
		    &c, 0.080, 1e6, k->steady, k->above, 5, &now);
		for (s = 0; s < 30; s++) {
			got = simulate_refusing(
			    &c, 0.080, 1e6, k->steady, k->above, 0.5, &now);
			if (got < k->lo || got > k->hi)
				fail_msg(
				    "%s: %u in flight at %.1f s, not %u-%u",
				    k->name, got, 5 + s * 0.5, k->lo, k->hi);
		}
	}
}

/* After a cut, successes climb back to where it was cut, no further. */
static void
test_climb_back(void **state)
{
	struct concur c;
	int64_t now = SEC;

	(void)state;
	concur_init(&c, 16, 16, 1);
	assert_int_equal(ended(&c, CONCUR_THROTTLED, 16, 0, now), 1);
	assert_int_equal(c.limit, 8);
	assert_int_equal(simulate(&c, 0.080, 1e6, 10, &now), 16);
	assert_int_equal(c.why, REMOTE_CONCUR_RECOVERED);
}

static const struct cap_case {
	uint64_t memory, nofile;
	unsigned cap;
} caps[] = {
    {256ULL << 20, 65536, 512},
    {256ULL << 20, 1024, 480},
    {16ULL << 20, 65536, 64},
    {0, 65536, 1},
    {1ULL << 30, 10, 1},
    {UINT64_MAX, UINT64_MAX, CONCUR_MAX},
};

static void
test_cap(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(caps) / sizeof(*caps); i++)
		assert_int_equal(
		    concur_cap(caps[i].memory, caps[i].nofile), caps[i].cap);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_soon),
	    cmocka_unit_test(test_path_changes),
	    cmocka_unit_test(test_queueing),
	    cmocka_unit_test(test_idle_window),
	    cmocka_unit_test(test_cuts),
	    cmocka_unit_test(test_refusing),
	    cmocka_unit_test(test_climb_back),
	    cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
