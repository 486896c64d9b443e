/*
 * get.c: the transfers of a pull: single GETs streamed into a temporary
 * file (made once the GET is sent), and the writing of each file (ranged
 * GETs, written at their offsets, are getrange.c's).  Each file is
 * verified against the ETag or the stored content hash, given its mtime
 * and renamed into place; a failed one leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sparse.h"
#include "sync/down/get.h"
#include "sync/engine/engine.h"
#include "sync/down/down.h"

#define NS_PER_S 1000000000LL
#define TMP_TRIES 32
#define DL_WBUF (64 * 1024)

static uint64_t
next_random(struct pull *p)
{
	/* xorshift64*: temporary names need spread, O_EXCL gives safety */
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return p->rng * 2685821657736338717ULL;
}

/* Removes the temporary file if it was never renamed into place. */
static void
drop_temp(struct dl *d)
{
	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
	if (d->tmpname[0] != '\0' && d->dirfd >= 0 &&
	    unlinkat(d->dirfd, d->tmpname, 0) != 0)
		log_warn("%s: cannot remove %s: %s", d->t.key, d->tmpname,
		    strerror(errno));
	d->tmpname[0] = '\0';
	pull_dir_put(d->dir);
	d->dir = NULL;
	d->dirfd = -1;
}

/*
 * A single GET's file is made once its request is sent: while the loop
 * waits for replies (dl_make_due()), or at the reply's first byte, which
 * ever comes first.  Far from the server, files are made while their
 * requests travel, not before the first of them leaves.
 */
static void
due_add(struct dl *d)
{
	struct pull *p = d->p;

	d->due = 1;
	d->due_next = NULL;
	d->due_prev = p->due_tail;
	if (p->due_tail != NULL)
		p->due_tail->due_next = d;
	else
		p->due_head = d;
	p->due_tail = d;
	p->run.eng.idle_due++;
}

static void
due_remove(struct dl *d)
{
	struct pull *p = d->p;

	if (!d->due)
		return;
	if (d->due_prev != NULL)
		d->due_prev->due_next = d->due_next;
	else
		p->due_head = d->due_next;
	if (d->due_next != NULL)
		d->due_next->due_prev = d->due_prev;
	else
		p->due_tail = d->due_prev;
	d->due = 0;
	d->due_prev = d->due_next = NULL;
	p->run.eng.idle_due--;
}

void
dl_free(struct dl *d)
{
	if (d == NULL)
		return;
	due_remove(d);
	dl_readback_drop(d);
	drop_temp(d);
	free(d->pend.buf);
	remote_md5_free(d->md5);
	manifest_hash_free(d->xxh);
	free(d->meta.xmeta);
	transfer_clear(&d->t);
	free(d->version_id);
	free(d);
}

void
dl_finish(struct dl *d)
{
	drop_temp(d);
	transfer_finish(&d->t);
}

void
dl_fail(struct dl *d, ferry_err e)
{
	transfer_fail(&d->t, e);
}

/* Keeps a sink's failure for the completion (curl only says "write"). */
int
dl_sink_fail(struct dl *d, ferry_err e)
{
	d->sink_err = e;
	snprintf(d->sinkmsg, sizeof(d->sinkmsg), "%s", ferry_errmsg());
	return 1;
}

/* Where key's file goes: *dirlen bytes of folder, then the name. */
const char *
dl_key_name(const char *key, size_t keylen, size_t *dirlen)
{
	size_t i = keylen;

	while (i > 0 && key[i - 1] != '/')
		i--;
	*dirlen = i > 0 ? i - 1 : 0;
	return key + i;
}

/*
 * Links d's unnamed file in at name in its folder: 0, or -1 with errno.
 * AT_EMPTY_PATH names the file by its descriptor alone, with no lookup of
 * a path; older kernels allow that only with CAP_DAC_READ_SEARCH, and the
 * path through /proc that open(2) documents serves where they refuse it.
 */
static int
link_unnamed(struct dl *d, const char *name)
{
	char path[64];

	if (d->p->link == PULL_LINK_EMPTY)
		return linkat(d->fd, "", d->dirfd, name, AT_EMPTY_PATH);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", d->fd);
	return linkat(AT_FDCWD, path, d->dirfd, name, AT_SYMLINK_FOLLOW);
}

