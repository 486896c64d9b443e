/*
 * test_cli.c: the command line (sync/cli.c): options before the command
 * word, aws's --dryrun, and the refusals that say what was meant;
 * --backup-dir checked against the sides and resolved.
 */
#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sync/cli/cli.h"
#include "sync/run/opts.h"

#define ARGS_MAX 12

struct cli_case {
	const char *args[ARGS_MAX]; /* after "ferry", NULL-terminated */
	int rc;                     /* cli_parse()'s result */
	const char *command, *src, *dst, *profile;
	int dry_run;
	unsigned jobs;
};

static const struct cli_case cases[] = {
    {{"sync", "a", "s3://bkt/p"}, -1, "sync", "a", "s3://bkt/p", NULL, 0,
        REMOTE_JOBS_START},
    {{"sync", "--dryrun", "a", "s3://bkt/p"}, -1, "sync", "a", "s3://bkt/p",
        NULL, 1, REMOTE_JOBS_START},
    {{"sync", "a", "s3://bkt/p", "-n"}, -1, "sync", "a", "s3://bkt/p", NULL, 1,
        REMOTE_JOBS_START},
    /* options before the command word */
    {{"--profile", "p", "sync", "a", "s3://bkt/p"}, -1, "sync", "a",
        "s3://bkt/p", "p", 0, REMOTE_JOBS_START},
    {{"--profile=p", "-j", "4", "--dryrun", "sync", "a", "s3://bkt/p"}, -1,
        "sync", "a", "s3://bkt/p", "p", 1, 4},
    {{"-nj4", "plan", "a", "s3://bkt/p"}, -1, "plan", "a", "s3://bkt/p", NULL,
        1, 4},
    {{"-vj", "3", "ls", "s3://bkt"}, -1, "ls", "s3://bkt", NULL, NULL, 0, 3},
    /* an option's argument that is a command word stays its argument */
    {{"--profile", "sync", "sync", "a", "s3://bkt/p"}, -1, "sync", "a",
        "s3://bkt/p", "sync", 0, REMOTE_JOBS_START},
    {{"--prof", "ls", "ls", "s3://bkt"}, -1, "ls", "s3://bkt", NULL, "ls", 0,
        REMOTE_JOBS_START},
    {{"--manifest", "apply", "apply", "plan.jsonl"}, -1, "apply", "plan.jsonl",
        NULL, NULL, 0, REMOTE_JOBS_START},
    /* before the command as after it */
    {{"--version", "sync", "a", "b"}, 0, NULL, NULL, NULL, NULL, 0, 0},
    {{"--help"}, 0, NULL, NULL, NULL, NULL, 0, 0},
    {{"-q", "--help"}, 0, NULL, NULL, NULL, NULL, 0, 0},
    {{"--delete"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"--", "sync", "a", "b"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"--jobs", "0", "sync", "a", "s3://bkt/p"}, EXIT_USAGE, NULL, NULL, NULL,
        NULL, 0, 0},
    /* unknown words */
    {{"sync", "--dryrn", "a", "b"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"--dryrn", "sync", "a", "b"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"synk", "a", "b"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    /* help: the whole short help, or a known command's manual */
    {{"help"}, 0, NULL, NULL, NULL, NULL, 0, 0},
    {{"help", "synk"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"help", "sync", "ls"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"--profile", "p"}, EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    /* --at: a pull's or a mirror's source (and their plans), listed */
    {{"sync", "s3://a/p", "d", "--at", "2026-11-01T00:00:00Z"}, -1, "sync",
        "s3://a/p", "d", NULL, 0, REMOTE_JOBS_START},
    {{"sync", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z"}, -1,
        "sync", "s3://a/p", "s3://b/q", NULL, 0, REMOTE_JOBS_START},
    {{"plan", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z"}, -1,
        "plan", "s3://a/p", "s3://b/q", NULL, 1, REMOTE_JOBS_START},
    {{"sync", "d", "s3://b/q", "--at", "2026-11-01T00:00:00Z"}, EXIT_USAGE,
        NULL, NULL, NULL, NULL, 0, 0},
    {{"verify", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z"},
        EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"sync", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z",
         "--source-inventory", "s3://a/inv/manifest.json"},
        EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    /* --versions: ls and manifest info */
    {{"manifest", "info", "--versions", "d", "s3://b/q"}, -1, "manifest", "d",
        "s3://b/q", NULL, 0, REMOTE_JOBS_START},
    {{"sync", "d", "s3://b/q", "--versions"}, EXIT_USAGE, NULL, NULL, NULL,
        NULL, 0, 0},
};

static int
same(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* "ferry" and args (NULL-terminated) into argv; returns argc. */
static int
argv_of(const char *const *args, char **argv)
{
	int argc;

	argv[0] = "ferry";
	for (argc = 1; args[argc - 1] != NULL; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	return argc;
}

static void
test_cli_parse(void **state)
{
	char *argv[ARGS_MAX + 2];
	struct sync_opts o;
	size_t i;
	int argc, rc;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cli_case *c = &cases[i];

		argc = argv_of(c->args, argv);
		rc = cli_parse(argc, argv, &o);
		if (rc != c->rc)
			fail_msg("case %zu (%s ...): got %d, want %d", i,
			    c->args[0], rc, c->rc);
		if (rc == -1 &&
		    (!same(o.command, c->command) || !same(o.src, c->src) ||
		        !same(o.dst, c->dst) ||
		        !same(o.remote.profile, c->profile) ||
		        o.dry_run != c->dry_run || o.jobs != c->jobs))
			fail_msg("case %zu (%s ...): got %s %s %s profile %s "
			         "dry_run %d jobs %u",
			    i, c->args[0], o.command, o.src, o.dst,
			    o.remote.profile ? o.remote.profile : "-",
			    o.dry_run, o.jobs);
		cli_clear(&o);
	}
}

/* --backup-dir: where it is refused, and what it resolves to. */
struct backup_case {
	const char *args[ARGS_MAX];
	int rc;
	/* the backup's bucket and prefix before the date, or a pull's
	 * folder before it; NULL when refused */
	const char *bucket, *before;
};

static const struct backup_case backup_cases[] = {
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://bkt/old"}, -1, "bkt",
        "old/"},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://bkt/pq"}, -1, "bkt",
        "pq/"},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://cbk/p"}, -1, "cbk",
        "p/"},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://cbk"}, -1, "cbk", ""},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://bkt/p/old"}, EXIT_USAGE,
        NULL, NULL},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://bkt/p"}, EXIT_USAGE,
        NULL, NULL},
    {{"sync", "d", "s3://bkt/p/", "--backup-dir", "s3://bkt/p/"}, EXIT_USAGE,
        NULL, NULL},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://bkt"}, EXIT_USAGE, NULL,
        NULL},
    {{"sync", "d", "s3://bkt", "--backup-dir", "s3://bkt/x"}, EXIT_USAGE, NULL,
        NULL},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "keep"}, EXIT_USAGE, NULL,
        NULL},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", ""}, EXIT_USAGE, NULL, NULL},
    {{"sync", "d", "s3://bkt/p", "--backup-dir", "s3://"}, EXIT_USAGE, NULL,
        NULL},
    {{"plan", "d", "s3://bkt/p", "--backup-dir", "s3://bkt/old"}, EXIT_USAGE,
        NULL, NULL},
    /* a mirror: apart from its source too, on one endpoint */
    {{"sync", "s3://abk/s", "s3://bkt/p", "--backup-dir", "s3://abk/t"}, -1,
        "abk", "t/"},
    {{"sync", "s3://abk/s", "s3://bkt/p", "--backup-dir", "s3://abk/s/x"},
        EXIT_USAGE, NULL, NULL},
    {{"sync", "s3://abk/s", "s3://bkt/p", "--backup-dir", "s3://abk"},
        EXIT_USAGE, NULL, NULL},
    {{"sync", "s3://abk/s", "s3://bkt/p", "--source-endpoint-url",
         "http://127.0.0.2:1", "--backup-dir", "s3://abk/s/x"},
        -1, "abk", "s/x/"},
    /* a pull: a local folder outside the destination */
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "/tmp/y"}, -1, NULL,
        "/tmp/y/"},
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "/tmp/x/../y/."}, -1,
        NULL, "/tmp/y/"},
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "/tmp"}, -1, NULL,
        "/tmp/"},
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "/tmp/xy"}, -1, NULL,
        "/tmp/xy/"},
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "/tmp/x/bk"}, EXIT_USAGE,
        NULL, NULL},
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "/tmp/x/bk/.."},
        EXIT_USAGE, NULL, NULL},
    {{"sync", "s3://bkt/p", "/tmp/x/", "--backup-dir", "/tmp//x"}, EXIT_USAGE,
        NULL, NULL},
    {{"sync", "s3://bkt/p", "/tmp/x", "--backup-dir", "s3://cbk/k"}, EXIT_USAGE,
        NULL, NULL},
};

