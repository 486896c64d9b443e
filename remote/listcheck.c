/*
 * listcheck.c: the check every listed entry passes before a listing hands
 * it on (see listcheck.h).
 */
#include <string.h>

#include "remote/listcheck.h"
#include "remote/remote.h"

/* How much of a key or date a message quotes. */
#define QUOTE_MAX 200
#define STOPS "so the run stops and deletes nothing"

void
list_check_init(struct list_check *c, const char *prefix, int sorted)
{
	memset(c, 0, sizeof(*c));
	c->prefix = prefix ? prefix : "";
	c->prefixlen = strlen(c->prefix);
	c->sorted = sorted;
}

void
list_check_after(struct list_check *c, const char *low, size_t lowlen)
{
	if (lowlen > sizeof(c->prev))
		lowlen = sizeof(c->prev);
	memcpy(c->prev, low, lowlen);
	c->prevlen = lowlen;
	c->have_prev = 1;
}

static int
quote_len(size_t n)
{
	return (int)(n > QUOTE_MAX ? QUOTE_MAX : n);
}

/* Why x cannot come after c's previous key, or FERRY_OK. */
int
remote_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c != 0 ? c : (alen > blen) - (alen < blen);
}

static ferry_err
check_key(const struct list_check *c, const struct xml_list_entry *x)
{
	int cmp;

	if (x->key_len > XML_KEY_MAX || x->key_len < c->prefixlen ||
	    memcmp(x->key, c->prefix, c->prefixlen) != 0)
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s', which is not under the prefix "
		    "'%s' asked for: its listing cannot be trusted, " STOPS,
		    quote_len(x->key_len), x->key, c->prefix);
	if (!c->have_prev)
		return FERRY_OK;
	cmp = remote_key_cmp(c->prev, c->prevlen, x->key, x->key_len);
	if (cmp == 0)
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s' twice: its listing cannot be "
		    "trusted, " STOPS,
		    quote_len(x->key_len), x->key);
	if (cmp > 0 && c->sorted)
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s' after '%.*s': its listing is "
		    "not in order, " STOPS,
		    quote_len(x->key_len), x->key, quote_len(c->prevlen),
		    c->prev);
	return FERRY_OK;
}

/*
 * Why x's ETag cannot be believed, or FERRY_OK: longer than any buffer
 * that holds one (it would be cut, and a cut ETag taken for another), or
 * holding a control byte (it goes back to the server in If-Match).
 */
static ferry_err
check_etag(const struct xml_list_entry *x)
{
	size_t n = x->etag ? strlen(x->etag) : 0;

	if (n > REMOTE_ETAG_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s' with an ETag of %zu bytes, over "
		    "the %d ferry takes: its listing cannot be trusted, " STOPS,
		    quote_len(x->key_len), x->key, n, REMOTE_ETAG_MAX);
	if (ctl_find(x->etag ? x->etag : "", n) >= 0)
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s' with an ETag holding a control "
		    "byte: its listing cannot be trusted, " STOPS,
		    quote_len(x->key_len), x->key);
	return FERRY_OK;
}

ferry_err
list_check_entry(
    struct list_check *c, const struct xml_list_entry *x, int64_t *when)
{
	const char *lm = x->last_modified ? x->last_modified : "";
	ferry_err e;

	*when = -1;
	if ((e = check_key(c, x)) != FERRY_OK)
		return e;
	if (x->size > REMOTE_MAX_OBJECT)
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s' with a size of %llu bytes, over "
		    "the 5 TiB an object can have: its listing cannot be "
		    "trusted, " STOPS,
		    quote_len(x->key_len), x->key, (unsigned long long)x->size);
	if ((e = check_etag(x)) != FERRY_OK)
		return e;
	*when = remote_parse_time(lm);
	if (*when < 0 || *when > REMOTE_TIME_MAX) {
		*when = -1;
		return ferry_fail(FERRY_EPARSE,
		    "the server listed '%.*s' with the date '%.*s', which "
		    "does not parse or is out of range (1970 to 2262): its "
		    "listing cannot be trusted, " STOPS,
		    quote_len(x->key_len), x->key, quote_len(strlen(lm)), lm);
	}
	/* unsorted (a directory bucket), only a repeat in a row is seen here */
	memcpy(c->prev, x->key, x->key_len);
	c->prevlen = x->key_len;
	c->have_prev = 1;
	return FERRY_OK;
}
