/*
 * pullrename.c: --track-renames in a pull.  To a pull with --delete, an
 * object renamed on the bucket is a new key (an object with no file
 * here) and a file whose key is gone.  The merge meets them in key
 * order, the new key perhaps first: so the downloads of new keys are
 * held back until the merge is done, and the files it deletes whose
 * content is known for certain are kept meanwhile, by the size and ETag
 * of the object they hold.  Known for certain: the file is the one the
 * manifest recorded (the scan's size, mtime and inode, or its XXH3-128
 * read again), and the manifest's record of the object ferry last wrote
 * or read under its key has the file's size and XXH3-128, with that
 * object's ETag.
 *
 * When the merge's downloads are done, each new key held back whose
 * listed size and ETag are those of such a file is asked with a HEAD
 * (If-Match its listed ETag): when the object still has them, and the
 * XXH3-128 ferry stored with it (if any) is the file's, the file is
 * moved to the new name (rename(2) to a temporary name in the new
 * folder, made as needed, then given the object's mode, times and
 * attributes as its download would be, and renamed into place:
 * dl_install()), and that is its delete.  Anything else (no such file,
 * the file changed since the scan, another size, ETag or hash, a HEAD
 * that fails, a file system that cannot move it) leaves the file where
 * it is: the new key is downloaded, in a second round of the engine,
 * and the file deleted as without the option.  One file moves to one new
 * name; a second new key of the same content is downloaded.
 *
 * The guard on deletes: a rename's delete loses no byte, they stay
 * under the new name; it is not counted against --max-delete, as a
 * push's.  Renames are made only while the guard could still let the
 * deletes run (no file of the scan unread, no download failed).
 *
 * Not with --backup-dir (it keeps what a delete removes, a move would
 * not), nor -X or -A (they add what an object carries and remove
 * nothing: a moved file would keep what its new object lacks): there,
 * every new key is downloaded.
 *
 * Memory is bounded: at most PULL_RENAMES_MAX new keys held back and as
 * many files kept as sources; past either, the new keys are downloaded
 * at once and the files only deleted: bytes read, never a wrong file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/down/get.h"

#define PULL_RENAMES_MAX 65536

/* A file the merge deletes, whose object's content the manifest knows. */
struct pr_src {
	char *key;
	size_t keylen;
	struct manifest_local l; /* as scanned */
	char etag[MANIFEST_ETAG_MAX];
	int moved;
};

/* A new key held back. */
struct pr_new {
	struct dl_held h;
	enum plan_action action;
	const char *reason; /* static */
	int done;           /* renamed: no download */
};

struct pull_renames {
	struct pr_src *src;
	size_t nsrc, capsrc;
	size_t *byetag; /* indices of src, by size then ETag */
	struct pr_new *nw;
	size_t nnew, capnew;
	size_t next; /* the second round: the next key to begin */
	int all;     /* the second round: all begun */
	int full_said;
	uint64_t moved;
};

void
pull_renames_free(struct pull *p)
{
	struct pull_renames *rn = p->renames;
	size_t i;

	if (rn == NULL)
		return;
	for (i = 0; i < rn->nsrc; i++)
		free(rn->src[i].key);
	for (i = 0; i < rn->nnew; i++) {
		free(rn->nw[i].h.key);
		free(rn->nw[i].h.etag);
	}
	free(rn->src);
	free(rn->byetag);
	free(rn->nw);
	free(rn);
	p->renames = NULL;
}

/* p's renames, made on first use; NULL when out of memory. */
static struct pull_renames *
renames_of(struct pull *p)
{
	if (p->renames == NULL)
		p->renames = calloc(1, sizeof(*p->renames));
	return p->renames;
}

/* Whether the bound is met; said once. */
static int
full(struct pull_renames *rn, size_t n)
{
	if (n < PULL_RENAMES_MAX)
		return 0;
	if (!rn->full_said)
		log_info("--track-renames: more than %d new keys or deletes "
		         "in this run: the rest are not looked at as renames "
		         "(downloaded, or deleted only)",
		    PULL_RENAMES_MAX);
	rn->full_said = 1;
	return 1;
}

/* Whether the options let the run move files at all. */
static int
renames_on(const struct pull *p)
{
	const struct sync_opts *o = p->run.o;

	/* --backup-dir keeps what a delete removes: a move would not; -X
	 * and -A only add what an object carries, so a moved file would
	 * keep attributes its new object does not have */
	return o->track_renames && o->backup_dir == NULL && !o->hard_links &&
	       !o->xattrs && !o->acls;
}

