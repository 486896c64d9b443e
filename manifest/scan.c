/*
 * scan.c: the local tree walker.  It brings the local table in line with
 * the tree by a merge-join of two streams in memcmp order: the tree, read
 * one folder at a time and sorted so that a depth-first walk yields full
 * paths in order, and a cursor over the table as it was when the scan
 * began.  Unchanged files cost one fstatat, a lookup and no write;
 * memory is the entries of the folders on the current path, not the tree.
 * The files of a folder that are read are hashed ahead on worker threads,
 * while the merge-join and every manifest access stay on the caller's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest/scanwalk.h"

/* memcmp order of byte strings, a prefix first. */
static int
bytes_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	if (c != 0)
		return c;
	return (na > nb) - (na < nb);
}

/* Hands the failure just recorded with ferry_fail() to opts->report. */
static void
report(struct scan *s, ferry_err e)
{
	s->stats->errors++;
	if (s->opts->report != NULL)
		s->opts->report(
		    s->path, e, ferry_errmsg(), s->opts->report_arg);
}

static void
report_errno(struct scan *s, const char *what, int err)
{
	report(s,
	    ferry_fail(FERRY_ESYS, "%s %s: %s", what, s->path, strerror(err)));
}

/* Sets s->path to the folder's path followed by name (and '/' if dir). */
void
scan_path_set(struct scan *s, size_t base, const char *name, size_t n, int dir)
{
	memcpy(s->path + base, name, n);
	s->plen = base + n;
	if (dir)
		s->path[s->plen++] = '/';
	s->path[s->plen] = '\0';
}

void
scan_path_cut(struct scan *s, size_t base)
{
	s->plen = base;
	s->path[base] = '\0';
}

/* Moves the table cursor to the next record. */
static ferry_err
tab_next(struct scan *s)
{
	ferry_err e;

	e = manifest_iter_local(s->it, &s->key, &s->keylen, &s->rec);
	if (e == FERRY_ENOTFOUND) {
		s->key = NULL;
		return FERRY_OK;
	}
	return e;
}

/*
 * Disposes of the record under the cursor, which the tree no longer
 * has: kept when keep (something near it could not be read), else
 * deleted.
 */
static ferry_err
tab_vanished(struct scan *s, int keep)
{
	ferry_err e;

	if (keep) {
		s->stats->files++;
		s->stats->bytes += s->rec.size;
	} else if ((e = manifest_local_del(s->m, s->key, s->keylen)) !=
	           FERRY_OK)
		return e;
	return tab_next(s);
}

/* Disposes of every record before path[0..n). */
static ferry_err
tab_until(struct scan *s, const char *path, size_t n, int keep)
{
	ferry_err e;

	while (s->key != NULL && bytes_cmp(s->key, s->keylen, path, n) < 0)
		if ((e = tab_vanished(s, keep)) != FERRY_OK)
			return e;
	return FERRY_OK;
}

/*
 * Writes again the record r, of an older ferry, of the file ent whose
 * stat is unchanged, with its owner (has_owner): once, no byte read.
 */
static ferry_err
owner_add(struct scan *s, struct manifest_local *r, const struct ent *ent)
{
	r->has_owner = 1;
	r->uid = ent->st.uid;
	r->gid = ent->st.gid;
	return manifest_local_put(s->m, s->path, s->plen, r);
}

/* Disposes of every record under the folder prefix path[0..n). */
static ferry_err
tab_under(struct scan *s, const char *path, size_t n, int keep)
{
	ferry_err e;

	while (s->key != NULL && s->keylen >= n && memcmp(s->key, path, n) == 0)
		if ((e = tab_vanished(s, keep)) != FERRY_OK)
			return e;
	return FERRY_OK;
}

static int
same_record(const struct manifest_local *a, const struct manifest_local *b)
{
	/* a record without the owner is written again with it */
	return filehash_same_stat(a, b) && a->mode == b->mode &&
	       a->has_owner == b->has_owner && a->uid == b->uid &&
	       a->gid == b->gid &&
	       memcmp(a->hash, b->hash, sizeof(a->hash)) == 0;
}

