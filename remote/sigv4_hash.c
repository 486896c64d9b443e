/*
 * sigv4_hash.c: the hashes of AWS Signature Version 4: SHA-256, the
 * HMAC-SHA256 of a signature (from pads keyed once per signing key when
 * the caller keeps a struct sigv4_algs), and the signing key's chain.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "remote/sigv4.h"

#define SECRET_SMALL 128
#define HMAC_BLOCK 64 /* SHA-256's block, the HMAC pad length */

/* The detail of an OpenSSL failure, which is nearly always memory. */
static ferry_err
crypto_fail(const char *what)
{
	char msg[256];

	ERR_error_string_n(ERR_get_error(), msg, sizeof(msg));
	ERR_clear_error();
	return ferry_fail(FERRY_ENOMEM, "%s failed: %s", what, msg);
}

/* An HMAC-SHA256 context without a key, NULL on failure. */
static EVP_MAC_CTX *
hmac_new(void)
{
	OSSL_PARAM params[2];
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx = NULL;

	params[0] = OSSL_PARAM_construct_utf8_string(
	    OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	if ((mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) != NULL &&
	    (ctx = EVP_MAC_CTX_new(mac)) != NULL &&
	    EVP_MAC_CTX_set_params(ctx, params) != 1) {
		EVP_MAC_CTX_free(ctx);
		ctx = NULL;
	}
	EVP_MAC_free(mac); /* the context holds its own reference */
	return ctx;
}

/* Everything is fetched or allocated here, so signing never looks up names. */
ferry_err
sigv4_algs_init(struct sigv4_algs *a)
{
	memset(a, 0, sizeof(*a));
	if ((a->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL ||
	    (a->md = EVP_MD_CTX_new()) == NULL ||
	    (a->pad[0] = EVP_MD_CTX_new()) == NULL ||
	    (a->pad[1] = EVP_MD_CTX_new()) == NULL) {
		sigv4_algs_clear(a);
		return crypto_fail("SHA-256 and HMAC setup");
	}
	return FERRY_OK;
}

/* OpenSSL wipes the contexts' hash states as it frees them. */
void
sigv4_algs_clear(struct sigv4_algs *a)
{
	if (a == NULL)
		return;
	EVP_MD_CTX_free(a->pad[0]);
	EVP_MD_CTX_free(a->pad[1]);
	EVP_MD_CTX_free(a->md);
	EVP_MD_free(a->sha256);
	explicit_bzero(a, sizeof(*a));
}

ferry_err
sigv4_sha256(struct sigv4_algs *a, const void *data, size_t n, uint8_t md[32])
{
	int ok;

	if (a == NULL)
		ok = EVP_Digest(n > 0 ? data : "", n, md, NULL, EVP_sha256(),
		         NULL) == 1;
	else
		ok = EVP_DigestInit_ex(a->md, a->sha256, NULL) == 1 &&
		     EVP_DigestUpdate(a->md, data, n) == 1 &&
		     EVP_DigestFinal_ex(a->md, md, NULL) == 1;
	if (!ok)
		return crypto_fail("SHA-256");
	return FERRY_OK;
}

/* Writes the hex digest, or "" if OpenSSL fails (out of memory). */
void
sigv4_sha256_hex(const void *data, size_t n, char out[65])
{
	uint8_t md[32];

	if (sigv4_sha256(NULL, data, n, md) != FERRY_OK) {
		out[0] = '\0';
		return;
	}
	hex_encode(md, sizeof(md), out);
}

/* A keyed HMAC-SHA256 context, NULL on failure. */
static EVP_MAC_CTX *
hmac_start(const void *key, size_t klen)
{
	EVP_MAC_CTX *ctx = hmac_new();

	if (ctx != NULL && EVP_MAC_init(ctx, key, klen, NULL) != 1) {
		EVP_MAC_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

/* HMAC-SHA256 with key over the concatenation of parts into md. */
static ferry_err
hmac_sha256(const void *key, size_t klen, const struct sigv4_part *parts,
    size_t nparts, uint8_t md[32])
{
	EVP_MAC_CTX *ctx;
	size_t i, len = 0;
	ferry_err e = FERRY_OK;

	if ((ctx = hmac_start(key, klen)) == NULL)
		return crypto_fail("HMAC-SHA256 setup");
	for (i = 0; i < nparts; i++)
		if (EVP_MAC_update(ctx, parts[i].p, parts[i].n) != 1) {
			e = crypto_fail("HMAC-SHA256");
			goto out;
		}
	if (EVP_MAC_final(ctx, md, &len, 32) != 1 || len != 32)
		e = crypto_fail("HMAC-SHA256");
out:
	EVP_MAC_CTX_free(ctx);
	return e;
}

/*
 * Makes a's pad contexts hold key: SHA-256 having absorbed the key XOR
 * ipad and the key XOR opad blocks of RFC 2104 (a 32-byte key fits the
 * 64-byte block, so it is used as it is).  Nothing is done when they hold
 * it already.  On failure a holds no key.
 */
static ferry_err
hmac_rekey(struct sigv4_algs *a, const uint8_t key[32])
{
	uint8_t pad[2][HMAC_BLOCK];
	ferry_err e = FERRY_OK;
	size_t i;

	if (a->keyed && CRYPTO_memcmp(a->key, key, sizeof(a->key)) == 0)
		return FERRY_OK;
	a->keyed = 0;
	explicit_bzero(a->key, sizeof(a->key));
	memset(pad[0], 0x36, HMAC_BLOCK);
	memset(pad[1], 0x5c, HMAC_BLOCK);
	for (i = 0; i < sizeof(a->key); i++) {
		pad[0][i] ^= key[i];
		pad[1][i] ^= key[i];
	}
	for (i = 0; i < 2; i++)
		if (EVP_DigestInit_ex(a->pad[i], a->sha256, NULL) != 1 ||
		    EVP_DigestUpdate(a->pad[i], pad[i], HMAC_BLOCK) != 1) {
			e = crypto_fail("HMAC-SHA256 setup");
			goto out;
		}
	memcpy(a->key, key, sizeof(a->key));
	a->keyed = 1;
out:
	explicit_bzero(pad, sizeof(pad));
	return e;
}

/* One hash of the HMAC: a copy of the keyed pad, fed parts, into md. */
static int
hmac_pass(EVP_MD_CTX *ctx, const EVP_MD_CTX *pad,
    const struct sigv4_part *parts, size_t nparts, uint8_t md[32])
{
	size_t i;

	if (EVP_MD_CTX_copy_ex(ctx, pad) != 1)
		return 0;
	for (i = 0; i < nparts; i++)
		if (EVP_DigestUpdate(ctx, parts[i].p, parts[i].n) != 1)
			return 0;
	return EVP_DigestFinal_ex(ctx, md, NULL) == 1;
}

/*
 * hmac_sha256() with a 32-byte key, from a's pads: two context copies
 * instead of a new HMAC context and its key setup per call.
 */
static ferry_err
hmac_sha256_cached(struct sigv4_algs *a, const uint8_t key[32],
    const struct sigv4_part *parts, size_t nparts, uint8_t md[32])
{
	uint8_t inner[32];
	struct sigv4_part p = {inner, sizeof(inner)};
	ferry_err e;

	if ((e = hmac_rekey(a, key)) != FERRY_OK)
		return e;
	if (!hmac_pass(a->md, a->pad[0], parts, nparts, inner) ||
	    !hmac_pass(a->md, a->pad[1], &p, 1, md))
		e = crypto_fail("HMAC-SHA256");
	explicit_bzero(inner, sizeof(inner));
	return e;
}

/* Runs the four HMAC links from the first key k0 into key. */
static ferry_err
signing_chain(const uint8_t *k0, size_t k0len, const char *date,
    const char *region, const char *service, uint8_t key[32])
{
	const char *msg[4] = {date, region, service, "aws4_request"};
	uint8_t k[32];
	struct sigv4_part p;
	ferry_err e = FERRY_OK;
	int i;

	for (i = 0; i < 4 && e == FERRY_OK; i++) {
		p.p = msg[i];
		p.n = strlen(msg[i]);
		e = hmac_sha256(
		    i == 0 ? k0 : k, i == 0 ? k0len : sizeof(k), &p, 1, k);
	}
	if (e == FERRY_OK)
		memcpy(key, k, sizeof(k));
	explicit_bzero(k, sizeof(k));
	return e;
}

/*
 * Writes the signing key into key (zeroed on failure).  The copy of the
 * secret and the intermediate keys are wiped before returning.
 */
ferry_err
sigv4_signing_key(const char *secret, const char *date, const char *region,
    const char *service, uint8_t key[32])
{
	uint8_t small[4 + SECRET_SMALL], *k0 = small;
	size_t slen = 0;
	ferry_err e;

	if (key == NULL)
		return ferry_fail(FERRY_EUSAGE, "sigv4: no key output");
	memset(key, 0, 32);
	if (secret == NULL || date == NULL || region == NULL ||
	    service == NULL || !sigv4_has_date(date) || date[8] != '\0')
		return ferry_fail(FERRY_EUSAGE,
		    "sigv4: signing key needs a secret, a YYYYMMDD date, "
		    "a region and a service");
	slen = strlen(secret);
	if (slen > SECRET_SMALL && (k0 = malloc(4 + slen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(k0, "AWS4", 4);
	memcpy(k0 + 4, secret, slen);
	e = signing_chain(k0, 4 + slen, date, region, service, key);
	explicit_bzero(k0, 4 + slen);
	if (k0 != small)
		free(k0);
	return e;
}

ferry_err
sigv4_hmac(struct sigv4_algs *a, const uint8_t key[32],
    const struct sigv4_part *parts, size_t nparts, uint8_t md[32])
{
	if (a != NULL)
		return hmac_sha256_cached(a, key, parts, nparts, md);
	return hmac_sha256(key, 32, parts, nparts, md);
}
