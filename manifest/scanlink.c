/*
 * scanlink.c: the entries a scan keeps with links or keep_dirs (scan.h)
 * that are not regular files: a symlink, whose bytes are its target, and
 * an empty folder, which has none.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "manifest/internal.h"

size_t
scan_link_name(const char *name, size_t n, char *out, size_t cap)
{
	if (n + MANIFEST_LINK_EXT_LEN + 1 > cap)
		return 0;
	memcpy(out, name, n);
	memcpy(out + n, MANIFEST_LINK_EXT, MANIFEST_LINK_EXT_LEN + 1);
	return n + MANIFEST_LINK_EXT_LEN;
}

/* Whether st is still the entry the scan recorded as want. */
static int
same_entry(const struct stat *st, const struct manifest_local *want)
{
	return (st->st_mode & S_IFMT) == (want->mode & S_IFMT) &&
	       (uint64_t)st->st_ino == want->ino &&
	       (uint64_t)st->st_dev == want->dev &&
	       (!S_ISLNK(st->st_mode) || (uint64_t)st->st_size == want->size);
}

/*
 * Reads the target of the link name in dirfd into buf (cap bytes), its
 * length in *len: FERRY_ECHANGED when it is not of size bytes.
 */
static ferry_err
link_target(int dirfd, const char *name, uint64_t size, char *buf, size_t cap,
    size_t *len)
{
	ssize_t n = readlinkat(dirfd, name, buf, cap);

	if (n < 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot read the symlink: %s", strerror(errno));
	if ((uint64_t)n != size || (size_t)n >= cap)
		return ferry_fail(
		    FERRY_ECHANGED, "the symlink changed since it was scanned");
	*len = (size_t)n;
	return FERRY_OK;
}

ferry_err
scan_special_record(int dirfd, const char *name, size_t n,
    const struct manifest_local *st, struct manifest_local *r)
{
	char fsname[NAME_MAX + 1], target[PATH_MAX + 1];
	size_t len = 0;
	ferry_err e;

	*r = *st;
	if (S_ISLNK(st->mode)) {
		if (n <= MANIFEST_LINK_EXT_LEN ||
		    n - MANIFEST_LINK_EXT_LEN > NAME_MAX)
			return ferry_fail(FERRY_EUSAGE, "not a symlink's name");
		memcpy(fsname, name, n - MANIFEST_LINK_EXT_LEN);
		fsname[n - MANIFEST_LINK_EXT_LEN] = '\0';
		e = link_target(
		    dirfd, fsname, st->size, target, sizeof(target), &len);
		if (e != FERRY_OK)
			return e;
	} else
		r->size = 0;
	XXH128_canonicalFromHash(
	    (XXH128_canonical_t *)r->hash, XXH3_128bits(target, len));
	return FERRY_OK;
}

/*
 * Opens the folder of the path key[0..n) (rootfd itself, duplicated, for
 * one at the top) and points *name at its last component, copied into
 * buf.
 */
static ferry_err
open_parent(int rootfd, const char *key, size_t n, char *buf, size_t cap,
    int *fd, const char **name)
{
	const char *slash = memrchr(key, '/', n);
	size_t dlen = slash ? (size_t)(slash - key) : 0;
	ferry_err e;

	if (n >= cap)
		return ferry_fail(FERRY_EUSAGE, "path too long");
	memcpy(buf, key, n);
	buf[n] = '\0';
	*name = buf + (slash ? dlen + 1 : 0);
	if (slash == NULL) {
		*fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
		return *fd >= 0 ? FERRY_OK
		                : ferry_fail(FERRY_ESYS, "%s", strerror(errno));
	}
	buf[dlen] = '\0';
	e = manifest_local_walk(rootfd, buf, fd);
	buf[dlen] = '/';
	return e;
}

ferry_err
manifest_special_read(int rootfd, const char *key, size_t keylen,
    const struct manifest_local *want, char *buf, size_t cap, size_t *len,
    struct stat *st)
{
	char path[MANIFEST_KEY_MAX + 1];
	const char *name = NULL;
	size_t n = keylen;
	ferry_err e;
	int fd = -1;

	*len = 0;
	if (S_ISLNK(want->mode) && keylen > MANIFEST_LINK_EXT_LEN)
		n = keylen - MANIFEST_LINK_EXT_LEN;
	else if (S_ISDIR(want->mode) && keylen > 1 && key[keylen - 1] == '/')
		n = keylen - 1;
	else
		return ferry_fail(FERRY_EUSAGE, "not a symlink or a folder");
	if ((e = open_parent(rootfd, key, n, path, sizeof(path), &fd, &name)) !=
	    FERRY_OK)
		return e;
	if (fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
		e = ferry_fail(FERRY_ESYS, "cannot stat: %s", strerror(errno));
	else if (!same_entry(st, want))
		e = ferry_fail(FERRY_ECHANGED, "changed since the scan");
	else if (S_ISLNK(want->mode))
		e = link_target(fd, name, want->size, buf, cap, len);
	close(fd);
	return e;
}
