/*
 * test_inventory.c: an S3 Inventory's manifest.json and the CSV rows of
 * its data files (remote/invparse.c).  Rows: quoting (commas and doubled
 * quotes inside quotes), keys URL-encoded with '+' for a space, versioned
 * rows left out, and rows refused for a missing field, a quote left open,
 * a bad escape or a size that is no number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/inventory.h"

#define SCHEMA                                                                 \
	"Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, "             \
	"LastModifiedDate, ETag, StorageClass"
#define MD5A "0123456789abcdef0123456789abcdef"
#define T0 "2023-11-14T22:13:20.000Z"

static const char manifest_json[] =
    "{\"sourceBucket\":\"src\",\"destinationBucket\":\"arn:aws:s3:::inv\","
    "\"version\":\"2016-11-30\",\"creationTimestamp\":\"1700000000123\","
    "\"fileFormat\":\"CSV\",\"fileSchema\":\"" SCHEMA "\","
    "\"files\":[{\"key\":\"inv/data/a.csv.gz\",\"size\":123,"
    "\"MD5checksum\":\"" MD5A "\"},{\"key\":\"inv/data/b.csv.gz\","
    "\"size\":0,\"MD5checksum\":\"" MD5A "\"}]}";

struct row_case {
	const char *name;
	const char *line;
	int ok;          /* parses */
	int skip;        /* left out: an older version or a delete marker */
	const char *key; /* decoded */
	size_t keylen;   /* 0: strlen(key) */
	uint64_t size;
	const char *etag; /* quoted */
	const char *says; /* in the refusal */
};

static const struct row_case rows[] = {
    {"quoted, as S3 writes",
        "\"src\",\"a/b.txt\",\"v1\",\"true\",\"false\",\"12\",\"" T0
        "\",\"" MD5A "\",\"STANDARD\"",
        1, 0, "a/b.txt", 0, 12, "\"" MD5A "\"", NULL},
    {"unquoted", "src,a,v1,true,false,0," T0 ",abc-3,STANDARD", 1, 0, "a", 0, 0,
        "\"abc-3\"", NULL},
    {"'+' is a space, %2B a plus, %2F a slash",
        "src,my+file%2B1%2Fx,v1,true,false,5," T0 ",e,S", 1, 0, "my file+1/x",
        0, 5, "\"e\"", NULL},
    {"UTF-8 escaped", "src,caf%C3%A9,,true,false,5," T0 ",e,S", 1, 0,
        "caf\xc3\xa9", 0, 5, "\"e\"", NULL},
    {"a comma and a doubled quote inside quotes",
        "\"src\",\"a%2Cb\",\"v\",\"true\",\"false\",\"1\",\"" T0
        "\",\"e\",\"x,\"\"y\"\"\"",
        1, 0, "a,b", 0, 1, "\"e\"", NULL},
    {"a CSV-quoted comma in the key, not escaped",
        "src,\"a,b\",v,true,false,1," T0 ",e,S", 1, 0, "a,b", 0, 1, "\"e\"",
        NULL},
    {"an older version", "src,a,v0,false,false,1," T0 ",e,S", 1, 1, "a", 0, 0,
        NULL, NULL},
    {"a delete marker", "src,a,v2,true,true,,,,", 1, 1, "a", 0, 0, NULL, NULL},
    {"too few fields", "src,a,v1,true,false,1," T0 ",e", 0, 0, NULL, 0, 0, NULL,
        "has 8 fields where the fileSchema names 9"},
    {"too many fields", "src,a,v1,true,false,1," T0 ",e,S,x", 0, 0, NULL, 0, 0,
        NULL, "has 10 fields"},
    {"a quote left open", "src,\"a,v1,true,false,1," T0 ",e,S", 0, 0, NULL, 0,
        0, NULL, "quote left open"},
    {"text after a quote", "src,\"a\"b,v1,true,false,1," T0 ",e,S", 0, 0, NULL,
        0, 0, NULL, "text after a quoted field"},
    {"a malformed escape", "src,a%2,v1,true,false,1," T0 ",e,S", 0, 0, NULL, 0,
        0, NULL, "not URL-encoded"},
    {"a NUL in the key", "src,a%00b,v1,true,false,1," T0 ",e,S", 0, 0, NULL, 0,
        0, NULL, "holds a NUL"},
    {"an empty key", "src,,v1,true,false,1," T0 ",e,S", 0, 0, NULL, 0, 0, NULL,
        "empty Key"},
    {"an empty size", "src,a,v1,true,false,," T0 ",e,S", 0, 0, NULL, 0, 0, NULL,
        "empty Size"},
    {"a size with a sign", "src,a,v1,true,false,-1," T0 ",e,S", 0, 0, NULL, 0,
        0, NULL, "not a number"},
    {"a size over 5 TiB", "src,a,v1,true,false,5497558138881," T0 ",e,S", 0, 0,
        NULL, 0, 0, NULL, "not a number up to 5 TiB"},
    {"a size of 20 digits",
        "src,a,v1,true,false,99999999999999999999," T0 ",e,S", 0, 0, NULL, 0, 0,
        NULL, "not a number"},
    {"an empty ETag", "src,a,v1,true,false,1," T0 ",,S", 0, 0, NULL, 0, 0, NULL,
        "ETag '' is empty"},
};

