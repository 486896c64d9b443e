/*
 * pulllink.c: a pull's hard links (-H).  An object that carries a hard
 * link marker (REMOTE_META_HARDLINK, written by a push -H) names the
 * first name of its file; once every download of the run has landed, so
 * that the file at that name is the one this run leaves, the object's file
 * is made a link to it, within the folder only: a marker that cannot be
 * a path inside it ('..', '.', empty segments), that names a file not
 * there, or one that does not hold the same bytes, is ignored with a
 * warning, and the object stays the plain file it was downloaded as.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/down/down.h"

/* A downloaded file to be made a link to the file at target. */
struct pull_hardlink {
	char *key;
	size_t keylen;
	char *target;
	size_t targetlen;
	uint8_t hash[16];
};

#define LINK_TRIES 32

void
pull_hardlink_note(struct pull *p, const char *key, size_t keylen,
    const char *marker, const uint8_t hash[16])
{
	char target[MANIFEST_KEY_MAX + 1];
	struct pull_hardlink *h;
	const char *why;
	size_t n;

	if (remote_hardlink_decode(marker, target, sizeof(target), &n) !=
	    FERRY_OK) {
		log_warn("%s: %s: kept as a plain file", key, ferry_errmsg());
		return;
	}
	if (n == keylen && memcmp(target, key, n) == 0)
		return;
	if ((why = pull_key_refused(target, n, 1)) != NULL) {
		log_warn("%s: its hard link marker names a path outside the "
		         "folder (%s): kept as a plain file",
		    key, why);
		return;
	}
	if (p->nhl == p->caphl) {
		size_t cap = p->caphl ? p->caphl * 2 : 16;
		if ((h = realloc(p->hl, cap * sizeof(*h))) == NULL)
			goto nomem;
		p->hl = h;
		p->caphl = cap;
	}
	h = &p->hl[p->nhl];
	h->key = strndup(key, keylen);
	h->target = strndup(target, n);
	if (h->key == NULL || h->target == NULL) {
		free(h->key);
		free(h->target);
		goto nomem;
	}
	h->keylen = keylen;
	h->targetlen = n;
	memcpy(h->hash, hash, 16);
	p->nhl++;
	return;
nomem:
	log_warn("%s: out of memory: kept as a plain file", key);
}

void
pull_hardlinks_free(struct pull *p)
{
	size_t i;

	for (i = 0; i < p->nhl; i++) {
		free(p->hl[i].key);
		free(p->hl[i].target);
	}
	free(p->hl);
	p->hl = NULL;
	p->nhl = p->caphl = 0;
}

/* The folder of key, opened (never made), and its last name in *name. */
static int
open_folder(struct pull *p, const char *key, size_t keylen, const char **name)
{
	size_t dirlen;
	int fd;

	*name = dl_key_name(key, keylen, &dirlen);
	if (pull_open_dir(p, key, dirlen, 0, &fd) != FERRY_OK)
		return -1;
	return fd;
}

/*
 * Whether the file at name in dirfd is the one the manifest recorded
 * for key, with content hash: its inode, size and mtime (*st).
 */
static int
holds(struct pull *p, const struct pull_hardlink *h, int dirfd,
    const char *name, struct stat *st)
{
	struct manifest_local rec;

	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st->st_mode) ||
	    manifest_local_get(p->run.m, h->target, h->targetlen, &rec) !=
	        FERRY_OK)
		return 0;
	return rec.ino == (uint64_t)st->st_ino &&
	       rec.size == (uint64_t)st->st_size &&
	       rec.mtime_ns == (int64_t)st->st_mtim.tv_sec * 1000000000 +
	                           st->st_mtim.tv_nsec &&
	       memcmp(rec.hash, h->hash, 16) == 0;
}

/*
 * Puts a new name for the file at tname in tdir at name in dir, over what
 * is there: a link at a free temporary name, renamed.  0, or -1 with errno.
 */
