/*
 * fuzz_linkpair.c: a link's key whose plain twin was listed before it
 * (sync/linkpair.c), for any listing: the input's lines, sorted and
 * without repeats, are the keys.  A key is left out exactly when it ends
 * in ".rclonelink" and the key without that ending was listed and kept,
 * as a search of the keys kept so far finds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/scan.h"
#include "sync/plan/linkpair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEYS_MAX 256

struct key {
	const char *s;
	size_t len;
	int kept;
};

static int
key_order(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

/* Whether a key of keys[0..n) kept is s[0..len). */
static int
kept_before(const struct key *keys, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (keys[i].kept && keys[i].len == len &&
		    memcmp(keys[i].s, s, len) == 0)
			return 1;
	return 0;
}

/* Splits data into at most KEYS_MAX keys of 1 to MANIFEST_KEY_MAX bytes. */
static size_t
split(const char *data, size_t size, struct key *keys)
{
	const char *p = data, *end = data + size, *nl;
	size_t n = 0;

	while (p < end && n < KEYS_MAX) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		if (nl > p && (size_t)(nl - p) <= MANIFEST_KEY_MAX) {
			keys[n].s = p;
			keys[n++].len = (size_t)(nl - p);
		}
		p = nl + 1;
	}
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct link_pairs lp;
	struct key keys[KEYS_MAX];
	size_t n, i, j = 0, x;
	int want;

	n = split((const char *)data, size, keys);
	qsort(keys, n, sizeof(keys[0]), key_order);
	for (i = 0; i < n; i++) /* a listing names a key once */
		if (j == 0 || key_order(&keys[j - 1], &keys[i]) != 0)
			keys[j++] = keys[i];
	memset(&lp, 0, sizeof(lp));
	for (i = 0; i < j; i++) {
		x = keys[i].len - MANIFEST_LINK_EXT_LEN;
		want = keys[i].len > MANIFEST_LINK_EXT_LEN &&
		       memcmp(keys[i].s + x, MANIFEST_LINK_EXT,
		           MANIFEST_LINK_EXT_LEN) == 0 &&
		       kept_before(keys, i, keys[i].s, x);
		if (link_pairs_shadowed(&lp, keys[i].s, keys[i].len) != want)
			abort();
		keys[i].kept = !want;
	}
	return 0;
}
