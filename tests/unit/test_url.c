/*
 * test_url.c: s3:// locations, endpoint URLs and S3's URI encoding
 * (remote/url.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "remote/url.h"

struct loc_case {
	const char *in;
	ferry_err want;
	const char *bucket, *prefix; /* or, on failure, in the detail */
};

static const struct loc_case loc_cases[] = {
    {"s3://bkt", FERRY_OK, "bkt", ""},
    {"s3://bkt/", FERRY_OK, "bkt", ""},
    {"s3://bkt/photos", FERRY_OK, "bkt", "photos/"},
    {"s3://bkt/photos/", FERRY_OK, "bkt", "photos/"},
    /* empty segments: refused, with the location meant */
    {"s3://bkt/a//b", FERRY_EUSAGE, "did you mean s3://bkt/a/b?", NULL},
    {"s3://bkt//x", FERRY_EUSAGE, "did you mean s3://bkt/x?", NULL},
    {"s3://bkt///x//y/", FERRY_EUSAGE, "did you mean s3://bkt/x/y/?", NULL},
    {"s3://bkt/x//", FERRY_EUSAGE, "did you mean s3://bkt/x/?", NULL},
    {"s3://bkt//", FERRY_EUSAGE, "did you mean s3://bkt/?", NULL},
    {"s3://bkt/a/b/c", FERRY_OK, "bkt", "a/b/c/"},
    {"s3://my.bucket-1/a b/c", FERRY_OK, "my.bucket-1", "a b/c/"},
    {"s3://b-.-c/p", FERRY_OK, "b-.-c", "p/"},
    {"s3://b/caf\xc3\xa9", FERRY_EUSAGE, "3 to 63", NULL},
    {"s3://bkt/caf\xc3\xa9", FERRY_OK, "bkt", "caf\xc3\xa9/"},
    {"s3://bkt/\xf0\x9f\x93\xb7", FERRY_OK, "bkt", "\xf0\x9f\x93\xb7/"},
    {"s3://0123456789012345678901234567890123456789012345678901234567890ab",
        FERRY_OK,
        "0123456789012345678901234567890123456789012345678901234567890ab", ""},
    {"s3://0123456789012345678901234567890123456789012345678901234567890abc",
        FERRY_EUSAGE, "3 to 63", NULL},
    {"s3://", FERRY_EUSAGE, "names no bucket", NULL},
    {"s3:///x", FERRY_EUSAGE, "names no bucket", NULL},
    {"s3:/b", FERRY_EUSAGE, "not an S3 location", NULL},
    {"S3://bkt", FERRY_EUSAGE, "not an S3 location", NULL},
    {"http://b", FERRY_EUSAGE, "not an S3 location", NULL},
    {"bkt/x", FERRY_EUSAGE, "not an S3 location", NULL},
    {"", FERRY_EUSAGE, "not an S3 location", NULL},
    {"s3://ab", FERRY_EUSAGE, "3 to 63", NULL},
    {"s3://Bucket", FERRY_EUSAGE, "lowercase", NULL},
    {"s3://my_bucket", FERRY_EUSAGE, "lowercase", NULL},
    {"s3://b..c", FERRY_EUSAGE, "adjacent periods", NULL},
    {"s3://-bkt", FERRY_EUSAGE, "start and end", NULL},
    {"s3://bkt./x", FERRY_EUSAGE, "start and end", NULL},
    {"s3://192.168.1.10/x", FERRY_EUSAGE, "IP address", NULL},
    {"s3://bkt?x=1", FERRY_EUSAGE, "lowercase", NULL},
    {"s3://bkt/\xff", FERRY_EUSAGE, "UTF-8", NULL},
    {"s3://bkt/\xc0\xaf", FERRY_EUSAGE, "UTF-8", NULL},
    {"s3://bkt/\xed\xa0\x80", FERRY_EUSAGE, "UTF-8", NULL},
    {"s3://bkt/\xe2\x82", FERRY_EUSAGE, "UTF-8", NULL},
};

