/*
 * test_time.c: the times listings, headers and credentials documents give
 * (remote/time.c), against tables, and against the strptime() and timegm()
 * reading they replaced.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "remote/remote.h"

static uint32_t
lcg(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/* Times as listings (ISO 8601) and headers (RFC 1123) give them. */
static void
test_parse_time(void **state)
{
	static const struct {
		const char *s;
		int64_t want;
	} cases[] = {
	    {"2023-11-14T22:13:20.000Z", 1700000000},
	    {"2023-11-14T22:13:20Z", 1700000000},
	    {" 2023-11-14T22:13:20Z", 1700000000},
	    {"Tue, 14 Nov 2023 22:13:20 GMT", 1700000000},
	    {"Thu, 01 Jan 1970 00:00:00 GMT", 0},
	    {"", -1},
	    {"yesterday", -1},
	    {"2023-11-14", -1},
	    {"Tue, 14 Nov 2023", -1},
	    /* leap days, and the years that are not leap years */
	    {"2024-02-29T12:00:00.000Z", 1709208000},
	    {"2000-02-29T00:00:00.000Z", 951782400},
	    {"Tue, 29 Feb 2000 00:00:00 GMT", 951782400},
	    {"2023-02-29T00:00:00.000Z", -1},
	    {"Wed, 29 Feb 2023 00:00:00 GMT", -1},
	    {"2100-02-28T23:59:59Z", 4107542399},
	    {"2100-02-29T00:00:00Z", -1},
	    {"2100-03-01T00:00:00Z", 4107542400},
	    {"2400-02-29T00:00:00Z", 13574563200},
	    {"2023-04-31T00:00:00Z", -1},
	    /* the ends of the range */
	    {"1970-01-01T00:00:00Z", 0},
	    {"9999-12-31T23:59:59Z", 253402300799},
	    {"Fri, 31 Dec 9999 23:59:59 GMT", 253402300799},
	    {"1969-12-31T00:00:00Z", -86400}, /* before 1970: negative */
	    {"0000-01-01T00:00:00Z", -62167219200},
	    /* fields out of range */
	    {"2023-00-14T22:13:20Z", -1},
	    {"2023-13-14T22:13:20Z", -1},
	    {"2023-11-00T22:13:20Z", -1},
	    {"2023-11-32T22:13:20Z", -1},
	    {"2023-11-14T24:00:00Z", -1},
	    {"2023-11-14T23:60:00Z", -1},
	    {"2023-11-14T23:59:61Z", -1},
	    {"Tue, 14 Nov 2023 22:13:61 GMT", -1},
	    /* a leap second counts as the next minute's first, as timegm did */
	    {"2016-12-31T23:59:60Z", 1483228800},
	    /* names: any case, abbreviated only, weekday not checked */
	    {"TUE, 14 NOV 2023 22:13:20 GMT", 1700000000},
	    {"tue, 14 nov 2023 22:13:20 GMT", 1700000000},
	    {"Mon, 14 Nov 2023 22:13:20 GMT", 1700000000},
	    {"Tue, 14 Nvo 2023 22:13:20 GMT", -1},
	    {"Tue, 14 Nov. 2023 22:13:20 GMT", -1},
	    {"Tux, 14 Nov 2023 22:13:20 GMT", -1},
	    {"Tuesday, 14 November 2023 22:13:20 GMT", -1},
	    {"Tue, 14 Nov 2023 22:13:20 gmt", -1},
	    {"Tue, 14 Nov 2023 22:13:20 UTC", -1},
	    /* fixed widths and layout: strptime() took these, now refused */
	    {"2023-1-4T2:3:2Z", -1},
	    {"23-11-14T22:13:20Z", -1},
	    {"12023-11-14T22:13:20Z", -1},
	    {"2023- 11-14T22:13:20Z", -1},
	    {"Tue, 4 Nov 2023 22:13:20 GMT", -1},
	    {"Tue, 14 Nov 23 22:13:20 GMT", -1},
	    {"Tue,14 Nov 2023 22:13:20 GMT", -1},
	    {"Tue, 14 Nov 2023 22:13:20GMT", -1},
	    {"Tue,  14 Nov 2023 22:13:20 GMT", -1},
	    {"2023-11-14t22:13:20Z", -1},
	    {"+2023-11-14T22:13:20Z", -1},
	    /* leading blanks, now for both forms */
	    {"\t\n 2023-11-14T22:13:20Z", 1700000000},
	    {" Tue, 14 Nov 2023 22:13:20 GMT", 1700000000},
	    /* truncated */
	    {"2", -1},
	    {"2023-11-14T", -1},
	    {"2023-11-14T22", -1},
	    {"2023-11-14T22:13:", -1},
	    {"2023-11-14T22:13:2", -1},
	    {"T", -1},
	    {"Tue", -1},
	    {"Tue, 14 No", -1},
	    {"Tue, 14 Nov 2023 22:13", -1},
	    {"Tue, 14 Nov 2023 22:13:20", -1},
	    {"Tue, 14 Nov 2023 22:13:20 ", -1},
	    {"Tue, 14 Nov 2023 22:13:20 GM", -1},
	    /* what follows the last field is ignored, as strptime() did */
	    {"2023-11-14T22:13:20", 1700000000},
	    {"2023-11-14T22:13:20.123456Z", 1700000000},
	    {"2023-11-14T22:13:20junk", 1700000000},
	    {"Tue, 14 Nov 2023 22:13:20 GMTjunk", 1700000000},
	    {"Tue, 14 Nov 2023 22:13:20 GMT\r\n", 1700000000},
	    {"Tue, 14 Nov 2023 22:13:20junk", -1},
	    {"Tue, 14 Nov 2023 22:13:20 junk", -1},
	    /* bytes that are not text */
	    {"\xff\xfe", -1},
	    {"2023-11-14T22:13:2\xff", -1},
	    {"\xd4ue, 14 Nov 2023 22:13:20 GMT", -1},
	    {"Tue, 14 \xceov 2023 22:13:20 GMT", -1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("%s\n", cases[i].s);
		assert_int_equal(remote_parse_time(cases[i].s), cases[i].want);
	}
	assert_int_equal(remote_parse_time(NULL), -1);
}

/* The strptime() and timegm() parser remote_parse_time() replaced. */
static int64_t
old_parse_time(const char *s)
{
	struct tm tm;
	const char *end, *p = s;

	memset(&tm, 0, sizeof(tm));
	while (isspace((unsigned char)*p))
		p++;
	if (isdigit((unsigned char)*p))
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	else
		end = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (end == NULL)
		return -1;
	return (int64_t)timegm(&tm);
}

/*
 * Every day from 1970 to 2400, written by gmtime_r() and strftime() in
 * both forms at its first second, its last, or one between (in turn),
 * parsed by the old and the new parser: both must give the time written.
 */
static void
test_parse_time_days(void **state)
{
	static const char *const fmt[] = {
	    "%Y-%m-%dT%H:%M:%S.000Z", "%a, %d %b %Y %H:%M:%S GMT"};
	const int64_t last = 13601087999; /* 2400-12-31T23:59:59Z */
	int64_t sec[3] = {0, 86399, 0};   /* first, last, one between */
	char s[64];
	struct tm tm;
	time_t t;
	int64_t day;
	int f;

	(void)state;
	for (day = 0; day * 86400 <= last; day++) {
		for (f = 0; f < 2; f++) {
			sec[2] = day * 7919 % 86400;
			t = (time_t)(day * 86400 + sec[(day + f) % 3]);
			assert_non_null(gmtime_r(&t, &tm));
			assert_true(strftime(s, sizeof(s), fmt[f], &tm) > 0);
			if (remote_parse_time(s) != (int64_t)t ||
			    old_parse_time(s) != (int64_t)t)
				fail_msg("%s: %lld, was %lld, want %lld", s,
				    (long long)remote_parse_time(s),
				    (long long)old_parse_time(s), (long long)t);
		}
	}
}

/*
 * Valid times with one byte changed (fixed seed): what the new parser
 * accepts, the old one read the same way.  It only refuses more.
 */
static void
test_parse_time_mutated(void **state)
{
	static const char *const good[] = {"2023-11-14T22:13:20.000Z",
	    "Tue, 14 Nov 2023 22:13:20 GMT", "2000-02-29T23:59:59Z",
	    "Sun, 31 Dec 2023 00:00:00 GMT"};
	static const char bytes[] =
	    "0123456789 -:,.TZGMTJanFebNovDecTueSun\xff";
	uint32_t seed = 1700000000;
	char s[64];
	int64_t got;
	size_t i, n;

	(void)state;
	for (i = 0; i < 40000; i++) {
		snprintf(s, sizeof(s), "%s", good[i % 4]);
		n = strlen(s);
		s[lcg(&seed) % n] = bytes[lcg(&seed) % (sizeof(bytes) - 1)];
		if (lcg(&seed) % 8 == 0)
			s[lcg(&seed) % n] = '\0';
		got = remote_parse_time(s);
		if (got != -1 && got != old_parse_time(s))
			fail_msg("%s: %lld, was %lld", s, (long long)got,
			    (long long)old_parse_time(s));
	}
}

struct time_case {
	const char *s;
	int64_t want;
};

static const struct time_case time_cases[] = {
    {"2024-05-01T12:00:00Z", 1714564800},
    {"2024-05-01T12:00:00", 1714564800},
    {"2024-05-01T12:00:00.123456Z", 1714564800},
    {"2024-05-01T14:00:00+02:00", 1714564800},
    {"2024-05-01T06:30:00-0530", 1714564800},
    {"2024-05-01T12:00:00+00:00", 1714564800},
    {"1970-01-01T00:00:00Z", 0},
    {"2038-01-19T03:14:08Z", 2147483648},
    {"", -1},
    {"tomorrow", -1},
    {"2024-05-01", -1},
    {"2024-05-01T12:00:00ZZ", -1},
    {"2024-05-01T12:00:00 Z", -1},
    {"2024-05-01T12:00:00+2:00", -1},
    {"2024-05-01T12:00:00+24:00", -1},
    {"2024-05-01T12:00:00+02:60", -1},
    {"2024-05-01T12:00:00+02:00x", -1},
    {"2024-05-01T12:00:00.", -1},
    {"2024-13-01T12:00:00Z", -1},
    {" 2024-05-01T12:00:00Z", -1},
};

/* Credentials' expirations: the whole string, zones. */
static void
test_parse_time_zoned(void **state)
{
	size_t i;
	int64_t got;

	(void)state;
	assert_int_equal(remote_parse_time_zoned(NULL), -1);
	for (i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
		got = remote_parse_time_zoned(time_cases[i].s);
		if (got != time_cases[i].want)
			fail_msg("'%s': got %lld, want %lld", time_cases[i].s,
			    (long long)got, (long long)time_cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_time),
	    cmocka_unit_test(test_parse_time_days),
	    cmocka_unit_test(test_parse_time_mutated),
	    cmocka_unit_test(test_parse_time_zoned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
