/*
 * test_store.c: the parsers of the command line's storage and bandwidth
 * options: --tags, --metadata, the single values, --bwlimit's rate and
 * timetable, and an SSE-C key's text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/internal.h"

static const struct {
	const char *in;
	const char *tagging; /* NULL: refused */
} tag_cases[] = {
    {"a=b", "a=b"},
    {"team=blue sky,cost=a&b", "team=blue%20sky&cost=a%26b"},
    {"k=", "k="},
    {"k=v=w", "k=v%3Dw"},
    {"ü=ö", "%C3%BC=%C3%B6"},
    {"a/b=c+d", "a%2Fb=c%2Bd"},
    {"", NULL},
    {"k", NULL},
    {"=v", NULL},
    {"a=1,", NULL},
    {",a=1", NULL},
    {"a=1,a=2", NULL},
    {"a=1,b=2,a=3", NULL},
    {"k=a\nb", NULL},
    {"1=,2=,3=,4=,5=,6=,7=,8=,9=,10=", "1=&2=&3=&4=&5=&6=&7=&8=&9=&10="},
    {"1=,2=,3=,4=,5=,6=,7=,8=,9=,10=,11=", NULL},
};

static void
test_tags(void **state)
{
	struct remote_store s;
	char big[400];
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(tag_cases) / sizeof(tag_cases[0]); i++) {
		remote_store_init(&s);
		e = remote_store_tags(&s, tag_cases[i].in);
		if (tag_cases[i].tagging == NULL) {
			assert_int_equal(e, FERRY_EUSAGE);
		} else {
			assert_int_equal(e, FERRY_OK);
			assert_string_equal(
			    s.tagging.data, tag_cases[i].tagging);
		}
		remote_store_clear(&s);
	}
	/* a key of 128 bytes is the most, a value of 256 */
	remote_store_init(&s);
	memset(big, 'k', 128);
	snprintf(big + 128, sizeof(big) - 128, "=v");
	assert_int_equal(remote_store_tags(&s, big), FERRY_OK);
	memset(big, 'k', 129);
	snprintf(big + 129, sizeof(big) - 129, "=v");
	assert_int_equal(remote_store_tags(&s, big), FERRY_EUSAGE);
	memset(big, 'v', sizeof(big));
	memcpy(big, "x=", 2);
	big[258] = '\0';
	assert_int_equal(remote_store_tags(&s, big), FERRY_OK);
	big[258] = 'v';
	big[259] = '\0';
	assert_int_equal(remote_store_tags(&s, big), FERRY_EUSAGE);
	remote_store_clear(&s);
}

static const struct {
	const char *in;
	const char *meta; /* the line added; NULL: refused */
} meta_cases[] = {
    {"Owner=me", "x-amz-meta-owner: me\n"},
    {"a=", "x-amz-meta-a: \n"},
    {"note=a b=c", "x-amz-meta-note: a b=c\n"},
    {"x-y_z.1=v", "x-amz-meta-x-y_z.1: v\n"},
    {"=v", NULL},
    {"novalue", NULL},
    {"a b=c", NULL},
    {"a:b=c", NULL},
    {"a=\x01", NULL},
    {"a=caf\xc3\xa9", NULL},
    {"ferry-xxh128=1", NULL},
    {"Ferry-Mtime=1", NULL},
};

static void
test_meta(void **state)
{
	struct remote_store s;
	char big[2100];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(meta_cases) / sizeof(meta_cases[0]); i++) {
		remote_store_init(&s);
		if (meta_cases[i].meta == NULL) {
			assert_int_equal(
			    remote_store_meta(&s, meta_cases[i].in),
			    FERRY_EUSAGE);
		} else {
			assert_int_equal(
			    remote_store_meta(&s, meta_cases[i].in), FERRY_OK);
			assert_string_equal(s.meta.data, meta_cases[i].meta);
		}
		remote_store_clear(&s);
	}
	/* a name twice, in either case; and 2 KiB in all */
	remote_store_init(&s);
	assert_int_equal(remote_store_meta(&s, "a=1"), FERRY_OK);
	assert_int_equal(remote_store_meta(&s, "A=2"), FERRY_EUSAGE);
	memset(big, 'v', sizeof(big));
	memcpy(big, "b=", 2);
	big[2 + 2044] = '\0'; /* "a" "1" "b" and 2044 bytes: 2047 */
	assert_int_equal(remote_store_meta(&s, big), FERRY_OK);
	assert_int_equal(remote_store_meta(&s, "c="), FERRY_OK);
	assert_int_equal(remote_store_meta(&s, "d="), FERRY_EUSAGE);
	remote_store_clear(&s);
}

