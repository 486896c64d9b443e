/*
 * fuzz_list_check.c: listing pages through the streaming parser and the
 * check each entry passes (remote/listcheck.c), one check carried across
 * the pages as remote/list.c carries it.
 *
 * Layout: byte 0 picks whether order is checked (bit 0) and the prefix
 * (bits 1-2); the rest is a sequence of XML pages separated by NUL bytes
 * (which XML cannot hold).  A page that fails leaves the check as it was
 * before the page.
 *
 * What an accepted entry must be, checked here on its own: under the
 * prefix, after the key accepted before it (strictly, by bytes, when order
 * is checked; never the same key in a row), at most 5 TiB, dated within
 * 0 to REMOTE_TIME_MAX, an ETag of at most REMOTE_ETAG_MAX bytes without
 * a control byte; and a refused entry leaves the check unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/listcheck.h"
#include "remote/remote.h"
#include "remote/xml.h"

static const char *const prefixes[4] = {"", "p/", "a", "photos/2024/"};

struct run {
	struct list_check page; /* the check as the page goes */
	char last[XML_KEY_MAX]; /* the key accepted last, kept here */
	size_t lastlen;
	int have_last;
};

static int
keycmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

static int
on_entry(const struct xml_list_entry *x, void *arg)
{
	struct run *r = arg;
	struct list_check before = r->page;
	int64_t when;

	if (list_check_entry(&r->page, x, &when) != FERRY_OK) {
		if (memcmp(&before, &r->page, sizeof(before)) != 0)
			abort();
		return 1;
	}
	if (x->key_len < r->page.prefixlen ||
	    memcmp(x->key, r->page.prefix, r->page.prefixlen) != 0 ||
	    x->size > REMOTE_MAX_OBJECT || when < 0 || when > REMOTE_TIME_MAX ||
	    strlen(x->etag) > REMOTE_ETAG_MAX ||
	    ctl_find(x->etag, strlen(x->etag)) >= 0)
		abort();
	if (r->have_last) {
		int c = keycmp(r->last, r->lastlen, x->key, x->key_len);
		if (c == 0 || (c > 0 && r->page.sorted))
			abort();
	}
	memcpy(r->last, x->key, x->key_len);
	r->lastlen = x->key_len;
	r->have_last = 1;
	return 0;
}

/* Parses one page; on failure the check goes back to where it began. */
static void
one_page(struct run *r, struct list_check *kept, const char *d, size_t n)
{
	struct xml_list_info info = {0};
	struct xml_list *p;
	struct run saved = *r;

	r->page = *kept;
	if (xml_list_new(on_entry, r, &p) != FERRY_OK)
		return;
	if (xml_list_feed(p, d, n, 1) == FERRY_OK &&
	    xml_list_finish(p, &info) == FERRY_OK)
		*kept = r->page;
	else
		*r = saved;
	free(info.next_token);
	xml_list_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct list_check kept;
	struct run *r;
	const char *d, *end, *nul;

	if (size < 1 || (r = calloc(1, sizeof(*r))) == NULL)
		return 0;
	list_check_init(&kept, prefixes[(data[0] >> 1) & 3], data[0] & 1);
	d = (const char *)data + 1;
	end = (const char *)data + size;
	while (d <= end) {
		nul = memchr(d, '\0', (size_t)(end - d));
		if (nul == NULL)
			nul = end;
		one_page(r, &kept, d, (size_t)(nul - d));
		d = nul + 1;
	}
	free(r);
	return 0;
}
