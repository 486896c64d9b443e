/*
 * fuzz_url.c: s3:// locations, endpoint URLs (remote/url.c) and sizes
 * (common/util.c) on arbitrary NUL-terminated strings, checking what each
 * parser promises about its result.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/url.h"
#include "tests/fuzz/fuzz.h"

/* The location an empty segment's refusal suggests must be accepted. */
static void
check_hint(void)
{
	const char *msg = ferry_errmsg(), *m = NULL, *at;
	struct s3_location l;
	char hint[2048];
	size_t n;

	/* the last one: the hint holds no "s3://" but the input may */
	for (at = msg; (at = strstr(at, "did you mean s3://")) != NULL; at++)
		m = at;
	/* only that refusal ends in '?'; one cut at the detail's 1,023
	 * bytes may have lost the end */
	n = strlen(msg);
	if (m == NULL || n == 0 || msg[n - 1] != '?' || n >= 1023)
		return;
	m += strlen("did you mean ");
	n = strlen(m);
	if (n < 2 || n >= sizeof(hint) || m[n - 1] != '?')
		abort();
	memcpy(hint, m, n - 1);
	hint[n - 1] = '\0';
	if (s3_location_parse(hint, &l) != FERRY_OK)
		abort();
	s3_location_clear(&l);
}

static void
check_location(const char *s)
{
	struct s3_location l;
	size_t n;

	if (s3_location_parse(s, &l) != FERRY_OK) {
		if (l.bucket != NULL || l.prefix != NULL)
			abort();
		check_hint();
		return;
	}
	n = strlen(l.bucket);
	if (!is_s3_url(s) || n < 3 || n > 63 || strchr(l.bucket, '/'))
		abort();
	n = strlen(l.prefix);
	if (n > URL_S3_KEY_MAX || (n > 0 && l.prefix[n - 1] != '/'))
		abort();
	/* no empty segment: no key under it begins with '/' or holds "//" */
	if (l.prefix[0] == '/' || strstr(l.prefix, "//") != NULL)
		abort();
	s3_location_clear(&l);
}

/* A parsed endpoint, printed back, must parse to the same thing. */
static void
check_endpoint(const char *s)
{
	struct endpoint a, b;
	char url[512];

	if (endpoint_parse(s, &a) != FERRY_OK) {
		if (a.scheme != NULL || a.host != NULL)
			abort();
		return;
	}
	if (a.port == 0 || a.port > 65535 || a.host[0] == '\0')
		abort();
	snprintf(url, sizeof(url), "%s://%s:%u/", a.scheme, a.host, a.port);
	if (endpoint_parse(url, &b) != FERRY_OK)
		abort();
	if (strcmp(a.scheme, b.scheme) || strcmp(a.host, b.host) ||
	    a.port != b.port || a.https != b.https ||
	    a.host_is_ip != b.host_is_ip)
		abort();
	endpoint_clear(&a);
	endpoint_clear(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v;
	char *s;

	s = fuzz_cstr(data, size);
	check_location(s);
	check_endpoint(s);
	if (parse_size(s, &v) != FERRY_OK && v != 0)
		abort();
	free(s);
	return 0;
}