static void
test_s3_location(void **state)
{
	const struct loc_case *c;
	struct s3_location l;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(loc_cases) / sizeof(loc_cases[0]); i++) {
		c = &loc_cases[i];
		e = s3_location_parse(c->in, &l);
		if (e != c->want)
			fail_msg("'%s': got %s (%s)", c->in, ferry_err_name(e),
			    ferry_errmsg());
		if (e != FERRY_OK) {
			assert_null(l.bucket);
			assert_null(l.prefix);
			if (strstr(ferry_errmsg(), c->bucket) == NULL)
				fail_msg("'%s': detail '%s' lacks '%s'", c->in,
				    ferry_errmsg(), c->bucket);
			continue;
		}
		if (strcmp(l.bucket, c->bucket) || strcmp(l.prefix, c->prefix))
			fail_msg(
			    "'%s': got '%s' '%s'", c->in, l.bucket, l.prefix);
		s3_location_clear(&l);
		assert_null(l.bucket);
	}
	s3_location_clear(NULL);
	assert_int_equal(s3_location_parse(NULL, &l), FERRY_EUSAGE);
}

static void
test_s3_location_long_prefix(void **state)
{
	char s[8 + URL_S3_KEY_MAX + 2];
	struct s3_location l;

	(void)state;
	memcpy(s, "s3://bkt/", 9);
	/* 1023 bytes plus the added '/' is the longest key. */
	memset(s + 9, 'k', URL_S3_KEY_MAX - 1);
	s[9 + URL_S3_KEY_MAX - 1] = '\0';
	assert_int_equal(s3_location_parse(s, &l), FERRY_OK);
	assert_int_equal(strlen(l.prefix), URL_S3_KEY_MAX);
	s3_location_clear(&l);
	s[9 + URL_S3_KEY_MAX - 1] = 'k';
	s[9 + URL_S3_KEY_MAX] = '\0';
	assert_int_equal(s3_location_parse(s, &l), FERRY_EUSAGE);
	assert_non_null(strstr(ferry_errmsg(), "longer than an S3 key"));
}

static void
test_is_s3_url(void **state)
{
	(void)state;
	assert_true(is_s3_url("s3://b"));
	assert_true(is_s3_url("s3://"));
	assert_false(is_s3_url("s3:/b"));
	assert_false(is_s3_url("/tmp/s3://b"));
	assert_false(is_s3_url(""));
	assert_false(is_s3_url(NULL));
}

struct ep_case {
	const char *in;
	ferry_err want;
	const char *scheme, *host; /* host: or, on failure, in the detail */
	unsigned port;
	int https, is_ip;
};

