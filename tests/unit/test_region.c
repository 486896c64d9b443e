/*
 * test_region.c: the region a bucket lives in, as AWS tells it to a
 * request signed for another region (301 PermanentRedirect, 400
 * AuthorizationHeaderMalformed, x-amz-bucket-region), and the host that
 * serves a region.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/region.h"

#define DECL "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define IDS                                                                    \
	"<RequestId>0H3A6AXJ2NQ2X1QZ</RequestId><HostId>Pr0mZ7cO/"             \
	"Xc6m4oPnq0K8E5b=</HostId>"
#define MOVED                                                                  \
	DECL "<Error><Code>PermanentRedirect</Code><Message>The bucket you "   \
	     "are attempting to access must be addressed using the specified " \
	     "endpoint. Please send all future requests to this endpoint."     \
	     "</Message><Endpoint>photos.s3.eu-west-3.amazonaws.com"           \
	     "</Endpoint><Bucket>photos</Bucket>" IDS "</Error>"
#define MALFORMED(region)                                                      \
	DECL "<Error><Code>AuthorizationHeaderMalformed</Code><Message>The "   \
	     "authorization header is malformed; the region 'us-east-1' is "   \
	     "wrong; expecting 'eu-west-3'</Message>" region IDS "</Error>"
#define DENIED                                                                 \
	DECL "<Error><Code>AccessDenied</Code><Message>Access Denied"          \
	     "</Message><Region>eu-west-3</Region>" IDS "</Error>"

struct reply_case {
	const char *name;
	long status;
	const char *header;
	const char *body;
	enum region_reply want;
	const char *region;
};

static const struct reply_case reply_cases[] = {
    {"301 with the header", 301, "eu-west-3", MOVED, REGION_NAMED, "eu-west-3"},
    {"301 HEAD: header, no body", 301, "eu-west-3", "", REGION_NAMED,
        "eu-west-3"},
    {"301 naming no region: ask the bucket", 301, "", MOVED, REGION_UNKNOWN,
        ""},
    {"301 HEAD without header", 301, NULL, NULL, REGION_UNKNOWN, ""},
    {"301 whose body is not XML", 301, "", "<html>moved", REGION_UNKNOWN, ""},
    {"400 malformed, <Region>", 400, "",
        MALFORMED("<Region>eu-west-3</Region>"), REGION_NAMED, "eu-west-3"},
    {"400 malformed, message only", 400, "", MALFORMED(""), REGION_NAMED,
        "eu-west-3"},
    {"400 malformed, header wins", 400, "ap-south-1",
        MALFORMED("<Region>eu-west-3</Region>"), REGION_NAMED, "ap-south-1"},
    {"400 malformed naming the signed region", 400, "",
        MALFORMED("<Region>us-east-1</Region>"), REGION_NONE, ""},
    {"header naming the signed region", 301, "us-east-1", MOVED, REGION_NONE,
        ""},
    {"400 HEAD without body or header", 400, "", "", REGION_NONE, ""},
    {"403 with another region's header", 403, "eu-west-3", DENIED, REGION_NAMED,
        "eu-west-3"},
    {"403 with <Region> only: not a redirect", 403, "", DENIED, REGION_NONE,
        ""},
    {"200 says nothing", 200, "eu-west-3", "", REGION_NONE, ""},
    {"no reply", 0, "eu-west-3", "", REGION_NONE, ""},
    {"404 NoSuchKey", 404, "",
        DECL "<Error><Code>NoSuchKey</Code><Message>gone</Message>" IDS
             "</Error>",
        REGION_NONE, ""},
    {"header that is no region name", 301, "eu west/3", "", REGION_UNKNOWN, ""},
    {"header too long", 301,
        "a-very-long-region-name-that-goes-on-and-on-past-"
        "sixty-four-bytes-of-text",
        "", REGION_UNKNOWN, ""},
    {"<Region> that is no region name", 301, "",
        DECL "<Error><Code>PermanentRedirect</Code><Region>eu&amp;west"
             "</Region></Error>",
        REGION_UNKNOWN, ""},
    {"message quote left open", 400, "",
        DECL "<Error><Code>AuthorizationHeaderMalformed</Code><Message>"
             "expecting 'eu-west-3</Message></Error>",
        REGION_NONE, ""},
};

static void
test_reply(void **state)
{
	char out[REGION_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(reply_cases) / sizeof(reply_cases[0]); i++) {
		const struct reply_case *c = &reply_cases[i];
		enum region_reply got;

		memset(out, 'x', sizeof(out));
		got = region_from_reply(c->status, c->header, c->body,
		    c->body ? strlen(c->body) : 0, "us-east-1", out);
		if (got != c->want || strcmp(out, c->region) != 0)
			fail_msg("%s: got %d '%s', want %d '%s'", c->name, got,
			    out, c->want, c->region);
	}
}

static void
test_pick(void **state)
{
	char out[REGION_MAX];

	(void)state;
	assert_int_equal(region_pick("eu-west-3", "us-east-1", out), 1);
	assert_string_equal(out, "eu-west-3");
	assert_int_equal(region_pick("us-east-1", "us-east-1", out), 0);
	assert_string_equal(out, "");
	assert_int_equal(region_pick("", "us-east-1", out), -1);
	assert_int_equal(region_pick(NULL, "us-east-1", out), -1);
	assert_int_equal(
	    region_pick("eu-west-3\r\nX: y", "us-east-1", out), -1);
}

struct host_case {
	const char *host;
	const char *want; /* for eu-west-3 */
};

static const struct host_case host_cases[] = {
    {"s3.us-east-1.amazonaws.com", "s3.eu-west-3.amazonaws.com"},
    {"s3.amazonaws.com", "s3.eu-west-3.amazonaws.com"},
    {"s3-external-1.amazonaws.com", "s3.eu-west-3.amazonaws.com"},
    {"s3.dualstack.us-east-1.amazonaws.com",
        "s3.dualstack.eu-west-3.amazonaws.com"},
    {"s3-fips.us-east-1.amazonaws.com", "s3-fips.eu-west-3.amazonaws.com"},
    {"s3.cn-north-1.amazonaws.com.cn", "s3.eu-west-3.amazonaws.com.cn"},
    /* kept: custom endpoints, and AWS hosts that are no regional S3 */
    {"127.0.0.1", "127.0.0.1"},
    {"minio.example.com", "minio.example.com"},
    {"photos.s3.us-east-1.amazonaws.com", "photos.s3.us-east-1.amazonaws.com"},
    {"ec2.us-east-1.amazonaws.com", "ec2.us-east-1.amazonaws.com"},
    {"amazonaws.com", "amazonaws.com"},
    {".amazonaws.com", ".amazonaws.com"},
    {"s3.us-east-1.amazonaws.com.evil.example",
        "s3.us-east-1.amazonaws.com.evil.example"},
};

static void
test_host(void **state)
{
	struct buf b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(host_cases) / sizeof(host_cases[0]); i++) {
		buf_init(&b, 1024);
		assert_int_equal(
		    region_host(host_cases[i].host, "eu-west-3", &b), FERRY_OK);
		if (strcmp(b.data, host_cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", host_cases[i].host,
			    b.data, host_cases[i].want);
		buf_free(&b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply),
	    cmocka_unit_test(test_pick),
	    cmocka_unit_test(test_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
