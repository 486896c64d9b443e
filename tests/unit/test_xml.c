/*
 * test_xml.c: S3's XML replies as AWS and Ceph RGW send them, fed whole,
 * one byte at a time and in seeded random chunks; hostile documents; the
 * two request bodies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "remote/remote.h"
#include "remote/xml.h"

#define NS "http://s3.amazonaws.com/doc/2006-03-01/"
#define DECL "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define LIST_OPEN DECL "<ListBucketResult xmlns=\"" NS "\">"
#define OWNER                                                                  \
	"<Owner><ID>"                                                          \
	"75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea5"           \
	"4ba06a</ID><DisplayName>webfile</DisplayName></Owner>"
#define CONTENTS(k, lm, etag, size)                                            \
	"<Contents><Key>" k "</Key><LastModified>" lm                          \
	"</LastModified><ETag>&quot;" etag "&quot;</ETag>"                     \
	"<ChecksumAlgorithm>CRC32</ChecksumAlgorithm><Size>" size              \
	"</Size>" OWNER "<StorageClass>STANDARD</StorageClass></Contents>"
#define C1(k) CONTENTS(k, "2009-10-12T17:50:30.000Z", "fba9dede5f27731c", "7")
#define MAXE 8

#define ETAG1 "\"fba9dede5f27731c\""
#define LM1 "2009-10-12T17:50:30.000Z"

struct want_entry {
	const char *key;
	uint64_t size;
	const char *etag;
	const char *lm;
};

struct list_case {
	const char *name;
	const char *doc;
	ferry_err want;
	size_t n; /* entries delivered, also before a failure */
	struct want_entry e[MAXE];
	int truncated;
	const char *token;
	int stop_at; /* callback returns 1 on this entry (1-based), 0: never */
};

struct got {
	size_t n;
	int stop_at;
	char key[MAXE][XML_KEY_MAX + 1];
	size_t key_len[MAXE];
	uint64_t size[MAXE];
	char etag[MAXE][80];
	char lm[MAXE][40];
};

static const struct list_case list_cases[] = {
    {"aws page",
        LIST_OPEN "<Name>bucket</Name><Prefix/><KeyCount>3</KeyCount>"
                  "<MaxKeys>1000</MaxKeys><IsTruncated>false"
                  "</IsTruncated>" C1("a.txt")
                      CONTENTS("dir/b.bin", "2024-01-02T03:04:05.000Z",
                          "d41d8cd98f00b204e9800998ecf8427e-2",
                          "18446744073709551615") C1("z") "</ListBucketResult>",
        FERRY_OK, 3,
        {{"a.txt", 7, ETAG1, LM1},
            {"dir/b.bin", UINT64_MAX, "\"d41d8cd98f00b204e9800998ecf8427e-2\"",
                "2024-01-02T03:04:05.000Z"},
            {"z", 7, ETAG1, LM1}},
        0, NULL, 0},
    {"truncated page",
        LIST_OPEN "<Name>bucket</Name><Prefix>p/</Prefix>"
                  "<ContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/"
                  "wm36Hy4vbOwM=</ContinuationToken>"
                  "<NextContinuationToken>1ueGcxLPRx1Tr/"
                  "XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</"
                  "NextContinuationToken><KeyCount>1</KeyCount>"
                  "<MaxKeys>1</MaxKeys><IsTruncated>true</"
                  "IsTruncated>" C1("p/x") "</ListBucketResult>",
        FERRY_OK, 1, {{"p/x", 7, ETAG1, LM1}}, 1,
        "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=", 0},
    {"aws encoding url",
        LIST_OPEN "<Name>b</Name><Prefix></Prefix><KeyCount>6</KeyCount>"
                  "<MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType>"
                  "<IsTruncated>false</IsTruncated>" C1("a+b.txt")
                      C1("a%2Bb.txt") C1("caf%C3%A9") C1("100%25.csv")
                          C1("%ED%95%9C%EA%B8%80/x.txt")
                              C1("tab%09x%0D%0A") "</ListBucketResult>",
        FERRY_OK, 6,
        {{"a b.txt", 7, ETAG1, LM1}, {"a+b.txt", 7, ETAG1, LM1},
            {"caf\xc3\xa9", 7, ETAG1, LM1}, {"100%.csv", 7, ETAG1, LM1},
            {"\xed\x95\x9c\xea\xb8\x80/x.txt", 7, ETAG1, LM1},
            {"tab\tx\r\n", 7, ETAG1, LM1}},
        0, NULL, 0},
    {"ceph encoding url",
        DECL "<ListBucketResult xmlns=\"" NS "\"><EncodingType>url"
             "</EncodingType><Name>b</Name><Prefix></Prefix><MaxKeys>1000"
             "</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>a%20b"
             "%2Fc%2Bd</Key><LastModified>2024-05-06T07:08:09.123Z"
             "</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328"
             "&quot;</ETag><Size>3</Size><StorageClass>STANDARD"
             "</StorageClass><Owner><ID>tester</ID><DisplayName>tester"
             "</DisplayName></Owner><Type>Normal</Type></Contents><Marker>"
             "</Marker><KeyCount>1</KeyCount></ListBucketResult>",
        FERRY_OK, 1,
        {{"a b/c+d", 3, "\"9b2cf535f27731c974343645a3985328\"",
            "2024-05-06T07:08:09.123Z"}},
        0, NULL, 0},
    {"no encoding: keys as listed",
        LIST_OPEN C1("a+b%20c") C1("&lt;&amp;&gt;") "</ListBucketResult>",
        FERRY_OK, 2, {{"a+b%20c", 7, ETAG1, LM1}, {"<&>", 7, ETAG1, LM1}}, 0,
        NULL, 0},
    {"empty page",
        LIST_OPEN "<Name>b</Name><Prefix>none/</Prefix><KeyCount>0</KeyCount>"
                  "<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>"
                  "</ListBucketResult>",
        FERRY_OK, 0, {{0}}, 0, NULL, 0},
    {"empty page, encoding last",
        LIST_OPEN "<IsTruncated>false</IsTruncated><EncodingType>url"
                  "</EncodingType></ListBucketResult>",
        FERRY_OK, 0, {{0}}, 0, NULL, 0},
    {"leading blanks, prefixed names",
        "\r\n  " DECL "<s3:ListBucketResult xmlns:s3=\"" NS "\">"
        "<s3:Contents><s3:Key>k</s3:Key><s3:Size>0</s3:Size>"
        "</s3:Contents></s3:ListBucketResult>",
        FERRY_OK, 1, {{"k", 0, "", ""}}, 0, NULL, 0},
    {"keys read only inside Contents",
        LIST_OPEN "<Key>top</Key><Contents><Owner><Key>owner</Key></Owner>"
                  "<Key>real</Key><Size>1</Size><Extra><Size>9</Size></Extra>"
                  "</Contents></ListBucketResult>",
        FERRY_OK, 1, {{"real", 1, "", ""}}, 0, NULL, 0},
    {"no stale field from the last entry",
        LIST_OPEN C1("a") "<Contents><Key>b</Key><Size>2</Size></Contents>"
                          "</ListBucketResult>",
        FERRY_OK, 2, {{"a", 7, ETAG1, LM1}, {"b", 2, "", ""}}, 0, NULL, 0},
    {"encoding after keys",
        LIST_OPEN C1("a") "<EncodingType>url</EncodingType>"
                          "</ListBucketResult>",
        FERRY_EPARSE, 1, {{"a", 7, ETAG1, LM1}}, 0, NULL, 0},
    {"unknown encoding",
        LIST_OPEN "<EncodingType>base64</EncodingType>"
                  "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"encoded NUL refused",
        LIST_OPEN
        "<EncodingType>url</EncodingType>" C1("a%00b") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"short escape refused",
        LIST_OPEN
        "<EncodingType>url</EncodingType>" C1("a%4") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"bad hex refused",
        LIST_OPEN
        "<EncodingType>url</EncodingType>" C1("a%G1") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"empty key refused", LIST_OPEN C1("") "</ListBucketResult>", FERRY_EPARSE,
        0, {{0}}, 0, NULL, 0},
    {"missing key refused",
        LIST_OPEN "<Contents><Size>1</Size></Contents></ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"missing size refused",
        LIST_OPEN "<Contents><Key>k</Key></Contents></ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"size overflow",
        LIST_OPEN CONTENTS(
            "k", LM1, "e", "18446744073709551616") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"negative size",
        LIST_OPEN CONTENTS("k", LM1, "e", "-1") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"size with blank",
        LIST_OPEN CONTENTS("k", LM1, "e", " 1") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"empty size", LIST_OPEN CONTENTS("k", LM1, "e", "") "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"key given twice",
        LIST_OPEN "<Contents><Key>a</Key><Key>b</Key><Size>1</Size>"
                  "</Contents></ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"element inside key",
        LIST_OPEN "<Contents><Key>a<b/></Key><Size>1</Size></Contents>"
                  "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"truncated without token",
        LIST_OPEN
        "<IsTruncated>true</IsTruncated>" C1("a") "</ListBucketResult>",
        FERRY_EPARSE, 1, {{"a", 7, ETAG1, LM1}}, 0, NULL, 0},
    {"odd IsTruncated",
        LIST_OPEN "<IsTruncated>yes</IsTruncated>"
                  "</ListBucketResult>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"error page",
        DECL "<Error><Code>NoSuchBucket</Code><Message>The specified bucket "
             "does not exist</Message><BucketName>nope</BucketName>"
             "</Error>",
        FERRY_ES3, 0, {{0}}, 0, NULL, 0},
    {"other root", DECL "<ListAllMyBucketsResult xmlns=\"" NS "\"/>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"cut short", LIST_OPEN C1("a") "<Contents><Key>b", FERRY_EPARSE, 1,
        {{"a", 7, ETAG1, LM1}}, 0, NULL, 0},
    {"not XML", "Service Unavailable", FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"empty body", "", FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"doctype", DECL "<!DOCTYPE ListBucketResult><ListBucketResult/>",
        FERRY_EPARSE, 0, {{0}}, 0, NULL, 0},
    {"unbound prefix", "<x:ListBucketResult/>", FERRY_EPARSE, 0, {{0}}, 0, NULL,
        0},
    {"reader stops", LIST_OPEN C1("a") C1("b") C1("c") "</ListBucketResult>",
        FERRY_ECANCEL, 2, {{"a", 7, ETAG1, LM1}, {"b", 7, ETAG1, LM1}}, 0, NULL,
        2},
};

