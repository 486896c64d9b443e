/*
 * test_metrics.c: the metrics file's text (sync/run/metrics.c): numbers
 * in plain decimal, never NaN or Inf; label values escaped as
 * Prometheus's text format asks (backslash, double quote, newline) and
 * kept valid UTF-8; each metric with its HELP and TYPE lines, the labels
 * of the pair on every sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "sync/run/run.h"

#define S(x) x, sizeof(x) - 1

static const struct {
	double v;
	const char *want;
} numbers[] = {
    {0, "0"},
    {1, "1.000"},
    {1.5, "1.500"},
    {0.0004, "0.000"},
    {0.0005, "0.001"},
    {12345.6789, "12345.679"},
    {86400 * 365.25, "31557600.000"},
    /* never a value the format reads as NaN or Inf, nor a negative
     * duration */
    {-1, "0"},
    {-0.0, "0"},
    {NAN, "0"},
    {INFINITY, "0"},
    {-INFINITY, "0"},
    {1e300, "9000000000000000"},
};

static void
test_number(void **state)
{
	char out[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		metrics_number(numbers[i].v, out, sizeof(out));
		assert_string_equal(out, numbers[i].want);
	}
}

static const struct {
	const char *in;
	size_t n;
	const char *want;
} labels[] = {
    {S(""), ""},
    {S("./photos"), "./photos"},
    {S("s3://archive/photos"), "s3://archive/photos"},
    /* the three escapes of the format, and nothing else */
    {S("back\\slash"), "back\\\\slash"},
    {S("say \"hi\""), "say \\\"hi\\\""},
    {S("two\nlines"), "two\\nlines"},
    {S("\\n"), "\\\\n"},
    {S("tab\tcr\r"), "tab\tcr\r"},
    {S("{a=\"b\",c}"), "{a=\\\"b\\\",c}"},
    /* UTF-8 stays; bytes that are not UTF-8, and NUL, are U+FFFD */
    {S("caf\xc3\xa9"), "caf\xc3\xa9"},
    {S("bad\xff"), "bad\xef\xbf\xbd"},
    {S("nul\0in"), "nul\xef\xbf\xbdin"},
    {S("\xc3"), "\xef\xbf\xbd"},
};

static void
test_label(void **state)
{
	struct buf b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		buf_init(&b, 4096);
		assert_int_equal(
		    metrics_label_value(&b, labels[i].in, labels[i].n),
		    FERRY_OK);
		assert_string_equal(b.data ? b.data : "", labels[i].want);
		buf_free(&b);
	}
}

/* Whether text has line as one of its lines. */
static int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p++;
	}
	return 0;
}

#define L "command=\"sync\",source=\"./a \\\"b\\\"\",destination=\"s3://b/p\""

static void
test_format(void **state)
{
	struct sync_counts c = {.uploaded = 3,
	    .skipped = 2,
	    .deleted = 1,
	    .failed = 1,
	    .renamed = 7,
	    .checked = 4,
	    .left_out = 5,
	    .bytes = 12345678901ULL};
	struct metrics_run r = {.command = "sync",
	    .src = "./a \"b\"",
	    .dst = "s3://b/p",
	    .shard = "",
	    .moved = "uploaded",
	    .counts = &c,
	    .exit_status = 1,
	    .seconds = 2.25,
	    .end_time = 1764818000,
	    .have_manifest = 1,
	    .entries = {6, 4},
	    .bytes = {600, 400}};
	static const char *want[] = {
	    "# HELP ferry_run_end_timestamp_seconds When the last run of the "
	    "pair ended, in seconds since 1970 (UTC).",
	    "# TYPE ferry_run_end_timestamp_seconds gauge",
	    "ferry_run_end_timestamp_seconds{" L "} 1764818000",
	    "# TYPE ferry_run_success gauge",
	    "ferry_run_success{" L "} 0",
	    "ferry_run_exit_code{" L "} 1",
	    "ferry_run_duration_seconds{" L "} 2.250",
	    "# TYPE ferry_run_objects gauge",
	    "ferry_run_objects{" L ",kind=\"uploaded\"} 3",
	    "ferry_run_objects{" L ",kind=\"downloaded\"} 0",
	    "ferry_run_objects{" L ",kind=\"copied\"} 0",
	    "ferry_run_objects{" L ",kind=\"renamed\"} 7",
	    "ferry_run_objects{" L ",kind=\"deleted\"} 1",
	    "ferry_run_objects{" L ",kind=\"skipped\"} 2",
	    "ferry_run_failures{" L "} 1",
	    "ferry_run_checked_objects{" L "} 4",
	    "ferry_run_left_out_entries{" L "} 5",
	    "ferry_run_bytes{" L ",kind=\"uploaded\"} 12345678901",
	    "ferry_manifest_entries{" L ",table=\"local\"} 6",
	    "ferry_manifest_entries{" L ",table=\"remote\"} 4",
	};
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, 1 << 20);
	assert_int_equal(metrics_format(&r, &b), FERRY_OK);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!has_line(b.data, want[i]))
			fail_msg("no line '%s' in:\n%s", want[i], b.data);
	/* the bytes of the records only when they were all read */
	assert_null(strstr(b.data, "ferry_manifest_bytes"));
	buf_free(&b);

	/* a sharded run that counted nothing and has no manifest */
	r.counts = NULL;
	r.shard = "1/4";
	r.exit_status = 0;
	r.have_manifest = 0;
	r.seconds = NAN;
	buf_init(&b, 1 << 20);
	assert_int_equal(metrics_format(&r, &b), FERRY_OK);
	assert_true(
	    has_line(b.data, "ferry_run_success{" L ",shard=\"1/4\"} 1"));
	assert_true(has_line(
	    b.data, "ferry_run_duration_seconds{" L ",shard=\"1/4\"} 0"));
	assert_true(has_line(b.data,
	    "ferry_run_objects{" L ",shard=\"1/4\",kind=\"uploaded\"} 0"));
	assert_null(strstr(b.data, "ferry_manifest"));
	assert_null(strstr(b.data, "nan"));
	assert_null(strstr(b.data, "NaN"));
	buf_free(&b);

	r.have_manifest = r.have_bytes = 1;
	buf_init(&b, 1 << 20);
	assert_int_equal(metrics_format(&r, &b), FERRY_OK);
	assert_true(has_line(b.data, "# TYPE ferry_manifest_bytes gauge"));
	assert_true(has_line(b.data,
	    "ferry_manifest_bytes{" L ",shard=\"1/4\",table=\"remote\"} 400"));
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_number),
	    cmocka_unit_test(test_label),
	    cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
