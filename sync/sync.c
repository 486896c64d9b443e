/* sync.c: from the command line to the command (sync.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sync/cli/cli.h"
#include "sync/cmd/cmd.h"
#include "sync/down/down.h"
#include "sync/run/run.h"
#include "sync/sync.h"
#include "sync/up/up.h"
#include "sync/watch/watch.h"

/*
 * Standard input, output or error closed by the caller would be the next
 * file ferry opens, and a message would land in it: /dev/null read-only
 * stands in, so that a write there fails instead.
 */
static void
hold_std_fds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDONLY)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
}

/* Whether fd is a pipe or socket whose reader has gone (poll(2) POLLERR). */
static int
reader_gone(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

/*
 * The status to end with, given rc: a write to standard output or error
 * that failed (a full disk, a closed pipe) makes it at least
 * EXIT_PARTIAL, since what the run had to say was not all said.  A closed
 * pipe is not reported; another failure on stdout is, on stderr.
 */
static int
close_std_streams(int rc)
{
	int out_bad = ferror(stdout), err = 0;

	if (fflush(stdout) != 0) {
		out_bad = 1;
		err = errno;
	}
	if (out_bad && err != EPIPE && !reader_gone(STDOUT_FILENO))
		log_error("could not write to standard output%s%s",
		    err ? ": " : "", err ? strerror(err) : "");
	if (fflush(stderr) != 0 || ferror(stderr))
		out_bad = 1;
	if (out_bad && rc == EXIT_SYNCED)
		rc = EXIT_PARTIAL;
	return rc;
}

/* A sync or a plan: a push, pull or mirror by the sides. */
static int
run_sync(const struct sync_opts *o)
{
	/* checked by cli_parse(): a push, a pull or a mirror */
	if (o->watch)
		return sync_watch(o);
	if (o->way == SYNC_WAY_MIRROR)
		return sync_mirror(o);
	if (o->way == SYNC_WAY_PULL)
		return sync_pull(o);
	if (o->way != SYNC_WAY_PUSH) {
		ferry_fail(
		    FERRY_EUSAGE, "one side must be s3://BUCKET[/PREFIX]");
		output_failure(o->json, FERRY_EUSAGE);
		return metrics_run_write(o, NULL, NULL, NULL, EXIT_USAGE);
	}
	return sync_push(o);
}

int
sync_main(int argc, char **argv)
{
	struct sync_opts o;
	int rc;

	hold_std_fds();
	if ((rc = cli_parse(argc, argv, &o)) >= 0) {
		cli_clear(&o);
		return close_std_streams(rc);
	}
	ferry_catch_signals();
	if (o.cmd == SYNC_CMD_LS) {
		rc = sync_ls(&o);
	} else if (o.cmd == SYNC_CMD_MANIFEST) {
		rc = sync_manifest_info(&o);
	} else if (o.cmd == SYNC_CMD_APPLY) {
		rc = sync_apply(&o);
	} else if (o.cmd == SYNC_CMD_VERIFY) {
		rc = sync_verify(&o);
	} else if (o.split) {
		if (o.split_prefix == NULL)
			o.split_prefix = "plan.";
		rc = sync_plan_split(&o, run_sync);
	} else {
		rc = run_sync(&o);
	}
	cli_clear(&o);
	return close_std_streams(rc);
}