static int
on_entry(const struct xml_list_entry *e, void *arg)
{
	struct got *g = arg;
	size_t i = g->n;

	assert_true(i < MAXE);
	assert_true(e->key_len <= XML_KEY_MAX);
	assert_int_equal(strlen(e->key), e->key_len);
	memcpy(g->key[i], e->key, e->key_len + 1);
	g->key_len[i] = e->key_len;
	g->size[i] = e->size;
	snprintf(g->etag[i], sizeof(g->etag[i]), "%s", e->etag);
	snprintf(g->lm[i], sizeof(g->lm[i]), "%s", e->last_modified);
	g->n++;
	return g->stop_at > 0 && (size_t)g->stop_at == g->n;
}

enum feed_mode { FEED_WHOLE, FEED_BYTES, FEED_RANDOM, FEED_MODES };

static uint32_t
lcg(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

/* Feeds doc[0..len) as mode says; returns the result of feed and finish. */
static ferry_err
run_list(const char *doc, size_t len, enum feed_mode mode,
    struct xml_list_info *info, xml_list_fn fn, void *arg)
{
	struct xml_list *p = NULL;
	uint32_t seed = 42;
	size_t off = 0, n;
	ferry_err e;

	memset(info, 0, sizeof(*info));
	assert_int_equal(xml_list_new(fn, arg, &p), FERRY_OK);
	e = FERRY_OK;
	if (mode == FEED_WHOLE)
		e = xml_list_feed(p, doc, len, 1);
	while (mode != FEED_WHOLE && e == FERRY_OK && off < len) {
		n = mode == FEED_BYTES ? 1 : 1 + lcg(&seed) % 700;
		n = n > len - off ? len - off : n;
		e = xml_list_feed(p, doc + off, n, 0);
		off += n;
	}
	if (mode != FEED_WHOLE && e == FERRY_OK)
		e = xml_list_feed(p, NULL, 0, 1);
	if (e == FERRY_OK)
		e = xml_list_finish(p, info);
	else
		assert_int_equal(xml_list_finish(p, info), e);
	xml_list_free(p);
	return e;
}

static void
check_list_case(const struct list_case *c, enum feed_mode mode)
{
	struct xml_list_info info;
	struct got *g = calloc(1, sizeof(*g));
	ferry_err e;
	size_t i;

	assert_non_null(g);
	g->stop_at = c->stop_at;
	e = run_list(c->doc, strlen(c->doc), mode, &info, on_entry, g);
	if (e != c->want || g->n != c->n)
		fail_msg("%s (mode %d): got %d with %zu entries (%s)", c->name,
		    (int)mode, (int)e, g->n, ferry_errmsg());
	for (i = 0; i < c->n; i++) {
		assert_int_equal(g->key_len[i], strlen(c->e[i].key));
		assert_memory_equal(g->key[i], c->e[i].key, g->key_len[i]);
		assert_true(g->size[i] == c->e[i].size);
		assert_string_equal(g->etag[i], c->e[i].etag);
		assert_string_equal(g->lm[i], c->e[i].lm);
	}
	if (e == FERRY_OK) {
		assert_int_equal(info.truncated, c->truncated);
		if (c->token)
			assert_string_equal(info.next_token, c->token);
		else
			assert_null(info.next_token);
		assert_int_equal(info.key_count, c->n);
		assert_null(info.common_prefixes_first);
	} else {
		assert_null(info.next_token);
		assert_int_equal(info.truncated, 0);
	}
	free(info.next_token);
	free(g);
}

static void
test_list_pages(void **state)
{
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++)
		for (m = 0; m < FEED_MODES; m++)
			check_list_case(&list_cases[i], (enum feed_mode)m);
}

