/* test_plan.c: the push planner as a table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sync/run/opts.h"
#include "sync/plan/decide.h"

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

/*
 * Push, a file whose bytes its object holds (the record says so): what its
 * metadata decides.  The record stored mode 0100644, owner 1000:100 and
 * mtime T; the object was listed as written at second LM.
 */
#define T 1700000000000000000LL
#define LM 1700000100LL
#define REG 0100644
struct meta_row {
	const char *name;
	uint32_t mode;
	int64_t mtime_ns;
	int has_owner;
	uint32_t uid, gid;
	int64_t ctime_s;
	int has_meta; /* 0: a record of an older ferry */
	uint64_t size;
	int metadata; /* plan_opts.metadata (0: --size-only) */
	enum plan_action want;
};

static const struct meta_row meta_rows[] = {
    {"as stored", REG, T, 1, 1000, 100, LM + 50, 1, 10, 1, PLAN_SKIP},
    {"chmod", 0100600, T, 1, 1000, 100, LM + 50, 1, 10, 1, PLAN_METADATA},
    {"touch -m", REG, T + 1, 1, 1000, 100, LM + 50, 1, 10, 1, PLAN_METADATA},
    {"chown", REG, T, 1, 0, 100, LM + 50, 1, 10, 1, PLAN_METADATA},
    {"chgrp", REG, T, 1, 1000, 0, LM + 50, 1, 10, 1, PLAN_METADATA},
    {"owner not scanned", REG, T, 0, 0, 0, LM + 50, 1, 10, 1, PLAN_SKIP},
    {"chmod, --size-only", 0100600, T, 1, 1000, 100, LM + 50, 1, 10, 0,
        PLAN_SKIP},
    {"chmod of a symlink's object", 0120777, T, 1, 1000, 100, LM + 50, 1, 10, 1,
        PLAN_SKIP},
    {"chmod, over 5 GiB (copied in parts)", 0100600, T, 1, 1000, 100, LM + 50,
        1, 6ULL << 30, 1, PLAN_METADATA},
    {"chmod, just 5 GiB", 0100600, T, 1, 1000, 100, LM + 50, 1, 5ULL << 30, 1,
        PLAN_METADATA},
    {"old record, inode unchanged since", 0100600, T, 1, 1000, 100, LM, 0, 10,
        1, PLAN_SKIP},
    {"old record, inode changed after", 0100600, T, 1, 1000, 100, LM + 1, 0, 10,
        1, PLAN_METADATA},
    {"old record, changed after, --size-only", 0100600, T, 1, 1000, 100, LM + 1,
        0, 10, 0, PLAN_SKIP},
};

static void
test_metadata_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(meta_rows) / sizeof(meta_rows[0]); i++) {
		const struct meta_row *r = &meta_rows[i];
		struct plan_entry src = {.present = 1,
		    .size = r->size,
		    .hash = H1,
		    .mtime_ns = r->mtime_ns,
		    .ctime_ns = r->ctime_s * 1000000000 + 5,
		    .mode = r->mode,
		    .has_owner = r->has_owner,
		    .uid = r->uid,
		    .gid = r->gid};
		struct plan_entry dst = {.present = 1,
		    .size = r->size,
		    .etag = E1,
		    .last_modified = LM};
		struct manifest_remote rec = {.size = r->size,
		    .mtime_ns = T,
		    .has_hash = 1,
		    .has_meta = (uint8_t)r->has_meta,
		    .meta_mode = REG,
		    .meta_uid = 1000,
		    .meta_gid = 100};
		struct plan_opts o = {.metadata = r->metadata,
		    .size_only = !r->metadata,
		    .multipart_threshold = 64};
		struct plan_decision d;

		memcpy(rec.hash, H1, 16);
		strcpy(rec.etag, E1);
		plan_push(&src, &dst, &rec, &o, &d);
		if (d.action != r->want)
			fail_msg("%s: got %s, want %s", r->name,
			    plan_action_name(d.action),
			    plan_action_name(r->want));
		assert_non_null(d.reason);
	}
	/* the content changed with the mode: an upload, no copy */
	{
		struct plan_entry src = {.present = 1,
		    .size = 10,
		    .hash = H2,
		    .mode = 0100600,
		    .has_owner = 1};
		struct plan_entry dst = {.present = 1, .size = 10, .etag = E1};
		struct manifest_remote rec = {
		    .size = 10, .has_hash = 1, .has_meta = 1, .meta_mode = REG};
		struct plan_opts o = {.metadata = 1, .multipart_threshold = 64};
		struct plan_decision d;

		memcpy(rec.hash, H1, 16);
		strcpy(rec.etag, E1);
		plan_push(&src, &dst, &rec, &o, &d);
		assert_int_equal(d.action, PLAN_PUT);
	}
	assert_string_equal(plan_action_name(PLAN_METADATA), "metadata");
}

