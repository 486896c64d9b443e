/*
 * table.c: the local and remote tables: get, put, del and ordered
 * iteration, including keys longer than LMDB takes.
 *
 * A key of up to MANIFEST_KEY_PREFIX bytes is stored as itself.  A longer
 * one is stored as its first MANIFEST_KEY_PREFIX bytes and its XXH3-128
 * (MANIFEST_LMDB_KEY_MAX bytes in all), with the value prefixed by a u16
 * little-endian length and the rest of the key.  Long keys sharing the
 * prefix then sit together in LMDB's order, but sorted by hash, and sort
 * correctly against every other key; the iterator reads such a group and
 * sorts it by the whole key.  Groups are rare (paths that agree on their
 * first 495 bytes), so the memory they take stays small.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xxhash.h>

#include "manifest/internal.h"

/* A key as LMDB stores it. */
struct dbkey {
	MDB_val val;
	size_t tail; /* bytes of the key after the prefix, 0 if short */
	uint8_t bytes[MANIFEST_LMDB_KEY_MAX];
};

/* A value as LMDB stores it: the rest of a long key, then the record. */
#define DBVAL_MAX (2 + MANIFEST_KEY_MAX + MANIFEST_REC_MAX)

static void
key_hash(const char *key, size_t keylen, uint8_t out[16])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, XXH3_128bits(key, keylen));
	memcpy(out, c.digest, 16);
}

static ferry_err
key_make(const char *key, size_t keylen, struct dbkey *k)
{
	if (key == NULL || keylen == 0 || keylen > MANIFEST_KEY_MAX)
		return ferry_fail(FERRY_EUSAGE,
		    "manifest keys are 1 to %d bytes, not %zu",
		    MANIFEST_KEY_MAX, keylen);
	if (keylen <= MANIFEST_KEY_PREFIX) {
		k->val.mv_data = (void *)key;
		k->val.mv_size = keylen;
		k->tail = 0;
		return FERRY_OK;
	}
	memcpy(k->bytes, key, MANIFEST_KEY_PREFIX);
	key_hash(key, keylen, k->bytes + MANIFEST_KEY_PREFIX);
	k->val.mv_data = k->bytes;
	k->val.mv_size = MANIFEST_LMDB_KEY_MAX;
	k->tail = keylen - MANIFEST_KEY_PREFIX;
	return FERRY_OK;
}

/* The record of key does not decode: the manifest is damaged. */
static ferry_err
damaged(struct manifest *m, const char *key, size_t keylen)
{
	char why[256];

	snprintf(why, sizeof(why), "the record of '%.*s' does not decode",
	    (int)(keylen > 200 ? 200 : keylen), key);
	return manifest_damage(m, m->dir, why);
}

/*
 * Splits a stored value into the rest of a long key (*tail, *taillen;
 * none for a short key) and the record; -1 when malformed.
 */
static int
val_split(const MDB_val *v, int is_long, const uint8_t **tail, size_t *taillen,
    MDB_val *rec)
{
	const uint8_t *p = v->mv_data;
	size_t n;

	*tail = NULL;
	*taillen = 0;
	*rec = *v;
	if (!is_long)
		return 0;
	if (v->mv_size < 2)
		return -1;
	n = (size_t)p[0] | (size_t)p[1] << 8;
	if (n == 0 || n > MANIFEST_KEY_MAX - MANIFEST_KEY_PREFIX ||
	    v->mv_size - 2 < n)
		return -1;
	*tail = p + 2;
	*taillen = n;
	rec->mv_data = (uint8_t *)p + 2 + n;
	rec->mv_size = v->mv_size - 2 - n;
	return 0;
}

static ferry_err
rec_decode(int db, const MDB_val *rec, void *out)
{
	if (db == DB_LOCAL)
		return manifest_local_decode(rec->mv_data, rec->mv_size, out);
	if (db == DB_UPLOADS)
		return manifest_upload_decode(rec->mv_data, rec->mv_size, out);
	return manifest_remote_decode(rec->mv_data, rec->mv_size, out);
}

static ferry_err
rec_encode(int db, const void *r, uint8_t *buf, size_t *len)
{
	if (db == DB_LOCAL)
		return manifest_local_encode(r, buf, len);
	if (db == DB_UPLOADS)
		return manifest_upload_encode(r, buf, len);
	return manifest_remote_encode(r, buf, len);
}

/* Every this many keys, an iterator lets go of the pages it has read. */
#define TRIM_EVERY 4096

/*
 * The start and end of the mapping that holds p, from /proc/self/maps (LMDB
 * does not tell where it mapped the file); 0 when unknown.
 */