/*
 * Orders entries by name, a folder's name as if followed by '/', so that
 * walking them depth-first yields full paths in memcmp order.
 */
static int
ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(x->name, y->name, n), cx, cy;

	if (c != 0)
		return c;
	cx = n < x->namelen ? (unsigned char)x->name[n] : x->is_dir ? '/' : -1;
	cy = n < y->namelen ? (unsigned char)y->name[n] : y->is_dir ? '/' : -1;
	return cx - cy;
}

/*
 * Returns arr, or a larger copy of it, with room for n + 1 elements of
 * size bytes, *cap updated; NULL when out of memory (arr stays).
 */
void *
scan_room_for_one(void *arr, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 64;
	void *p;

	if (n < *cap)
		return arr;
	if ((p = realloc(arr, c * size)) != NULL)
		*cap = c;
	return p;
}

/* Appends an entry named name to the level. */
static ferry_err
level_add(struct level *lv, const char *name, size_t n, int is_dir,
    const struct stat *st)
{
	void *p;
	size_t cap;

	p = scan_room_for_one(lv->ents, lv->n, &lv->cap, sizeof(*lv->ents));
	if (p == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	lv->ents = p;
	if (lv->ncap - lv->nlen < n + 1) {
		cap = lv->ncap ? 2 * lv->ncap : 4096;
		while (cap - lv->nlen < n + 1)
			cap *= 2;
		if ((p = realloc(lv->names, cap)) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		lv->names = p;
		lv->ncap = cap;
	}
	memcpy(lv->names + lv->nlen, name, n + 1);
	lv->ents[lv->n].off = lv->nlen;
	lv->ents[lv->n].namelen = n;
	lv->ents[lv->n].is_dir = is_dir;
	lv->ents[lv->n].special = S_ISLNK(st->st_mode);
	manifest_local_from_stat(&lv->ents[lv->n].st, st);
	lv->nlen += n + 1;
	lv->n++;
	return FERRY_OK;
}

/* Whether the filter keeps the entry at s->path. */
static int
wanted(const struct scan *s, int is_dir)
{
	return s->opts->filter == NULL ||
	       s->opts->filter(s->path, is_dir, s->opts->filter_arg);
}

/*
 * Tells opts->left_out of the entry at s->path, one the filter keeps (a
 * folder's path, when is_dir, ends in '/', which is not told).
 */
static void
left_out(struct scan *s, int is_dir, const char *what)
{
	size_t n = s->plen - (is_dir ? 1 : 0);
	char c = s->path[n];

	s->stats->skipped++;
	s->path[n] = '\0';
	if (s->opts->left_out != NULL)
		s->opts->left_out(s->path, what, s->opts->report_arg);
	s->path[n] = c;
}

/*
 * Looks at one name read from the folder: stats it and, when it is a
 * file or folder the filter includes and whose path fits, adds it; tells
 * opts->left_out of any other kind the filter includes.
 */
static ferry_err
level_entry(struct scan *s, struct level *lv, const char *name)
{
	char lname[NAME_MAX + MANIFEST_LINK_EXT_LEN + 1];
	size_t n = strlen(name);
	struct stat st;
	int is_dir;

	if (n > NAME_MAX) {
		report(
		    s, ferry_fail(FERRY_EUSAGE,
		           "a name longer than %d bytes, left out", NAME_MAX));
		return FERRY_OK;
	}
	scan_path_set(s, lv->base, name, n, 0);
	if (fstatat(lv->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return FERRY_OK;
		lv->protect = 1;
		report_errno(s, "cannot stat", errno);
		return FERRY_OK;
	}
	if (S_ISLNK(st.st_mode) && s->opts->follow &&
	    fstatat(lv->fd, name, &st, 0) < 0) {
		int err = errno;

		if (err != ENOENT && err != ELOOP) {
			lv->protect = 1;
			report_errno(s, "cannot stat", err);
		} else if (wanted(s, 0))
			left_out(s, 0,
			    err == ENOENT ? "dangling symlink"
			                  : "symlink loop");
		return FERRY_OK;
	}
	is_dir = S_ISDIR(st.st_mode);
	if (!wanted(s, is_dir))
		return FERRY_OK;
	if (S_ISLNK(st.st_mode) && s->opts->links && !s->opts->follow &&
	    (n = scan_link_name(name, n, lname, sizeof(lname))) > 0) {
		scan_path_set(s, lv->base, lname, n, 0);
		name = lname;
	} else if (!S_ISREG(st.st_mode) && !is_dir) {
		left_out(s, 0, manifest_kind_name(st.st_mode));
		return FERRY_OK;
	}
	/* A folder must leave room for a '/' and a name under it. */
	if (s->plen + (is_dir ? 2 : 0) > MANIFEST_KEY_MAX) {
		report(s, ferry_fail(FERRY_EUSAGE,
		              "path longer than %d bytes, left out",
		              MANIFEST_KEY_MAX));
		return FERRY_OK;
	}
	return level_add(lv, name, n, is_dir, &st);
}

/*
 * The name in the folder of ent into out (cap bytes): a symlink's entry
 * is named for the key it goes as, its own name without the extension.
 */
static const char *
ent_fs_name(const struct ent *ent, char *out, size_t cap)
{
	size_t n = ent->namelen;

	if (ent->special && !ent->is_dir && n > MANIFEST_LINK_EXT_LEN)
		n -= MANIFEST_LINK_EXT_LEN;
	snprintf(out, cap, "%.*s", (int)n, ent->name);
	return out;
}

/*
 * Reports the entries a and b of lv, which go as one key (a symlink's
 * and a file named as its key is, with links): neither is sent, and the
 * records near them are kept, as for an entry that cannot be read.
 */
static void
collision(
    struct scan *s, struct level *lv, const struct ent *a, const struct ent *b)
{
	char an[NAME_MAX + 1], bn[NAME_MAX + 1];
	const char *dir = s->path;

	scan_path_set(s, lv->base, a->name, a->namelen, 0);
	report(s,
	    ferry_fail(FERRY_EUSAGE,
	        "the %s '%.*s%s' and the %s '%.*s%s' both go as this "
	        "key (--links): neither is sent",
	        a->special ? "symlink" : "file", (int)lv->base, dir,
	        ent_fs_name(a, an, sizeof(an)), b->special ? "symlink" : "file",
	        (int)lv->base, dir, ent_fs_name(b, bn, sizeof(bn))));
	scan_path_cut(s, lv->base);
	lv->protect = 1;
}

/*
 * Drops from the sorted entries of lv every run of entries that go as
 * one key, reporting each pair: a key has one source or none.
 */
static void
level_collisions(struct scan *s, struct level *lv)
{
	size_t i, j, kept = 0;

	for (i = 0; i < lv->n; i = j) {
		for (j = i + 1;
		     j < lv->n && ent_cmp(&lv->ents[i], &lv->ents[j]) == 0; j++)
			collision(s, lv, &lv->ents[j - 1], &lv->ents[j]);
		if (j == i + 1)
			lv->ents[kept++] = lv->ents[i];
	}
	lv->n = kept;
}

/* Reads the whole folder of lv (open on lv->fd) and sorts it. */
static ferry_err
level_read(struct scan *s, struct level *lv)
{
	struct dirent *de;
	ferry_err e;
	size_t i;
	int err;

	if ((lv->dir = fdopendir(lv->fd)) == NULL)
		return ferry_fail(FERRY_ESYS, "cannot read folder %s: %s",
		    s->path, strerror(errno));
	for (;;) {
		errno = 0;
		if ((de = readdir(lv->dir)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((e = level_entry(s, lv, de->d_name)) != FERRY_OK)
			return e;
	}
	err = errno;
	scan_path_cut(s, lv->base);
	if (err != 0) {
		lv->protect = 1;
		report_errno(s, "cannot read folder", err);
	}
	for (i = 0; i < lv->n; i++)
		lv->ents[i].name = lv->names + lv->ents[i].off;
	if (lv->n > 1) {
		qsort(lv->ents, lv->n, sizeof(*lv->ents), ent_cmp);
		level_collisions(s, lv);
	}
	return FERRY_OK;
}

/* Waits for the jobs of lv, then closes its folder and frees it. */
static void
level_free(struct scan *s, struct level *lv)
{
	scan_ahead_free(s, lv);
	if (lv->dir != NULL)
		closedir(lv->dir);
	else if (lv->fd >= 0)
		close(lv->fd);
	free(lv->ents);
	free(lv->names);
}

/* Brings the record of the file ent (at s->path) in line with it. */
static ferry_err
visit_file(struct scan *s, struct level *lv, const struct ent *ent)
{
	struct manifest_local r;
	ferry_err e;
	int have;

	if ((e = tab_until(s, s->path, s->plen, lv->protect)) != FERRY_OK)
		return e;
	have = s->key != NULL &&
	       bytes_cmp(s->key, s->keylen, s->path, s->plen) == 0;
	if (!scan_stale(s, have ? &s->rec : NULL, ent)) {
		r = s->rec;
		if (!r.has_owner && (e = owner_add(s, &r, ent)) != FERRY_OK)
			return e;
		goto counted;
	}
	if (ent->special)
		e = scan_special_record(
		    lv->fd, ent->name, ent->namelen, &ent->st, &r);
	else if (!lv->ahead_done &&
	         (e = scan_hash_ahead(s, lv, ent)) != FERRY_OK)
		return e;
	else
		e = scan_hash_entry(s, lv, ent, &r);
	if (e == FERRY_ENOTFOUND)
		return have ? tab_vanished(s, 0) : FERRY_OK;
	if (e == FERRY_ENOMEM)
		return e;
	if (e != FERRY_OK) {
		report(s, e);
		return have ? tab_vanished(s, 1) : FERRY_OK;
	}
	s->stats->hashed++;
	/* --checksum finding what the record says: nothing to write. */
	if ((!have || !same_record(&s->rec, &r)) &&
	    (e = manifest_local_put(s->m, s->path, s->plen, &r)) != FERRY_OK)
		return e;
counted:
	s->stats->files++;
	s->stats->bytes += r.size;
	if (s->opts->progress != NULL)
		s->opts->progress(s->stats, s->opts->report_arg);
	return have ? tab_next(s) : FERRY_OK;
}

/* The entry of the empty folder of lv, at s->path (with its '/'). */
static ferry_err
visit_empty(struct scan *s, struct level *lv)
{
	struct ent ent = {.name = "", .is_dir = 1, .special = 1};
	struct stat st;

	if (fstat(lv->fd, &st) != 0)
		return FERRY_OK;
	manifest_local_from_stat(&ent.st, &st);
	ent.st.size = 0;
	return visit_file(s, lv, &ent);
}

static ferry_err scan_dir(struct scan *s, int fd, int depth);

/*
 * Reports a failure to walk the folder at s->path, naming it without its
 * '/', and keeps the records under it.
 */
static ferry_err
dir_unread(struct scan *s, const char *what, int err)
{
	s->path[s->plen - 1] = '\0';
	if (err != 0)
		report_errno(s, what, err);
	else
		report(s, ferry_fail(FERRY_EUSAGE, "%s", what));
	s->path[s->plen - 1] = '/';
	return tab_under(s, s->path, s->plen, 1);
}

/*
 * Keeps the folder open on fd as the one at depth on the path, and says
 * whether it is one of those above it: reached again through a symlink,
 * it would be walked without end.  A folder that cannot be stat'ed counts
 * as one, and is left out.
 */
static int
folder_loops(struct scan *s, int fd, int depth)
{
	struct stat st;
	int i;

	if (fstat(fd, &st) < 0)
		return 1;
	for (i = 0; i < depth; i++)
		if (s->anc[i].dev == st.st_dev && s->anc[i].ino == st.st_ino)
			return 1;
	s->anc[depth].dev = st.st_dev;
	s->anc[depth].ino = st.st_ino;
	return 0;
}

/* Walks the folder ent (at s->path, which ends in '/'). */
static ferry_err
visit_dir(struct scan *s, struct level *lv, const struct ent *ent)
{
	ferry_err e;
	int fd;

	if ((e = tab_until(s, s->path, s->plen, lv->protect)) != FERRY_OK)
		return e;
	if (lv->depth + 1 > SCAN_DEPTH_MAX)
		return dir_unread(s, "folder too deep, left out", 0);
	fd = openat(lv->fd, ent->name,
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	        (s->opts->follow ? 0 : O_NOFOLLOW));
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
		return tab_under(s, s->path, s->plen, lv->protect);
	if (fd < 0)
		return dir_unread(s, "cannot open folder", errno);
	if (s->opts->follow && folder_loops(s, fd, lv->depth + 1)) {
		close(fd);
		left_out(s, 1, "symlink loop"); /* kept by the filter */
		return tab_under(s, s->path, s->plen, lv->protect);
	}
	return scan_dir(s, fd, lv->depth + 1);
}

/*
 * Walks the folder open on fd (taken over and closed) at s->path, then
 * disposes of the records under it that the walk did not meet.
 */
static ferry_err
scan_dir(struct scan *s, int fd, int depth)
{
	struct level lv;
	ferry_err e;
	size_t i;

	memset(&lv, 0, sizeof(lv));
	lv.fd = fd;
	lv.base = s->plen;
	lv.depth = depth;
	if ((e = level_read(s, &lv)) != FERRY_OK) {
		if (e == FERRY_ENOMEM || depth == 0)
			goto out;
		report(s, e);
		lv.protect = 1;
	}
	for (i = 0; i < lv.n; i++) {
		scan_path_set(s, lv.base, lv.ents[i].name, lv.ents[i].namelen,
		    lv.ents[i].is_dir);
		if (lv.ents[i].is_dir)
			e = visit_dir(s, &lv, &lv.ents[i]);
		else
			e = visit_file(s, &lv, &lv.ents[i]);
		scan_path_cut(s, lv.base);
		if (e != FERRY_OK)
			goto out;
	}
	/* keep_dirs: a folder with nothing kept is an entry of its own */
	if (lv.n == 0 && depth > 0 && s->opts->keep_dirs && !lv.protect &&
	    (e = visit_empty(s, &lv)) != FERRY_OK)
		goto out;
	e = tab_under(s, s->path, lv.base, lv.protect);
out:
	level_free(s, &lv);
	return e;
}

/*
 * Returns FERRY_OK when the walk finished (entries it could not read are
 * counted in stats->errors), else the failure that stopped it.  Writes
 * left pending are committed.  See manifest.h.
 */
ferry_err
manifest_scan(struct manifest *m, int rootfd,
    const struct manifest_scan_opts *opts, struct manifest_scan_stats *stats)
{
	static const struct manifest_scan_opts none;
	struct manifest_scan_stats unused;
	struct scan *s;
	ferry_err e;
	int fd;

	stats = stats != NULL ? stats : &unused;
	memset(stats, 0, sizeof(*stats));
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	s->m = m;
	s->opts = opts != NULL ? opts : &none;
	s->stats = stats;
	/* A descriptor of our own: fdopendir takes it over. */
	fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = ferry_fail(FERRY_ESYS, "cannot open the folder to scan: %s",
		    strerror(errno));
		goto out;
	}
	if ((e = manifest_iter_new(m, MANIFEST_LOCAL, &s->it)) != FERRY_OK ||
	    (e = tab_next(s)) != FERRY_OK) {
		close(fd);
		goto out;
	}
	/* the root, for the loops below it: it cannot be one */
	if (s->opts->follow)
		folder_loops(s, fd, 0);
	if ((e = scan_dir(s, fd, 0)) == FERRY_OK)
		e = manifest_commit(m);
out:
	workq_free(s->wq);
	manifest_iter_free(s->it);
	free(s);
	return e;
}
