/*
 * test_posixtime.c: the times a push writes with a file (sync/posix.c,
 * x-amz-meta-mtime and x-amz-meta-atime) are those its pull reads back,
 * before 1970 too: a table of times through posix_encode() and
 * posix_decode(), and the RFC 3339 form of pre-1970 times read alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sync/engine/posix.h"

#define NS 1000000000LL
/* the limit either way: (INT64_MAX / NS) whole seconds */
#define LIMIT (INT64_MAX / NS * NS)

static void
test_round_trip(void **state)
{
	static const struct {
		int64_t ns;
		int kept; /* written, and read back the same */
	} rows[] = {
	    {0, 1},
	    {1, 1},
	    {-1, 1}, /* 1969-12-31T23:59:59.999999999Z */
	    {-NS, 1},
	    {-NS - 1, 1},
	    {-86400LL * 365 * NS + 123456789, 1}, /* 1969 */
	    {-14182940LL * NS, 1},                /* 1969-07-20 */
	    {-2208988800LL * NS, 1},              /* 1900-01-01 */
	    {1700000000123456789LL, 1},
	    {LIMIT - 1, 1},
	    {-LIMIT + 1, 1},
	    {LIMIT, 0},
	    {-LIMIT, 0},
	    {INT64_MAX, 0},
	    {INT64_MIN, 0},
	};
	struct remote_posix m;
	struct posix_attrs a;
	struct stat st;
	const char *bad;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&st, 0, sizeof(st));
		st.st_mode = 0100644;
		posix_timespec(rows[i].ns, &st.st_atim);
		posix_encode(&st, rows[i].ns, NULL, NULL, &m);
		assert_int_equal(posix_time_ok(rows[i].ns), rows[i].kept);
		if (posix_decode(&m, &a, &bad) != 0)
			fail_msg("row %zu: %s refused (mtime '%s', atime "
			         "'%s')",
			    i, bad, m.mtime, m.atime);
		if (a.has_mtime != rows[i].kept || a.has_atime != rows[i].kept)
			fail_msg("row %zu: has %d %d, want %d", i, a.has_mtime,
			    a.has_atime, rows[i].kept);
		if (rows[i].kept &&
		    (a.mtime_ns != rows[i].ns || a.atime_ns != rows[i].ns))
			fail_msg("row %zu: %lld, %lld read back", i,
			    (long long)a.mtime_ns, (long long)a.atime_ns);
	}
}

static void
test_rfc3339_before_1970(void **state)
{
	static const struct {
		const char *s;
		int ok;
		int64_t ns;
	} rows[] = {
	    {"1969-12-31T23:59:59Z", 0, -NS},
	    {"1969-12-31T23:59:59.999999999Z", 0, -1},
	    {"1970-01-01T00:59:59+01:00", 0, -NS},
	    {"1900-01-01T00:00:00Z", 0, -2208988800LL * NS},
	    /* the first time taken, just after -LIMIT, and -LIMIT */
	    {"1677-09-21T00:12:44.000000001Z", 0, -LIMIT + 1},
	    {"1677-09-21T00:12:44Z", -1, 0},
	    {"2262-04-11T23:47:15.999999999Z", 0, LIMIT - 1},
	    {"2262-04-11T23:47:16Z", -1, 0},
	    {"0001-01-01T00:00:00Z", -1, 0},
	};
	int64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ns = 42;
		if (posix_parse_rfc3339(rows[i].s, &ns) != rows[i].ok ||
		    ns != rows[i].ns)
			fail_msg("'%s': got %lld", rows[i].s, (long long)ns);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_rfc3339_before_1970),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
