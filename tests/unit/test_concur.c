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

/*
 * Runs c on a path of rtt seconds in front of a server that answers at
 * most smax requests a second, with the window always full, from *now
 * for secs; returns the limit at the end.
 */
static unsigned
simulate(struct concur *c, double rtt, double smax, double secs, int64_t *now)
{
	int64_t end = *now + (int64_t)(secs * SEC);

	while (*now < end) {
		double rate = c->limit / rtt < smax ? c->limit / rtt : smax;

		concur_sent(c, c->limit, *now);
		*now += (int64_t)(SEC / rate);
		(void)concur_done(c, CONCUR_OK, 4096, c->limit, *now);
	}
	return c->limit;
}

static const struct path_case {
	const char *name;
	double rtt, smax; /* the path */
	unsigned start, cap;
	int fixed;
	unsigned lo, hi; /* where the limit must end */
} paths[] = {
    {"near, the server's limit at 16", 0.001, 400, 16, 512, 0, 16, 20},
    {"far, a fast server: up to the cap", 0.080, 1e6, 16, 512, 0, 512, 512},
    {"far, a fast server: past 256", 0.080, 5000, 16, 512, 0, 256, 512},
    {"far, the server's limit at 32", 0.080, 400, 16, 512, 0, 32, 40},
    {"far, at a cap of 64", 0.080, 1e6, 16, 64, 0, 64, 64},
    {"far, --jobs 16 stays 16", 0.080, 1e6, 16, 16, 1, 16, 16},
    {"cap below the start", 0.080, 1e6, 16, 4, 0, 4, 4},
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
		got = simulate(&c, p->rtt, p->smax, 20, &now);
		if (got < p->lo || got > p->hi)
			fail_msg("%s: %u in flight, not %u-%u", p->name, got,
			    p->lo, p->hi);
	}
}

/* A path whose server gets faster: the probes find the new capacity. */
static void
test_path_changes(void **state)
{
	struct concur c;
	int64_t now = SEC;

	(void)state;
	concur_init(&c, REMOTE_JOBS_START, 512, 0);
	assert_in_range(simulate(&c, 0.080, 400, 10, &now), 32, 40);
	assert_in_range(simulate(&c, 0.080, 4000, 20, &now), 256, 512);
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
		assert_int_equal(concur_done(&c, CONCUR_OK, 100, 2, now), 0);
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
	} ends[4];
	size_t nends;
	unsigned limit;
	enum remote_concur_why why;
} cuts[] = {
    {"a SlowDown halves", 64, 512, 0, {{CONCUR_THROTTLED, 10}}, 1, 32,
        REMOTE_CONCUR_SLOWDOWN},
    {"a burst counts once", 64, 512, 0,
        {{CONCUR_THROTTLED, 10}, {CONCUR_THROTTLED, 20},
            {CONCUR_THROTTLED, 400}},
        3, 32, REMOTE_CONCUR_SLOWDOWN},
    {"two apart halve twice", 64, 512, 0,
        {{CONCUR_THROTTLED, 10}, {CONCUR_THROTTLED, 700}}, 2, 16,
        REMOTE_CONCUR_SLOWDOWN},
    {"a reset halves", 64, 512, 0, {{CONCUR_LOST, 10}}, 1, 32,
        REMOTE_CONCUR_LOST},
    {"never below one", 1, 512, 0, {{CONCUR_THROTTLED, 10}}, 1, 1,
        REMOTE_CONCUR_SLOWDOWN},
    {"--jobs halves too", 16, 16, 1, {{CONCUR_THROTTLED, 10}}, 1, 8,
        REMOTE_CONCUR_SLOWDOWN},
    {"a 404 says nothing", 64, 512, 0, {{CONCUR_NEUTRAL, 10}}, 1, 64,
        REMOTE_CONCUR_START},
};

static void
test_cuts(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cuts) / sizeof(*cuts); i++) {
		const struct cut_case *k = &cuts[i];
		struct concur c;

		concur_init(&c, k->start, k->cap, k->fixed);
		for (j = 0; j < k->nends; j++)
			(void)concur_done(&c, k->ends[j].ev, 0, c.limit,
			    SEC + k->ends[j].ms * 1000000LL);
		if (c.limit != k->limit || c.why != k->why)
			fail_msg("%s: %u (%d), not %u (%d)", k->name, c.limit,
			    (int)c.why, k->limit, (int)k->why);
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
	assert_int_equal(concur_done(&c, CONCUR_THROTTLED, 0, 16, now), 1);
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
	    cmocka_unit_test(test_path_changes),
	    cmocka_unit_test(test_idle_window),
	    cmocka_unit_test(test_cuts),
	    cmocka_unit_test(test_climb_back),
	    cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
