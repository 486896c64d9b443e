/*
 * test_planfile.c: the plan-file parser as a table of good and bad lines,
 * and the file checks (header first, summary last, counts, prefixes) on
 * small files.
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

#define HDR                                                                    \
	"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"        \
	"\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,"               \
	"\"part_size\":8388608,\"multipart_threshold\":8388608}"
#define LOCAL "{\"size\":3,\"mtime_ns\":\"1700000000123456789\"}"
#define LOCAL_H                                                                \
	"{\"size\":3,\"mtime_ns\":\"1700000000123456789\","                    \
	"\"xxh128\":\"00112233445566778899aabbccddeeff\"}"
#define OBJ "{\"size\":3,\"etag\":\"\\\"abc\\\"\"}"
#define UP(src, dst)                                                           \
	"{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"p/a\",\"size\":3," \
	"\"source\":" src ",\"destination\":" dst "}"
#define SUMMARY(n)                                                             \
	"{\"type\":\"summary\",\"dry_run\":true,\"uploaded\":" #n              \
	",\"copied\":0,\"downloaded\":0,\"deleted\":0,\"exit_status\":0}"

#define DOWN(src)                                                              \
	"{\"type\":\"plan\",\"action\":\"download\",\"key\":\"p/a\","          \
	"\"size\":3,\"source\":" src ",\"destination\":\"absent\"}"
#define V16 "vvvvvvvvvvvvvvvv"
#define V256 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16 V16

struct row {
	const char *line;
	ferry_err want;
	enum planfile_kind kind;
	const char *detail; /* in ferry_errmsg() on failure */
};

