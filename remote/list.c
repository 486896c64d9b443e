/*
 * list.c: ListObjectsV2 as an ordered stream.  Two pages at most are held:
 * the one being consumed and the next, fetched on the multi loop while the
 * caller works through the first.
 */
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/listcheck.h"
#include "remote/xml.h"

#define LIST_ARENA_LIMIT (8u << 20)

enum page_state { PAGE_EMPTY, PAGE_FETCHING, PAGE_READY, PAGE_CONSUMING };

struct list_ent {
	size_t key_off, keylen, etag_off;
	uint64_t size;
	int64_t last_modified;
	const char *archived; /* remote_obj's: a string constant or NULL */
};

struct page {
	enum page_state state;
	struct buf arena;
	struct list_ent *ent;
	size_t n, cap;
	ferry_err err;
	char errmsg[1024]; /* the detail, kept until the caller reaches it */
	struct list_check check; /* the listing's, as this page goes */
	struct remote_list *l;
	struct remote_req *q;
	struct xml_list *parser;
};

struct remote_list {
	struct remote *r;
	char *bucket;
	char *prefix;
	size_t prefixlen;
	struct list_check check; /* as of the last page read whole */
	struct page pages[2];
	int consume; /* the page being read */
	int fill;    /* the page the next fetch goes into */
	size_t pos;
	char *next_token;
	int more;     /* another page is to be fetched */
	int fetching; /* a page request is in flight */
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

static ferry_err
add_entry(struct page *p, const struct xml_list_entry *x)
{
	struct remote_list *l = p->l;
	struct list_ent *ne;
	int64_t when;
	ferry_err e;

	if ((e = list_check_entry(&p->check, x, &when)) != FERRY_OK)
		return e;
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

static void prefetch(struct remote_list *l);

/* A page cut off mid-body is fetched again from its start. */
static void
on_restart(void *arg)
{
	struct page *p = arg;

	p->n = 0;
	p->err = FERRY_OK;
	p->errmsg[0] = '\0';
	p->check = p->l->check;
	buf_reset(&p->arena);
	xml_list_free(p->parser);
	p->parser = NULL;
	if (xml_list_new(on_entry, p, &p->parser) != FERRY_OK)
		p->err = ferry_fail(FERRY_ENOMEM, "out of memory");
}

static ferry_err
page_finish(struct page *p)
{
	struct remote_list *l = p->l;
	struct xml_list_info info = {0};
	ferry_err e;

	if ((e = remote_req_result(p->q, 0)) != FERRY_OK)
		return p->err != FERRY_OK ? p->err : e;
	if (p->err != FERRY_OK)
		return p->err;
	if ((e = xml_list_feed(p->parser, NULL, 0, 1)) != FERRY_OK ||
	    (e = xml_list_finish(p->parser, &info)) != FERRY_OK)
		return e;
	free(l->next_token);
	l->next_token = info.next_token;
	l->more = info.truncated;
	l->check = p->check;
	if (l->more && l->next_token == NULL)
		return ferry_fail(FERRY_EPARSE,
		    "listing truncated without a continuation token");
	return FERRY_OK;
}

static void
on_page(struct remote_req *q, void *arg)
{
	struct page *p = arg;
	struct remote_list *l = p->l;

	(void)q;
	l->fetching = 0;
	p->err = page_finish(p);
	if (p->err != FERRY_OK) {
		if (p->errmsg[0] == '\0')
			snprintf(
			    p->errmsg, sizeof(p->errmsg), "%s", ferry_errmsg());
		l->more = 0;
	}
	remote_req_free(p->q);
	p->q = NULL;
	xml_list_free(p->parser);
	p->parser = NULL;
	p->state = PAGE_READY;
	if (p->err == FERRY_OK)
		prefetch(l);
}

static ferry_err
start_fetch(struct remote_list *l, struct page *p)
{
	struct remote_req *q;
	ferry_err e;

	p->n = 0;
	p->err = FERRY_OK;
	p->errmsg[0] = '\0';
	p->check = l->check;
	buf_reset(&p->arena);
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
	    (l->next_token && (e = remote_req_query(q, "continuation-token",
	                           l->next_token)) != FERRY_OK))
		goto out;
	remote_req_sink(q, on_data, p);
	remote_req_sink_restart(q, on_restart);
	if ((e = remote_req_submit(q, on_page, p)) != FERRY_OK)
		goto out;
	p->state = PAGE_FETCHING;
	l->fetching = 1;
	return FERRY_OK;
out:
	remote_req_free(q);
	p->q = NULL;
	xml_list_free(p->parser);
	p->parser = NULL;
	return e;
}

/* Starts fetching the next page when there is one and a free slot. */
static void
prefetch(struct remote_list *l)
{
	struct page *p = &l->pages[l->fill];

	if (!l->more || l->fetching || p->state != PAGE_EMPTY)
		return;
	/* pages are filled in turn, so that they are consumed in order */
	l->fill ^= 1;
	if ((p->err = start_fetch(l, p)) != FERRY_OK) {
		snprintf(p->errmsg, sizeof(p->errmsg), "%s", ferry_errmsg());
		p->state = PAGE_READY;
		l->more = 0;
	}
}

ferry_err
remote_list_open(struct remote *r, const char *bucket, const char *prefix,
    struct remote_list **out)
{
	struct remote_list *l;
	int i;

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
	list_check_init(&l->check, l->prefix, remote_bucket_sorted(bucket));
	for (i = 0; i < 2; i++) {
		l->pages[i].l = l;
		buf_init(&l->pages[i].arena, LIST_ARENA_LIMIT);
	}
	l->more = 1;
	prefetch(l);
	*out = l;
	return FERRY_OK;
}

ferry_err
remote_list_next(struct remote_list *l, struct remote_obj *obj)
{
	struct page *p;
	struct list_ent *x;
	ferry_err e;

	for (;;) {
		p = &l->pages[l->consume];
		switch (p->state) {
		case PAGE_CONSUMING:
			if (l->pos < p->n)
				goto found;
			p->state = PAGE_EMPTY;
			l->consume ^= 1;
			l->pos = 0;
			prefetch(l);
			continue;
		case PAGE_READY:
			if (p->err != FERRY_OK)
				return ferry_fail(p->err,
				    "listing s3://%s/%s: %s", l->bucket,
				    l->prefix, p->errmsg);
			p->state = PAGE_CONSUMING;
			l->pos = 0;
			continue;
		case PAGE_EMPTY:
			if (!l->more && !l->fetching)
				return FERRY_ENOTFOUND;
			prefetch(l);
			/* FALLTHROUGH */
		case PAGE_FETCHING:
			if ((e = remote_run_once(l->r)) != FERRY_OK)
				return e;
			continue;
		}
	}
found:
	x = &p->ent[l->pos++];
	obj->key = p->arena.data + x->key_off;
	obj->keylen = x->keylen;
	obj->etag = p->arena.data + x->etag_off;
	obj->size = x->size;
	obj->last_modified = x->last_modified;
	obj->archived = x->archived;
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
	int i;

	if (l == NULL)
		return;
	for (i = 0; i < 2; i++) {
		remote_req_free(l->pages[i].q);
		xml_list_free(l->pages[i].parser);
		buf_free(&l->pages[i].arena);
		free(l->pages[i].ent);
	}
	free(l->next_token);
	free(l->bucket);
	free(l->prefix);
	free(l);
}
