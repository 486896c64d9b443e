/*
 * test_xml_buckets.c: the ListBuckets reply (xml_list_buckets_parse() of
 * remote/xml_replies.c), as AWS and Ceph send it, and what is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/xml.h"

#define DECL "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
#define NS "http://s3.amazonaws.com/doc/2006-03-01/"
#define OWNER "<Owner><ID>ferry</ID><DisplayName>me</DisplayName></Owner>"
#define BUCKET(n, d)                                                           \
	"<Bucket><Name>" n "</Name><CreationDate>" d "</CreationDate></"       \
	"Bucket>"

struct got {
	size_t n;
	char line[4][300];
};

static int
on_bucket(const struct xml_bucket *b, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 4);
	snprintf(
	    g->line[g->n++], sizeof(g->line[0]), "%s %s", b->name, b->created);
	return 0;
}

struct case_ {
	const char *name;
	const char *body;
	ferry_err want;
	size_t n;
	const char *line[4];
	const char *token;
};

static const struct case_ cases[] = {
    {"ceph",
        DECL
        "<ListAllMyBucketsResult xmlns=\"" NS "\">" OWNER
        "<Buckets>" BUCKET("alpha", "2026-12-03T00:51:42.088Z") BUCKET("b.c-d",
            "2019-12-11T23:32:47.000Z") "</Buckets></ListAllMyBucketsResult>",
        FERRY_OK, 2,
        {"alpha 2026-12-03T00:51:42.088Z", "b.c-d 2019-12-11T23:32:47.000Z"},
        NULL},
    {"aws, paged",
        "<ListAllMyBucketsResult><Buckets>" BUCKET(
            "Old_Bucket", "2006-02-03T16:45:09.000Z") "<Bucket><Name>x1y</Name>"
                                                      "<BucketRegion>eu-west-1"
                                                      "</BucketRegion></Bucket>"
                                                      "</Buckets>" OWNER
                                                      "<ContinuationToken>tok/"
                                                      "+=</ContinuationToken>"
                                                      "<Prefix></Prefix></"
                                                      "ListAllMyBucketsResult>",
        FERRY_OK, 2, {"Old_Bucket 2006-02-03T16:45:09.000Z", "x1y "}, "tok/+="},
    {"none",
        "<ListAllMyBucketsResult>" OWNER "<Buckets/></ListAllMyBucketsResult>",
        FERRY_OK, 0, {NULL}, NULL},
    {"no name",
        "<ListAllMyBucketsResult><Buckets><Bucket><CreationDate>x"
        "</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>",
        FERRY_EPARSE, 0, {NULL}, NULL},
    {"a name a terminal would act on",
        "<ListAllMyBucketsResult><Buckets>" BUCKET(
            "a&#27;[2Jb", "x") "</Buckets></ListAllMyBucketsResult>",
        FERRY_EPARSE, 0, {NULL}, NULL},
    {"a name with '/'",
        "<ListAllMyBucketsResult><Buckets>" BUCKET(
            "a/b", "x") "</Buckets></ListAllMyBucketsResult>",
        FERRY_EPARSE, 0, {NULL}, NULL},
    {"name given twice",
        "<ListAllMyBucketsResult><Buckets><Bucket><Name>a</Name><Name>b"
        "</Name></Bucket></Buckets></ListAllMyBucketsResult>",
        FERRY_EPARSE, 0, {NULL}, NULL},
    {"another reply", "<ListBucketResult/>", FERRY_EPARSE, 0, {NULL}, NULL},
    {"not xml", "<<<", FERRY_EPARSE, 0, {NULL}, NULL},
    {"error", "<Error><Code>AccessDenied</Code><Message>no</Message></Error>",
        FERRY_ES3, 0, {NULL}, NULL},
    {"bomb",
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">]>"
        "<ListAllMyBucketsResult><Buckets>" BUCKET(
            "&lol;", "x") "</Buckets></ListAllMyBucketsResult>",
        FERRY_EPARSE, 0, {NULL}, NULL},
};

static void
test_buckets(void **state)
{
	const struct case_ *c;
	struct got g;
	char *token;
	size_t i, j;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		memset(&g, 0, sizeof(g));
		e = xml_list_buckets_parse(
		    c->body, strlen(c->body), on_bucket, &g, &token);
		if (e != c->want || g.n != c->n)
			fail_msg("%s: got %d, %zu buckets (%s)", c->name,
			    (int)e, g.n, ferry_errmsg());
		for (j = 0; j < c->n; j++)
			assert_string_equal(g.line[j], c->line[j]);
		if (c->token == NULL)
			assert_null(token);
		else
			assert_string_equal(token, c->token);
		free(token);
	}
}

/* Parses a reply of one bucket named n times 'a'. */
static ferry_err
parse_named(size_t n, struct got *g, char **token)
{
	char body[1024], name[300];

	assert_true(n < sizeof(name));
	memset(name, 'a', n);
	name[n] = '\0';
	snprintf(body, sizeof(body),
	    "<ListAllMyBucketsResult><Buckets><Bucket><Name>%s</Name></Bucket>"
	    "</Buckets></ListAllMyBucketsResult>",
	    name);
	return xml_list_buckets_parse(body, strlen(body), on_bucket, g, token);
}

/* A name of 255 bytes is the longest kept. */
static void
test_bucket_name_limit(void **state)
{
	struct got g = {0};
	char *token;

	(void)state;
	assert_int_equal(parse_named(255, &g, &token), FERRY_OK);
	assert_int_equal(g.n, 1);
	assert_int_equal(parse_named(256, &g, &token), FERRY_EPARSE);
	assert_null(token);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets),
	    cmocka_unit_test(test_bucket_name_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