static const struct row rows[] = {
    {HDR, FERRY_OK, PLANFILE_HEADER, NULL},
    {UP(LOCAL, "\"absent\""), FERRY_OK, PLANFILE_ACTION, NULL},
    {UP(LOCAL_H, OBJ), FERRY_OK, PLANFILE_ACTION, NULL},
    {"{\"type\":\"plan\",\"action\":\"delete\",\"key\":\"p/a\",\"size\":0,"
     "\"source\":\"absent\",\"destination\":" OBJ "}",
        FERRY_OK, PLANFILE_ACTION, NULL},
    {"{\"type\":\"plan\",\"action\":\"download\",\"key\":\"p/a\",\"size\":3,"
     "\"source\":" OBJ ",\"destination\":" LOCAL "}",
        FERRY_OK, PLANFILE_ACTION, NULL},
    {"{\"type\":\"plan\",\"action\":\"copy\",\"key\":\"m/a\",\"size\":3,"
     "\"source\":" OBJ ",\"destination\":\"absent\"}",
        FERRY_OK, PLANFILE_ACTION, NULL},
    {SUMMARY(2), FERRY_OK, PLANFILE_SUMMARY, NULL},
    /* what a push left out: told, and skipped by apply */
    {"{\"type\":\"left_out\",\"key\":\"l\",\"reason\":\"symlink\"}", FERRY_OK,
        PLANFILE_NOTE, NULL},
    /* malformed */
    {"", FERRY_EPARSE, 0, "not a JSON object"},
    {"[1,2]", FERRY_EPARSE, 0, "not a JSON object"},
    {"{\"type\":\"plan\"", FERRY_EPARSE, 0, "not a JSON object"},
    {"{\"kind\":\"plan\"}", FERRY_EPARSE, 0, "no \"type\""},
    {"{\"type\":\"upload\"}", FERRY_EPARSE, 0, "unknown \"type\""},
    {"{\"type\":\"plan\",\"action\":\"move\",\"key\":\"a\"}", FERRY_EPARSE, 0,
        "unknown action"},
    {"{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"\",\"size\":3,"
     "\"source\":" LOCAL ",\"destination\":\"absent\"}",
        FERRY_EPARSE, 0, "\"key\" is empty"},
    {"{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"p/a\",\"size\":-3,"
     "\"source\":" LOCAL ",\"destination\":\"absent\"}",
        FERRY_EPARSE, 0, "\"size\" is not"},
    {"{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"p/a\",\"size\":1.5,"
     "\"source\":" LOCAL ",\"destination\":\"absent\"}",
        FERRY_EPARSE, 0, "\"size\" is not"},
    {"{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"p/a\",\"size\":3,"
     "\"destination\":\"absent\"}",
        FERRY_EPARSE, 0, "\"source\" is neither"},
    {UP("\"gone\"", "\"absent\""), FERRY_EPARSE, 0, "\"source\" is neither"},
    {UP("{\"size\":3}", "\"absent\""), FERRY_EPARSE, 0, "neither \"etag\""},
    {UP("{\"size\":3,\"mtime_ns\":17}", "\"absent\""), FERRY_EPARSE, 0,
        "neither \"etag\""},
    {UP("{\"size\":3,\"mtime_ns\":\"17x\"}", "\"absent\""), FERRY_EPARSE, 0,
        "no integer"},
    {UP("{\"size\":3,\"mtime_ns\":\"99999999999999999999\"}", "\"absent\""),
        FERRY_EPARSE, 0, "no integer"},
    {UP("{\"size\":3,\"mtime_ns\":\"1\",\"xxh128\":\"0011\"}", "\"absent\""),
        FERRY_EPARSE, 0, "32 hex"},
    {UP("{\"size\":3,\"mtime_ns\":\"1\",\"xxh128\":"
        "\"0011223344556677889900aabbccddXX\"}",
         "\"absent\""),
        FERRY_EPARSE, 0, "32 hex"},
    {UP("{\"size\":3,\"etag\":\"x\",\"mtime_ns\":\"1\"}", "\"absent\""),
        FERRY_EPARSE, 0, "both"},
    /* an upload needs a local source and no local destination */
    {UP(OBJ, "\"absent\""), FERRY_EPARSE, 0, "does not fit a upload"},
    {UP(LOCAL, LOCAL), FERRY_EPARSE, 0, "does not fit a upload"},
    {"{\"type\":\"plan\",\"action\":\"delete\",\"key\":\"p/a\",\"size\":0,"
     "\"source\":" LOCAL ",\"destination\":" OBJ "}",
        FERRY_EPARSE, 0, "does not fit a delete"},
    {"{\"type\":\"plan\",\"action\":\"delete\",\"key\":\"p/a\",\"size\":0,"
     "\"source\":\"absent\",\"destination\":\"absent\"}",
        FERRY_EPARSE, 0, "does not fit a delete"},
    {"{\"type\":\"plan\",\"action\":\"download\",\"key\":\"p/a\",\"size\":3,"
     "\"source\":" LOCAL ",\"destination\":\"absent\"}",
        FERRY_EPARSE, 0, "does not fit a download"},
    /* headers */
    {"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":3,"
     "\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,"
     "\"part_size\":8388608,\"multipart_threshold\":8388608}",
        FERRY_EUSAGE, 0, "plan version 3"},
    /* version 2: sources may name their versions (--at) */
    {"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":2,"
     "\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,"
     "\"part_size\":8388608,\"multipart_threshold\":8388608}",
        FERRY_OK, PLANFILE_HEADER, NULL},
    {DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":\"v1\"}"), FERRY_OK,
        PLANFILE_ACTION, NULL},
    {DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":\"\"}"), FERRY_EPARSE, 0,
        "\"version_id\" is empty"},
    {DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":7}"), FERRY_EPARSE, 0,
        "\"version_id\" is not a string"},
    {DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":\"" V256 "\"}"),
        FERRY_EPARSE, 0, "longer than 255 bytes"},
    /* what goes into a request header: no line break, no control byte */
    {DOWN("{\"size\":3,\"etag\":\"\\\"x\\\"\\r\\nX-Injected: yes\"}"),
        FERRY_EPARSE, 0, "\"etag\" holds a control byte"},
    {DOWN("{\"size\":3,\"etag\":\"x\\n\"}"), FERRY_EPARSE, 0,
        "\"etag\" holds a control byte"},
    {DOWN("{\"size\":3,\"etag\":\"x\\u007f\"}"), FERRY_EPARSE, 0,
        "\"etag\" holds a control byte"},
    {DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":\"v\\r\\nA: b\"}"),
        FERRY_EPARSE, 0, "\"version_id\" holds a control byte"},
    {DOWN("{\"size\":3,\"etag\":\"x\\ty\"}"), FERRY_OK, PLANFILE_ACTION, NULL},
    {"{\"type\":\"header\",\"format\":\"other\",\"version\":1}", FERRY_EUSAGE,
        0, "not a ferry plan"},
    {"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"
     "\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":1,"
     "\"part_size\":8388608,\"multipart_threshold\":8388608}",
        FERRY_EPARSE, 0, "\"delete\" is not"},
    {"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"
     "\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,"
     "\"follow_symlinks\":\"yes\","
     "\"part_size\":8388608,\"multipart_threshold\":8388608}",
        FERRY_EPARSE, 0, "\"follow_symlinks\" is not"},
    {"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"
     "\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,"
     "\"part_size\":1024,\"multipart_threshold\":8388608}",
        FERRY_EPARSE, 0, "out of range"},
    {"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"
     "\"dst\":\"s3://bkt/p\",\"delete\":true,"
     "\"part_size\":8388608,\"multipart_threshold\":8388608}",
        FERRY_EPARSE, 0, "\"src\" is not"},
