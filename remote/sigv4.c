/*
 * sigv4.c: AWS Signature Version 4 (the S3 flavour): the canonical
 * request, the string to sign and the Authorization header, and its
 * hashes: SHA-256, the HMAC-SHA256 of a signature (from pads keyed once
 * per signing key when the caller keeps a struct sigv4_algs), and the
 * signing key's chain.
 * Every request is signed here, so the hot paths stay allocation-free for
 * ordinary requests: output is staged in a small stack chunk and appended
 * to the caller's buffer a chunk at a time, and sorting works on a stack
 * array of pointers unless a request carries many parameters.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "remote/sigv4.h"
#include "remote/url.h"

#define SIGV4_ALGO "AWS4-HMAC-SHA256"
#define SORT_SMALL 32

/*
 * A writer that batches bytes into buf.  The first failure is latched in
 * err and later writes are dropped, so loops need no check per byte; the
 * caller looks at the result once, in out_end().
 */
struct out {
	struct buf *buf;
	size_t start; /* buf->len on entry: restored on failure */
	size_t n;
	ferry_err err;
	char b[256];
};

/* Pointers to pairs in sorted order; small requests sort on the stack. */
struct sorted {
	const struct sigv4_pair **v;
	size_t n;
	const struct sigv4_pair *small[SORT_SMALL];
};

static void
out_init(struct out *o, struct buf *b)
{
	o->buf = b;
	o->start = b->len;
	o->n = 0;
	o->err = FERRY_OK;
}

static void
out_flush(struct out *o)
{
	if (o->err == FERRY_OK && o->n > 0)
		o->err = buf_append(o->buf, o->b, o->n);
	o->n = 0;
}

static inline void
out_putc(struct out *o, char c)
{
	if (o->n == sizeof(o->b))
		out_flush(o);
	o->b[o->n++] = c;
}

/*
 * Writes n bytes; a run longer than the chunk goes to the buffer in one
 * append.  p must not point into o->buf, whose data may move.
 */
static void
out_write(struct out *o, const char *p, size_t n)
{
	if (n > sizeof(o->b) - o->n) {
		out_flush(o);
		if (n > sizeof(o->b)) {
			if (o->err == FERRY_OK)
				o->err = buf_append(o->buf, p, n);
			return;
		}
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
out_puts(struct out *o, const char *s)
{
	out_write(o, s, strlen(s));
}

/* Records the first failure only: it is the one that explains the rest. */
static void
out_fail(struct out *o, ferry_err e)
{
	if (o->err == FERRY_OK)
		o->err = e;
}

/*
 * Flushes and returns the latched result.  On failure the buffer is cut
 * back to its length on entry, so callers never see half an encoding.
 */
static ferry_err
out_end(struct out *o)
{
	out_flush(o);
	if (o->err != FERRY_OK && o->buf->data != NULL) {
		o->buf->len = o->start;
		o->buf->data[o->start] = '\0';
	}
	return o->err;
}

/*
 * Appends the URI encoding of s[0..n) (url.c's, the one every request
 * uses) after what o holds.
 */
static void
encode(struct out *o, const char *s, size_t n, int keep_slash)
{
	out_flush(o);
	if (o->err == FERRY_OK)
		o->err = uri_encode(o->buf, s, n, keep_slash);
}

/*
 * The first byte of c's encoding.  Every escape starts with '%', which is
 * below every unreserved character.
 */
static int
enc_lead(unsigned char c)
{
	return uri_unreserved(c) ? c : '%';
}

/*
 * Compares a and b as their URI encodings would compare, without encoding
 * them.  Encoding maps each byte on its own, so the first raw byte that
 * differs decides: by the lead byte of its encoding, or, when both are
 * escaped, by the hex digits, which order as the byte values do.
 */
static int
enc_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;
	int lx, ly;

	while (*x != '\0' && *x == *y) {
		x++;
		y++;
	}
	if (*x == *y)
		return 0;
	if (*x == '\0' || *y == '\0')
		return *x == '\0' ? -1 : 1;
	lx = enc_lead(*x);
	ly = enc_lead(*y);
	if (lx == '%' && ly == '%')
		return *x < *y ? -1 : 1;
	return lx < ly ? -1 : 1;
}

static int
query_cmp(const void *pa, const void *pb)
{
	const struct sigv4_pair *a = *(const struct sigv4_pair *const *)pa;
	const struct sigv4_pair *b = *(const struct sigv4_pair *const *)pb;
	int c;

	if ((c = enc_cmp(a->name, b->name)) != 0)
		return c;
	return enc_cmp(a->value, b->value);
}

static unsigned char
lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Compares header names as their lowercase forms, bytewise. */
static int
name_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x != '\0' && lower(*x) == lower(*y)) {
		x++;
		y++;
	}
	return (int)lower(*x) - (int)lower(*y);
}