/* Pull: the object is the source, the local file the destination. */
struct pull_row {
	const char *name;
	int obj_present;
	uint64_t obj_size;
	const char *obj_etag;
	int local_present;
	uint64_t local_size;
	const uint8_t *local_hash;
	enum rec_kind rec;
	const uint8_t *rec_hash;
	int del, size_only;
	enum plan_action want;
};

static const struct pull_row pull_rows[] = {
    {"no local file", 1, 10, E1, 0, 0, NULL, NOREC, NULL, 0, 0, PLAN_GET},
    {"no local file, big object", 1, 100, E2, 0, 0, NULL, NOREC, NULL, 0, 0,
        PLAN_RANGED_GET},
    {"threshold is ranged", 1, 64, E1, 0, 0, NULL, NOREC, NULL, 0, 0,
        PLAN_RANGED_GET},
    {"no local file, stale record", 1, 10, E1, 0, 0, NULL, REC_SAME, H1, 0, 0,
        PLAN_GET},
    {"unchanged", 1, 10, E1, 1, 10, H1, REC_SAME, H1, 0, 0, PLAN_SKIP},
    {"unchanged big object", 1, 100, E2, 1, 100, H1, REC_SAME, H1, 0, 0,
        PLAN_SKIP},
    {"local file modified, same size", 1, 10, E1, 1, 10, H2, REC_SAME, H1, 0, 0,
        PLAN_GET},
    {"local file modified, other size", 1, 10, E1, 1, 12, H2, REC_SAME, H1, 0,
        0, PLAN_GET},
    {"local big file modified", 1, 100, E2, 1, 100, H2, REC_SAME, H1, 0, 0,
        PLAN_RANGED_GET},
    {"record without hash", 1, 10, E1, 1, 10, H1, REC_NOHASH, NULL, 0, 0,
        PLAN_GET},
    {"object replaced, same size", 1, 10, E1, 1, 10, H1, REC_OTHER_ETAG, H1, 0,
        0, PLAN_CHECK},
    {"object replaced, other size", 1, 12, E1, 1, 10, H1, REC_OTHER_ETAG, H1, 0,
        0, PLAN_GET},
    {"object replaced, size-only", 1, 10, E1, 1, 10, H1, REC_OTHER_ETAG, H1, 0,
        1, PLAN_SKIP},
    {"lost manifest, same size", 1, 10, E1, 1, 10, H1, NOREC, NULL, 0, 0,
        PLAN_CHECK},
    {"lost manifest, same size multipart", 1, 100, E2, 1, 100, H1, NOREC, NULL,
        0, 0, PLAN_CHECK},
    {"lost manifest, same size, size-only", 1, 10, E1, 1, 10, H1, NOREC, NULL,
        0, 1, PLAN_SKIP},
    {"lost manifest, other size", 1, 10, E1, 1, 9, H1, NOREC, NULL, 0, 1,
        PLAN_GET},
    {"only local", 0, 0, NULL, 1, 10, H1, NOREC, NULL, 0, 0, PLAN_SKIP},
    {"only local, --delete", 0, 0, NULL, 1, 10, H1, REC_SAME, H1, 1, 0,
        PLAN_DELETE},
    {"neither", 0, 0, NULL, 0, 0, NULL, NOREC, NULL, 1, 0, PLAN_SKIP},
};

static void
pull_check_row(const struct pull_row *r)
{
	struct plan_entry src = {0}, dst = {0};
	struct manifest_remote rec = {0};
	struct plan_opts o = {0};
	struct plan_decision d;

	src.present = r->obj_present;
	src.size = r->obj_size;
	src.etag = r->obj_etag;
	dst.present = r->local_present;
	dst.size = r->local_size;
	dst.hash = r->local_hash;
	rec.size = r->obj_size;
	strcpy(rec.etag, r->rec == REC_OTHER_ETAG ? E2 : E1);
	if ((r->rec == REC_SAME || r->rec == REC_NOHASH) && r->obj_etag)
		strcpy(rec.etag, r->obj_etag);
	if (r->rec_hash) {
		memcpy(rec.hash, r->rec_hash, 16);
		rec.has_hash = 1;
	}
	o.delete = r->del;
	o.size_only = r->size_only;
	o.multipart_threshold = 64;
	plan_pull(&src, &dst, r->rec == NOREC ? NULL : &rec, &o, &d);
	if (d.action != r->want)
		fail_msg("%s: got %s, want %s", r->name,
		    plan_action_name(d.action), plan_action_name(r->want));
	assert_non_null(d.reason);
}

