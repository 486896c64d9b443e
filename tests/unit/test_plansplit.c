/*
 * test_plansplit.c: how a plan is cut into parts: the balancing as a
 * table of action sizes dealt to N parts (each part at most the average
 * weight and one action more; equal actions spread evenly), then a small
 * plan file split into parts that each pass ferry apply's checks, keep
 * the plan's order and count their own actions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sync/plan/planfile.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)
#define END UINT64_MAX
#define DEL (UINT64_MAX - 1) /* a delete, in the table */

struct row {
	const char *name;
	unsigned parts;
	uint64_t sizes[24]; /* ended by END */
};

static const struct row rows[] = {
    {"one part", 1, {1, 2, 3, END}},
    {"fewer actions than parts", 4, {5 * MIB, 1, END}},
    {"equal small files", 3, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, END}},
    {"equal large files", 4, {GIB, GIB, GIB, GIB, GIB, GIB, GIB, END}},
    {"one huge file first", 3,
        {10 * GIB, MIB, MIB, MIB, MIB, MIB, MIB, MIB, MIB, END}},
    {"one huge file last", 3,
        {MIB, MIB, MIB, MIB, MIB, MIB, MIB, MIB, 10 * GIB, END}},
    {"growing sizes", 4,
        {KIB, 2 * KIB, 4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB,
            128 * KIB, 256 * KIB, 512 * KIB, MIB, 2 * MIB, 4 * MIB, 8 * MIB,
            16 * MIB, 32 * MIB, END}},
    {"deletes among uploads", 2,
        {DEL, DEL, DEL, 100 * MIB, DEL, 100 * MIB, DEL, DEL, END}},
};

static uint64_t
weight_of(uint64_t size)
{
	if (size == DEL)
		return planfile_split_weight(PLANFILE_DELETE, 0);
	return planfile_split_weight(PLANFILE_UPLOAD, size);
}

static void
test_balance(void **state)
{
	size_t r, i, k;

	(void)state;
	for (r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		const struct row *t = &rows[r];
		uint64_t load[8] = {0}, n[8] = {0}, total = 0, wmax = 0, w;
		uint64_t nmin = UINT64_MAX, nmax = 0;
		int equal = 1;

		for (i = 0; t->sizes[i] != END; i++) {
			w = weight_of(t->sizes[i]);
			k = planfile_split_pick(load, t->parts);
			assert_true(k < t->parts);
			load[k] =
			    load[k] > UINT64_MAX - w ? UINT64_MAX : load[k] + w;
			n[k]++;
			total = total > UINT64_MAX - w ? UINT64_MAX : total + w;
			wmax = w > wmax ? w : wmax;
			equal = equal && t->sizes[i] == t->sizes[0];
		}
		for (k = 0; k < t->parts; k++) {
			if (load[k] > total / t->parts + wmax)
				fail_msg("%s: part %zu too heavy", t->name, k);
			nmin = n[k] < nmin ? n[k] : nmin;
			nmax = n[k] > nmax ? n[k] : nmax;
		}
		if (equal && nmax - nmin > 1)
			fail_msg("%s: %llu to %llu actions", t->name,
			    (unsigned long long)nmin, (unsigned long long)nmax);
	}
}

static void
test_weight(void **state)
{
	(void)state;
	/* a request costs beside its bytes; a delete moves none */
	assert_true(planfile_split_weight(PLANFILE_UPLOAD, 0) > 0);
	assert_true(planfile_split_weight(PLANFILE_COPY, MIB) >
	            planfile_split_weight(PLANFILE_COPY, 0));
	assert_int_equal(planfile_split_weight(PLANFILE_DELETE, GIB),
	    planfile_split_weight(PLANFILE_UPLOAD, 0));
	assert_int_equal(
	    planfile_split_weight(PLANFILE_DOWNLOAD, UINT64_MAX), UINT64_MAX);
}

#define HDR                                                                    \
	"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"        \
	"\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,"               \
	"\"part_size\":8388608,\"multipart_threshold\":8388608}\n"
#define UP(k, n)                                                               \
	"{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"p/" k              \
	"\",\"size\":" #n ",\"source\":{\"size\":" #n                          \
	",\"mtime_ns\":\"1700000000123456789\"},\"destination\":\"absent\"}\n"
#define DELETE(k)                                                              \
	"{\"type\":\"plan\",\"action\":\"delete\",\"key\":\"p/" k              \
	"\",\"size\":3,\"source\":\"absent\",\"destination\":{\"size\":3,"     \
	"\"etag\":\"\\\"abc\\\"\"}}\n"

static const char plan[] =
    HDR UP("a", 1000000) UP("b", 10) UP("c", 10) UP("d", 10) DELETE("e")
        UP("f", 2000000) DELETE("g") "{\"type\":\"left_out\",\"path\":\"x\","
                                     "\"what\":\"fifo\"}\n"
                                     "{\"type\":\"summary\",\"dry_run\":"
                                     "true,\"uploaded\":5,\"copied\":0,"
                                     "\"downloaded\":0,\"deleted\":2,"
                                     "\"skipped\":4,\"bytes_sent\":3000030,"
                                     "\"exit_status\":0}\n";

/* The keys of the actions of the plan at path, in order, into keys. */
static unsigned
part_keys(const char *path, char *keys, size_t cap)
{
	const struct planfile_line *l;
	struct planfile *pf;
	unsigned n = 0;

	keys[0] = '\0';
	assert_int_equal(planfile_open(path, &pf), FERRY_OK);
	while (planfile_next(pf, &l) == FERRY_OK) {
		strncat(keys, l->key + 2, cap - strlen(keys) - 1);
		n++;
	}
	planfile_close(pf);
	return n;
}

static void
test_split_file(void **state)
{
	char dir[] = "/tmp/ferry-plansplit-XXXXXX", path[256], prefix[256];
	char keys[3][32], all[32] = "";
	unsigned i, n = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/plan", dir);
	snprintf(prefix, sizeof(prefix), "%s/part.", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(plan, f);
	fclose(f);
	if (planfile_split(path, 3, prefix) != FERRY_OK)
		fail_msg("%s", ferry_errmsg());
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/part.%u", dir, i);
		n += part_keys(path, keys[i], sizeof(keys[i]));
		unlink(path);
	}
	/* every action once, each part in the plan's order */
	assert_int_equal(n, 7);
	assert_string_equal(keys[0], "a");
	assert_string_equal(keys[1], "bdg");
	assert_string_equal(keys[2], "cef");
	for (i = 0; i < 3; i++)
		strcat(all, keys[i]);
	assert_int_equal(strlen(all), 7);
	/* a plan that does not pass apply's checks is not split */
	snprintf(path, sizeof(path), "%s/plan", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(HDR UP("a", 1), f);
	fclose(f);
	assert_int_not_equal(planfile_split(path, 2, prefix), FERRY_OK);
	snprintf(path, sizeof(path), "%s/part.0", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/plan", dir);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_balance),
	    cmocka_unit_test(test_weight),
	    cmocka_unit_test(test_split_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
