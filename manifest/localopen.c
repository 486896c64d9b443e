/*
 * localopen.c: opening a scanned file again, to read it, where the scan
 * found it.  The tree may change between the scan and the read: a folder
 * on the path swapped for a symbolic link would lead out of the tree, a
 * fifo put at the name would block the open, another file put there would
 * be read in place of the one scanned.  So the path is resolved beneath
 * the root without following a symbolic link (but where the scan followed
 * them), the file is opened without blocking, and it is used only while
 * it is a regular file with the device and inode the scan recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#include <sys/syscall.h>
#define HAVE_OPENAT2 1
#endif
#endif

#include "manifest/filehash.h"
#include "manifest/internal.h"

/* No blocking on a fifo, no controlling terminal from a device. */
#define OPEN_FILE (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
#define OPEN_DIR (O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NONBLOCK)

/* Returns a static string.  See internal.h. */
const char *
manifest_kind_name(mode_t mode)
{
	if (S_ISLNK(mode))
		return "symlink";
	if (S_ISDIR(mode))
		return "folder";
	if (S_ISFIFO(mode))
		return "fifo";
	if (S_ISSOCK(mode))
		return "socket";
	return "device";
}

/*
 * Records why the component name (the first len bytes of path) could not
 * be opened in the folder dirfd with errno err: FERRY_ECHANGED when it is
 * not of the kind the scan saw (folder, when folder, else regular file),
 * else FERRY_ESYS.
 */
static ferry_err
open_failed(
    int dirfd, const char *name, const char *path, int len, int folder, int err)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode) && folder)
			return ferry_fail(FERRY_ECHANGED,
			    "changed since the scan: %.*s is now a symbolic "
			    "link",
			    len, path);
		if (S_ISLNK(st.st_mode))
			return ferry_fail(FERRY_ECHANGED,
			    "changed since the scan: now a symbolic link");
		if (folder && !S_ISDIR(st.st_mode))
			return ferry_fail(FERRY_ECHANGED,
			    "changed since the scan: %.*s is no longer a "
			    "folder",
			    len, path);
		if (!folder && !S_ISREG(st.st_mode))
			return ferry_fail(FERRY_ECHANGED,
			    "changed since the scan: now a %s, not a regular "
			    "file",
			    manifest_kind_name(st.st_mode));
	}
	if (folder)
		return ferry_fail(FERRY_ESYS, "cannot open the folder %.*s: %s",
		    len, path, strerror(err));
	return ferry_fail(FERRY_ESYS, "cannot open: %s", strerror(err));
}

/* Whether the n bytes at name can be a component of a scanned path. */
static int
component_ok(const char *name, size_t n)
{
	return n > 0 && n <= NAME_MAX &&
	       !(name[0] == '.' && (n == 1 || (n == 2 && name[1] == '.')));
}

/*
 * Returns FERRY_OK with *fd open on path beneath rootfd, opened one
 * component at a time, never through a symbolic link.  See internal.h.
 */
ferry_err
manifest_local_walk(int rootfd, const char *path, int *fd)
{
	char name[NAME_MAX + 1];
	const char *p = path, *slash;
	int cur = rootfd, next;
	ferry_err e;
	size_t n;

	*fd = -1;
	for (;;) {
		slash = strchr(p, '/');
		n = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (!component_ok(p, n)) {
			e = ferry_fail(
			    FERRY_EUSAGE, "not a path beneath the folder");
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		next = openat(cur, name,
		    (slash != NULL ? OPEN_DIR : OPEN_FILE) | O_NOFOLLOW);
		if (next < 0) {
			e = open_failed(cur, name, path, (int)(p - path + n),
			    slash != NULL, errno);
			break;
		}
		if (cur != rootfd)
			close(cur);
		cur = next;
		if (slash == NULL) {
			*fd = cur;
			return FERRY_OK;
		}
		p = slash + 1;
	}
	if (cur != rootfd)
		close(cur);
	return e;
}

/*
 * Opens path beneath rootfd in one call where the kernel can (Linux 5.6
 * and later): the descriptor, or -1 with errno, ENOSYS where it cannot.
 */
static int
open_beneath(int rootfd, const char *path)
{
#ifdef HAVE_OPENAT2
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = OPEN_FILE | O_NOFOLLOW;
	how.resolve =
	    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
#else
	(void)rootfd;
	(void)path;
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * Checks that the file open on fd (as non-blocking) is a regular file,
 * the one of want when not NULL, fills *st, and makes reads block again.
 */
static ferry_err
check_open(int fd, const struct manifest_local *want, struct stat *st)
{
	int fl;

	if (fstat(fd, st) != 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st->st_mode))
		return ferry_fail(FERRY_ECHANGED,
		    "changed since the scan: now a %s, not a regular file",
		    manifest_kind_name(st->st_mode));
	if (want != NULL && (want->dev != (uint64_t)st->st_dev ||
	                        want->ino != (uint64_t)st->st_ino))
		return ferry_fail(FERRY_ECHANGED,
		    "changed since the scan: now another file (inode %llu, "
		    "the scan saw %llu)",
		    (unsigned long long)st->st_ino,
		    (unsigned long long)want->ino);
	if ((fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot open: fcntl: %s", strerror(errno));
	filehash_no_atime(fd);
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with *fd (the caller's to close) and *st, or a failure
 * with *fd -1.  See manifest.h.
 */
ferry_err
manifest_local_open(int rootfd, const char *path,
    const struct manifest_local *want, int follow, int *fd, struct stat *st)
{
	ferry_err e;
	int f;

	*fd = -1;
	if (follow) {
		/* as the scan went: through any symbolic link */
		if ((f = openat(rootfd, path, OPEN_FILE)) < 0)
			return ferry_fail(
			    FERRY_ESYS, "cannot open: %s", strerror(errno));
	} else if ((f = open_beneath(rootfd, path)) < 0) {
		/*
		 * No openat2 (ENOSYS, or EINVAL, EPERM under some seccomp
		 * filters), or a refusal: the walk opens the file, or tells
		 * which component is not what the scan saw.
		 */
		if ((e = manifest_local_walk(rootfd, path, &f)) != FERRY_OK)
			return e;
	}
	if ((e = check_open(f, want, st)) != FERRY_OK) {
		close(f);
		return e;
	}
	*fd = f;
	return FERRY_OK;
}