/* a split plan's part: "I/N" as --shard reads it */
#define PART(v)                                                                \
	"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"        \
	"\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":true,\"part\":" v    \
	",\"part_size\":8388608,\"multipart_threshold\":8388608}"
    {PART("\"1/4\""), FERRY_OK, PLANFILE_HEADER, NULL},
    {PART("\"4/4\""), FERRY_EPARSE, 0, "\"part\" is not"},
    {PART("\"1/4 \""), FERRY_EPARSE, 0, "\"part\" is not"},
    {PART("\"1/+4\""), FERRY_EPARSE, 0, "\"part\" is not"},
    {PART("\"0/4294967297\""), FERRY_EPARSE, 0, "\"part\" is not"},
    {PART("14"), FERRY_EPARSE, 0, "\"part\" is not"},
    /* summaries */
    {"{\"type\":\"summary\",\"dry_run\":false,\"uploaded\":1,\"copied\":0,"
     "\"downloaded\":0,\"deleted\":0,\"exit_status\":0}",
        FERRY_EPARSE, 0, "not a plan's"},
    {"{\"type\":\"summary\",\"dry_run\":true,\"uploaded\":1,\"copied\":0,"
     "\"deleted\":0,\"exit_status\":0}",
        FERRY_EPARSE, 0, "\"downloaded\""},
};

static void
test_lines(void **state)
{
	struct planfile_line *l = malloc(sizeof(*l));
	size_t i;
	ferry_err e;

	(void)state;
	assert_non_null(l);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = planfile_parse_line(rows[i].line, strlen(rows[i].line), l);
		if (e != rows[i].want ||
		    (e == FERRY_OK && l->kind != rows[i].kind))
			fail_msg("row %zu: got %d (%s), want %d", i, (int)e,
			    ferry_errmsg(), (int)rows[i].want);
		if (rows[i].detail &&
		    strstr(ferry_errmsg(), rows[i].detail) == NULL)
			fail_msg("row %zu: '%s' lacks '%s'", i, ferry_errmsg(),
			    rows[i].detail);
	}
	free(l);
}

static void
test_fields(void **state)
{
	struct planfile_line *l = malloc(sizeof(*l));
	const char *s = UP(LOCAL_H, OBJ);

	(void)state;
	assert_non_null(l);
	assert_int_equal(planfile_parse_line(s, strlen(s), l), FERRY_OK);
	assert_int_equal(l->action, PLANFILE_UPLOAD);
	assert_string_equal(l->key, "p/a");
	assert_true(l->src.present && l->src.local && l->src.has_hash);
	assert_true(l->src.mtime_ns == 1700000000123456789LL);
	assert_int_equal(l->src.hash[15], 0xff);
	assert_true(l->dst.present && !l->dst.local);
	assert_string_equal(l->dst.etag, "\"abc\"");
	free(l);
}

/*
 * Writes text to a temporary file and opens it as a plan, by its name or,
 * with via_stdin, as "-" with the file as standard input.
 */
static ferry_err
open_text(const char *text, int via_stdin, struct planfile **pf)
{
	char path[] = "/tmp/ferry-test-planfile.XXXXXX";
	int fd = mkstemp(path);
	ferry_err e;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	if (via_stdin)
		assert_non_null(freopen(path, "r", stdin));
	e = planfile_open(via_stdin ? "-" : path, pf);
	unlink(path);
	return e;
}

struct file_row {
	const char *text;
	ferry_err want;
	const char *detail;
};