static int
map_bounds(const void *p, uintptr_t *lo, uintptr_t *hi)
{
	unsigned long a, b;
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f;

	if ((f = fopen("/proc/self/maps", "re")) == NULL)
		return 0;
	while (!found && getline(&line, &cap, f) > 0)
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    (uintptr_t)p >= a && (uintptr_t)p < b) {
			*lo = a;
			*hi = b;
			found = 1;
		}
	free(line);
	fclose(f);
	return found;
}

/*
 * Drops the pages of the memory map from this process's resident set; p is
 * any pointer into the map.  The map is read-only and shared: the data
 * stays in the page cache, every pointer into the map stays valid, and a
 * page read again is mapped again from the cache.  Without this, a walk
 * over a whole table keeps every page it read resident, and ferry's memory
 * would grow with the number of keys.
 */
static void
map_trim(MDB_env *env, uintptr_t *lo, uintptr_t *hi, const void *p)
{
	MDB_envinfo info;
	MDB_stat st;
	size_t len;

	if (*lo == 0 && !map_bounds(p, lo, hi))
		*hi = *lo = 1; /* unknown: not looked for again */
	if (*lo == 1 || mdb_env_info(env, &info) != 0 ||
	    mdb_env_stat(env, &st) != 0)
		return;
	len = (info.me_last_pgno + 1) * (size_t)st.ms_psize;
	if (len > *hi - *lo)
		len = *hi - *lo;
	madvise((void *)*lo, len, MADV_DONTNEED);
}

/* Reads and decodes the record of key in table db into out. */
static ferry_err
table_get(struct manifest *m, int db, const char *key, size_t keylen, void *out)
{
	const uint8_t *tail;
	struct dbkey k;
	MDB_val v, rec;
	MDB_txn *txn = NULL;
	size_t taillen;
	ferry_err e;
	int rc;

	if ((e = key_make(key, keylen, &k)) != FERRY_OK ||
	    (e = manifest_txn_read(m, &txn)) != FERRY_OK)
		return e;
	rc = mdb_get(txn, m->dbi[db], &k.val, &v);
	if (rc == MDB_NOTFOUND)
		e = ferry_fail(FERRY_ENOTFOUND, "no manifest record of '%.*s'",
		    (int)(keylen > 200 ? 200 : keylen), key);
	else if (rc != 0)
		e = manifest_db_fail(rc, "cannot read a record");
	else if (val_split(&v, k.tail != 0, &tail, &taillen, &rec) < 0 ||
	         taillen != k.tail ||
	         (taillen != 0 &&
	             memcmp(tail, key + MANIFEST_KEY_PREFIX, taillen) != 0) ||
	         rec_decode(db, &rec, out) != FERRY_OK)
		e = damaged(m, key, keylen);
	/* point reads in key order (a mirror's) walk the whole table as an
	 * iterator does; a read-only snapshot's values lie in the map */
	if (rc == 0 && txn == m->rtxn && ++m->gets >= TRIM_EVERY) {
		map_trim(m->env, &m->map_lo, &m->map_hi, v.mv_data);
		m->gets = 0;
	}
	manifest_txn_read_done(m, txn);
	return e;
}

/*
 * Encodes r and writes it under key in table db (pending).  With dup, a
 * key already there is left as it is and *dup set.
 */
static ferry_err
table_put_new(struct manifest *m, int db, const char *key, size_t keylen,
    const void *r, int *dup)
{
	uint8_t buf[DBVAL_MAX], *p = buf;
	struct dbkey k;
	MDB_txn *txn;
	MDB_val v;
	size_t n;
	ferry_err e;
	int rc;

	if ((e = key_make(key, keylen, &k)) != FERRY_OK)
		return e;
	if (k.tail != 0) {
		p[0] = (uint8_t)k.tail;
		p[1] = (uint8_t)(k.tail >> 8);
		memcpy(p + 2, key + MANIFEST_KEY_PREFIX, k.tail);
		p += 2 + k.tail;
	}
	if ((e = rec_encode(db, r, p, &n)) != FERRY_OK ||
	    (e = manifest_txn_write(m, &txn)) != FERRY_OK)
		return e;
	v.mv_data = buf;
	v.mv_size = (size_t)(p - buf) + n;
	rc = mdb_put(txn, m->dbi[db], &k.val, &v, dup ? MDB_NOOVERWRITE : 0);
	/* a key already there leaves the transaction usable */
	if (dup && (*dup = rc == MDB_KEYEXIST))
		return FERRY_OK;
	return manifest_txn_wrote(m, rc, "cannot write a record");
}

