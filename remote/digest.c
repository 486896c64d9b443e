/*
 * digest.c: MD5 and base64 over OpenSSL's EVP (digest.h).  A struct
 * remote_md5 is the EVP_MD_CTX itself, so that a digest costs no more
 * than EVP's own.
 */
#include <pthread.h>

#include <openssl/evp.h>

#include "remote/digest.h"

static EVP_MD *md5_fetched;
static pthread_once_t md5_once = PTHREAD_ONCE_INIT;

static void
md5_fetch(void)
{
	md5_fetched = EVP_MD_fetch(NULL, "MD5", NULL);
}

/*
 * The MD5 algorithm, fetched once: EVP_md5() has each digest it starts
 * fetch it again.  Kept until the process ends.
 */
static const EVP_MD *
md5_alg(void)
{
	pthread_once(&md5_once, md5_fetch);
	return md5_fetched ? md5_fetched : EVP_md5();
}

static EVP_MD_CTX *
ctx_of(struct remote_md5 *h)
{
	return (EVP_MD_CTX *)h;
}

struct remote_md5 *
remote_md5_new(void)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	if (c == NULL) {
		ferry_fail(FERRY_ENOMEM, "out of memory");
		return NULL;
	}
	if (EVP_DigestInit_ex(c, md5_alg(), NULL) != 1) {
		EVP_MD_CTX_free(c);
		ferry_fail(FERRY_ESYS, "MD5 is not available");
		return NULL;
	}
	return (struct remote_md5 *)c;
}

ferry_err
remote_md5_reset(struct remote_md5 *h)
{
	if (EVP_DigestInit_ex(ctx_of(h), md5_alg(), NULL) != 1)
		return ferry_fail(FERRY_ESYS, "MD5 is not available");
	return FERRY_OK;
}

ferry_err
remote_md5_update(struct remote_md5 *h, const void *p, size_t n)
{
	if (EVP_DigestUpdate(ctx_of(h), p, n) != 1)
		return ferry_fail(FERRY_ESYS, "MD5 update failed");
	return FERRY_OK;
}

ferry_err
remote_md5_final(struct remote_md5 *h, uint8_t out[16])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(ctx_of(h), out, &n) != 1 || n != 16)
		return ferry_fail(FERRY_ESYS, "MD5 final failed");
	return FERRY_OK;
}

void
remote_md5_free(struct remote_md5 *h)
{
	EVP_MD_CTX_free(ctx_of(h));
}

void
remote_md5_buf(const void *p, size_t n, uint8_t out[16])
{
	EVP_Digest(p, n, out, NULL, md5_alg(), NULL);
}

void
remote_base64(const void *p, size_t n, char *out)
{
	EVP_EncodeBlock((unsigned char *)out, p, (int)n);
}
