/*
 * posixfs.c: the file system's side of a file's POSIX metadata and of
 * the links and empty folders a push keeps (posix.h): a file's metadata
 * read, the hashes of a link or empty folder, a link's target walked.
 * What a push sends is read in sync/up/put.c, what a pull writes is given
 * in sync/down/posixgive.c.
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

#include "manifest/hash.h"
#include "remote/digest.h"
#include "sync/engine/posix.h"
#include "sync/engine/transfer.h"

#define NS_PER_S 1000000000LL
#define NAMEBUF 4096
#define TMP_TRIES 32

/*
 * The name of the last owner and group looked up, by thread: the files of
 * a tree mostly share them, and each getpwuid_r() of the files backend
 * opens and reads /etc/passwd again.  An id without a name is kept as "".
 */
struct name_cache {
	int have;
	unsigned id;
	char name[sizeof(((struct remote_posix *)0)->uname)];
};

static _Thread_local struct name_cache user_cache, group_cache;

/* The name of uid (group: of gid) into c->name, "" when it has none. */
static const char *
name_of(struct name_cache *c, unsigned id, int group)
{
	char buf[NAMEBUF];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;
	const char *n = NULL;

	if (c->have && c->id == id)
		return c->name;
	if (!group && getpwuid_r(id, &pw, buf, sizeof(buf), &pwp) == 0 && pwp)
		n = pwp->pw_name;
	if (group && getgrgid_r(id, &gr, buf, sizeof(buf), &grp) == 0 && grp)
		n = grp->gr_name;
	/* a name too long to store is not stored cut */
	if (n == NULL || strlen(n) >= sizeof(c->name))
		n = "";
	snprintf(c->name, sizeof(c->name), "%s", n);
	c->id = id;
	c->have = 1;
	return c->name;
}

void
posix_from_stat(
    const struct stat *st, int64_t mtime_ns, struct remote_posix *out)
{
	posix_encode(st, mtime_ns, name_of(&user_cache, st->st_uid, 0),
	    name_of(&group_cache, st->st_gid, 1), out);
}

/* The XXH3-128 and MD5 of buf[0..len). */
static void
hash_bytes(const char *buf, size_t len, uint8_t xxh[16], uint8_t md5[16])
{
	manifest_hash_buf(buf, len, xxh);
	remote_md5_buf(buf, len, md5);
}

ferry_err
posix_special_hash(
    int rootfd, const struct transfer *t, uint8_t xxh[16], uint8_t md5[16])
{
	char target[POSIX_LINK_MAX + 1];
	struct stat st;
	size_t len = 0;
	ferry_err e;

	e = manifest_special_read(rootfd, t->key, t->keylen, &t->local, target,
	    sizeof(target), &len, &st);
	if (e == FERRY_OK)
		hash_bytes(target, len, xxh, md5);
	return e;
}

void
posix_fs_name(
    const char *name, const struct manifest_local *l, char *buf, size_t n)
{
	size_t len = strlen(name);

	if (S_ISLNK(l->mode) && posix_is_link_key(name, len))
		len -= POSIX_LINK_EXT_LEN;
	snprintf(buf, n, "%.*s", (int)len, name);
}

/* a longer chain of links is refused, as the kernel refuses it (ELOOP) */
#define WALK_HOPS 40
/* the names left to walk, the targets of links met put in front */
#define WALK_MAX (2 * PATH_MAX)

/* Where a walk of a target through the destination has reached. */
struct walk {
	int fd;              /* a folder, reached without following a link */
	long depth;          /* its folders below the destination */
	char at[PATH_MAX];   /* its path under the destination, "" at the top */
	char rest[WALK_MAX]; /* the names still to walk */
	int hops;            /* the links met */
	char *why;           /* why the walk refuses, said by walk_refuse() */
	size_t whylen;
};

/* Says why w refuses (printf's fmt and arguments) in w->why: 1. */
static int __attribute__((format(printf, 2, 3)))
walk_refuse(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, w->whylen, fmt, ap);
	va_end(ap);
	return 1;
}

/* Says that name in w's folder cannot be checked (errno): 1. */
static int
walk_unchecked(struct walk *w, const char *name)
{
	return walk_refuse(w, "cannot be checked: %s%s%s: %s", w->at,
	    w->at[0] ? "/" : "", name, strerror(errno));
}

/*
 * Moves w into its folder's child folder name, or to its parent for
 * "..": 0, or -1 (errno) when that is no folder to walk into, is above
 * the destination or has too long a path.
 */