static const struct file_row files[] = {
    {HDR "\n" UP(LOCAL, "\"absent\"") "\n" SUMMARY(1) "\n", FERRY_OK, NULL},
    {HDR "\n" UP(LOCAL, "\"absent\"") "\n" SUMMARY(1), FERRY_OK, NULL},
    {HDR "\n" SUMMARY(0) "\n", FERRY_OK, NULL},
    {"", FERRY_EUSAGE, "not a plan header"},
    {HDR "\n" UP(LOCAL, "\"absent\"") "\n", FERRY_EUSAGE, "truncated"},
    {HDR "\n" UP(LOCAL, "\"absent\"") "\n{\"type\":\"sum", FERRY_EUSAGE,
        "line 3"},
    {HDR "\n" UP(LOCAL, "\"absent\"") "\n" SUMMARY(2) "\n", FERRY_EUSAGE,
        "counts 2 actions"},
    {HDR "\n" SUMMARY(0) "\n" SUMMARY(0) "\n", FERRY_EUSAGE,
        "after the summary"},
    {HDR "\n" HDR "\n" SUMMARY(0) "\n", FERRY_EUSAGE, "a second header"},
    {UP(LOCAL, "\"absent\"") "\n" SUMMARY(1) "\n", FERRY_EUSAGE,
        "not a plan header"},
    /* under another prefix, or an action of another direction */
    {HDR "\n"
         "{\"type\":\"plan\",\"action\":\"upload\",\"key\":\"q/a\","
         "\"size\":3,\"source\":" LOCAL
         ",\"destination\":\"absent\"}\n" SUMMARY(1) "\n",
        FERRY_EUSAGE, "not under the prefix"},
    {HDR "\n"
         "{\"type\":\"plan\",\"action\":\"copy\",\"key\":\"p/a\","
         "\"size\":3,\"source\":" OBJ ",\"destination\":\"absent\"}\n"
         "{\"type\":\"summary\",\"dry_run\":true,\"uploaded\":0,"
         "\"copied\":1,\"downloaded\":0,\"deleted\":0,\"exit_status\":0}\n",
        FERRY_EUSAGE, "a copy in a plan"},
    {HDR "\n"
         "{\"type\":\"summary\",\"dry_run\":true,\"uploaded\":0,"
         "\"copied\":0,\"downloaded\":0,\"deleted\":0,\"exit_status\":3}\n",
        FERRY_EUSAGE, "did not finish"},
};

static void
run_files(int via_stdin)
{
	const struct planfile_line *l;
	struct planfile *pf;
	size_t i;
	ferry_err e;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		pf = NULL;
		e = open_text(files[i].text, via_stdin, &pf);
		if (e != files[i].want)
			fail_msg(
			    "file %zu: got %d (%s)", i, (int)e, ferry_errmsg());
		if (files[i].detail &&
		    strstr(ferry_errmsg(), files[i].detail) == NULL)
			fail_msg("file %zu: '%s' lacks '%s'", i, ferry_errmsg(),
			    files[i].detail);
		if (e != FERRY_OK) {
			assert_null(pf);
			continue;
		}
		assert_string_equal(planfile_header(pf)->dst, "s3://bkt/p");
		while ((e = planfile_next(pf, &l)) == FERRY_OK)
			assert_int_equal(l->action, PLANFILE_UPLOAD);
		assert_int_equal(e, FERRY_ENOTFOUND);
		planfile_close(pf);
	}
}

static void
test_files(void **state)
{
	(void)state;
	run_files(0);
}

/* "-": standard input, copied so that it can be read twice */
static void
test_files_stdin(void **state)
{
	struct planfile *pf = NULL;

	(void)state;
	run_files(1);
	assert_int_equal(open_text("", 1, &pf), FERRY_EUSAGE);
	assert_non_null(strstr(ferry_errmsg(), "standard input"));
}

/* -L in a plan's header: false when absent (plans written before it). */
static void
test_header_follow(void **state)
{
	static const char follow[] =
	    "{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"
	    "\"src\":\"/t\",\"dst\":\"s3://bkt/p\",\"delete\":false,"
	    "\"follow_symlinks\":true,"
	    "\"part_size\":0,\"multipart_threshold\":8388608}";
	static struct planfile_line l;

	(void)state;
	assert_int_equal(
	    planfile_parse_line(follow, strlen(follow), &l), FERRY_OK);
	assert_int_equal(l.hdr.follow_symlinks, 1);
	assert_int_equal(planfile_parse_line(HDR, strlen(HDR), &l), FERRY_OK);
	assert_int_equal(l.hdr.follow_symlinks, 0);
}

/*
 * A mirror's copies in parts from copy_threshold; a plan written before
 * it copied in parts from multipart_threshold, and still does.
 */
