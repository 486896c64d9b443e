/*
 * test_escape.c: keys and servers' words shown as text (common/escape.c):
 * no control byte gets through, valid UTF-8 stays, and the text reads
 * back to the exact bytes.
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

#define S(x) x, sizeof(x) - 1

static const struct {
	const char *in;
	size_t n;
	const char *want;
} cases[] = {
    {S(""), ""},
    {S("plain/key.txt"), "plain/key.txt"},
    {S("a b ~!\"#$%&'()*+,-./:;<=>?@[]^_`{|}"),
        "a b ~!\"#$%&'()*+,-./:;<=>?@[]^_`{|}"},
    /* a backslash doubles, so that \x1b in a name is not ESC */
    {S("back\\slash"), "back\\\\slash"},
    {S("\\x1b"), "\\\\x1b"},
    /* the line breaks and tab by name, the other C0 controls and DEL */
    {S("new\nline"), "new\\nline"},
    {S("cr\rlf\n"), "cr\\rlf\\n"},
    {S("a\tb"), "a\\tb"},
    {S("\033[31mred\033[0m"), "\\x1b[31mred\\x1b[0m"},
    {S("\033]0;title\007"), "\\x1b]0;title\\x07"},
    {S("nul\0in"), "nul\\x00in"},
    {S("\001\037\177"), "\\x01\\x1f\\x7f"},
    {S("\b\f\v"), "\\x08\\x0c\\x0b"},
    /* valid UTF-8 that prints stays as it is */
    {S("caf\xc3\xa9"), "caf\xc3\xa9"},
    {S("\xc2\xa0nbsp"), "\xc2\xa0nbsp"},
    {S("\xe2\x82\xac euro"), "\xe2\x82\xac euro"},
    {S("\xf0\x9f\x93\xb7"), "\xf0\x9f\x93\xb7"},
    {S("\xe4\xb8\xad\xe6\x96\x87/\xd0\xb4"),
        "\xe4\xb8\xad\xe6\x96\x87/\xd0\xb4"},
    /* C1 controls (U+0085 NEL, U+009B CSI) byte by byte */
    {S("\xc2\x9b"
       "31m"),
        "\\xc2\\x9b31m"},
    {S("\xc2\x85"
       "x"),
        "\\xc2\\x85x"},
    {S("\xc2\x80\xc2\x9f"), "\\xc2\\x80\\xc2\\x9f"},
    /* bidi controls that reorder what a terminal shows, byte by byte */
    {S("evil\xe2\x80\xaetxt.exe"), "evil\\xe2\\x80\\xaetxt.exe"},
    {S("\xe2\x80\x8e\xe2\x80\x8f"), "\\xe2\\x80\\x8e\\xe2\\x80\\x8f"},
    {S("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"),
        "\\xe2\\x80\\xaa\\xe2\\x80\\xab\\xe2\\x80\\xac\\xe2\\x80\\xad"},
    {S("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"),
        "\\xe2\\x81\\xa6\\xe2\\x81\\xa7\\xe2\\x81\\xa8\\xe2\\x81\\xa9"},
    {S("\xd8\x9c"), "\\xd8\\x9c"},
    /* their neighbours print */
    {S("\xe2\x80\x8d\xe2\x80\x90\xe2\x80\xa9\xe2\x80\xaf"),
        "\xe2\x80\x8d\xe2\x80\x90\xe2\x80\xa9\xe2\x80\xaf"},
    {S("\xe2\x81\xa5\xe2\x81\xaa"), "\xe2\x81\xa5\xe2\x81\xaa"},
    /* bytes that are not UTF-8: each on its own */
    {S("bad\xff\xfe"), "bad\\xff\\xfe"},
    {S("latin1-\xe9t\xe9"), "latin1-\\xe9t\\xe9"},
    {S("\xc0\xaf"), "\\xc0\\xaf"},                   /* overlong */
    {S("\xed\xa0\x80"), "\\xed\\xa0\\x80"},          /* a surrogate */
    {S("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"}, /* past U+10FFFF */
    {S("\xe2\x82"), "\\xe2\\x82"},                   /* cut short */
    {S("\xe2\x82"
       "x"),
        "\\xe2\\x82x"},
    {S("\x80"), "\\x80"},
};