static const struct ep_case ep_cases[] = {
    {"http://127.0.0.1:7480", FERRY_OK, "http", "127.0.0.1", 7480, 0, 1},
    {"http://127.0.0.1:7480/", FERRY_OK, "http", "127.0.0.1", 7480, 0, 1},
    {"https://s3.us-east-1.amazonaws.com", FERRY_OK, "https",
        "s3.us-east-1.amazonaws.com", 443, 1, 0},
    {"http://minio", FERRY_OK, "http", "minio", 80, 0, 0},
    {"HTTPS://Minio.Example.COM:9000/", FERRY_OK, "https", "minio.example.com",
        9000, 1, 0},
    {"http://[::1]:9000", FERRY_OK, "http", "[::1]", 9000, 0, 1},
    {"https://[2001:DB8::1]", FERRY_OK, "https", "[2001:db8::1]", 443, 1, 1},
    {"http://localhost:9000", FERRY_OK, "http", "localhost", 9000, 0, 1},
    {"http://LOCALHOST", FERRY_OK, "http", "localhost", 80, 0, 1},
    {"http://localhost.example", FERRY_OK, "http", "localhost.example", 80, 0,
        0},
    {"http://s3_gw-1:65535", FERRY_OK, "http", "s3_gw-1", 65535, 0, 0},
    {"http://h:080", FERRY_OK, "http", "h", 80, 0, 0},
    {"http://h:0", FERRY_EUSAGE, NULL, "invalid port", 0, 0, 0},
    {"http://h:99999", FERRY_EUSAGE, NULL, "invalid port", 0, 0, 0},
    {"http://h:123456", FERRY_EUSAGE, NULL, "invalid port", 0, 0, 0},
    {"http://h:", FERRY_EUSAGE, NULL, "invalid port", 0, 0, 0},
    {"http://h:8a", FERRY_EUSAGE, NULL, "invalid port", 0, 0, 0},
    {"http://h:-1", FERRY_EUSAGE, NULL, "invalid port", 0, 0, 0},
    {"ftp://h", FERRY_EUSAGE, NULL, "http:// or https://", 0, 0, 0},
    {"s3://bkt", FERRY_EUSAGE, NULL, "http:// or https://", 0, 0, 0},
    {"h:9000", FERRY_EUSAGE, NULL, "http:// or https://", 0, 0, 0},
    {"http:/h", FERRY_EUSAGE, NULL, "http:// or https://", 0, 0, 0},
    {"", FERRY_EUSAGE, NULL, "empty", 0, 0, 0},
    {"http://u:p@h", FERRY_EUSAGE, NULL, "user information", 0, 0, 0},
    {"http://", FERRY_EUSAGE, NULL, "empty host", 0, 0, 0},
    {"http:///", FERRY_EUSAGE, NULL, "empty host", 0, 0, 0},
    {"http://:80", FERRY_EUSAGE, NULL, "empty host", 0, 0, 0},
    {"http://h/path", FERRY_EUSAGE, NULL, "path", 0, 0, 0},
    {"http://h//", FERRY_EUSAGE, NULL, "path", 0, 0, 0},
    {"http://h?x=1", FERRY_EUSAGE, NULL, "query", 0, 0, 0},
    {"http://h/?x=1", FERRY_EUSAGE, NULL, "query", 0, 0, 0},
    {"http://h#f", FERRY_EUSAGE, NULL, "fragment", 0, 0, 0},
    {"http://h..x", FERRY_EUSAGE, NULL, "empty label", 0, 0, 0},
    {"http://h.", FERRY_EUSAGE, NULL, "empty label", 0, 0, 0},
    {"http://-h", FERRY_EUSAGE, NULL, "'-'", 0, 0, 0},
    {"http://h%41", FERRY_EUSAGE, NULL, "not allowed", 0, 0, 0},
    {"http://h x", FERRY_EUSAGE, NULL, "not allowed", 0, 0, 0},
    {"http://1.2.3", FERRY_EUSAGE, NULL, "IPv4", 0, 0, 0},
    {"http://256.1.1.1", FERRY_EUSAGE, NULL, "IPv4", 0, 0, 0},
    {"http://[::1", FERRY_EUSAGE, NULL, "IPv6", 0, 0, 0},
    {"http://[::g]", FERRY_EUSAGE, NULL, "IPv6", 0, 0, 0},
    {"http://[fe80::1%25eth0]", FERRY_EUSAGE, NULL, "IPv6", 0, 0, 0},
    {"http://[]", FERRY_EUSAGE, NULL, "IPv6", 0, 0, 0},
    {"http://[::1]x", FERRY_EUSAGE, NULL, "after the host", 0, 0, 0},
    {"http://::1", FERRY_EUSAGE, NULL, "empty host", 0, 0, 0},
};

static void
check_endpoint(const struct ep_case *c, ferry_err e, const struct endpoint *ep)
{
	if (e != c->want)
		fail_msg("'%s': got %s (%s)", c->in, ferry_err_name(e),
		    ferry_errmsg());
	if (e != FERRY_OK) {
		assert_null(ep->scheme);
		assert_null(ep->host);
		if (strstr(ferry_errmsg(), c->host) == NULL)
			fail_msg("'%s': detail '%s' lacks '%s'", c->in,
			    ferry_errmsg(), c->host);
		return;
	}
	if (strcmp(ep->scheme, c->scheme) || strcmp(ep->host, c->host) ||
	    ep->port != c->port || ep->https != c->https ||
	    ep->host_is_ip != c->is_ip)
		fail_msg("'%s': got %s %s %u https=%d ip=%d", c->in, ep->scheme,
		    ep->host, ep->port, ep->https, ep->host_is_ip);
}

