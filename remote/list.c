/*
 * list.c: ListObjectsV2 as one ordered stream.  The key space is cut into
 * ranges (low, high], each listed with start-after=low and ended at the
 * first key past high, several fetched at once (up to the client's
 * connections) and read in key order.  A listing starts as one range; the
 * cuts come from the caller (where the keys were last time) or from a
 * range's first page, when it is truncated and shows the rest of the range
 * to hold more than two pages (listsplit.h).  Only the ranges just ahead
 * of the one read fetch, and they hold two pages each (the one being read
 * and the next) and a third while the pages held in all stay within two
 * per range that may fetch: memory stays bounded as with two, and a range
 * of three pages ahead of the reader is fetched whole before it is read.
 * The caller's cuts wait as keys until the reader gets near them: only
 * the ranges that may fetch exist at once, so a listing of millions of
 * keys cut a page apart holds the memory of one of thousands.
 */
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/listcheck.h"
#include "remote/listsplit.h"
#include "remote/xml.h"

#define LIST_ARENA_LIMIT (8u << 20)
/* the ranges from the one read on that may hold pages: per connection,
 * and in all, so that memory stays bounded whatever --jobs is */
#define LIST_LOOKAHEAD 4
#define LIST_AHEAD_MAX 64
/* the pages one range may hold: the third only within the bound above */
#define LIST_RANGE_PAGES 3
/* the cuts of the last range of a listing cut where the keys were: it
 * looks for keys added past them, the other ranges fill the window */
#define LIST_HINTED_CUTS 2

enum page_state { PAGE_EMPTY, PAGE_FETCHING, PAGE_READY, PAGE_CONSUMING };

struct list_ent {
	size_t key_off, keylen, etag_off;
	uint64_t size;
	int64_t last_modified;
	const char *archived; /* remote_obj's: a string constant or NULL */
};

struct range;

struct page {
	enum page_state state;
	struct buf arena;
	struct list_ent *ent;
	size_t n, cap;
	int past_high; /* a key past the range's high was listed */
	ferry_err err;
	char errmsg[1024]; /* the detail, kept until the caller reaches it */
	struct list_check check; /* the range's, as this page goes */
	struct range *rg;
	struct remote_req *q;
	struct xml_list *parser;
};

/* One range of the key space: (low, high], whole keys; NULL: open. */
struct range {
	struct remote_list *l;
	struct range *next; /* the range after it in key order */
	char *low, *high;
	size_t lowlen, highlen;
	struct list_check check; /* as of the last page read whole */
	struct page pages[LIST_RANGE_PAGES]; /* in turn, as a ring */
	int consume;                         /* the page being read */
	int fill; /* the page the next fetch goes into */
	int held; /* pages not empty */
	size_t pos;
	char *next_token;
	int more;     /* another page is to be fetched */
	int fetching; /* a page request is in flight */
	int fetched;  /* pages read whole */
	int no_split; /* cut where the keys were known to be: kept whole */
};

/* The archive class c names, as a constant, or NULL for another class. */
static const char *
archive_class(const char *c)
{
	if (c != NULL && strcmp(c, "GLACIER") == 0)
		return "GLACIER";
	if (c != NULL && strcmp(c, "DEEP_ARCHIVE") == 0)
		return "DEEP_ARCHIVE";
	return NULL;
}

struct remote_list {
	struct remote *r;
	char *bucket;
	char *prefix;
	size_t prefixlen;
	unsigned window;   /* requests in flight at most */
	unsigned fetching; /* requests in flight */
	unsigned held;     /* pages not empty, of all ranges */
	unsigned held_max; /* a range takes a third page only below it */
	/* the ranges that may fetch (pump), and so the ranges made at once
	 * of a listing's cuts: the others wait as cuts for the reader */
	unsigned ahead;
	int may_split; /* dense ranges are cut further */
	int hinted;    /* the ranges fill the window, cut where keys were */
	ferry_err err; /* the first range that failed, ending all */
	char errmsg[1024];
	struct range *head; /* the range being read */
	unsigned nranges;   /* ranges made and not yet read whole */
	/* the cuts not yet made ranges (whole keys), from the cut next on,
	 * the last range's end, and where the next range starts */
	char **cuts;
	size_t ncuts, cut_next;
	char *upto, *low;
	size_t uptolen, lowlen;
	int ended; /* the last range, to upto, is made */
	/* the last key of the page last read whole (relative): the ranges,
	 * read in turn, must ascend as one listing does, whatever cut them */
	size_t prevlen;
	int have_prev;
	char prev[XML_KEY_MAX];
};