static void
test_table(void **state)
{
	char out[TEXT_ESCAPE_SIZE(64)];
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = text_escape(out, cases[i].in, cases[i].n);
		if (len != strlen(out) || strcmp(out, cases[i].want) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, out,
			    cases[i].want);
	}
}

/* Reads text back to bytes; returns their number. */
static size_t
unescape(const char *t, unsigned char *out)
{
	size_t n = 0;
	unsigned v;

	while (*t) {
		if (*t != '\\') {
			out[n++] = (unsigned char)*t++;
			continue;
		}
		t++;
		if (*t == 'x') {
			assert_int_equal(sscanf(t + 1, "%2x", &v), 1);
			out[n++] = (unsigned char)v;
			t += 3;
			continue;
		}
		out[n++] = *t == 'n'   ? '\n'
		           : *t == 'r' ? '\r'
		           : *t == 't' ? '\t'
		                       : '\\';
		assert_true(strchr("nrt\\", *t) != NULL);
		t++;
	}
	return n;
}

/*
 * Random bytes, weighted to controls, backslashes and UTF-8 lead bytes:
 * the text has no control byte, is valid UTF-8 and reads back exactly.
 */
static void
test_round_trip(void **state)
{
	static const unsigned char pick[] = {0x00, 0x07, 0x0a, 0x0d, 0x1b, 0x5c,
	    0x7f, 0x80, 0x9b, 0xa9, 0xc2, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xff,
	    'a', '/', 'x'};
	unsigned char in[48], back[48];
	char out[TEXT_ESCAPE_SIZE(48)];
	size_t i, n, len, used;
	int round;

	(void)state;
	srand(25);
	for (round = 0; round < 20000; round++) {
		n = (size_t)(rand() % (int)sizeof(in));
		for (i = 0; i < n; i++)
			in[i] = rand() % 2 ? pick[rand() % sizeof(pick)]
			                   : (unsigned char)rand();
		len = text_escape(out, (const char *)in, n);
		assert_true(len < sizeof(out));
		for (i = 0; i < len; i += used) {
			assert_true(utf8_next((const unsigned char *)out + i,
			                len - i, &used) >= 0x20);
			assert_true((unsigned char)out[i] != 0x7f);
			if ((unsigned char)out[i] == 0xc2)
				assert_true((unsigned char)out[i + 1] >= 0xa0);
		}
		assert_int_equal(unescape(out, back), n);
		assert_memory_equal(back, in, n);
	}
}

/* ctl_find: the bytes no header value may hold, and where. */
static void
test_ctl_find(void **state)
{
	static const struct {
		const char *s;
		size_t n;
		long want;
	} rows[] = {
	    {S(""), -1},
	    {S("\"0123abc\""), -1},
	    {S("a\tb ~"), -1}, /* a tab may stand in a value */
	    {S("caf\xc3\xa9"), -1},
	    {S("AKID\r\nX-Injected: yes"), 4},
	    {S("x\n"), 1},
	    {S("nul\0"), 3},
	    {S("\x01"), 0},
	    {S("ab\x1f"), 2},
	    {S("del\x7f"), 3},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (ctl_find(rows[i].s, rows[i].n) != rows[i].want)
			fail_msg(
			    "row %zu: %ld", i, ctl_find(rows[i].s, rows[i].n));
}

/* text_print writes what text_escape makes, and says when it could not. */
static void
test_print(void **state)
{
	char *mem = NULL, want[TEXT_ESCAPE_SIZE(64)];
	size_t memlen = 0, i;
	FILE *f;

	(void)state;
	assert_non_null(f = open_memstream(&mem, &memlen));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(text_print(f, cases[i].in, cases[i].n), 0);
	assert_int_equal(fclose(f), 0);
	want[0] = '\0';
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text_escape(want, cases[i].in, cases[i].n);
		assert_true(memlen >= strlen(want));
		assert_memory_equal(mem, want, strlen(want));
		memmove(mem, mem + strlen(want), memlen - strlen(want) + 1);
		memlen -= strlen(want);
	}
	assert_int_equal(memlen, 0);
	free(mem);

	if ((f = fopen("/dev/full", "w")) == NULL)
		skip();
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(text_print(f, S("x\ny")), -1);
	fclose(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_print),
	    cmocka_unit_test(test_ctl_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