/*
 * Headers sort by lowercase name; repeats of one name keep the order the
 * caller gave (the pointers point into one array), because their values
 * are signed joined in that order.
 */
static int
header_cmp(const void *pa, const void *pb)
{
	const struct sigv4_pair *a = *(const struct sigv4_pair *const *)pa;
	const struct sigv4_pair *b = *(const struct sigv4_pair *const *)pb;
	int c;

	if ((c = name_cmp(a->name, b->name)) != 0)
		return c;
	return a < b ? -1 : a > b;
}

static ferry_err
sort_pairs(struct sorted *s, const struct sigv4_pair *p, size_t n,
    int (*cmp)(const void *, const void *))
{
	size_t i;

	s->n = n;
	s->v = s->small;
	if (n > SORT_SMALL) {
		s->v = calloc(n, sizeof(*s->v));
		if (s->v == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		s->v[i] = &p[i];
	if (n > 1)
		qsort(s->v, n, sizeof(*s->v), cmp);
	return FERRY_OK;
}

static void
sorted_free(struct sorted *s)
{
	if (s != NULL && s->v != s->small)
		free(s->v);
}

static void
write_query(struct out *o, const struct sorted *q)
{
	const struct sigv4_pair *p;
	size_t i;

	for (i = 0; i < q->n; i++) {
		p = q->v[i];
		if (i > 0)
			out_putc(o, '&');
		encode(o, p->name, strlen(p->name), 0);
		out_putc(o, '=');
		encode(o, p->value, strlen(p->value), 0);
	}
}

static void
write_lower(struct out *o, const char *s)
{
	for (; *s != '\0'; s++)
		out_putc(o, (char)lower((unsigned char)*s));
}

/*
 * Writes a header value trimmed, each inner run of blanks (spaces and
 * tabs) squeezed to one space, as SigV4 canonicalizes it.  A line break
 * would let a value forge further canonical lines, so it is refused.
 */
static void
write_value(struct out *o, const char *name, const char *s)
{
	size_t run;
	int seen = 0;

	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0')
			return;
		if (seen)
			out_putc(o, ' ');
		run = strcspn(s, " \t\r\n");
		out_write(o, s, run);
		s += run;
		seen = 1;
		if (*s == '\r' || *s == '\n') {
			out_fail(
			    o, ferry_fail(FERRY_EUSAGE,
			           "header %s: line break in value", name));
			return;
		}
	}
}

static int
same_name(const struct sorted *h, size_t i)
{
	return i > 0 && name_cmp(h->v[i - 1]->name, h->v[i]->name) == 0;
}

/* One "name:value\n" line per name, repeated names' values joined by ','. */
static void
write_headers(struct out *o, const struct sorted *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (same_name(h, i))
			out_putc(o, ',');
		else {
			if (i > 0)
				out_putc(o, '\n');
			write_lower(o, h->v[i]->name);
			out_putc(o, ':');
		}
		write_value(o, h->v[i]->name, h->v[i]->value);
	}
	if (h->n > 0)
		out_putc(o, '\n');
}

