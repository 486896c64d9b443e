/*
 * test_etag.c: the forms of an ETag (remote/etag.c), and the one rule of
 * the content check for whether an ETag is the MD5 of the bytes: a quoted
 * single-part ETag whose 32 hex digits, of either case, are the MD5.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote.h"

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
		if (remote_etag_is_md5_of(cases[i].etag, empty_md5) !=
		    cases[i].want)
			fail_msg("%s: want %d", cases[i].etag, cases[i].want);
	}
}

#define EMPTY "d41d8cd98f00b204e9800998ecf8427e"

/* Each form, quoted or not, and what is opaque. */
static void
test_parse(void **state)
{
	static const struct {
		const char *etag;
		enum remote_etag_form form;
		int quoted;
		uint32_t parts;
	} cases[] = {
	    {"\"" EMPTY "\"", REMOTE_ETAG_MD5, 1, 0},
	    {EMPTY, REMOTE_ETAG_MD5, 0, 0},
	    {"\"D41D8CD98F00B204E9800998ECF8427E\"", REMOTE_ETAG_MD5, 1, 0},
	    {"\"" EMPTY "-2\"", REMOTE_ETAG_MULTIPART, 1, 2},
	    {EMPTY "-10000", REMOTE_ETAG_MULTIPART, 0, 10000},
	    {"\"" EMPTY "-999999999\"", REMOTE_ETAG_MULTIPART, 1, 999999999},
	    {"\"" EMPTY "-1234567890\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"" EMPTY "-\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"" EMPTY "-0\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"" EMPTY "-2x\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"" EMPTY "x\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427g\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"d41d8cd98f00b204e9800998ecf8427\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"" EMPTY, REMOTE_ETAG_OPAQUE, 0, 0},
	    {EMPTY "\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"W/\"" EMPTY "\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"-2\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"\"", REMOTE_ETAG_OPAQUE, 0, 0},
	    {"", REMOTE_ETAG_OPAQUE, 0, 0},
	};
	struct remote_etag t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (remote_etag_parse(cases[i].etag, &t) != cases[i].form ||
		    t.form != cases[i].form || t.quoted != cases[i].quoted ||
		    t.parts != cases[i].parts)
			fail_msg("%s: want form %d", cases[i].etag,
			    (int)cases[i].form);
		if (cases[i].form != REMOTE_ETAG_OPAQUE)
			assert_memory_equal(t.md5, empty_md5, 16);
		assert_int_equal(remote_etag_multipart(cases[i].etag),
		    cases[i].form == REMOTE_ETAG_MULTIPART);
		assert_int_equal(remote_etag_is_md5(cases[i].etag),
		    cases[i].form == REMOTE_ETAG_MD5 && cases[i].quoted);
	}
}

/* What ferry writes, and reads back as written. */
static void
test_format(void **state)
{
	char out[REMOTE_ETAG_MAX + 1];
	struct remote_etag t;

	(void)state;
	remote_etag_format(empty_md5, 0, out, sizeof(out));
	assert_string_equal(out, "\"" EMPTY "\"");
	assert_int_equal(remote_etag_parse(out, &t), REMOTE_ETAG_MD5);
	remote_etag_format(empty_md5, 10000, out, sizeof(out));
	assert_string_equal(out, "\"" EMPTY "-10000\"");
	assert_int_equal(remote_etag_parse(out, &t), REMOTE_ETAG_MULTIPART);
	assert_int_equal(t.parts, 10000);
	/* cut to fit, never past the buffer */
	remote_etag_format(empty_md5, 0, out, 5);
	assert_string_equal(out, "\"d41");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_etag_is),
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
