/*
 * fuzz_linktarget.c: the check a pull with --links makes on a link's
 * target (posix_link_outside), against a real tree the input builds in a
 * temporary folder: folders, files and links made, replaced and removed
 * in any order, each link made only when the checks pass it (its text,
 * and its walk through the links on disk: posix_link_walk) and only in
 * a folder reached without a link, as a pull makes them.  After each
 * step every link made is resolved by the kernel (realpath): one that
 * resolves must stay inside the root.  Links made before the pull's
 * first, unchecked, stand for links already in the folder and may lead
 * anywhere; with any, each link is resolved when made only.  The root
 * sits in a sandbox whose folders above it hold the same names, so that a
 * target that climbs out finds something to resolve to.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/engine/posix.h"
#include "tests/fuzz/fuzz.h"

#define STEPS 32
#define LINKS 32
#define TARGET_PARTS 6

/* few names, so that links and the names they go through meet often */
static const char *const names[] = {"a", "b"};
static const char *const parts[] = {"a", "b", ".", "..", ""};

static char sandbox[PATH_MAX], root[PATH_MAX], realroot[PATH_MAX];

/* Makes a and b (each with a and b inside) in folder at. */
static void
names_in(const char *at)
{
	char p[PATH_MAX];
	size_t i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			snprintf(p, sizeof(p), "%s/%s", at, names[i]);
			(void)mkdir(p, 0700);
			snprintf(
			    p, sizeof(p), "%s/%s/%s", at, names[i], names[j]);
			(void)mkdir(p, 0700);
		}
}