static void
test_check(void **state)
{
	struct remote_store s;

	(void)state;
	remote_store_init(&s);
	assert_int_equal(remote_store_check(&s), FERRY_OK);
	s.storage_class = "DEEP_ARCHIVE";
	s.sse = "aws:kms";
	s.sse_kms_key_id = "arn:aws:kms:us-east-1:1:key/x";
	s.acl = "bucket-owner-full-control";
	s.cache_control = "max-age=60, public";
	assert_int_equal(remote_store_check(&s), FERRY_OK);
	s.storage_class = "standard";
	assert_int_equal(remote_store_check(&s), FERRY_EUSAGE);
	s.storage_class = "STANDARD";
	s.sse = "AES256";
	assert_int_equal(remote_store_check(&s), FERRY_EUSAGE);
	s.sse_kms_key_id = NULL;
	assert_int_equal(remote_store_check(&s), FERRY_OK);
	s.acl = "everyone";
	assert_int_equal(remote_store_check(&s), FERRY_EUSAGE);
	s.acl = NULL;
	s.content_type = "text/plain\r\nX: y";
	assert_int_equal(remote_store_check(&s), FERRY_EUSAGE);
	s.content_type = "";
	assert_int_equal(remote_store_check(&s), FERRY_EUSAGE);
	remote_store_clear(&s);
}

static const struct {
	const char *in;
	int ok;
	/* the rate at 00:00, 08:00, 12:30 and 23:59 */
	uint64_t at[4];
} bw_cases[] = {
    {"2M", 1, {2 << 20, 2 << 20, 2 << 20, 2 << 20}},
    {"512K", 1, {512 << 10, 512 << 10, 512 << 10, 512 << 10}},
    {"1024", 1, {1024, 1024, 1024, 1024}},
    {"off", 1, {0, 0, 0, 0}},
    {"0", 1, {0, 0, 0, 0}},
    {"08:00,512K 19:00,off", 1, {0, 512 << 10, 512 << 10, 0}},
    {"00:00,1M 12:30,2M", 1, {1 << 20, 1 << 20, 2 << 20, 2 << 20}},
    {"  09:00,1M  ", 1, {1 << 20, 1 << 20, 1 << 20, 1 << 20}},
    {"10", 0, {0}},
    {"2X", 0, {0}},
    {"", 0, {0}},
    {"-1M", 0, {0}},
    {"08:00", 0, {0}},
    {"08:00,", 0, {0}},
    {"8:00,1M", 0, {0}},
    {"24:00,1M", 0, {0}},
    {"08:60,1M", 0, {0}},
    {"08:00,1M 08:00,2M", 0, {0}},
    {"09:00,1M 08:00,2M", 0, {0}},
    {"08:00;1M", 0, {0}},
    {"08:00,10", 0, {0}},
    {" ", 0, {0}},
};

static void
test_bwlimit(void **state)
{
	static const int minutes[4] = {0, 8 * 60, 12 * 60 + 30, 23 * 60 + 59};
	struct remote_bwlimit b;
	size_t i, j;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(bw_cases) / sizeof(bw_cases[0]); i++) {
		e = remote_bwlimit_parse(bw_cases[i].in, &b);
		if (!bw_cases[i].ok) {
			assert_int_equal(e, FERRY_EUSAGE);
			assert_int_equal(b.n, 0);
			continue;
		}
		assert_int_equal(e, FERRY_OK);
		for (j = 0; j < 4; j++)
			assert_int_equal(remote_bwlimit_rate(&b, minutes[j]),
			    bw_cases[i].at[j]);
	}
}

static void
test_ssec_key(void **state)
{
	uint8_t key[32], raw[32];
	/* base64 of the bytes 0 to 31 */
	static const char b64[] =
	    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
	char text[64];
	size_t i;

	(void)state;
	for (i = 0; i < 32; i++)
		raw[i] = (uint8_t)i;
	assert_int_equal(ssec_key_parse((const char *)raw, 32, key), FERRY_OK);
	assert_memory_equal(key, raw, 32);
	assert_int_equal(ssec_key_parse(b64, strlen(b64), key), FERRY_OK);
	assert_memory_equal(key, raw, 32);
	snprintf(text, sizeof(text), "%s\r\n", b64);
	assert_int_equal(ssec_key_parse(text, strlen(text), key), FERRY_OK);
	assert_memory_equal(key, raw, 32);
	assert_int_equal(ssec_key_parse(b64, 43, key), FERRY_EUSAGE);
	assert_int_equal(ssec_key_parse("short", 5, key), FERRY_EUSAGE);
	snprintf(text, sizeof(text), "%s", b64);
	text[10] = '*';
	assert_int_equal(ssec_key_parse(text, 44, key), FERRY_EUSAGE);
	/* 33 bytes of base64 (no padding) are not a key */
	assert_int_equal(
	    ssec_key_parse(
	        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g", 44, key),
	    FERRY_EUSAGE);
	/* the message never quotes the key */
	assert_null(strstr(ferry_errmsg(), "AAEC"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tags),
	    cmocka_unit_test(test_meta),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_bwlimit),
	    cmocka_unit_test(test_ssec_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
