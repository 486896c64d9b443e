/*
 * test_xattr.c: a file's extended attributes and ACL as object metadata
 * (sync/engine/xattr.c, acl.c): which names go, values plain or as
 * encoded words and read back, malformed words refused; an ACL's binary
 * xattr as text and back, malformed or disordered ones refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sync/engine/xattr.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_names(void **state)
{
	static const struct {
		const char *name;
		int refused;
	} cases[] = {
	    {"color", 0},
	    {"a.b-c_d~1", 0},
	    {"", 1},
	    {"Color", 1},
	    {"a b", 1},
	    {"a:b", 1},
	    {"caf\xc3\xa9", 1},
	    {"mtime", 1},
	    {"atime", 1},
	    {"mode", 1},
	    {"uid", 1},
	    {"gid", 1},
	    {"uname", 1},
	    {"gname", 1},
	    {"btime", 1},
	    {"ferry-acl", 1},
	    {"ferry-anything", 1},
	    {"ferry", 0},
	    {"mtimes", 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		assert_int_equal(xattr_name_refused(cases[i].name) != NULL,
		    cases[i].refused);
}

static void
test_values(void **state)
{
	static const struct {
		const char *v;
		size_t n;
		const char *enc;
	} cases[] = {
	    {"blue", 4, "blue"}, {"a b", 3, "a b"}, {"", 0, "=?UTF-8?B?\?="},
	    {" a", 2, "=?UTF-8?B?IGE=?="}, {"a ", 2, "=?UTF-8?B?YSA=?="},
	    {"=?x", 3, "=?UTF-8?B?PT94?="},
	    {"h\xc3\xa9", 3, "=?UTF-8?B?aMOp?="},
	    {"\x00\x01\xff", 3, "=?X-BINARY?B?AAH/?="},
	    {"a\nb", 3, "=?X-BINARY?B?YQpi?="},
	    {"\xc0\xaf", 2, "=?X-BINARY?B?wK8=?="},     /* overlong '/' */
	    {"\xed\xa0\x80", 3, "=?X-BINARY?B?7aCA?="}, /* a surrogate */
	};
	uint8_t out[64];
	struct buf b;
	size_t i, len;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		buf_init(&b, 1024);
		assert_int_equal(xattr_value_encode((const uint8_t *)cases[i].v,
		                     cases[i].n, &b),
		    FERRY_OK);
		assert_string_equal(b.data ? b.data : "", cases[i].enc);
		assert_int_equal(xattr_value_decode(b.data ? b.data : "", b.len,
		                     out, sizeof(out), &len),
		    0);
		assert_int_equal(len, cases[i].n);
		assert_memory_equal(out, cases[i].v, len);
		buf_free(&b);
	}
}

static void
test_decode_refused(void **state)
{
	static const char *const bad[] = {
	    "=?",
	    "=?UTF-8?B?",
	    "=?UTF-8?Q?abc?=",
	    "=?ISO-8859-1?B?YQ==?=",
	    "=?UTF-8?B?YQ=?=",
	    "=?UTF-8?B?YR==?=", /* bits left over */
	    "=?UTF-8?B?Y===?=",
	    "=?UTF-8?B?YQ==YQ==?=",
	    "=?UTF-8?B?***?=",
	    "=?UTF-8?B?YWJj?",
	    "=?UTF-8?B?YWJj",
	};
	uint8_t out[8];
	size_t i, len;

	(void)state;
	for (i = 0; i < N(bad); i++)
		assert_int_equal(
		    xattr_value_decode(bad[i], strlen(bad[i]), out, 8, &len),
		    -1);
	/* lower case charset, and a value too long for its room */
	assert_int_equal(
	    xattr_value_decode("=?utf-8?b?YWJj?=", 16, out, 8, &len), 0);
	assert_int_equal(len, 3);
	assert_int_equal(
	    xattr_value_decode("=?UTF-8?B?YWJjZGVmZ2hp?=", 24, out, 8, &len),
	    -1);
	assert_int_equal(xattr_value_decode("123456789", 9, out, 8, &len), -1);
}

