/*
 * test_localopen.c: opening a scanned file again where the scan found
 * it (manifest_local_open), and the walk it falls back on.  A tree in a
 * folder under /tmp holds each kind of thing a scanned name can turn
 * into.  An alarm ends the run if an open blocks (a fifo).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "manifest/internal.h"

static char top[64];
static int rootfd = -1;

static void
put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * top/root: d/f, d/g, notdir (a file), fifo, dir/, ld -> ../out (a
 * folder outside), lf -> d/f; top/out/f.
 */
static int
setup(void **state)
{
	char p[128];

	(void)state;
	snprintf(top, sizeof(top), "/tmp/ferry-test-localopen-XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(p, sizeof(p), "%s/root", top);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/out", top);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/out/f", top);
	put_file(p, "outside");
	snprintf(p, sizeof(p), "%s/root", top);
	rootfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(rootfd >= 0);
	assert_int_equal(mkdirat(rootfd, "d", 0700), 0);
	assert_int_equal(mkdirat(rootfd, "dir", 0700), 0);
	snprintf(p, sizeof(p), "%s/root/d/f", top);
	put_file(p, "inside!");
	snprintf(p, sizeof(p), "%s/root/d/g", top);
	put_file(p, "another");
	snprintf(p, sizeof(p), "%s/root/notdir", top);
	put_file(p, "a file");
	assert_int_equal(mkfifoat(rootfd, "fifo", 0600), 0);
	assert_int_equal(symlinkat("../out", rootfd, "ld"), 0);
	assert_int_equal(symlinkat("d/f", rootfd, "lf"), 0);
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	close(rootfd);
	nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* The scan's record of the file at path under the root (followed). */
static void
record_of(const char *path, struct manifest_local *r)
{
	struct stat st;

	assert_int_equal(fstatat(rootfd, path, &st, 0), 0);
	manifest_local_from_stat(r, &st);
}

enum want { ANY, SELF, OTHER };

static const struct opencase {
	const char *path;
	enum want want; /* no record, the file's own, another file's */
	int follow;
	ferry_err e;
	const char *msg; /* in the detail, when e is not FERRY_OK */
} cases[] = {
    {"d/f", ANY, 0, FERRY_OK, NULL},
    {"d/f", SELF, 0, FERRY_OK, NULL},
    {"d/f", OTHER, 0, FERRY_ECHANGED, "now another file"},
    {"ld/f", ANY, 0, FERRY_ECHANGED, "ld is now a symbolic link"},
    {"lf", ANY, 0, FERRY_ECHANGED, "now a symbolic link"},
    {"fifo", ANY, 0, FERRY_ECHANGED, "now a fifo, not a regular file"},
    {"dir", ANY, 0, FERRY_ECHANGED, "now a folder"},
    {"notdir/f", ANY, 0, FERRY_ECHANGED, "notdir is no longer a folder"},
    {"d/gone", ANY, 0, FERRY_ESYS, "No such file"},
    {"../out/f", ANY, 0, FERRY_EUSAGE, "not a path beneath"},
    /* as a scan with -L went: through the links */
    {"ld/f", SELF, 1, FERRY_OK, NULL},
    {"lf", SELF, 1, FERRY_OK, NULL},
    {"lf", OTHER, 1, FERRY_ECHANGED, "now another file"},
    {"fifo", ANY, 1, FERRY_ECHANGED, "now a fifo"},
};

/* Each case: the outcome, the message, and a usable blocking fd. */
static void
test_open_cases(void **state)
{
	struct manifest_local rec, *want;
	struct stat st;
	ferry_err e;
	size_t i;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct opencase *c = &cases[i];

		want = NULL;
		if (c->want == SELF)
			record_of(c->path, &rec);
		if (c->want == OTHER)
			record_of("d/g", &rec);
		if (c->want != ANY)
			want = &rec;
		e = manifest_local_open(
		    rootfd, c->path, want, c->follow, &fd, &st);
		if (e != c->e)
			fail_msg("%s (follow %d): got %d (%s), want %d",
			    c->path, c->follow, e, ferry_errmsg(), c->e);
		if (e != FERRY_OK) {
			assert_int_equal(fd, -1);
			if (strstr(ferry_errmsg(), c->msg) == NULL)
				fail_msg("%s: \"%s\" lacks \"%s\"", c->path,
				    ferry_errmsg(), c->msg);
			continue;
		}
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
		assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		close(fd);
	}
}

/* The walk alone (kernels without openat2): any kind, no symlink. */
static void
test_walk(void **state)
{
	static const struct {
		const char *path;
		ferry_err e;
	} walks[] = {
	    {"d/f", FERRY_OK},
	    {"fifo", FERRY_OK},
	    {"ld/f", FERRY_ECHANGED},
	    {"lf", FERRY_ECHANGED},
	    {"notdir/f", FERRY_ECHANGED},
	    {"d/gone", FERRY_ESYS},
	    {"d//f", FERRY_EUSAGE},
	    {"./d/f", FERRY_EUSAGE},
	    {"d/../d/f", FERRY_EUSAGE},
	    {"", FERRY_EUSAGE},
	};
	char buf[16];
	size_t i;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(walks) / sizeof(walks[0]); i++) {
		ferry_err e = manifest_local_walk(rootfd, walks[i].path, &fd);

		if (e != walks[i].e)
			fail_msg("walk %s: got %d (%s), want %d", walks[i].path,
			    e, ferry_errmsg(), walks[i].e);
		if (e != FERRY_OK) {
			assert_int_equal(fd, -1);
			continue;
		}
		/* a fifo without a writer: opened, and no read blocks */
		assert_true(read(fd, buf, sizeof(buf)) >= 0);
		close(fd);
	}
	assert_int_equal(manifest_local_walk(rootfd, "d/f", &fd), FERRY_OK);
	assert_int_equal(read(fd, buf, sizeof(buf)), 7);
	assert_memory_equal(buf, "inside!", 7);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_cases),
	    cmocka_unit_test(test_walk),
	};

	/* an open that blocks ends the run, failed */
	alarm(20);
	return cmocka_run_group_tests(tests, setup, teardown);
}
