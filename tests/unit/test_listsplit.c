/*
 * test_listsplit.c: where a dense range of a listing is cut.  Each case is
 * a range's first page (its first and last keys, the bytes its keys use),
 * where the range ends, and how many cuts it may take; the cuts must lie
 * between the last key and the end, ascend, stay printable past the
 * prefix, and number what the estimate of the rest gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/listsplit.h"

struct split_case {
	const char *name;
	const char *prefix;
	const char *alphabet;            /* the bytes the page's keys used */
	const char *first, *last, *high; /* high NULL: the listing's end */
	size_t max;
	size_t min_cuts, max_cuts; /* how many cuts are right */
	const char *first_below;   /* the first cut comes before it, or NULL */
};

static const struct split_case cases[] = {
    {"flat, to the end: cut, the nearest range about a page", "p/",
        "k0123456789", "p/k000000", "p/k000999", NULL, 16, 4, 16, "p/k003"},
    {"flat, the rest a page: not cut", "p/", "k0123456789", "p/k000000",
        "p/k000999", "p/k001500", 16, 0, 0, NULL},
    {"flat, the rest nine pages: about a cut a page", "p/", "k0123456789",
        "p/k000000", "p/k000999", "p/k009999", 16, 7, 12, "p/k0025"},
    {"as many cuts as asked at most", "p/", "k0123456789", "p/k000000",
        "p/k000999", "p/k009999", 2, 1, 2, NULL},
    {"no cut asked", "p/", "k0123456789", "p/k000000", "p/k000999", NULL, 0, 0,
        0, NULL},
    {"folders", "data/", "abcdefghijklmnopqrstuvwxyz/0123456789.",
        "data/a/b/00.txt", "data/c/q/99.txt", NULL, 16, 1, 16, NULL},
    {"no prefix", "", "0123456789abcdef", "000a", "0fff", NULL, 16, 1, 16, "3"},
    {"a page of one key", "", "ab", "ab", "ab", NULL, 16, 1, 16, NULL},
    {"the end just after the page", "", "xyz", "x", "y", "yz", 16, 0, 1, NULL},
    {"keys past ASCII: cuts stay printable", "", "\xc3\xa9\xe6\x97\xa5",
        "\xc3\xa9", "\xe6\x97\xa5", NULL, 16, 0, 16, NULL},
};

static int
key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c != 0 ? c : (alen > blen) - (alen < blen);
}

static void
check_case(const struct split_case *c)
{
	static struct list_cut out[LIST_SPLIT_MAX];
	struct list_alphabet a;
	const char *prev = c->last;
	size_t prevlen = strlen(c->last), plen = strlen(c->prefix), n, i, j;

	memset(&a, 0, sizeof(a));
	list_alphabet_add(&a, c->alphabet, strlen(c->alphabet));
	n = list_split_after(c->prefix, &a, c->first, strlen(c->first), c->last,
	    strlen(c->last), c->high, c->high ? strlen(c->high) : 0, c->max,
	    out);
	if (n < c->min_cuts || n > c->max_cuts)
		fail_msg("%s: %zu cuts, want %zu to %zu", c->name, n,
		    c->min_cuts, c->max_cuts);
	for (i = 0; i < n; i++) {
		if (key_cmp(out[i].key, out[i].len, prev, prevlen) <= 0)
			fail_msg(
			    "%s: cut %zu not after the key before", c->name, i);
		if (c->high && key_cmp(out[i].key, out[i].len, c->high,
		                   strlen(c->high)) >= 0)
			fail_msg("%s: cut %zu not before the end", c->name, i);
		if (out[i].len < plen || memcmp(out[i].key, c->prefix, plen))
			fail_msg(
			    "%s: cut %zu not under the prefix", c->name, i);
		for (j = plen; j < out[i].len; j++)
			if ((unsigned char)out[i].key[j] < 0x20 ||
			    (unsigned char)out[i].key[j] > 0x7e)
				if (key_cmp(out[i].key, j, c->last, j) != 0)
					fail_msg("%s: cut %zu byte %zu not "
					         "printable",
					    c->name, i, j);
		prev = out[i].key;
		prevlen = out[i].len;
	}
	if (c->first_below && n > 0 &&
	    key_cmp(out[0].key, out[0].len, c->first_below,
	        strlen(c->first_below)) >= 0)
		fail_msg("%s: the first cut '%.*s' is not before '%s'", c->name,
		    (int)out[0].len, out[0].key, c->first_below);
}

static void
test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
}

/* To the end of the listing, the ranges widen: the nearest read first. */
static void
test_widening(void **state)
{
	static struct list_cut out[LIST_SPLIT_MAX];
	struct list_alphabet a;
	long prev = 999, gap = 0, v;
	size_t n, i;

	(void)state;
	memset(&a, 0, sizeof(a));
	list_alphabet_add(&a, "0123456789", 10);
	n = list_split_after(
	    "", &a, "0000000000", 10, "0000000999", 10, NULL, 0, 8, out);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_true(out[i].len <= 10);
		v = 0;
		for (size_t j = 0; j < 10; j++)
			v = v * 10 + (j < out[i].len ? out[i].key[j] - '0' : 0);
		assert_true(v - prev >= gap);
		gap = v - prev;
		prev = v;
	}
	assert_true(gap > 4 * 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_widening),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
