/*
 * url.h: the two kinds of URL ferry reads from users, "s3://bucket/prefix"
 * locations and "http[s]://host[:port]" endpoints, and S3's URI encoding.
 * Private to remote/.
 * Pure functions: no I/O, thread-safe.
 */
#ifndef FERRY_URL_H
#define FERRY_URL_H

#include "common/common.h"

/* Longest key S3 accepts, in bytes; a longer prefix can match nothing. */
#define URL_S3_KEY_MAX 1024

/*
 * An "s3://bucket[/prefix]" location.  bucket and prefix are owned
 * (s3_location_clear frees them).  prefix is "" or ends in '/', so that
 * "s3://b/photos" and "s3://b/photos/" name the same folder; it is kept
 * byte for byte otherwise.  It never begins with '/' nor holds "//".
 */
struct s3_location {
	char *bucket;
	char *prefix;
};

/*
 * Parses s into out.  FERRY_EUSAGE, with the reason in the detail, when
 * the scheme is not "s3://", the bucket is not a valid S3 bucket name
 * (3-63 characters of a-z 0-9 '.' '-', starting and ending with a letter
 * or digit, no "..", not an IPv4 address) or the prefix is longer than a
 * key, not UTF-8, or has an empty segment ("s3://b//p", "s3://b/a//c":
 * the detail suggests the location without it).  FERRY_ENOMEM.  On failure out
 * is zeroed.
 */
ferry_err s3_location_parse(const char *s, struct s3_location *out) FERRY_WUR;
/* Frees the strings of l and zeroes it; accepts NULL. */
void s3_location_clear(struct s3_location *l);
/* Non-zero when s starts with "s3://" (case-sensitive, as the AWS CLI). */
int is_s3_url(const char *s);

/*
 * An endpoint "http[s]://host[:port][/]".  scheme and host are owned and
 * lowercased; an IPv6 host keeps its brackets ("[::1]").  port is the
 * explicit port or 80/443.
 */
struct endpoint {
	char *scheme; /* "http" or "https" */
	char *host;
	unsigned port;
	int https;
	int host_is_ip; /* IPv4 or IPv6 literal, or "localhost" */
};

/*
 * Parses url into out.  FERRY_EUSAGE for another scheme, user
 * information, an empty or invalid host, a port outside 1-65535, a path
 * other than "/", a query or a fragment.  The detail never repeats a URL
 * that contains '@' (it may hold a password).  FERRY_ENOMEM.  On failure
 * out is zeroed.
 */
ferry_err endpoint_parse(const char *url, struct endpoint *out) FERRY_WUR;
/* Frees the strings of e and zeroes it; accepts NULL. */
void endpoint_clear(struct endpoint *e);

/*
 * S3's URI encoding, for paths, queries and the signer's canonical
 * request alike.  Whether byte c is one of the unreserved characters,
 * which are never encoded.
 */
int uri_unreserved(unsigned char c);
/*
 * Appends s[0..n) to out, percent-encoding every byte except the unreserved
 * characters A-Z a-z 0-9 - _ . ~ (uppercase hex, as SigV4 requires); out
 * is as it was on failure (FERRY_ENOMEM, FERRY_EPARSE past its limit).  When
 * keep_slash is non-zero '/' is kept (object key paths); otherwise it is
 * encoded (query values, copy-source parameters).
 */
ferry_err uri_encode(
    struct buf *out, const char *s, size_t n, int keep_slash) FERRY_WUR;

/*
 * Decodes %XX escapes (and, when plus_is_space, '+' as space) from s[0..n)
 * and appends the bytes to out.  FERRY_EPARSE on a malformed escape; out
 * is as it was on failure.  Used for keys listed with encoding-type=url.
 */
ferry_err uri_decode(
    struct buf *out, const char *s, size_t n, int plus_is_space) FERRY_WUR;

#endif
