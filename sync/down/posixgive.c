/*
 * posixgive.c: --preserve and --links on a pull's side: a file given the
 * owner, mode and times its object carries, and a link made where its
 * object says (posix.h describes the values, sync/engine/posixfs.c reads
 * them).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "sync/down/get.h"

#define NAMEBUF 4096
#define TMP_TRIES 32

/*
 * The owner to give: by name where the name resolves here, else by id;
 * (uid_t)-1 and (gid_t)-1 leave a part as it is.
 */
static void
owner_of(const struct posix_attrs *a, uid_t *uid, gid_t *gid)
{
	char buf[NAMEBUF];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;

	*uid = a->has_uid ? (uid_t)a->uid : (uid_t)-1;
	*gid = a->has_gid ? (gid_t)a->gid : (gid_t)-1;
	if (a->uname[0] &&
	    getpwnam_r(a->uname, &pw, buf, sizeof(buf), &pwp) == 0 && pwp)
		*uid = pwp->pw_uid;
	if (a->gname[0] &&
	    getgrnam_r(a->gname, &gr, buf, sizeof(buf), &grp) == 0 && grp)
		*gid = grp->gr_gid;
}

/* The attributes meta carries, the refused ones warned about. */
static void
attrs_read(
    const struct remote_posix *meta, const char *key, struct posix_attrs *a)
{
	const char *bad = NULL;

	if (posix_decode(meta, a, &bad) > 0)
		log_warn("%s: %s is not what ferry or rclone writes: left out",
		    key, bad);
}

/*
 * As root, gives d's file (d->fd, or the link tmp in d's folder when tmp
 * is not NULL) the owner a carries: 1 when the file has both the owner
 * and the group a carries, else 0.  A failure is said once a pull: on
 * root-squashed NFS or without CAP_CHOWN every file fails alike.
 */
static int
owner_give(struct dl *d, const struct posix_attrs *a, const char *tmp)
{
	uid_t uid;
	gid_t gid;
	int r;

	owner_of(a, &uid, &gid);
	if (geteuid() != 0 || (uid == (uid_t)-1 && gid == (gid_t)-1))
		return 0;
	r = tmp != NULL ? fchownat(d->dirfd, tmp, uid, gid, AT_SYMLINK_NOFOLLOW)
	                : fchown(d->fd, uid, gid);
	if (r == 0)
		return uid != (uid_t)-1 && gid != (gid_t)-1;
	if (!d->p->owner_warned)
		log_warn("%s: cannot give it its owner: %s (said for the first "
		         "such file only)",
		    d->t.key, strerror(errno));
	d->p->owner_warned = 1;
	return 0;
}

/*
 * The permission bits to give d's file from its object's mode, as
 * posix_mode_allowed() decides; set-id bits it leaves off as root are
 * said once a pull.  A file meant to be set-uid to another user must not
 * be set-uid to the one running the pull.
 */
static mode_t
mode_checked(struct dl *d, uint32_t mode, int owned)
{
	int root = geteuid() == 0;
	uint32_t m = posix_mode_allowed(mode, root, owned);

	/* as another user set-id bits are never given: no news */
	if (root && m != posix_mode_allowed(mode, 1, 1)) {
		if (!d->p->setid_warned)
			log_warn("%s: set-uid and set-gid bits left off: the "
			         "file does not have the owner and group its "
			         "object carries (said for the first such file "
			         "only)",
			    d->t.key);
		d->p->setid_warned = 1;
	}
	return (mode_t)m;
}

void
posix_restore(struct dl *d, struct timespec *atime, mode_t *mode)
{
	struct posix_attrs a;
	int owned;

	attrs_read(&d->meta.posix, d->t.key, &a);
	/* the owner first: chown() clears the set-id bits */
	owned = owner_give(d, &a, NULL);
	/* a mode of another kind of file (a link's, pulled as a file) is
	 * not this file's */
	if (a.has_mode && (a.mode & S_IFMT) != 0 && !S_ISREG(a.mode))
		a.has_mode = 0;
	if (a.has_mode)
		*mode = mode_checked(d, a.mode, owned);
	if (a.has_atime)
		posix_timespec(a.atime_ns, atime);
}

/*
 * Reads the target the downloaded object holds into buf (NUL-ended) and
 * checks it: FERRY_EUSAGE when it is no target to make.
 */
