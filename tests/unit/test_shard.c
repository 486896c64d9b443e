/* test_shard.c: --shard, --shards and their defaults (sync/shard.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sync/plan/shard.h"

#define NKEYS 1000
#define NSHARDS 4

struct resolve_case {
	const char *spec, *count;
	struct shard_env env;
	int ok;
	unsigned index, n; /* when ok; n 0: not sharded */
};

/* env fields: JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, _COUNT, _MIN,
 * _MAX, _STEP */
static const struct resolve_case cases[] = {
    /* --shard I/N */
    {"0/4", NULL, {0}, 1, 0, 4},
    {"3/4", NULL, {0}, 1, 3, 4},
    {"0/1", NULL, {0}, 1, 0, 1},
    {"007/10", NULL, {0}, 1, 7, 10},
    {"999999/1000000", NULL, {0}, 1, 999999, 1000000},
    {"4/4", NULL, {0}, 0, 0, 0},
    {"5/4", NULL, {0}, 0, 0, 0},
    {"0/0", NULL, {0}, 0, 0, 0},
    {"0/1000001", NULL, {0}, 0, 0, 0},
    {"1", NULL, {0}, 0, 0, 0},
    {"/4", NULL, {0}, 0, 0, 0},
    {"1/", NULL, {0}, 0, 0, 0},
    {"", NULL, {0}, 0, 0, 0},
    {"-1/4", NULL, {0}, 0, 0, 0},
    {"+1/4", NULL, {0}, 0, 0, 0},
    {" 1/4", NULL, {0}, 0, 0, 0},
    {"1/4 ", NULL, {0}, 0, 0, 0},
    {"1/4/2", NULL, {0}, 0, 0, 0},
    {"a/4", NULL, {0}, 0, 0, 0},
    {"1/0x4", NULL, {0}, 0, 0, 0},
    {"99999999999999999999/4", NULL, {0}, 0, 0, 0},
    /* --shard wins over the environment, and is not combined with it */
    {"1/4", NULL, {"3", "5", "8", NULL, NULL, NULL}, 1, 1, 4},
    /* --shards N takes I from JOB_COMPLETION_INDEX only */
    {NULL, "4", {"2", NULL, NULL, NULL, NULL, NULL}, 1, 2, 4},
    {NULL, "4", {"0", NULL, NULL, NULL, NULL, NULL}, 1, 0, 4},
    {NULL, "4", {"4", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    {NULL, "4", {"", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    {NULL, "4", {"x", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    {NULL, "4", {NULL, "1", "4", NULL, NULL, NULL}, 0, 0, 0},
    {NULL, "4", {0}, 0, 0, 0},
    {NULL, "0", {"0", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    {NULL, "four", {"0", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    {NULL, "", {"0", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    /* both options: refused even when they agree */
    {"2/4", "4", {"2", NULL, NULL, NULL, NULL, NULL}, 0, 0, 0},
    /* no option: JOB_COMPLETION_INDEX alone shards nothing */
    {NULL, NULL, {0}, 1, 0, 0},
    {NULL, NULL, {"3", NULL, NULL, NULL, NULL, NULL}, 1, 0, 0},
    /* no option: the Slurm pair, when both are set */
    {NULL, NULL, {NULL, "5", "8", NULL, NULL, NULL}, 1, 5, 8},
    {NULL, NULL, {"1", "5", "8", NULL, NULL, NULL}, 1, 5, 8},
    {NULL, NULL, {NULL, "5", NULL, NULL, NULL, NULL}, 1, 0, 0},
    {NULL, NULL, {NULL, NULL, "8", NULL, NULL, NULL}, 1, 0, 0},
    {NULL, NULL, {NULL, "8", "8", NULL, NULL, NULL}, 0, 0, 0},
    {NULL, NULL, {NULL, "x", "8", NULL, NULL, NULL}, 0, 0, 0},
    {NULL, NULL, {NULL, "1", "0", NULL, NULL, NULL}, 0, 0, 0},
    {NULL, NULL, {NULL, "1", "", NULL, NULL, NULL}, 0, 0, 0},
    /* ids 1..8 with SLURM_ARRAY_TASK_MIN 1 are shards 0..7 */
    {NULL, NULL, {NULL, "1", "8", "1", "8", "1"}, 1, 0, 8},
    {NULL, NULL, {NULL, "8", "8", "1", "8", "1"}, 1, 7, 8},
    {NULL, NULL, {NULL, "8", "8", "1", NULL, NULL}, 1, 7, 8},
    {NULL, NULL, {NULL, "9", "8", "1", NULL, NULL}, 0, 0, 0},
    {NULL, NULL, {NULL, "0", "8", "1", NULL, NULL}, 0, 0, 0},
    {NULL, NULL, {NULL, "10", "4", "10", "13", NULL}, 1, 0, 4},
    {NULL, NULL, {NULL, "5", "8", "x", NULL, NULL}, 0, 0, 0},
    /* gaps (--array=0,3,7) and steps (--array=0-14:2) */
    {NULL, NULL, {NULL, "0", "3", "0", "7", NULL}, 0, 0, 0},
    {NULL, NULL, {NULL, "2", "8", "0", "14", "2"}, 0, 0, 0},
    {NULL, NULL, {NULL, "2", "8", "0", "7", "2"}, 0, 0, 0},
    {NULL, NULL, {NULL, "2", "8", "0", "x", NULL}, 0, 0, 0},
    /* the options still decide when Slurm's variables are set */
    {NULL, "2", {"1", "5", "8", NULL, NULL, NULL}, 1, 1, 2},
};

static void
test_resolve_table(void **state)
{
	const struct resolve_case *c;
	struct shard s;
	ferry_err e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		memset(&s, 0xa5, sizeof(s));
		e = shard_resolve(c->spec, c->count, &c->env, &s);
		if ((e == FERRY_OK) != c->ok)
			fail_msg("case %zu (%s, %s): %s", i,
			    c->spec ? c->spec : "-", c->count ? c->count : "-",
			    e == FERRY_OK ? "accepted" : ferry_errmsg());
		if (!c->ok) {
			assert_int_equal(e, FERRY_EUSAGE);
			/* one line, for "ferry: MESSAGE" */
			assert_true(ferry_errmsg()[0] != '\0');
			assert_null(strchr(ferry_errmsg(), '\n'));
		}
		if (s.index != c->index || s.count != c->n)
			fail_msg("case %zu: got %u/%u, want %u/%u", i, s.index,
			    s.count, c->index, c->n);
	}
}

/*
 * The contract of the man page: XXH3-64 (seed 0) of the key's bytes,
 * modulo N.  Pinned values, so that a change of hash cannot pass.
 */
static void
test_match_pinned(void **state)
{
	static const struct {
		const char *key;
		uint64_t hash; /* XXH3-64 of the key */
	} pins[] = {
	    {"a", 0xe6c632b61e964e1fULL},
	    {"photos/2024/img 0001.jpg", 0x285e28f3c9fa9123ULL},
	    {"caf\xc3\xa9/x.bin", 0x9fa5a35df612442fULL},
	    {"", 0x2d06800538d394c2ULL},
	};
	static const unsigned counts[] = {1, 2, 4, 7, 1000000};
	struct shard s = {0};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		for (j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
			s.count = counts[j];
			s.index = (unsigned)(pins[i].hash % counts[j]);
			assert_true(
			    shard_match(&s, pins[i].key, strlen(pins[i].key)));
			s.index = (s.index + 1) % s.count;
			assert_true(
			    s.count == 1 ||
			    !shard_match(&s, pins[i].key, strlen(pins[i].key)));
		}
	}
	/* the bytes given, not the C string: a NUL inside counts */
	s.count = 1000000;
	s.index = (unsigned)(0xe6c632b61e964e1fULL % s.count);
	assert_false(shard_match(&s, "a\0b", 3));
	assert_true(shard_match(&s, "a\0b", 1));
	/* unsharded: everything */
	s.count = 0;
	s.index = 0;
	assert_true(shard_match(&s, "anything", 8));
}

/* 1000 keys over 4 shards: each key in exactly one, each shard fair. */
static void
test_match_distribution(void **state)
{
	struct shard s = {0};
	unsigned per[NSHARDS] = {0}, in, total = 0;
	char key[64];
	int i, n;

	(void)state;
	for (i = 0; i < NKEYS; i++) {
		n = snprintf(
		    key, sizeof(key), "dir%d/file %05d.bin", i % 13, i);
		in = 0;
		s.count = NSHARDS;
		for (s.index = 0; s.index < NSHARDS; s.index++) {
			if (shard_match(&s, key, (size_t)n)) {
				per[s.index]++;
				in++;
			}
		}
		if (in != 1)
			fail_msg("%s is in %u shards", key, in);
	}
	for (i = 0; i < NSHARDS; i++) {
		/* 250 expected; 4.6 standard deviations either side */
		if (per[i] < 185 || per[i] > 315)
			fail_msg(
			    "shard %d holds %u of %d keys", i, per[i], NKEYS);
		total += per[i];
	}
	assert_int_equal(total, NKEYS);
}

static void
test_name(void **state)
{
	struct shard s = {0};
	char buf[SHARD_NAME_MAX];

	(void)state;
	shard_name(&s, buf, sizeof(buf));
	assert_string_equal(buf, "");
	s.index = 999999;
	s.count = SHARD_COUNT_MAX;
	shard_name(&s, buf, sizeof(buf));
	assert_string_equal(buf, "999999/1000000");
}

/* Range shards: the file's cuts, the keys each range holds. */
static void
test_ranges(void **state)
{
	static const char file[] =
	    "{\"shards\": 3, \"cuts\": [\"b\", \"d/e\"]}";
	static const struct {
		unsigned index;
		const char *in, *out;
	} rcases[] = {
	    {0, "a", "b0"},
	    {0, "b", "c"},
	    {1, "b0", "b"},
	    {1, "d/e", "d/e0"},
	    {2, "d/e0", "d/e"},
	    {2, "zzz", "d"},
	};
	struct shard s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++) {
		s = (struct shard){.index = rcases[i].index, .count = 3};
		assert_int_equal(
		    shard_ranges_parse(&s, file, strlen(file)), FERRY_OK);
		assert_true(
		    shard_match(&s, rcases[i].in, strlen(rcases[i].in)));
		assert_false(
		    shard_match(&s, rcases[i].out, strlen(rcases[i].out)));
		shard_clear(&s);
	}
	s = (struct shard){.index = 0, .count = 4};
	assert_int_equal(
	    shard_ranges_parse(&s, file, strlen(file)), FERRY_EUSAGE);
	assert_false(s.by_range);
}

/* The cuts ls --ranges writes: evenly spaced in a sorted stream. */
static void
test_sketch(void **state)
{
	static struct shard_sketch sk;
	char key[16], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i, cut[3];

	(void)state;
	assert_non_null(f);
	for (i = 0; i < 100000; i++) {
		snprintf(key, sizeof(key), "k%06d", i);
		assert_int_equal(shard_sketch_add(&sk, key, 7), FERRY_OK);
	}
	assert_int_equal(shard_sketch_write(&sk, 4, f), FERRY_OK);
	fclose(f);
	/* each within a tenth of a percent of the quarter */
	assert_int_equal(sscanf(text, "{\"cuts\":[\"k%d\",\"k%d\",\"k%d\"]",
	                     &cut[0], &cut[1], &cut[2]),
	    3);
	for (i = 0; i < 3; i++)
		assert_true(abs(cut[i] - 25000 * (i + 1)) <= 100);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolve_table),
	    cmocka_unit_test(test_match_pinned),
	    cmocka_unit_test(test_match_distribution),
	    cmocka_unit_test(test_name),
	    cmocka_unit_test(test_ranges),
	    cmocka_unit_test(test_sketch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
