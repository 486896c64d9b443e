/*
 * creds_container.c: the keys of a task's or a pod's role from the
 * container credentials endpoint (ECS task roles, EKS Pod Identity): a GET
 * with an authorization token, answered with the metadata service's JSON.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "remote/creds.h"
#include "remote/creds_http.h"

#define CONTAINER_TIMEOUT_MS 2000
#define CONTAINER_ATTEMPTS 3

/* Non-zero when host (IPv6 in brackets) is one http may be used to. */
static int
host_ok(const char *host)
{
	static const uint8_t eks6[16] = {0xfd, 0x00, 0x0e, 0xc2, [15] = 0x23};
	struct in6_addr a6;
	struct in_addr a4;
	char h[64];
	size_t n = strlen(host);

	if (strcmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127 ||
		       ntohl(a4.s_addr) == 0xa9feaa02 || /* 169.254.170.2 */
		       ntohl(a4.s_addr) == 0xa9feaa17;   /* 169.254.170.23 */
	if (n < 3 || n - 2 >= sizeof(h) || host[0] != '[' || host[n - 1] != ']')
		return 0;
	memcpy(h, host + 1, n - 2);
	h[n - 2] = '\0';
	if (inet_pton(AF_INET6, h, &a6) != 1)
		return 0;
	return IN6_IS_ADDR_LOOPBACK(&a6) ||
	       memcmp(a6.s6_addr, eks6, sizeof(eks6)) == 0;
}

int
creds_container_url_ok(const char *url)
{
	char *scheme = NULL, *host = NULL;
	CURLU *u;
	int ok = 0;

	if ((u = curl_url()) == NULL)
		return 0;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		ok = strcmp(scheme, "https") == 0 ||
		     (strcmp(scheme, "http") == 0 && host_ok(host));
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
}

/* The Authorization header, from the token file or the token, into *h. */
static ferry_err
auth_header(const struct config *cfg, struct curl_slist **h)
{
	struct buf tok;
	ferry_err e;

	*h = NULL;
	if (cfg->container_token_file == NULL)
		return cfg->container_token == NULL
		           ? FERRY_OK
		           : creds_http_header_add(
		                 h, "Authorization", cfg->container_token);
	e = creds_token_read(cfg->container_token_file,
	    "authorization token file", CREDS_MAX_TOKEN, &tok);
	if (e == FERRY_OK)
		e = creds_http_header_add(h, "Authorization", tok.data);
	buf_free_secret(&tok);
	return e;
}

/* Asks once the header is ready; the keys into out. */
static ferry_err
ask(const struct config *cfg, struct curl_slist *h, struct config_keys *out)
{
	struct creds_http q = {.url = cfg->container_url,
	    .headers = h,
	    .timeout_ms = CONTAINER_TIMEOUT_MS,
	    .attempts = CONTAINER_ATTEMPTS,
	    .ca_bundle = cfg->ca_bundle};
	struct buf reply;
	long status = 0;
	CURL *c;
	ferry_err e;

	if ((c = curl_easy_init()) == NULL)
		return ferry_fail(FERRY_ENOMEM, "cannot create a curl handle");
	buf_init(&reply, CREDS_MAX_OUTPUT);
	e = creds_http_call(c, &q, "no answer", &reply, &status);
	if (e == FERRY_OK && status != 200)
		e = ferry_fail(FERRY_EHTTP, "HTTP status %ld", status);
	if (e == FERRY_OK)
		e = creds_parse(reply.data, reply.len, CREDS_IMDS, out);
	curl_easy_cleanup(c);
	buf_free_secret(&reply);
	return e;
}

ferry_err
creds_container_fetch(const struct config *cfg, struct config_keys *out)
{
	struct curl_slist *h = NULL;
	char why[768];
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if ((e = auth_header(cfg, &h)) == FERRY_OK)
		e = ask(cfg, h, out);
	if (e != FERRY_OK && e != FERRY_ENOMEM) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		e = ferry_fail(e,
		    "the container credentials endpoint at %s: %s",
		    cfg->container_url, why);
	}
	creds_http_headers_free(h);
	return e;
}