static ferry_err
link_target_read(struct dl *d, char *buf, size_t cap)
{
	size_t keylen = d->t.keylen - POSIX_LINK_EXT_LEN, dirlen;
	char why[2 * PATH_MAX];
	ssize_t n;

	if (d->written == 0 || d->written >= cap)
		return ferry_fail(FERRY_EUSAGE,
		    "refused: a symlink's object of %" PRIu64
		    " bytes is no target",
		    d->written);
	n = pread(d->fd, buf, (size_t)d->written, 0);
	if (n != (ssize_t)d->written)
		return ferry_fail(FERRY_ESYS, "cannot read the target back: %s",
		    n < 0 ? strerror(errno) : "short read");
	buf[n] = '\0';
	if (strlen(buf) != (size_t)n)
		return ferry_fail(FERRY_EUSAGE,
		    "refused: the symlink's target has a NUL byte");
	if (d->p->run.o->links_outside)
		return FERRY_OK;
	if (posix_link_outside(d->t.key, keylen, buf, (size_t)n))
		return ferry_fail(FERRY_EUSAGE,
		    "refused: the symlink's target '%s' points outside the "
		    "folder, or has a '..' after a name that another link "
		    "could lead out (--links-outside makes it)",
		    buf);
	dirlen = (size_t)(d->name - d->t.key);
	if (posix_link_walk(d->dirfd, d->t.key, dirlen ? dirlen - 1 : 0, buf,
	        why, sizeof(why)))
		return ferry_fail(FERRY_EUSAGE,
		    "refused: the symlink's target '%s' %s "
		    "(--links-outside makes it)",
		    buf, why);
	return FERRY_OK;
}

/* Makes the link at a free temporary name in dirfd: 0, or -1 (errno). */
static int
link_temp(int dirfd, const char *target, char *name, size_t n)
{
	uint64_t r;
	int i;

	for (i = 0; i < TMP_TRIES; i++) {
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			r = (uint64_t)getpid() * 2654435761u + (uint64_t)i;
		snprintf(name, n, FERRY_TMP_PREFIX "%012" PRIx64,
		    (uint64_t)(r >> 16));
		if (symlinkat(target, dirfd, name) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	return -1;
}

/* --preserve: the owner (as root) and atime of the link tmp in dirfd. */
static void
link_attrs(struct dl *d, const char *tmp, struct timespec *atime)
{
	struct posix_attrs a;

	attrs_read(&d->meta.posix, d->t.key, &a);
	(void)owner_give(d, &a, tmp);
	if (a.has_atime)
		posix_timespec(a.atime_ns, atime);
}

/* Records the link name in d's folder as the local entry of d's key. */
static void
link_record(struct dl *d, const char *name, const uint8_t xxh[16])
{
	struct manifest_local l;
	struct stat st;

	if (fstatat(d->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		log_warn("%s: cannot stat: %s", d->t.key, strerror(errno));
		return;
	}
	manifest_local_from_stat(&l, &st);
	memcpy(l.hash, xxh, 16);
	if (manifest_local_put(d->p->run.m, d->t.key, d->t.keylen, &l) !=
	    FERRY_OK)
		sync_manifest_warn();
}

/*
 * --backup-dir: what is at the link's name (name, in d's folder) moved
 * aside first, at its path in the folder (pull_keep()).
 */
static ferry_err
keep_link(struct dl *d, const char *name)
{
	size_t dirlen = d->t.keylen - strlen(d->name), n;
	char *rel;
	ferry_err e;
	int kept;

	if (d->p->run.o->backup_path == NULL)
		return FERRY_OK;
	n = dirlen + strlen(name) + 1;
	if ((rel = malloc(n)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	snprintf(rel, n, "%.*s%s", (int)dirlen, d->t.key, name);
	e = pull_keep(d->p, d->dirfd, name, rel, strlen(rel), &kept);
	free(rel);
	return e;
}

ferry_err
posix_link_install(struct dl *d, const uint8_t xxh[16], int64_t mtime_ns)
{
	char target[POSIX_LINK_MAX + 1], tmp[32], name[NAME_MAX + 1];
	const struct manifest_local link = {.mode = S_IFLNK};
	struct timespec ts[2];
	ferry_err e;

	if ((e = link_target_read(d, target, sizeof(target))) != FERRY_OK)
		return e;
	posix_fs_name(d->name, &link, name, sizeof(name));
	if (link_temp(d->dirfd, target, tmp, sizeof(tmp)) != 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot make the symlink: %s", strerror(errno));
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	posix_timespec(mtime_ns, &ts[1]);
	if (d->p->run.o->preserve)
		link_attrs(d, tmp, &ts[0]);
	if (utimensat(d->dirfd, tmp, ts, AT_SYMLINK_NOFOLLOW) != 0)
		log_warn("%s: cannot set the mtime of the symlink: %s",
		    d->t.key, strerror(errno));
	if ((e = keep_link(d, name)) != FERRY_OK) {
		unlinkat(d->dirfd, tmp, 0);
		return e;
	}
	if (renameat(d->dirfd, tmp, d->dirfd, name) != 0) {
		e = ferry_fail(FERRY_ESYS,
		    "cannot rename the symlink into %s: %s", name,
		    strerror(errno));
		unlinkat(d->dirfd, tmp, 0);
		return e;
	}
	link_record(d, name, xxh);
	return FERRY_OK;
}