static int
walk_move(struct walk *w, const char *name)
{
	int up = strcmp(name, "..") == 0, fd;
	size_t n = strlen(w->at);
	char *slash;

	if (up && w->depth <= 0)
		return errno = EXDEV, -1;
	if (!up && n + 1 + strlen(name) >= sizeof(w->at))
		return errno = ENAMETOOLONG, -1;
	fd = openat(
	    w->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(w->fd);
	w->fd = fd;
	w->depth += up ? -1 : 1;
	if (!up) {
		snprintf(
		    w->at + n, sizeof(w->at) - n, "%s%s", n ? "/" : "", name);
		return 0;
	}
	slash = strrchr(w->at, '/');
	*(slash ? slash : w->at) = '\0';
	return 0;
}

/*
 * The link name in w's folder, met with w->rest + off still to walk:
 * when its target passes posix_target_outside() from the link's own
 * folder, puts that target in front of what is left (0); else 1.
 */
static int
walk_link(struct walk *w, const char *name, size_t off)
{
	char t[POSIX_LINK_MAX + 1];
	const char *sep = w->at[0] ? "/" : "";
	size_t left = strlen(w->rest + off);
	ssize_t len;

	if (++w->hops > WALK_HOPS)
		return walk_refuse(
		    w, "goes through more than %d links", WALK_HOPS);
	len = readlinkat(w->fd, name, t, sizeof(t));
	if (len < 0)
		return walk_unchecked(w, name);
	if ((size_t)len >= sizeof(t))
		return walk_refuse(w,
		    "goes through the link %s%s%s, whose "
		    "target is too long",
		    w->at, sep, name);
	t[len] = '\0';
	if (posix_target_outside(w->depth, t, (size_t)len))
		return walk_refuse(w,
		    "goes through the link %s%s%s already in the folder, "
		    "whose target '%s' points outside it",
		    w->at, sep, name, t);
	if ((size_t)len + 1 + left >= sizeof(w->rest))
		return walk_refuse(w, "is too long with its links' targets");
	memmove(w->rest + len + 1, w->rest + off, left + 1);
	memcpy(w->rest, t, (size_t)len);
	w->rest[len] = '/';
	return 0;
}

/*
 * Walks w->rest from w's folder name by name, as the kernel resolves a
 * path but never letting it follow a link: a folder is opened with
 * O_NOFOLLOW, and a link met (the last name too) has its own target
 * checked from its own folder, then walked in its place.  0 at the end,
 * or at a name that does not exist yet or is no folder: the pull checks
 * each link it makes later.  Else 1, said by walk_refuse().
 */
static int
walk_names(struct walk *w)
{
	char name[NAME_MAX + 1];
	size_t i = 0, len;
	struct stat st;

	while (w->rest[i] != '\0') {
		len = strcspn(w->rest + i, "/");
		if (len > NAME_MAX)
			return walk_refuse(w, "has a name too long");
		snprintf(name, sizeof(name), "%.*s", (int)len, w->rest + i);
		i += len + (w->rest[i + len] == '/');
		if (len == 0 || strcmp(name, ".") == 0)
			continue;
		if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return errno == ENOENT ? 0 : walk_unchecked(w, name);
		if (S_ISLNK(st.st_mode)) {
			if (walk_link(w, name, i))
				return 1;
			i = 0;
		} else if (!S_ISDIR(st.st_mode)) {
			return 0;
		} else if (walk_move(w, name) != 0) {
			return walk_unchecked(w, name);
		}
	}
	return 0;
}

int
posix_link_walk(int dirfd, const char *dir, size_t dirlen, const char *target,
    char *why, size_t whylen)
{
	struct walk *w = malloc(sizeof(*w));
	size_t i;
	int r;

	if (w == NULL) {
		snprintf(why, whylen, "cannot be checked: %s", strerror(errno));
		return 1;
	}
	w->why = why;
	w->whylen = whylen;
	w->hops = 0;
	w->depth = dirlen > 0;
	for (i = 0; i < dirlen; i++)
		w->depth += dir[i] == '/';
	w->fd = -1;
	/* dir is a key's folder and target at most POSIX_LINK_MAX bytes */
	if (dirlen >= sizeof(w->at) || strlen(target) >= sizeof(w->rest))
		r = walk_refuse(w, "has too long a path to check");
	else if ((w->fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
		r = walk_refuse(w, "cannot be checked: %s", strerror(errno));
	else {
		snprintf(w->at, sizeof(w->at), "%.*s", (int)dirlen, dir);
		snprintf(w->rest, sizeof(w->rest), "%s", target);
		r = walk_names(w);
	}
	if (w->fd >= 0)
		close(w->fd);
	free(w);
	return r;
}