static ferry_err
table_put(
    struct manifest *m, int db, const char *key, size_t keylen, const void *r)
{
	return table_put_new(m, db, key, keylen, r, NULL);
}

/* The listed table t, or -1. */
static int
listed_db(enum manifest_table t)
{
	if (t == MANIFEST_LISTED)
		return DB_LISTED;
	return t == MANIFEST_LISTED_SRC ? DB_LISTED_SRC : -1;
}

/* Returns FERRY_OK once table t is emptied (pending). */
ferry_err
manifest_listed_clear(struct manifest *m, enum manifest_table t)
{
	int db = listed_db(t);
	MDB_txn *txn;
	ferry_err e;

	if (db < 0)
		return ferry_fail(FERRY_EUSAGE, "not a listed table");
	if ((e = manifest_txn_write(m, &txn)) != FERRY_OK)
		return e;
	return manifest_txn_wrote(
	    m, mdb_drop(txn, m->dbi[db], 0), "cannot clear a table");
}

/*
 * Returns FERRY_OK once the record of key is pending in table t, or with
 * *dup set when key was there already (nothing written).
 */
ferry_err
manifest_listed_put(struct manifest *m, enum manifest_table t, const char *key,
    size_t keylen, const struct manifest_remote *r, int *dup)
{
	int db = listed_db(t);

	*dup = 0;
	if (db < 0)
		return ferry_fail(FERRY_EUSAGE, "not a listed table");
	return table_put_new(m, db, key, keylen, r, dup);
}

static ferry_err
table_del(struct manifest *m, int db, const char *key, size_t keylen)
{
	struct dbkey k;
	MDB_txn *txn;
	ferry_err e;
	int rc;

	if ((e = key_make(key, keylen, &k)) != FERRY_OK ||
	    (e = manifest_txn_write(m, &txn)) != FERRY_OK)
		return e;
	rc = mdb_del(txn, m->dbi[db], &k.val, NULL);
	if (rc == MDB_NOTFOUND)
		rc = 0;
	return manifest_txn_wrote(m, rc, "cannot delete a record");
}

/*
 * Returns FERRY_OK with the record of key in *out (pending writes included),
 * FERRY_ENOTFOUND, or FERRY_EDB when it does not decode.
 */
ferry_err
manifest_remote_get(struct manifest *m, const char *key, size_t keylen,
    struct manifest_remote *out)
{
	memset(out, 0, sizeof(*out));
	return table_get(m, DB_REMOTE, key, keylen, out);
}

/* Returns FERRY_OK once the record of key is pending. */
ferry_err
manifest_remote_put(struct manifest *m, const char *key, size_t keylen,
    const struct manifest_remote *r)
{
	return table_put(m, DB_REMOTE, key, keylen, r);
}

/* Returns FERRY_OK once the deletion of key is pending. */
ferry_err
manifest_remote_del(struct manifest *m, const char *key, size_t keylen)
{
	return table_del(m, DB_REMOTE, key, keylen);
}

/* As manifest_remote_get(), for the local table. */
ferry_err
manifest_local_get(struct manifest *m, const char *key, size_t keylen,
    struct manifest_local *out)
{
	memset(out, 0, sizeof(*out));
	return table_get(m, DB_LOCAL, key, keylen, out);
}

/* As manifest_remote_put(), for the local table. */
ferry_err
manifest_local_put(struct manifest *m, const char *key, size_t keylen,
    const struct manifest_local *r)
{
	return table_put(m, DB_LOCAL, key, keylen, r);
}

/* As manifest_remote_del(), for the local table. */
ferry_err
manifest_local_del(struct manifest *m, const char *key, size_t keylen)
{
	return table_del(m, DB_LOCAL, key, keylen);
}

/* As manifest_remote_get(), for the uploads table. */
ferry_err
manifest_upload_get(struct manifest *m, const char *key, size_t keylen,
    struct manifest_upload *out)
{
	memset(out, 0, sizeof(*out));
	return table_get(m, DB_UPLOADS, key, keylen, out);
}

/* As manifest_remote_put(), for the uploads table. */
ferry_err
manifest_upload_put(struct manifest *m, const char *key, size_t keylen,
    const struct manifest_upload *r)
{
	return table_put(m, DB_UPLOADS, key, keylen, r);
}

/* As manifest_remote_del(), for the uploads table. */
ferry_err
manifest_upload_del(struct manifest *m, const char *key, size_t keylen)
{
	return table_del(m, DB_UPLOADS, key, keylen);
}

