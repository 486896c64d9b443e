/*
 * test_cli.c: the command line (sync/cli.c): options before the command
 * word, aws's --dryrun, and the refusals that say what was meant.
 */
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
    {{"sync", "a", "s3://bkt/p"}, -1, "sync", "a", "s3://bkt/p", NULL, 0, 16},
    {{"sync", "--dryrun", "a", "s3://bkt/p"}, -1, "sync", "a", "s3://bkt/p",
        NULL, 1, 16},
    {{"sync", "a", "s3://bkt/p", "-n"}, -1, "sync", "a", "s3://bkt/p", NULL, 1,
        16},
    /* options before the command word */
    {{"--profile", "p", "sync", "a", "s3://bkt/p"}, -1, "sync", "a",
        "s3://bkt/p", "p", 0, 16},
    {{"--profile=p", "-j", "4", "--dryrun", "sync", "a", "s3://bkt/p"}, -1,
        "sync", "a", "s3://bkt/p", "p", 1, 4},
    {{"-nj4", "plan", "a", "s3://bkt/p"}, -1, "plan", "a", "s3://bkt/p", NULL,
        1, 4},
    {{"-vj", "3", "ls", "s3://bkt"}, -1, "ls", "s3://bkt", NULL, NULL, 0, 3},
    /* an option's argument that is a command word stays its argument */
    {{"--profile", "sync", "sync", "a", "s3://bkt/p"}, -1, "sync", "a",
        "s3://bkt/p", "sync", 0, 16},
    {{"--prof", "ls", "ls", "s3://bkt"}, -1, "ls", "s3://bkt", NULL, "ls", 0,
        16},
    {{"--manifest", "apply", "apply", "plan.jsonl"}, -1, "apply", "plan.jsonl",
        NULL, NULL, 0, 16},
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
        "s3://a/p", "d", NULL, 0, 16},
    {{"sync", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z"}, -1,
        "sync", "s3://a/p", "s3://b/q", NULL, 0, 16},
    {{"plan", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z"}, -1,
        "plan", "s3://a/p", "s3://b/q", NULL, 1, 16},
    {{"sync", "d", "s3://b/q", "--at", "2026-11-01T00:00:00Z"}, EXIT_USAGE,
        NULL, NULL, NULL, NULL, 0, 0},
    {{"verify", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z"},
        EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    {{"sync", "s3://a/p", "s3://b/q", "--at", "2026-11-01T00:00:00Z",
         "--source-inventory", "s3://a/inv/manifest.json"},
        EXIT_USAGE, NULL, NULL, NULL, NULL, 0, 0},
    /* --versions: ls and manifest info */
    {{"manifest", "info", "--versions", "d", "s3://b/q"}, -1, "manifest", "d",
        "s3://b/q", NULL, 0, 16},
    {{"sync", "d", "s3://b/q", "--versions"}, EXIT_USAGE, NULL, NULL, NULL,
        NULL, 0, 0},
};

static int
same(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
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

		argv[0] = "ferry";
		for (argc = 1; c->args[argc - 1] != NULL; argc++)
			argv[argc] = (char *)c->args[argc - 1];
		argv[argc] = NULL;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cli_parse),
	};

	/* the help and the refusals go to stdout and stderr */
	if (freopen("/dev/null", "w", stdout) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