/* For nftw: removes what it is given (the tree is walked depth first). */
static int
remove_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* At exit: the sandbox and all in it. */
static void
sandbox_remove(void)
{
	(void)nftw(sandbox, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The sandbox, once: sandbox/r/r/r/root, each folder above with names. */
static void
sandbox_make(void)
{
	char p[PATH_MAX];
	int i;

	snprintf(sandbox, sizeof(sandbox), "%s/ferry-fuzz-link.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(sandbox) == NULL)
		abort();
	snprintf(p, sizeof(p), "%s", sandbox);
	for (i = 0; i < 3; i++) {
		names_in(p);
		strncat(p, "/r", sizeof(p) - strlen(p) - 1);
		if (mkdir(p, 0700) != 0)
			abort();
	}
	names_in(p);
	snprintf(root, sizeof(root), "%s/root", p);
	atexit(sandbox_remove);
}

/* An empty root, and its real path. */
static void
root_reset(void)
{
	if (sandbox[0] == '\0')
		sandbox_make();
	(void)nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (mkdir(root, 0700) != 0 || realpath(root, realroot) == NULL)
		abort();
}

/* The path under the root one byte b names: one to three names. */
static void
path_of(uint8_t b, char *buf, size_t n)
{
	int depth = 1 + b % 3, i;

	buf[0] = '\0';
	for (i = 0; i < depth; i++) {
		if (i > 0)
			strncat(buf, "/", n - strlen(buf) - 1);
		strncat(buf, names[(b >> (2 + i)) & 1], n - strlen(buf) - 1);
	}
}

/*
 * The folder of path (all but its last name) opened as a pull opens it:
 * each folder made when missing, never through a link.  -1 when it
 * cannot be; *last is path's last name.
 */
static int
dir_of(const char *path, const char **last)
{
	char name[8];
	const char *p = path, *slash;
	int fd = open(root, O_RDONLY | O_DIRECTORY), next;

	while (fd >= 0 && (slash = strchr(p, '/')) != NULL) {
		snprintf(name, sizeof(name), "%.*s", (int)(slash - p), p);
		(void)mkdirat(fd, name, 0700);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		close(fd);
		fd = next;
		p = slash + 1;
	}
	*last = p;
	return fd;
}

/* A target from data: up to TARGET_PARTS parts, maybe absolute. */
static size_t
target_of(const uint8_t *data, size_t size, char *buf, size_t n)
{
	size_t count, i;

	if (size == 0)
		return 0;
	count = 1 + data[0] % TARGET_PARTS;
	snprintf(buf, n, "%s", data[0] >= 0xf0 ? "/" : "");
	for (i = 0; i < count && 1 + i < size; i++) {
		if (i > 0)
			strncat(buf, "/", n - strlen(buf) - 1);
		strncat(buf, parts[data[1 + i] % 5], n - strlen(buf) - 1);
	}
	return 1 + i;
}

/*
 * A link at path made as a pull makes one: at a temporary name, renamed;
 * with checked set, only when its target passes posix_link_outside() and
 * posix_link_walk() through what is on disk.  1 when it is made.
 */
static int
link_make(const char *path, const char *target, int checked)
{
	char why[2 * PATH_MAX];
	const char *last;
	int fd = dir_of(path, &last), made = 0;
	size_t dirlen = (size_t)(last - path);

	if (fd < 0)
		return 0;
	if (checked &&
	    (posix_link_outside(path, strlen(path), target, strlen(target)) ||
	        posix_link_walk(fd, path, dirlen ? dirlen - 1 : 0, target, why,
	            sizeof(why))))
		goto out;
	(void)unlinkat(fd, ".tmp", 0);
	if (symlinkat(target, fd, ".tmp") == 0) {
		made = renameat(fd, ".tmp", fd, last) == 0;
		if (!made)
			(void)unlinkat(fd, ".tmp", 0);
	}
out:
	close(fd);
	return made;
}

/* Makes, replaces or removes what the step op says at path. */
static void
step(uint8_t op, const char *path)
{
	const char *last;
	int fd = dir_of(path, &last), f;

	if (fd < 0)
		return;
	if (op == 0)
		(void)mkdirat(fd, last, 0700);
	if (op == 1 &&
	    (f = openat(fd, last, O_WRONLY | O_CREAT | O_NOFOLLOW, 0600)) >= 0)
		close(f);
	if (op == 2 && unlinkat(fd, last, 0) != 0)
		(void)unlinkat(fd, last, AT_REMOVEDIR);
	close(fd);
}

/* Aborts when a link made resolves to a place outside the root. */
static void
links_check(char made[][16], size_t n)
{
	char p[PATH_MAX], r[PATH_MAX];
	size_t i, len = strlen(realroot);

	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", root, made[i]);
		if (realpath(p, r) == NULL)
			continue; /* dangling, a loop, or through a file */
		if (strncmp(r, realroot, len) != 0 ||
		    (r[len] != '\0' && r[len] != '/')) {
			fprintf(stderr, "%s resolves to %s, outside %s\n",
			    made[i], r, realroot);
			abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char made[LINKS][16], path[16], target[64];
	size_t at = 0, nmade = 0, used;
	int steps = 0, aliens = 0, pulling = 0;

	root_reset();
	while (at + 2 <= size && steps++ < STEPS) {
		path_of(data[at + 1], path, sizeof(path));
		/* links, the point, are five steps in eight */
		if (data[at] % 8 < 3) {
			step(data[at] % 8, path);
			at += 2;
			links_check(made, nmade);
			continue;
		}
		used = target_of(
		    data + at + 2, size - at - 2, target, sizeof(target));
		at += 2 + used;
		if (used == 0)
			continue;
		/* before the pull's first link: a link already there, made
		 * unchecked, that may lead anywhere */
		if (!pulling && data[at - used - 2] % 8 == 3) {
			aliens += link_make(path, target, 0);
			continue;
		}
		pulling = 1;
		if (!link_make(path, target, 1))
			continue;
		/* with links already there that lead out, a link is checked
		 * against the folder as it is when made (posix.h); later
		 * links may lead it into one of them */
		if (nmade < LINKS)
			snprintf(made[nmade++], sizeof(made[0]), "%s", path);
		links_check(made, nmade);
		if (aliens)
			nmade = 0;
	}
	return 0;
}