struct count {
	uint64_t n;
	uint64_t bytes;
};

static int
count_entry(const struct xml_list_entry *e, void *arg)
{
	struct count *c = arg;

	c->n++;
	c->bytes += e->key_len + e->size;
	return 0;
}

/* A page of n keys as AWS sends it; each key is "<k>" repeated to klen. */
static void
build_page(struct buf *b, size_t n, int url, const char *k, size_t klen)
{
	size_t i, j;

	buf_init(b, 64u << 20);
	assert_int_equal(
	    buf_puts(b, LIST_OPEN "<Name>bucket</Name><Prefix/>"), FERRY_OK);
	if (url)
		assert_int_equal(
		    buf_puts(b, "<EncodingType>url</EncodingType>"), FERRY_OK);
	for (i = 0; i < n; i++) {
		assert_int_equal(buf_puts(b, "<Contents><Key>"), FERRY_OK);
		for (j = 0; j < klen; j++)
			assert_int_equal(buf_puts(b, k), FERRY_OK);
		assert_int_equal(buf_printf(b,
		                     "%06zu</Key><LastModified>" LM1
		                     "</LastModified><ETag>&quot;"
		                     "fba9dede5f27731c9771645a39863328&quot;"
		                     "</ETag><Size>%zu</Size>" OWNER
		                     "<StorageClass>STANDARD</StorageClass>"
		                     "</Contents>",
		                     i, i),
		    FERRY_OK);
	}
	assert_int_equal(buf_puts(b, "</ListBucketResult>"), FERRY_OK);
}

static void
test_list_big_page(void **state)
{
	struct xml_list_info info;
	struct count c[FEED_MODES];
	struct buf b;
	int m;

	(void)state;
	build_page(&b, 1000, 1, "photos%2F2024%2Fsummer+", 8);
	for (m = 0; m < FEED_MODES; m++) {
		memset(&c[m], 0, sizeof(c[m]));
		assert_int_equal(run_list(b.data, b.len, (enum feed_mode)m,
		                     &info, count_entry, &c[m]),
		    FERRY_OK);
		assert_int_equal(c[m].n, 1000);
		assert_int_equal(info.key_count, 1000);
		assert_true(c[m].bytes == c[0].bytes);
	}
	buf_free(&b);
}

/* Keys at and over XML_KEY_MAX, listed plain and url-encoded. */
static void
test_list_key_limits(void **state)
{
	static const struct {
		int url;
		const char *unit;
		size_t units; /* the key is units * unit + 6 digits */
		ferry_err want;
	} cases[] = {
	    {0, "a", XML_KEY_MAX - 6, FERRY_OK},
	    {0, "a", XML_KEY_MAX - 5, FERRY_EPARSE},
	    {1, "%41", XML_KEY_MAX - 6, FERRY_OK},
	    {1, "%41", XML_KEY_MAX - 5, FERRY_EPARSE},
	    {1, "%C3%A9", (XML_KEY_MAX - 6) / 2, FERRY_OK},
	    {0, "\xc3\xa9", (XML_KEY_MAX - 6) / 2 + 1, FERRY_EPARSE},
	    {1, "a", 4 * XML_KEY_MAX, FERRY_EPARSE},
	};
	struct xml_list_info info;
	struct count c;
	struct buf b;
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		build_page(&b, 2, cases[i].url, cases[i].unit, cases[i].units);
		for (m = 0; m < FEED_MODES; m++) {
			memset(&c, 0, sizeof(c));
			if (run_list(b.data, b.len, (enum feed_mode)m, &info,
			        count_entry, &c) != cases[i].want)
				fail_msg("key case %zu mode %d: %s", i, m,
				    ferry_errmsg());
			free(info.next_token);
		}
		buf_free(&b);
	}
}

/* Nothing is accepted after the last feed, and a page must end. */
static void
test_list_misuse(void **state)
{
	static const char doc[] = LIST_OPEN "</ListBucketResult>";
	struct xml_list_info info;
	struct xml_list *p;
	struct count c = {0, 0};

	(void)state;
	assert_int_equal(xml_list_new(count_entry, &c, &p), FERRY_OK);
	assert_int_equal(xml_list_feed(p, doc, 10, 0), FERRY_OK);
	assert_int_equal(xml_list_finish(p, &info), FERRY_EPARSE);
	assert_int_equal(
	    xml_list_feed(p, doc + 10, sizeof(doc) - 11, 1), FERRY_OK);
	assert_int_equal(xml_list_feed(p, "x", 1, 1), FERRY_EPARSE);
	xml_list_free(p);
	xml_list_free(NULL);
}

/* <Error> documents */

struct error_case {
	const char *name;
	const char *body;
	ferry_err want;
	const char *code, *message, *key, *region;
};

static const struct error_case error_cases[] = {
    {"aws NoSuchBucket",
        DECL "<Error><Code>NoSuchBucket</Code><Message>The specified bucket "
             "does not exist</Message><BucketName>nope</BucketName>"
             "<RequestId>4442587FB7D0A2F9</RequestId><HostId>Z1b1ZLuK6Z/"
             "vwYHQm7U5vVgWOIvOg=</HostId></Error>",
        FERRY_OK, "NoSuchBucket", "The specified bucket does not exist", NULL,
        NULL},
    {"ceph NoSuchBucket",
        DECL "<Error><Code>NoSuchBucket</Code><BucketName>nope</BucketName>"
             "<RequestId>tx00000b5f8e56d06e2b1c0-0065f1a2b3-1014-default"
             "</RequestId><HostId>1014-default-default</HostId></Error>",
        FERRY_OK, "NoSuchBucket", NULL, NULL, NULL},
    {"NoSuchKey with key",
        "<Error><Code>NoSuchKey</Code><Message>The specified key does not "
        "exist.</Message><Key>dir/a &amp; b</Key></Error>",
        FERRY_OK, "NoSuchKey", "The specified key does not exist.", "dir/a & b",
        NULL},
    {"wrong region",
        "<Error><Code>AuthorizationHeaderMalformed</Code><Message>the "
        "region 'us-east-1' is wrong; expecting 'eu-west-1'</Message>"
        "<Region>eu-west-1</Region></Error>",
        FERRY_OK, "AuthorizationHeaderMalformed",
        "the region 'us-east-1' is wrong; expecting 'eu-west-1'", NULL,
        "eu-west-1"},
    {"namespaced error",
        "<Error xmlns=\"" NS "\"><Code>SlowDown</Code></Error>", FERRY_OK,
        "SlowDown", NULL, NULL, NULL},
    {"empty code", "<Error><Code/></Error>", FERRY_OK, "", NULL, NULL, NULL},
    {"other root", DECL "<CopyObjectResult><ETag>x</ETag></CopyObjectResult>",
        FERRY_ENOTFOUND, NULL, NULL, NULL, NULL},
    {"html", "<html><body><h1>502 Bad Gateway</h1><hr></body></html>",
        FERRY_EPARSE, NULL, NULL, NULL, NULL},
    {"text", "Bad Gateway", FERRY_EPARSE, NULL, NULL, NULL, NULL},
    {"empty", "", FERRY_EPARSE, NULL, NULL, NULL, NULL},
    {"cut short", "<Error><Code>NoSuchKey</Code>", FERRY_EPARSE, NULL, NULL,
        NULL, NULL},
    {"code twice", "<Error><Code>A</Code><Code>B</Code></Error>", FERRY_EPARSE,
        NULL, NULL, NULL, NULL},
    {"doctype", "<!DOCTYPE Error><Error><Code>X</Code></Error>", FERRY_EPARSE,
        NULL, NULL, NULL, NULL},
};

