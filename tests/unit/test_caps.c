/*
 * test_caps.c: which ETags are taken as a multipart object's
 * (remote/caps.c), the objects whose server-side copy is streamed once a
 * server refused the copy's condition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "remote/remote.h"

static void
test_etag_multipart(void **state)
{
	static const struct {
		const char *etag;
		int want;
	} cases[] = {
	    {"\"d41d8cd98f00b204e9800998ecf8427e-2\"", 1},
	    {"d41d8cd98f00b204e9800998ecf8427e-10000", 1},
	    {"\"1f0331e54379d6dc7c04743c1b24c6ff-5\"", 1},
	    {"\"d41d8cd98f00b204e9800998ecf8427e\"", 0},
	    {"d41d8cd98f00b204e9800998ecf8427e", 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427e-\"", 0},
	    {"\"-2\"", 0},
	    {"-2", 0},
	    {"\"\"", 0},
	    {"", 0},
	    {"\"", 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (remote_etag_multipart(cases[i].etag) != cases[i].want)
			fail_msg("%s: want %d", cases[i].etag, cases[i].want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_etag_multipart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