static void
write_signed_headers(struct out *o, const struct sorted *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (same_name(h, i))
			continue;
		if (i > 0)
			out_putc(o, ';');
		write_lower(o, h->v[i]->name);
	}
}

/* A name is an HTTP token here: printable ASCII, no space and no ':'. */
static int
valid_header_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f ||
		    *s == ':')
			return 0;
	return 1;
}

static ferry_err
check_pairs(const struct sigv4_pair *p, size_t n, int headers)
{
	size_t i;

	if (p == NULL && n > 0)
		return ferry_fail(FERRY_EUSAGE, "sigv4: no %s array",
		    headers ? "header" : "query");
	for (i = 0; i < n; i++) {
		if (p[i].name == NULL || p[i].value == NULL)
			return ferry_fail(FERRY_EUSAGE,
			    "sigv4: %s %zu has no name or value",
			    headers ? "header" : "query parameter", i);
		if (headers && !valid_header_name(p[i].name))
			return ferry_fail(FERRY_EUSAGE,
			    "sigv4: invalid header name \"%s\"", p[i].name);
	}
	return FERRY_OK;
}

/* Non-zero when s starts with the 8 digits of a YYYYMMDD date. */
int
sigv4_has_date(const char *s)
{
	size_t i;

	for (i = 0; i < 8; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static ferry_err
check_request(const struct sigv4_request *r)
{
	ferry_err e;

	if (r == NULL || r->method == NULL || r->payload_hash == NULL ||
	    r->amz_date == NULL || r->region == NULL || r->service == NULL)
		return ferry_fail(FERRY_EUSAGE, "sigv4: incomplete request");
	if (!sigv4_has_date(r->amz_date))
		return ferry_fail(
		    FERRY_EUSAGE, "sigv4: bad x-amz-date \"%s\"", r->amz_date);
	if ((e = check_pairs(r->query, r->nquery, 0)) != FERRY_OK)
		return e;
	return check_pairs(r->headers, r->nheaders, 1);
}

/* Appends the canonical query of r; out is unchanged on failure. */
ferry_err
sigv4_canonical_query(const struct sigv4_request *r, struct buf *out)
{
	struct sorted q = {0};
	struct out o;
	ferry_err e;

	if (out == NULL)
		return ferry_fail(FERRY_EUSAGE, "sigv4: no output buffer");
	if ((e = check_request(r)) != FERRY_OK)
		return e;
	out_init(&o, out);
	if ((e = sort_pairs(&q, r->query, r->nquery, query_cmp)) != FERRY_OK)
		goto out;
	write_query(&o, &q);
	e = out_end(&o);
out:
	sorted_free(&q);
	return e;
}

/*
 * Writes the canonical request through o, and into signed_off and
 * signed_len where the signed-headers line lies in o->buf, for the
 * Authorization value to copy.
 */
static ferry_err
canonical_request(const struct sigv4_request *r, struct out *o,
    size_t *signed_off, size_t *signed_len)
{
	struct sorted q = {0}, h = {0};
	const char *path;
	size_t start;
	ferry_err e;

	if ((e = sort_pairs(&q, r->query, r->nquery, query_cmp)) != FERRY_OK)
		goto out;
	if ((e = sort_pairs(&h, r->headers, r->nheaders, header_cmp)) !=
	    FERRY_OK)
		goto out;
	path = r->path != NULL && r->path[0] != '\0' ? r->path : "/";
	out_puts(o, r->method);
	out_putc(o, '\n');
	encode(o, path, strlen(path), 1);
	out_putc(o, '\n');
	write_query(o, &q);
	out_putc(o, '\n');
	write_headers(o, &h);
	out_putc(o, '\n');
	out_flush(o);
	start = o->buf->len;
	write_signed_headers(o, &h);
	out_flush(o);
	*signed_off = start;
	*signed_len = o->buf->len - start;
	out_putc(o, '\n');
	out_puts(o, r->payload_hash);
	out_flush(o);
	e = o->err;
out:
	sorted_free(&q);
	sorted_free(&h);
	return e;
}

/* Appends the canonical request of r; out is unchanged on failure. */
ferry_err
sigv4_canonical_request(const struct sigv4_request *r, struct buf *out)
{
	struct out o;
	size_t soff, slen;
	ferry_err e;

	if (out == NULL)
		return ferry_fail(FERRY_EUSAGE, "sigv4: no output buffer");
	if ((e = check_request(r)) != FERRY_OK)
		return e;
	out_init(&o, out);
	out_fail(&o, canonical_request(r, &o, &soff, &slen));
	return out_end(&o);
}

/* HMAC of the string to sign, fed in parts so it is never assembled. */
static ferry_err
signature(const struct sigv4_request *r, const uint8_t key[32],
    const char creq_hex[65], uint8_t sig[32])
{
	struct sigv4_part p[] = {
	    {SIGV4_ALGO "\n", sizeof(SIGV4_ALGO "\n") - 1},
	    {r->amz_date, strlen(r->amz_date)},
	    {"\n", 1},
	    {r->amz_date, 8},
	    {"/", 1},
	    {r->region, strlen(r->region)},
	    {"/", 1},
	    {r->service, strlen(r->service)},
	    {"/aws4_request\n", sizeof("/aws4_request\n") - 1},
	    {creq_hex, 64},
	};

	return sigv4_hmac(r->algs, key, p, sizeof(p) / sizeof(p[0]), sig);
}

/*
 * Appends the Authorization value.  The signed headers are copied from
 * o->buf itself, byte by byte, because a flush may move its data.
 */
static void
write_authorization(struct out *o, const struct sigv4_request *r,
    const char *access_key, size_t soff, size_t slen, const char sig[65])
{
	size_t i;

	out_puts(o, SIGV4_ALGO " Credential=");
	out_puts(o, access_key);
	out_putc(o, '/');
	for (i = 0; i < 8; i++)
		out_putc(o, r->amz_date[i]);
	out_putc(o, '/');
	out_puts(o, r->region);
	out_putc(o, '/');
	out_puts(o, r->service);
	out_puts(o, "/aws4_request, SignedHeaders=");
	for (i = 0; i < slen && o->err == FERRY_OK; i++)
		out_putc(o, o->buf->data[soff + i]);
	out_puts(o, ", Signature=");
	out_puts(o, sig);
}

/*
 * Appends the Authorization value for r; out is unchanged on failure.  The
 * canonical request is built in out itself, hashed, then replaced by the
 * value, so signing needs no buffer of its own.
 */
ferry_err
sigv4_authorization(const struct sigv4_request *r, const char *access_key,
    const uint8_t key[32], struct buf *out)
{
	struct out o;
	uint8_t md[32];
	char hex[65];
	size_t soff = 0, slen = 0, creq;
	ferry_err e;

	if (out == NULL || access_key == NULL || key == NULL)
		return ferry_fail(FERRY_EUSAGE, "sigv4: no key or buffer");
	if ((e = check_request(r)) != FERRY_OK)
		return e;
	out_init(&o, out);
	if ((e = canonical_request(r, &o, &soff, &slen)) != FERRY_OK)
		goto out;
	creq = out->len;
	if ((e = sigv4_sha256(
	         r->algs, out->data + o.start, creq - o.start, md)) != FERRY_OK)
		goto out;
	hex_encode(md, sizeof(md), hex);
	if ((e = signature(r, key, hex, md)) != FERRY_OK)
		goto out;
	hex_encode(md, sizeof(md), hex);
	write_authorization(&o, r, access_key, soff, slen, hex);
	out_flush(&o);
	if ((e = o.err) != FERRY_OK)
		goto out;
	memmove(out->data + o.start, out->data + creq, out->len - creq + 1);
	out->len = o.start + (out->len - creq);
out:
	out_fail(&o, e);
	return out_end(&o);
}

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
