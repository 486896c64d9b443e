/*
 * test_posix.c: the values of a file's POSIX metadata as objects carry
 * them (sync/posix.c): rclone's forms read and written, each field read
 * on its own, malformed ones refused, and the checks on a link's target.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sync/engine/posix.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_seconds(void **state)
{
	static const struct {
		const char *s;
		int ok;
		int64_t ns;
	} cases[] = {
	    {"1796282971.911646538", 0, 1796282971911646538LL},
	    {"1700000000", 0, 1700000000000000000LL},
	    {"1700000000.5", 0, 1700000000500000000LL},
	    {"0.000000001", 0, 1},
	    {"-1.5", 0, -1500000000LL},
	    {"9223372035", 0, 9223372035000000000LL},
	    {"9223372036", -1, 0},
	    {"99999999999999999999", -1, 0},
	    {"1700000000.1234567890", -1, 0},
	    {"1700000000.", -1, 0},
	    {".5", -1, 0},
	    {"", -1, 0},
	    {"-", -1, 0},
	    {" 1700000000", -1, 0},
	    {"1700000000 ", -1, 0},
	    {"1e9", -1, 0},
	    {"+1700000000", -1, 0},
	};
	int64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		ns = 42;
		if (posix_parse_seconds(cases[i].s, &ns) != cases[i].ok ||
		    ns != cases[i].ns)
			fail_msg("'%s': want %d %lld, got %lld", cases[i].s,
			    cases[i].ok, (long long)cases[i].ns, (long long)ns);
	}
}

static void
test_rfc3339(void **state)
{
	static const struct {
		const char *s;
		int ok;
		int64_t ns;
	} cases[] = {
	    {"2026-12-03T07:29:31.911646538Z", 0, 1796282971911646538LL},
	    {"2026-12-03T07:29:31Z", 0, 1796282971000000000LL},
	    {"2026-12-03T08:29:31.5+01:00", 0, 1796282971500000000LL},
	    {"1970-01-01T00:00:00Z", 0, 0},
	    {"1969-12-31T23:59:59Z", 0, -1000000000LL}, /* as push writes */
	    {"2026-12-03T07:29:31.Z", -1, 0},
	    {"2026-12-03T07:29:31.1234567890Z", -1, 0},
	    {"2026-02-30T07:29:31Z", -1, 0},
	    {"2026-12-03 07:29:31Z", -1, 0},
	    {"2026-12-03T07:29:31X", -1, 0},
	    {"2026-12-03T07:29", -1, 0},
	    {"Thu, 03 Dec 2026 07:29:31 GMT", -1, 0},
	    {"9999-12-31T23:59:59Z", -1, 0},
	    {"", -1, 0},
	};
	int64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		ns = 42;
		if (posix_parse_rfc3339(cases[i].s, &ns) != cases[i].ok ||
		    ns != cases[i].ns)
			fail_msg("'%s': want %d %lld, got %lld", cases[i].s,
			    cases[i].ok, (long long)cases[i].ns, (long long)ns);
	}
}

static void
test_mode_id(void **state)
{
	static const struct {
		const char *s;
		int ok;
		uint32_t v;
	} modes[] =
	    {
	        {"100644", 0, 0100644},
	        {"120777", 0, 0120777},
	        {"40755", 0, 040755},
	        {"4755", 0, 04755},
	        {"177777", 0, 0177777},
	        {"200000", -1, 0},
	        {"100648", -1, 0},
	        {"0x1ff", -1, 0},
	        {"", -1, 0},
	        {"-1", -1, 0},
	        {"644 ", -1, 0},
	    },
	  ids[] = {
	      {"0", 0, 0},
	      {"65534", 0, 65534},
	      {"4294967294", 0, 4294967294u},
	      {"4294967295", -1, 0},
	      {"99999999999", -1, 0},
	      {"-1", -1, 0},
	      {"1a", -1, 0},
	      {"", -1, 0},
	  };
	uint32_t v;
	size_t i;

	(void)state;
	for (i = 0; i < N(modes); i++)
		if (posix_parse_mode(modes[i].s, &v) != modes[i].ok ||
		    v != modes[i].v)
			fail_msg("mode '%s'", modes[i].s);
	for (i = 0; i < N(ids); i++)
		if (posix_parse_id(ids[i].s, &v) != ids[i].ok || v != ids[i].v)
			fail_msg("id '%s'", ids[i].s);
}

/* What is encoded decodes to the same values; the forms are rclone's. */
static void
test_encode_decode(void **state)
{
	struct stat st;
	struct remote_posix m;
	struct posix_attrs a;
	const char *bad = "x";

	(void)state;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 04751;
	st.st_uid = 65534;
	st.st_gid = 100;
	st.st_atim.tv_sec = 1796282971;
	st.st_atim.tv_nsec = 5;
	posix_encode(&st, -1500000000LL, "nobody", "users two", &m);
	assert_string_equal(m.mtime, "-1.500000000");
	assert_string_equal(m.atime, "2026-12-03T07:29:31.000000005Z");
	assert_string_equal(m.mode, "104751");
	assert_string_equal(m.uid, "65534");
	assert_string_equal(m.gid, "100");
	assert_string_equal(m.uname, "nobody");
	assert_string_equal(m.gname, ""); /* a blank: not sent */
	assert_int_equal(posix_decode(&m, &a, &bad), 0);
	assert_null(bad);
	assert_true(a.has_mtime && a.mtime_ns == -1500000000LL);
	assert_true(a.has_atime && a.atime_ns == 1796282971000000005LL);
	assert_true(a.has_mode && a.mode == (S_IFREG | 04751));
	assert_true(a.has_uid && a.uid == 65534);
	assert_true(a.has_gid && a.gid == 100);
	assert_string_equal(a.uname, "nobody");
	assert_string_equal(a.gname, "");
}

