/*
 * test_hex.c: the one hex codec (common/util.c): digits of either case
 * read, anything else refused, and every byte value round trips.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"

static void
test_hex_value(void **state)
{
	int c, want;

	(void)state;
	for (c = -1; c < 256; c++) {
		if (c >= '0' && c <= '9')
			want = c - '0';
		else if (c >= 'a' && c <= 'f')
			want = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			want = c - 'A' + 10;
		else
			want = -1;
		assert_int_equal(hex_value(c), want);
	}
}

static void
test_hex_decode(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		int ok;
		const char *want;
	} cases[] = {
	    {"", 0, 0, ""},
	    {"00ff7f80", 4, 0, "\x00\xff\x7f\x80"},
	    {"DEADbeef", 4, 0, "\xde\xad\xbe\xef"},
	    {"0123456789abcdef", 8, 0, "\x01\x23\x45\x67\x89\xab\xcd\xef"},
	    {"0g", 1, -1, NULL},
	    {"g0", 1, -1, NULL},
	    {"0", 1, -1, NULL},   /* the NUL is no digit */
	    {"abc", 2, -1, NULL}, /* odd: the second byte's low digit */
	    {" 0", 1, -1, NULL},
	    {"0x00", 2, -1, NULL},
	    {"+1", 1, -1, NULL},
	    {"\xff\xff", 1, -1, NULL},
	};
	uint8_t out[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("%s\n", cases[i].in);
		assert_int_equal(
		    hex_decode(cases[i].in, out, cases[i].n), cases[i].ok);
		if (cases[i].ok == 0)
			assert_memory_equal(out, cases[i].want, cases[i].n);
	}
}

/* Every byte encodes to two lowercase digits and decodes back. */
static void
test_hex_round_trip(void **state)
{
	uint8_t in[256], back[256];
	char hex[513];
	int i;

	(void)state;
	for (i = 0; i < 256; i++)
		in[i] = (uint8_t)i;
	hex_encode(in, sizeof(in), hex);
	assert_int_equal(strlen(hex), 512);
	assert_int_equal(strspn(hex, "0123456789abcdef"), 512);
	assert_memory_equal(hex + 2 * 0xa5, "a5", 2);
	assert_int_equal(hex_decode(hex, back, sizeof(back)), 0);
	assert_memory_equal(in, back, sizeof(in));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hex_value),
	    cmocka_unit_test(test_hex_decode),
	    cmocka_unit_test(test_hex_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