static void
check_str(const char *got, const char *want)
{
	if (want == NULL)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

static void
test_error_docs(void **state)
{
	struct xml_error err;
	const struct error_case *c;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		c = &error_cases[i];
		e = xml_error_parse(c->body, strlen(c->body), &err);
		if (e != c->want)
			fail_msg(
			    "%s: got %d (%s)", c->name, (int)e, ferry_errmsg());
		check_str(err.code, c->code);
		check_str(err.message, c->message);
		check_str(err.key, c->key);
		check_str(err.region, c->region);
		xml_error_clear(&err);
		assert_null(err.code);
	}
	xml_error_clear(NULL);
}

/* What a 200's body must be for its request to count as failed. */
static void
test_is_error(void **state)
{
	static const struct {
		const char *body;
		int want;
	} cases[] = {
	    {"<Error><Code>InternalError</Code></Error>", 1},
	    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n"
	     "<Error><Code>SlowDown</Code></Error>",
	        1},
	    {" \r\n\t<Error>", 1}, /* the root's start tag is enough */
	    {"<Error xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">", 1},
	    {"<!-- c --><Error/>", 1},
	    {"<CopyObjectResult><ETag>\"e\"</ETag></CopyObjectResult>", 0},
	    {"<CompleteMultipartUploadResult><Error/>"
	     "</CompleteMultipartUploadResult>",
	        0},
	    {"<error/>", 0},
	    {"<Errors/>", 0},
	    {"<x:Error xmlns:x=\"u\"/>", 0},
	    {"<!DOCTYPE Error><Error/>", 0},
	    {"junk<Error/>", 0},
	    {"<Error", 0},
	    {"", 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (xml_is_error(cases[i].body, strlen(cases[i].body)) !=
		    cases[i].want)
			fail_msg("'%s': want %d", cases[i].body, cases[i].want);
	assert_int_equal(xml_is_error(NULL, 0), 0);
}

/*
 * SignatureDoesNotMatch as AWS sends it: the canonical request in hex runs
 * past XML_FIELD_MAX (ignored), and a message past it is cut, never lost,
 * on a UTF-8 boundary.
 */
static void
test_error_long(void **state)
{
	struct xml_error err;
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, 1u << 20);
	assert_int_equal(buf_puts(&b, DECL "<Error><Code>SignatureDoesNotMatch"
	                                   "</Code><Message>"),
	    FERRY_OK);
	for (i = 0; i < XML_FIELD_MAX - 1; i++)
		assert_int_equal(buf_puts(&b, "m"), FERRY_OK);
	assert_int_equal(buf_puts(&b, "\xc3\xa9 and more</Message>"
	                              "<AWSAccessKeyId>AKIAIOSFODNN7EXAMPLE"
	                              "</AWSAccessKeyId><StringToSign>AWS4-HMAC"
	                              "-SHA256\n20240101T000000Z</StringToSign>"
	                              "<CanonicalRequestBytes>"),
	    FERRY_OK);
	for (i = 0; i < 3000; i++)
		assert_int_equal(buf_puts(&b, "47 45 54 0a "), FERRY_OK);
	assert_int_equal(
	    buf_puts(&b, "</CanonicalRequestBytes></Error>"), FERRY_OK);
	assert_int_equal(xml_error_parse(b.data, b.len, &err), FERRY_OK);
	assert_string_equal(err.code, "SignatureDoesNotMatch");
	assert_int_equal(strlen(err.message), XML_FIELD_MAX - 1);
	xml_error_clear(&err);
	buf_free(&b);

	/* an over-long code is not an S3 reply */
	buf_init(&b, 1u << 20);
	assert_int_equal(buf_puts(&b, "<Error><Code>"), FERRY_OK);
	for (i = 0; i < XML_FIELD_MAX + 1; i++)
		assert_int_equal(buf_puts(&b, "C"), FERRY_OK);
	assert_int_equal(buf_puts(&b, "</Code></Error>"), FERRY_OK);
	assert_int_equal(xml_error_parse(b.data, b.len, &err), FERRY_EPARSE);
	assert_null(err.code);
	buf_free(&b);
}

/* Initiate, Complete and Copy replies */

enum reply_kind { R_INITIATE, R_COMPLETE, R_COPY };

struct reply_case {
	const char *name;
	enum reply_kind kind;
	const char *body;
	ferry_err want;
	const char *value; /* UploadId or ETag */
	const char *lm;    /* copies */
	const char *code;  /* for FERRY_ES3 */
};

static const struct reply_case reply_cases[] = {
    {"initiate", R_INITIATE,
        DECL "<InitiateMultipartUploadResult xmlns=\"" NS "\"><Bucket>b"
             "</Bucket><Key>big.iso</Key><UploadId>VXBsb2FkIElEIGZvciA2aWWpb"
             "mcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA</UploadId>"
             "</InitiateMultipartUploadResult>",
        FERRY_OK, "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA",
        NULL, NULL},
    {"initiate ceph", R_INITIATE,
        DECL "<InitiateMultipartUploadResult xmlns=\"" NS "\"><Tenant/>"
             "<Bucket>b</Bucket><Key>k</Key><UploadId>2~iCw_lDY8VoNdVb8i2"
             "4Wr3O5XSgrCb</UploadId></InitiateMultipartUploadResult>",
        FERRY_OK, "2~iCw_lDY8VoNdVb8i24Wr3O5XSgrCb", NULL, NULL},
    {"initiate error", R_INITIATE,
        "<Error><Code>AccessDenied</Code><Message>Access Denied</Message>"
        "</Error>",
        FERRY_ES3, NULL, NULL, "AccessDenied"},
    {"initiate without id", R_INITIATE,
        "<InitiateMultipartUploadResult><UploadId></UploadId>"
        "</InitiateMultipartUploadResult>",
        FERRY_EPARSE, NULL, NULL, NULL},
    {"complete", R_COMPLETE,
        DECL "<CompleteMultipartUploadResult xmlns=\"" NS "\"><Location>"
             "https://b.s3.amazonaws.com/k</Location><Bucket>b</Bucket><Key>k"
             "</Key><ETag>&quot;3858f62230ac3c915f300c664312c11f-9&quot;"
             "</ETag></CompleteMultipartUploadResult>",
        FERRY_OK, "\"3858f62230ac3c915f300c664312c11f-9\"", NULL, NULL},
    {"complete kept alive with blanks", R_COMPLETE,
        "\n \n \n" DECL "<CompleteMultipartUploadResult><ETag>&quot;e-2&quot;"
        "</ETag></CompleteMultipartUploadResult>",
        FERRY_OK, "\"e-2\"", NULL, NULL},
    {"complete 200 that is an error", R_COMPLETE,
        "\n \n" DECL "<Error><Code>InternalError</Code><Message>We "
        "encountered an internal error. Please try again.</Message>"
        "<RequestId>656c76696e6727732072657175657374</RequestId><HostId>"
        "Uuag1LuByRx9e6j5Onimru9pO4ZVKnJ2Qz7/C1NPcfTWAtRPfTaOFg==</HostId>"
        "</Error>",
        FERRY_ES3, NULL, NULL, "InternalError"},
    {"complete empty etag", R_COMPLETE,
        "<CompleteMultipartUploadResult><Key>k</Key><ETag></ETag>"
        "</CompleteMultipartUploadResult>",
        FERRY_OK, "", NULL, NULL},
    {"complete no etag", R_COMPLETE, "<CompleteMultipartUploadResult/>",
        FERRY_OK, "", NULL, NULL},
    {"complete wrong root", R_COMPLETE, "<CopyObjectResult/>", FERRY_EPARSE,
        NULL, NULL, NULL},
    {"complete cut short", R_COMPLETE, "<CompleteMultipartUploadResult>",
        FERRY_EPARSE, NULL, NULL, NULL},
    {"copy object", R_COPY,
        DECL "<CopyObjectResult xmlns=\"" NS "\"><LastModified>"
             "2009-10-28T22:32:00.000Z</LastModified><ETag>&quot;"
             "9b2cf535f27731c974343645a3985328&quot;</ETag>"
             "</CopyObjectResult>",
        FERRY_OK, "\"9b2cf535f27731c974343645a3985328\"",
        "2009-10-28T22:32:00.000Z", NULL},
    {"copy part", R_COPY,
        DECL "<CopyPartResult><LastModified>2011-04-11T20:34:56.000Z"
             "</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328"
             "&quot;</ETag></CopyPartResult>",
        FERRY_OK, "\"9b2cf535f27731c974343645a3985328\"",
        "2011-04-11T20:34:56.000Z", NULL},
    {"copy without date", R_COPY,
        "<CopyPartResult><ETag>e</ETag>"
        "</CopyPartResult>",
        FERRY_OK, "e", "", NULL},
    {"copy 200 that is an error", R_COPY,
        "<Error><Code>SlowDown</Code><Message>Please reduce your request "
        "rate.</Message></Error>",
        FERRY_ES3, NULL, NULL, "SlowDown"},
    {"copy without etag", R_COPY,
        "<CopyObjectResult><LastModified>x"
        "</LastModified></CopyObjectResult>",
        FERRY_EPARSE, NULL, NULL, NULL},
    {"copy doctype", R_COPY,
        "<!DOCTYPE CopyObjectResult [<!ENTITY e \"x\">]><CopyObjectResult>"
        "<ETag>&e;</ETag></CopyObjectResult>",
        FERRY_EPARSE, NULL, NULL, NULL},
};

static ferry_err
run_reply(
    const struct reply_case *c, char **value, char **lm, struct xml_error *err)
{
	size_t len = strlen(c->body);

	*lm = NULL;
	switch (c->kind) {
	case R_INITIATE:
		return xml_initiate_parse(c->body, len, value, err);
	case R_COMPLETE:
		return xml_complete_parse(c->body, len, value, err);
	case R_COPY:
		return xml_copy_parse(c->body, len, value, lm, err);
	}
	return FERRY_EUSAGE;
}

static void
test_replies(void **state)
{
	const struct reply_case *c;
	struct xml_error err;
	char *value, *lm;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(reply_cases) / sizeof(reply_cases[0]); i++) {
		c = &reply_cases[i];
		e = run_reply(c, &value, &lm, &err);
		if (e != c->want)
			fail_msg(
			    "%s: got %d (%s)", c->name, (int)e, ferry_errmsg());
		check_str(value, c->value);
		check_str(lm, c->lm);
		check_str(err.code, c->code);
		if (e == FERRY_ES3)
			assert_non_null(strstr(ferry_errmsg(), c->code));
		free(value);
		free(lm);
		xml_error_clear(&err);
	}
	/* err may be NULL */
	assert_int_equal(
	    xml_complete_parse("<Error/>", 8, &value, NULL), FERRY_ES3);
	assert_null(value);
}

