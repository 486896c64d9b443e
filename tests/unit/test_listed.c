/*
 * test_listed.c: the manifest's listed tables, where an unsorted listing
 * (a directory bucket's) is put to be read back in key order: keys put in
 * any order come back sorted by bytes, long keys (stored by hash) among
 * them; a key put twice is told and not written; clearing empties one
 * table and not the other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "manifest/manifest.h"

#define NKEYS 6

static char long_a[1025], long_b[1025];

/* In the order listed: not sorted. */
static const char *listed[NKEYS] = {
    "b", "a/c", long_b, "\xc3\xa9", long_a, "a"};
/* The same, sorted by bytes. */
static const char *sorted[NKEYS] = {
    "a", "a/c", "b", long_a, long_b, "\xc3\xa9"};

static void
make_long_keys(void)
{
	/* 600 bytes alike, longer than LMDB's keys: ordered by what follows */
	memset(long_a, 'x', 1024);
	memset(long_b, 'x', 1024);
	long_a[1024] = long_b[1024] = '\0';
	long_a[700] = 'a';
	long_b[700] = 'b';
}

static void
put_all(struct manifest *m, enum manifest_table t)
{
	struct manifest_remote r;
	size_t i;
	int dup;

	for (i = 0; i < NKEYS; i++) {
		memset(&r, 0, sizeof(r));
		r.size = strlen(listed[i]);
		r.last_modified = 1700000000 + (int64_t)i;
		snprintf(r.etag, sizeof(r.etag), "\"e%zu\"", i);
		assert_int_equal(manifest_listed_put(m, t, listed[i],
		                     strlen(listed[i]), &r, &dup),
		    FERRY_OK);
		assert_false(dup);
	}
}

/* The keys of table t, in the order read, against want (n of them). */
static void
assert_table(
    struct manifest *m, enum manifest_table t, const char **want, size_t n)
{
	struct manifest_iter *it;
	struct manifest_remote r;
	const char *key;
	size_t keylen, i;

	assert_int_equal(manifest_iter_new(m, t, &it), FERRY_OK);
	for (i = 0; i < n; i++) {
		assert_int_equal(
		    manifest_iter_remote(it, &key, &keylen, &r), FERRY_OK);
		assert_string_equal(key, want[i]);
		assert_true(r.size == keylen);
	}
	assert_int_equal(
	    manifest_iter_remote(it, &key, &keylen, &r), FERRY_ENOTFOUND);
	manifest_iter_free(it);
}

static void
test_listed(void **state)
{
	struct manifest_remote r;
	struct manifest *m;
	char dir[] = "/tmp/ferry-test-listed.XXXXXX", cmd[64];
	int dup = 0;

	(void)state;
	make_long_keys();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	put_all(m, MANIFEST_LISTED);
	put_all(m, MANIFEST_LISTED_SRC);
	memset(&r, 0, sizeof(r));
	r.size = 99;
	assert_int_equal(
	    manifest_listed_put(m, MANIFEST_LISTED, "b", 1, &r, &dup),
	    FERRY_OK);
	assert_true(dup);
	assert_int_equal(manifest_listed_put(m, MANIFEST_LISTED, long_a,
	                     strlen(long_a), &r, &dup),
	    FERRY_OK);
	assert_true(dup);
	/* the record put first is kept */
	assert_table(m, MANIFEST_LISTED, sorted, NKEYS);
	assert_int_equal(manifest_listed_clear(m, MANIFEST_LISTED), FERRY_OK);
	assert_table(m, MANIFEST_LISTED, sorted, 0);
	assert_table(m, MANIFEST_LISTED_SRC, sorted, NKEYS);
	assert_int_equal(
	    manifest_listed_clear(m, MANIFEST_REMOTE), FERRY_EUSAGE);
	assert_int_equal(
	    manifest_listed_put(m, MANIFEST_LOCAL, "a", 1, &r, &dup),
	    FERRY_EUSAGE);
	manifest_close(m);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