/* One entry of a group of long keys, pointing into the read snapshot. */
struct group_ent {
	char *key; /* the whole key, NUL-terminated, owned */
	size_t keylen;
	MDB_val rec;
};

enum iter_state { ITER_START, ITER_NEXT, ITER_PEEKED, ITER_END };

struct manifest_iter {
	struct manifest *m;
	MDB_txn *txn;
	MDB_cursor *cur;
	int db;
	enum iter_state state;
	struct group_ent *grp; /* the current group of long keys */
	size_t ngrp, igrp, capgrp;
	char key[MANIFEST_KEY_MAX + 1]; /* the key last returned */
	unsigned since_trim;            /* keys returned since map_trim() */
	uintptr_t map_lo, map_hi;       /* the map, once known */
};

/*
 * Returns FERRY_OK with a new iterator over table t in *out, owned by the
 * caller and freed by manifest_iter_free() before manifest_close().
 */
ferry_err
manifest_iter_new(
    struct manifest *m, enum manifest_table t, struct manifest_iter **out)
{
	struct manifest_iter *it;
	ferry_err e;
	int rc;

	*out = NULL;
	if ((e = manifest_commit(m)) != FERRY_OK)
		return e;
	if ((it = calloc(1, sizeof(*it))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	it->m = m;
	it->db = t == MANIFEST_LOCAL     ? DB_LOCAL
	         : t == MANIFEST_UPLOADS ? DB_UPLOADS
	         : listed_db(t) >= 0     ? listed_db(t)
	                                 : DB_REMOTE;
	rc = mdb_txn_begin(m->env, NULL, MDB_RDONLY, &it->txn);
	if (rc == 0)
		rc = mdb_cursor_open(it->txn, m->dbi[it->db], &it->cur);
	if (rc != 0) {
		e = manifest_db_fail(rc, "cannot read a table");
		manifest_iter_free(it);
		return e;
	}
	*out = it;
	return FERRY_OK;
}

static void
group_clear(struct manifest_iter *it)
{
	size_t i;

	for (i = 0; i < it->ngrp; i++)
		free(it->grp[i].key);
	it->ngrp = 0;
	it->igrp = 0;
}

/* Ends the iterator's read snapshot and frees it; accepts NULL. */
void
manifest_iter_free(struct manifest_iter *it)
{
	if (it == NULL)
		return;
	group_clear(it);
	free(it->grp);
	if (it->cur != NULL)
		mdb_cursor_close(it->cur);
	if (it->txn != NULL)
		mdb_txn_abort(it->txn);
	free(it);
}

/* Moves the cursor on; FERRY_ENOTFOUND past the end. */
static ferry_err
cursor_step(struct manifest_iter *it, MDB_val *k, MDB_val *v)
{
	MDB_cursor_op op;
	int rc;

	switch (it->state) {
	case ITER_START:
		op = MDB_FIRST;
		break;
	case ITER_PEEKED:
		op = MDB_GET_CURRENT;
		break;
	case ITER_END:
		return FERRY_ENOTFOUND;
	default:
		op = MDB_NEXT;
	}
	rc = mdb_cursor_get(it->cur, k, v, op);
	if (rc == MDB_NOTFOUND) {
		it->state = ITER_END;
		return FERRY_ENOTFOUND;
	}
	if (rc != 0)
		return manifest_db_fail(rc, "cannot read a table");
	it->state = ITER_NEXT;
	return FERRY_OK;
}

/* Adds the long key k with value v to the group, checking its hash. */
static ferry_err
group_add(struct manifest_iter *it, const MDB_val *k, const MDB_val *v)
{
	struct group_ent *g;
	const uint8_t *tail;
	uint8_t h[16];
	size_t taillen, n;

	if (it->ngrp == it->capgrp) {
		n = it->capgrp ? 2 * it->capgrp : 8;
		if ((g = realloc(it->grp, n * sizeof(*g))) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		it->grp = g;
		it->capgrp = n;
	}
	g = &it->grp[it->ngrp];
	if (val_split(v, 1, &tail, &taillen, &g->rec) < 0)
		return damaged(it->m, k->mv_data, MANIFEST_KEY_PREFIX);
	g->keylen = MANIFEST_KEY_PREFIX + taillen;
	if ((g->key = malloc(g->keylen + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(g->key, k->mv_data, MANIFEST_KEY_PREFIX);
	memcpy(g->key + MANIFEST_KEY_PREFIX, tail, taillen);
	g->key[g->keylen] = '\0';
	it->ngrp++;
	key_hash(g->key, g->keylen, h);
	if (memcmp(h, (uint8_t *)k->mv_data + MANIFEST_KEY_PREFIX, 16) != 0)
		return damaged(it->m, g->key, g->keylen);
	return FERRY_OK;
}

static int
group_cmp(const void *a, const void *b)
{
	const struct group_ent *x = a, *y = b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);

	if (c != 0)
		return c;
	return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

/* Reads the group of long keys starting at (k, v) and sorts it. */
static ferry_err
group_fill(struct manifest_iter *it, MDB_val *k, MDB_val *v)
{
	uint8_t prefix[MANIFEST_KEY_PREFIX];
	ferry_err e;

	memcpy(prefix, k->mv_data, MANIFEST_KEY_PREFIX);
	for (;;) {
		if ((e = group_add(it, k, v)) != FERRY_OK)
			return e;
		e = cursor_step(it, k, v);
		if (e == FERRY_ENOTFOUND)
			break;
		if (e != FERRY_OK)
			return e;
		if (k->mv_size != MANIFEST_LMDB_KEY_MAX ||
		    memcmp(k->mv_data, prefix, MANIFEST_KEY_PREFIX) != 0) {
			it->state = ITER_PEEKED;
			break;
		}
	}
	qsort(it->grp, it->ngrp, sizeof(*it->grp), group_cmp);
	return FERRY_OK;
}

/* The next key in order and its undecoded record. */
static ferry_err
iter_next(struct manifest_iter *it, size_t *keylen, MDB_val *rec)
{
	struct group_ent *g;
	MDB_val k, v;
	ferry_err e;

	if (it->igrp == it->ngrp) {
		group_clear(it);
		if ((e = cursor_step(it, &k, &v)) != FERRY_OK)
			return e;
		if (++it->since_trim >= TRIM_EVERY) {
			map_trim(mdb_txn_env(it->txn), &it->map_lo, &it->map_hi,
			    k.mv_data);
			it->since_trim = 0;
		}
		if (k.mv_size <= MANIFEST_KEY_PREFIX) {
			memcpy(it->key, k.mv_data, k.mv_size);
			it->key[k.mv_size] = '\0';
			*keylen = k.mv_size;
			*rec = v;
			return FERRY_OK;
		}
		if (k.mv_size != MANIFEST_LMDB_KEY_MAX)
			return damaged(it->m, k.mv_data, MANIFEST_KEY_PREFIX);
		if ((e = group_fill(it, &k, &v)) != FERRY_OK) {
			group_clear(it);
			return e;
		}
	}
	g = &it->grp[it->igrp++];
	memcpy(it->key, g->key, g->keylen + 1);
	*keylen = g->keylen;
	*rec = g->rec;
	return FERRY_OK;
}

/* Steps it over a table of kind db and decodes the record into out. */
static ferry_err
iter_get(struct manifest_iter *it, int db, const char **key, size_t *keylen,
    void *out)
{
	MDB_val rec = {0, NULL};
	size_t n = 0;
	ferry_err e;

	*key = NULL;
	*keylen = 0;
	/* the listed tables hold remote records */
	if (it->db != db && !(db == DB_REMOTE && it->db >= DB_LISTED))
		return ferry_fail(
		    FERRY_EUSAGE, "manifest iterator over the other table");
	if ((e = iter_next(it, &n, &rec)) != FERRY_OK)
		return e;
	if (rec_decode(db, &rec, out) != FERRY_OK)
		return damaged(it->m, it->key, n);
	*key = it->key;
	*keylen = n;
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with the next key (NUL-terminated, owned by it, valid until
 * the next call) and record, FERRY_ENOTFOUND at the end, FERRY_EDB for a
 * damaged record, FERRY_EUSAGE on a remote iterator.
 */
ferry_err
manifest_iter_local(struct manifest_iter *it, const char **key, size_t *keylen,
    struct manifest_local *rec)
{
	return iter_get(it, DB_LOCAL, key, keylen, rec);
}

/* As manifest_iter_local(), for the remote table. */
ferry_err
manifest_iter_remote(struct manifest_iter *it, const char **key, size_t *keylen,
    struct manifest_remote *rec)
{
	return iter_get(it, DB_REMOTE, key, keylen, rec);
}

/* As manifest_iter_local(), for the uploads table. */
ferry_err
manifest_iter_upload(struct manifest_iter *it, const char **key, size_t *keylen,
    struct manifest_upload *rec)
{
	return iter_get(it, DB_UPLOADS, key, keylen, rec);
}