/* ListParts */

struct parts_got {
	size_t n;
	struct xml_part p[4];
};

static int
on_part(const struct xml_part *p, void *arg)
{
	struct parts_got *g = arg;

	assert_true(g->n < 4);
	g->p[g->n++] = *p;
	return 0;
}

#define PART(n, etag, size)                                                    \
	"<Part><PartNumber>" n "</PartNumber><LastModified>"                   \
	"2010-11-10T20:48:34.000Z</LastModified><ETag>&quot;" etag "&quot;"    \
	"</ETag><Size>" size "</Size></Part>"

struct parts_case {
	const char *name;
	const char *body;
	ferry_err want;
	size_t n;
	uint32_t number[4];
	uint64_t size[4];
	const char *etag[4];
	int truncated;
	uint32_t next;
};

static const struct parts_case parts_cases[] = {
    {"truncated",
        DECL "<ListPartsResult xmlns=\"" NS "\"><Bucket>b</Bucket><Key>k"
             "</Key><UploadId>XXBsb2FkIElEIGZvciBlbHZpbmcncyVcdS1tb3ZpZS5tMn"
             "RzEEEwbG9hZA</UploadId><Initiator><ID>arn:aws:iam::1:user/u"
             "</ID><DisplayName>u</DisplayName></Initiator>" OWNER
             "<StorageClass>STANDARD</StorageClass><PartNumberMarker>1"
             "</PartNumberMarker><NextPartNumberMarker>3"
             "</NextPartNumberMarker><MaxParts>2</MaxParts><IsTruncated>true"
             "</IsTruncated>" PART("2", "7778aef83f66abc1fa1e8477f296d394",
                 "10485760") PART("3", "aaaa18db4cc2f85cedef654fccc4a4x8",
                 "10485760") "</ListPartsResult>",
        FERRY_OK, 2, {2, 3}, {10485760, 10485760},
        {"\"7778aef83f66abc1fa1e8477f296d394\"",
            "\"aaaa18db4cc2f85cedef654fccc4a4x8\""},
        1, 3},
    {"last page",
        "<ListPartsResult><IsTruncated>false</IsTruncated>" PART(
            "10000", "e", "5") "</ListPartsResult>",
        FERRY_OK, 1, {10000}, {5}, {"\"e\""}, 0, 0},
    {"no parts", "<ListPartsResult/>", FERRY_OK, 0, {0}, {0}, {NULL}, 0, 0},
    {"truncated without marker",
        "<ListPartsResult><IsTruncated>true</IsTruncated></ListPartsResult>",
        FERRY_EPARSE, 0, {0}, {0}, {NULL}, 0, 0},
    {"part zero", "<ListPartsResult>" PART("0", "e", "5") "</ListPartsResult>",
        FERRY_EPARSE, 0, {0}, {0}, {NULL}, 0, 0},
    {"part number too large",
        "<ListPartsResult>" PART("4294967296", "e", "5") "</ListPartsResult>",
        FERRY_EPARSE, 0, {0}, {0}, {NULL}, 0, 0},
    {"etag too long",
        "<ListPartsResult>" PART("1",
            "0123456789012345678901234567890123456789"
            "0123456789012345678901234567890123456789",
            "5") "</ListPartsResult>",
        FERRY_EPARSE, 0, {0}, {0}, {NULL}, 0, 0},
    {"error", "<Error><Code>NoSuchUpload</Code></Error>", FERRY_ES3, 0, {0},
        {0}, {NULL}, 0, 0},
};