static void
test_pull_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pull_rows) / sizeof(pull_rows[0]); i++)
		pull_check_row(&pull_rows[i]);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(
	    plan_action_name(PLAN_MULTIPART_PUT), "multipart_put");
	assert_string_equal(plan_action_name(PLAN_DELETE), "delete");
	assert_string_equal(plan_action_name(PLAN_RANGED_GET), "ranged_get");
}

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)

/* The part size: chosen by size when none is given, else as given. */
static const struct {
	uint64_t (*fn)(uint64_t size, uint64_t want);
	uint64_t size, want, part;
} part_rows[] = {
    {sync_part_size, 0, 0, 8 * MiB},
    {sync_part_size, MiB, 0, 8 * MiB},
    {sync_part_size, 64 * MiB, 0, 8 * MiB},
    {sync_part_size, 72 * MiB, 0, 9 * MiB},
    {sync_part_size, 100 * MiB, 0, 13 * MiB},
    {sync_part_size, 256 * MiB, 0, 32 * MiB},
    {sync_part_size, GiB, 0, 128 * MiB},
    {sync_part_size, 100 * GiB, 0, 128 * MiB},
    {sync_part_size, TiB, 0, 128 * MiB},
    /* no more than 10,000 parts: 2 TiB / 10,000 is 209.72 MiB */
    {sync_part_size, 2 * TiB, 0, 210 * MiB},
    {sync_part_size, 5 * TiB, 0, 525 * MiB},
    {sync_part_size, GiB, 8 * MiB, 8 * MiB},
    {sync_part_size, GiB, 5 * MiB, 5 * MiB},
    {sync_part_size, GiB, MiB, 5 * MiB},
    {sync_part_size, GiB, 6 * MiB + 1, 7 * MiB},
    {sync_part_size, 100 * GiB, 5 * MiB, 11 * MiB},
    {sync_part_size, 5 * TiB, 5 * GiB, 5 * GiB},
    /* the ranges of downloads: smaller, more of them */
    {sync_range_size, 0, 0, 8 * MiB},
    {sync_range_size, 128 * MiB, 0, 8 * MiB},
    {sync_range_size, 144 * MiB, 0, 9 * MiB},
    {sync_range_size, 200 * MiB, 0, 13 * MiB},
    {sync_range_size, 256 * MiB, 0, 16 * MiB},
    {sync_range_size, GiB, 0, 64 * MiB},
    {sync_range_size, 100 * GiB, 0, 64 * MiB},
    /* no more than 10,000 parts: 1 TiB / 10,000 is 104.86 MiB */
    {sync_range_size, TiB, 0, 105 * MiB},
    {sync_range_size, GiB, 128 * MiB, 128 * MiB},
    {sync_range_size, GiB, MiB, 5 * MiB},
};

static void
test_part_size(void **state)
{
	size_t i;
	uint64_t got;

	(void)state;
	for (i = 0; i < sizeof(part_rows) / sizeof(part_rows[0]); i++) {
		got = part_rows[i].fn(part_rows[i].size, part_rows[i].want);
		if (got != part_rows[i].part)
			fail_msg("row %zu: %llu for %llu bytes", i,
			    (unsigned long long)got,
			    (unsigned long long)part_rows[i].size);
	}
}

/*
 * --min/--max-size and --min/--max-age: the source's entry decides, and
 * a destination entry alone only when it is inside the bounds.  Sizes
 * and times (seconds) for each side; 0 size: absent.
 */
struct bounds_row {
	const char *name;
	uint64_t src_size;
	int64_t src_t;
	uint64_t dst_size;
	int64_t dst_t;
	enum plan_action push, pull, mirror;
};

/* Bounds: sizes 10 to 100, times 1000 to 2000. */
static const struct bounds_row bounds_rows[] = {
    {"inside, new", 50, 1500, 0, 0, PLAN_PUT, PLAN_GET, PLAN_COPY},
    {"too small", 5, 1500, 0, 0, PLAN_SKIP, PLAN_SKIP, PLAN_SKIP},
    {"too large", 101, 1500, 0, 0, PLAN_SKIP, PLAN_SKIP, PLAN_SKIP},
    {"too old", 50, 999, 0, 0, PLAN_SKIP, PLAN_SKIP, PLAN_SKIP},
    {"too new", 50, 2001, 0, 0, PLAN_SKIP, PLAN_SKIP, PLAN_SKIP},
    {"edges are inside", 10, 2000, 0, 0, PLAN_PUT, PLAN_GET, PLAN_COPY},
    {"source outside, destination inside", 5, 1500, 50, 1500, PLAN_SKIP,
        PLAN_SKIP, PLAN_SKIP},
    {"source inside, destination outside", 50, 1500, 500, 5000, PLAN_PUT,
        PLAN_GET, PLAN_COPY},
    {"only in destination, inside", 0, 0, 50, 1500, PLAN_DELETE, PLAN_DELETE,
        PLAN_DELETE},
    {"only in destination, too large", 0, 0, 500, 1500, PLAN_SKIP, PLAN_SKIP,
        PLAN_SKIP},
    {"only in destination, too new", 0, 0, 50, 3000, PLAN_SKIP, PLAN_SKIP,
        PLAN_SKIP},
};