static ferry_err
add_entry(struct page *p, const struct xml_list_entry *x)
{
	struct range *rg = p->rg;
	struct remote_list *l = rg->l;
	struct list_ent *ne;
	int64_t when;
	ferry_err e;

	if (p->past_high)
		return FERRY_OK;
	if ((e = list_check_entry(&p->check, x, &when)) != FERRY_OK)
		return e;
	/* the next range's first key: this range ends here */
	if (rg->high != NULL &&
	    remote_key_cmp(x->key, x->key_len, rg->high, rg->highlen) > 0) {
		p->past_high = 1;
		return FERRY_OK;
	}
	if (x->key_len == l->prefixlen)
		return FERRY_OK; /* the folder marker of the prefix itself */
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		if ((ne = realloc(p->ent, cap * sizeof(*ne))) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		p->ent = ne;
		p->cap = cap;
	}
	ne = &p->ent[p->n];
	ne->key_off = p->arena.len;
	ne->keylen = x->key_len - l->prefixlen;
	if ((e = buf_append(
	         &p->arena, x->key + l->prefixlen, ne->keylen + 1)) != FERRY_OK)
		return e;
	ne->etag_off = p->arena.len;
	if ((e = buf_append(&p->arena, x->etag ? x->etag : "",
	         strlen(x->etag ? x->etag : "") + 1)) != FERRY_OK)
		return e;
	ne->size = x->size;
	ne->last_modified = when;
	ne->archived = archive_class(x->storage_class);
	p->n++;
	return FERRY_OK;
}

static int
on_entry(const struct xml_list_entry *x, void *arg)
{
	struct page *p = arg;

	/* kept now: the transfer's failure, when it stops, says less */
	if ((p->err = add_entry(p, x)) != FERRY_OK) {
		snprintf(p->errmsg, sizeof(p->errmsg), "%s", ferry_errmsg());
		return 1;
	}
	return 0;
}

static int
on_data(const char *data, size_t len, void *arg)
{
	struct page *p = arg;
	ferry_err e;

	if (p->err != FERRY_OK)
		return 1;
	e = xml_list_feed(p->parser, data, len, 0);
	/* an entry refused keeps its error, not the parser's "stopped" */
	if (p->err == FERRY_OK)
		p->err = e;
	return p->err != FERRY_OK;
}

static void page_reset(struct page *p);

/* A page cut off mid-body is fetched again from its start. */
static void
on_restart(void *arg)
{
	struct page *p = arg;

	page_reset(p);
	xml_list_free(p->parser);
	p->parser = NULL;
	if (xml_list_new(on_entry, p, &p->parser) != FERRY_OK)
		p->err = ferry_fail(FERRY_ENOMEM, "out of memory");
}

static void
page_reset(struct page *p)
{
	p->n = 0;
	p->past_high = 0;
	p->err = FERRY_OK;
	p->errmsg[0] = '\0';
	p->check = p->rg->check;
	buf_reset(&p->arena);
}

static ferry_err
page_finish(struct page *p)
{
	struct range *rg = p->rg;
	struct xml_list_info info = {0};
	ferry_err e;

	if ((e = remote_req_result(p->q, 0)) != FERRY_OK)
		return p->err != FERRY_OK ? p->err : e;
	if (p->err != FERRY_OK)
		return p->err;
	if ((e = xml_list_feed(p->parser, NULL, 0, 1)) != FERRY_OK ||
	    (e = xml_list_finish(p->parser, &info)) != FERRY_OK)
		return e;
	free(rg->next_token);
	rg->next_token = info.next_token;
	rg->more = info.truncated && !p->past_high;
	rg->check = p->check;
	rg->fetched++;
	if (info.truncated && rg->next_token == NULL)
		return ferry_fail(FERRY_EPARSE,
		    "listing truncated without a continuation token");
	return FERRY_OK;
}