static void
test_list_parts(void **state)
{
	const struct parts_case *c;
	struct parts_got g;
	uint32_t next;
	size_t i, j;
	int trunc;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(parts_cases) / sizeof(parts_cases[0]); i++) {
		c = &parts_cases[i];
		memset(&g, 0, sizeof(g));
		e = xml_list_parts_parse(
		    c->body, strlen(c->body), on_part, &g, &trunc, &next);
		if (e != c->want || g.n != c->n)
			fail_msg("%s: got %d, %zu parts (%s)", c->name, (int)e,
			    g.n, ferry_errmsg());
		for (j = 0; j < c->n; j++) {
			assert_int_equal(g.p[j].number, c->number[j]);
			assert_true(g.p[j].size == c->size[j]);
			assert_string_equal(g.p[j].etag, c->etag[j]);
		}
		assert_int_equal(trunc, c->truncated);
		assert_int_equal(next, c->next);
	}
}

/* ListMultipartUploads */

struct uploads_got {
	size_t n;
	char key[4][64];
	char id[4][64];
};

static int
on_upload(const struct xml_upload *u, void *arg)
{
	struct uploads_got *g = arg;

	assert_true(g->n < 4);
	assert_int_equal(strlen(u->key), u->key_len);
	snprintf(g->key[g->n], sizeof(g->key[0]), "%s", u->key);
	snprintf(g->id[g->n], sizeof(g->id[0]), "%s", u->upload_id);
	g->n++;
	return 0;
}

#define UPLOAD(k, id)                                                          \
	"<Upload><Key>" k "</Key><UploadId>" id "</UploadId><Initiator><ID>"   \
	"arn:aws:iam::111122223333:user/u</ID><DisplayName>u</DisplayName>"    \
	"</Initiator>" OWNER "<StorageClass>STANDARD</StorageClass>"           \
	"<Initiated>2010-11-10T20:48:33.000Z</Initiated></Upload>"

struct uploads_case {
	const char *name;
	const char *body;
	ferry_err want;
	size_t n;
	const char *key[4];
	const char *id[4];
	int truncated;
	const char *next_key, *next_id;
};

static const struct uploads_case uploads_cases[] = {
    {"truncated, url",
        DECL "<ListMultipartUploadsResult xmlns=\"" NS "\"><Bucket>b"
             "</Bucket><KeyMarker></KeyMarker><UploadIdMarker>"
             "</UploadIdMarker><NextKeyMarker>my+movie.m2ts</NextKeyMarker>"
             "<NextUploadIdMarker>YW55IGlkZWEgd2h5IGVsdmluZydzIHVwbG9hZCBm"
             "YWlsZWQ</NextUploadIdMarker><EncodingType>url</EncodingType>"
             "<MaxUploads>2</MaxUploads><IsTruncated>true</IsTruncated>" UPLOAD(
                 "my%20divisor", "XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2gg"
                                 "bHVjaw") UPLOAD("my+movie.m2ts",
                 "VXBsb2FkIElEIGZvciBlbHZpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZ"
                 "A") "</ListMultipartUploadsResult>",
        FERRY_OK, 2, {"my divisor", "my movie.m2ts"},
        {"XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2ggbHVjaw",
            "VXBsb2FkIElEIGZvciBlbHZpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA"},
        1, "my movie.m2ts", "YW55IGlkZWEgd2h5IGVsdmluZydzIHVwbG9hZCBmYWlsZWQ"},
    {"last page",
        "<ListMultipartUploadsResult><IsTruncated>false</IsTruncated>" UPLOAD(
            "a+b", "id1") "</ListMultipartUploadsResult>",
        FERRY_OK, 1, {"a+b"}, {"id1"}, 0, NULL, NULL},
    {"none", "<ListMultipartUploadsResult/>", FERRY_OK, 0, {NULL}, {NULL}, 0,
        NULL, NULL},
    {"truncated without marker",
        "<ListMultipartUploadsResult><IsTruncated>true</IsTruncated>"
        "</ListMultipartUploadsResult>",
        FERRY_EPARSE, 0, {NULL}, {NULL}, 0, NULL, NULL},
    {"upload without id",
        "<ListMultipartUploadsResult><Upload><Key>k</Key></Upload>"
        "</ListMultipartUploadsResult>",
        FERRY_EPARSE, 0, {NULL}, {NULL}, 0, NULL, NULL},
    {"encoding after uploads",
        "<ListMultipartUploadsResult>" UPLOAD(
            "k", "i") "<EncodingType>url</EncodingType></"
                      "ListMultipartUploadsResult>",
        FERRY_EPARSE, 1, {"k"}, {"i"}, 0, NULL, NULL},
    {"error", "<Error><Code>AccessDenied</Code></Error>", FERRY_ES3, 0, {NULL},
        {NULL}, 0, NULL, NULL},
};

static void
test_list_uploads(void **state)
{
	const struct uploads_case *c;
	struct uploads_got g;
	char *nk, *ni;
	size_t i, j;
	int trunc;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(uploads_cases) / sizeof(uploads_cases[0]); i++) {
		c = &uploads_cases[i];
		memset(&g, 0, sizeof(g));
		e = xml_list_uploads_parse(
		    c->body, strlen(c->body), on_upload, &g, &trunc, &nk, &ni);
		if (e != c->want || g.n != c->n)
			fail_msg("%s: got %d, %zu uploads (%s)", c->name,
			    (int)e, g.n, ferry_errmsg());
		for (j = 0; j < c->n; j++) {
			assert_string_equal(g.key[j], c->key[j]);
			assert_string_equal(g.id[j], c->id[j]);
		}
		assert_int_equal(trunc, c->truncated);
		check_str(nk, c->next_key);
		check_str(ni, c->next_id);
		free(nk);
		free(ni);
	}
}

