/*
 * listsplit.c: the cuts of a dense range (see listsplit.h).
 */
#include <stdint.h>
#include <string.h>

#include "remote/remote.h"
#include "remote/listsplit.h"

#define DIGITS_MAX 16
/*
 * The pages of a range cut off.  A range of two pages' width costs fewer
 * requests a page than one of one page (two or three, where one costs one
 * or two); its third, when it has one, is fetched before the reader gets
 * there, as the ranges ahead of it hold a third page (list.c).
 */
#define LIST_SPLIT_PAGES 2
/*
 * The most cuts of the rest of a folder (a range that ends at "F/~", cut
 * by split_folders()): its keys may fill a corner of the file names'
 * number space, and doubling ranges past them find nothing; the last
 * range, when it holds more, is cut again from its own first page.
 */
#define LIST_SPLIT_FOLDER_REST 4

/*
 * The digits keys are read in, from where they part: each position's own,
 * the bytes its keys used there (digits_symbols), so that "d0001/f" reads
 * in tens and ones, not in every byte of the page.
 */
struct digits {
	unsigned char sym[DIGITS_MAX][96];
	/* symbols + 1: digit 0 is "nothing", past the end */
	unsigned base[DIGITS_MAX];
	unsigned width; /* digits read into one 63-bit number */
};

static void
alphabet_set(unsigned char *bits, unsigned char c)
{
	bits[(c - 0x20) / 8] |= (unsigned char)(1u << ((c - 0x20) % 8));
}

void
list_alphabet_add(struct list_alphabet *a, const char *key, size_t len)
{
	unsigned char c;
	size_t i;

	for (i = 0; i < len; i++) {
		c = (unsigned char)key[i];
		/* cuts are printable: other bytes have no place in them */
		if (c < 0x20 || c > 0x7e)
			continue;
		/* a digit seen: the position counts, in all ten */
		if (c >= '0' && c <= '9')
			c = '0';
		if (i < XML_KEY_MAX)
			alphabet_set(a->pos[i], c);
		alphabet_set(a->all, c);
	}
}

static int
alphabet_has(const unsigned char *bits, unsigned c)
{
	return bits[(c - 0x20) / 8] >> ((c - 0x20) % 8) & 1;
}

/* How many of the bytes lo..hi bits holds. */
static unsigned
alphabet_count(const unsigned char *bits, unsigned lo, unsigned hi)
{
	unsigned n = 0;

	for (; lo <= hi; lo++)
		n += (unsigned)alphabet_has(bits, lo);
	return n;
}

/*
 * The symbols of bits into sym: every digit where one was seen, every
 * letter of a case where two were (a letter alone is part of a word).
 */
static unsigned
digits_symbols(const unsigned char *bits, unsigned char *sym)
{
	int digits = alphabet_has(bits, '0');
	int lower = alphabet_count(bits, 'a', 'z') > 1;
	int upper = alphabet_count(bits, 'A', 'Z') > 1;
	unsigned b, n = 0;

	for (b = 0x20; b < 0x7f; b++)
		if (alphabet_has(bits, b) || (digits && b >= '0' && b <= '9') ||
		    (lower && b >= 'a' && b <= 'z') ||
		    (upper && b >= 'A' && b <= 'Z'))
			sym[n++] = (unsigned char)b;
	if (n == 0)
		sym[n++] = '0';
	return n;
}

/* The digits from pos (past the prefix) on, at most limit of them; a
 * position no key reached reads in every byte the page used. */
static void
digits_init(
    struct digits *d, const struct list_alphabet *a, size_t pos, size_t limit)
{
	static const unsigned char none[sizeof(a->all)];
	const unsigned char *bits;
	uint64_t top = 1;

	if (limit > DIGITS_MAX)
		limit = DIGITS_MAX;
	for (d->width = 0; d->width < limit; d->width++, pos++) {
		bits = pos < XML_KEY_MAX ? a->pos[pos] : none;
		if (memcmp(bits, none, sizeof(none)) == 0)
			bits = a->all;
		d->base[d->width] = digits_symbols(bits, d->sym[d->width]) + 1;
		/* as many digits as fit 63 bits */
		if (top > (1ull << 63) / d->base[d->width])
			break;
		top *= d->base[d->width];
	}
}