static int
link_over(int tdir, const char *tname, int dir, const char *name)
{
	char tmp[32];
	int i, err;

	for (i = 0; i < LINK_TRIES; i++) {
		snprintf(tmp, sizeof(tmp), FERRY_TMP_PREFIX "%012" PRIx64,
		    (uint64_t)(((uint64_t)now_mono_ns() * 2654435761u + i) &
		               0xffffffffffffULL));
		if (linkat(tdir, tname, dir, tmp, 0) == 0)
			break;
		if (errno != EEXIST)
			return -1;
	}
	if (i == LINK_TRIES)
		return -1;
	if (renameat(dir, tmp, dir, name) == 0)
		return 0;
	err = errno;
	unlinkat(dir, tmp, 0);
	errno = err;
	return -1;
}

/* Records the file at name in dirfd as key's, now that it has a link. */
static void
record(struct pull *p, const char *key, size_t keylen, int dirfd,
    const char *name, const uint8_t hash[16])
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	pull_record_local(p, key, keylen, fd, hash);
	close(fd);
}

/*
 * Makes h's file a link to its target's: 0; -1 when it cannot, said with
 * a warning when warn is set (the file stays as it is).
 */
static int
make_link(struct pull *p, const struct pull_hardlink *h, int warn)
{
	const char *tname, *name;
	int tdir, dir = -1, ret = -1;
	struct stat tst, st;
	char *full;

	if ((tdir = open_folder(p, h->target, h->targetlen, &tname)) < 0 ||
	    !holds(p, h, tdir, tname, &tst)) {
		if (warn)
			log_warn("%s: its hard link marker names %s, which is "
			         "not here with the same bytes: kept as a "
			         "plain file",
			    h->key, h->target);
		goto out;
	}
	if ((dir = open_folder(p, h->key, h->keylen, &name)) < 0)
		goto out;
	ret = 0;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_ino == tst.st_ino && st.st_dev == tst.st_dev)
		goto out;
	if (link_over(tdir, tname, dir, name) != 0) {
		ret = -1;
		if (warn)
			log_warn("%s: cannot link it to %s: %s: kept as a "
			         "plain file",
			    h->key, h->target, strerror(errno));
		goto out;
	}
	if (p->run.o->fsync && fsync(dir) != 0)
		log_warn(
		    "%s: cannot sync its folder: %s", h->key, strerror(errno));
	/* a link changes the inode's ctime: both names recorded afresh */
	record(p, h->key, h->keylen, dir, name, h->hash);
	record(p, h->target, h->targetlen, tdir, tname, h->hash);
	p->run.counts.linked++;
	full = remote_key_join(p->run.loc.prefix, h->key, h->keylen, NULL);
	output_action(&p->run.out, "link", full ? full : h->key,
	    strlen(full ? full : h->key), (uint64_t)tst.st_size, NULL);
	free(full);
out:
	if (tdir >= 0)
		close(tdir);
	if (dir >= 0)
		close(dir);
	return ret;
}

int
pull_hardlink_make(struct pull *p, const char *key, size_t keylen,
    const char *target, size_t targetlen, const uint8_t hash[16])
{
	struct pull_hardlink h;
	char k[MANIFEST_KEY_MAX + 1], t[MANIFEST_KEY_MAX + 1];

	if (keylen > MANIFEST_KEY_MAX || targetlen > MANIFEST_KEY_MAX)
		return -1;
	memcpy(k, key, keylen);
	k[keylen] = '\0';
	memcpy(t, target, targetlen);
	t[targetlen] = '\0';
	h.key = k;
	h.keylen = keylen;
	h.target = t;
	h.targetlen = targetlen;
	memcpy(h.hash, hash, 16);
	return make_link(p, &h, 0);
}

ferry_err
pull_hardlinks(struct pull *p)
{
	size_t i;

	for (i = 0; i < p->nhl && !ferry_interrupted; i++)
		(void)make_link(p, &p->hl[i], 1);
	pull_hardlinks_free(p);
	if (ferry_interrupted)
		return ferry_fail(FERRY_ECANCEL, "interrupted by signal %d",
		    (int)ferry_interrupted);
	return FERRY_OK;
}
