/*
 * test_xml_versions.c: the ListObjectVersions reply
 * (xml_list_versions_parse() of remote/versions.c), as Ceph and AWS send
 * it, and what is refused.
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

#define ROOT                                                                   \
	"<ListVersionsResult "                                                 \
	"xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
#define END "</ListVersionsResult>"
#define VERSION(k, id, latest, lm, etag, size)                                 \
	"<Version><Key>" k "</Key><VersionId>" id                              \
	"</VersionId><IsLatest>" latest "</IsLatest><LastModified>" lm         \
	"</LastModified><ETag>" etag "</ETag><Size>" size                      \
	"</Size><StorageClass>STANDARD</StorageClass>"                         \
	"</Version>"
#define MARKER(k, id, latest, lm)                                              \
	"<DeleteMarker><Key>" k "</Key><VersionId>" id "</VersionId>"          \
	"<IsLatest>" latest "</IsLatest><LastModified>" lm "</LastModified>"   \
	"</DeleteMarker>"
#define LM "2026-11-01T00:00:00.000Z"
#define ETAG "&quot;90b3c3597d0ab040fb0ef7399f5526c9&quot;"

struct got {
	size_t n;
	char line[4][300];
};

static int
on_version(const struct xml_version *v, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 4);
	snprintf(g->line[g->n++], sizeof(g->line[0]), "%.*s %s %d %d %llu %s",
	    (int)v->key_len, v->key, v->version_id, v->is_latest,
	    v->delete_marker, (unsigned long long)v->size, v->etag);
	return 0;
}

struct case_ {
	const char *name;
	const char *body;
	ferry_err want;
	size_t n;
	const char *line[4];
	int trunc;
	const char *next_key, *next_id;
};

static const struct case_ cases[] = {
    {"ceph, url-encoded, truncated",
        ROOT "<EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>"
             "<NextKeyMarker>p%2Fb</NextKeyMarker><NextVersionIdMarker>v3"
             "</NextVersionIdMarker>" VERSION("p%2Fa", "v2", "true", LM, ETAG,
                 "4") VERSION("p%2Fa", "null", "false", LM, ETAG, "3")
                 MARKER("p%2Fb", "v3", "true", LM) END,
        FERRY_OK, 3,
        {"p/a v2 1 0 4 \"90b3c3597d0ab040fb0ef7399f5526c9\"",
            "p/a null 0 0 3 \"90b3c3597d0ab040fb0ef7399f5526c9\"",
            "p/b v3 1 1 0 "},
        1, "p/b", "v3"},
    {"the last page", ROOT "<IsTruncated>false</IsTruncated>" END, FERRY_OK, 0,
        {NULL}, 0, NULL, NULL},
    {"truncated without a marker", ROOT "<IsTruncated>true</IsTruncated>" END,
        FERRY_EPARSE, 0, {NULL}, 0, NULL, NULL},
    {"no version id",
        ROOT "<Version><Key>a</Key><LastModified>" LM "</LastModified>"
             "<Size>1</Size></Version>" END,
        FERRY_EPARSE, 0, {NULL}, 0, NULL, NULL},
    {"no size",
        ROOT "<Version><Key>a</Key><VersionId>v</VersionId>"
             "<LastModified>" LM "</LastModified></Version>" END,
        FERRY_EPARSE, 0, {NULL}, 0, NULL, NULL},
    {"IsLatest neither true nor false",
        ROOT VERSION("a", "v", "yes", LM, ETAG, "1") END, FERRY_EPARSE, 0,
        {NULL}, 0, NULL, NULL},
    {"a negative size", ROOT VERSION("a", "v", "true", LM, ETAG, "-1") END,
        FERRY_EPARSE, 0, {NULL}, 0, NULL, NULL},
    {"another reply", "<ListBucketResult/>", FERRY_EPARSE, 0, {NULL}, 0, NULL,
        NULL},
    {"error", "<Error><Code>NoSuchBucket</Code><Message>no</Message></Error>",
        FERRY_ES3, 0, {NULL}, 0, NULL, NULL},
};

static void
test_versions(void **state)
{
	const struct case_ *c;
	struct got g;
	char *key, *id;
	size_t i, j;
	int trunc;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		memset(&g, 0, sizeof(g));
		e = xml_list_versions_parse(c->body, strlen(c->body),
		    on_version, &g, &trunc, &key, &id);
		if (e != c->want || g.n != c->n)
			fail_msg("%s: got %d, %zu versions (%s)", c->name,
			    (int)e, g.n, ferry_errmsg());
		for (j = 0; j < c->n; j++)
			assert_string_equal(g.line[j], c->line[j]);
		if (e == FERRY_OK)
			assert_int_equal(trunc, c->trunc);
		if (c->next_key == NULL)
			assert_null(key);
		else
			assert_string_equal(key, c->next_key);
		if (c->next_id == NULL)
			assert_null(id);
		else
			assert_string_equal(id, c->next_id);
		free(key);
		free(id);
	}
}

/* A reader that refuses a version id of over 255 bytes, saying why. */
static int
refuse_long_id(const struct xml_version *v, void *arg)
{
	(void)arg;
	if (strlen(v->version_id) <= 255)
		return 0;
	ferry_fail(FERRY_EPARSE, "the version id of '%.*s' is %zu bytes",
	    (int)v->key_len, v->key, strlen(v->version_id));
	return 1;
}

/* The reason a reader gives for stopping is the listing's message. */
static void
test_versions_reader_reason(void **state)
{
	char body[1024], id[301];
	char *key = NULL, *next = NULL;
	int trunc;

	(void)state;
	memset(id, 'v', 300);
	id[300] = '\0';
	snprintf(body, sizeof(body),
	    ROOT "<IsTruncated>false</IsTruncated>" VERSION(
	        "k", "%s", "true", LM, ETAG, "1") END,
	    id);
	assert_int_equal(xml_list_versions_parse(body, strlen(body),
	                     refuse_long_id, NULL, &trunc, &key, &next),
	    FERRY_ECANCEL);
	assert_string_equal(
	    ferry_errmsg(), "the version id of 'k' is 300 bytes");
	free(key);
	free(next);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_versions),
	    cmocka_unit_test(test_versions_reader_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
