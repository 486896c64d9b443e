/*
 * creds_imds.c: the keys of an EC2 instance's role from the instance
 * metadata service, IMDSv2: a session token by PUT, then the role's name
 * and its keys by GET, each sent with the token.
 */
#include <ctype.h>
#include <string.h>

#include <curl/curl.h>

#include "remote/creds.h"
#include "remote/creds_http.h"

#define IMDS_TOKEN_PATH "/latest/api/token"
#define IMDS_ROLE_PATH "/latest/meta-data/iam/security-credentials/"
#define IMDS_TOKEN_TTL "X-aws-ec2-metadata-token-ttl-seconds: 21600"

/*
 * Sends method to endpoint/path with one header line, up to attempts
 * times while the failure is the network's or a 5xx; the 200 body in out.
 */
static ferry_err
call(CURL *c, const char *endpoint, const char *path, const char *header,
    long timeout_ms, unsigned attempts, struct buf *out)
{
	struct creds_http q = {.timeout_ms = timeout_ms, .attempts = attempts};
	struct buf url;
	long status = 0;
	ferry_err e;

	buf_init(&url, 4096);
	if ((e = buf_printf(&url, "%s%s", endpoint, path)) != FERRY_OK)
		goto out;
	if ((q.headers = curl_slist_append(NULL, header)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	q.url = url.data;
	q.put = strcmp(path, IMDS_TOKEN_PATH) == 0;
	if ((e = creds_http_call(c, &q, path, out, &status)) == FERRY_OK &&
	    status != 200)
		e = ferry_fail(
		    FERRY_EHTTP, "%s: HTTP status %ld", path, status);
out:
	curl_slist_free_all(q.headers);
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
	if (!creds_token_ok(b->data, b->len))
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
