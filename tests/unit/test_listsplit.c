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
	const char *page; /* the page's keys past the prefix, by spaces */
	const char *first, *last, *high; /* high NULL: the listing's end */
	size_t max;
	size_t min_cuts, max_cuts; /* how many cuts are right */
	const char *first_below;   /* the first cut comes before it, or NULL */
	const char *all_under;     /* every cut starts with it, or NULL */
};

#define LONGP "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"

static const struct split_case cases[] = {
    {"flat, to the end: cut, the nearest range about two pages", "p/",
        "k000000 k000999", "p/k000000", "p/k000999", NULL, 16, 4, 16, "p/k004",
        "p/k"},
    {"flat, the rest a page: not cut", "p/", "k000000 k000999", "p/k000000",
        "p/k000999", "p/k001500", 16, 0, 0, NULL, NULL},
    {"flat, the rest nine pages: a cut every two", "p/", "k000000 k000999",
        "p/k000000", "p/k000999", "p/k009999", 16, 3, 5, "p/k0035", "p/k00"},
    {"as many cuts as asked at most", "p/", "k000000 k000999", "p/k000000",
        "p/k000999", "p/k009999", 2, 1, 2, NULL, NULL},
    {"no cut asked", "p/", "k000000 k000999", "p/k000000", "p/k000999", NULL, 0,
        0, 0, NULL, NULL},
    /* 5 of 100 folders a page: the rest is 19 pages (read 23), not the 90 that
     * reading the folders' digits in every byte of the page gives */
    {"digit folders: the rest in folders' digits", "data/",
        "d000/f000000.bin d002/f040500.bin d004/f099500.bin",
        "data/d000/f000000.bin", "data/d004/f099500.bin",
        "data/d099/f099999.bin", 16, 8, 12, "data/d014", "data/d0"},
    {"a word in every key: the cuts keep it", "", "img0000.png img0999.png",
        "img0000.png", "img0999.png", "img9999.png", 16, 3, 5, "img3", "img"},
    {"folders", "data/", "a/b/00.txt c/q/99.txt", "data/a/b/00.txt",
        "data/c/q/99.txt", NULL, 16, 1, 16, NULL, "data/"},
    {"no prefix", "", "000a 0123 09bc 0fff", "000a", "0fff", NULL, 16, 1, 16,
        "3", NULL},
    {"a page of one key", "", "ab", "ab", "ab", NULL, 16, 1, 16, NULL, NULL},
    {"the end just after the page", "", "x y", "x", "y", "yz", 16, 0, 1, NULL,
        NULL},
    {"keys past ASCII: cuts stay printable", "", "\xc3\xa9 \xe6\x97\xa5",
        "\xc3\xa9", "\xe6\x97\xa5", NULL, 16, 0, 16, NULL, NULL},
    {"control bytes: cuts stay printable", "b/", "\x01\x02 \x01\x7f",
        "b/\x01\x02", "b/\x01\x7f", "b/\x02", 16, 0, 16, NULL, "b/"},
    /* a folder of a page or more, its files numbered across folders: the
     * rest of the folder is not cut in the file names' digits */
    {"a page in one folder: its next pages, its end, then folders", "data/",
        "d0000/f00000000 d0000/f00000999", "data/d0000/f00000000",
        "data/d0000/f00000999", NULL, 16, 4, 16, "data/d0000/f00003", "data/d"},
    {"a page in one folder, the range ending in it: cut in it", "data/",
        "d0000/f00000000 d0000/f00000999", "data/d0000/f00000000",
        "data/d0000/f00000999", "data/d0000/f00009999", 16, 3, 5,
        "data/d0000/f00004", "data/d0000/f0000"},
    {"a range to its folder's end: cut up to it, four ranges", "data/",
        "d0003/f00003000 d0003/f00003999", "data/d0003/f00003000",
        "data/d0003/f00003999", "data/d0003/~", 16, 4, 4, "data/d0003/f00006",
        "data/d0003/f"},
    {"a long shared prefix", "", LONGP "x000000 " LONGP "x000999",
        LONGP "x000000", LONGP "x000999", NULL, 16, 4, 16, LONGP "x004",
        LONGP "x"},
};

/* Adds the space-separated keys of page to a. */
static void
page_add(struct list_alphabet *a, const char *page)
{
	const char *sp;

	memset(a, 0, sizeof(*a));
	for (; *page != '\0'; page = *sp ? sp + 1 : sp) {
		sp = strchr(page, ' ');
		if (sp == NULL)
			sp = page + strlen(page);
		list_alphabet_add(a, page, (size_t)(sp - page));
	}
}

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
	static struct list_alphabet a;
	const char *prev = c->last;
	size_t prevlen = strlen(c->last), plen = strlen(c->prefix), n, i, j;

	page_add(&a, c->page);
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
		if (c->all_under && (out[i].len < strlen(c->all_under) ||
		                        memcmp(out[i].key, c->all_under,
		                            strlen(c->all_under)) != 0))
			fail_msg("%s: cut %zu '%.*s' not under '%s'", c->name,
			    i, (int)out[i].len, out[i].key, c->all_under);
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
	static struct list_alphabet a;
	long prev = 999, gap = 0, v;
	size_t n, i;

	(void)state;
	memset(&a, 0, sizeof(a));
	list_alphabet_add(&a, "0000000999", 10);
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

/*
 * A page in one folder of many: a cut two pages on in the folder, one at
 * its end, then cuts at folder names alone, nearest first, the first two
 * folders on.
 */
static void
test_folder_page(void **state)
{
	static struct list_cut out[LIST_SPLIT_MAX];
	static struct list_alphabet a;
	const char *first = "data/d0000/f00000000",
	           *last = "data/d0000/f00000999";
	size_t n, i;

	(void)state;
	page_add(&a, "d0000/f00000000 d0000/f00000999");
	n = list_split_after("data/", &a, first, strlen(first), last,
	    strlen(last), NULL, 0, 16, out);
	assert_true(n >= 4);
	assert_memory_equal(out[0].key, "data/d0000/f00002", 17);
	assert_int_equal(out[1].len, strlen("data/d0000/~"));
	assert_memory_equal(out[1].key, "data/d0000/~", out[1].len);
	assert_int_equal(out[2].len, strlen("data/d0002"));
	assert_memory_equal(out[2].key, "data/d0002", out[2].len);
	for (i = 2; i < n; i++)
		assert_null(memchr(out[i].key + 5, '/', out[i].len - 5));
	/* in a range that ends two folders on: no cut past the next folder */
	n = list_split_after("data/", &a, first, strlen(first), last,
	    strlen(last), "data/d0001", strlen("data/d0001"), 16, out);
	assert_int_equal(n, 2);
	assert_memory_equal(out[1].key, "data/d0000/~", out[1].len);
}

/* A key too long to take the digits of a cut: not cut, whatever high. */
static void
test_long_key(void **state)
{
	static struct list_cut out[LIST_SPLIT_MAX];
	static struct list_alphabet a;
	static char first[XML_KEY_MAX], last[XML_KEY_MAX];
	size_t n = XML_KEY_MAX - 4;

	(void)state;
	memset(first, 'k', n);
	memset(last, 'k', n);
	first[n - 1] = '0';
	last[n - 1] = '9';
	memset(&a, 0, sizeof(a));
	list_alphabet_add(&a, first, n);
	list_alphabet_add(&a, last, n);
	assert_int_equal(
	    list_split_after("", &a, first, n, last, n, NULL, 0, 16, out), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_widening),
	    cmocka_unit_test(test_folder_page),
	    cmocka_unit_test(test_long_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
