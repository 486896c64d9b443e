/* test_bounds.c: the numbers a server sends, read strictly and bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote.h"
#include "sync/run/opts.h"

#define TIB5 "5497558138880"

static void
test_parse_size(void **state)
{
	static const struct {
		const char *s;
		uint64_t max;
		int ok;
		uint64_t want;
	} cases[] = {
	    {"0", REMOTE_MAX_OBJECT, 1, 0},
	    {"123", REMOTE_MAX_OBJECT, 1, 123},
	    {"007", REMOTE_MAX_OBJECT, 1, 7},
	    {TIB5, REMOTE_MAX_OBJECT, 1, REMOTE_MAX_OBJECT},
	    {"5497558138881", REMOTE_MAX_OBJECT, 0, 0},
	    {"18446744073709551615", UINT64_MAX, 1, UINT64_MAX},
	    {"18446744073709551616", UINT64_MAX, 0, 0},
	    {"18446744073709551615", REMOTE_MAX_OBJECT, 0, 0},
	    {"99999999999999999999999", REMOTE_MAX_OBJECT, 0, 0},
	    {"", REMOTE_MAX_OBJECT, 0, 0},
	    {"-1", REMOTE_MAX_OBJECT, 0, 0},
	    {"+1", REMOTE_MAX_OBJECT, 0, 0},
	    {" 1", REMOTE_MAX_OBJECT, 0, 0},
	    {"1 ", REMOTE_MAX_OBJECT, 0, 0},
	    {"0x10", REMOTE_MAX_OBJECT, 0, 0},
	    {"1e3", REMOTE_MAX_OBJECT, 0, 0},
	    {"10", 9, 0, 0},
	    {"9", 9, 1, 9},
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 42;
		if ((remote_parse_size(cases[i].s, cases[i].max, &v) == 0) !=
		        cases[i].ok ||
		    v != cases[i].want)
			fail_msg("'%s': got %llu", cases[i].s,
			    (unsigned long long)v);
	}
}

static void
test_parse_mtime_ns(void **state)
{
	static const struct {
		const char *s;
		int ok;
		int64_t want;
	} cases[] = {
	    {"0", 1, 0},
	    {"1700000000123456789", 1, 1700000000123456789LL},
	    {"-86400000000000", 1, -86400000000000LL},
	    {"9223372036854775807", 1, INT64_MAX},
	    {"-9223372036854775807", 1, -INT64_MAX},
	    {"9223372036854775808", 0, 0},
	    {"99999999999999999999", 0, 0},
	    {"-", 0, 0},
	    {"--1", 0, 0},
	    {"", 0, 0},
	    {"1.5", 0, 0},
	    {" 1", 0, 0},
	};
	int64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 42;
		if ((remote_parse_mtime_ns(cases[i].s, &v) == 0) !=
		        cases[i].ok ||
		    v != cases[i].want)
			fail_msg("'%s': got %lld", cases[i].s, (long long)v);
	}
}

static void
test_parse_content_range(void **state)
{
	static const struct {
		const char *s;
		int ok, has_bytes;
		uint64_t first, last, total;
	} cases[] = {
	    {"bytes 0-9/10", 1, 1, 0, 9, 10},
	    {"bytes 5242880-10485759/12582912", 1, 1, 5242880, 10485759,
	        12582912},
	    {"bytes 0-0/1", 1, 1, 0, 0, 1},
	    {"bytes */10", 1, 0, 0, 0, 10},
	    {"bytes 0-" TIB5 "/" TIB5, 0, 0, 0, 0, 0},
	    {"bytes 0-5497558138879/" TIB5, 1, 1, 0, 5497558138879ULL,
	        REMOTE_MAX_OBJECT},
	    {"bytes 0-9/5497558138881", 0, 0, 0, 0, 0},
	    {"bytes 0-9/18446744073709551615", 0, 0, 0, 0, 0},
	    {"bytes 9-0/10", 0, 0, 0, 0, 0},
	    {"bytes 0-10/10", 0, 0, 0, 0, 0},
	    {"bytes 0-9/*", 0, 0, 0, 0, 0},
	    {"bytes 0-9", 0, 0, 0, 0, 0},
	    {"bytes -9/10", 0, 0, 0, 0, 0},
	    {"bytes 0-/10", 0, 0, 0, 0, 0},
	    {"bytes=0-9/10", 0, 0, 0, 0, 0},
	    {"items 0-9/10", 0, 0, 0, 0, 0},
	    {"bytes 0-9/10 ", 0, 0, 0, 0, 0},
	    {"bytes  0-9/10", 0, 0, 0, 0, 0},
	    {"bytes 0000000000000000000000-9/10", 1, 1, 0, 9, 10},
	    {"bytes 000000000000000000000000000000-9/10", 0, 0, 0, 0, 0},
	    {"", 0, 0, 0, 0, 0},
	};
	struct remote_range r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0x5a, sizeof(r));
		if ((remote_parse_content_range(cases[i].s, &r) == 0) !=
		        cases[i].ok ||
		    r.has_bytes != cases[i].has_bytes ||
		    r.first != cases[i].first || r.last != cases[i].last ||
		    r.total != cases[i].total)
			fail_msg("'%s'", cases[i].s);
	}
}

