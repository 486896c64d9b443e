/*
 * sigv4.h: AWS Signature Version 4 (its URI encoding is url.h's).
 * Private to remote/.  Pure functions of their inputs: no clock, no I/O,
 * no shared state, so any thread may call them, except that signing with
 * a struct sigv4_algs updates it (see there).  The functions that write
 * to a struct buf append to what it holds, and leave it as it was when
 * they fail.
 */
#ifndef FERRY_SIGV4_H
#define FERRY_SIGV4_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "common/common.h"

/* A query parameter or header, unencoded. value may be "" (never NULL). */
struct sigv4_pair {
	const char *name;
	const char *value;
};

/*
 * What signing reuses from one request to the next: SHA-256 fetched once,
 * a context for the hashes, and HMAC-SHA256 keyed with the last signing
 * key used (re-keyed when the key changes), so a signature costs two
 * context copies instead of a new HMAC context and its key setup.  Signing
 * writes to it, so one thread at a time: ferry signs only on the thread
 * that runs the curl multi loop.  The key and the states derived from it
 * are secrets; sigv4_algs_clear() wipes them.
 */
struct sigv4_algs {
	EVP_MD *sha256;
	EVP_MD_CTX *md;     /* scratch: the canonical request, HMAC passes */
	EVP_MD_CTX *pad[2]; /* SHA-256 after key^ipad, after key^opad */
	uint8_t key[32];    /* the signing key pad[] holds, if keyed */
	int keyed;
};

struct sigv4_request {
	const char *method; /* "GET", "PUT", ... */
	const char *path;   /* unencoded, starts with '/': "/bucket/a b" */
	const struct sigv4_pair *query;
	size_t nquery;
	/*
	 * Headers to sign, including host and x-amz-date and
	 * x-amz-content-sha256; names in any case, values untrimmed.
	 */
	const struct sigv4_pair *headers;
	size_t nheaders;
	const char *payload_hash; /* hex SHA-256, or "UNSIGNED-PAYLOAD" */
	const char *amz_date;     /* "20130524T000000Z" */
	const char *region;       /* "us-east-1" */
	const char *service;      /* "s3" */
	struct sigv4_algs *algs;  /* or NULL: fetched for the call */
};

/* A piece of a message fed to HMAC. */
struct sigv4_part {
	const void *p;
	size_t n;
};

/*
 * Fetches the algorithm and allocates the contexts into a, holding no key
 * yet; sigv4_algs_clear() frees them.  On failure a is left cleared.
 */
ferry_err sigv4_algs_init(struct sigv4_algs *a) FERRY_WUR;
/* Frees what sigv4_algs_init() made and wipes the key; a zeroed a is fine. */
void sigv4_algs_clear(struct sigv4_algs *a);

/*
 * Builds the canonical query string of r (names and values URI-encoded,
 * sorted by encoded name then value, joined with '&') into out.  The same
 * string must be used in the request URL so that what is sent is what was
 * signed.
 */
ferry_err sigv4_canonical_query(
    const struct sigv4_request *r, struct buf *out) FERRY_WUR;

/*
 * Builds the canonical request (the six lines of the SigV4 documentation,
 * path encoded with S3 rules: each byte once, '/' kept) into out.
 */
ferry_err sigv4_canonical_request(
    const struct sigv4_request *r, struct buf *out) FERRY_WUR;

/*
 * Derives the signing key: HMAC chain of "AWS4"+secret, date (YYYYMMDD),
 * region, service, "aws4_request".  Callers cache it per day.
 */
ferry_err sigv4_signing_key(const char *secret, const char *date,
    const char *region, const char *service, uint8_t key[32]) FERRY_WUR;

/*
 * Signs r with a key from sigv4_signing_key() and writes the full value of
 * the Authorization header ("AWS4-HMAC-SHA256 Credential=AKID/date/region/
 * s3/aws4_request, SignedHeaders=..., Signature=...") into out.  With
 * r->algs it uses and updates them (not thread-safe on one algs); the
 * result is the same with or without.
 */
ferry_err sigv4_authorization(const struct sigv4_request *r,
    const char *access_key, const uint8_t key[32], struct buf *out) FERRY_WUR;

/*
 * Writes the lowercase hex SHA-256 of data[0..n) (65 bytes with NUL), or
 * "" when OpenSSL fails (out of memory).
 */
void sigv4_sha256_hex(const void *data, size_t n, char out[65]);

/*
 * The pieces of signing, for sigv4.c.  sigv4_sha256() and
 * sigv4_hmac() write the SHA-256 of data, and the HMAC-SHA256 with the
 * 32-byte key of the concatenated parts, into md; with a, they use and
 * update it.  sigv4_has_date() tells whether s starts with 8 digits.
 */
ferry_err sigv4_sha256(
    struct sigv4_algs *a, const void *data, size_t n, uint8_t md[32]) FERRY_WUR;
ferry_err sigv4_hmac(struct sigv4_algs *a, const uint8_t key[32],
    const struct sigv4_part *parts, size_t nparts, uint8_t md[32]) FERRY_WUR;
int sigv4_has_date(const char *s);

#endif
