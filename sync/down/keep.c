/*
 * keep.c: --backup-dir for a pull.  A file that a pull overwrites or
 * deletes is first moved to the backup folder of the run's date
 * (sync_opts.backup_path), at its path relative to the destination:
 * renamed where the two are on one filesystem, else copied (its mode and
 * times kept) and then removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/down/down.h"

/* Makes the folders of path above its last component (mkdir -p). */
static ferry_err
make_parents(char *path)
{
	char *s;

	for (s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			*s = '/';
			return ferry_fail(FERRY_ESYS,
			    "cannot make the backup "
			    "folder %s: %s",
			    path, strerror(errno));
		}
		*s = '/';
	}
	return FERRY_OK;
}

/* Copies what is left of fd in to fd out: 0, or -1 with errno. */
static int
copy_fd(int in, int out)
{
	char buf[65536];
	ssize_t n, w, off;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno != EINTR)
				return -1;
			if (w < 0)
				w = 0;
		}
	}
	return 0;
}

/*
 * Copies the regular file name in dirfd to path (made, not there
 * before), with its mode and times; the source is the caller's to
 * remove.
 */
static ferry_err
copy_across(int dirfd, const char *name, const char *path)
{
	struct timespec ts[2];
	struct stat st;
	int in, out = -1, bad;

	if ((in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (in >= 0)
			close(in);
		return ferry_fail(FERRY_ESYS,
		    "cannot copy it to the backup folder on another "
		    "filesystem: %s",
		    in < 0 ? strerror(errno) : "not a regular file");
	}
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bad = out < 0 || copy_fd(in, out) != 0;
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	if (!bad)
		bad = fchmod(out, st.st_mode & 07777) != 0 ||
		      futimens(out, ts) != 0;
	if (out >= 0 && close(out) != 0)
		bad = 1;
	close(in);
	if (bad) {
		bad = errno;
		unlink(path);
		return ferry_fail(FERRY_ESYS, "cannot copy it to %s: %s", path,
		    strerror(bad));
	}
	return FERRY_OK;
}

/*
 * The backup's path of rel[0..len) (a path in the destination folder):
 * malloc'd, NULL when out of memory.
 */
static char *
keep_path(const struct pull *p, const char *rel, size_t len)
{
	const char *dir = p->run.o->backup_path;
	size_t n = strlen(dir) + len + 2;
	char *path;

	if ((path = malloc(n)) != NULL)
		snprintf(path, n, "%s/%.*s", dir, (int)len, rel);
	return path;
}

ferry_err
pull_keep(struct pull *p, int dirfd, const char *name, const char *rel,
    size_t len, int *kept)
{
	struct stat st;
	char *path;
	ferry_err e = FERRY_OK;

	*kept = 0;
	if (p->run.o->backup_path == NULL)
		return FERRY_OK;
	/* nothing at the name: nothing replaced; a folder is never
	 * replaced by a file */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? FERRY_OK
		                       : ferry_fail(FERRY_ESYS, "stat: %s",
		                             strerror(errno));
	if (S_ISDIR(st.st_mode))
		return FERRY_OK;
	if ((path = keep_path(p, rel, len)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = make_parents(path)) != FERRY_OK)
		goto out;
	if (renameat(dirfd, name, AT_FDCWD, path) == 0) {
		*kept = 1;
		goto out;
	}
	if (errno != EXDEV) {
		e = ferry_fail(FERRY_ESYS, "cannot move it to %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if ((e = copy_across(dirfd, name, path)) == FERRY_OK) {
		if (unlinkat(dirfd, name, 0) != 0)
			e = ferry_fail(FERRY_ESYS,
			    "copied to %s, but cannot be removed: %s", path,
			    strerror(errno));
		else
			*kept = 1;
	}
out:
	if (*kept) {
		p->run.counts.backed_up++;
		output_backup(
		    &p->run.out, rel, len, 1, (uint64_t)st.st_size, path, NULL);
	}
	free(path);
	return e;
}

void
pull_keep_planned(
    struct pull *p, const char *rel, size_t len, const struct manifest_local *l)
{
	struct plan_entry kept = {.present = 1,
	    .size = l->size,
	    .mtime_ns = l->mtime_ns,
	    .hash = l->hash};
	char name[NAME_MAX + 1], last[NAME_MAX + 1], fs[MANIFEST_KEY_MAX + 1];
	size_t dirlen = len;
	char *path;

	if (p->run.o->backup_path == NULL)
		return;
	/* the entry's path in the folder: a link's name, not its key's */
	while (dirlen > 0 && rel[dirlen - 1] != '/')
		dirlen--;
	if (len - dirlen > NAME_MAX || len > MANIFEST_KEY_MAX)
		return;
	snprintf(last, sizeof(last), "%.*s", (int)(len - dirlen), rel + dirlen);
	posix_fs_name(last, l, name, sizeof(name));
	snprintf(fs, sizeof(fs), "%.*s%s", (int)dirlen, rel, name);
	if ((path = keep_path(p, fs, strlen(fs))) == NULL)
		return;
	p->run.counts.backed_up++;
	output_backup(&p->run.out, fs, strlen(fs), 1, l->size, path, &kept);
	free(path);
}