ferry_err
pull_renames_gather(struct pull *p, const char *key, size_t keylen,
    const struct manifest_local *l)
{
	struct manifest_remote rec;
	struct pull_renames *rn;
	struct pr_src *s;

	if (!renames_on(p) || l->size == 0 || !S_ISREG(l->mode) ||
	    (p->run.o->links && posix_is_link_key(key, keylen)))
		return FERRY_OK;
	/* the file holds the bytes of the object recorded under its key */
	if (manifest_remote_get(p->run.m, key, keylen, &rec) != FERRY_OK ||
	    !rec.has_hash || rec.size != l->size || rec.etag[0] == '\0' ||
	    memcmp(rec.hash, l->hash, sizeof(rec.hash)) != 0)
		return FERRY_OK;
	if ((rn = renames_of(p)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (full(rn, rn->nsrc))
		return FERRY_OK;
	if (array_grow((void **)&rn->src, &rn->capsrc, rn->nsrc, sizeof(*s)) <
	    0)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	s = &rn->src[rn->nsrc];
	memset(s, 0, sizeof(*s));
	if ((s->key = strndup(key, keylen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	s->keylen = keylen;
	s->l = *l;
	snprintf(s->etag, sizeof(s->etag), "%s", rec.etag);
	rn->nsrc++;
	return FERRY_OK;
}

ferry_err
pull_renames_hold(struct pull *p, const struct remote_obj *o,
    const struct plan_decision *d, int *held)
{
	struct pull_renames *rn;
	struct pr_new *n;

	*held = 0;
	if (!renames_on(p) || o->size == 0 || o->etag == NULL ||
	    o->etag[0] == '\0' || o->version_id != NULL ||
	    o->archived != NULL ||
	    (p->run.o->links && posix_is_link_key(o->key, o->keylen)))
		return FERRY_OK;
	if ((rn = renames_of(p)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (full(rn, rn->nnew))
		return FERRY_OK;
	if (array_grow((void **)&rn->nw, &rn->capnew, rn->nnew, sizeof(*n)) < 0)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	n = &rn->nw[rn->nnew];
	memset(n, 0, sizeof(*n));
	n->h.key = strndup(o->key, o->keylen);
	n->h.etag = strdup(o->etag);
	if (n->h.key == NULL || n->h.etag == NULL) {
		free(n->h.key);
		free(n->h.etag);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	n->h.keylen = o->keylen;
	n->h.size = o->size;
	n->h.last_modified = o->last_modified;
	n->action = d->action;
	n->reason = d->reason;
	rn->nnew++;
	*held = 1;
	return FERRY_OK;
}

static int
cmp_src_key(const void *a, const void *b)
{
	const struct pr_src *x = a, *y = b;

	return remote_key_cmp(x->key, x->keylen, y->key, y->keylen);
}

static int
cmp_content(
    uint64_t asize, const char *aetag, uint64_t bsize, const char *betag)
{
	if (asize != bsize)
		return (asize > bsize) - (asize < bsize);
	return strcmp(aetag, betag);
}

/* Orders indices of the sources arg by their content. */
static int
cmp_idx(const void *a, const void *b, void *arg)
{
	const struct pr_src *src = arg;
	const struct pr_src *x = &src[*(const size_t *)a];
	const struct pr_src *y = &src[*(const size_t *)b];

	return cmp_content(x->l.size, x->etag, y->l.size, y->etag);
}

/* Sorts the sources by key, and indexes them by content. */
static ferry_err
index_sources(struct pull_renames *rn)
{
	size_t i;

	if (rn->nsrc == 0)
		return FERRY_OK;
	qsort(rn->src, rn->nsrc, sizeof(*rn->src), cmp_src_key);
	if ((rn->byetag = malloc(rn->nsrc * sizeof(*rn->byetag))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	for (i = 0; i < rn->nsrc; i++)
		rn->byetag[i] = i;
	qsort_r(rn->byetag, rn->nsrc, sizeof(*rn->byetag), cmp_idx, rn->src);
	return FERRY_OK;
}

/* A file not moved yet that holds n's object's content, or NULL. */
static struct pr_src *
source_for(struct pull_renames *rn, const struct pr_new *n)
{
	size_t lo = 0, hi = rn->nsrc, mid;
	struct pr_src *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		s = &rn->src[rn->byetag[mid]];
		if (cmp_content(s->l.size, s->etag, n->h.size, n->h.etag) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rn->nsrc; lo++) {
		s = &rn->src[rn->byetag[lo]];
		if (cmp_content(s->l.size, s->etag, n->h.size, n->h.etag) != 0)
			return NULL;
		if (!s->moved)
			return s;
	}
	return NULL;
}

/*
 * Whether the HEAD's reply s says n's object is still the one listed,
 * with the content of the file s holds.
 */
static int
head_agrees(
    const struct remote_resp *r, const struct pr_new *n, const struct pr_src *s)
{
	char hex[33];

	if (strcmp(r->etag, n->h.etag) != 0 || !r->has_content_length ||
	    r->content_length != n->h.size)
		return 0;
	if (r->meta_hash[0] == '\0')
		return 1;
	hex_encode(s->l.hash, 16, hex);
	return dl_is_xxh128_hex(r->meta_hash) &&
	       strcasecmp(hex, r->meta_hash) == 0;
}

/*
 * Asks n's object with a HEAD: FERRY_OK with *q its reply (the caller's)
 * when it agrees with s's file, else *q NULL.
 */
static ferry_err
ask(struct pull *p, const struct pr_new *n, const struct pr_src *s,
    struct remote_req **q)
{
	char *full;
	ferry_err e;

	*q = NULL;
	if ((full = remote_key_join(
	         p->run.loc.prefix, n->h.key, n->h.keylen, NULL)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	e = remote_head_object(
	    p->run.r, p->run.loc.bucket, full, strlen(full), n->h.etag, q);
	free(full);
	if (e != FERRY_OK)
		return FERRY_OK;
	if (remote_perform(p->run.r, *q, 0) != FERRY_OK ||
	    !head_agrees(remote_req_resp(*q), n, s)) {
		remote_req_free(*q);
		*q = NULL;
	}
	return FERRY_OK;
}

/* The file to move: its name in its folder. */
struct move_from {
	int dir;
	const char *name;
};

/*
 * Moves the file arg names to name in d's folder: 0, or -1 with errno
 * (EEXIST where name is taken: RENAME_NOREPLACE).
 */
static int
move_in(struct dl *d, const char *name, void *arg)
{
	const struct move_from *from = arg;

	return renameat2(
	    from->dir, from->name, d->dirfd, name, RENAME_NOREPLACE);
}

/* Whether the file name of odir is still s's, as scanned; opens it. */
static int
still_scanned(int odir, const char *name, const struct pr_src *s, int *fd)
{
	struct manifest_local now;
	struct stat st;

	*fd =
	    openat(odir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0)
		return 0;
	if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	manifest_local_from_stat(&now, &st);
	return now.ino == s->l.ino && now.size == s->l.size &&
	       now.mtime_ns == s->l.mtime_ns;
}

/*
 * After dl_install() failed: the file goes back to its old name, so that
 * nothing is lost; where it cannot, it stays at its temporary name, said.
 */
static void
move_back(struct dl *d, int odir, const char *oname, const struct pr_src *s)
{
	if (d->tmpname[0] == '\0')
		return;
	if (renameat2(d->dirfd, d->tmpname, odir, oname, RENAME_NOREPLACE) != 0)
		log_warn("%s: cannot move it back from %s: %s: it is there",
		    s->key, d->tmpname, strerror(errno));
	d->tmpname[0] = '\0';
}

/* The file's part of a move: d's folder, its file, its HEAD's metadata. */
static int
move_file(struct pull *p, struct dl *d, const struct pr_new *n,
    const struct pr_src *s, const struct remote_resp *r)
{
	size_t odl, ndl;
	const char *oname = dl_key_name(s->key, s->keylen, &odl);
	struct move_from from;
	int odir = -1, ok = 0;

	if (pull_open_dir(p, s->key, odl, 0, &odir) != FERRY_OK)
		goto out;
	if (!still_scanned(odir, oname, s, &d->fd))
		goto out;
	d->name = dl_key_name(n->h.key, n->h.keylen, &ndl);
	if (pull_dir_get(p, n->h.key, ndl, &d->dir) != FERRY_OK)
		goto out;
	d->dirfd = d->dir->fd;
	from.dir = odir;
	from.name = oname;
	if (dl_temp_name(d, move_in, &from) != 0)
		goto out;
	d->written = n->h.size;
	dl_take_meta(d, r);
	if (dl_install(d, s->l.hash) != FERRY_OK) {
		log_info("%s: not moved from %s (%s); downloaded instead",
		    n->h.key, s->key, ferry_errmsg());
		move_back(d, odir, oname, s);
		goto out;
	}
	if (p->run.o->fsync && fsync(odir) != 0)
		log_warn(
		    "%s: cannot sync its folder: %s", s->key, strerror(errno));
	ok = 1;
out:
	if (odir >= 0)
		close(odir);
	return ok;
}

/* Moves s's file to n's name: 1, or 0 with the file where it was. */
static int
move_one(struct pull *p, const struct pr_new *n, struct pr_src *s,
    const struct remote_resp *r)
{
	struct dl *d;
	int ok;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return 0;
	d->p = p;
	d->fd = -1;
	d->dirfd = -1;
	d->t.key = n->h.key;
	d->t.keylen = n->h.keylen;
	d->t.listed.size = n->h.size;
	d->t.listed.last_modified = n->h.last_modified;
	snprintf(d->t.listed.etag, sizeof(d->t.listed.etag), "%s", n->h.etag);
	ok = move_file(p, d, n, s, r);
	if (d->fd >= 0)
		close(d->fd);
	pull_dir_put(d->dir);
	free(d->meta.xmeta);
	free(d);
	if (!ok)
		return 0;
	if (manifest_local_del(p->run.m, s->key, s->keylen) != FERRY_OK ||
	    manifest_remote_del(p->run.m, s->key, s->keylen) != FERRY_OK)
		sync_manifest_warn();
	return 1;
}

/* Tells and counts n as renamed from s (dry run: as planned). */
static ferry_err
told(struct pull *p, const struct pr_new *n, struct pr_src *s)
{
	struct plan_entry src = {
	    .present = 1, .size = n->h.size, .etag = n->h.etag};
	struct plan_entry dst = {0};
	char reason[64 + MANIFEST_KEY_MAX];
	char *full;

	s->moved = 1;
	p->renames->moved++;
	p->run.counts.renamed++;
	if (p->run.o->dry_run) {
		snprintf(reason, sizeof(reason),
		    "same content as %.*s, deleted", (int)s->keylen, s->key);
		return sync_run_planned(&p->run, "rename", n->h.key,
		    n->h.keylen, n->h.size, reason, &src, &dst);
	}
	if ((full = remote_key_join(
	         p->run.loc.prefix, n->h.key, n->h.keylen, NULL)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	output_action(
	    &p->run.out, "rename", full, strlen(full), n->h.size, NULL);
	free(full);
	return FERRY_OK;
}

/* n renamed from a file the run deletes, when one holds its content. */
static ferry_err
try_rename(struct pull *p, struct pr_new *n)
{
	struct pr_src *s;
	struct remote_req *q;
	ferry_err e;
	int moved;

	if ((s = source_for(p->renames, n)) == NULL)
		return FERRY_OK;
	if ((e = ask(p, n, s, &q)) != FERRY_OK || q == NULL)
		return e;
	moved = p->run.o->dry_run || move_one(p, n, s, remote_req_resp(q));
	remote_req_free(q);
	if (!moved)
		return FERRY_OK;
	n->done = 1;
	return told(p, n, s);
}

/* A dry run: tells and counts n's download. */
static ferry_err
dry_download(struct pull *p, const struct pr_new *n)
{
	struct plan_entry src = {.present = 1,
	    .size = n->h.size,
	    .etag = n->h.etag,
	    .last_modified = n->h.last_modified};
	struct plan_entry dst = {0};

	p->run.counts.downloaded++;
	p->run.counts.bytes += n->h.size;
	return sync_run_planned(&p->run, "download", n->h.key, n->h.keylen,
	    n->h.size, n->reason, &src, &dst);
}

/* The second round's planner: begins the next download held back. */
static ferry_err
begin_next(void *arg)
{
	struct pull *p = arg;
	struct pull_renames *rn = p->renames;
	struct pr_new *n;

	while (rn->next < rn->nnew && rn->nw[rn->next].done)
		rn->next++;
	if (rn->next == rn->nnew) {
		rn->all = 1;
		return FERRY_OK;
	}
	n = &rn->nw[rn->next++];
	if (p->run.o->dry_run)
		return dry_download(p, n);
	return dl_begin_held(p, n->action, &n->h, NULL);
}

ferry_err
pull_renames_run(struct pull *p)
{
	struct pull_renames *rn = p->renames;
	ferry_err e;
	size_t i;

	if (rn == NULL || rn->nnew == 0)
		return FERRY_OK;
	if ((e = index_sources(rn)) != FERRY_OK)
		return e;
	/* a guard that refuses the deletes would leave the files: moved,
	 * they would not be */
	for (i = 0; i < rn->nnew && rn->nsrc > 0 && !p->run.scan_errors &&
	            !p->run.eng.failed && !ferry_interrupted;
	     i++)
		if ((e = try_rename(p, &rn->nw[i])) != FERRY_OK)
			return e;
	rn->next = 0;
	return dl_round_run(p, &rn->all, begin_next);
}

int
pull_renamed_away(const struct pull *p, const char *key, size_t keylen)
{
	const struct pull_renames *rn = p->renames;
	size_t lo = 0, hi, mid;
	int c;

	if (rn == NULL || rn->moved == 0)
		return 0;
	hi = rn->nsrc;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = remote_key_cmp(
		    rn->src[mid].key, rn->src[mid].keylen, key, keylen);
		if (c == 0)
			return rn->src[mid].moved;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

uint64_t
pull_renames_moved(const struct pull *p)
{
	return p->renames ? p->renames->moved : 0;
}
