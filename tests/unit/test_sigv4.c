/*
 * test_sigv4.c: the SigV4 signer against the worked examples of AWS's S3
 * documentation ("Signature Calculations for the Authorization Header:
 * Transferring Payload in a Single Chunk"), and tables for the URI
 * encoding, decoding and canonicalization rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/sigv4.h"
#include "remote/url.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define LIMIT (1 << 20)

#define EX_AKID "AKIAIOSFODNN7EXAMPLE"
#define EX_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define EX_DATE "20130524T000000Z"
#define EX_HOST "examplebucket.s3.amazonaws.com"
#define EMPTY_SHA                                                              \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define PUT_SHA                                                                \
	"44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"

struct example {
	const char *name;
	const char *method;
	const char *path;
	struct sigv4_pair query[4];
	size_t nquery;
	struct sigv4_pair headers[8];
	size_t nheaders;
	const char *payload_hash;
	const char *canonical;
	const char *signed_headers;
	const char *signature;
};

/*
 * Headers are listed out of order and in mixed case on purpose: the
 * signer must sort and lowercase them to reach the documented text.
 */
static const struct example examples[] = {
    {"GET Object with Range", "GET", "/test.txt", {{0}}, 0,
        {{"X-Amz-Date", EX_DATE}, {"Range", "bytes=0-9"},
            {"x-amz-content-sha256", EMPTY_SHA}, {"Host", EX_HOST}},
        4, EMPTY_SHA,
        "GET\n/test.txt\n\n"
        "host:" EX_HOST "\n"
        "range:bytes=0-9\n"
        "x-amz-content-sha256:" EMPTY_SHA "\n"
        "x-amz-date:" EX_DATE "\n\n"
        "host;range;x-amz-content-sha256;x-amz-date\n" EMPTY_SHA,
        "host;range;x-amz-content-sha256;x-amz-date",
        "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
    {"PUT Object", "PUT", "/test$file.text", {{0}}, 0,
        {{"x-amz-storage-class", "REDUCED_REDUNDANCY"},
            {"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"Host", EX_HOST},
            {"x-amz-date", EX_DATE}, {"x-amz-content-sha256", PUT_SHA}},
        5, PUT_SHA,
        "PUT\n/test%24file.text\n\n"
        "date:Fri, 24 May 2013 00:00:00 GMT\n"
        "host:" EX_HOST "\n"
        "x-amz-content-sha256:" PUT_SHA "\n"
        "x-amz-date:" EX_DATE "\n"
        "x-amz-storage-class:REDUCED_REDUNDANCY\n\n"
        "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-"
        "class\n" PUT_SHA,
        "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
        "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"},
    {"GET Bucket Lifecycle", "GET", "/", {{"lifecycle", ""}}, 1,
        {{"x-amz-date", EX_DATE}, {"host", EX_HOST},
            {"x-amz-content-sha256", EMPTY_SHA}},
        3, EMPTY_SHA,
        "GET\n/\nlifecycle=\n"
        "host:" EX_HOST "\n"
        "x-amz-content-sha256:" EMPTY_SHA "\n"
        "x-amz-date:" EX_DATE "\n\n"
        "host;x-amz-content-sha256;x-amz-date\n" EMPTY_SHA,
        "host;x-amz-content-sha256;x-amz-date",
        "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
    {"Get Bucket (List Objects)", "GET", "/",
        {{"prefix", "J"}, {"max-keys", "2"}}, 2,
        {{"host", EX_HOST}, {"x-amz-date", EX_DATE},
            {"x-amz-content-sha256", EMPTY_SHA}},
        3, EMPTY_SHA,
        "GET\n/\nmax-keys=2&prefix=J\n"
        "host:" EX_HOST "\n"
        "x-amz-content-sha256:" EMPTY_SHA "\n"
        "x-amz-date:" EX_DATE "\n\n"
        "host;x-amz-content-sha256;x-amz-date\n" EMPTY_SHA,
        "host;x-amz-content-sha256;x-amz-date",
        "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
};

static struct sigv4_request
example_request(const struct example *ex)
{
	struct sigv4_request r = {
	    .method = ex->method,
	    .path = ex->path,
	    .query = ex->query,
	    .nquery = ex->nquery,
	    .headers = ex->headers,
	    .nheaders = ex->nheaders,
	    .payload_hash = ex->payload_hash,
	    .amz_date = EX_DATE,
	    .region = "us-east-1",
	    .service = "s3",
	};

	return r;
}

/* The AWS examples, signed with algs (or fetching for each call). */
static void
check_aws_examples(struct sigv4_algs *algs)
{
	struct sigv4_request r;
	struct buf b;
	uint8_t key[32];
	char want[512];
	size_t i;

	assert_int_equal(
	    sigv4_signing_key(EX_SECRET, "20130524", "us-east-1", "s3", key),
	    FERRY_OK);
	buf_init(&b, LIMIT);
	for (i = 0; i < NELEM(examples); i++) {
		r = example_request(&examples[i]);
		r.algs = algs;
		print_message("%s\n", examples[i].name);
		buf_reset(&b);
		assert_int_equal(sigv4_canonical_request(&r, &b), FERRY_OK);
		assert_string_equal(b.data, examples[i].canonical);
		/* The same buffer is reused for the signature. */
		buf_reset(&b);
		assert_int_equal(
		    sigv4_authorization(&r, EX_AKID, key, &b), FERRY_OK);
		snprintf(want, sizeof(want),
		    "AWS4-HMAC-SHA256 Credential=" EX_AKID
		    "/20130524/us-east-1/s3/aws4_request, SignedHeaders=%s, "
		    "Signature=%s",
		    examples[i].signed_headers, examples[i].signature);
		assert_string_equal(b.data, want);
		assert_int_equal(b.len, strlen(want));
	}
	buf_free(&b);
}

static void
test_aws_examples(void **state)
{
	struct sigv4_algs algs;

	(void)state;
	check_aws_examples(NULL);
	assert_int_equal(sigv4_algs_init(&algs), FERRY_OK);
	check_aws_examples(&algs);
	sigv4_algs_clear(&algs);
	sigv4_algs_clear(&algs); /* twice: cleared means empty */
}

/*
 * One algs signs request after request while the key changes under it:
 * the same array is rewritten, as a credentials refresh would, so the
 * cached HMAC pads must follow the key bytes.  Each value must equal the
 * one signed without algs.
 */
static void
test_algs_rekey(void **state)
{
	static const int order[] = {0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1};
	struct sigv4_algs algs;
	struct sigv4_request r;
	struct buf got, want;
	uint8_t keys[2][32], key[32], zero[32] = {0};
	size_t i;

	(void)state;
	assert_int_equal(sigv4_signing_key(
	                     EX_SECRET, "20130524", "us-east-1", "s3", keys[0]),
	    FERRY_OK);
	assert_int_equal(sigv4_signing_key("another secret", "20130524",
	                     "us-east-1", "s3", keys[1]),
	    FERRY_OK);
	assert_int_equal(sigv4_algs_init(&algs), FERRY_OK);
	buf_init(&got, LIMIT);
	buf_init(&want, LIMIT);
	for (i = 0; i < NELEM(order); i++) {
		memcpy(key, keys[order[i]], sizeof(key));
		r = example_request(&examples[i % NELEM(examples)]);
		buf_reset(&want);
		assert_int_equal(
		    sigv4_authorization(&r, EX_AKID, key, &want), FERRY_OK);
		r.algs = &algs;
		buf_reset(&got);
		assert_int_equal(
		    sigv4_authorization(&r, EX_AKID, key, &got), FERRY_OK);
		assert_string_equal(got.data, want.data);
		if (order[i] == 0)
			assert_string_equal(got.data + got.len - 64,
			    examples[i % NELEM(examples)].signature);
	}
	sigv4_algs_clear(&algs);
	assert_int_equal(algs.keyed, 0);
	assert_memory_equal(algs.key, zero, sizeof(zero));
	buf_free(&got);
	buf_free(&want);
}

/* The Authorization value is appended after what the buffer holds. */
static void
test_authorization_appends(void **state)
{
	struct sigv4_request r = example_request(&examples[1]);
	struct buf b;
	uint8_t key[32];
	const char *prefix = "Authorization: ";

	(void)state;
	assert_int_equal(
	    sigv4_signing_key(EX_SECRET, "20130524", "us-east-1", "s3", key),
	    FERRY_OK);
	buf_init(&b, LIMIT);
	assert_int_equal(buf_puts(&b, prefix), FERRY_OK);
	assert_int_equal(sigv4_authorization(&r, EX_AKID, key, &b), FERRY_OK);
	assert_int_equal(strncmp(b.data, prefix, strlen(prefix)), 0);
	assert_string_equal(b.data + b.len - 64, examples[1].signature);
	assert_string_equal(b.data + strlen(prefix),
	    "AWS4-HMAC-SHA256 Credential=" EX_AKID
	    "/20130524/us-east-1/s3/aws4_request, "
	    "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;"
	    "x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d8"
	    "41ea1380cd77a1b5971af0ece108bd");
	buf_free(&b);
}

/*
 * Path, query value and header value each longer than the signer's
 * staging chunk.  The signature was computed independently from the
 * canonical request text the SigV4 rules give.
 */
static void
test_long_request(void **state)
{
	char path[400], prefix[400], value[400];
	const char *want;
	struct sigv4_pair q[] = {{"prefix", prefix}, {"list-type", "2"}};
	struct sigv4_pair h[] = {{"Host", "s3.amazonaws.com"},
	    {"x-amz-meta-long", value}, {"x-amz-date", EX_DATE},
	    {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"}};
	struct sigv4_request r = {.method = "GET",
	    .path = path,
	    .query = q,
	    .nquery = NELEM(q),
	    .headers = h,
	    .nheaders = NELEM(h),
	    .payload_hash = "UNSIGNED-PAYLOAD",
	    .amz_date = EX_DATE,
	    .region = "us-east-1",
	    .service = "s3"};
	uint8_t key[32];
	struct buf b;

	(void)state;
	snprintf(path, sizeof(path), "/examplebucket/%0300d/a b", 0);
	memset(path + 15, 'k', 300);
	memset(prefix, 'p', 300);
	strcpy(prefix + 300, "/");
	snprintf(value, sizeof(value), "  %0300d   w ", 0);
	memset(value + 2, 'v', 300);
	assert_int_equal(
	    sigv4_signing_key(EX_SECRET, "20130524", "us-east-1", "s3", key),
	    FERRY_OK);
	buf_init(&b, LIMIT);
	assert_int_equal(sigv4_canonical_request(&r, &b), FERRY_OK);
	assert_int_equal(b.len, 1126);
	assert_non_null(strstr(b.data, "ppp%2F\nhost:"));
	assert_non_null(strstr(b.data, "vvv w\n\nhost;"));
	assert_non_null(strstr(b.data, "kkk/a%20b\nlist-type=2&prefix=ppp"));
	buf_reset(&b);
	assert_int_equal(sigv4_authorization(&r, EX_AKID, key, &b), FERRY_OK);
	want =
	    "2812f5554debdccf4dc7a5e525deb8d089906d5af2b92cff82278f4055bac147";
	assert_string_equal(b.data + b.len - 64, want);
	assert_non_null(strstr(b.data, ", SignedHeaders=host;x-amz-content-"
	                               "sha256;x-amz-date;x-amz-meta-long, "));
	buf_free(&b);
}

struct key_case {
	const char *secret;
	const char *date;
	const char *region;
	const char *service;
	const char *want; /* hex, or NULL for FERRY_EUSAGE */
};

static void
test_signing_key(void **state)
{
	static char long_secret[301];
	const struct key_case cases[] = {
	    /* AWS's "derive a signing key" example. */
	    {"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215",
	        "us-east-1", "iam",
	        "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db40"
	        "4d"},
	    /* The key of the SigV4 test suite. */
	    {"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830",
	        "us-east-1", "iam",
	        "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4"
	        "b9"},
	    {EX_SECRET, "20130524", "us-east-1", "s3",
	        "dbb893acc010964918f1fd433add87c70e8b0db6be30c1fbeafefa5ec6ba83"
	        "78"},
	    /* Longer than the stack copy: taken on the heap. */
	    {long_secret, "20130524", "us-east-1", "s3",
	        "e22f512e608c4623f2c0edd5b13e018b04c560f7735ccae158024527f55ce6"
	        "17"},
	    {EX_SECRET, EX_DATE, "us-east-1", "s3", NULL},
	    {EX_SECRET, "2013052", "us-east-1", "s3", NULL},
	    {EX_SECRET, "2013O524", "us-east-1", "s3", NULL},
	    {NULL, "20130524", "us-east-1", "s3", NULL},
	    {EX_SECRET, "20130524", NULL, "s3", NULL},
	};
	uint8_t key[32], zero[32] = {0};
	char hex[65];
	size_t i;

	(void)state;
	memset(long_secret, 'x', sizeof(long_secret) - 1);
	for (i = 0; i < NELEM(cases); i++) {
		memset(key, 0xaa, sizeof(key));
		if (cases[i].want == NULL) {
			assert_int_equal(
			    sigv4_signing_key(cases[i].secret, cases[i].date,
			        cases[i].region, cases[i].service, key),
			    FERRY_EUSAGE);
			assert_memory_equal(key, zero, sizeof(key));
			continue;
		}
		assert_int_equal(
		    sigv4_signing_key(cases[i].secret, cases[i].date,
		        cases[i].region, cases[i].service, key),
		    FERRY_OK);
		hex_encode(key, sizeof(key), hex);
		assert_string_equal(hex, cases[i].want);
	}
}

struct query_case {
	struct sigv4_pair q[6];
	size_t n;
	const char *want;
};

static void
test_canonical_query(void **state)
{
	const struct query_case cases[] = {
	    {{{0}}, 0, ""},
	    {{{"uploads", ""}}, 1, "uploads="},
	    {{{"prefix", "J"}, {"max-keys", "2"}}, 2, "max-keys=2&prefix=J"},
	    /* Raw "a0" < "a:", encoded "a%3A" < "a0". */
	    {{{"a0", "x"}, {"a:", "y"}}, 2, "a%3A=y&a0=x"},
	    /* Raw '~' < 0xC3, encoded "%C3" < "~". */
	    {{{"~", "1"}, {"\xc3\xa9", "2"}}, 2, "%C3%A9=2&~=1"},
	    /* Duplicate names sort by encoded value. */
	    {{{"a", "2"}, {"a", "10"}, {"a", ""}}, 3, "a=&a=10&a=2"},
	    {{{"k", "a-b"}, {"k", "a+b"}, {"k", "a b"}}, 3,
	        "k=a%20b&k=a%2Bb&k=a-b"},
	    {{{"ab", ""}, {"a", ""}, {"a-", ""}}, 3, "a=&a-=&ab="},
	    {{{"list-type", "2"}, {"continuation-token", "1/a+b=="},
	         {"encoding-type", "url"}, {"prefix", "photos/2024 "},
	         {"delimiter", "/"}},
	        5,
	        "continuation-token=1%2Fa%2Bb%3D%3D&delimiter=%2F&"
	        "encoding-type=url&list-type=2&prefix=photos%2F2024%20"},
	    {{{"uploadId", "x/y=z"}, {"partNumber", "10"}}, 2,
	        "partNumber=10&uploadId=x%2Fy%3Dz"},
	};
	struct sigv4_request r = {.method = "GET",
	    .payload_hash = "UNSIGNED-PAYLOAD",
	    .amz_date = EX_DATE,
	    .region = "us-east-1",
	    .service = "s3"};
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, LIMIT);
	for (i = 0; i < NELEM(cases); i++) {
		r.query = cases[i].q;
		r.nquery = cases[i].n;
		buf_reset(&b);
		/* Appended, as it is to the request URL. */
		assert_int_equal(buf_puts(&b, "/b?"), FERRY_OK);
		assert_int_equal(sigv4_canonical_query(&r, &b), FERRY_OK);
		assert_string_equal(b.data + 3, cases[i].want);
	}
	buf_free(&b);
}

/* More parameters and headers than the signer sorts on the stack. */
static void
test_many_pairs(void **state)
{
	struct sigv4_pair q[100], h[40];
	/* names sized for any size_t, as the compiler cannot bound i */
	char qn[100][24], hn[40][32], want[2048];
	struct sigv4_request r = {.method = "GET",
	    .path = "/b",
	    .query = q,
	    .nquery = NELEM(q),
	    .headers = h,
	    .nheaders = NELEM(h),
	    .payload_hash = "UNSIGNED-PAYLOAD",
	    .amz_date = EX_DATE,
	    .region = "us-east-1",
	    .service = "s3"};
	struct buf b;
	size_t i;
	int n = 0;

	(void)state;
	for (i = 0; i < NELEM(q); i++) {
		snprintf(qn[i], sizeof(qn[i]), "p%03zu", NELEM(q) - 1 - i);
		q[i].name = qn[i];
		q[i].value = "";
	}
	for (i = 0; i < NELEM(h); i++) {
		snprintf(
		    hn[i], sizeof(hn[i]), "X-Amz-Meta-%02zu", NELEM(h) - 1 - i);
		h[i].name = hn[i];
		h[i].value = "v";
	}
	buf_init(&b, LIMIT);
	assert_int_equal(sigv4_canonical_query(&r, &b), FERRY_OK);
	for (i = 0; i < NELEM(q); i++)
		n += snprintf(want + n, sizeof(want) - (size_t)n,
		    "%sp%03zu=", i ? "&" : "", i);
	assert_string_equal(b.data, want);
	buf_reset(&b);
	assert_int_equal(sigv4_canonical_request(&r, &b), FERRY_OK);
	n = 0;
	for (i = 0; i < NELEM(h); i++)
		n += snprintf(want + n, sizeof(want) - (size_t)n,
		    "%sx-amz-meta-%02zu", i ? ";" : "", i);
	assert_non_null(strstr(b.data, want));
	assert_non_null(strstr(b.data, "\nx-amz-meta-00:v\nx-amz-meta-01:v\n"));
	buf_free(&b);
}

struct creq_case {
	const char *path;
	struct sigv4_pair h[8];
	size_t nh;
	const char *want;
};

static void
test_canonical_rules(void **state)
{
	const struct creq_case cases[] = {
	    /* Trimmed, inner blanks squeezed, repeats joined in order. */
	    {"/",
	        {{"My-Header2", "  \"a   b \t c\"  "},
	            {"Host", "example.amazonaws.com"}, {"my-header1", "value4"},
	            {"MY-HEADER1", " value1 "},
	            {"x-amz-date", "20150830T123600Z"},
	            {"x-amz-meta-empty", ""}, {"x-amz-meta-blank", " \t "}},
	        7,
	        "GET\n/\n\n"
	        "host:example.amazonaws.com\n"
	        "my-header1:value4,value1\n"
	        "my-header2:\"a b c\"\n"
	        "x-amz-date:20150830T123600Z\n"
	        "x-amz-meta-blank:\n"
	        "x-amz-meta-empty:\n\n"
	        "host;my-header1;my-header2;x-amz-date;x-amz-meta-blank;"
	        "x-amz-meta-empty\n"
	        "UNSIGNED-PAYLOAD"},
	    /* Each path byte encoded once; no dot or slash normalization. */
	    {"/bucket/./a/../b//c d+e%41\xc3\xbc", {{"host", "h"}}, 1,
	        "GET\n/bucket/./a/../b//c%20d%2Be%2541%C3%BC\n\nhost:h\n\n"
	        "host\nUNSIGNED-PAYLOAD"},
	    {"/b/../y/./x/.", {{"host", "h"}}, 1,
	        "GET\n/b/../y/./x/.\n\nhost:h\n\nhost\nUNSIGNED-PAYLOAD"},
	    {"/b/x/..", {{"host", "h"}}, 1,
	        "GET\n/b/x/..\n\nhost:h\n\nhost\nUNSIGNED-PAYLOAD"},
	    {"", {{"host", "h"}}, 1,
	        "GET\n/\n\nhost:h\n\nhost\nUNSIGNED-PAYLOAD"},
	    {NULL, {{0}}, 0, "GET\n/\n\n\n\nUNSIGNED-PAYLOAD"},
	};
	struct sigv4_request r = {.method = "GET",
	    .payload_hash = "UNSIGNED-PAYLOAD",
	    .amz_date = EX_DATE,
	    .region = "us-east-1",
	    .service = "s3"};
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, LIMIT);
	for (i = 0; i < NELEM(cases); i++) {
		r.path = cases[i].path;
		r.headers = cases[i].h;
		r.nheaders = cases[i].nh;
		buf_reset(&b);
		assert_int_equal(sigv4_canonical_request(&r, &b), FERRY_OK);
		assert_string_equal(b.data, cases[i].want);
	}
	buf_free(&b);
}

struct bad_case {
	const char *what;
	struct sigv4_pair h[2];
	size_t nh;
	struct sigv4_pair q[2];
	size_t nq;
	const char *amz_date;
};

static void
test_bad_requests(void **state)
{
	const struct bad_case cases[] = {
	    {"line break in value", {{"x-amz-meta-a", "a\r\nb: c"}}, 1, {{0}},
	        0, EX_DATE},
	    {"colon in name", {{"x-a:b", "v"}}, 1, {{0}}, 0, EX_DATE},
	    {"space in name", {{"x a", "v"}}, 1, {{0}}, 0, EX_DATE},
	    {"empty name", {{"", "v"}}, 1, {{0}}, 0, EX_DATE},
	    {"null value", {{"host", NULL}}, 1, {{0}}, 0, EX_DATE},
	    {"null query value", {{"host", "h"}}, 1, {{"a", NULL}}, 1, EX_DATE},
	    {"null query array", {{"host", "h"}}, 1, {{0}}, 3, EX_DATE},
	    {"short date", {{"host", "h"}}, 1, {{0}}, 0, "2013"},
	    {"letter in date", {{"host", "h"}}, 1, {{0}}, 0,
	        "2013O524T000000Z"},
	    {"no date", {{"host", "h"}}, 1, {{0}}, 0, NULL},
	};
	struct sigv4_request r = {.method = "GET",
	    .path = "/",
	    .payload_hash = "UNSIGNED-PAYLOAD",
	    .region = "us-east-1",
	    .service = "s3"};
	uint8_t key[32] = {0};
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, LIMIT);
	assert_int_equal(buf_puts(&b, "keep"), FERRY_OK);
	for (i = 0; i < NELEM(cases); i++) {
		print_message("%s\n", cases[i].what);
		r.headers = cases[i].h;
		r.nheaders = cases[i].nh;
		r.query = cases[i].nq == 3 ? NULL : cases[i].q;
		r.nquery = cases[i].nq;
		r.amz_date = cases[i].amz_date;
		assert_int_equal(sigv4_canonical_request(&r, &b), FERRY_EUSAGE);
		assert_int_equal(
		    sigv4_authorization(&r, EX_AKID, key, &b), FERRY_EUSAGE);
		assert_string_equal(b.data, "keep");
	}
	assert_int_equal(sigv4_canonical_request(NULL, &b), FERRY_EUSAGE);
	assert_int_equal(sigv4_canonical_query(&r, NULL), FERRY_EUSAGE);
	assert_int_equal(uri_encode(&b, NULL, 1, 0), FERRY_EUSAGE);
	assert_int_equal(uri_decode(NULL, "a", 1, 0), FERRY_EUSAGE);
	assert_string_equal(b.data, "keep");
	buf_free(&b);
}

struct limit_case {
	size_t limit;
	ferry_err creq; /* sigv4_canonical_request() */
	ferry_err auth; /* sigv4_authorization() */
};

/*
 * A buffer at its limit fails cleanly and keeps what it held.  The PUT
 * example's canonical request is 374 bytes after the 3 held; the
 * Authorization value is built after it in the same buffer.
 */
static void
test_buffer_limit(void **state)
{
	const struct limit_case cases[] = {
	    {8, FERRY_EPARSE, FERRY_EPARSE},
	    {300, FERRY_EPARSE, FERRY_EPARSE},
	    {376, FERRY_EPARSE, FERRY_EPARSE},
	    {377, FERRY_OK, FERRY_EPARSE},
	    {500, FERRY_OK, FERRY_EPARSE},
	    {700, FERRY_OK, FERRY_OK},
	};
	struct sigv4_request r = example_request(&examples[1]);
	uint8_t key[32];
	struct buf b;
	size_t i;

	(void)state;
	assert_int_equal(
	    sigv4_signing_key(EX_SECRET, "20130524", "us-east-1", "s3", key),
	    FERRY_OK);
	for (i = 0; i < NELEM(cases); i++) {
		buf_init(&b, cases[i].limit);
		assert_int_equal(buf_puts(&b, "pre"), FERRY_OK);
		assert_int_equal(
		    sigv4_canonical_request(&r, &b), cases[i].creq);
		assert_int_equal(b.len, cases[i].creq ? 3 : 3 + 374);
		b.len = 3;
		b.data[3] = '\0';
		assert_int_equal(
		    sigv4_authorization(&r, EX_AKID, key, &b), cases[i].auth);
		if (cases[i].auth == FERRY_OK)
			assert_string_equal(
			    b.data + b.len - 64, examples[1].signature);
		else
			assert_string_equal(b.data, "pre");
		buf_free(&b);
	}
	buf_init(&b, 4);
	assert_int_equal(uri_encode(&b, "a b", 3, 0), FERRY_EPARSE);
	assert_int_equal(b.len, 0);
	assert_int_equal(uri_decode(&b, "abcdef", 6, 0), FERRY_EPARSE);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

struct sha_case {
	const char *in;
	const char *want;
};

static void
test_sha256_hex(void **state)
{
	const struct sha_case cases[] = {
	    {"", EMPTY_SHA},
	    {"Welcome to Amazon S3.", PUT_SHA},
	    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2"
	            "0015ad"},
	};
	char hex[65];
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		sigv4_sha256_hex(cases[i].in, strlen(cases[i].in), hex);
		assert_string_equal(hex, cases[i].want);
	}
	sigv4_sha256_hex(NULL, 0, hex);
	assert_string_equal(hex, EMPTY_SHA);
}

/* buf_printf in one pass or two, and at its limit. */
static void
test_buf_printf(void **state)
{
	static const struct {
		size_t limit, pre, n; /* bytes already held, bytes printed */
		ferry_err want;
	} cases[] = {
	    {1000, 0, 10, FERRY_OK},
	    {1000, 250, 5, FERRY_OK},
	    {1000, 250, 6, FERRY_OK},   /* one byte past the room */
	    {1000, 250, 700, FERRY_OK}, /* grows */
	    {1000, 250, 750, FERRY_OK}, /* exactly the limit */
	    {1000, 250, 751, FERRY_EPARSE},
	    {100, 0, 100, FERRY_OK},     /* fits the room, at the limit */
	    {100, 0, 101, FERRY_EPARSE}, /* fits the room, past the limit */
	    {100, 50, 51, FERRY_EPARSE},
	    {0, 0, 0, FERRY_OK},
	};
	char pre[1024], text[1024];
	struct buf b;
	size_t i;

	(void)state;
	memset(pre, 'p', sizeof(pre));
	memset(text, 't', sizeof(text));
	for (i = 0; i < NELEM(cases); i++) {
		buf_init(&b, cases[i].limit);
		if (cases[i].pre)
			assert_int_equal(
			    buf_append(&b, pre, cases[i].pre), FERRY_OK);
		assert_int_equal(buf_printf(&b, "%.*s", (int)cases[i].n, text),
		    cases[i].want);
		if (cases[i].want == FERRY_OK) {
			assert_int_equal(b.len, cases[i].pre + cases[i].n);
			assert_int_equal(
			    b.data[cases[i].pre], cases[i].n ? 't' : '\0');
		} else {
			assert_int_equal(b.len, cases[i].pre);
			if (b.data)
				assert_int_equal(b.data[b.len], '\0');
		}
		assert_int_equal(strlen(b.data), b.len);
		buf_free(&b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aws_examples),
	    cmocka_unit_test(test_algs_rekey),
	    cmocka_unit_test(test_authorization_appends),
	    cmocka_unit_test(test_long_request),
	    cmocka_unit_test(test_signing_key),
	    cmocka_unit_test(test_canonical_query),
	    cmocka_unit_test(test_many_pairs),
	    cmocka_unit_test(test_canonical_rules),
	    cmocka_unit_test(test_bad_requests),
	    cmocka_unit_test(test_buffer_limit),
	    cmocka_unit_test(test_buf_printf),
	    cmocka_unit_test(test_sha256_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