/* The digit of byte c at digit j: 1 + the symbols below or at it. */
static uint64_t
digit_of(const struct digits *d, unsigned j, unsigned char c)
{
	uint64_t k = 0;

	while (k < d->base[j] - 1 && d->sym[j][k] <= c)
		k++;
	return k;
}

/* How number_of() reads a key: as it is, as the highest number, or as a
 * range's end, which lies past every key under it once one of its bytes
 * is no symbol of the page's */
enum { NUM_KEY, NUM_TOP, NUM_END };

/* The width digits of s from at (0 past its end). */
static uint64_t
number_of(const struct digits *d, const char *s, size_t len, size_t at, int how)
{
	uint64_t v = 0, k;
	unsigned char c;
	unsigned j;

	for (j = 0; j < d->width; j++) {
		if (how == NUM_TOP) {
			k = d->base[j] - 1;
		} else if (at + j >= len) {
			k = 0;
		} else {
			c = (unsigned char)s[at + j];
			k = digit_of(d, j, c);
			if (how == NUM_END && (k == 0 || d->sym[j][k - 1] != c))
				how = NUM_TOP;
		}
		v = v * d->base[j] + k;
	}
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

/*
 * The cut at v, the number of the digits from at, after last's first at
 * bytes, into *c; 0 when it does not lie between prev and high.
 */
static int
make_cut(const struct digits *d, const char *last, size_t at, uint64_t v,
    const struct list_cut *prev, const char *high, size_t highlen,
    struct list_cut *c)
{
	unsigned i;
	uint64_t k;

	memcpy(c->key, last, at);
	c->len = at + d->width;
	for (i = d->width; i-- > 0;) {
		k = v % d->base[i];
		v /= d->base[i];
		/* "nothing" inside a key reads as the smallest symbol */
		c->key[at + i] = (char)d->sym[i][k ? k - 1 : 0];
		if (k == 0 && c->len == at + i + 1)
			c->len--;
	}
	if (remote_key_cmp(c->key, c->len, prev->key, prev->len) <= 0)
		return 0;
	return high == NULL ||
	       remote_key_cmp(c->key, c->len, high, highlen) < 0;
}

/* From pos on (past the prefix), before upto, the first position whose
 * keys on the page used more than one symbol. */
static size_t
single_len(const struct list_alphabet *a, size_t pos, size_t upto)
{
	unsigned char sym[96];

	while (pos < upto && pos < XML_KEY_MAX &&
	       digits_symbols(a->pos[pos], sym) == 1)
		pos++;
	return pos;
}

/*
 * Cuts from k on towards h, in d's numbers, ranges two pages of width
 * wide (doubling past max of those), each after prev, into out[n...];
 * returns the new n.
 */
static size_t
cut_from(const struct digits *d, const char *last, size_t at, uint64_t k,
    uint64_t h, uint64_t width, struct list_cut *prev, const char *high,
    size_t highlen, size_t n, size_t max, struct list_cut *out)
{
	uint64_t step = width * LIST_SPLIT_PAGES, v = k;

	while (n < max && h - v > step) {
		v += step;
		if (make_cut(d, last, at, v, prev, high, highlen, &out[n]))
			*prev = out[n++];
		if ((h - k) / width / LIST_SPLIT_PAGES > max &&
		    step < (h - v) / 2)
			step *= 2;
	}
	return n;
}

/* The last '/' in key's bytes from at to before end, or 0: none. */
static size_t
folder_end(const char *key, size_t at, size_t end)
{
	while (end > at)
		if (key[--end] == '/')
			return end;
	return 0;
}

/*
 * A page whose keys all lie in one folder, the folder's name ending at
 * slash, in a range that reaches past it: the next two pages of that
 * folder, then the rest of it as one range (its first page cuts it again
 * when it holds more), then the folders after it, read in their names'
 * digits from at, two folders a range.  Keys numbered across folders
 * (d0001/f00001000, ...) fill a tiny corner of a folder's number space:
 * read in the file names' digits, the space left in the folder would be
 * cut into ranges that hold nothing.
 */
static size_t
split_folders(const struct list_alphabet *a, size_t plen, const char *first,
    size_t firstlen, const char *last, size_t lastlen, size_t at, size_t slash,
    const char *high, size_t highlen, size_t max, struct list_cut *out)
{
	size_t n = 0;
	struct list_cut end, prev;
	struct digits d;
	uint64_t f, k, h;

	memcpy(end.key, last, slash + 1);
	end.key[slash + 1] = '~';
	end.len = slash + 2;
	if (remote_key_cmp(end.key, end.len, last, lastlen) <= 0 ||
	    (high != NULL &&
	        remote_key_cmp(end.key, end.len, high, highlen) >= 0))
		return 0;
	memcpy(prev.key, last, lastlen);
	prev.len = lastlen;
	/* the folder's next two pages, in its file names' digits */
	digits_init(&d, a, slash + 1 - plen, DIGITS_MAX);
	f = number_of(&d, first, firstlen, slash + 1, NUM_KEY);
	k = number_of(&d, last, lastlen, slash + 1, NUM_KEY);
	h = number_of(&d, NULL, 0, slash + 1, NUM_TOP);
	if (k > f && max > 2 && h - k > (k - f) * LIST_SPLIT_PAGES &&
	    make_cut(&d, last, slash + 1, k + (k - f) * LIST_SPLIT_PAGES, &prev,
	        end.key, end.len, &out[n]))
		n++;
	out[n++] = end;
	prev = end;
	digits_init(&d, a, at - plen, slash - at);
	k = number_of(&d, last, lastlen, at, NUM_KEY);
	h = number_of(&d, high, highlen, at, high ? NUM_END : NUM_TOP);
	if (h <= k || h - k < LIST_SPLIT_PAGES)
		return n;
	return cut_from(
	    &d, last, at, k, h, 1, &prev, high, highlen, n, max, out);
}

size_t
list_split_after(const char *prefix, const struct list_alphabet *a,
    const char *first, size_t firstlen, const char *last, size_t lastlen,
    const char *high, size_t highlen, size_t max, struct list_cut *out)
{
	size_t plen = strlen(prefix), at, slash;
	uint64_t f, k, h, width;
	struct list_cut prev;
	struct digits d;

	if (max > LIST_SPLIT_MAX)
		max = LIST_SPLIT_MAX;
	if (high != NULL && highlen >= 2 && high[highlen - 2] == '/' &&
	    high[highlen - 1] == '~' && max > LIST_SPLIT_FOLDER_REST)
		max = LIST_SPLIT_FOLDER_REST;
	if (max == 0 || lastlen < plen || lastlen + DIGITS_MAX > XML_KEY_MAX)
		return 0;
	/* the digits read from where first, last and high part: for the
	 * end of the listing, from the prefix on */
	at = common_len(first, firstlen, last, lastlen);
	if (high == NULL || common_len(last, lastlen, high, highlen) < at)
		at = high ? common_len(last, lastlen, high, highlen) : plen;
	if (at < plen)
		at = plen;
	/* to the end, from the first byte the page's keys do not all share
	 * (a byte of one symbol has no room for more keys above it) */
	if (high == NULL)
		at = plen +
		     single_len(a, at - plen,
		         common_len(first, firstlen, last, lastlen) - plen);
	slash =
	    folder_end(last, at, common_len(first, firstlen, last, lastlen));
	if (slash > 0 &&
	    (high == NULL || common_len(last, lastlen, high, highlen) <= slash))
		return split_folders(a, plen, first, firstlen, last, lastlen,
		    at, slash, high, highlen, max, out);
	digits_init(&d, a, at - plen, DIGITS_MAX);
	f = remote_key_cmp(first, firstlen, last, at) < 0
	        ? 0
	        : number_of(&d, first, firstlen, at, NUM_KEY);
	k = number_of(&d, last, lastlen, at, NUM_KEY);
	h = number_of(&d, high, highlen, at, high ? NUM_END : NUM_TOP);
	width = k > f ? k - f : 1;
	if (h <= k || (h - k) / width < 2)
		return 0;
	memcpy(prev.key, last, lastlen);
	prev.len = lastlen;
	/* two pages a range, or, past max of those, doubling widths */
	return cut_from(
	    &d, last, at, k, h, width, &prev, high, highlen, 0, max, out);
}