/* Whether s is before, then a run's date, then "/" (and nothing more). */
static int
dated(const char *s, const char *before)
{
	size_t n = strlen(before);
	const char *d = s + n;
	const char *form = "dddd-dd-ddTddddddZ/";
	size_t i;

	if (strncmp(s, before, n) != 0 || strlen(d) != strlen(form))
		return 0;
	for (i = 0; form[i]; i++)
		if (form[i] == 'd' ? !isdigit((unsigned char)d[i])
		                   : d[i] != form[i])
			return 0;
	return 1;
}

static void
test_cli_backup(void **state)
{
	char *argv[ARGS_MAX + 2], path[PATH_MAX + 2];
	struct sync_opts o;
	size_t i;
	int argc, rc;

	(void)state;
	for (i = 0; i < sizeof(backup_cases) / sizeof(backup_cases[0]); i++) {
		const struct backup_case *c = &backup_cases[i];

		argc = argv_of(c->args, argv);
		rc = cli_parse(argc, argv, &o);
		if (rc != c->rc)
			fail_msg(
			    "backup case %zu: got %d, want %d", i, rc, c->rc);
		if (rc == -1 && c->bucket &&
		    (strcmp(o.backup.bucket, c->bucket) != 0 ||
		        !dated(o.backup.prefix, c->before)))
			fail_msg("backup case %zu: got s3://%s/%s", i,
			    o.backup.bucket, o.backup.prefix);
		if (rc == -1 && !c->bucket) {
			snprintf(path, sizeof(path), "%s/",
			    o.backup_path ? o.backup_path : "");
			if (o.backup.bucket || !dated(path, c->before))
				fail_msg("backup case %zu: got %s", i, path);
		}
		cli_clear(&o);
	}
}