/* link_unnamed() as dl_temp_name() calls it. */
static int
link_unnamed_at(struct dl *d, const char *name, void *arg)
{
	(void)arg;
	return link_unnamed(d, name);
}

/* Creates a new file at name in d's folder: 0, or -1 with errno. */
static int
create_named(struct dl *d, const char *name, void *arg)
{
	(void)arg;
	const int fl = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

	d->fd = openat(d->dirfd, name, fl, 0600);
	return d->fd >= 0 ? 0 : -1;
}

int
dl_temp_name(
    struct dl *d, int (*make)(struct dl *, const char *, void *), void *arg)
{
	int i;

	for (i = 0; i < TMP_TRIES; i++) {
		snprintf(d->tmpname, sizeof(d->tmpname),
		    FERRY_TMP_PREFIX "%012" PRIx64, next_random(d->p) >> 16);
		if (make(d, d->tmpname, arg) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	d->tmpname[0] = '\0';
	return -1;
}

/* Gives d's unnamed file a temporary name: 0, or -1 with errno. */
static int
name_unnamed(struct dl *d)
{
	if (dl_temp_name(d, link_unnamed_at, NULL) != 0)
		return -1;
	d->unnamed = 0;
	return 0;
}

/* Opens an unnamed file (O_TMPFILE) in d's folder into d->fd: 0 or -1. */
static int
open_tmpfile(struct dl *d)
{
	d->fd = openat(d->dirfd, ".", O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	return d->fd >= 0 ? 0 : -1;
}

/*
 * Finds out, once per pull and in the first folder a new file goes to,
 * whether unnamed files can be linked in there: an empty one is linked in
 * under a temporary name and removed at once.  Sets p->link.
 */
static void
probe_link(struct dl *d)
{
	static const enum pull_link ways[] = {PULL_LINK_EMPTY, PULL_LINK_PROC};
	struct pull *p = d->p;
	size_t i;

	p->link = PULL_LINK_NONE;
	if (open_tmpfile(d) != 0)
		return;
	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		p->link = ways[i];
		if (dl_temp_name(d, link_unnamed_at, NULL) == 0)
			break;
		p->link = PULL_LINK_NONE;
	}
	if (p->link != PULL_LINK_NONE && unlinkat(d->dirfd, d->tmpname, 0) != 0)
		log_warn("%s: cannot remove %s: %s", d->t.key, d->tmpname,
		    strerror(errno));
	close(d->fd);
	d->fd = -1;
	d->tmpname[0] = '\0';
}

/*
 * Opens an unnamed file in d's folder when the name is free (the scan saw
 * no file there) and unnamed files can be linked in: 1 when it did, else
 * 0 (a named temporary file is then made instead).
 */
static int
open_unnamed(struct dl *d)
{
	struct pull *p = d->p;

	if (d->exists)
		return 0;
	if (p->link == PULL_LINK_UNKNOWN)
		probe_link(d);
	if (p->link == PULL_LINK_NONE || open_tmpfile(d) != 0)
		return 0;
	d->unnamed = 1;
	return 1;
}

/*
 * --sparse: notes the block size of d's new file, the unit of the holes
 * its writes leave (4096 where the filesystem does not say).
 */
static ferry_err
sparse_begin(struct dl *d)
{
	struct stat st;

	if (!d->p->run.o->sparse)
		return FERRY_OK;
	if (fstat(d->fd, &st) != 0)
		return ferry_fail(FERRY_ESYS, "cannot stat the file for %s: %s",
		    d->t.key, strerror(errno));
	d->sparse_blk = st.st_blksize > 0 ? (size_t)st.st_blksize : 4096;
	return FERRY_OK;
}

/* Opens the target's folder (made if missing) into d->dir. */
static ferry_err
open_folder(struct dl *d)
{
	size_t dirlen;
	ferry_err e;

	d->name = dl_key_name(d->t.key, d->t.keylen, &dirlen);
	if ((e = pull_dir_get(d->p, d->t.key, dirlen, &d->dir)) != FERRY_OK)
		return e;
	d->dirfd = d->dir->fd;
	return FERRY_OK;
}

/* Creates the file to write in d's folder. */
static ferry_err
make_file(struct dl *d)
{
	due_remove(d);
	if (open_unnamed(d) || dl_temp_name(d, create_named, NULL) == 0)
		return sparse_begin(d);
	return ferry_fail(FERRY_ESYS,
	    "cannot create a temporary file for %s: %s", d->t.key,
	    strerror(errno));
}

ferry_err
dl_open_temp(struct dl *d)
{
	ferry_err e = open_folder(d);

	return e != FERRY_OK ? e : make_file(d);
}

/* Up to this many files per turn of the loop, about a millisecond each. */
#define DUE_TURN 4

void
dl_make_due(struct pull *p)
{
	struct dl *d;
	ferry_err e;
	int i;

	for (i = 0; i < DUE_TURN && (d = p->due_head) != NULL; i++) {
		/* its reply's sink stops at once, its completion says why */
		if ((e = make_file(d)) != FERRY_OK)
			dl_sink_fail(d, e);
	}
}

/* Writes all of data at off; a short write is retried, ENOSPC reported. */
static ferry_err
write_dense(struct dl *d, const char *data, size_t len, uint64_t off)
{
	ssize_t n;

	while (len > 0) {
		n = pwrite(d->fd, data, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ferry_fail(FERRY_ESYS, "cannot write %s: %s",
			    d->t.key, n < 0 ? strerror(errno) : "no progress");
		data += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return FERRY_OK;
}

/*
 * Writes data at off into d's file, from w; with --sparse, the blocks of
 * zeros are left as holes (the file is new: what is not written reads as
 * zeros, and dl_sparse_end() gives it its size), but where an attempt cut
 * off may have written other bytes (below w->dense_end).
 */
static ferry_err
write_at(struct dl *d, const struct dl_pending *w, const char *data, size_t len,
    uint64_t off)
{
	ferry_err e;
	size_t n;
	int skip;

	while (len > 0) {
		skip = 0;
		n = len;
		if (off >= w->dense_end)
			n = sparse_run(data, len, off, d->sparse_blk, &skip);
		else if (n > w->dense_end - off)
			n = (size_t)(w->dense_end - off);
		if (!skip && (e = write_dense(d, data, n, off)) != FERRY_OK)
			return e;
		data += n;
		len -= n;
		off += n;
	}
	return FERRY_OK;
}

ferry_err
dl_sparse_end(struct dl *d)
{
	if (d->sparse_blk == 0 ||
	    ftruncate(d->fd, (off_t)d->t.listed.size) == 0)
		return FERRY_OK;
	return ferry_fail(FERRY_ESYS, "cannot set the size of %s: %s", d->t.key,
	    strerror(errno));
}

/* Keeps what the first successful response said about the object. */
void
dl_take_meta(struct dl *d, const struct remote_resp *s)
{
	struct dl_meta *m = &d->meta;

	/* a GET's reply keeps them (dl_new_get()), a HEAD's does not */
	if (m->xmeta == NULL && s->meta.len > 0) {
		if (s->meta_overflow)
			log_warn("%s: its object's metadata is longer than "
			         "ferry reads: some attributes may be left "
			         "out",
			    d->t.key);
		m->xmeta = strdup(s->meta.data);
	}
	if (m->have)
		return;
	m->have = 1;
	snprintf(m->etag, sizeof(m->etag), "%s", s->etag);
	snprintf(m->hash, sizeof(m->hash), "%s", s->meta_hash);
	snprintf(m->mtime, sizeof(m->mtime), "%s", s->meta_mtime);
	snprintf(
	    m->last_modified, sizeof(m->last_modified), "%s", s->last_modified);
	m->content_length = s->content_length;
	m->has_content_length = s->has_content_length;
	m->etag_opaque = remote_resp_etag_opaque(s);
	m->posix = s->posix;
	snprintf(m->hardlink, sizeof(m->hardlink), "%s", s->meta_hardlink);
}

/* The ETag the bytes came with: the response's, else the listed one. */
static const char *
got_etag(const struct dl *d)
{
	return d->meta.etag[0] ? d->meta.etag : d->t.listed.etag;
}

/* Whether the ETag the bytes came with is their MD5, to check them by. */
int
dl_etag_checks_md5(const struct dl *d)
{
	return remote_etag_is_md5(got_etag(d)) && !d->meta.etag_opaque;
}

/*
 * The object's mtime: the one ferry stored with it (what the uploader's
 * file had, to the nanosecond), else the one rclone stores, else
 * Last-Modified.
 */
int64_t
dl_object_mtime_ns(const struct dl *d)
{
	const char *s = d->meta.mtime;
	char *end;
	long long v;
	int64_t t;

	if (s[0] != '\0') {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno == 0 && *end == '\0')
			return v;
	}
	if (d->meta.posix.mtime[0] &&
	    posix_parse_seconds(d->meta.posix.mtime, &t) == 0)
		return t;
	t = d->meta.last_modified[0] ? remote_parse_time(d->meta.last_modified)
	                             : -1;
	if (t < 0 || t > REMOTE_TIME_MAX)
		t = d->t.listed.last_modified;
	/* the reply's times are bounded (bounds.c), and so are listings';
	 * a plan's is held to the same */
	if (t > REMOTE_TIME_MAX)
		t = REMOTE_TIME_MAX;
	if (t < -REMOTE_TIME_MAX)
		t = -REMOTE_TIME_MAX;
	return t * NS_PER_S;
}

/* Whether s is an XXH3-128 as ferry stores it: 32 hex digits. */
int
dl_is_xxh128_hex(const char *s)
{
	return strlen(s) == 32 && strspn(s, "0123456789abcdefABCDEF") == 32;
}

/*
 * Checks the bytes written against the XXH3-128 ferry stored with the
 * object when it uploaded it: that covers the upload and the download,
 * from the bytes of the file uploaded to the bytes written here, and
 * needs no MD5.  Without one, against a single-part ETag (the MD5 of what
 * the server received).  A multipart object from another tool has
 * neither, nor has an object encrypted with a KMS or a customer's key.
 */
ferry_err
dl_verify(const struct dl *d, const uint8_t xxh[16], const uint8_t *md5)
{
	const char *etag = got_etag(d);
	char want[MANIFEST_ETAG_MAX], hex[33];

	if (dl_is_xxh128_hex(d->meta.hash)) {
		hex_encode(xxh, 16, hex);
		if (strcasecmp(hex, d->meta.hash) != 0)
			return ferry_fail(FERRY_EPARSE,
			    "the XXH3-128 of the bytes received, %s, is not "
			    "the stored " REMOTE_META_HASH " %s",
			    hex, d->meta.hash);
		return FERRY_OK;
	}
	if (!dl_etag_checks_md5(d))
		return FERRY_OK;
	if (md5 == NULL)
		return ferry_fail(FERRY_EPARSE,
		    "no MD5 of the bytes received to check against the ETag "
		    "%s",
		    etag);
	remote_etag_format(md5, 0, want, sizeof(want));
	if (!remote_etag_is_md5_of(etag, md5))
		return ferry_fail(FERRY_EPARSE,
		    "the MD5 of the bytes received, %s, is not the ETag %s",
		    want, etag);
	return FERRY_OK;
}

/* Writes the record of what was downloaded under the key. */
void
dl_record_remote(struct dl *d, const char *etag, uint64_t size,
    const uint8_t xxh[16], int64_t mtime_ns)
{
	struct manifest_remote rec;
	struct pull *p = d->p;
	int64_t lm = -1;

	memset(&rec, 0, sizeof(rec));
	if (d->meta.last_modified[0])
		lm = remote_parse_time(d->meta.last_modified);
	rec.size = size;
	rec.mtime_ns = mtime_ns;
	rec.last_modified = lm >= 0 ? lm : d->t.listed.last_modified;
	/* the ranges a pull asked for say nothing of the parts the object
	 * went up in (its ETag's): unknown */
	rec.part_size = 0;
	memcpy(rec.hash, xxh, 16);
	rec.has_hash = 1;
	snprintf(rec.etag, sizeof(rec.etag), "%s", etag);
	if (manifest_remote_put(p->run.m, d->t.key, d->t.keylen, &rec) !=
	    FERRY_OK)
		sync_manifest_warn();
}

/*
 * Puts the file at its name: links an unnamed one in, or renames a named
 * one over what is there.  A file that appeared at the name since the scan
 * is replaced either way.  Neither follows a symlink at the name.
 */
static ferry_err
publish(struct dl *d)
{
	ferry_err e;
	int kept;

	/* --backup-dir: what is at the name is moved there first */
	if ((e = pull_keep(d->p, d->dirfd, d->name, d->t.key, d->t.keylen,
	         &kept)) != FERRY_OK)
		return e;
	if (d->unnamed && link_unnamed(d, d->name) == 0) {
		d->unnamed = 0;
		return FERRY_OK;
	}
	if (d->unnamed && (errno != EEXIST || name_unnamed(d) != 0))
		return ferry_fail(FERRY_ESYS, "cannot link into %s: %s",
		    d->t.key, strerror(errno));
	if (renameat(d->dirfd, d->tmpname, d->dirfd, d->name) != 0)
		return ferry_fail(FERRY_ESYS, "cannot rename into %s: %s",
		    d->t.key, strerror(errno));
	d->tmpname[0] = '\0';
	return FERRY_OK;
}

/*
 * Gives d's file, written 0600 so that no one else reads it while it
 * comes, its mode before it gets its name: with --preserve the one its
 * object carries (posix_restore()), else 0666 less the umask, as any new
 * file.  A mode that cannot be given is warned about: the file is there.
 */
static void
give_mode(struct dl *d, struct timespec *atime)
{
	mode_t mode = 0666 & ~d->p->umask;

	if (d->p->run.o->preserve)
		posix_restore(d, atime, &mode);
	if (fchmod(d->fd, mode) != 0)
		log_warn("%s: cannot give it its mode: %s", d->t.key,
		    strerror(errno));
}

/* Gives the verified file its mtime and puts it at its name. */
ferry_err
dl_install(struct dl *d, const uint8_t xxh[16])
{
	int64_t mt = dl_object_mtime_ns(d);
	struct timespec ts[2];
	ferry_err e;

	/* --links: an object of a symlink's is made the link it says */
	if (d->p->run.o->links && posix_is_link_key(d->t.key, d->t.keylen)) {
		if ((e = posix_link_install(d, xxh, mt)) == FERRY_OK)
			dl_record_remote(d, got_etag(d), d->written, xxh, mt);
		return e;
	}
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	/* attributes before the mode (a read-only file takes none), the
	 * ACL after it (a chmod would change the ACL) */
	if (d->p->run.o->xattrs)
		xattr_give_fd(
		    d->fd, d->t.key, d->meta.xmeta, 1, 0, &d->p->xattr_warned);
	give_mode(d, &ts[0]);
	if (d->p->run.o->acls)
		xattr_give_fd(
		    d->fd, d->t.key, d->meta.xmeta, 0, 1, &d->p->xattr_warned);
	posix_timespec(mt, &ts[1]);
	if (futimens(d->fd, ts) != 0)
		return ferry_fail(FERRY_ESYS, "cannot set the mtime of %s: %s",
		    d->t.key, strerror(errno));
	/* --fsync: the bytes are on disk before the name, the name after */
	if (d->p->run.o->fsync && fsync(d->fd) != 0)
		return ferry_fail(FERRY_ESYS, "cannot sync %s: %s", d->t.key,
		    strerror(errno));
	if ((e = publish(d)) != FERRY_OK)
		return e;
	if (d->p->run.o->fsync && fsync(d->dirfd) != 0)
		return ferry_fail(FERRY_ESYS,
		    "cannot sync the folder of %s: %s", d->t.key,
		    strerror(errno));
	pull_record_local(d->p, d->t.key, d->t.keylen, d->fd, xxh);
	dl_record_remote(d, got_etag(d), d->written, xxh, mt);
	if (d->p->run.o->hard_links && d->meta.hardlink[0])
		pull_hardlink_note(
		    d->p, d->t.key, d->t.keylen, d->meta.hardlink, xxh);
	return FERRY_OK;
}

void
dl_downloaded(struct dl *d)
{
	struct pull *p = d->p;

	p->run.counts.downloaded++;
	p->run.counts.bytes += d->written;
	output_action(&p->run.out, "download", d->t.fullkey,
	    strlen(d->t.fullkey), d->written, NULL);
	dl_finish(d);
}

/* A GET of d's object, as g says. */
ferry_err
dl_new_get(struct dl *d, const struct remote_get *g, struct remote_req **q)
{
	struct pull *p = d->p;
	struct remote_get v = *g;

	ferry_err e;

	v.version_id = d->version_id;
	e = remote_get_object(p->run.r, p->run.loc.bucket, d->t.fullkey,
	    strlen(d->t.fullkey), &v, q);
	/* -X, -A: the attributes come with the object's metadata */
	if (e == FERRY_OK && (p->run.o->xattrs || p->run.o->acls))
		remote_req_keep_meta(*q);
	return e;
}

/*
 * Room for up to DL_WBUF of a body of size bytes, written from offset at;
 * the buffer is allocated when a piece first needs it.
 */
void
dl_pending_init(struct dl_pending *w, uint64_t size, uint64_t at)
{
	w->buf = NULL;
	w->len = 0;
	w->at = at;
	w->end = at + size;
	w->cap = size < DL_WBUF ? (size_t)size : DL_WBUF;
	w->dense_end = 0;
}

void
dl_pending_free(struct dl_pending *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

/* Writes out what w holds. */
ferry_err
dl_pending_flush(struct dl *d, struct dl_pending *w)
{
	ferry_err e = write_at(d, w, w->buf, w->len, w->at);

	w->at += w->len;
	w->len = 0;
	return e;
}

/*
 * The next len bytes: kept in w while they fit, else written.  With w
 * empty, a piece that fills it or ends the body (a small body nearly
 * always comes whole) is written at once, without a copy.
 */
ferry_err
dl_pending_add(struct dl *d, struct dl_pending *w, const char *data, size_t len)
{
	ferry_err e;

	if (w->len + len > w->cap && (e = dl_pending_flush(d, w)) != FERRY_OK)
		return e;
	if (w->len == 0 && (len >= w->cap || w->at + len >= w->end)) {
		e = write_at(d, w, data, len, w->at);
		w->at += len;
		return e;
	}
	if (w->buf == NULL && (w->buf = malloc(w->cap)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(w->buf + w->len, data, len);
	w->len += len;
	return FERRY_OK;
}

/*
 * Starts the digests of a single GET's body, at its first byte (again
 * after a restart): the XXH3-128 always, the MD5 only when the response
 * carries no XXH3-128 of ferry's to check instead.
 */
static ferry_err
digests_begin(struct dl *d)
{
	const struct remote_resp *s = remote_req_resp(d->get);

	d->md5_on =
	    !dl_is_xxh128_hex(s->meta_hash) && !remote_resp_etag_opaque(s);
	if (manifest_hash_reset(d->xxh) != FERRY_OK)
		return ferry_fail(FERRY_ESYS, "cannot start a digest");
	if (!d->md5_on)
		return FERRY_OK;
	/* a new MD5 is started; one kept from before a restart, reset */
	if (d->md5 == NULL)
		return (d->md5 = remote_md5_new()) == NULL ? FERRY_ENOMEM
		                                           : FERRY_OK;
	if (remote_md5_reset(d->md5) != FERRY_OK)
		return ferry_fail(FERRY_ESYS, "cannot start a digest");
	return FERRY_OK;
}

/*
 * A single GET's reply whose size is not the listed one (what: "a
 * Content-Length of", "more than", "only"; n bytes): the object changed
 * since it was listed when its ETag did, else the server is at fault.
 */
static ferry_err
size_differs(const struct dl *d, const struct remote_resp *s, const char *what,
    uint64_t n)
{
	if (s->etag[0] && d->t.listed.etag[0] &&
	    strcmp(s->etag, d->t.listed.etag) != 0)
		return ferry_fail(FERRY_ECHANGED,
		    "the object changed since it was listed (ETag %s, "
		    "listed %s): not written",
		    s->etag, d->t.listed.etag);
	return ferry_fail(FERRY_EPARSE,
	    "the server sent %s %" PRIu64 " bytes for an object listed as "
	    "%" PRIu64 " bytes with the same ETag: a fault of the server; "
	    "not written",
	    what, n, d->t.listed.size);
}

/*
 * The body of a single GET: hashed as it comes, written in order, in
 * pieces of up to DL_WBUF, never past the listed size.
 */
static int
sink_whole(const char *data, size_t len, void *arg)
{
	struct dl *d = arg;
	const struct remote_resp *s = remote_req_resp(d->get);
	ferry_err e;

	if (d->sink_err != FERRY_OK)
		return 1;
	/* the headers of this response are all in */
	if (d->written == 0 && s->has_content_length &&
	    s->content_length != d->t.listed.size)
		return dl_sink_fail(d, size_differs(d, s, "a Content-Length of",
		                           s->content_length));
	if (len > d->t.listed.size - d->written)
		return dl_sink_fail(
		    d, size_differs(d, s, "more than", d->t.listed.size));
	if (d->fd < 0 && (e = make_file(d)) != FERRY_OK)
		return dl_sink_fail(d, e);
	if (d->written == 0 && (e = digests_begin(d)) != FERRY_OK)
		return dl_sink_fail(d, e);
	if ((e = dl_pending_add(d, &d->pend, data, len)) != FERRY_OK)
		return dl_sink_fail(d, e);
	if ((d->md5_on && remote_md5_update(d->md5, data, len) != FERRY_OK) ||
	    manifest_hash_update(d->xxh, data, len) != FERRY_OK)
		return dl_sink_fail(
		    d, ferry_fail(FERRY_ESYS, "digest update failed"));
	d->written += len;
	return 0;
}

static ferry_err
get_result(struct dl *d, struct remote_req *q)
{
	ferry_err e = remote_req_result(q, 0);

	if (d->sink_err != FERRY_OK)
		return ferry_fail(d->sink_err, "%s", d->sinkmsg);
	if (e != FERRY_OK)
		return e;
	dl_take_meta(d, remote_req_resp(q));
	if (d->meta.has_content_length && d->written != d->meta.content_length)
		return ferry_fail(FERRY_ENET,
		    "%s: %" PRIu64 " bytes received of %" PRIu64, d->t.fullkey,
		    d->written, d->meta.content_length);
	if (d->written != d->t.listed.size)
		return size_differs(d, remote_req_resp(q), "only", d->written);
	return FERRY_OK;
}

/*
 * A single GET cut off after some of its body is asked again by the
 * remote layer: what was written and hashed is forgotten first.
 */
static void
restart_whole(void *arg)
{
	struct dl *d = arg;

	d->written = 0; /* the digests start again with the next byte */
	d->pend.len = 0;
	d->pend.at = 0;
	if (d->fd >= 0 && ftruncate(d->fd, 0) != 0)
		dl_sink_fail(d, ferry_fail(FERRY_ESYS, "cannot truncate %s: %s",
		                    d->t.key, strerror(errno)));
}

static void
on_get(struct remote_req *q, void *arg)
{
	struct dl *d = arg;
	uint8_t xxh[16], md5[16];
	ferry_err e;

	e = get_result(d, q);
	/* an empty body: its file was not made, its digests not started */
	if (e == FERRY_OK && d->fd < 0)
		e = make_file(d);
	if (e == FERRY_OK && d->written == 0)
		e = digests_begin(d);
	due_remove(d);
	remote_req_free(q);
	d->get = NULL;
	if (e == FERRY_OK)
		e = dl_pending_flush(d, &d->pend);
	if (e == FERRY_OK)
		e = dl_sparse_end(d);
	dl_pending_free(&d->pend);
	if (e != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	manifest_hash_final(d->xxh, xxh);
	if (d->md5_on && (e = remote_md5_final(d->md5, md5)) != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	if ((e = dl_verify(d, xxh, d->md5_on ? md5 : NULL)) != FERRY_OK ||
	    (e = dl_install(d, xxh)) != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	dl_downloaded(d);
}

ferry_err
dl_send_get(struct dl *d)
{
	struct remote_get g = {.size = d->t.listed.size, .sized = 1};
	struct remote_req *q;
	ferry_err e;

	/* applying a plan: only the object the plan saw */
	if (d->p->run.o->plan)
		g.if_match = d->t.listed.etag;
	if ((e = dl_new_get(d, &g, &q)) != FERRY_OK)
		return e;
	remote_req_sink(q, sink_whole, d);
	remote_req_sink_restart(q, restart_whole);
	d->get = q;
	if ((e = remote_req_submit(q, on_get, d)) != FERRY_OK) {
		d->get = NULL;
		remote_req_free(q);
		return e;
	}
	d->state = DL_GET_SENT;
	return FERRY_OK;
}

ferry_err
dl_start_get(struct dl *d)
{
	ferry_err e;

	if ((e = open_folder(d)) != FERRY_OK)
		return e;
	dl_pending_init(&d->pend, d->t.listed.size, 0);
	if ((d->xxh = manifest_hash_new()) == NULL)
		return FERRY_ENOMEM;
	if ((e = dl_send_get(d)) != FERRY_OK)
		return e;
	if (d->fd < 0)
		due_add(d);
	return FERRY_OK;
}
