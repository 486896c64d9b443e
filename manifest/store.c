/*
 * store.c: the manifest's LMDB environment: where it lives, the run lock,
 * opening and checking it, meta values, transactions and closing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "manifest/internal.h"

/*
 * Map sizes to try, largest first.  Virtual only: LMDB maps that much
 * address space and the file grows as pages are written.  The smaller
 * ones are for an address-space limit (ulimit -v) that refuses the map.
 */
static const size_t map_sizes[] = {
#if SIZE_MAX > 0xffffffffu
    (size_t)MANIFEST_MAP_MAX, (size_t)1 << 36, (size_t)1 << 32,
#endif
    (size_t)1 << 30};

#define REBUILD_HINT "run again with --rebuild-manifest to start afresh"

/* "uploads" came later: opening an older manifest creates it, empty. */
static const char *const db_names[DB_COUNT] = {
    "meta", "local", "remote", "uploads", "listed", "listed_src"};

/* Aborts *txn if there is one and forgets it. */
static void
txn_abort(MDB_txn **txn)
{
	if (*txn != NULL)
		mdb_txn_abort(*txn);
	*txn = NULL;
}

/*
 * Records rc's LMDB message, with the rebuild hint for a damaged manifest, and
 * returns FERRY_EDB.
 */
ferry_err
manifest_db_fail(int rc, const char *what)
{
	const char *hint = "";

	switch (rc) {
	case MDB_CORRUPTED:
	case MDB_INVALID:
	case MDB_VERSION_MISMATCH:
	case MDB_PAGE_NOTFOUND:
	case MDB_INCOMPATIBLE:
	case MDB_PANIC:
		hint = "; the manifest is damaged: " REBUILD_HINT;
		break;
	}
	return ferry_fail(
	    FERRY_EDB, "manifest: %s: %s%s", what, mdb_strerror(rc), hint);
}

