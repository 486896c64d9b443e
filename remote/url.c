/* url.c: "s3://bucket/prefix" locations and http(s) endpoint URLs. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "remote/remote.h"
#include "remote/url.h"

#define S3_SCHEME "s3://"
#define S3_SCHEME_LEN 5
#define HOST_MAX 253
#define LABEL_MAX 63

int
is_s3_url(const char *s)
{
	return s != NULL && strncmp(s, S3_SCHEME, S3_SCHEME_LEN) == 0;
}

/* ASCII only: the C library's classes follow the locale. */
static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || is_digit(c);
}

static int
is_alnum(int c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* Non-zero when s[0..n) is a dotted-quad IPv4 address. */
static int
is_ipv4(const char *s, size_t n)
{
	char tmp[16];
	struct in_addr a;

	if (n >= sizeof(tmp))
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return inet_pton(AF_INET, tmp, &a) == 1;
}

/*
 * Returns NULL when b[0..n) is a valid bucket name, else the reason.
 * These are AWS's current naming rules; older buckets with uppercase
 * letters or underscores cannot be addressed with virtual hosts and are
 * refused rather than half supported.
 */
static const char *
bucket_problem(const char *b, size_t n)
{
	size_t i;

	if (n < 3 || n > 63)
		return "it must be 3 to 63 characters long";
	for (i = 0; i < n; i++)
		if (!is_lower_alnum(b[i]) && b[i] != '.' && b[i] != '-')
			return "only lowercase letters, digits, '.' and '-' "
			       "are allowed";
	if (!is_lower_alnum(b[0]) || !is_lower_alnum(b[n - 1]))
		return "it must start and end with a letter or digit";
	if (memmem(b, n, "..", 2) != NULL)
		return "it must not contain two adjacent periods";
	if (is_ipv4(b, n))
		return "it must not be formatted as an IP address";
	return NULL;
}

/*
 * Returns the length of the well-formed UTF-8 sequence at s (n > 0 bytes
 * available), or 0: overlong forms, surrogates and code points past
 * U+10FFFF are refused as S3 refuses them.
 */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t len, k;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* The lead byte keeps 7 - len payload bits. */
	cp = s[0] & (0x7fu >> len);
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int
utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		if ((len = utf8_seq(p + i, n - i)) == 0)
			return 0;
		i += len;
	}
	return 1;
}