/* DeleteObjects results */

struct deleted_got {
	size_t n;
	char line[6][128];
};

static int
on_deleted(const struct xml_deleted *d, void *arg)
{
	struct deleted_got *g = arg;

	assert_true(g->n < 6);
	assert_int_equal(strlen(d->key), d->key_len);
	if (d->ok)
		snprintf(g->line[g->n++], sizeof(g->line[0]), "ok %s", d->key);
	else
		snprintf(g->line[g->n++], sizeof(g->line[0]), "error %s %s %s",
		    d->key, d->code, d->message);
	return 0;
}

struct delete_case {
	const char *name;
	const char *body;
	ferry_err want;
	size_t n;
	const char *line[6];
};

static const struct delete_case delete_cases[] = {
    {"mixed",
        DECL "<DeleteResult xmlns=\"" NS "\"><Deleted><Key>sample1.txt</Key>"
             "</Deleted><Error><Key>sample2.txt</Key><Code>AccessDenied"
             "</Code><Message>Access Denied</Message></Error><Deleted><Key>"
             "a &amp; b</Key><VersionId>null</VersionId></Deleted><Error>"
             "<Code>InternalError</Code><Key>c</Key></Error></DeleteResult>",
        FERRY_OK, 4,
        {"ok sample1.txt", "error sample2.txt AccessDenied Access Denied",
            "ok a & b", "error c InternalError "}},
    {"empty", "<DeleteResult/>", FERRY_OK, 0, {NULL}},
    {"deleted without key", "<DeleteResult><Deleted/></DeleteResult>",
        FERRY_EPARSE, 0, {NULL}},
    {"whole request failed",
        "<Error><Code>MalformedXML</Code><Message>The XML you provided was "
        "not well-formed</Message></Error>",
        FERRY_ES3, 0, {NULL}},
    {"bomb",
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
        "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">"
        "]><DeleteResult><Deleted><Key>&lol3;</Key></Deleted></DeleteResult>",
        FERRY_EPARSE, 0, {NULL}},
};

static void
test_delete_result(void **state)
{
	const struct delete_case *c;
	struct deleted_got g;
	size_t i, j;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(delete_cases) / sizeof(delete_cases[0]); i++) {
		c = &delete_cases[i];
		memset(&g, 0, sizeof(g));
		e = xml_delete_result_parse(
		    c->body, strlen(c->body), on_deleted, &g);
		if (e != c->want || g.n != c->n)
			fail_msg("%s: got %d, %zu results (%s)", c->name,
			    (int)e, g.n, ferry_errmsg());
		for (j = 0; j < c->n; j++)
			assert_string_equal(g.line[j], c->line[j]);
	}
}

/* Hostile documents, given to every parser. */

static const char *const hostile[] = {
    /* billion laughs */
    "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
    "<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
    "<!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">"
    "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">"
    "<!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">"
    "]><Error><Code>&lol4;</Code></Error>",
    /* external entity */
    "<?xml version=\"1.0\"?><!DOCTYPE Error [<!ENTITY x SYSTEM "
    "\"file:///etc/passwd\">]><Error><Code>&x;</Code></Error>",
    /* parameter entity */
    "<!DOCTYPE Error [<!ENTITY % p SYSTEM \"http://127.0.0.1/x.dtd\"> %p;]>"
    "<Error/>",
    /* external DTD */
    "<!DOCTYPE Error SYSTEM \"http://127.0.0.1/x.dtd\"><Error/>",
    /* an entity used without a DTD */
    "<Error><Code>&x;</Code></Error>",
    /* quadratic blowup needs a DTD too */
    "<!DOCTYPE r [<!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">"
    "]><ListBucketResult><Contents><Key>&a;&a;&a;&a;&a;&a;&a;</Key>"
    "</Contents></ListBucketResult>",
};

static void
test_hostile(void **state)
{
	struct xml_list_info info;
	struct xml_error err;
	struct count c = {0, 0};
	char *a, *b;
	uint32_t next;
	int trunc;
	size_t i, len;
	int m;

	(void)state;
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		len = strlen(hostile[i]);
		for (m = 0; m < FEED_MODES; m++)
			assert_int_equal(
			    run_list(hostile[i], len, (enum feed_mode)m, &info,
			        count_entry, &c),
			    FERRY_EPARSE);
		assert_int_equal(
		    xml_error_parse(hostile[i], len, &err), FERRY_EPARSE);
		assert_int_equal(xml_initiate_parse(hostile[i], len, &a, &err),
		    FERRY_EPARSE);
		assert_int_equal(xml_complete_parse(hostile[i], len, &a, &err),
		    FERRY_EPARSE);
		assert_int_equal(xml_copy_parse(hostile[i], len, &a, &b, &err),
		    FERRY_EPARSE);
		assert_int_equal(xml_list_parts_parse(hostile[i], len, NULL,
		                     NULL, &trunc, &next),
		    FERRY_EPARSE);
		assert_int_equal(xml_list_uploads_parse(hostile[i], len, NULL,
		                     NULL, &trunc, &a, &b),
		    FERRY_EPARSE);
		assert_int_equal(
		    xml_delete_result_parse(hostile[i], len, NULL, NULL),
		    FERRY_EPARSE);
	}
}

/* Request bodies */

#define DELETE_OPEN "<Delete xmlns=\"" NS "\"><Quiet>false</Quiet>"

struct body_case {
	const char *name;
	const char *key;
	size_t len;
	ferry_err want;
	const char *escaped;
};

static const struct body_case body_cases[] = {
    {"plain", "dir/file.txt", 12, FERRY_OK, "dir/file.txt"},
    {"markup", "a&b<c>d\"e'f", 11, FERRY_OK, "a&amp;b&lt;c&gt;d&quot;e&apos;f"},
    {"controls", "t\tn\nr\rdel\x7f", 10, FERRY_OK,
        "t&#9;n&#10;r&#13;del&#127;"},
    {"c1 control", "x\xc2\x85y", 4, FERRY_OK, "x&#133;y"},
    {"utf-8", "caf\xc3\xa9 \xf0\x9f\x98\x80", 10, FERRY_OK,
        "caf\xc3\xa9 \xf0\x9f\x98\x80"},
    {"xml 1.0 cannot carry SOH", "a\x01", 2, FERRY_EPARSE, NULL},
    {"NUL", "a\0b", 3, FERRY_EPARSE, NULL},
    {"bad utf-8", "a\xff", 2, FERRY_EPARSE, NULL},
    {"cut utf-8", "a\xc3", 2, FERRY_EPARSE, NULL},
    {"overlong", "\xc0\xaf", 2, FERRY_EPARSE, NULL},
    {"surrogate", "\xed\xa0\x80", 3, FERRY_EPARSE, NULL},
    {"U+FFFE", "\xef\xbf\xbe", 3, FERRY_EPARSE, NULL},
    {"past U+10FFFF", "\xf4\x90\x80\x80", 4, FERRY_EPARSE, NULL},
};

