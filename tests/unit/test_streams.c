/* test_streams.c: the number of parts sent at once (sync/streams.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sync/up/streams.h"

#define MIB (1ULL << 20)
#define MS 1000000LL

/*
 * Drives s as a server would that takes rate_mib[cap] MiB a second (the
 * last entry for any cap beyond), sampling every 10 ms with as many parts
 * busy as the cap, until it settles or ms pass.  Returns the cap.
 */
static unsigned
drive(struct streams *s, const unsigned *rate_mib, unsigned nrates, int ms)
{
	uint64_t sent = 0;
	int64_t now = 1000 * MS;
	unsigned cap = s->cap;
	int t;

	for (t = 0; t < ms && !s->settled; t += 10) {
		unsigned r = rate_mib[cap < nrates ? cap : nrates - 1];

		now += 10 * MS;
		sent += (uint64_t)r * MIB / 100;
		cap = streams_sample(s, sent, now, cap);
	}
	return cap;
}

struct settle_case {
	const char *what;
	unsigned rates[12]; /* MiB/s at cap 0 (unused), 1, 2, 3, ... */
	unsigned nrates;
	unsigned want;
};

static const struct settle_case settle_cases[] = {
    {"one stream faster than two (a Ceph gateway)", {0, 250, 170}, 3, 1},
    {"two no faster than one", {0, 100, 100}, 3, 1},
    {"two 10% faster: not enough", {0, 100, 110}, 3, 1},
    {"two 20% faster, four no faster", {0, 100, 120, 120, 125}, 5, 2},
    {"each doubling doubles, to 8",
        {0, 10, 20, 20, 40, 40, 40, 40, 80, 80, 80, 80}, 12, 8},
};

static void
test_settles(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(settle_cases) / sizeof(settle_cases[0]); i++) {
		const struct settle_case *c = &settle_cases[i];
		struct streams s;
		unsigned got;

		streams_init(&s);
		got = drive(&s, c->rates, c->nrates, 60000);
		if (got != c->want || !s.settled)
			fail_msg("%s: cap %u (settled %d), want %u", c->what,
			    got, s.settled, c->want);
	}
}

/* Nothing is measured before a part is sent, or while none is. */
static void
test_idle(void **state)
{
	struct streams s;
	int i;

	(void)state;
	streams_init(&s);
	for (i = 1; i <= 100; i++)
		assert_int_equal(
		    streams_sample(&s, (uint64_t)i * 64 * MIB, i * 100 * MS, 0),
		    1);
	assert_false(s.running);
	assert_true(s.best_rate == 0);
}

/*
 * An epoch in which fewer parts than the cap were sent, at any sample,
 * tells nothing: the cap stays until a full epoch is measured.
 */
static void
test_short_epoch(void **state)
{
	struct streams s;
	int64_t now = 0;
	uint64_t sent = 0;
	int i;

	(void)state;
	streams_init(&s);
	/* a full epoch at 1: 200 MiB/s measured, cap 2 to try */
	for (i = 0; i <= 60; i++, now += 10 * MS, sent += 2 * MIB)
		streams_sample(&s, sent, now, 1);
	assert_int_equal(s.cap, 2);
	/* at 2, but one part only now and then: no verdict, however slow */
	for (i = 0; i <= 300; i++, now += 10 * MS, sent += MIB / 10)
		assert_int_equal(
		    streams_sample(&s, sent, now, i % 7 == 0 ? 1 : 2), 2);
	assert_false(s.settled);
	/* then a full epoch at 2, no faster: back to 1, settled */
	for (i = 0; i <= 200 && !s.settled;
	     i++, now += 10 * MS, sent += 2 * MIB)
		streams_sample(&s, sent, now, 2);
	assert_true(s.settled);
	assert_int_equal(s.cap, 1);
}

/* An epoch needs its time and its bytes: a slow link takes longer. */
static void
test_epoch_length(void **state)
{
	struct streams s;
	int64_t now = 0;
	uint64_t sent = 0;

	(void)state;
	streams_init(&s);
	streams_sample(&s, sent, now, 1);
	/* 1 MiB/s: 4 MiB take 4 s, well past the half second */
	for (now = MS; now < 3900 * MS; now += 100 * MS) {
		sent = (uint64_t)(now / MS) * MIB / 1000;
		assert_int_equal(streams_sample(&s, sent, now, 1), 1);
	}
	assert_true(s.best_rate == 0);
	streams_sample(&s, 4 * MIB, 4000 * MS, 1);
	assert_int_equal(s.cap, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_settles),
	    cmocka_unit_test(test_idle),
	    cmocka_unit_test(test_short_epoch),
	    cmocka_unit_test(test_epoch_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
