/*
 * test_listcheck.c: the check each listed entry passes before a listing
 * hands it on: keys strictly ascending by bytes (across pages: the check
 * carries the last key), under the prefix, sizes up to 5 TiB, dates that
 * parse and fit nanoseconds in int64, ETags of at most REMOTE_ETAG_MAX
 * bytes without control bytes.  Each case is a sequence of entries
 * and the index of the first one refused (-1: all pass).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/listcheck.h"
#include "remote/remote.h"

#define T0 "2023-11-14T22:13:20.000Z"
#define TIB5 (5ULL << 40)
#define MAXE 4
#define H16 "0123456789abcdef"
/* quotes and 77 bytes: REMOTE_ETAG_MAX, the longest taken */
#define ETAG79 "\"" H16 H16 H16 H16 "0123456789abc\""
#define ETAG80 "\"" H16 H16 H16 H16 "0123456789abcd\""
#define ETAG256 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16 H16
#define ETAG2048 ETAG256 ETAG256 ETAG256 ETAG256 ETAG256 ETAG256 ETAG256 ETAG256

struct ent {
	const char *key; /* NULL ends the sequence */
	uint64_t size;
	const char *date;
};

struct seq_case {
	const char *name;
	const char *prefix;
	int sorted;
	struct ent e[MAXE + 1];
	int bad;          /* index of the first refused entry, -1 none */
	const char *says; /* in the message of the refusal */
};

static const struct seq_case cases[] = {
    {"ascending", "p/", 1,
        {{"p/a", 1, T0}, {"p/b", 2, T0}, {"p/b/c", 0, T0}, {"p/c", 3, T0}}, -1,
        NULL},
    {"bytes, not text: 'B' before 'a', '/' before '0'", "", 1,
        {{"B", 1, T0}, {"a", 1, T0}, {"a/", 1, T0}, {"a0", 1, T0}}, -1, NULL},
    {"UTF-8 after ASCII", "", 1,
        {{"z", 1, T0}, {"\xc3\xa9", 1, T0}, {"\xe6\x97\xa5", 1, T0}}, -1, NULL},
    {"reversed", "p/", 1, {{"p/c", 1, T0}, {"p/b", 1, T0}}, 1,
        "listed 'p/b' after 'p/c': its listing is not in order"},
    {"a prefix of the key before", "", 1, {{"ab", 1, T0}, {"a", 1, T0}}, 1,
        "not in order"},
    {"repeated", "p/", 1, {{"p/a", 1, T0}, {"p/b", 1, T0}, {"p/b", 1, T0}}, 2,
        "listed 'p/b' twice"},
    {"repeated, unsorted bucket", "p/", 0,
        {{"p/b", 1, T0}, {"p/a", 1, T0}, {"p/a", 1, T0}}, 2, "twice"},
    {"unsorted bucket: any order", "p/", 0,
        {{"p/c", 1, T0}, {"p/a", 1, T0}, {"p/b", 1, T0}}, -1, NULL},
    {"outside the prefix", "p/", 1, {{"p/a", 1, T0}, {"q/b", 1, T0}}, 1,
        "listed 'q/b', which is not under the prefix 'p/'"},
    {"shorter than the prefix", "photos/", 1, {{"photo", 1, T0}}, 0,
        "not under the prefix"},
    {"outside, unsorted bucket", "p/", 0, {{"o/a", 1, T0}}, 0,
        "not under the prefix"},
    {"the prefix itself (a folder marker)", "p/", 1,
        {{"p/", 0, T0}, {"p/a", 1, T0}}, -1, NULL},
    {"5 TiB", "", 1, {{"a", TIB5, T0}}, -1, NULL},
    {"5 TiB and a byte", "", 1, {{"a", 1, T0}, {"b", TIB5 + 1, T0}}, 1,
        "size of 5497558138881 bytes"},
    {"2^64-1 bytes", "", 1, {{"a", UINT64_MAX, T0}}, 0,
        "size of 18446744073709551615 bytes"},
    {"year 9999", "", 1, {{"a", 1, "9999-12-31T23:59:59.000Z"}}, 0,
        "date '9999-12-31T23:59:59.000Z'"},
    {"2262-04-11, the last second that fits", "", 1,
        {{"a", 1, "2262-04-11T23:47:16.000Z"}}, -1, NULL},
    {"2262-04-11, a second later", "", 1,
        {{"a", 1, "2262-04-11T23:47:17.000Z"}}, 0, "out of range"},
    {"1970-01-01", "", 1, {{"a", 1, "1970-01-01T00:00:00.000Z"}}, -1, NULL},
    {"1969", "", 1, {{"a", 1, "1969-12-31T23:59:59.000Z"}}, 0, "out of range"},
    {"no date", "", 1, {{"a", 1, ""}}, 0, "date ''"},
    {"a date that does not parse", "", 1, {{"a", 1, "yesterday"}}, 0,
        "does not parse"},
    {"February 30", "", 1, {{"a", 1, "2023-02-30T00:00:00Z"}}, 0,
        "does not parse"},
    {"a refused entry is not kept: the next is checked against the one "
     "before",
        "", 1, {{"b", 1, T0}, {"c", UINT64_MAX, T0}, {"c", 1, T0}}, 1, "size"},
};