/* An ACL's binary xattr of entries (tag, perm, id). */
static size_t
acl_bin(uint8_t *b, const uint32_t (*e)[3], size_t n)
{
	size_t i, o = 4;

	memset(b, 0, 4);
	b[0] = 2;
	for (i = 0; i < n; i++, o += 8) {
		b[o] = (uint8_t)e[i][0];
		b[o + 1] = 0;
		b[o + 2] = (uint8_t)e[i][1];
		b[o + 3] = 0;
		b[o + 4] = (uint8_t)e[i][2];
		b[o + 5] = (uint8_t)(e[i][2] >> 8);
		b[o + 6] = (uint8_t)(e[i][2] >> 16);
		b[o + 7] = (uint8_t)(e[i][2] >> 24);
	}
	return o;
}

static void
test_acl(void **state)
{
	static const uint32_t full[][3] = {{1, 6, 0xffffffff}, {2, 4, 1234},
	    {2, 7, 4294967294u}, {4, 4, 0xffffffff}, {8, 6, 0},
	    {0x10, 6, 0xffffffff}, {0x20, 0, 0xffffffff}};
	static const uint32_t nomask[][3] = {{1, 6, 0xffffffff}, {2, 4, 1234},
	    {4, 4, 0xffffffff}, {0x20, 0, 0xffffffff}};
	static const uint32_t disorder[][3] = {{1, 6, 0xffffffff},
	    {4, 4, 0xffffffff}, {2, 4, 1234}, {0x10, 6, 0xffffffff},
	    {0x20, 0, 0xffffffff}};
	static const char *const bad_text[] = {"", "u::rw-",
	    "u::rw-,g::r--,o::r--,", "u::rw-,g::r--,o::r-",
	    "u::rw-,g::r--,o::rwz", "u::rw-,u:01:r--,g::r--,m::r--,o::r--",
	    "u::rw-,u:4294967295:r--,g::r--,m::r--,o::r--",
	    "u::rw-,u:5:r--,u:5:r--,g::r--,m::r--,o::r--",
	    "u::rw-,u:5:r--,g::r--,o::r--", "g::r--,u::rw-,o::r--",
	    "u::rw-,g::r--,o::r--,o::r--", "x::rw-,g::r--,o::r--",
	    "u:rw-,g::r--,o::r--", "m:1:rw-,u::rw-,g::r--,o::r--"};
	uint8_t b[256], b2[256];
	char text[256];
	size_t n, len, i;

	(void)state;
	n = acl_bin(b, full, N(full));
	assert_int_equal(acl_to_text(b, n, text, sizeof(text)), 0);
	assert_string_equal(text, "u::rw-,u:1234:r--,u:4294967294:rwx,g::r--,"
	                          "g:0:rw-,m::rw-,o::---");
	assert_int_equal(
	    acl_from_text(text, strlen(text), b2, sizeof(b2), &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(b, b2, n);
	/* too small a room for the text or the xattr */
	assert_int_equal(acl_to_text(b, n, text, 20), -1);
	assert_int_equal(acl_from_text(text, strlen(text), b2, 20, &len), -1);
	n = acl_bin(b, nomask, N(nomask));
	assert_int_equal(acl_to_text(b, n, text, sizeof(text)), -1);
	n = acl_bin(b, disorder, N(disorder));
	assert_int_equal(acl_to_text(b, n, text, sizeof(text)), -1);
	n = acl_bin(b, full, N(full));
	b[0] = 1; /* version */
	assert_int_equal(acl_to_text(b, n, text, sizeof(text)), -1);
	b[0] = 2;
	assert_int_equal(acl_to_text(b, n - 1, text, sizeof(text)), -1);
	b[6] = 8; /* a permission bit past rwx */
	assert_int_equal(acl_to_text(b, n, text, sizeof(text)), -1);
	for (i = 0; i < N(bad_text); i++)
		assert_int_equal(acl_from_text(bad_text[i], strlen(bad_text[i]),
		                     b2, sizeof(b2), &len),
		    -1);
	assert_int_equal(
	    acl_from_text("u::rw-,g::r--,o::r--", 20, b2, sizeof(b2), &len), 0);
	assert_int_equal(len, 28);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_decode_refused),
	    cmocka_unit_test(test_acl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
