/*
 * pull.c: a bucket to a local tree.  Scan the tree into the manifest, then
 * merge-join the listing with it in key order: keys that cannot be a path
 * inside the target are refused, the others planned, and their downloads
 * started as soon as there is room; deletes of local files run last.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sync/engine/engine.h"
#include "sync/down/down.h"

/* What the next scan will see, so that it does not read the file again. */
void
pull_record_local(
    struct pull *p, const char *key, size_t keylen, int fd, const uint8_t *h)
{
	struct manifest_local l;
	struct stat st;

	if (fstat(fd, &st) != 0) {
		log_warn("%s: cannot stat: %s", key, strerror(errno));
		return;
	}
	manifest_local_from_stat(&l, &st);
	memcpy(l.hash, h, 16);
	if (manifest_local_put(p->run.m, key, keylen, &l) != FERRY_OK)
		sync_manifest_warn();
}

/*
 * A child folder of dirfd, made when missing and create is set; with
 * durable set, dirfd is synced after it gains the child (--fsync).
 */
static int
open_child(int dirfd, const char *name, int create, int durable)
{
	const int fl = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, name, fl);

	if (fd >= 0 || errno != ENOENT || !create)
		return fd;
	if (mkdirat(dirfd, name, 0777) != 0 && errno != EEXIST)
		return -1;
	if (durable && fsync(dirfd) != 0)
		return -1;
	return openat(dirfd, name, fl);
}

