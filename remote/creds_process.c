/*
 * creds_process.c: runs a profile's credential_process, as the AWS CLI
 * does (through /bin/sh -c), and reads the keys it prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote/creds.h"

extern char **environ;

/* How long a timed-out process group has between SIGTERM and SIGKILL. */
#define PROCESS_GRACE_MS 500

/* Milliseconds left until deadline (monotonic ns), at least 0. */
static int
left_ms(int64_t deadline)
{
	int64_t left = (deadline - now_mono_ns()) / 1000000;

	return left < 0 ? 0 : left > 1000 ? 1000 : (int)left;
}

/*
 * Starts sh -c cmd with stdout into a pipe; *fd is its read end.  It
 * leads a process group of its own, so that a timeout ends whatever it
 * started too.
 */
static ferry_err
spawn(const char *cmd, const char *profile, pid_t *pid, int *fd)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int p[2], rc;

	*fd = -1;
	if (pipe2(p, O_CLOEXEC) != 0)
		return ferry_fail(FERRY_ESYS,
		    "credential_process of profile "
		    "'%s': pipe: %s",
		    profile, strerror(errno));
	if ((rc = posix_spawnattr_init(&at)) == 0) {
		if ((rc = posix_spawnattr_setflags(
		         &at, POSIX_SPAWN_SETPGROUP)) == 0 &&
		    (rc = posix_spawnattr_setpgroup(&at, 0)) == 0 &&
		    (rc = posix_spawn_file_actions_init(&fa)) == 0) {
			if ((rc = posix_spawn_file_actions_addopen(
			         &fa, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
			    (rc = posix_spawn_file_actions_adddup2(
			         &fa, p[1], 1)) == 0)
				rc = posix_spawn(
				    pid, "/bin/sh", &fa, &at, argv, environ);
			posix_spawn_file_actions_destroy(&fa);
		}
		posix_spawnattr_destroy(&at);
	}
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		return ferry_fail(FERRY_ESYS,
		    "credential_process of profile '%s': cannot run /bin/sh: "
		    "%s",
		    profile, strerror(rc));
	}
	*fd = p[0];
	return FERRY_OK;
}

/*
 * Reads fd to its end into out, until deadline.  FERRY_ESYS for a
 * timeout, FERRY_EPARSE past the output limit, FERRY_ECANCEL on a signal.
 */
static ferry_err
read_all(int fd, int64_t deadline, struct buf *out, const char *profile)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	char chunk[4096];
	ssize_t n;
	int rc;

	for (;;) {
		if (ferry_interrupted)
			return ferry_fail(FERRY_ECANCEL, "interrupted");
		if (now_mono_ns() >= deadline)
			return ferry_fail(FERRY_ESYS,
			    "credential_process of profile '%s' did not finish "
			    "in time",
			    profile);
		if ((rc = poll(&pfd, 1, left_ms(deadline))) < 0 &&
		    errno != EINTR)
			return ferry_fail(
			    FERRY_ESYS, "poll: %s", strerror(errno));
		if (rc <= 0)
			continue;
		if ((n = read(fd, chunk, sizeof(chunk))) == 0)
			return FERRY_OK;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return ferry_fail(
			    FERRY_ESYS, "read: %s", strerror(errno));
		if (n > 0 && buf_append(out, chunk, (size_t)n) != FERRY_OK)
			return ferry_fail(FERRY_EPARSE,
			    "credential_process of profile '%s' printed more "
			    "than %u bytes",
			    profile, (unsigned)CREDS_MAX_OUTPUT);
	}
}

/* Non-zero once pid has exited; it is left unreaped. */
static int
exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
	           0 &&
	       si.si_pid == pid;
}

/*
 * Waits for pid until deadline (0: after a failure, not at all).  Then its
 * process group (pid leads one) gets SIGTERM and, PROCESS_GRACE_MS later
 * or once pid has gone, SIGKILL, so that nothing it started keeps running.
 * pid is reaped either way.  *status as waitpid's.
 */
static ferry_err
reap(pid_t pid, int64_t deadline, int *status)
{
	int64_t grace;
	pid_t w = 0;

	while (deadline != 0 && (w = waitpid(pid, status, WNOHANG)) == 0 &&
	       now_mono_ns() < deadline && !ferry_interrupted)
		poll(NULL, 0, 10);
	if (w == pid)
		return FERRY_OK; /* what it left running is its own business */
	/* Unreaped, pid still names the group: no other can take it. */
	kill(-pid, SIGTERM);
	grace = now_mono_ns() + PROCESS_GRACE_MS * 1000000LL;
	while (!exited(pid) && now_mono_ns() < grace)
		poll(NULL, 0, 10);
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return FERRY_ESYS;
}

/* Explains a status that is not a clean exit 0. */
static ferry_err
check_status(int status, const char *profile)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return FERRY_OK;
	if (WIFEXITED(status))
		return ferry_fail(FERRY_ESYS,
		    "credential_process of profile '%s' exited with status %d",
		    profile, WEXITSTATUS(status));
	return ferry_fail(FERRY_ESYS,
	    "credential_process of profile '%s' was killed by signal %d",
	    profile, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

ferry_err
creds_process_run(
    const char *cmd, const char *profile, int timeout, struct config_keys *out)
{
	int64_t deadline = now_mono_ns() + (int64_t)timeout * 1000000000;
	char why[768];
	struct buf b;
	int fd, status = 0;
	pid_t pid;
	ferry_err e, ew;

	memset(out, 0, sizeof(*out));
	if ((e = spawn(cmd, profile, &pid, &fd)) != FERRY_OK)
		return e;
	buf_init(&b, CREDS_MAX_OUTPUT);
	e = read_all(fd, deadline, &b, profile);
	close(fd);
	/* After a failure, the process is not waited for. */
	ew = reap(pid, e == FERRY_OK ? deadline : 0, &status);
	if (e == FERRY_OK && ew != FERRY_OK)
		e = ferry_fail(FERRY_ESYS,
		    "credential_process of profile '%s' did not finish in time",
		    profile);
	if (e == FERRY_OK)
		e = check_status(status, profile);
	if (e == FERRY_OK &&
	    (e = creds_parse(b.data, b.len, CREDS_PROCESS, out)) != FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		e = ferry_fail(e,
		    "credential_process of profile '%s' printed unusable "
		    "JSON: %s",
		    profile, why);
	}
	buf_free_secret(&b);
	return e;
}
