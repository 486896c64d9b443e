/*
 * region.c: the region a bucket lives in, read from the replies S3 gives a
 * request signed for another region, and the AWS host of a region.
 */
#include <string.h>

#include "remote/config.h"
#include "remote/region.h"
#include "remote/xml.h"

int
region_pick(const char *cand, const char *signed_region, char out[REGION_MAX])
{
	out[0] = '\0';
	if (cand == NULL || strlen(cand) >= REGION_MAX || !region_valid(cand))
		return -1;
	if (signed_region != NULL && strcmp(cand, signed_region) == 0)
		return 0;
	memcpy(out, cand, strlen(cand) + 1);
	return 1;
}

/*
 * The region in "... the region 'us-east-1' is wrong; expecting
 * 'eu-west-3'", as AuthorizationHeaderMalformed says it when its <Region>
 * is missing.  Same returns as region_pick().
 */
static int
pick_expected(const char *msg, const char *signed_region, char out[REGION_MAX])
{
	static const char mark[] = "expecting '";
	char cand[REGION_MAX];
	const char *p, *end;

	out[0] = '\0';
	if (msg == NULL || (p = strstr(msg, mark)) == NULL)
		return -1;
	p += sizeof(mark) - 1;
	if ((end = strchr(p, '\'')) == NULL || (size_t)(end - p) >= REGION_MAX)
		return -1;
	memcpy(cand, p, (size_t)(end - p));
	cand[end - p] = '\0';
	return region_pick(cand, signed_region, out);
}

enum region_reply
region_from_reply(long status, const char *header, const char *body, size_t len,
    const char *signed_region, char out[REGION_MAX])
{
	struct xml_error x = {0};
	int got, wrong;

	out[0] = '\0';
	if (status / 100 == 2 || status == 0)
		return REGION_NONE;
	if ((got = region_pick(header, signed_region, out)) == 1)
		return REGION_NAMED;
	if (body == NULL || len == 0 ||
	    xml_error_parse(body, len, &x) != FERRY_OK)
		return status == 301 && got < 0 ? REGION_UNKNOWN : REGION_NONE;
	wrong = status == 301 ||
	        (status == 400 && x.code != NULL &&
	            strcmp(x.code, "AuthorizationHeaderMalformed") == 0);
	if (wrong && got < 0)
		got = region_pick(x.region, signed_region, out);
	if (wrong && got < 0)
		got = pick_expected(x.message, signed_region, out);
	xml_error_clear(&x);
	if (!wrong || got == 0)
		return REGION_NONE;
	if (got == 1)
		return REGION_NAMED;
	return status == 301 ? REGION_UNKNOWN : REGION_NONE;
}

/* The part of an AWS host before the region: "s3", "s3.dualstack". */
static int
aws_head(const char *s, size_t n)
{
	static const char *const heads[] = {
	    "s3", "s3-fips", "s3.dualstack", "s3-fips.dualstack", NULL};
	size_t i;

	for (i = 0; heads[i]; i++)
		if (strlen(heads[i]) == n && memcmp(heads[i], s, n) == 0)
			return 1;
	return 0;
}

ferry_err
region_host(const char *host, const char *region, struct buf *out)
{
	static const char *const suffixes[] = {
	    ".amazonaws.com", ".amazonaws.com.cn", NULL};
	size_t n = strlen(host), sl = 0, rest, i;
	const char *dot;

	for (i = 0; suffixes[i]; i++) {
		sl = strlen(suffixes[i]);
		if (n > sl && strcmp(host + n - sl, suffixes[i]) == 0)
			break;
	}
	if (suffixes[i] == NULL)
		return buf_puts(out, host);
	rest = n - sl;
	/* the global host and its old alias serve us-east-1 */
	if ((rest == 2 && memcmp(host, "s3", 2) == 0) ||
	    (rest == 13 && memcmp(host, "s3-external-1", 13) == 0))
		return buf_printf(out, "s3.%s%s", region, suffixes[i]);
	dot = memrchr(host, '.', rest);
	if (dot == NULL || !aws_head(host, (size_t)(dot - host)))
		return buf_puts(out, host);
	return buf_printf(
	    out, "%.*s.%s%s", (int)(dot - host), host, region, suffixes[i]);
}