static void pump(struct remote_list *l);
static void range_split(struct range *rg, const struct page *p);

/* Ends the listing with the page's failure, the first one kept. */
static void
list_failed(struct remote_list *l, struct page *p)
{
	if (p->errmsg[0] == '\0')
		snprintf(p->errmsg, sizeof(p->errmsg), "%s", ferry_errmsg());
	p->rg->more = 0;
	if (l->err != FERRY_OK)
		return;
	l->err = p->err;
	snprintf(l->errmsg, sizeof(l->errmsg), "%s", p->errmsg);
}

static void
on_page(struct remote_req *q, void *arg)
{
	struct page *p = arg;
	struct range *rg = p->rg;
	struct remote_list *l = rg->l;

	(void)q;
	rg->fetching = 0;
	l->fetching--;
	p->err = page_finish(p);
	if (p->err != FERRY_OK)
		list_failed(l, p);
	remote_req_free(p->q);
	p->q = NULL;
	xml_list_free(p->parser);
	p->parser = NULL;
	p->state = PAGE_READY;
	/* a range's first page tells how dense the rest of it is */
	if (p->err == FERRY_OK && rg->fetched == 1 && rg->more &&
	    l->may_split && !rg->no_split && p->n > 0)
		range_split(rg, p);
	pump(l);
}

