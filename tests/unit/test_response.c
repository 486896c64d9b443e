/*
 * test_response.c: a reply header's value taken into its field
 * (remote/response.c): trimmed, matched by name in any case, and never
 * cut: a value too long for its field is refused, and posix metadata so
 * refused is left out by its reader (sync/posix.c), naming the header;
 * and the outcome a reply's status or S3 code comes to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/internal.h"
#include "sync/engine/posix.h"

#define S(x) x, sizeof(x) - 1
#define D10 "0123456789"

static void
test_take(void **state)
{
	static const struct {
		const char *line;
		size_t len;
		const char *name;
		size_t cap;
		int want;
		const char *value;
	} rows[] = {
	    {S("ETag: \"abc\"\r\n"), "etag", 80, 1, "\"abc\""},
	    {S("etag:\t\"abc\" \r\n"), "etag", 80, 1, "\"abc\""},
	    {S("ETAG:\r\n"), "etag", 80, 1, ""},
	    {S("ETagX: 1\r\n"), "etag", 80, 0, ""},
	    {S("Content-Type: a\r\n"), "etag", 80, 0, ""},
	    /* the longest value that fits, and a byte more */
	    {S("x-amz-meta-mode: 100644\r\n"), "x-amz-meta-mode", 7, 1,
	        "100644"},
	    {S("x-amz-meta-mode: 1006440\r\n"), "x-amz-meta-mode", 7, -1, ""},
	    /* cut to 15 bytes this read as mode 010 */
	    {S("x-amz-meta-mode: 0000000000000104755\r\n"), "x-amz-meta-mode",
	        16, -1, ""},
	    /* cut to 31 digits this read as 0 */
	    {S("x-amz-meta-ferry-mtime: 00000000000000000000000000000"
	       "001700000000000000000\r\n"),
	        "x-amz-meta-ferry-mtime", 32, -1, ""},
	    {S("x-amz-meta-ferry-mtime: " D10 D10 D10 "1\r\n"),
	        "x-amz-meta-ferry-mtime", 32, 1, D10 D10 D10 "1"},
	    {S("x-amz-meta-ferry-mtime: " D10 D10 D10 "12\r\n"),
	        "x-amz-meta-ferry-mtime", 32, -1, ""},
	    /* blanks around the value do not count */
	    {S("x-amz-meta-uid:      1000      \r\n"), "x-amz-meta-uid", 5, 1,
	        "1000"},
	};
	char dst[128];
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(dst, 'x', sizeof(dst));
		dst[0] = '\0';
		r = remote_header_take(
		    rows[i].line, rows[i].len, rows[i].name, dst, rows[i].cap);
		if (r != rows[i].want)
			fail_msg(
			    "row %zu: got %d, want %d", i, r, rows[i].want);
		if (r != 0 && strcmp(dst, rows[i].value) != 0)
			fail_msg(
			    "row %zu: '%s', want '%s'", i, dst, rows[i].value);
	}
}

/*
 * REMOTE_POSIX_CUT, what a field gets for a value too long for it, is
 * refused by the reader of every field, which names its header.
 */
static void
test_cut_refused(void **state)
{
	static const char *const names[] = {REMOTE_META_POSIX_MTIME,
	    REMOTE_META_POSIX_ATIME, REMOTE_META_POSIX_MODE,
	    REMOTE_META_POSIX_UID, REMOTE_META_POSIX_GID,
	    REMOTE_META_POSIX_UNAME, REMOTE_META_POSIX_GNAME};
	struct remote_posix m;
	struct posix_attrs a;
	char *field[7];
	const char *bad;
	size_t i;

	(void)state;
	field[0] = m.mtime;
	field[1] = m.atime;
	field[2] = m.mode;
	field[3] = m.uid;
	field[4] = m.gid;
	field[5] = m.uname;
	field[6] = m.gname;
	for (i = 0; i < 7; i++) {
		memset(&m, 0, sizeof(m));
		snprintf(field[i], 16, "%s", REMOTE_POSIX_CUT);
		assert_int_equal(posix_decode(&m, &a, &bad), 1);
		assert_string_equal(bad, names[i]);
		assert_false(a.has_mtime || a.has_atime || a.has_mode ||
		             a.has_uid || a.has_gid);
		assert_string_equal(a.uname, "");
		assert_string_equal(a.gname, "");
	}
}

/* What a reply's status, or a DeleteObjects key's code, means. */
static void
test_outcome(void **state)
{
	static const struct {
		ferry_err err;
		long status;
		enum remote_outcome want;
	} rows[] = {
	    {FERRY_OK, 200, REMOTE_SUCCEEDED},
	    {FERRY_OK, 204, REMOTE_SUCCEEDED},
	    {FERRY_OK, 206, REMOTE_SUCCEEDED},
	    {FERRY_OK, 404, REMOTE_NOT_FOUND},
	    {FERRY_OK, 412, REMOTE_PRECONDITION_FAILED},
	    {FERRY_OK, 403, REMOTE_FAILED},
	    {FERRY_OK, 416, REMOTE_FAILED},
	    {FERRY_OK, 503, REMOTE_FAILED},
	    {FERRY_OK, 0, REMOTE_FAILED},
	    /* no reply came, whatever status a first attempt had */
	    {FERRY_ENET, 200, REMOTE_FAILED},
	    {FERRY_ECANCEL, 412, REMOTE_FAILED},
	};
	static struct remote_req q;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		q.resp.err = rows[i].err;
		q.resp.status = rows[i].status;
		assert_int_equal(reply_outcome(&q), rows[i].want);
	}
	assert_int_equal(reply_code_outcome("NoSuchKey"), REMOTE_NOT_FOUND);
	assert_int_equal(reply_code_outcome("PreconditionFailed"),
	    REMOTE_PRECONDITION_FAILED);
	assert_int_equal(reply_code_outcome("AccessDenied"), REMOTE_FAILED);
	assert_int_equal(reply_code_outcome(NULL), REMOTE_FAILED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_take),
	    cmocka_unit_test(test_cut_refused),
	    cmocka_unit_test(test_outcome),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