static void
test_endpoint(void **state)
{
	struct endpoint ep;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(ep_cases) / sizeof(ep_cases[0]); i++) {
		e = endpoint_parse(ep_cases[i].in, &ep);
		check_endpoint(&ep_cases[i], e, &ep);
		endpoint_clear(&ep);
		assert_null(ep.host);
	}
	endpoint_clear(NULL);
	assert_int_equal(endpoint_parse(NULL, &ep), FERRY_EUSAGE);
}

static void
test_endpoint_secret_not_echoed(void **state)
{
	static const char *const in[] = {"http://user:hunter2@h",
	    "ftp://user:hunter2@h", "http://h/user:hunter2@x",
	    "http://user:hunter2@[::1]:0"};
	struct endpoint ep;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		assert_int_equal(endpoint_parse(in[i], &ep), FERRY_EUSAGE);
		assert_null(strstr(ferry_errmsg(), "hunter2"));
	}
}

static void
test_endpoint_long_host(void **state)
{
	char url[300];
	struct endpoint ep;
	size_t i;

	(void)state;
	/* Four 63-byte labels and three dots: 255 bytes, past the limit. */
	memcpy(url, "http://", 7);
	for (i = 0; i < 255; i++)
		url[7 + i] = (i % 64 == 63) ? '.' : 'a';
	url[7 + 255] = '\0';
	assert_int_equal(endpoint_parse(url, &ep), FERRY_EUSAGE);
	assert_non_null(strstr(ferry_errmsg(), "253"));
	url[7 + 64] = '\0';
	assert_int_equal(endpoint_parse(url, &ep), FERRY_EUSAGE);
	assert_non_null(strstr(ferry_errmsg(), "empty label"));
	url[7 + 63] = 'a';
	url[7 + 64] = '\0';
	assert_int_equal(endpoint_parse(url, &ep), FERRY_EUSAGE);
	assert_non_null(strstr(ferry_errmsg(), "63"));
	url[7 + 63] = '\0';
	assert_int_equal(endpoint_parse(url, &ep), FERRY_OK);
	endpoint_clear(&ep);
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define LIMIT (1 << 20)

struct enc_case {
	const char *in;
	size_t len;
	int keep_slash;
	const char *want;
};

#define S(s) s, sizeof(s) - 1

static void
test_uri_encode(void **state)
{
	const struct enc_case cases[] = {
	    {S(""), 0, ""},
	    {S("plain-key_1.txt~"), 0, "plain-key_1.txt~"},
	    {S("ABCXYZabcxyz0189"), 1, "ABCXYZabcxyz0189"},
	    {S("a b"), 0, "a%20b"},
	    {S("dir/a b.txt"), 1, "dir/a%20b.txt"},
	    {S("dir/a b.txt"), 0, "dir%2Fa%20b.txt"},
	    {S("+%#?;"), 1, "%2B%25%23%3F%3B"},
	    {S("=&,:@!$'()*"), 0, "%3D%26%2C%3A%40%21%24%27%28%29%2A"},
	    {S("\xc3\xbc"), 1, "%C3%BC"},
	    {S("\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x93\xb7"), 1,
	        "%E6%97%A5%E6%9C%AC/%F0%9F%93%B7"},
	    {S("\x01\x1f\x7f\xff"), 0, "%01%1F%7F%FF"},
	    {S("a\0b"), 0, "a%00b"},
	    {S("\t\r\n"), 1, "%09%0D%0A"},
	    /* S3 keys keep dot segments and empty segments as they are. */
	    {S("./../a//b/."), 1, "./../a//b/."},
	    {S("/"), 0, "%2F"},
	    {S("%2F"), 1, "%252F"},
	};
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, LIMIT);
	for (i = 0; i < NELEM(cases); i++) {
		buf_reset(&b);
		assert_int_equal(buf_puts(&b, "<"), FERRY_OK);
		assert_int_equal(uri_encode(&b, cases[i].in, cases[i].len,
		                     cases[i].keep_slash),
		    FERRY_OK);
		assert_string_equal(b.data + 1, cases[i].want);
		assert_int_equal(b.data[0], '<');
	}
	buf_free(&b);
}

