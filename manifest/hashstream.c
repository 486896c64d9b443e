/*
 * hashstream.c: the content hash over xxHash (hash.h).  A struct
 * manifest_hash is the XXH3_state_t itself, so that hashing costs no more
 * than xxHash's own.
 */
#include <string.h>

#include <xxhash.h>

#include "manifest/hash.h"

static XXH3_state_t *
state_of(const struct manifest_hash *h)
{
	return (XXH3_state_t *)h;
}

struct manifest_hash *
manifest_hash_new(void)
{
	XXH3_state_t *s = XXH3_createState();

	if (s == NULL || XXH3_128bits_reset(s) != XXH_OK) {
		XXH3_freeState(s);
		ferry_fail(FERRY_ENOMEM, "out of memory");
		return NULL;
	}
	return (struct manifest_hash *)s;
}

ferry_err
manifest_hash_reset(struct manifest_hash *h)
{
	if (XXH3_128bits_reset(state_of(h)) != XXH_OK)
		return ferry_fail(FERRY_ESYS, "cannot start XXH3");
	return FERRY_OK;
}

ferry_err
manifest_hash_update(struct manifest_hash *h, const void *p, size_t n)
{
	if (XXH3_128bits_update(state_of(h), p, n) != XXH_OK)
		return ferry_fail(FERRY_ESYS, "XXH3 update failed");
	return FERRY_OK;
}

void
manifest_hash_final(const struct manifest_hash *h, uint8_t out[16])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(state_of(h)));
	memcpy(out, c.digest, 16);
}

void
manifest_hash_free(struct manifest_hash *h)
{
	XXH3_freeState(state_of(h));
}

void
manifest_hash_buf(const void *p, size_t n, uint8_t out[16])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
	memcpy(out, c.digest, 16);
}

uint64_t
manifest_hash_key(const void *key, size_t n, uint64_t seed)
{
	return seed ? XXH3_64bits_withSeed(key, n, seed) : XXH3_64bits(key, n);
}