/* An entry of size n (0: absent) at t, local or listed. */
static struct plan_entry
bounds_entry(uint64_t n, int64_t t, int local)
{
	struct plan_entry e = {.present = n > 0,
	    .size = n,
	    .hash = H1,
	    .etag = local ? NULL : "\"x\""};

	if (local)
		e.mtime_ns = t * 1000000000 + 999999999;
	else
		e.last_modified = t;
	return e;
}

static void
test_bounds_table(void **state)
{
	const struct bounds_row *r;
	struct plan_entry sl, sr, dl, dr;
	struct plan_decision d[3];
	struct plan_opts o = {.delete = 1,
	    .bounded = 1,
	    .min_size = 10,
	    .max_size = 100,
	    .oldest = 1000,
	    .newest = 2000};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bounds_rows) / sizeof(bounds_rows[0]); i++) {
		r = &bounds_rows[i];
		sl = bounds_entry(r->src_size, r->src_t, 1);
		sr = bounds_entry(r->src_size, r->src_t, 0);
		dl = bounds_entry(r->dst_size, r->dst_t, 1);
		dr = bounds_entry(r->dst_size, r->dst_t, 0);
		plan_push(&sl, &dr, NULL, &o, &d[0]);
		plan_pull(&sr, &dl, NULL, &o, &d[1]);
		plan_mirror(&sr, &dr, NULL, &o, &d[2]);
		if (d[0].action != r->push || d[1].action != r->pull ||
		    d[2].action != r->mirror)
			fail_msg("%s: got %s %s %s", r->name,
			    plan_action_name(d[0].action),
			    plan_action_name(d[1].action),
			    plan_action_name(d[2].action));
	}
	/* without bounded, the same sizes and times are not looked at */
	o.bounded = 0;
	sl = bounds_entry(5, 3000, 1);
	dr = bounds_entry(0, 0, 0);
	plan_push(&sl, &dr, NULL, &o, &d[0]);
	assert_int_equal(d[0].action, PLAN_PUT);
}

/*
 * Only in the destination, with the source read from an inventory made
 * at 1000 s: deleted only when it last changed before then (a local file
 * by its mtime or, when later, its inode change).
 */
static void
test_inventory_deletes(void **state)
{
	static const struct {
		int64_t mtime, ctime, last_modified;
		enum plan_action pull, mirror;
	} inv_rows[] = {
	    {999, 999, 999, PLAN_DELETE, PLAN_DELETE},
	    {1000, 999, 1000, PLAN_SKIP, PLAN_SKIP},
	    {5, 1000, 1001, PLAN_SKIP, PLAN_SKIP},
	    {1001, 5, 0, PLAN_SKIP, PLAN_DELETE},
	};
	struct plan_opts o = {.delete = 1, .inventory_time = 1000};
	struct plan_entry none = {0}, dl = {.present = 1}, dr = {.present = 1};
	struct plan_decision d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(inv_rows) / sizeof(inv_rows[0]); i++) {
		dl.mtime_ns = inv_rows[i].mtime * 1000000000 + 999999999;
		dl.ctime_ns = inv_rows[i].ctime * 1000000000;
		dr.last_modified = inv_rows[i].last_modified;
		plan_pull(&none, &dl, NULL, &o, &d);
		assert_int_equal(d.action, inv_rows[i].pull);
		plan_mirror(&none, &dr, NULL, &o, &d);
		assert_int_equal(d.action, inv_rows[i].mirror);
	}
	/* without an inventory, whatever the times */
	o.inventory_time = 0;
	plan_mirror(&none, &dr, NULL, &o, &d);
	assert_int_equal(d.action, PLAN_DELETE);
	assert_string_equal(d.reason, "not in source");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_push_table),
	    cmocka_unit_test(test_metadata_table),
	    cmocka_unit_test(test_inventory_deletes),
	    cmocka_unit_test(test_pull_table),
	    cmocka_unit_test(test_bounds_table),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_part_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
