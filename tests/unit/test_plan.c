/* test_plan.c: the push planner as a table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sync/plan.h"

static const uint8_t H1[16] = {1, 2, 3};
static const uint8_t H2[16] = {9, 9, 9};

enum rec_kind { NOREC, REC_SAME, REC_OTHER_ETAG, REC_NOHASH };

struct row {
	const char *name;
	int src_present;
	uint64_t src_size;
	const uint8_t *src_hash;
	int dst_present;
	uint64_t dst_size;
	const char *dst_etag;
	enum rec_kind rec;
	const uint8_t *rec_hash;
	int del, size_only;
	enum plan_action want;
};

#define E1 "\"0123456789abcdef0123456789abcdef\""
#define E2 "\"fedcba9876543210fedcba9876543210-3\""

static const struct row rows[] = {
    {"new file", 1, 10, H1, 0, 0, NULL, NOREC, NULL, 0, 0, PLAN_PUT},
    {"new big file", 1, 100, H1, 0, 0, NULL, NOREC, NULL, 0, 0,
        PLAN_MULTIPART_PUT},
    {"threshold is multipart", 1, 64, H1, 0, 0, NULL, NOREC, NULL, 0, 0,
        PLAN_MULTIPART_PUT},
    {"unchanged", 1, 10, H1, 1, 10, E1, REC_SAME, H1, 0, 0, PLAN_SKIP},
    {"touched, same bytes", 1, 10, H1, 1, 10, E1, REC_SAME, H1, 0, 0,
        PLAN_SKIP},
    {"same size new bytes", 1, 10, H2, 1, 10, E1, REC_SAME, H1, 0, 0, PLAN_PUT},
    {"grew", 1, 11, H2, 1, 10, E1, REC_SAME, H1, 0, 0, PLAN_PUT},
    {"record without hash", 1, 10, H1, 1, 10, E1, REC_NOHASH, NULL, 0, 0,
        PLAN_PUT},
    {"object replaced by another writer, same size", 1, 10, H1, 1, 10, E2,
        REC_OTHER_ETAG, H1, 0, 0, PLAN_CHECK},
    {"object replaced, other size", 1, 10, H1, 1, 12, E2, REC_OTHER_ETAG, H1, 0,
        0, PLAN_PUT},
    {"lost manifest same size", 1, 10, H1, 1, 10, E1, NOREC, NULL, 0, 0,
        PLAN_CHECK},
    {"lost manifest same size, size-only", 1, 10, H1, 1, 10, E1, NOREC, NULL, 0,
        1, PLAN_SKIP},
    {"lost manifest other size", 1, 9, H1, 1, 10, E1, NOREC, NULL, 0, 1,
        PLAN_PUT},
    {"only in destination", 0, 0, NULL, 1, 10, E1, NOREC, NULL, 0, 0,
        PLAN_SKIP},
    {"only in destination, --delete", 0, 0, NULL, 1, 10, E1, REC_SAME, H1, 1, 0,
        PLAN_DELETE},
    {"neither", 0, 0, NULL, 0, 0, NULL, NOREC, NULL, 1, 0, PLAN_SKIP},
};

static void
test_push_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct plan_entry src = {0}, dst = {0};
		struct manifest_remote rec = {0};
		struct plan_opts o = {0};
		struct plan_decision d;

		src.present = r->src_present;
		src.size = r->src_size;
		src.hash = r->src_hash;
		dst.present = r->dst_present;
		dst.size = r->dst_size;
		dst.etag = r->dst_etag;
		rec.size = r->dst_size;
		strcpy(rec.etag, r->rec == REC_OTHER_ETAG ? E1 : E2);
		if (r->rec == REC_SAME || r->rec == REC_NOHASH)
			strcpy(rec.etag, r->dst_etag);
		if (r->rec_hash) {
			memcpy(rec.hash, r->rec_hash, 16);
			rec.has_hash = 1;
		}
		o.delete = r->del;
		o.size_only = r->size_only;
		o.multipart_threshold = 64;
		plan_push(&src, &dst, r->rec == NOREC ? NULL : &rec, &o, &d);
		if (d.action != r->want)
			fail_msg("%s: got %s, want %s", r->name,
			    plan_action_name(d.action),
			    plan_action_name(r->want));
		assert_non_null(d.reason);
	}
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(
	    plan_action_name(PLAN_MULTIPART_PUT), "multipart_put");
	assert_string_equal(plan_action_name(PLAN_DELETE), "delete");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_push_table),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