/* Copies the prefix p[0..n) with a '/' appended unless empty or present. */
static char *
prefix_dup(const char *p, size_t n)
{
	char *out;

	if ((out = malloc(n + 2)) == NULL)
		return NULL;
	memcpy(out, p, n);
	if (n > 0 && p[n - 1] != '/')
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

/*
 * Refuses a prefix p with an empty segment (a leading '/' or "//"): its
 * keys would begin with '/' or hold "//", which no folder can hold and a
 * pull refuses, and it is nearly always a slip for the single '/' that
 * the message suggests.  FERRY_OK when there is none.
 */
static ferry_err
empty_segment(const char *s, const char *b, size_t blen, const char *p)
{
	char *hint;
	size_t i, n = 0;
	ferry_err e;

	if (p[0] != '/' && strstr(p, "//") == NULL)
		return FERRY_OK;
	if ((hint = malloc(strlen(p) + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	for (i = 0; p[i] != '\0'; i++)
		if (p[i] != '/' || (n > 0 && hint[n - 1] != '/'))
			hint[n++] = p[i];
	hint[n] = '\0';
	e = ferry_fail(FERRY_EUSAGE,
	    "'%s' has an empty path segment: its keys would begin with '/' "
	    "or hold '//', which a pull cannot restore; did you mean "
	    "s3://%.*s/%s?",
	    s, (int)blen, b, hint);
	free(hint);
	return e;
}

ferry_err
s3_location_parse(const char *s, struct s3_location *out)
{
	const char *b, *slash, *p, *why;
	size_t blen, plen;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (!is_s3_url(s))
		return ferry_fail(FERRY_EUSAGE,
		    "'%s' is not an S3 location (expected "
		    "s3://bucket[/prefix])",
		    s ? s : "");
	b = s + S3_SCHEME_LEN;
	slash = strchr(b, '/');
	blen = slash ? (size_t)(slash - b) : strlen(b);
	if (blen == 0)
		return ferry_fail(FERRY_EUSAGE,
		    "'%s' names no bucket (expected s3://bucket[/prefix])", s);
	if ((why = bucket_problem(b, blen)) != NULL)
		return ferry_fail(
		    FERRY_EUSAGE, "invalid bucket name in '%s': %s", s, why);
	p = slash ? slash + 1 : "";
	plen = strlen(p);
	if (plen + (plen > 0 && p[plen - 1] != '/') > URL_S3_KEY_MAX)
		return ferry_fail(FERRY_EUSAGE,
		    "the prefix of '%.40s...' is longer than an S3 key "
		    "(%d bytes)",
		    s, URL_S3_KEY_MAX);
	if (!utf8_valid(p, plen))
		return ferry_fail(
		    FERRY_EUSAGE, "the prefix of '%s' is not valid UTF-8", s);
	if ((e = empty_segment(s, b, blen, p)) != FERRY_OK)
		return e;
	out->bucket = strndup(b, blen);
	out->prefix = prefix_dup(p, plen);
	if (out->bucket == NULL || out->prefix == NULL) {
		s3_location_clear(out);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	return FERRY_OK;
}

void
s3_location_clear(struct s3_location *l)
{
	if (l == NULL)
		return;
	free(l->bucket);
	free(l->prefix);
	l->bucket = NULL;
	l->prefix = NULL;
}

char *
remote_key_join(const char *prefix, const char *rel, size_t rellen, size_t *len)
{
	size_t plen = strlen(prefix);
	char *s = malloc(plen + rellen + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, prefix, plen);
	memcpy(s + plen, rel, rellen);
	s[plen + rellen] = '\0';
	if (len != NULL)
		*len = plen + rellen;
	return s;
}

/* Checks one DNS label; sets *numeric when it is all digits. */
static const char *
label_problem(const char *l, size_t n, int *numeric)
{
	size_t i;

	if (n == 0)
		return "an empty label in the host name";
	if (n > LABEL_MAX)
		return "a host name label longer than 63 characters";
	if (l[0] == '-' || l[n - 1] == '-')
		return "a host name label starting or ending with '-'";
	*numeric = 1;
	for (i = 0; i < n; i++) {
		/* '_' is not DNS but is common in container host names. */
		if (!is_alnum(l[i]) && l[i] != '-' && l[i] != '_')
			return "a character not allowed in a host name";
		if (!is_digit(l[i]))
			*numeric = 0;
	}
	return NULL;
}

/*
 * Returns NULL when h[0..n) is a host name or IPv4 address, else the
 * reason.  A name whose last label is numeric but which is not a dotted
 * quad ("1.2.3", "999.0.0.1") is refused: resolvers would read it as an
 * odd IPv4 form.
 */
static const char *
host_problem(const char *h, size_t n)
{
	const char *end = h + n, *dot, *why;
	int numeric = 0;

	if (n == 0)
		return "an empty host";
	if (n > HOST_MAX)
		return "a host name longer than 253 characters";
	if (is_ipv4(h, n))
		return NULL;
	for (;;) {
		dot = memchr(h, '.', (size_t)(end - h));
		if (dot == NULL)
			dot = end;
		if ((why = label_problem(h, (size_t)(dot - h), &numeric)))
			return why;
		if (dot == end)
			break;
		h = dot + 1;
	}
	return numeric ? "an invalid IPv4 address" : NULL;
}

/* Non-zero when h[0..n) is "[IPv6 address]". */
static int
is_ipv6_literal(const char *h, size_t n)
{
	char tmp[INET6_ADDRSTRLEN];
	struct in6_addr a;

	if (n < 3 || h[0] != '[' || h[n - 1] != ']' || n - 2 >= sizeof(tmp))
		return 0;
	memcpy(tmp, h + 1, n - 2);
	tmp[n - 2] = '\0';
	return inet_pton(AF_INET6, tmp, &a) == 1;
}

/* Returns the length of the host part of the authority a[0..n). */
static size_t
host_len(const char *a, size_t n)
{
	const char *end;

	if (n > 0 && a[0] == '[') {
		end = memchr(a, ']', n);
		return end ? (size_t)(end - a) + 1 : n;
	}
	end = memchr(a, ':', n);
	return end ? (size_t)(end - a) : n;
}

/*
 * Checks the host a[0..n) as written against ferry's rules and sets
 * host_is_ip.  libcurl would rewrite some hosts it accepts ("1.2.3" as
 * 1.2.0.3, "h%41" as "hA", an IPv6 zone), so the text itself is checked.
 */
static ferry_err
host_check(const char *url, const char *a, size_t n, struct endpoint *out)
{
	const char *why = NULL;

	if (n > 0 && a[0] == '[') {
		if (!is_ipv6_literal(a, n))
			why = "an invalid IPv6 address";
		out->host_is_ip = 1;
	} else if ((why = host_problem(a, n)) == NULL) {
		out->host_is_ip =
		    is_ipv4(a, n) ||
		    (n == 9 && strncasecmp(a, "localhost", 9) == 0);
	}
	if (why)
		return ferry_fail(
		    FERRY_EUSAGE, "endpoint URL '%s' has %s", url, why);
	return FERRY_OK;
}

/*
 * Reads the port and path of url, whose host ends at a[hlen] (the
 * authority is a[0..n)), with libcurl's URL parser, and the host as libcurl
 * will connect to it, which must be the one checked.
 */
static ferry_err
curl_check(
    const char *url, const char *a, size_t n, size_t hlen, struct endpoint *out)
{
	CURLU *u = curl_url();
	CURLUcode rc;
	char *host = NULL, *port = NULL, *path = NULL;
	ferry_err e = FERRY_OK;
	const char *why = NULL;

	if (u == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	rc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (rc == CURLUE_BAD_PORT_NUMBER ||
	    (rc == CURLUE_OK && hlen < n &&
	        curl_url_get(u, CURLUPART_PORT, &port, 0) != CURLUE_OK))
		why = a[hlen] == ':' ? "an invalid port (expected 1-65535)"
		                     : "unexpected text after the host";
	else if (rc != CURLUE_OK)
		why = curl_url_strerror(rc);
	else if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	         strlen(host) != hlen || strncasecmp(host, a, hlen) != 0)
		why = "a host libcurl reads differently";
	else if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK ||
	         strcmp(path, "/") != 0)
		why = "a path";
	else if (port != NULL && (out->port = (unsigned)atoi(port)) == 0)
		why = "an invalid port (expected 1-65535)";
	if (why)
		e = ferry_fail(
		    FERRY_EUSAGE, "endpoint URL '%s' has %s", url, why);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);
	return e;
}

/*
 * libcurl's URL parser splits the URL; ferry's own rules stay: the scheme
 * spelled out, no user information (refused before anything repeats the
 * URL), no path, query or fragment even empty, and a host that is a DNS
 * name, a dotted quad or an IPv6 literal as written.
 */
ferry_err
endpoint_parse(const char *url, struct endpoint *out)
{
	const char *a;
	size_t n, hlen, i;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (url == NULL || *url == '\0')
		return ferry_fail(FERRY_EUSAGE, "empty endpoint URL");
	/* Checked first so that no later message repeats a password. */
	if (strchr(url, '@') != NULL)
		return ferry_fail(FERRY_EUSAGE,
		    "the endpoint URL must not contain user information "
		    "('@'); give credentials in the environment or a profile");
	if (strncasecmp(url, "https://", 8) == 0) {
		out->https = 1;
		a = url + 8;
	} else if (strncasecmp(url, "http://", 7) == 0) {
		a = url + 7;
	} else {
		return ferry_fail(FERRY_EUSAGE,
		    "endpoint URL '%s' must start with http:// or https://",
		    url);
	}
	n = strcspn(a, "/?#");
	if (a[n] != '\0' && strcmp(a + n, "/") != 0)
		return ferry_fail(FERRY_EUSAGE,
		    "endpoint URL '%s' must not have a path, query or fragment",
		    url);
	hlen = host_len(a, n);
	out->port = out->https ? 443 : 80;
	if ((e = host_check(url, a, hlen, out)) == FERRY_OK &&
	    (e = curl_check(url, a, n, hlen, out)) == FERRY_OK &&
	    ((out->host = strndup(a, hlen)) == NULL ||
	        (out->scheme = strdup(out->https ? "https" : "http")) == NULL))
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
	if (e != FERRY_OK) {
		endpoint_clear(out);
		return e;
	}
	for (i = 0; i < hlen; i++)
		if (out->host[i] >= 'A' && out->host[i] <= 'Z')
			out->host[i] += 'a' - 'A';
	return FERRY_OK;
}

void
endpoint_clear(struct endpoint *e)
{
	if (e == NULL)
		return;
	free(e->scheme);
	free(e->host);
	memset(e, 0, sizeof(*e));
}

int
uri_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
	       c == '~';
}

/* Cuts out back to its length start: no half encoding is left. */
static void
uri_cut(struct buf *out, size_t start)
{
	out->len = start;
	if (out->data != NULL)
		out->data[start] = '\0';
}

/* Appends p[0..n) to out; on failure uri_cut()s it and returns why. */
static ferry_err
uri_put(struct buf *out, size_t start, const void *p, size_t n)
{
	ferry_err e;

	if (n == 0 || (e = buf_append(out, p, n)) == FERRY_OK)
		return FERRY_OK;
	uri_cut(out, start);
	return e;
}

/* Copies each run of bytes that stay as they are in one piece. */
ferry_err
uri_encode(struct buf *out, const char *s, size_t n, int keep_slash)
{
	static const char hexdig[] = "0123456789ABCDEF";
	char esc[3] = {'%', 0, 0};
	size_t i, j, start;
	unsigned char c;
	ferry_err e;

	if (out == NULL || (s == NULL && n > 0))
		return ferry_fail(
		    FERRY_EUSAGE, "uri_encode: no buffer or input");
	start = out->len;
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j < n && (uri_unreserved((unsigned char)s[j]) ||
		                         (s[j] == '/' && keep_slash));
		     j++)
			continue;
		if ((e = uri_put(out, start, s + i, j - i)) != FERRY_OK ||
		    j == n)
			return e;
		c = (unsigned char)s[j];
		esc[1] = hexdig[c >> 4];
		esc[2] = hexdig[c & 15];
		if ((e = uri_put(out, start, esc, sizeof(esc))) != FERRY_OK)
			return e;
	}
	return FERRY_OK;
}