/* Why the folder name under dirfd could not be opened (err: errno). */
static const char *
dir_error(int dirfd, const char *name, int err)
{
	struct stat st;

	if ((err == ELOOP || err == ENOTDIR) &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return S_ISLNK(st.st_mode) ? "it is a symbolic link, which "
		                             "ferry does not follow"
		                           : "it is not a folder";
	return strerror(err);
}

ferry_err
pull_open_dir(
    struct pull *p, const char *key, size_t dirlen, int create, int *fd)
{
	char name[NAME_MAX + 1];
	size_t i = 0, n;
	int cur, next;

	*fd = -1;
	if ((cur = fcntl(p->run.rootfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return ferry_fail(FERRY_ESYS, "dup: %s", strerror(errno));
	while (i < dirlen) {
		for (n = 0; i + n < dirlen && key[i + n] != '/'; n++)
			;
		if (n > NAME_MAX) {
			close(cur);
			return ferry_fail(FERRY_ESYS, "%.*s: name too long",
			    (int)(i + n), key);
		}
		memcpy(name, key + i, n);
		name[n] = '\0';
		if ((next = open_child(cur, name, create, p->run.o->fsync)) < 0)
			ferry_fail(FERRY_ESYS,
			    "cannot open the folder %.*s: %s", (int)(i + n),
			    key, dir_error(cur, name, errno));
		close(cur);
		if (next < 0)
			return FERRY_ESYS;
		cur = next;
		i += n + 1;
	}
	*fd = cur;
	return FERRY_OK;
}

void
pull_dir_put(struct pull_dir *dir)
{
	if (dir == NULL || --dir->refs > 0)
		return;
	close(dir->fd);
	free(dir);
}

/*
 * The listing is in key order, so the downloads started one after the
 * other nearly always go into the same folder: it is opened once for
 * them all, not once for each file.
 */
ferry_err
pull_dir_get(
    struct pull *p, const char *key, size_t dirlen, struct pull_dir **out)
{
	struct pull_dir *dir = p->dir;
	ferry_err e;

	*out = NULL;
	if (dir != NULL && dir->len == dirlen &&
	    memcmp(dir->key, key, dirlen) == 0) {
		dir->refs++;
		*out = dir;
		return FERRY_OK;
	}
	if ((dir = malloc(sizeof(*dir) + dirlen + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = pull_open_dir(p, key, dirlen, 1, &dir->fd)) != FERRY_OK) {
		free(dir);
		return e;
	}
	memcpy(dir->key, key, dirlen);
	dir->key[dirlen] = '\0';
	dir->len = dirlen;
	dir->refs = 2; /* the caller's and the cache's */
	pull_dir_put(p->dir);
	p->dir = dir;
	*out = dir;
	return FERRY_OK;
}

/*
 * Why key cannot name a path inside the target folder, or NULL.  A
 * trailing '/' (a folder marker) is allowed; "." and empty segments are
 * refused too, since two keys would then name one path.
 */
const char *
pull_key_refused(const char *key, size_t keylen, int prefixed)
{
	size_t i, start = 0, n;

	if (keylen == 0 || keylen > MANIFEST_KEY_MAX)
		return "no name or more than 1024 bytes";
	if (memchr(key, '\0', keylen) != NULL)
		return "a NUL byte";
	if (key[0] == '/')
		return prefixed ? "an empty segment" : "a leading '/'";
	for (i = 0; i <= keylen; i++) {
		if (i < keylen && key[i] != '/')
			continue;
		n = i - start;
		if (n == 0 && i < keylen)
			return "an empty segment";
		if (n == 1 && key[start] == '.')
			return "a '.' segment";
		if (n == 2 && key[start] == '.' && key[start + 1] == '.')
			return "a '..' segment";
		start = i + 1;
	}
	return NULL;
}

/*
 * The length of a listed file key that key would need as a folder ("a"
 * for "a/b"), or 0.  The listing is ordered, so the file keys that are
 * prefixes of the current key form a stack of lengths, each longer than
 * the one below: at most MANIFEST_KEY_MAX of them, even should a listing
 * repeat a key or go back (which the listing's check refuses anyway).
 */
static size_t
key_conflict(struct pull *p, const char *key, size_t keylen)
{
	size_t lcp = 0, i, hit = 0;

	while (lcp < p->prevlen && lcp < keylen && p->prev[lcp] == key[lcp])
		lcp++;
	while (p->nfiles > 0 && p->files[p->nfiles - 1] > lcp)
		p->nfiles--;
	for (i = 0; i < p->nfiles && hit == 0; i++)
		if (p->files[i] < keylen && key[p->files[i]] == '/')
			hit = p->files[i];
	if (hit == 0 && key[keylen - 1] != '/' &&
	    (p->nfiles == 0 || p->files[p->nfiles - 1] < keylen) &&
	    p->nfiles < MANIFEST_KEY_MAX)
		p->files[p->nfiles++] = keylen;
	memcpy(p->prev, key, keylen);
	p->prevlen = keylen;
	return hit;
}

/* Reports the listed key as failed with the detail just recorded. */
static void
refuse_listed(struct pull *p, ferry_err e)
{
	size_t n = p->run.mg.remote.obj.keylen, fulllen;
	char *full = remote_key_join(
	    p->run.loc.prefix, p->run.mg.remote.obj.key, n, &fulllen);

	p->run.counts.failed++;
	if (full == NULL) {
		output_error(&p->run.out, p->run.mg.remote.obj.key, n, e,
		    ferry_errmsg());
		return;
	}
	output_error(&p->run.out, full, fulllen, e, ferry_errmsg());
	free(full);
}

/* A key ending in '/' is a folder: made, with its parents. */
static void
make_folder(struct pull *p)
{
	ferry_err e;
	int fd;

	if (p->run.o->dry_run)
		return;
	e = pull_open_dir(p, p->run.mg.remote.obj.key,
	    p->run.mg.remote.obj.keylen - 1, 1, &fd);
	if (e != FERRY_OK) {
		p->run.eng.failed++;
		refuse_listed(p, e);
		return;
	}
	close(fd);
}

/*
 * Deals with listed keys that are not files to plan: refused keys,
 * conflicts and folders.  Non-zero when the key is to be planned.
 */
static int
listed_plannable(struct pull *p)
{
	const char *k = p->run.mg.remote.obj.key, *why;
	size_t n = p->run.mg.remote.obj.keylen, at;

	if ((why = pull_key_refused(k, n, p->run.loc.prefix[0] != '\0')) !=
	    NULL) {
		refuse_listed(p, ferry_fail(FERRY_EPARSE,
		                     "refused: the key has %s, so it is not "
		                     "a path inside the target folder",
		                     why));
		return 0;
	}
	if ((at = key_conflict(p, k, n)) != 0) {
		refuse_listed(p, ferry_fail(FERRY_EPARSE,
		                     "conflict: %s%.*s is a file, so it "
		                     "cannot also be a folder",
		                     p->run.loc.prefix, (int)at, k));
		return 0;
	}
	if (k[n - 1] == '/') {
		make_folder(p);
		return 0;
	}
	return 1;
}

static ferry_err
gather_delete(struct pull *p)
{
	return sync_run_delete_add(&p->run, p->run.mg.lkey, p->run.mg.lkeylen,
	    &p->run.mg.lrec, sizeof(p->run.mg.lrec));
}

static ferry_err
dry_download(struct pull *p, const struct plan_decision *d, int c)
{
	const struct remote_obj *o = &p->run.mg.remote.obj;
	const struct manifest_local *l = &p->run.mg.lrec;
	struct plan_entry src = {.present = 1,
	    .size = o->size,
	    .etag = o->etag,
	    .version_id = o->version_id};
	struct plan_entry dst = {.present = c == 0,
	    .size = l->size,
	    .mtime_ns = l->mtime_ns,
	    .hash = l->hash};

	if (c == 0)
		pull_keep_planned(p, o->key, o->keylen, l);
	p->run.counts.downloaded++;
	p->run.counts.bytes += o->size;
	return sync_run_planned(&p->run, "download", o->key, o->keylen, o->size,
	    d->reason, &src, &dst);
}

/*
 * An object in an archive class cannot be read until it is restored: it
 * is told and skipped, neither a failure nor a reason to delete its file.
 */
static ferry_err
pull_skip_archived(struct pull *p)
{
	const struct remote_obj *o = &p->run.mg.remote.obj;
	char *rel;

	if ((rel = strndup(o->key, o->keylen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	log_warn("s3://%s/%s%s: in storage class %s, it cannot be read until "
	         "it is restored: skipped",
	    p->run.loc.bucket, p->run.loc.prefix, rel, o->archived);
	output_left_out(&p->run.out, rel, "archived");
	free(rel);
	p->run.counts.skipped++;
	return FERRY_OK;
}

/* Acts on the decision for one key (c as in merge_step). */
static ferry_err
dispatch(struct pull *p, const struct plan_decision *d, int c)
{
	ferry_err e;
	int held;

	switch (d->action) {
	case PLAN_SKIP:
		if (c >= 0)
			p->run.counts.skipped++;
		return FERRY_OK;
	case PLAN_DELETE:
		if ((e = pull_renames_gather(p, p->run.mg.lkey,
		         p->run.mg.lkeylen, &p->run.mg.lrec)) != FERRY_OK)
			return e;
		return gather_delete(p);
	case PLAN_GET:
	case PLAN_RANGED_GET:
		if (p->run.mg.remote.obj.archived)
			return pull_skip_archived(p);
		if (c > 0 && ((e = pull_renames_hold(p, &p->run.mg.remote.obj,
		                   d, &held)) != FERRY_OK ||
		                 held))
			return e;
		if (p->run.o->dry_run)
			return dry_download(p, d, c);
		break;
	default:
		break;
	}
	return dl_begin(p, d->action, p->run.mg.remote.obj.key,
	    p->run.mg.remote.obj.keylen, &p->run.mg.remote.obj,
	    c == 0 ? &p->run.mg.lrec : NULL);
}

/* Plans the smallest key of the two streams and advances past it. */
static ferry_err
merge_step(struct pull *p)
{
	struct plan_decision d;
	ferry_err e;
	int c;

	if (!merge_head(&p->run.mg, &c))
		return FERRY_OK;
	if (c < 0 || listed_plannable(p)) {
		if ((e = sync_run_plan(&p->run, c, NULL, plan_pull, &d)) !=
		    FERRY_OK)
			return e;
		if (c < 0 || !pull_defer_listed(p, &p->run.mg.remote.obj,
		                 d.action, c == 0 ? &p->run.mg.lrec : NULL))
			e = dispatch(p, &d, c);
		if (e != FERRY_OK)
			return e;
	}
	return sync_run_advance(&p->run, c, NULL, 0);
}

static ferry_err
step(void *arg)
{
	struct pull *p = arg;

	return p->merge_step(p);
}

/* Runs the merge and the downloads until both are done. */
static ferry_err
run_loop(struct pull *p)
{
	return sync_run_loop(&p->run, p, step);
}

/* Removes one local file, if it is still the one the scan saw. */
void
pull_delete_local(
    struct pull *p, const char *key, const struct manifest_local *l)
{
	size_t keylen = strlen(key), dirlen = keylen;
	char name[NAME_MAX + 1];
	struct manifest_local now;
	struct stat st;
	ferry_err e;
	int dirfd, kept;

	while (dirlen > 0 && key[dirlen - 1] != '/')
		dirlen--;
	if ((e = pull_open_dir(p, key, dirlen ? dirlen - 1 : 0, 0, &dirfd)) !=
	    FERRY_OK)
		goto fail;
	posix_fs_name(key + dirlen, l, name, sizeof(name)); /* --links */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		e = ferry_fail(FERRY_ESYS, "stat: %s", strerror(errno));
	} else {
		manifest_local_from_stat(&now, &st);
		/* a file written since the scan is not the one to delete */
		if (now.ino != l->ino || now.size != l->size ||
		    now.mtime_ns != l->mtime_ns)
			e = ferry_fail(FERRY_ECHANGED,
			    "changed since it was scanned: not deleted");
		else if (p->run.o->backup_path)
			e = pull_keep(p, dirfd, name, key, keylen, &kept);
		else if (unlinkat(dirfd, name, 0) != 0)
			e = ferry_fail(
			    FERRY_ESYS, "delete: %s", strerror(errno));
	}
	close(dirfd);
	if (e != FERRY_OK)
		goto fail;
	p->run.counts.deleted++;
	output_planned_path(
	    &p->run.out, "delete", key, keylen, l->size, NULL, NULL, NULL);
	if (manifest_local_del(p->run.m, key, keylen) != FERRY_OK ||
	    manifest_remote_del(p->run.m, key, keylen) != FERRY_OK)
		sync_manifest_warn();
	return;
fail:
	p->run.counts.failed++;
	output_path_error(&p->run.out, key, keylen, e, ferry_errmsg());
}

/*
 * Runs the deletes gathered during the merge, if they are allowed.  A
 * delete that fails is counted; FERRY_ESYS when the kept deletes cannot be
 * read back (recorded: the rest are not made).
 */
static ferry_err
pull_deletes(struct pull *p)
{
	static const struct sync_run_guard g = {
	    "some local files could not be read", "some downloads failed",
	    "the bucket side is empty (use --force to delete anyway)"};
	char key[MANIFEST_KEY_MAX + 1];
	struct manifest_local l;
	size_t keylen;
	int got;

	/* a rename's delete loses no byte: they stay under the new name */
	p->run.ndeletes_kept = pull_renames_moved(p);
	if (!sync_run_deletes_allowed(&p->run, &g, p->run.eng.failed,
	        p->run.mg.nremote, p->run.mg.nlocal))
		return FERRY_OK;
	while ((got = sync_run_delete_next(
	            &p->run, key, &keylen, &l, sizeof(l))) > 0) {
		/* moved to its new name: that was its delete */
		if (pull_renamed_away(p, key, keylen))
			continue;
		if (!p->run.o->dry_run) {
			pull_delete_local(p, key, &l);
			continue;
		}
		struct plan_entry dst = {.present = 1,
		    .size = l.size,
		    .mtime_ns = l.mtime_ns,
		    .hash = l.hash};
		pull_keep_planned(p, key, keylen, &l);
		output_planned_path(&p->run.out, "delete", key, keylen, l.size,
		    "not in source", NULL, &dst);
		p->run.counts.deleted++;
	}
	return got < 0 ? FERRY_ESYS : FERRY_OK;
}

/* mkdir -p: the target folder and its parents; *made is the length of
 * the first folder made (0: none). */
static ferry_err
make_root(const char *path, size_t *made)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return ferry_fail(FERRY_EUSAGE,
		    "destination folder '%s': "
		    "bad path",
		    path);
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) == 0) {
			if (*made == 0)
				*made = i;
		} else if (errno != EEXIST) {
			return ferry_fail(FERRY_EUSAGE,
			    "cannot create the folder '%s': %s", buf,
			    strerror(errno));
		}
		buf[i] = i < n ? '/' : '\0';
	}
	return FERRY_OK;
}

/* Removes the folders make_root() made, deepest first, if still empty:
 * a run that stops before its first transfer leaves nothing behind. */
static void
unmake_root(const char *path, size_t made)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	char *slash;

	if (made == 0 || n >= sizeof(buf))
		return;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	while (strlen(buf) >= made && rmdir(buf) == 0 &&
	       (slash = strrchr(buf, '/')) != NULL)
		*slash = '\0';
}

static ferry_err
open_sides(struct pull *p, char *root, size_t *made)
{
	struct stat st;
	ferry_err e;

	if ((e = remote_loc_parse(p->run.o->src, &p->run.loc)) != FERRY_OK ||
	    (e = sync_run_remote_open(&p->run)) != FERRY_OK)
		return e;
	output_set_local(&p->run.out, p->run.loc.prefix);
	/* a new folder is made only once the bucket has answered */
	if (p->run.o->plan == NULL && lstat(p->run.o->dst, &st) != 0 &&
	    errno == ENOENT && (e = pull_list_first(p)) != FERRY_OK)
		return e;
	if ((e = make_root(p->run.o->dst, made)) != FERRY_OK)
		return e;
	if ((e = sync_run_root_open(
	         &p->run, p->run.o->dst, "destination", root)) != FERRY_OK)
		return e;
	return sync_manifest_open_local(
	    p->run.o, &p->run.loc, p->run.r, root, 0, &p->run.m);
}

/* Scans the tree into the manifest, then starts the merge. */
static ferry_err
start_merge(struct pull *p)
{
	int listed = p->run.mg.remote.list != NULL;
	ferry_err e;

	e = merge_scan(p->run.o, p->run.m, p->run.rootfd, &p->run.out,
	    &p->run.counts, &p->run.scan_errors);
	if (e != FERRY_OK)
		return e;
	p->merge_step = merge_step;
	merge_plan_opts(&p->run.popts, p->run.o);
	if ((e = merge_open(&p->run.mg, p->run.o, p->run.m, p->run.r,
	         &p->run.loc, 0)) != FERRY_OK)
		return e;
	merge_plan_inventory(&p->run.popts, &p->run.mg.remote);
	/* pull_list_first() checked an empty listing already */
	return listed || p->run.mg.remote.have ? FERRY_OK
	                                       : pull_check_object(p);
}

static void
pull_close(struct pull *p)
{
	transfer_engine_reads_stop(&p->run.eng);
	transfer_engine_clear(&p->run.eng);
	pull_hardlinks_free(p);
	pull_defer_free(p);
	pull_renames_free(p);
	pull_dir_put(p->dir);
	p->dir = NULL;
	sync_run_close(&p->run);
}

static void
make_due(void *p)
{
	dl_make_due(p);
}

int
pull_execute(const struct sync_opts *o, ferry_err (*start)(struct pull *))
{
	struct pull *p;
	char root[PATH_MAX];
	size_t made = 0;
	ferry_err e;
	int status;

	/* large (the conflict stack): on the heap */
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		log_error("out of memory");
		return EXIT_ABORTED;
	}
	p->rng = ((uint64_t)now_mono_ns() ^ ((uint64_t)getpid() << 32) ^
	             (uint64_t)time(NULL)) |
	         1;
	/* files are created 0600 and given their mode at install: the
	 * umask is read here, before any thread could create a file */
	p->umask = umask(077);
	umask(p->umask);
	sync_run_init(&p->run, o);
	e = open_sides(p, root, &made);
	p->run.eng.r = p->run.r;
	p->run.eng.m = p->run.m;
	p->run.eng.idle = make_due;
	if (e != FERRY_OK) {
		status = sync_exit_for(e);
	} else if ((e = start(p)) != FERRY_OK ||
	           (e = run_loop(p)) != FERRY_OK ||
	           (e = pull_renames_run(p)) != FERRY_OK ||
	           (e = pull_defer_run(p)) != FERRY_OK ||
	           (e = pull_hardlinks(p)) != FERRY_OK ||
	           (e = pull_deletes(p)) != FERRY_OK) {
		/* an object named as the source is a usage error */
		status = e == FERRY_EUSAGE ? EXIT_USAGE : EXIT_ABORTED;
	} else {
		status = sync_run_status(&p->run);
	}
	if (e != FERRY_OK) {
		sync_run_fatal(&p->run, e);
		unmake_root(o->dst, made);
	}
	status = sync_run_finish(&p->run, e, status,
	    p->run.r ? remote_stats(p->run.r) : NULL, o->fsync, NULL);
	pull_close(p);
	free(p);
	return status;
}

int
sync_pull(const struct sync_opts *o)
{
	return pull_execute(o, start_merge);
}