/* Long input crosses the writer's chunk boundary many times. */
static void
test_uri_encode_long(void **state)
{
	char in[1000];
	struct buf b, d;
	size_t i, plain = 0;

	(void)state;
	for (i = 0; i < sizeof(in); i++) {
		in[i] = (char)(i * 7);
		if ((in[i] != '\0' && strchr("-_.~", in[i]) != NULL) ||
		    (in[i] >= '0' && in[i] <= '9') ||
		    (in[i] >= 'A' && in[i] <= 'Z') ||
		    (in[i] >= 'a' && in[i] <= 'z'))
			plain++;
	}
	buf_init(&b, LIMIT);
	buf_init(&d, LIMIT);
	assert_int_equal(uri_encode(&b, in, sizeof(in), 0), FERRY_OK);
	assert_int_equal(b.len, plain + 3 * (sizeof(in) - plain));
	assert_int_equal(uri_decode(&d, b.data, b.len, 1), FERRY_OK);
	assert_int_equal(d.len, sizeof(in));
	assert_memory_equal(d.data, in, sizeof(in));
	buf_free(&b);
	buf_free(&d);
}

struct dec_case {
	const char *in;
	int plus_is_space;
	ferry_err err;
	const char *want;
	size_t wantlen;
};

static void
test_uri_decode(void **state)
{
	const struct dec_case cases[] = {
	    {"", 0, FERRY_OK, S("")},
	    {"plain", 0, FERRY_OK, S("plain")},
	    {"a%20b", 0, FERRY_OK, S("a b")},
	    {"a+b", 0, FERRY_OK, S("a+b")},
	    {"a+b", 1, FERRY_OK, S("a b")},
	    {"%2B+%2b", 1, FERRY_OK, S("+ +")},
	    {"%c3%BC", 0, FERRY_OK, S("\xc3\xbc")},
	    {"%00x", 0, FERRY_OK, S("\0x")},
	    {"100%25", 0, FERRY_OK, S("100%")},
	    {"%252F", 0, FERRY_OK, S("%2F")},
	    {"a/b", 1, FERRY_OK, S("a/b")},
	    {"%", 0, FERRY_EPARSE, NULL, 0},
	    {"%4", 0, FERRY_EPARSE, NULL, 0},
	    {"%zz", 0, FERRY_EPARSE, NULL, 0},
	    {"ab%", 1, FERRY_EPARSE, NULL, 0},
	    {"ab%2", 0, FERRY_EPARSE, NULL, 0},
	    {"%g0", 0, FERRY_EPARSE, NULL, 0},
	    {"%0g", 0, FERRY_EPARSE, NULL, 0},
	    {"%%41", 0, FERRY_EPARSE, NULL, 0},
	    {"ok%20then%x", 0, FERRY_EPARSE, NULL, 0},
	};
	struct buf b;
	size_t i;

	(void)state;
	buf_init(&b, LIMIT);
	for (i = 0; i < NELEM(cases); i++) {
		buf_reset(&b);
		assert_int_equal(buf_puts(&b, "<"), FERRY_OK);
		assert_int_equal(
		    uri_decode(&b, cases[i].in, strlen(cases[i].in),
		        cases[i].plus_is_space),
		    cases[i].err);
		if (cases[i].err != FERRY_OK) {
			/* Nothing half-decoded is left behind. */
			assert_string_equal(b.data, "<");
			continue;
		}
		assert_int_equal(b.len, cases[i].wantlen + 1);
		assert_memory_equal(
		    b.data + 1, cases[i].want, cases[i].wantlen);
	}
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_s3_location),
	    cmocka_unit_test(test_s3_location_long_prefix),
	    cmocka_unit_test(test_is_s3_url),
	    cmocka_unit_test(test_endpoint),
	    cmocka_unit_test(test_endpoint_secret_not_echoed),
	    cmocka_unit_test(test_endpoint_long_host),
	    cmocka_unit_test(test_uri_encode),
	    cmocka_unit_test(test_uri_encode_long),
	    cmocka_unit_test(test_uri_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
