/*
 * fuzz_listsplit.c: the cuts of a range from its first page, for any keys.
 * The first two bytes choose the prefix's length and the cuts asked for,
 * the third whether the range ends at the greatest key; the rest are keys
 * (by newlines) under the prefix, sorted into a page.  Every cut must lie
 * past the page's last key and before the end, ascend, start with the
 * prefix, and be printable where it leaves the last key.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/listsplit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEYS_MAX 64

struct key {
	const char *s;
	size_t len;
};

static int
key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c != 0 ? c : (alen > blen) - (alen < blen);
}

static int
key_order(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	return key_cmp(a->s, a->len, b->s, b->len);
}

/* The cuts out[0..n) against the page's last key and the end. */
static void
check_cuts(const char *prefix, size_t plen, const struct key *last,
    const struct key *high, const struct list_cut *out, size_t n)
{
	const char *prev = last->s;
	size_t prevlen = last->len, i, j;

	for (i = 0; i < n; i++) {
		if (out[i].len > XML_KEY_MAX || out[i].len < plen ||
		    memcmp(out[i].key, prefix, plen) != 0 ||
		    key_cmp(out[i].key, out[i].len, prev, prevlen) <= 0 ||
		    (high && key_cmp(out[i].key, out[i].len, high->s,
		                 high->len) >= 0))
			abort();
		for (j = plen; j < out[i].len; j++)
			if (((unsigned char)out[i].key[j] < 0x20 ||
			        (unsigned char)out[i].key[j] > 0x7e) &&
			    (j >= last->len || key_cmp(out[i].key, j + 1,
			                           last->s, j + 1) != 0))
				abort();
		prev = out[i].key;
		prevlen = out[i].len;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct list_cut out[LIST_SPLIT_MAX];
	static struct list_alphabet a;
	static char buf[KEYS_MAX * (XML_KEY_MAX + 1)];
	struct key k[KEYS_MAX];
	const struct key *last, *high;
	const char *p, *end, *nl;
	char prefix[16];
	size_t plen, max, n = 0, i, at = 0, len;
	int bounded;

	if (size < 4)
		return 0;
	plen = data[0] % 16;
	max = data[1] % (LIST_SPLIT_MAX + 2);
	bounded = data[2] & 1;
	p = (const char *)data + 3;
	end = (const char *)data + size;
	if ((size_t)(end - p) < plen)
		return 0;
	memcpy(prefix, p, plen);
	prefix[plen] = '\0';
	if (memchr(prefix, '\0', plen) != NULL)
		return 0; /* a prefix is a C string */
	/* the prefix, then keys, each under it */
	for (p += plen; p <= end && n < KEYS_MAX; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (plen + len > XML_KEY_MAX)
			len = XML_KEY_MAX - plen;
		memcpy(buf + at, prefix, plen);
		memcpy(buf + at + plen, p, len);
		k[n].s = buf + at;
		k[n++].len = plen + len;
		at += plen + len;
	}
	qsort(k, n, sizeof(*k), key_order);
	/* the page: all keys but the greatest, when that one is the end */
	if (n < 1 || (bounded && (n < 2 || key_cmp(k[n - 2].s, k[n - 2].len,
	                                       k[n - 1].s, k[n - 1].len) == 0)))
		return 0;
	memset(&a, 0, sizeof(a));
	for (i = 0; i < n - (size_t)bounded; i++)
		list_alphabet_add(&a, k[i].s + plen, k[i].len - plen);
	last = &k[n - 1 - (size_t)bounded];
	high = bounded ? &k[n - 1] : NULL;
	n = list_split_after(prefix, &a, k[0].s, k[0].len, last->s, last->len,
	    high ? high->s : NULL, high ? high->len : 0, max, out);
	check_cuts(prefix, plen, last, high, out, n);
	return 0;
}