static void
test_check_range(void **state)
{
	static const struct {
		long status;
		const char *range; /* NULL: none */
		int has_len;
		uint64_t len;
		uint64_t off, want_len, total;
		ferry_err want;
	} cases[] = {
	    {206, "bytes 0-9/30", 1, 10, 0, 10, 30, FERRY_OK},
	    {206, "bytes 10-19/30", 1, 10, 10, 10, 30, FERRY_OK},
	    {206, "bytes 10-19/30", 0, 0, 10, 10, 30, FERRY_OK},
	    {206, "bytes 10-19/30", 1, 11, 10, 10, 30, FERRY_EPARSE},
	    {206, "bytes 0-9/30", 1, 10, 10, 10, 30, FERRY_EPARSE},
	    {206, "bytes 10-19/60", 1, 10, 10, 10, 30, FERRY_EPARSE},
	    {206, "bytes 10-18/30", 1, 9, 10, 10, 30, FERRY_EPARSE},
	    {206, NULL, 1, 10, 10, 10, 30, FERRY_EPARSE},
	    {206, "bytes */30", 1, 10, 10, 10, 30, FERRY_EPARSE},
	    {200, NULL, 1, 30, 0, 30, 30, FERRY_OK},
	    {200, NULL, 1, 31, 0, 30, 30, FERRY_EHTTP},
	    {200, NULL, 0, 0, 0, 30, 30, FERRY_OK},
	    {200, NULL, 0, 0, 0, 29, 30, FERRY_EHTTP},
	    {200, NULL, 1, 30, 10, 10, 30, FERRY_EHTTP},
	    {304, NULL, 1, 10, 10, 10, 30, FERRY_EPARSE},
	};
	struct remote_resp s;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&s, 0, sizeof(s));
		s.status = cases[i].status;
		s.has_content_length = cases[i].has_len;
		s.content_length = cases[i].len;
		if (cases[i].range)
			assert_int_equal(remote_parse_content_range(
			                     cases[i].range, &s.range),
			    0);
		e = remote_resp_check_range(
		    &s, cases[i].off, cases[i].want_len, cases[i].total);
		if (e != cases[i].want)
			fail_msg("case %zu: got %d", i, (int)e);
	}
}

/* Part and range counts never wrap, and stay within S3's 10,000 parts. */
static void
test_part_counts(void **state)
{
	static const uint64_t sizes[] = {0, 1, 5ULL << 20, (5ULL << 20) + 1,
	    1ULL << 30, 100ULL << 30, REMOTE_MAX_OBJECT - 1, REMOTE_MAX_OBJECT,
	    UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX};
	uint64_t ps;
	size_t i;

	(void)state;
	assert_int_equal(sync_part_count(0, 8), 0);
	assert_int_equal(sync_part_count(1, 8), 1);
	assert_int_equal(sync_part_count(8, 8), 1);
	assert_int_equal(sync_part_count(9, 8), 2);
	assert_true(sync_part_count(UINT64_MAX, 1ULL << 20) == 1ULL << 44);
	assert_true(sync_part_count(UINT64_MAX, UINT64_MAX) == 1);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ps = sync_range_size(sizes[i], 0);
		assert_true(
		    ps >= REMOTE_MIN_PART_SIZE && ps <= REMOTE_MAX_PART_SIZE);
		if (sizes[i] <= REMOTE_MAX_OBJECT)
			assert_true(
			    sync_part_count(sizes[i], ps) <= REMOTE_MAX_PARTS);
		ps = sync_part_size(sizes[i], 0);
		assert_true(
		    ps >= REMOTE_MIN_PART_SIZE && ps <= REMOTE_MAX_PART_SIZE);
		if (sizes[i] <= REMOTE_MAX_OBJECT)
			assert_true(
			    sync_part_count(sizes[i], ps) <= REMOTE_MAX_PARTS);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_size),
	    cmocka_unit_test(test_parse_mtime_ns),
	    cmocka_unit_test(test_parse_content_range),
	    cmocka_unit_test(test_check_range),
	    cmocka_unit_test(test_part_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
