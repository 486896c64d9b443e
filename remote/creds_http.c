/*
 * creds_http.c: one-shot HTTP for the places keys are fetched from, and
 * the token files sent with some of them.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "remote/creds_http.h"

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

/* One attempt of q; *status is the HTTP status. */
static CURLcode
attempt(CURL *c, const struct creds_http *q, struct buf *out, long *status)
{
	CURLcode rc;

	curl_easy_reset(c);
	buf_reset(out);
	*status = 0;
	curl_easy_setopt(c, CURLOPT_URL, q->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, q->headers);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "ferry/" FERRY_VERSION);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (!q->proxy)
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	if (q->ca_bundle != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, q->ca_bundle);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, q->timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2 * q->timeout_ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (q->post != NULL) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->post);
	} else if (q->put) {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)0);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, no_body);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

ferry_err
creds_http_call(CURL *c, const struct creds_http *q, const char *what,
    struct buf *out, long *status)
{
	CURLcode rc = CURLE_OK;
	unsigned i, n = q->attempts ? q->attempts : 1;

	for (i = 0; i < n; i++) {
		rc = attempt(c, q, out, status);
		if (rc == CURLE_OK && *status < 500)
			break;
	}
	if (rc != CURLE_OK)
		return ferry_fail(
		    FERRY_ENET, "%s: %s", what, curl_easy_strerror(rc));
	return FERRY_OK;
}

int
creds_token_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isprint((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* Reads fd to its end into out. */
static ferry_err
read_fd(int fd, struct buf *out)
{
	char chunk[4096];
	size_t n;
	ferry_err e;

	while ((e = infile_read(fd, chunk, sizeof(chunk), &n)) == FERRY_OK &&
	       n > 0)
		if (buf_append(out, chunk, n) != FERRY_OK) {
			e = ferry_fail(FERRY_EPARSE, "too long");
			break;
		}
	explicit_bzero(chunk, sizeof(chunk));
	return e;
}

ferry_err
creds_token_read(
    const char *path, const char *what, size_t limit, struct buf *out)
{
	char why[256];
	ferry_err e;
	int fd;

	buf_init(out, limit + 2);
	if ((e = infile_open(path, &fd)) != FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(e, "cannot read %s %s: %s", what, path, why);
	}
	e = read_fd(fd, out);
	close(fd);
	/* One line; its end (and a CR before it) is not the token's. */
	while (e == FERRY_OK && out->len > 0 &&
	       (out->data[out->len - 1] == '\n' ||
	           out->data[out->len - 1] == '\r'))
		out->data[--out->len] = '\0';
	if (e == FERRY_OK &&
	    (out->len > limit || !creds_token_ok(out->data, out->len)))
		e = ferry_fail(FERRY_EPARSE, "not one printable line");
	if (e != FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		buf_free_secret(out);
		return ferry_fail(e, "%s %s: %s", what, path, why);
	}
	return FERRY_OK;
}

ferry_err
creds_http_header_add(
    struct curl_slist **h, const char *name, const char *value)
{
	struct buf line;
	struct curl_slist *n;

	/* as remote/request.c does for S3's: a token with a line break
	 * would put a header of its own on the wire */
	if (ctl_find(value, strlen(value)) >= 0)
		return ferry_fail(FERRY_EPARSE,
		    "the value of header %s holds a control byte (a line "
		    "break, NUL or other): request not sent",
		    name);
	buf_init(&line, strlen(name) + strlen(value) + 3);
	if (buf_printf(&line, "%s: %s", name, value) != FERRY_OK) {
		buf_free_secret(&line);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	n = curl_slist_append(*h, line.data);
	buf_free_secret(&line);
	if (n == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	*h = n;
	return FERRY_OK;
}

void
creds_http_headers_free(struct curl_slist *h)
{
	struct curl_slist *i;

	for (i = h; i != NULL; i = i->next)
		explicit_bzero(i->data, strlen(i->data));
	curl_slist_free_all(h);
}