static void
test_manifest(void **state)
{
	struct inventory_manifest m;

	(void)state;
	assert_int_equal(
	    inventory_manifest_parse(manifest_json, strlen(manifest_json), &m),
	    FERRY_OK);
	assert_string_equal(m.source_bucket, "src");
	assert_int_equal(m.created_ms, 1700000000123LL);
	assert_int_equal(m.ncols, 9);
	assert_int_equal(m.col[INV_BUCKET], 0);
	assert_int_equal(m.col[INV_KEY], 1);
	assert_int_equal(m.col[INV_IS_LATEST], 3);
	assert_int_equal(m.col[INV_SIZE], 5);
	assert_int_equal(m.col[INV_ETAG], 7);
	assert_int_equal(m.nfiles, 2);
	assert_string_equal(m.files[1].key, "inv/data/b.csv.gz");
	assert_int_equal(m.files[0].size, 123);
	assert_int_equal(m.files[0].md5[0], 0x01);
	inventory_manifest_clear(&m);
	inventory_manifest_clear(&m);
}

/* manifest_json with from replaced by to: refused, saying says. */
static void
refused(const char *from, const char *to, ferry_err want, const char *says)
{
	char json[2048];
	const char *at = strstr(manifest_json, from);
	struct inventory_manifest m;
	size_t n;

	assert_non_null(at);
	n = (size_t)(at - manifest_json);
	snprintf(json, sizeof(json), "%.*s%s%s", (int)n, manifest_json, to,
	    at + strlen(from));
	assert_int_equal(
	    inventory_manifest_parse(json, strlen(json), &m), want);
	if (strstr(ferry_errmsg(), says) == NULL)
		fail_msg("%s: '%s' has no '%s'", to, ferry_errmsg(), says);
	assert_null(m.files);
	assert_null(m.source_bucket);
}

static void
test_manifest_refused(void **state)
{
	(void)state;
	refused("\"CSV\"", "\"ORC\"", FERRY_EUSAGE, "ORC: ferry reads CSV");
	refused("\"CSV\"", "\"Parquet\"", FERRY_EUSAGE, "Parquet");
	refused("\"CSV\"", "\"TSV\"", FERRY_EPARSE, "fileFormat 'TSV'");
	refused(", ETag", "", FERRY_EUSAGE, "no ETag field");
	refused("Size, ", "", FERRY_EUSAGE, "no Size field");
	refused("Bucket, Key", "Bucket, Key, Key", FERRY_EPARSE, "Key twice");
	refused(
	    "\"1700000000123\"", "\"soon\"", FERRY_EPARSE, "creationTimestamp");
	refused(MD5A "\"}]", "0123\"}]", FERRY_EPARSE, "MD5checksum of 32");
	refused("\"size\":123", "\"size\":-1", FERRY_EPARSE, "no size");
	refused("\"files\":[", "\"files\":[{},", FERRY_EPARSE, "no key");
	refused(
	    "\"sourceBucket\"", "\"source\"", FERRY_EPARSE, "no sourceBucket");
	refused("{", "[", FERRY_EPARSE, "not a JSON object");
}

static struct inventory_manifest *
schema(void)
{
	static struct inventory_manifest m;

	if (m.ncols == 0)
		assert_int_equal(inventory_manifest_parse(
		                     manifest_json, strlen(manifest_json), &m),
		    FERRY_OK);
	return &m;
}

static void
test_rows(void **state)
{
	struct inventory_row r;
	const struct row_case *c;
	size_t i;
	ferry_err e;

	(void)state;
	inventory_row_init(&r);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		c = &rows[i];
		e = inventory_row_parse(schema(), c->line, strlen(c->line), &r);
		if (!c->ok) {
			if (e != FERRY_EPARSE)
				fail_msg("%s: parsed", c->name);
			if (strstr(ferry_errmsg(), c->says) == NULL)
				fail_msg("%s: '%s' has no '%s'", c->name,
				    ferry_errmsg(), c->says);
			continue;
		}
		if (e != FERRY_OK)
			fail_msg("%s: %s", c->name, ferry_errmsg());
		assert_int_equal(r.skip, c->skip);
		assert_int_equal(r.key.len, strlen(c->key));
		assert_memory_equal(r.key.data, c->key, r.key.len);
		if (c->skip)
			continue;
		assert_string_equal(r.bucket, "src");
		assert_string_equal(r.last_modified, T0);
		assert_int_equal(r.size, c->size);
		assert_string_equal(r.etag, c->etag);
	}
	inventory_row_free(&r);
	inventory_manifest_clear(schema());
}

/* What a data file may inflate to: a ratio of its size, with a floor. */
static void
test_inflate_max(void **state)
{
	static const struct {
		uint64_t gz, max;
	} cases[] = {
	    {0, INVENTORY_INFLATE_FLOOR},
	    {1, INVENTORY_INFLATE_FLOOR},
	    {INVENTORY_INFLATE_FLOOR / INVENTORY_INFLATE_RATIO,
	        INVENTORY_INFLATE_FLOOR},
	    {1u << 20, (uint64_t)INVENTORY_INFLATE_RATIO << 20},
	    {82000000, 82000000ULL * INVENTORY_INFLATE_RATIO},
	    {UINT64_MAX / INVENTORY_INFLATE_RATIO,
	        UINT64_MAX / INVENTORY_INFLATE_RATIO * INVENTORY_INFLATE_RATIO},
	    {UINT64_MAX / INVENTORY_INFLATE_RATIO + 1, UINT64_MAX},
	    {UINT64_MAX, UINT64_MAX},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (inventory_inflate_max(cases[i].gz) != cases[i].max)
			fail_msg("case %zu: %llu", i,
			    (unsigned long long)inventory_inflate_max(
			        cases[i].gz));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_manifest),
	    cmocka_unit_test(test_manifest_refused),
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_inflate_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
