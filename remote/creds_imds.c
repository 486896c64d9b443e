/*
 * creds_imds.c: the keys of an EC2 instance's role from the instance
 * metadata service, IMDSv2: a session token by PUT, then the role's name
 * and its keys by GET, each sent with the token.
 */
#include <ctype.h>
#include <string.h>

#include <curl/curl.h>

#include "remote/creds.h"

#define IMDS_TOKEN_PATH "/latest/api/token"
#define IMDS_ROLE_PATH "/latest/meta-data/iam/security-credentials/"
#define IMDS_TOKEN_TTL "X-aws-ec2-metadata-token-ttl-seconds: 21600"

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	return buf_append(arg, p, size * n) == FERRY_OK ? size * n : 0;
}

static size_t
no_body(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)size;
	(void)n;
	(void)arg;
	return 0;
}

/* One attempt of method on url; *status is the HTTP status. */
static CURLcode
attempt(CURL *c, const char *url, int put, struct curl_slist *hdr,
    long timeout_ms, struct buf *out, long *status)
{
	CURLcode rc;

	curl_easy_reset(c);
	buf_reset(out);
	*status = 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "ferry/" FERRY_VERSION);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2 * timeout_ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (put) {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)0);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, no_body);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

/*
 * Sends method to endpoint/path with one header line, up to attempts
 * times while the failure is the network's or a 5xx; the 200 body in out.
 */
static ferry_err
call(CURL *c, const char *endpoint, const char *path, const char *header,
    long timeout_ms, unsigned attempts, struct buf *out)
{
	struct curl_slist *hdr = NULL;
	struct buf url;
	CURLcode rc = CURLE_OK;
	long status = 0;
	unsigned i;
	ferry_err e;

	buf_init(&url, 4096);
	if ((e = buf_printf(&url, "%s%s", endpoint, path)) != FERRY_OK)
		goto out;
	if ((hdr = curl_slist_append(NULL, header)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < attempts; i++) {
		rc = attempt(c, url.data, strcmp(path, IMDS_TOKEN_PATH) == 0,
		    hdr, timeout_ms, out, &status);
		if (rc == CURLE_OK && status < 500)
			break;
	}
	if (rc != CURLE_OK)
		e = ferry_fail(
		    FERRY_ENET, "%s: %s", path, curl_easy_strerror(rc));
	else if (status != 200)
		e = ferry_fail(
		    FERRY_EHTTP, "%s: HTTP status %ld", path, status);
out:
	curl_slist_free_all(hdr);
	buf_free(&url);
	return e;
}

/* The role's name: the listing's first line, in IAM's character set. */
static ferry_err
role_name(struct buf *b)
{
	size_t n = strcspn(b->data ? b->data : "", "\r\n"), i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)b->data[i]) &&
		    strchr("+=,.@_-", b->data[i]) == NULL)
			break;
	if (n == 0 || i < n || n > 64)
		return ferry_fail(
		    FERRY_EPARSE, "no usable role name at %s", IMDS_ROLE_PATH);
	b->data[n] = '\0';
	b->len = n;
	return FERRY_OK;
}

/* The session token goes into a header: printable, one line. */
static ferry_err
check_token(const struct buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		if (!isprint((unsigned char)b->data[i]))
			break;
	if (b->len == 0 || i < b->len)
		return ferry_fail(
		    FERRY_EPARSE, "no usable token at %s", IMDS_TOKEN_PATH);
	return FERRY_OK;
}

/* The three requests, on c, with b as scratch. */
static ferry_err
ask(CURL *c, const char *endpoint, long timeout_ms, unsigned attempts,
    struct buf *tok, struct buf *b, struct config_keys *out)
{
	struct buf path;
	ferry_err e;

	buf_init(&path, 256);
	if ((e = call(c, endpoint, IMDS_TOKEN_PATH, IMDS_TOKEN_TTL, timeout_ms,
	         attempts, b)) != FERRY_OK ||
	    (e = check_token(b)) != FERRY_OK ||
	    (e = buf_printf(tok, "X-aws-ec2-metadata-token: %s", b->data)) !=
	        FERRY_OK ||
	    (e = call(c, endpoint, IMDS_ROLE_PATH, tok->data, timeout_ms,
	         attempts, b)) != FERRY_OK ||
	    (e = role_name(b)) != FERRY_OK ||
	    (e = buf_printf(&path, "%s%s", IMDS_ROLE_PATH, b->data)) !=
	        FERRY_OK ||
	    (e = call(c, endpoint, path.data, tok->data, timeout_ms, attempts,
	         b)) != FERRY_OK)
		goto out;
	e = creds_parse(b->data, b->len, CREDS_IMDS, out);
out:
	buf_free(&path);
	return e;
}

ferry_err
creds_imds_fetch(const char *endpoint, long timeout_ms, unsigned attempts,
    struct config_keys *out)
{
	struct buf tok, b;
	CURL *c;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if ((c = curl_easy_init()) == NULL)
		return ferry_fail(FERRY_ENOMEM, "cannot create a curl handle");
	buf_init(&tok, CREDS_MAX_TOKEN);
	buf_init(&b, CREDS_MAX_OUTPUT);
	e = ask(
	    c, endpoint, timeout_ms, attempts ? attempts : 1, &tok, &b, out);
	curl_easy_cleanup(c);
	buf_free_secret(&tok);
	buf_free_secret(&b);
	return e;
}
