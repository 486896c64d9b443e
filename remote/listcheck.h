/*
 * listcheck.h: what a listing must be before it is believed.  A merge-join
 * that deletes what one side lacks takes a key listed out of order for a
 * key missing, so every entry is checked against the one before it, across
 * pages: keys strictly ascending by bytes (memcmp), under the prefix
 * asked for, sizes S3 can store, ETags of at most REMOTE_ETAG_MAX bytes
 * without control bytes, dates that parse and fit nanoseconds in int64. Private
 * to remote/.
 */
#ifndef FERRY_LISTCHECK_H
#define FERRY_LISTCHECK_H

#include "remote/xml.h"

/* What the check has seen of one listing: the key last passed. */
struct list_check {
	const char *prefix; /* not owned; must outlive the check */
	size_t prefixlen;
	int sorted; /* the keys must ascend: off for directory buckets */
	int have_prev;
	size_t prevlen;
	char prev[XML_KEY_MAX]; /* the whole key, prefix included */
};

/* Starts c for a listing of prefix (kept, not copied). */
void list_check_init(struct list_check *c, const char *prefix, int sorted);

/*
 * Starts c for a range of the listing listed after the whole key low
 * (lowlen bytes, up to XML_KEY_MAX): its keys must come after low.
 */
void list_check_after(struct list_check *c, const char *low, size_t lowlen);

/*
 * Checks the listed entry x after those c has passed.  Returns FERRY_OK
 * with its LastModified in *when (seconds since the epoch) and x's key
 * kept as the previous one; or FERRY_EPARSE, c unchanged, with a message
 * naming the server's fault.  Pure: no I/O, thread-safe on distinct c.
 */
ferry_err list_check_entry(struct list_check *c, const struct xml_list_entry *x,
    int64_t *when) FERRY_WUR;

#endif
