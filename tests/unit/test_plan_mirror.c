/* test_plan_mirror.c: the mirror planner as a table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sync/plan/decide.h"

#define EA "\"0123456789abcdef0123456789abcdef\""
#define EB "\"fedcba9876543210fedcba9876543210\""
#define EM "\"aaaabbbbccccddddeeeeffff00001111-3\""

struct row {
	const char *name;
	int src, dst; /* present */
	uint64_t src_size, dst_size;
	const char *src_etag, *dst_etag;
	const char *rec_src_etag, *rec_etag; /* NULL: no record */
	int del, size_only;
	enum plan_action want;
};

static const struct row rows[] = {
    {"new small", 1, 0, 10, 0, EA, NULL, NULL, NULL, 0, 0, PLAN_COPY},
    {"new big", 1, 0, 100, 0, EA, NULL, NULL, NULL, 0, 0, PLAN_MULTIPART_COPY},
    {"unchanged by the record", 1, 1, 100, 100, EM, EB, EM, EB, 0, 0,
        PLAN_SKIP},
    {"source replaced", 1, 1, 100, 100, EA, EB, EM, EB, 0, 0,
        PLAN_MULTIPART_COPY},
    {"destination replaced by another writer", 1, 1, 10, 10, EA, EB, EA, EA, 0,
        0, PLAN_COPY},
    {"no record, same ETag", 1, 1, 10, 10, EA, EA, NULL, NULL, 0, 0,
        PLAN_CHECK},
    {"no record, other ETag", 1, 1, 10, 10, EA, EB, NULL, NULL, 0, 0,
        PLAN_COPY},
    {"no record, other size", 1, 1, 10, 11, EA, EA, NULL, NULL, 0, 0,
        PLAN_COPY},
    {"no record, size-only", 1, 1, 10, 10, EA, EB, NULL, NULL, 0, 1, PLAN_SKIP},
    {"only in destination", 0, 1, 0, 10, NULL, EA, NULL, NULL, 0, 0, PLAN_SKIP},
    {"only in destination, --delete", 0, 1, 0, 10, NULL, EA, NULL, NULL, 1, 0,
        PLAN_DELETE},
};

static void
test_mirror_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct plan_entry src = {0}, dst = {0};
		struct manifest_remote rec = {0};
		struct plan_opts o = {0};
		struct plan_decision d;

		src.present = r->src;
		src.size = r->src_size;
		src.etag = r->src_etag;
		dst.present = r->dst;
		dst.size = r->dst_size;
		dst.etag = r->dst_etag;
		if (r->rec_etag) {
			rec.size = r->dst_size;
			strcpy(rec.etag, r->rec_etag);
			strcpy(rec.src_etag, r->rec_src_etag);
		}
		o.delete = r->del;
		o.size_only = r->size_only;
		o.copy_threshold = 64;
		plan_mirror(&src, &dst, r->rec_etag ? &rec : NULL, &o, &d);
		if (d.action != r->want)
			fail_msg("%s: got %s, want %s", r->name,
			    plan_action_name(d.action),
			    plan_action_name(r->want));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mirror_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