static void
test_header_copy(void **state)
{
#define COPY_HDR(v)                                                            \
	"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":1,"        \
	"\"src\":\"s3://a/p\",\"dst\":\"s3://b/p\",\"delete\":false,"          \
	"\"part_size\":0,\"multipart_threshold\":8388608" v "}"
	static const char *bad[] = {
	    COPY_HDR(",\"copy_threshold\":0"),
	    COPY_HDR(",\"copy_threshold\":\"5G\""),
	    COPY_HDR(",\"copy_threshold\":-1"),
	};
	static struct planfile_line l;
	size_t i;

	(void)state;
	assert_int_equal(
	    planfile_parse_line(COPY_HDR(",\"copy_threshold\":"
	                                 "5368709121"),
	        strlen(COPY_HDR(",\"copy_threshold\":5368709121")), &l),
	    FERRY_OK);
	assert_int_equal(l.hdr.copy_threshold, 5368709121ULL);
	assert_int_equal(l.hdr.multipart_threshold, 8388608);
	assert_int_equal(
	    planfile_parse_line(COPY_HDR(""), strlen(COPY_HDR("")), &l),
	    FERRY_OK);
	assert_int_equal(l.hdr.copy_threshold, 8388608);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(
		    planfile_parse_line(bad[i], strlen(bad[i]), &l),
		    FERRY_EPARSE);
		assert_non_null(strstr(ferry_errmsg(), "copy_threshold"));
	}
#undef COPY_HDR
}

/*
 * A plan of a past time (version 2) names the version of each source to
 * read; an older plan (version 1) that names one is refused, as is a
 * version on a destination.
 */
static void
test_versions(void **state)
{
#define PULL_HDR(v)                                                            \
	"{\"type\":\"header\",\"format\":\"ferry-plan\",\"version\":" #v       \
	",\"src\":\"s3://bkt/p\",\"dst\":\"/t\",\"delete\":false,"             \
	"\"part_size\":0,\"multipart_threshold\":8388608}\n"
#define DOWN_SUMMARY                                                           \
	"\n{\"type\":\"summary\",\"dry_run\":true,\"uploaded\":0,"             \
	"\"copied\":0,\"downloaded\":1,\"deleted\":0,\"exit_status\":0}\n"
	static const struct file_row vrows[] = {
	    {PULL_HDR(2) DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":"
	                      "\"3/L4kqtJl\"}") DOWN_SUMMARY,
	        FERRY_OK, NULL},
	    {PULL_HDR(2) DOWN(OBJ) DOWN_SUMMARY, FERRY_OK, NULL},
	    {PULL_HDR(1) DOWN(OBJ) DOWN_SUMMARY, FERRY_OK, NULL},
	    {PULL_HDR(1) DOWN("{\"size\":3,\"etag\":\"x\",\"version_id\":"
	                      "\"3/L4kqtJl\"}") DOWN_SUMMARY,
	        FERRY_EUSAGE, "a \"version_id\" in a plan of version 1"},
	    {PULL_HDR(2) "{\"type\":\"plan\",\"action\":\"copy\",\"key\":"
	                 "\"p/a\",\"size\":3,\"source\":" OBJ
	                 ",\"destination\":{\"size\":3,\"etag\":\"y\","
	                 "\"version_id\":\"v\"}}" DOWN_SUMMARY,
	        FERRY_EUSAGE, "line 2"},
	};
	const struct planfile_line *l;
	struct planfile *pf;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(vrows) / sizeof(vrows[0]); i++) {
		pf = NULL;
		e = open_text(vrows[i].text, 0, &pf);
		if (e != vrows[i].want ||
		    (vrows[i].detail &&
		        strstr(ferry_errmsg(), vrows[i].detail) == NULL))
			fail_msg(
			    "row %zu: got %d (%s)", i, (int)e, ferry_errmsg());
		if (e != FERRY_OK)
			continue;
		assert_int_equal(planfile_next(pf, &l), FERRY_OK);
		assert_int_equal(l->action, PLANFILE_DOWNLOAD);
		assert_string_equal(
		    l->src.version_id, i == 0 ? "3/L4kqtJl" : "");
		planfile_close(pf);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_fields),
	    cmocka_unit_test(test_files),
	    cmocka_unit_test(test_files_stdin),
	    cmocka_unit_test(test_header_follow),
	    cmocka_unit_test(test_header_copy),
	    cmocka_unit_test(test_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