static void
test_delete_body(void **state)
{
	const struct body_case *c;
	struct buf b, want;
	const char *keys[2];
	size_t lens[2], i;
	ferry_err e;

	(void)state;
	buf_init(&b, 1u << 20);
	buf_init(&want, 1u << 20);
	for (i = 0; i < sizeof(body_cases) / sizeof(body_cases[0]); i++) {
		c = &body_cases[i];
		keys[0] = "first";
		lens[0] = 5;
		keys[1] = c->key;
		lens[1] = c->len;
		e = xml_delete_body(&b, keys, lens, NULL, 2);
		if (e != c->want)
			fail_msg("%s: got %d", c->name, (int)e);
		if (e != FERRY_OK) {
			assert_int_equal(b.len, 0);
			continue;
		}
		buf_reset(&want);
		assert_int_equal(
		    buf_printf(&want,
		        DELETE_OPEN "<Object><Key>first</Key>"
		                    "</Object><Object><Key>%s</Key>"
		                    "</Object></Delete>",
		        c->escaped),
		    FERRY_OK);
		assert_string_equal(b.data, want.data);
	}
	keys[0] = "a&b";
	assert_int_equal(xml_delete_body(&b, keys, NULL, NULL, 1), FERRY_OK);
	assert_string_equal(b.data, DELETE_OPEN "<Object><Key>a&amp;b</Key>"
	                                        "</Object></Delete>");
	assert_int_equal(
	    xml_delete_body(&b, keys, NULL, NULL, 0), FERRY_EUSAGE);
	assert_int_equal(
	    xml_delete_body(&b, keys, NULL, NULL, 1001), FERRY_EUSAGE);
	buf_free(&b);
	buf_free(&want);
}

/* Each key's listed ETag goes along as its condition; "" or NULL: none. */
static void
test_delete_body_etags(void **state)
{
	static const char *const keys[] = {"a", "b", "c"};
	static const char *const etags[] = {
	    "\"0c78aef83f66abc1fa1e8477f296d394\"", "", NULL};
	struct buf b;

	(void)state;
	buf_init(&b, 1u << 20);
	assert_int_equal(xml_delete_body(&b, keys, NULL, etags, 3), FERRY_OK);
	assert_string_equal(b.data,
	    DELETE_OPEN "<Object><Key>a</Key><ETag>&quot;"
	                "0c78aef83f66abc1fa1e8477f296d394&quot;</ETag>"
	                "</Object><Object><Key>b</Key></Object><Object>"
	                "<Key>c</Key></Object></Delete>");
	buf_free(&b);
}

static void
test_complete_body(void **state)
{
	static const char *const etags[] = {
	    "\"a54357aff0632cce46d942af68356b38\"", "\"0c78aef83f66abc1fa1e\"",
	    NULL};
	struct buf b;

	(void)state;
	buf_init(&b, 1u << 20);
	assert_int_equal(buf_puts(&b, "stale"), FERRY_OK);
	assert_int_equal(xml_complete_body(&b, etags, 2), FERRY_OK);
	assert_string_equal(b.data,
	    "<CompleteMultipartUpload xmlns=\"" NS "\"><Part><PartNumber>1"
	    "</PartNumber><ETag>&quot;a54357aff0632cce46d942af68356b38&quot;"
	    "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>&quot;"
	    "0c78aef83f66abc1fa1e&quot;</ETag></Part>"
	    "</CompleteMultipartUpload>");
	assert_int_equal(xml_complete_body(&b, etags, 3), FERRY_EUSAGE);
	assert_int_equal(b.len, 0);
	assert_int_equal(xml_complete_body(&b, etags, 0), FERRY_EUSAGE);
	assert_int_equal(xml_complete_body(&b, etags, 10001), FERRY_EUSAGE);
	buf_free(&b);

	/* a body past the caller's limit is refused, not cut */
	buf_init(&b, 64);
	assert_int_equal(xml_complete_body(&b, etags, 2), FERRY_EPARSE);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

/* Appends the <Key>..</Key> of a one-key delete body to reply. */
static void
echo_key(struct buf *reply, const char *key)
{
	struct buf b;
	const char *k, *end;

	buf_init(&b, 1u << 20);
	assert_int_equal(xml_delete_body(&b, &key, NULL, NULL, 1), FERRY_OK);
	k = strstr(b.data, "<Key>");
	end = strstr(b.data, "</Object>");
	assert_non_null(k);
	assert_non_null(end);
	assert_int_equal(buf_puts(reply, "<Deleted>"), FERRY_OK);
	assert_int_equal(buf_append(reply, k, (size_t)(end - k)), FERRY_OK);
	assert_int_equal(buf_puts(reply, "</Deleted>"), FERRY_OK);
	buf_free(&b);
}

/* What the body builder writes, a parser reads back byte for byte. */
static void
test_round_trip(void **state)
{
	static const char *const keys[] = {
	    "a&b", "t\tx\r\n", "caf\xc3\xa9", "<Key>", "'q\"", "\xc2\x85"};
	struct deleted_got g;
	struct buf reply;
	size_t i;

	(void)state;
	buf_init(&reply, 1u << 20);
	assert_int_equal(buf_puts(&reply, "<DeleteResult>"), FERRY_OK);
	for (i = 0; i < 6; i++)
		echo_key(&reply, keys[i]);
	assert_int_equal(buf_puts(&reply, "</DeleteResult>"), FERRY_OK);
	memset(&g, 0, sizeof(g));
	assert_int_equal(
	    xml_delete_result_parse(reply.data, reply.len, on_deleted, &g),
	    FERRY_OK);
	assert_int_equal(g.n, 6);
	for (i = 0; i < 6; i++) {
		assert_memory_equal(g.line[i], "ok ", 3);
		assert_string_equal(g.line[i] + 3, keys[i]);
	}
	buf_free(&reply);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_pages),
	    cmocka_unit_test(test_list_big_page),
	    cmocka_unit_test(test_list_key_limits),
	    cmocka_unit_test(test_list_misuse),
	    cmocka_unit_test(test_error_docs),
	    cmocka_unit_test(test_is_error),
	    cmocka_unit_test(test_error_long),
	    cmocka_unit_test(test_replies),
	    cmocka_unit_test(test_list_parts),
	    cmocka_unit_test(test_list_uploads),
	    cmocka_unit_test(test_delete_result),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_delete_body),
	    cmocka_unit_test(test_delete_body_etags),
	    cmocka_unit_test(test_complete_body),
	    cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