/* Writes the 16 hex digits of XXH3-64("src\ndst") and a NUL into id. */
static ferry_err
pair_id(const char *src, const char *dst, char id[17])
{
	XXH64_canonical_t c;
	size_t ns = strlen(src), nd = strlen(dst);
	char *s;

	s = malloc(ns + nd + 1);
	if (s == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(s, src, ns);
	s[ns] = '\n';
	memcpy(s + ns + 1, dst, nd);
	XXH64_canonicalFromHash(&c, XXH3_64bits(s, ns + nd + 1));
	free(s);
	hex_encode(c.digest, 8, id);
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with the default manifest folder of the pair in buf;
 * FERRY_EUSAGE when no base folder is set or buf is too small, with buf
 * then "".  Reads the environment: not thread-safe against setenv().
 */
ferry_err
manifest_default_dir(const char *src, const char *dst, char *buf, size_t buflen)
{
	const char *base;
	char id[17];
	ferry_err e;
	int n;

	if (buflen > 0)
		buf[0] = '\0';
	if ((e = pair_id(src, dst, id)) != FERRY_OK)
		return e;
	/* XDG says a relative XDG_STATE_HOME is invalid and ignored. */
	if ((base = getenv("FERRY_STATE_DIR")) != NULL && *base != '\0')
		n = snprintf(buf, buflen, "%s/%s", base, id);
	else if ((base = getenv("XDG_STATE_HOME")) != NULL && *base == '/')
		n = snprintf(buf, buflen, "%s/ferry/%s", base, id);
	else if ((base = getenv("HOME")) != NULL && *base != '\0')
		n = snprintf(buf, buflen, "%s/.local/state/ferry/%s", base, id);
	else
		return ferry_fail(FERRY_EUSAGE,
		    "no folder for the manifest: set HOME or FERRY_STATE_DIR, "
		    "or give --manifest");
	if (n < 0 || (size_t)n >= buflen) {
		if (buflen > 0)
			buf[0] = '\0';
		return ferry_fail(
		    FERRY_EUSAGE, "manifest folder name too long");
	}
	return FERRY_OK;
}

/* mkdir that is content with a folder already there. */
static ferry_err
make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return FERRY_OK;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return FERRY_OK;
	return ferry_fail(
	    FERRY_ESYS, "cannot create folder %s: %s", path, strerror(errno));
}

/* Creates dir and its missing parents, mode 0700. */
static ferry_err
make_dirs(const char *dir)
{
	ferry_err e = FERRY_OK;
	char *p, *s;

	if ((p = strdup(dir)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/' || s[-1] == '/')
			continue;
		*s = '\0';
		e = make_dir(p);
		*s = '/';
		if (e != FERRY_OK)
			goto out;
	}
	e = make_dir(p);
out:
	free(p);
	return e;
}

/* Opens dir/name with flags into *fd, or unlinks it when fd is NULL. */
static ferry_err
dir_file(const char *dir, const char *name, int flags, int *fd)
{
	char path[4096];
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return ferry_fail(
		    FERRY_EUSAGE, "manifest folder name too long");
	if (fd == NULL) {
		if (unlink(path) < 0 && errno != ENOENT)
			return ferry_fail(FERRY_ESYS, "cannot remove %s: %s",
			    path, strerror(errno));
		return FERRY_OK;
	}
	*fd = open(path, flags, 0600);
	if (*fd < 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot open %s: %s", path, strerror(errno));
	return FERRY_OK;
}

/* Takes the run lock on dir/lock, kept in m->lockfd until close. */
static ferry_err
take_lock(struct manifest *m)
{
	ferry_err e;
	int rc;

	e = dir_file(m->dir, "lock", O_RDWR | O_CREAT | O_CLOEXEC, &m->lockfd);
	if (e != FERRY_OK)
		return e;
	do
		rc = flock(m->lockfd, LOCK_EX | LOCK_NB);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return FERRY_OK;
	if (errno == EWOULDBLOCK)
		return ferry_fail(FERRY_EBUSY,
		    "another ferry run is using the manifest in %s", m->dir);
	return ferry_fail(
	    FERRY_ESYS, "cannot lock %s/lock: %s", m->dir, strerror(errno));
}

/*
 * Returns FERRY_EDB with the rebuild hint; m, which may be NULL, is then
 * marked damaged.
 */
ferry_err
manifest_damage(struct manifest *m, const char *dir, const char *why)
{
	if (m != NULL)
		m->damaged = 1;
	return ferry_fail(FERRY_EDB,
	    "the manifest at %s is damaged (%s): run again with "
	    "--rebuild-manifest, or delete %s; it is a cache, nothing else "
	    "is lost",
	    dir, why, dir);
}

/*
 * Returns FERRY_OK, or FERRY_EDB (and its message, with the rebuild hint)
 * once a damaged record has been read through m.
 */
ferry_err
manifest_damaged(const struct manifest *m)
{
	if (m == NULL || !m->damaged)
		return FERRY_OK;
	return manifest_damage(NULL, m->dir, "a record does not decode");
}

/* Opens the environment with a map of mapsize bytes; an LMDB code. */
static int
env_try(struct manifest *m, size_t mapsize)
{
	int rc;

	if ((rc = mdb_env_create(&m->env)) != 0) {
		m->env = NULL;
		return rc;
	}
	/* A cache: losing the last commits to a crash costs time only. */
	if ((rc = mdb_env_set_maxdbs(m->env, DB_COUNT)) == 0 &&
	    (rc = mdb_env_set_mapsize(m->env, mapsize)) == 0)
		rc = mdb_env_open(m->env, m->dir, MDB_NOTLS | MDB_NOSYNC, 0600);
	if (rc != 0) {
		mdb_env_close(m->env);
		m->env = NULL;
	}
	return rc;
}

/* Opens the LMDB environment in m->dir. */
static ferry_err
env_open(struct manifest *m)
{
	char what[256];
	size_t i;
	int rc = ENOMEM;

	/* mmap says EINVAL, not ENOMEM, to a length it cannot place under
	 * some monitors (valgrind): a smaller map is tried for both */
	for (i = 0; (rc == ENOMEM || rc == EINVAL) &&
	            i < sizeof(map_sizes) / sizeof(*map_sizes);
	     i++)
		rc = env_try(m, map_sizes[i]);
	if (rc != 0) {
		snprintf(what, sizeof(what), "cannot open %.200s", m->dir);
		return manifest_db_fail(rc, what);
	}
	if (mdb_env_get_maxkeysize(m->env) < MANIFEST_LMDB_KEY_MAX)
		return ferry_fail(FERRY_EDB,
		    "manifest: this LMDB takes keys of at most %d bytes",
		    mdb_env_get_maxkeysize(m->env));
	return FERRY_OK;
}

/* Reads meta value name into v; MDB_NOTFOUND when absent. */
static int
meta_read(struct manifest *m, MDB_txn *txn, const char *name, MDB_val *v)
{
	MDB_val k = {strlen(name), (void *)name};

	return mdb_get(txn, m->dbi[DB_META], &k, v);
}

static int
meta_write(struct manifest *m, MDB_txn *txn, const char *name, const char *s)
{
	MDB_val k = {strlen(name), (void *)name};
	MDB_val v = {strlen(s), (void *)s};

	return mdb_put(txn, m->dbi[DB_META], &k, &v, 0);
}

static int
val_is(const MDB_val *v, const char *s)
{
	return v->mv_size == strlen(s) &&
	       memcmp(v->mv_data, s, v->mv_size) == 0;
}

/* Returns the schema in v as a number, or -1 when it is not one. */
static long
schema_of(const MDB_val *v)
{
	const char *p = v->mv_data;
	long n = 0;
	size_t i;

	if (v->mv_size == 0 || v->mv_size > 9)
		return -1;
	for (i = 0; i < v->mv_size; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		n = n * 10 + (p[i] - '0');
	}
	return n;
}

/* Writes the meta values of a new manifest. */
static ferry_err
meta_create(struct manifest *m, MDB_txn *txn, const char *src, const char *dst)
{
	char schema[16];
	int rc;

	snprintf(schema, sizeof(schema), "%d", MANIFEST_SCHEMA);
	if ((rc = meta_write(m, txn, "schema", schema)) != 0 ||
	    (rc = meta_write(m, txn, "source", src)) != 0 ||
	    (rc = meta_write(m, txn, "destination", dst)) != 0)
		return manifest_db_fail(rc, "cannot write the meta table");
	return FERRY_OK;
}

/* Checks that an existing manifest is of a known schema and this pair. */
static ferry_err
meta_check(struct manifest *m, MDB_txn *txn, const char *src, const char *dst)
{
	MDB_val v, vs, vd;
	long schema;
	int rc;

	rc = meta_read(m, txn, "schema", &v);
	if (rc == MDB_NOTFOUND && src == NULL)
		return ferry_fail(FERRY_ENOTFOUND, "no manifest in %s", m->dir);
	if (rc == MDB_NOTFOUND)
		return meta_create(m, txn, src, dst);
	if (rc != 0)
		return manifest_db_fail(rc, "cannot read the meta table");
	schema = schema_of(&v);
	if (schema > MANIFEST_SCHEMA)
		return ferry_fail(FERRY_EDB,
		    "the manifest in %s has schema %ld, newer than this "
		    "ferry's %d; " REBUILD_HINT,
		    m->dir, schema, MANIFEST_SCHEMA);
	if (schema < 1 || meta_read(m, txn, "source", &vs) != 0 ||
	    meta_read(m, txn, "destination", &vd) != 0)
		return ferry_fail(FERRY_EDB,
		    "the manifest in %s is damaged; " REBUILD_HINT, m->dir);
	if (src != NULL && (!val_is(&vs, src) || !val_is(&vd, dst)))
		return ferry_fail(FERRY_EDB,
		    "the manifest in %s belongs to %.*s -> %.*s, not to this "
		    "pair; give another --manifest folder or " REBUILD_HINT,
		    m->dir, (int)(vs.mv_size > 200 ? 200 : vs.mv_size),
		    (char *)vs.mv_data,
		    (int)(vd.mv_size > 200 ? 200 : vd.mv_size),
		    (char *)vd.mv_data);
	return FERRY_OK;
}

/* Opens (creating) the tables and checks or writes the meta values. */
static ferry_err
tables_open(struct manifest *m, const char *src, const char *dst)
{
	MDB_txn *txn = NULL;
	ferry_err e = FERRY_OK;
	int i, rc;

	if ((rc = mdb_txn_begin(m->env, NULL, 0, &txn)) != 0)
		return manifest_db_fail(rc, "cannot begin a transaction");
	/* meta first: a newer schema may lay out the other tables anew. */
	for (i = 0; i < DB_COUNT; i++) {
		rc = mdb_dbi_open(txn, db_names[i], MDB_CREATE, &m->dbi[i]);
		if (rc != 0) {
			e = manifest_db_fail(rc, "cannot open a table");
			goto out;
		}
		if (i == DB_META &&
		    (e = meta_check(m, txn, src, dst)) != FERRY_OK)
			goto out;
	}
	rc = mdb_txn_commit(txn);
	txn = NULL;
	if (rc != 0)
		e = manifest_db_fail(rc, "cannot commit");
out:
	txn_abort(&txn);
	return e;
}

/* Frees m without committing anything. */
static void
discard(struct manifest *m)
{
	if (m == NULL)
		return;
	txn_abort(&m->wtxn);
	txn_abort(&m->rtxn);
	if (m->env != NULL)
		mdb_env_close(m->env);
	if (m->lockfd >= 0)
		close(m->lockfd);
	free(m->dir);
	free(m);
}

/* Whether dir holds an LMDB data file. */
static int
dir_has_manifest(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/data.mdb", dir) >=
	    (int)sizeof(path))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Checks data.mdb before LMDB maps it (check.c): LMDB would fault on a
 * short file and follow wild pointers in a damaged one.
 */
static ferry_err
file_check(struct manifest *m)
{
	char why[256];
	ferry_err e;
	int fd;

	/* none: LMDB starts one */
	if (!dir_has_manifest(m->dir))
		return FERRY_OK;
	e = dir_file(m->dir, "data.mdb", O_RDONLY | O_CLOEXEC, &fd);
	if (e != FERRY_OK)
		return e;
	e = manifest_file_check(fd, why, sizeof(why));
	close(fd);
	if (e == FERRY_EDB)
		return manifest_damage(m, m->dir, why);
	if (e != FERRY_OK)
		return ferry_fail(e, "%s", why);
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with a new handle in *out, owned by the caller and
 * freed by manifest_close(); see manifest.h for the failures.
 */
ferry_err
manifest_open(const char *dir, const char *src, const char *dst, unsigned flags,
    struct manifest **out)
{
	struct manifest *m;
	ferry_err e;

	if (out == NULL || dir == NULL || *dir == '\0' ||
	    (!(flags & MANIFEST_INSPECT) && (src == NULL || dst == NULL)))
		return ferry_fail(FERRY_EUSAGE, "manifest_open: bad arguments");
	*out = NULL;
	if ((flags & MANIFEST_INSPECT) && !dir_has_manifest(dir))
		return ferry_fail(FERRY_ENOTFOUND, "no manifest in %s", dir);
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	m->lockfd = -1;
	if ((m->dir = strdup(dir)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((e = make_dirs(dir)) != FERRY_OK || (e = take_lock(m)) != FERRY_OK)
		goto out;
	/* Only with the lock held: nobody else is using these files. */
	if ((flags & MANIFEST_REBUILD) &&
	    ((e = dir_file(dir, "data.mdb", 0, NULL)) != FERRY_OK ||
	        (e = dir_file(dir, "lock.mdb", 0, NULL)) != FERRY_OK))
		goto out;
	if ((e = file_check(m)) != FERRY_OK || (e = env_open(m)) != FERRY_OK ||
	    (e = tables_open(m, src, dst)) != FERRY_OK)
		goto out;
	*out = m;
	m = NULL;
out:
	discard(m);
	return e;
}

/*
 * Commits pending writes, syncs, closes LMDB and releases the run lock, then
 * frees m; failures can only be logged.  Accepts NULL.
 */
void
manifest_close(struct manifest *m)
{
	int rc;

	if (m == NULL)
		return;
	if (manifest_commit(m) != FERRY_OK)
		log_error("%s", ferry_errmsg());
	if ((rc = mdb_env_sync(m->env, 1)) != 0)
		log_error("manifest: sync %s: %s", m->dir, mdb_strerror(rc));
	discard(m);
}

/* Returns the manifest's folder, owned by m. */
const char *
manifest_dir(const struct manifest *m)
{
	return m->dir;
}

/*
 * Returns FERRY_OK once pending writes are committed (or there were none); on
 * FERRY_EDB they are lost, as LMDB frees the transaction.
 */
ferry_err
manifest_commit(struct manifest *m)
{
	int rc;

	if (m->wtxn == NULL)
		return FERRY_OK;
	rc = mdb_txn_commit(m->wtxn);
	m->wtxn = NULL;
	m->nwrites = 0;
	if (rc != 0)
		return manifest_db_fail(rc, "cannot commit");
	return FERRY_OK;
}

/*
 * LMDB syncs at each commit once MDB_NOSYNC is off: the commits of a long
 * run, every few hundred objects, are then each on disk as they return.
 */
ferry_err
manifest_set_durable(struct manifest *m)
{
	int rc;

	if ((rc = mdb_env_set_flags(m->env, MDB_NOSYNC, 0)) != 0)
		return manifest_db_fail(rc, "cannot sync each commit");
	return FERRY_OK;
}

ferry_err
manifest_sync(struct manifest *m)
{
	ferry_err e = manifest_commit(m);
	int rc;

	if (e != FERRY_OK)
		return e;
	if ((rc = mdb_env_sync(m->env, 1)) != 0)
		return manifest_db_fail(rc, "cannot sync");
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with the pending write transaction in *txn, owned by m.
 */
ferry_err
manifest_txn_write(struct manifest *m, MDB_txn **txn)
{
	int rc;

	if (m->wtxn == NULL &&
	    (rc = mdb_txn_begin(m->env, NULL, 0, &m->wtxn)) != 0) {
		m->wtxn = NULL;
		*txn = NULL;
		return manifest_db_fail(rc, "cannot begin a transaction");
	}
	*txn = m->wtxn;
	return FERRY_OK;
}

/* Returns FERRY_OK, or FERRY_EDB for rc or a failed batch commit. */
ferry_err
manifest_txn_wrote(struct manifest *m, int rc, const char *what)
{
	if (rc != 0) {
		txn_abort(&m->wtxn);
		m->nwrites = 0;
		return manifest_db_fail(rc, what);
	}
	if (++m->nwrites >= MANIFEST_BATCH)
		return manifest_commit(m);
	return FERRY_OK;
}

/* Returns FERRY_OK with a transaction owned by m in *txn. */
ferry_err
manifest_txn_read(struct manifest *m, MDB_txn **txn)
{
	int rc;

	*txn = NULL;
	if (m->wtxn != NULL) {
		*txn = m->wtxn;
		return FERRY_OK;
	}
	if (m->rtxn == NULL)
		rc = mdb_txn_begin(m->env, NULL, MDB_RDONLY, &m->rtxn);
	else
		rc = mdb_txn_renew(m->rtxn);
	if (rc != 0) {
		txn_abort(&m->rtxn);
		return manifest_db_fail(rc, "cannot begin a read transaction");
	}
	*txn = m->rtxn;
	return FERRY_OK;
}

/* Gives back a transaction from manifest_txn_read(). */
void
manifest_txn_read_done(struct manifest *m, MDB_txn *txn)
{
	/* Reset, not aborted: renewing it is cheaper than a new one. */
	if (txn != NULL && txn == m->rtxn)
		mdb_txn_reset(txn);
}

/* Meta names are short words; values are stored without their NUL. */
static ferry_err
meta_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > MANIFEST_KEY_PREFIX)
		return ferry_fail(FERRY_EUSAGE, "bad manifest meta name");
	return FERRY_OK;
}

/*
 * Returns FERRY_OK once name = value is pending; FERRY_EUSAGE for an empty or
 * over-long name.
 */
ferry_err
manifest_meta_put(struct manifest *m, const char *name, const char *value)
{
	MDB_txn *txn;
	ferry_err e;

	if ((e = meta_name_ok(name)) != FERRY_OK)
		return e;
	if (value == NULL)
		return ferry_fail(FERRY_EUSAGE, "manifest meta value is NULL");
	if ((e = manifest_txn_write(m, &txn)) != FERRY_OK)
		return e;
	return manifest_txn_wrote(
	    m, meta_write(m, txn, name, value), "cannot write a meta value");
}

/*
 * FERRY_ENOTFOUND when absent, FERRY_EDB when the value does not fit in
 * buflen bytes with its NUL (a manifest ferry did not write).
 */
ferry_err
manifest_meta_get(
    struct manifest *m, const char *name, char *buf, size_t buflen)
{
	MDB_txn *txn;
	MDB_val v;
	ferry_err e;
	int rc;

	if (buflen > 0)
		buf[0] = '\0';
	if ((e = meta_name_ok(name)) != FERRY_OK ||
	    (e = manifest_txn_read(m, &txn)) != FERRY_OK)
		return e;
	rc = meta_read(m, txn, name, &v);
	if (rc == MDB_NOTFOUND)
		e = ferry_fail(FERRY_ENOTFOUND, "no meta value '%s'", name);
	else if (rc != 0)
		e = manifest_db_fail(rc, "cannot read a meta value");
	else if (v.mv_size >= buflen)
		e = ferry_fail(FERRY_EDB, "meta value '%s' is longer than %zu",
		    name, buflen);
	else {
		memcpy(buf, v.mv_data, v.mv_size);
		buf[v.mv_size] = '\0';
	}
	manifest_txn_read_done(m, txn);
	return e;
}

/* Returns FERRY_OK with the record counts, pending writes included. */
ferry_err
manifest_count(struct manifest *m, uint64_t *nlocal, uint64_t *nremote)
{
	MDB_stat sl, sr;
	MDB_txn *txn;
	ferry_err e;
	int rc;

	*nlocal = *nremote = 0;
	if ((e = manifest_txn_read(m, &txn)) != FERRY_OK)
		return e;
	if ((rc = mdb_stat(txn, m->dbi[DB_LOCAL], &sl)) != 0 ||
	    (rc = mdb_stat(txn, m->dbi[DB_REMOTE], &sr)) != 0)
		e = manifest_db_fail(rc, "cannot count records");
	else {
		*nlocal = sl.ms_entries;
		*nremote = sr.ms_entries;
	}
	manifest_txn_read_done(m, txn);
	return e;
}
