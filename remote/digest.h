/*
 * digest.h: the digests of the wire: MD5, streamed or of one buffer, as
 * S3 gives it in single-part ETags and checks it in Content-MD5, and the
 * base64 that carries it.  Opaque handles over OpenSSL's EVP, so that
 * their callers need not include it.
 *
 * The MD5 algorithm is fetched once for the process, not at each digest.
 * A handle is used by one thread at a time; different handles may be
 * used on different threads at once.
 */
#ifndef FERRY_REMOTE_DIGEST_H
#define FERRY_REMOTE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* A streaming MD5. */
struct remote_md5;

/*
 * Returns a new MD5, started (as if remote_md5_reset() had run), for the
 * caller to free with remote_md5_free(); NULL, with the detail recorded,
 * when out of memory or MD5 is not available.
 */
struct remote_md5 *remote_md5_new(void);
/* Starts h again, forgetting what it was fed.  FERRY_ESYS on failure. */
ferry_err remote_md5_reset(struct remote_md5 *h) FERRY_WUR;
/* Feeds the n bytes at p to h.  FERRY_ESYS on failure. */
ferry_err remote_md5_update(
    struct remote_md5 *h, const void *p, size_t n) FERRY_WUR;
/*
 * The MD5 of the bytes fed to h since it started, into out; h must be
 * reset before it is fed again.  FERRY_ESYS on failure.
 */
ferry_err remote_md5_final(struct remote_md5 *h, uint8_t out[16]) FERRY_WUR;
/* Frees h; NULL is fine. */
void remote_md5_free(struct remote_md5 *h);
/* The MD5 of the n bytes at p, into out. */
void remote_md5_buf(const void *p, size_t n, uint8_t out[16]);
/*
 * The base64 of the n bytes at p into out, which has room for
 * 4 * ((n + 2) / 3) + 1 bytes; NUL-terminated.
 */
void remote_base64(const void *p, size_t n, char *out);

#endif
