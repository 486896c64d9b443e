/*
 * store.h: where and how new objects are stored (storage class,
 * server-side encryption, canned ACL, tags, caching and type headers,
 * user metadata), as the command line asks, and the user's text for it
 * parsed and checked.  Included by ops.h: the operations that create
 * objects carry a struct remote_store.
 */
#ifndef FERRY_REMOTE_STORE_H
#define FERRY_REMOTE_STORE_H

#include <stdint.h>

#include "common/common.h"

#define REMOTE_MAX_TAGS 10 /* S3's limit on an object's tags */

/*
 * What new objects carry beyond their bytes.  The strings are borrowed
 * (argv); tagging and meta are owned, freed by remote_store_clear().
 */
struct remote_store {
	const char *storage_class;  /* NULL: the bucket's default */
	const char *sse;            /* "AES256", "aws:kms"; NULL: none */
	const char *sse_kms_key_id; /* with sse "aws:kms"; NULL: default */
	const char *acl;            /* a canned ACL; NULL: the default */
	const char *cache_control;  /* NULL: none (or the source's) */
	const char *content_type;   /* NULL: guessed (or the source's) */
	struct buf tagging;         /* "k=v&k2=v2", encoded; empty: none */
	unsigned ntags;
	struct buf meta; /* "x-amz-meta-name: value\n" lines */
	/* a mirror: 0 carries the source's metadata and tags, 1 replaces
	 * them with what is given here */
	int replace;
};

/* Zeroes s with its buffers ready; remote_store_clear() frees them. */
void remote_store_init(struct remote_store *s);
void remote_store_clear(struct remote_store *s);

/*
 * Adds the tags of list, "K=V[,K=V...]" (a value may be empty), to s.
 * FERRY_EUSAGE, saying why, for an empty or too long key (128 bytes) or
 * value (256), a key given twice, more than REMOTE_MAX_TAGS, a control
 * byte; s keeps the tags added before.
 */
ferry_err remote_store_tags(struct remote_store *s, const char *list) FERRY_WUR;
/*
 * Adds the user metadata "K=V" to s, sent as x-amz-meta-k (the name in
 * lower case).  FERRY_EUSAGE for a name that is not an HTTP token, one of
 * ferry's own (ferry-*), one given twice, a value with a byte outside
 * printable ASCII, or more than 2 KiB in all (S3's limit).
 */
ferry_err remote_store_meta(struct remote_store *s, const char *kv) FERRY_WUR;
/*
 * Checks the single values of s (storage class, SSE, KMS key, ACL,
 * header values): FERRY_EUSAGE, saying why, or FERRY_OK.
 */
ferry_err remote_store_check(const struct remote_store *s) FERRY_WUR;
/* Non-zero when s sets what a mirror would otherwise carry over. */
int remote_store_sets_meta(const struct remote_store *s);

#endif