/* Each field on its own: a bad one is refused, the others kept. */
static void
test_decode_fields(void **state)
{
	struct remote_posix m;
	struct posix_attrs a;
	const char *bad = NULL;

	(void)state;
	memset(&m, 0, sizeof(m));
	snprintf(m.mtime, sizeof(m.mtime), "%s", "2026-12-03T07:29:31Z");
	snprintf(m.atime, sizeof(m.atime), "%s", "yesterday");
	snprintf(m.mode, sizeof(m.mode), "%s", "100999");
	snprintf(m.uid, sizeof(m.uid), "%s", "1000");
	snprintf(m.uname, sizeof(m.uname), "%s", "a\tb");
	assert_int_equal(posix_decode(&m, &a, &bad), 3);
	assert_string_equal(bad, REMOTE_META_POSIX_ATIME);
	assert_true(a.has_mtime && a.mtime_ns == 1796282971000000000LL);
	assert_false(a.has_atime || a.has_mode || a.has_gid);
	assert_true(a.has_uid && a.uid == 1000);
	assert_string_equal(a.uname, "");
	memset(&m, 0, sizeof(m));
	assert_int_equal(posix_decode(&m, &a, NULL), 0);
	assert_false(a.has_mtime || a.has_atime || a.has_mode || a.has_uid);
}

static void
test_mode_allowed(void **state)
{
	static const struct {
		uint32_t mode;
		int root, owned;
		uint32_t want;
	} cases[] = {
	    {S_IFREG | 06755, 1, 1, 06755},
	    {S_IFREG | 07755, 1, 1, 07755},
	    /* the owner not given: no set-id bits, the sticky bit kept */
	    {S_IFREG | 06755, 1, 0, 0755},
	    {S_IFREG | 07755, 1, 0, 01755},
	    {S_IFREG | 04700, 1, 0, 0700},
	    {S_IFREG | 02750, 1, 0, 0750},
	    {S_IFREG | 06755, 0, 0, 0755},
	    {S_IFREG | 06755, 0, 1, 0755},
	    {S_IFDIR | 01777, 0, 0, 0777},
	    {0640, 0, 0, 0640},
	    {0640, 1, 0, 0640},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (posix_mode_allowed(cases[i].mode, cases[i].root,
		        cases[i].owned) != cases[i].want)
			fail_msg("%o root %d owned %d: want %o",
			    (unsigned)cases[i].mode, cases[i].root,
			    cases[i].owned, (unsigned)cases[i].want);
}

static void
test_link_outside(void **state)
{
	static const struct {
		const char *key, *target;
		int want;
	} cases[] = {
	    {"l", "f", 0},
	    {"l", "./f", 0},
	    {"l", ".", 0},
	    {"l", "./", 0},
	    {"l", "a/b/", 0},
	    {"l", "sub/../f", 1}, /* "sub" may be a link */
	    {"l", "..", 1},
	    {"l", "../f", 1},
	    {"l", "/etc/passwd", 1},
	    {"l", "", 1},
	    {"d/l", "../f", 0},
	    {"d/l", "./../f", 0},
	    {"d/l", "..//f", 0},
	    {"d/l", "../../f", 1},
	    {"d/e/l", "../../f", 0},
	    {"d/e/l", "../../..", 1},
	    {"d/e/l", "x/../../../f", 1},
	    {"d/e/l", "x/../../../../f", 1},
	    {"d/l", "x/../../y/../../z", 1},
	    {"d/l", "a//b/../..", 1},
	    {"l", "a/../..", 1},
	    {"l", "...", 0},
	    {"l", ".../..", 1},
	    {"l", ".x/..", 1},
	    {"l", "l/..", 1}, /* issue 35: esc -> l/.. with l -> . */
	    {"l",
	        "l/l/l/l/l/l/l/l/l/l/l/l/../../../../../../../../../../../.."
	        "/etc/shadow",
	        1},
	    {"a/b/c/l", "../../../x/y", 0},
	    {"a/b/c/l", "../../../x/y/..", 1},
	    {"a/b/c/l", "../../../../x", 1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (posix_link_outside(cases[i].key, strlen(cases[i].key),
		        cases[i].target,
		        strlen(cases[i].target)) != cases[i].want)
			fail_msg("%s -> %s: want %d", cases[i].key,
			    cases[i].target, cases[i].want);
	assert_true(posix_link_outside("l", 1, "a\0b", 3));
	/* the same rule by depth, for a link met on disk */
	assert_false(posix_target_outside(2, "../../f", 7));
	assert_true(posix_target_outside(1, "../../f", 7));
	assert_true(posix_target_outside(0, "..", 2));
	assert_true(posix_target_outside(3, "a/..", 4));
	assert_true(posix_is_link_key("a/x.rclonelink", 14));
	assert_false(posix_is_link_key("a/.rclonelink", 13));
	assert_false(posix_is_link_key(".rclonelink", 11));
	assert_false(posix_is_link_key("x.rclonelinks", 13));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seconds),
	    cmocka_unit_test(test_rfc3339),
	    cmocka_unit_test(test_mode_id),
	    cmocka_unit_test(test_encode_decode),
	    cmocka_unit_test(test_decode_fields),
	    cmocka_unit_test(test_mode_allowed),
	    cmocka_unit_test(test_link_outside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
