/*
 * test_etag.c: the one rule of the content check (sync/check.c) for
 * whether an ETag is the MD5 of the bytes: a quoted single-part ETag whose
 * 32 hex digits, of either case, are the MD5.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sync/engine/transfer.h"

/* the MD5 of no bytes */
static const uint8_t empty_md5[16] = {0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2,
    0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e};

static void
test_etag_is(void **state)
{
	static const struct {
		const char *etag;
		int want;
	} cases[] = {
	    {"\"d41d8cd98f00b204e9800998ecf8427e\"", 1},
	    {"\"D41D8CD98F00B204E9800998ECF8427E\"", 1},
	    {"\"d41d8cd98f00b204E9800998ECF8427e\"", 1},
	    {"d41d8cd98f00b204e9800998ecf8427e", 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427f\"", 0},
	    {"\"e41d8cd98f00b204e9800998ecf8427e\"", 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427e-1\"", 0},
	    {"\"d41d8cd98f00b204e9800998ecf842-1\"", 0},
	    {"W/\"d41d8cd98f00b204e9800998ecf8427e\"", 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427e", 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427e \"", 0},
	    {"\"\"", 0},
	    {"", 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (transfer_etag_is(cases[i].etag, empty_md5) != cases[i].want)
			fail_msg("%s: want %d", cases[i].etag, cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_etag_is),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
