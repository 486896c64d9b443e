/*
 * filehash.c: reading and hashing one file for the scanner, again while
 * it changes under the read.  Thread-safe: a job writes only itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "manifest/filehash.h"

#define FILEHASH_TRIES 3 /* reads of a file that keeps changing */
#define NS_PER_S 1000000000LL

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

void
manifest_local_from_stat(struct manifest_local *r, const struct stat *st)
{
	memset(r, 0, sizeof(*r));
	r->size = (uint64_t)st->st_size;
	r->mtime_ns = ts_ns(&st->st_mtim);
	r->ctime_ns = ts_ns(&st->st_ctim);
	r->ino = (uint64_t)st->st_ino;
	r->dev = (uint64_t)st->st_dev;
	r->mode = (uint32_t)st->st_mode;
	r->has_owner = 1;
	r->uid = (uint32_t)st->st_uid;
	r->gid = (uint32_t)st->st_gid;
}

int
filehash_same_stat(
    const struct manifest_local *a, const struct manifest_local *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns && a->ino == b->ino &&
	       a->dev == b->dev;
}

/*
 * Waits, when ctime is that recent, until the filesystem's clock has
 * moved past it: a later change then gets a later ctime, so a stat that
 * still matches after the read proves the bytes read are the file's.
 * Within one clock tick a change would leave the stat as it was, and the
 * next scan would trust a stale hash.  Whole-second ctimes mean a
 * filesystem with a one-second clock.
 */
static void
settle(int64_t ctime_ns)
{
	int64_t tick = ctime_ns % NS_PER_S ? 20000000 : NS_PER_S;
	struct timespec now, ts;
	int64_t wait;

	clock_gettime(CLOCK_REALTIME, &now);
	wait = ctime_ns + tick - ts_ns(&now);
	/* Further ahead is a clock set back: waiting would not help. */
	if (wait <= 0 || wait > 2 * tick)
		return;
	ts.tv_sec = wait / NS_PER_S;
	ts.tv_nsec = wait % NS_PER_S;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Records the failure of h, as filehash_result() will tell it. */
static ferry_err
failed(struct filehash *h, ferry_err e, const char *what, int err)
{
	h->what = what;
	h->err = err;
	if (err == 0)
		snprintf(h->detail, sizeof(h->detail), "%s", ferry_errmsg());
	return e;
}

/*
 * Hashes the open file fd into h->r with its stat, reading it again
 * while it changes under the read.  FERRY_ENOTFOUND when it is no longer
 * a regular file, FERRY_ECHANGED when it keeps changing.
 */
static ferry_err
hash_open(struct filehash *h, int fd)
{
	struct manifest_local after, *r = &h->r;
	struct stat st;
	uint64_t n;
	ferry_err e;
	int tries;

	for (tries = 0; tries < FILEHASH_TRIES; tries++) {
		if (fstat(fd, &st) < 0 ||
		    (tries > 0 && lseek(fd, 0, SEEK_SET) < 0))
			return failed(h, FERRY_ESYS, "cannot read", errno);
		if (!S_ISREG(st.st_mode))
			return FERRY_ENOTFOUND;
		manifest_local_from_stat(r, &st);
		settle(r->ctime_ns);
		if ((e = manifest_hash_fd(fd, r->hash, NULL, &n)) != FERRY_OK)
			return failed(h, e, "cannot read", 0);
		h->nread += n;
		if (fstat(fd, &st) < 0)
			return failed(h, FERRY_ESYS, "cannot stat", errno);
		manifest_local_from_stat(&after, &st);
		if (filehash_same_stat(r, &after) && n == r->size)
			return FERRY_OK;
	}
	return FERRY_ECHANGED;
}

void
filehash_init(struct filehash *h, int dirfd, const char *name, int follow)
{
	memset(h, 0, sizeof(*h));
	h->dirfd = dirfd;
	h->name = name;
	/* O_NONBLOCK: a fifo swapped in for the file must not hang us. */
	h->oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
	            (follow ? 0 : O_NOFOLLOW);
}

/*
 * Reads of fd leave the file's atime as it was, where the kernel lets
 * this user (the file's owner, or root): a push stores the atime a file
 * had, not the time ferry read it.  Elsewhere reads go as before.
 */
void
filehash_no_atime(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl | O_NOATIME);
}

void
filehash_run(struct filehash *h)
{
	int fd;

	fd = openat(h->dirfd, h->name, h->oflags);
	if (fd < 0 && (errno == ENOENT || errno == ELOOP))
		h->e = FERRY_ENOTFOUND;
	else if (fd < 0)
		h->e = failed(h, FERRY_ESYS, "cannot open", errno);
	else {
		filehash_no_atime(fd);
		h->e = hash_open(h, fd);
		close(fd);
	}
}

ferry_err
filehash_result(const struct filehash *h, const char *path)
{
	if (h->e == FERRY_OK || h->e == FERRY_ENOTFOUND)
		return h->e;
	if (h->e == FERRY_ECHANGED)
		return ferry_fail(h->e, "%s keeps changing while read", path);
	return ferry_fail(h->e, "%s %s: %s", h->what, path,
	    h->err != 0 ? strerror(h->err) : h->detail);
}
