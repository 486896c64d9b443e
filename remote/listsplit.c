/*
 * listsplit.c: the cuts of a dense range (see listsplit.h).
 */
#include <stdint.h>
#include <string.h>

#include "remote/listsplit.h"

/* The digits keys are read in: the printable bytes a page used. */
struct digits {
	unsigned char sym[96];
	unsigned base;  /* symbols + 1: digit 0 is "nothing", past the end */
	unsigned width; /* digits read into one 63-bit number */
};

void
list_alphabet_add(struct list_alphabet *a, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		a->seen[(unsigned char)key[i]] = 1;
}

static void
digits_init(struct digits *d, const struct list_alphabet *a)
{
	unsigned b, n = 0;
	uint64_t top;

	for (b = 0x20; b < 0x7f; b++)
		if (a->seen[b])
			d->sym[n++] = (unsigned char)b;
	if (n == 0)
		d->sym[n++] = '0';
	d->base = n + 1;
	/* as many digits as fit 63 bits: base^width <= 2^63 */
	for (d->width = 0, top = 1;
	     d->width < 16 && top <= (1ull << 63) / d->base; d->width++)
		top *= d->base;
}

/* The digit of byte c: 1 + the symbols below or at it; 0 below all. */
static uint64_t
digit_of(const struct digits *d, unsigned char c)
{
	uint64_t k = 0;

	while (k < d->base - 1 && d->sym[k] <= c)
		k++;
	return k;
}

/* The width digits of s from at (0 past its end; top: every digit max). */
static uint64_t
number_of(const struct digits *d, const char *s, size_t len, size_t at, int top)
{
	uint64_t v = 0;
	size_t i;

	for (i = at; i < at + d->width; i++)
		v = v * d->base + (top ? d->base - 1
		                      : i < len
		                          ? digit_of(d, (unsigned char)s[i])
		                          : 0);
	return v;
}

static size_t
common_len(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0;

	while (i < alen && i < blen && a[i] == b[i])
		i++;
	return i;
}

static int
key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c != 0 ? c : (alen > blen) - (alen < blen);
}

/*
 * The cut at v, the number of the digits from at, after last's first at
 * bytes, into *c; 0 when it does not lie between prev and high.
 */
static int
make_cut(const struct digits *d, const char *last, size_t at, uint64_t v,
    const struct list_cut *prev, const char *high, size_t highlen,
    struct list_cut *c)
{
	size_t i;
	uint64_t k;

	memcpy(c->key, last, at);
	c->len = at + d->width;
	for (i = d->width; i-- > 0;) {
		k = v % d->base;
		v /= d->base;
		/* "nothing" inside a key reads as the smallest symbol */
		c->key[at + i] = (char)d->sym[k ? k - 1 : 0];
		if (k == 0 && c->len == at + i + 1)
			c->len--;
	}
	if (key_cmp(c->key, c->len, prev->key, prev->len) <= 0)
		return 0;
	return high == NULL || key_cmp(c->key, c->len, high, highlen) < 0;
}

size_t
list_split_after(const char *prefix, const struct list_alphabet *a,
    const char *first, size_t firstlen, const char *last, size_t lastlen,
    const char *high, size_t highlen, size_t max, struct list_cut *out)
{
	size_t plen = strlen(prefix), at, n = 0;
	uint64_t f, k, h, width, step, v;
	struct list_cut prev;
	struct digits d;

	digits_init(&d, a);
	if (max > LIST_SPLIT_MAX)
		max = LIST_SPLIT_MAX;
	if (max == 0 || lastlen < plen || lastlen + d.width > XML_KEY_MAX)
		return 0;
	/* the digits read from where first, last and high part: for the
	 * end of the listing, from the prefix on */
	at = common_len(first, firstlen, last, lastlen);
	if (high == NULL || common_len(last, lastlen, high, highlen) < at)
		at = high ? common_len(last, lastlen, high, highlen) : plen;
	if (at < plen)
		at = plen;
	f = key_cmp(first, firstlen, last, at) < 0
	        ? 0
	        : number_of(&d, first, firstlen, at, 0);
	k = number_of(&d, last, lastlen, at, 0);
	h = number_of(&d, high, highlen, at, high == NULL);
	width = k > f ? k - f : 1;
	if (h <= k || (h - k) / width < 2)
		return 0;
	memcpy(prev.key, last, lastlen);
	prev.len = lastlen;
	/* a page a range, or, past max of those, doubling widths */
	step = width;
	v = k;
	while (n < max && h - v > step) {
		v += step;
		if (make_cut(&d, last, at, v, &prev, high, highlen, &out[n]))
			prev = out[n++];
		if ((h - k) / width > max && step < (h - v) / 2)
			step *= 2;
	}
	return n;
}