static void
test_sequences(void **state)
{
	size_t i;
	int j, bad;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct seq_case *c = &cases[i];
		struct list_check chk;
		int64_t when;

		list_check_init(&chk, c->prefix, c->sorted);
		bad = -1;
		for (j = 0; j < MAXE && c->e[j].key && bad < 0; j++) {
			struct xml_list_entry x = {c->e[j].key,
			    strlen(c->e[j].key), c->e[j].size, "\"e\"",
			    c->e[j].date, NULL};
			if (list_check_entry(&chk, &x, &when) != FERRY_OK)
				bad = j;
			else if (when < 0 || when > REMOTE_TIME_MAX)
				fail_msg(
				    "%s: a date out of range passed", c->name);
		}
		if (bad != c->bad)
			fail_msg("%s: refused entry %d, want %d (%s)", c->name,
			    bad, c->bad, ferry_errmsg());
		if (c->says && strstr(ferry_errmsg(), c->says) == NULL)
			fail_msg("%s: no \"%s\" in \"%s\"", c->name, c->says,
			    ferry_errmsg());
		if (c->says && !strstr(ferry_errmsg(), "deletes nothing"))
			fail_msg("%s: the message does not say that nothing "
			         "is deleted",
			    c->name);
	}
}

/* ETags: none longer than REMOTE_ETAG_MAX, none with a control byte. */
static void
test_etags(void **state)
{
	static const struct {
		const char *etag;
		const char *says; /* NULL: passes */
	} rows[] = {
	    {ETAG79, NULL},
	    {"\"" H16 H16 "-10000\"", NULL}, /* a multipart's */
	    {"", NULL},                      /* a delete marker's */
	    {ETAG80, "listed 'k' with an ETag of 80 bytes, over the 79"},
	    /* as long as a listing page lets a field be */
	    {ETAG2048, "ETag of 2048 bytes"},
	    {"\"e\"\r\nX-Injected: yes", "ETag holding a control byte"},
	    {"\"e\x01\"", "control byte"},
	    {"\"e\x7f\"", "control byte"},
	};
	struct xml_list_entry x = {"k", 1, 1, NULL, T0, NULL};
	struct list_check chk;
	int64_t when;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		list_check_init(&chk, "", 1);
		x.etag = rows[i].etag;
		e = list_check_entry(&chk, &x, &when);
		if ((e == FERRY_OK) != (rows[i].says == NULL))
			fail_msg(
			    "row %zu: got %d (%s)", i, (int)e, ferry_errmsg());
		if (e != FERRY_OK &&
		    (strstr(ferry_errmsg(), rows[i].says) == NULL ||
		        strstr(ferry_errmsg(), "deletes nothing") == NULL))
			fail_msg("row %zu: '%s'", i, ferry_errmsg());
		/* refused, the entry is not the one the next follows */
		assert_int_equal(chk.have_prev, e == FERRY_OK);
	}
}

/* The key passed last is carried, as from one page to the next. */
static void
test_across_pages(void **state)
{
	struct xml_list_entry a = {"p/m", 3, 1, "\"e\"", T0, NULL};
	struct xml_list_entry b = {"p/a", 3, 1, "\"e\"", T0, NULL};
	struct list_check page1, page2;
	int64_t when;

	(void)state;
	list_check_init(&page1, "p/", 1);
	assert_int_equal(list_check_entry(&page1, &a, &when), FERRY_OK);
	assert_int_equal(when, 1700000000);
	page2 = page1; /* what the next page starts from */
	assert_int_equal(list_check_entry(&page2, &b, &when), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "'p/a' after 'p/m'"));
	assert_int_equal(list_check_entry(&page2, &a, &when), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "twice"));
}

static void
test_bucket_sorted(void **state)
{
	(void)state;
	assert_true(remote_bucket_sorted("photos"));
	assert_true(remote_bucket_sorted("--x-s3"));
	assert_true(remote_bucket_sorted("a--x-s3x"));
	assert_true(remote_bucket_sorted("a-x-s3"));
	assert_false(remote_bucket_sorted("photos--usw2-az1--x-s3"));
	assert_false(remote_bucket_sorted("a--x-s3"));
}

/* S3's key order: bytes as unsigned, a key before those it begins. */
static void
test_key_cmp(void **state)
{
	static const struct {
		const char *a, *b;
		size_t alen, blen;
		int want; /* its sign */
	} rows[] = {
	    {"a", "b", 1, 1, -1},
	    {"b", "a", 1, 1, 1},
	    {"a", "a", 1, 1, 0},
	    {"", "", 0, 0, 0},
	    {"", "a", 0, 1, -1},
	    {"ab", "a", 2, 1, 1},
	    {"a", "ab", 1, 2, -1},
	    {"a/b", "a-b", 3, 3, 1},
	    {"\xc3\xa9", "z", 2, 1, 1},
	    /* bytes past the length do not count */
	    {"abX", "abY", 2, 2, 0},
	    {"a\0b", "a\0c", 3, 3, -1},
	};
	size_t i;
	int c;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		c = remote_key_cmp(
		    rows[i].a, rows[i].alen, rows[i].b, rows[i].blen);
		assert_int_equal((c > 0) - (c < 0), rows[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sequences),
	    cmocka_unit_test(test_across_pages),
	    cmocka_unit_test(test_etags),
	    cmocka_unit_test(test_bucket_sorted),
	    cmocka_unit_test(test_key_cmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
