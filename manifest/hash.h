/*
 * hash.h: the content hash ferry keeps of every file and object, the
 * XXH3-128 (canonical big-endian bytes), streamed or of one buffer; and
 * the XXH3-64 of a key, for shards and samples.  Opaque handles over
 * xxHash, so that their callers need not include it.
 *
 * A handle is used by one thread at a time; different handles may be
 * used on different threads at once.
 */
#ifndef FERRY_MANIFEST_HASH_H
#define FERRY_MANIFEST_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* A streaming XXH3-128. */
struct manifest_hash;

/*
 * Returns a new hash, started (as if manifest_hash_reset() had run), for
 * the caller to free with manifest_hash_free(); NULL, with the detail
 * recorded, when out of memory.
 */
struct manifest_hash *manifest_hash_new(void);
/* Starts h again, forgetting what it was fed.  FERRY_ESYS on failure. */
ferry_err manifest_hash_reset(struct manifest_hash *h) FERRY_WUR;
/* Feeds the n bytes at p to h.  FERRY_ESYS on failure (p NULL, n > 0). */
ferry_err manifest_hash_update(
    struct manifest_hash *h, const void *p, size_t n) FERRY_WUR;
/*
 * The XXH3-128 of the bytes fed to h since it started, into out; h may
 * be fed more after.
 */
void manifest_hash_final(const struct manifest_hash *h, uint8_t out[16]);
/* Frees h; NULL is fine. */
void manifest_hash_free(struct manifest_hash *h);
/* The XXH3-128 of the n bytes at p, into out. */
void manifest_hash_buf(const void *p, size_t n, uint8_t out[16]);
/* The XXH3-64 of the n bytes of key with seed (0: XXH3_64bits()'s). */
uint64_t manifest_hash_key(const void *key, size_t n, uint64_t seed);

#endif
