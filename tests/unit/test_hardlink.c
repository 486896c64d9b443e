/*
 * test_hardlink.c: the value of a hard link marker (remote/hardlink.c):
 * keys written percent-encoded but for the unreserved bytes and '/', and
 * read back; values the encoding never writes refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/ops.h"

static void
test_hardlink_encode(void **state)
{
	static const struct {
		const char *key, *want;
	} cases[] = {
	    {"h/l0", "h/l0"},
	    {"a b+c", "a%20b%2Bc"},
	    {"dir/\xe2\x82\xac~_.-", "dir/%E2%82%AC~_.-"},
	    {"%", "%25"},
	    {"../x", "../x"},
	};
	char out[REMOTE_HARDLINK_MAX], back[1025];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(remote_hardlink_encode(cases[i].key,
		                     strlen(cases[i].key), out, sizeof(out)),
		    FERRY_OK);
		assert_string_equal(out, cases[i].want);
		assert_int_equal(
		    remote_hardlink_decode(out, back, sizeof(back), &n),
		    FERRY_OK);
		assert_int_equal(n, strlen(cases[i].key));
		assert_string_equal(back, cases[i].key);
	}
	/* no key, and a marker that does not fit */
	assert_int_equal(
	    remote_hardlink_encode("", 0, out, sizeof(out)), FERRY_EPARSE);
	assert_int_equal(
	    remote_hardlink_encode("a b", 3, out, 4), FERRY_EPARSE);
}

static void
test_hardlink_decode_refused(void **state)
{
	static const char *const bad[] = {"", "a%zz", "a%2", "%", "a b", "a+b",
	    "a\x01", "x%00y", "\xc3\xa9", "a?b", "a\\b"};
	char out[1025];
	char big[3 * 1025 + 1];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 7;
		assert_int_equal(
		    remote_hardlink_decode(bad[i], out, sizeof(out), &n),
		    FERRY_EPARSE);
		assert_int_equal(n, 0);
		assert_string_equal(out, "");
	}
	/* 1025 bytes decoded: more than a key has */
	for (i = 0; i < 1025; i++)
		memcpy(big + 3 * i, "%41", 3);
	big[3 * 1025] = '\0';
	assert_int_equal(
	    remote_hardlink_decode(big, out, sizeof(out), &n), FERRY_EPARSE);
	/* 1024: as many as fit */
	big[3 * 1024] = '\0';
	assert_int_equal(
	    remote_hardlink_decode(big, out, sizeof(out), &n), FERRY_OK);
	assert_int_equal(n, 1024);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hardlink_encode),
	    cmocka_unit_test(test_hardlink_decode_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