static ferry_err
start_fetch(struct range *rg, struct page *p)
{
	struct remote_list *l = rg->l;
	struct remote_req *q;
	ferry_err e;

	page_reset(p);
	q = remote_req_new(l->r, REMOTE_LIST, "GET", l->bucket, NULL, 0);
	if (q == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	p->q = q;
	if ((e = xml_list_new(on_entry, p, &p->parser)) != FERRY_OK ||
	    (e = remote_req_query(q, "list-type", "2")) != FERRY_OK ||
	    (e = remote_req_query(q, "encoding-type", "url")) != FERRY_OK ||
	    (e = remote_req_query(q, "max-keys", "1000")) != FERRY_OK ||
	    (l->prefixlen &&
	        (e = remote_req_query(q, "prefix", l->prefix)) != FERRY_OK) ||
	    (rg->next_token && (e = remote_req_query(q, "continuation-token",
	                            rg->next_token)) != FERRY_OK) ||
	    (!rg->next_token && rg->low &&
	        (e = remote_req_query(q, "start-after", rg->low)) != FERRY_OK))
		goto out;
	remote_req_sink(q, on_data, p);
	remote_req_sink_restart(q, on_restart);
	if ((e = remote_req_submit(q, on_page, p)) != FERRY_OK)
		goto out;
	p->state = PAGE_FETCHING;
	rg->fetching = 1;
	l->fetching++;
	return FERRY_OK;
out:
	remote_req_free(q);
	p->q = NULL;
	xml_list_free(p->parser);
	p->parser = NULL;
	return e;
}

/*
 * Starts fetching rg's next page when there is one and a free slot: two a
 * range, a third while the listing holds fewer than held_max pages.
 */
static void
range_prefetch(struct range *rg)
{
	struct page *p = &rg->pages[rg->fill];
	struct remote_list *l = rg->l;

	if (!rg->more || rg->fetching || p->state != PAGE_EMPTY ||
	    (rg->held >= 2 && l->held >= l->held_max))
		return;
	/* pages are filled in turn, so that they are consumed in order */
	rg->fill = (rg->fill + 1) % LIST_RANGE_PAGES;
	rg->held++;
	l->held++;
	if ((p->err = start_fetch(rg, p)) != FERRY_OK) {
		p->state = PAGE_READY;
		list_failed(rg->l, p);
	}
}

/*
 * Pages fetched at once: the listing's ranges, or more when the
 * controller of requests in flight has grown past them (never more than
 * the ranges that may hold pages).
 */
static unsigned
fetch_window(const struct remote_list *l)
{
	const struct concur *c = &l->r->loop->concur;
	unsigned w = c->fixed || c->limit < l->window ? l->window : c->limit;

	return w < l->ahead ? w : l->ahead;
}

/* Fetches for the ranges nearest the one read, while slots are free. */
static void
pump(struct remote_list *l)
{
	unsigned ahead = 0, window = fetch_window(l);
	struct range *rg;

	for (rg = l->head; rg != NULL && l->err == FERRY_OK &&
	                   l->fetching < window && ahead < l->ahead;
	     rg = rg->next, ahead++)
		range_prefetch(rg);
}

/* A key of n bytes as a NUL-terminated copy; NULL when out of memory. */
static char *
key_dup(const char *k, size_t n)
{
	char *s = malloc(n + 1);

	if (s != NULL) {
		memcpy(s, k, n);
		s[n] = '\0';
	}
	return s;
}

static void
range_free(struct range *rg)
{
	int i;

	for (i = 0; i < LIST_RANGE_PAGES; i++) {
		remote_req_free(rg->pages[i].q);
		xml_list_free(rg->pages[i].parser);
		buf_free(&rg->pages[i].arena);
		free(rg->pages[i].ent);
	}
	free(rg->next_token);
	free(rg->low);
	free(rg->high);
	free(rg);
}

/*
 * A new range (low, high] of l (whole keys; NULL and 0: open), not linked;
 * NULL when out of memory.
 */
static struct range *
range_new(struct remote_list *l, const char *low, size_t lowlen,
    const char *high, size_t highlen)
{
	struct range *rg = calloc(1, sizeof(*rg));
	int i;

	if (rg == NULL)
		return NULL;
	rg->l = l;
	rg->more = 1;
	list_check_init(&rg->check, l->prefix, remote_bucket_sorted(l->bucket));
	for (i = 0; i < LIST_RANGE_PAGES; i++) {
		rg->pages[i].rg = rg;
		buf_init(&rg->pages[i].arena, LIST_ARENA_LIMIT);
	}
	if ((low != NULL && (rg->low = key_dup(low, lowlen)) == NULL) ||
	    (high != NULL && (rg->high = key_dup(high, highlen)) == NULL)) {
		range_free(rg);
		return NULL;
	}
	rg->lowlen = lowlen;
	rg->highlen = highlen;
	if (low != NULL)
		list_check_after(&rg->check, low, lowlen);
	return rg;
}

/*
 * Cuts the rest of rg, whose first page p was just read, into ranges
 * inserted after it, when it is dense.  Out of memory, it stays whole.
 */
static void
range_split(struct range *rg, const struct page *p)
{
	struct remote_list *l = rg->l;
	const struct list_ent *first = &p->ent[0];
	char key[XML_KEY_MAX + 1];
	struct list_cut *cuts;
	struct list_alphabet a;
	struct range *nr;
	char *high;
	size_t n, i;

	if (l->prefixlen + first->keylen > XML_KEY_MAX ||
	    (cuts = malloc(LIST_SPLIT_MAX * sizeof(*cuts))) == NULL)
		return;
	memcpy(key, l->prefix, l->prefixlen);
	memcpy(
	    key + l->prefixlen, p->arena.data + first->key_off, first->keylen);
	memset(&a, 0, sizeof(a));
	for (i = 0; i < p->n; i++)
		list_alphabet_add(
		    &a, p->arena.data + p->ent[i].key_off, p->ent[i].keylen);
	n = list_split_after(l->prefix, &a, key, l->prefixlen + first->keylen,
	    rg->check.prev, rg->check.prevlen, rg->high, rg->highlen,
	    l->hinted ? LIST_HINTED_CUTS : l->window, cuts);
	/* from the last cut on, each new range ends where rg did */
	for (i = n; i-- > 0;) {
		if ((high = key_dup(cuts[i].key, cuts[i].len)) == NULL)
			break;
		nr = range_new(
		    l, cuts[i].key, cuts[i].len, rg->high, rg->highlen);
		if (nr == NULL) {
			free(high);
			break;
		}
		nr->next = rg->next;
		rg->next = nr;
		l->nranges++;
		free(rg->high);
		rg->high = high;
		rg->highlen = cuts[i].len;
	}
	if (n > 0)
		log_debug("listing s3://%s/%s: a dense range cut in %zu",
		    l->bucket, l->prefix, n + 1);
	free(cuts);
}

/* Whether listings are to be read as one range: FERRY_LIST_SERIAL=1. */
static int
list_serial(void)
{
	const char *s = getenv("FERRY_LIST_SERIAL");

	return s != NULL && strcmp(s, "1") == 0;
}

/* key (relative to l's prefix) as a whole key, malloc'd; NULL: no memory */
static char *
whole_key(const struct remote_list *l, const char *key, size_t *len)
{
	return remote_key_join(l->prefix, key, strlen(key), len);
}

/*
 * Makes ranges of l's cuts, appended in order, while fewer than those
 * that may fetch are unread: each from where the last one ended to the
 * next cut, then the last to upto.  Listings cut where the keys were
 * (hinted) keep all but their last range whole.
 */
static ferry_err
ranges_make(struct remote_list *l)
{
	struct range **link = &l->head, *rg;
	const char *high;
	size_t highlen;

	if (l->ended)
		return FERRY_OK;
	while (*link != NULL)
		link = &(*link)->next;
	while (!l->ended && l->nranges < l->ahead) {
		if (l->cut_next < l->ncuts) {
			high = l->cuts[l->cut_next];
			highlen = strlen(high);
		} else {
			high = l->upto;
			highlen = l->uptolen;
		}
		rg = range_new(l, l->low, l->lowlen, high, highlen);
		if (rg == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		*link = rg;
		link = &rg->next;
		l->nranges++;
		if (l->cut_next == l->ncuts) {
			l->ended = 1;
			break;
		}
		rg->no_split = l->hinted;
		free(l->low);
		l->low = l->cuts[l->cut_next];
		l->lowlen = highlen;
		l->cuts[l->cut_next++] = NULL;
	}
	return FERRY_OK;
}

/*
 * The ranges of h: from after to upto, cut at h's cuts that lie between
 * (copied: h is the caller's).
 */
static ferry_err
list_ranges(struct remote_list *l, const struct remote_list_hint *h)
{
	const char *upto = h ? h->upto : NULL;
	size_t i, n = l->may_split && h ? h->ncuts : 0, len;

	if (h != NULL && h->after != NULL &&
	    (l->low = whole_key(l, h->after, &l->lowlen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (upto != NULL && (l->upto = whole_key(l, upto, &l->uptolen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (n > 0 && (l->cuts = calloc(n, sizeof(*l->cuts))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if ((h->after && strcmp(h->cuts[i], h->after) <= 0) ||
		    (upto && strcmp(h->cuts[i], upto) >= 0) ||
		    (i > 0 && strcmp(h->cuts[i], h->cuts[i - 1]) <= 0))
			continue; /* not between the bounds, or out of order */
		l->cuts[l->ncuts] = whole_key(l, h->cuts[i], &len);
		if (l->cuts[l->ncuts++] == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	/* enough ranges to fill the window, each of a page or two where the
	 * last listing saw the keys: cutting one further costs requests and
	 * gains nothing; the last (where keys are added most) may be cut */
	l->hinted = l->ncuts + 1 >= l->window;
	return ranges_make(l);
}

ferry_err
remote_list_open_hint(struct remote *r, const char *bucket, const char *prefix,
    const struct remote_list_hint *h, struct remote_list **out)
{
	struct remote_list *l;
	ferry_err e;

	*out = NULL;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	l->r = r;
	l->bucket = strdup(bucket);
	l->prefix = strdup(prefix ? prefix : "");
	if (l->bucket == NULL || l->prefix == NULL) {
		remote_list_free(l);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	l->prefixlen = strlen(l->prefix);
	l->window = r->list_ranges ? r->list_ranges : 1;
	l->ahead = l->window * LIST_LOOKAHEAD < LIST_AHEAD_MAX
	               ? l->window * LIST_LOOKAHEAD
	               : LIST_AHEAD_MAX;
	/* two pages for each range that may fetch (pump) */
	l->held_max = 2 * l->ahead;
	l->may_split = remote_bucket_sorted(bucket) && l->window > 1 &&
	               !list_serial() && !(h && h->no_split);
	/* an unsorted listing cannot be cut by key: the caller filters it */
	if (!remote_bucket_sorted(bucket))
		h = NULL;
	if ((e = list_ranges(l, h)) != FERRY_OK) {
		remote_list_free(l);
		return e;
	}
	pump(l);
	*out = l;
	return FERRY_OK;
}

ferry_err
remote_list_open(struct remote *r, const char *bucket, const char *prefix,
    struct remote_list **out)
{
	return remote_list_open_hint(r, bucket, prefix, NULL, out);
}

ferry_err
remote_list_next(struct remote_list *l, struct remote_obj *obj)
{
	struct range *rg;
	struct page *p;
	struct list_ent *x;
	ferry_err e;

	for (;;) {
		/* a range that failed ends the listing at once */
		if (l->err != FERRY_OK)
			return ferry_fail(l->err, "listing s3://%s/%s: %s",
			    l->bucket, l->prefix, l->errmsg);
		if ((rg = l->head) == NULL)
			return FERRY_ENOTFOUND;
		p = &rg->pages[rg->consume];
		switch (p->state) {
		case PAGE_CONSUMING:
			if (rg->pos < p->n)
				goto found;
			p->state = PAGE_EMPTY;
			rg->consume = (rg->consume + 1) % LIST_RANGE_PAGES;
			rg->held--;
			l->held--;
			rg->pos = 0;
			pump(l);
			continue;
		case PAGE_READY:
			p->state = PAGE_CONSUMING;
			rg->pos = 0;
			continue;
		case PAGE_EMPTY:
			if (!rg->more && !rg->fetching) {
				l->head = rg->next;
				range_free(rg);
				l->nranges--;
				if ((e = ranges_make(l)) != FERRY_OK)
					return e;
				pump(l);
				continue;
			}
			pump(l);
			if (l->fetching == 0)
				continue;
			/* FALLTHROUGH */
		case PAGE_FETCHING:
			if ((e = remote_run_once(l->r)) != FERRY_OK)
				return e;
			continue;
		}
	}
found:
	x = &p->ent[rg->pos++];
	obj->key = p->arena.data + x->key_off;
	obj->keylen = x->keylen;
	/* within a page the range's check saw them ascend: a page's first
	 * key against the last page's last */
	if (rg->check.sorted && x->keylen <= sizeof(l->prev)) {
		if (rg->pos == 1 && l->have_prev &&
		    remote_key_cmp(
		        obj->key, obj->keylen, l->prev, l->prevlen) <= 0) {
			l->err = FERRY_EPARSE;
			snprintf(l->errmsg, sizeof(l->errmsg),
			    "its ranges listed '%.*s' after '%.*s': the "
			    "listing stops, deleting nothing",
			    (int)(obj->keylen > 200 ? 200 : obj->keylen),
			    obj->key,
			    (int)(l->prevlen > 200 ? 200 : l->prevlen),
			    l->prev);
			return ferry_fail(l->err, "listing s3://%s/%s: %s",
			    l->bucket, l->prefix, l->errmsg);
		}
		if (rg->pos == p->n) {
			memcpy(l->prev, obj->key, obj->keylen);
			l->prevlen = obj->keylen;
			l->have_prev = 1;
		}
	}
	obj->etag = p->arena.data + x->etag_off;
	obj->size = x->size;
	obj->last_modified = x->last_modified;
	obj->archived = x->archived;
	obj->version_id = NULL;
	return FERRY_OK;
}

/* Whether bucket is not a directory bucket, by its name's suffix. */
int
remote_bucket_sorted(const char *bucket)
{
	static const char dir_suffix[] = "--x-s3";
	size_t n = strlen(bucket), k = sizeof(dir_suffix) - 1;

	return n <= k || strcmp(bucket + n - k, dir_suffix) != 0;
}

void
remote_list_free(struct remote_list *l)
{
	struct range *rg;

	if (l == NULL)
		return;
	while ((rg = l->head) != NULL) {
		l->head = rg->next;
		range_free(rg);
	}
	while (l->cut_next < l->ncuts)
		free(l->cuts[l->cut_next++]);
	free(l->cuts);
	free(l->upto);
	free(l->low);
	free(l->bucket);
	free(l->prefix);
	free(l);
}