/*
 * The byte of the escape at s[i] ("%XX", n bytes in all) into *c: 0; -1
 * when it is malformed.
 */
static int
uri_escape_at(const char *s, size_t n, size_t i, unsigned char *c)
{
	int hi = n - i > 2 ? hex_value((unsigned char)s[i + 1]) : -1;
	int lo = hi >= 0 ? hex_value((unsigned char)s[i + 2]) : -1;

	if (lo < 0)
		return -1;
	*c = (unsigned char)(hi << 4 | lo);
	return 0;
}

/*
 * Appends the decoding of s[0..n), which may hold any byte, NUL included;
 * out is unchanged on failure.
 */
ferry_err
uri_decode(struct buf *out, const char *s, size_t n, int plus_is_space)
{
	size_t i, j, start;
	unsigned char c;
	ferry_err e;

	if (out == NULL || (s == NULL && n > 0))
		return ferry_fail(
		    FERRY_EUSAGE, "uri_decode: no buffer or input");
	start = out->len;
	for (i = 0; i < n; i = j) {
		for (j = i;
		     j < n && s[j] != '%' && !(s[j] == '+' && plus_is_space);
		     j++)
			continue;
		if ((e = uri_put(out, start, s + i, j - i)) != FERRY_OK ||
		    j == n)
			return e;
		c = ' ';
		if (s[j] == '%' && uri_escape_at(s, n, j, &c) < 0) {
			uri_cut(out, start);
			return ferry_fail(
			    FERRY_EPARSE, "malformed %%-escape at byte %zu", j);
		}
		j += s[j] == '%' ? 3 : 1;
		if ((e = uri_put(out, start, &c, 1)) != FERRY_OK)
			return e;
	}
	return FERRY_OK;
}