/*
 * A mirror's server-side copies go in parts above what one CopyObject
 * copies, or from a --multipart-threshold given below that.
 */
static const struct copy_case {
	const char *args[8];
	uint64_t multipart, copy;
} copy_cases[] = {
    {{"sync", "s3://a/p", "s3://b/q", NULL}, 8ULL << 20, (5ULL << 30) + 1},
    {{"sync", "--multipart-threshold", "16M", "s3://a/p", "s3://b/q", NULL},
        16ULL << 20, 16ULL << 20},
    {{"sync", "--multipart-threshold", "10G", "s3://a/p", "s3://b/q", NULL},
        10ULL << 30, (5ULL << 30) + 1},
};

static void
test_cli_copy(void **state)
{
	char *argv[ARGS_MAX + 2];
	struct sync_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(copy_cases) / sizeof(copy_cases[0]); i++) {
		assert_int_equal(
		    cli_parse(argv_of(copy_cases[i].args, argv), argv, &o), -1);
		assert_int_equal(
		    o.multipart_threshold, copy_cases[i].multipart);
		assert_int_equal(o.copy_threshold, copy_cases[i].copy);
		cli_clear(&o);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cli_parse),
	    cmocka_unit_test(test_cli_backup),
	    cmocka_unit_test(test_cli_copy),
	};

	/* the help and the refusals go to stdout and stderr */
	if (freopen("/dev/null", "w", stdout) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
