/*
 * creds_http.h: the one-shot HTTP requests that fetch keys (the instance
 * metadata service, the container endpoint, STS), on an easy handle of
 * their own, outside the client's loop.  Private to remote/creds*.c.
 */
#ifndef FERRY_CREDS_HTTP_H
#define FERRY_CREDS_HTTP_H

#include <curl/curl.h>

#include "common/common.h"

struct creds_http {
	const char *url;
	const char *post;           /* a POST with this body; NULL: not */
	int put;                    /* an empty PUT (else a GET) */
	struct curl_slist *headers; /* or NULL */
	long timeout_ms;            /* to connect; twice that in all */
	unsigned attempts;          /* tries while the network or a 5xx fails */
	const char *ca_bundle;      /* or NULL: the system's */
	int proxy;                  /* the environment's proxy may be used */
};

/*
 * Sends q on c (reset first) and keeps the last reply's body in out
 * (bounded by its limit) and its status in *status.  FERRY_OK once a reply
 * came, whatever its status; FERRY_ENET naming what (a path or a service,
 * never the URL's query) when none did, FERRY_ENOMEM.  Not thread-safe on
 * one c.
 */
ferry_err creds_http_call(CURL *c, const struct creds_http *q, const char *what,
    struct buf *out, long *status) FERRY_WUR;

/*
 * Reads the first line of the file at path into out (at most limit
 * bytes, the line end dropped): a token to send.  FERRY_ESYS naming what
 * and path; FERRY_EPARSE when it is empty, longer or not one printable
 * line.  Never quotes the contents.  out is wiped and freed on failure.
 */
ferry_err creds_token_read(const char *path, const char *what, size_t limit,
    struct buf *out) FERRY_WUR;

/* Non-zero when s[0..n) is non-empty printable ASCII: fit for a header. */
int creds_token_ok(const char *s, size_t n);

/*
 * Appends the line "name: value" to *h (a copy; the scratch is wiped).
 * FERRY_EPARSE, naming the header but not the value, when the value
 * holds a control byte (ctl_find()); that or FERRY_ENOMEM leaves *h as
 * it was.
 */
ferry_err creds_http_header_add(
    struct curl_slist **h, const char *name, const char *value) FERRY_WUR;
/* Frees h, wiping its lines first (tokens, signatures); accepts NULL. */
void creds_http_headers_free(struct curl_slist *h);

#endif
