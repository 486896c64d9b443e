/*
 * internal.h: what the files of manifest/ share and nobody else sees:
 * the handle and its transactions.
 */
#ifndef FERRY_MANIFEST_INTERNAL_H
#define FERRY_MANIFEST_INTERNAL_H

#include <sys/types.h>

#include <lmdb.h>

#include "manifest/manifest.h"

enum {
	DB_META,
	DB_LOCAL,
	DB_REMOTE,
	DB_UPLOADS,
	DB_LISTED, /* scratch: an unsorted listing, sorted (remote records) */
	DB_LISTED_SRC,
	DB_COUNT
};

/*
 * LMDB refuses keys longer than 511 bytes (its default build); longer
 * keys are stored as their first MANIFEST_KEY_PREFIX bytes followed by
 * the XXH3-128 of the whole key, with the rest of the key in front of the
 * record (see table.c).
 */
#define MANIFEST_LMDB_KEY_MAX 511
#define MANIFEST_KEY_PREFIX (MANIFEST_LMDB_KEY_MAX - 16)

/* Pending writes are committed after this many, to bound the txn. */
#define MANIFEST_BATCH 50000

struct manifest {
	MDB_env *env;
	MDB_dbi dbi[DB_COUNT];
	MDB_txn *wtxn;  /* the pending write transaction, or NULL */
	MDB_txn *rtxn;  /* a read transaction kept reset between gets */
	size_t nwrites; /* puts and dels in wtxn */
	int lockfd;     /* holds the run lock, -1 if none */
	int damaged;    /* damage was found since open */
	char *dir;
	unsigned gets;            /* point reads since the map was trimmed */
	uintptr_t map_lo, map_hi; /* the map, once known (table.c) */
};

/* The largest map the environment is opened with, in bytes (store.c). */
#define MANIFEST_MAP_MAX ((uint64_t)1 << 40)

/*
 * Returns FERRY_OK when the LMDB file at fd is empty or every page LMDB can
 * reach from its newest meta page is well formed (check.c); FERRY_EDB with
 * the reason in why when not; FERRY_ENOMEM.  Reads with pread only.
 */
ferry_err manifest_file_check(int fd, char *why, size_t whylen) FERRY_WUR;

/*
 * Records damage to the manifest in dir (why says what) as FERRY_EDB with
 * the rebuild hint, and marks m (which may be NULL) damaged; returns
 * FERRY_EDB.
 */
ferry_err manifest_damage(
    struct manifest *m, const char *dir, const char *why) FERRY_WUR;

/* Records an LMDB failure of what as FERRY_EDB; returns FERRY_EDB. */
ferry_err manifest_db_fail(int rc, const char *what) FERRY_WUR;

/* Returns the write transaction, beginning it if none is pending. */
ferry_err manifest_txn_write(struct manifest *m, MDB_txn **txn) FERRY_WUR;

/*
 * Counts one write in the pending transaction and commits it when the
 * batch is full.  On an LMDB failure (rc != 0) aborts the pending
 * transaction instead, since LMDB leaves it unusable.
 */
ferry_err manifest_txn_wrote(
    struct manifest *m, int rc, const char *what) FERRY_WUR;

/*
 * Returns a transaction to read from: the pending write transaction when
 * there is one (so that reads see pending writes), else the reused read
 * transaction.  Give it back with manifest_txn_read_done().
 */
ferry_err manifest_txn_read(struct manifest *m, MDB_txn **txn) FERRY_WUR;
void manifest_txn_read_done(struct manifest *m, MDB_txn *txn);

/*
 * What an entry that is not a regular file is, by its mode: "symlink",
 * "folder", "fifo", "socket" or "device" (a static string).
 */
const char *manifest_kind_name(mode_t mode);

/*
 * scanlink.c: the name of a symlink's entry, name[0..n) with
 * MANIFEST_LINK_EXT added, into out (cap bytes): its length, or 0 when
 * it does not fit.
 */
size_t scan_link_name(const char *name, size_t n, char *out, size_t cap);
/*
 * The record of an entry that is not a file (st->mode S_IFLNK: name is
 * its entry's name, under dirfd; S_IFDIR: an empty folder), from its
 * stat st: a link's target hashed, a folder of no bytes.
 */
ferry_err scan_special_record(int dirfd, const char *name, size_t n,
    const struct manifest_local *st, struct manifest_local *r) FERRY_WUR;

/*
 * The part of manifest_local_open() for kernels without openat2(), which
 * it also falls back on to tell which component of path is not what the
 * scan saw: opens path beneath rootfd one component at a time, folders
 * with O_DIRECTORY, each with O_NOFOLLOW and O_NONBLOCK.  Returns as
 * manifest_local_open() does, the file not checked (any kind).
 */
ferry_err manifest_local_walk(int rootfd, const char *path, int *fd) FERRY_WUR;

#endif
