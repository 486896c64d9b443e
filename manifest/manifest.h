/*
 * manifest.h: ferry's per-pair state in LMDB, the local tree scanner and
 * content hashing.  A cache that makes runs fast, never a source of truth.
 *
 * Keys in both tables are relative paths with '/' separators (for the
 * remote side: the object key with the destination prefix removed), so an
 * LMDB cursor yields them in memcmp order, which is S3's listing order.
 *
 * A struct manifest is used from one thread only.
 */
#ifndef FERRY_MANIFEST_H
#define FERRY_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "manifest/scan.h"

#define MANIFEST_SCHEMA 1
#define MANIFEST_ETAG_MAX 80 /* REMOTE_ETAG_MAX + 1 (sync/internal.h) */
#define MANIFEST_UPLOAD_ID_MAX 1024
#define MANIFEST_KEY_MAX 1024       /* bytes in a key, as in S3 */
#define MANIFEST_VERSION_ID_MAX 256 /* AWS's and Ceph's ids have 32 bytes */

/* What the scanner saw of a local file. */
struct manifest_local {
	uint64_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;
	uint64_t ino;
	uint64_t dev;
	uint32_t mode;
	uint8_t hash[16]; /* XXH3-128, canonical (big-endian) bytes */
	/* the owner; has_owner 0 in a record written before ferry kept it */
	uint8_t has_owner;
	uint32_t uid, gid;
};

/* What ferry wrote to (or read from) the other side for one key. */
struct manifest_remote {
	uint64_t size;
	int64_t mtime_ns;      /* mtime of the local file it was made from */
	int64_t last_modified; /* seconds since the epoch, 0 if unknown */
	uint64_t part_size;    /* 0: single part */
	uint8_t hash[16];      /* XXH3-128 of the content written */
	uint8_t has_hash;
	char etag[MANIFEST_ETAG_MAX];           /* as listed, quotes kept */
	char src_etag[MANIFEST_ETAG_MAX];       /* mirrors: the source's ETag */
	char upload_id[MANIFEST_UPLOAD_ID_MAX]; /* open multipart, or "" */
	/* the version written, in a versioned bucket (x-amz-version-id);
	 * in a listing's table (--at), the version to read; "": none */
	char version_id[MANIFEST_VERSION_ID_MAX];
	/*
	 * The POSIX metadata the object was stored with (x-amz-meta-mode,
	 * uid, gid; its mtime is mtime_ns above), has_meta 1; 0 when unknown:
	 * a record written before ferry kept it, or of an object ferry did
	 * not write from a file (a mirror's copy, a content check's).
	 */
	uint8_t has_meta;
	uint32_t meta_mode, meta_uid, meta_gid;
	/*
	 * -X, -A: the file's ctime when its object was stored and a hash of
	 * its extended attributes and ACL as read then (0: none), has_xattr
	 * 1; 0 when stored without them.
	 */
	uint8_t has_xattr;
	int64_t xattr_ctime_ns;
	uint64_t xattr_hash;
};

/*
 * A multipart upload in progress, kept from CreateMultipartUpload until it
 * is completed or aborted, with the local file it was started from: a
 * later run resumes it only for the same file (all of size, mtime_ns,
 * ctime_ns, ino, dev and hash equal) cut into parts of the same size.
 */
struct manifest_upload {
	char upload_id[MANIFEST_UPLOAD_ID_MAX]; /* never "" */
	uint64_t part_size;
	struct manifest_local file; /* as scanned when the upload began */
};

struct manifest;

enum {
	MANIFEST_REBUILD = 1, /* discard whatever the folder holds */
	/*
	 * Open an existing manifest of any pair to look at it (src and dst
	 * may be NULL): FERRY_ENOTFOUND when dir holds none.
	 */
	MANIFEST_INSPECT = 2
};

/*
 * Returns in buf (of buflen bytes) the default manifest folder for the
 * pair (src, dst), given as normalized strings: $FERRY_STATE_DIR/<id>,
 * else ${XDG_STATE_HOME:-$HOME/.local/state}/ferry/<id>, where id is the
 * hex XXH3-64 of "src\ndst".  FERRY_EUSAGE when no base can be found.
 */
ferry_err manifest_default_dir(
    const char *src, const char *dst, char *buf, size_t buflen) FERRY_WUR;

/*
 * Opens (creating it and its parents if needed) the manifest in dir for
 * the pair (src, dst), taking a run lock (flock on dir/lock) that is held
 * until manifest_close().  FERRY_EBUSY when another run holds the lock;
 * FERRY_EDB when the folder holds a corrupt manifest, one of a newer
 * schema, or one of another pair, with a message naming
 * --rebuild-manifest (flags MANIFEST_REBUILD starts afresh).  *out is
 * NULL on failure.
 */
ferry_err manifest_open(const char *dir, const char *src, const char *dst,
    unsigned flags, struct manifest **out) FERRY_WUR;

/* Commits pending writes, syncs and releases the lock; accepts NULL. */
void manifest_close(struct manifest *m);

/* Where the manifest lives (valid until close). */
const char *manifest_dir(const struct manifest *m);

/* Meta values ("last_run", ...): NUL-terminated strings. */
ferry_err manifest_meta_put(
    struct manifest *m, const char *name, const char *value) FERRY_WUR;
/* Copies the value into buf; FERRY_ENOTFOUND if absent. */
ferry_err manifest_meta_get(
    struct manifest *m, const char *name, char *buf, size_t buflen) FERRY_WUR;

/*
 * Remote records.  Writes are batched in one write transaction that
 * manifest_commit() (or close) commits; get sees pending writes.  Keys
 * are 1 to MANIFEST_KEY_MAX bytes (FERRY_EUSAGE otherwise); deleting an
 * absent key succeeds.
 */
ferry_err manifest_remote_get(struct manifest *m, const char *key,
    size_t keylen, struct manifest_remote *out) FERRY_WUR; /* ENOTFOUND */
ferry_err manifest_remote_put(struct manifest *m, const char *key,
    size_t keylen, const struct manifest_remote *r) FERRY_WUR;
ferry_err manifest_remote_del(
    struct manifest *m, const char *key, size_t keylen) FERRY_WUR;
ferry_err manifest_local_get(struct manifest *m, const char *key, size_t keylen,
    struct manifest_local *out) FERRY_WUR; /* ENOTFOUND */
ferry_err manifest_local_put(struct manifest *m, const char *key, size_t keylen,
    const struct manifest_local *r) FERRY_WUR;
ferry_err manifest_local_del(
    struct manifest *m, const char *key, size_t keylen) FERRY_WUR;
/* The uploads table: the same rules, keyed like the remote table. */
ferry_err manifest_upload_get(struct manifest *m, const char *key,
    size_t keylen, struct manifest_upload *out) FERRY_WUR; /* ENOTFOUND */
ferry_err manifest_upload_put(struct manifest *m, const char *key,
    size_t keylen, const struct manifest_upload *r) FERRY_WUR;
ferry_err manifest_upload_del(
    struct manifest *m, const char *key, size_t keylen) FERRY_WUR;
ferry_err manifest_commit(struct manifest *m) FERRY_WUR;
/*
 * Commits, then has what is committed reach the disk (the manifest is
 * opened without a sync at each commit): FERRY_OK or FERRY_EDB.
 */
ferry_err manifest_sync(struct manifest *m) FERRY_WUR;
/*
 * Has every later commit reach the disk before it returns (--fsync), so a
 * crash loses at most what was not committed: FERRY_OK or FERRY_EDB.
 */
ferry_err manifest_set_durable(struct manifest *m) FERRY_WUR;
/* Number of records in the local and remote tables. */
ferry_err manifest_count(
    struct manifest *m, uint64_t *nlocal, uint64_t *nremote) FERRY_WUR;
/* FERRY_EDB, with the rebuild hint, once a damaged record was read. */
ferry_err manifest_damaged(const struct manifest *m) FERRY_WUR;

/*
 * Ordered iteration over one table from a read snapshot taken at _new
 * (which first commits pending writes, so that the snapshot holds them).
 * next returns FERRY_OK with the key (NUL-terminated, valid until the
 * next call or free) and the decoded record, or FERRY_ENOTFOUND at the
 * end.  A record that does not decode is FERRY_EDB.  Free iterators
 * before manifest_close().
 */
struct manifest_iter;
enum manifest_table {
	MANIFEST_LOCAL,
	MANIFEST_REMOTE,
	MANIFEST_UPLOADS,
	MANIFEST_LISTED,
	MANIFEST_LISTED_SRC
};
ferry_err manifest_iter_new(struct manifest *m, enum manifest_table t,
    struct manifest_iter **out) FERRY_WUR;
ferry_err manifest_iter_local(struct manifest_iter *it, const char **key,
    size_t *keylen, struct manifest_local *rec) FERRY_WUR;
ferry_err manifest_iter_remote(struct manifest_iter *it, const char **key,
    size_t *keylen, struct manifest_remote *rec) FERRY_WUR;
ferry_err manifest_iter_upload(struct manifest_iter *it, const char **key,
    size_t *keylen, struct manifest_upload *rec) FERRY_WUR;
void manifest_iter_free(struct manifest_iter *it);
/*
 * The LISTED tables hold an unsorted listing (a directory bucket's; _SRC a
 * mirror's source) to read back sorted with manifest_iter_remote().  clear
 * empties t (pending); put is remote_put's, but sets *dup and writes
 * nothing when key is there already.
 */
ferry_err manifest_listed_clear(
    struct manifest *m, enum manifest_table t) FERRY_WUR;
ferry_err manifest_listed_put(struct manifest *m, enum manifest_table t,
    const char *key, size_t keylen, const struct manifest_remote *r,
    int *dup) FERRY_WUR;

/*
 * Record encoding: a version byte and a fixed little-endian layout, then
 * length-prefixed strings.  encode writes at most MANIFEST_REC_MAX bytes
 * into buf and sets *len; decode refuses anything malformed with
 * FERRY_EPARSE (wrong version, short, over-long strings, trailing bytes).
 * A remote record with a version id is written as version 2, one without
 * as version 1, which ferry has always read; one with its stored metadata
 * (has_meta) as version 3 (4 with a version id); with the attributes'
 * ctime and hash (has_xattr) 4 more (5 to 8).  A local record with its
 * owner (has_owner) is written as version 2, one without as version 1.
 * Every version is decoded.
 */
#define MANIFEST_REC_MAX 2048
ferry_err manifest_local_encode(
    const struct manifest_local *r, uint8_t *buf, size_t *len) FERRY_WUR;
ferry_err manifest_local_decode(
    const uint8_t *buf, size_t len, struct manifest_local *r) FERRY_WUR;
ferry_err manifest_remote_encode(
    const struct manifest_remote *r, uint8_t *buf, size_t *len) FERRY_WUR;
ferry_err manifest_remote_decode(
    const uint8_t *buf, size_t len, struct manifest_remote *r) FERRY_WUR;
ferry_err manifest_upload_encode(
    const struct manifest_upload *r, uint8_t *buf, size_t *len) FERRY_WUR;
ferry_err manifest_upload_decode(
    const uint8_t *buf, size_t len, struct manifest_upload *r) FERRY_WUR;

/* Hashing. */
/*
 * Reads fd (a regular file) from its current offset to EOF, computing
 * XXH3-128 into xxh and, when md5 is not NULL, MD5 into md5; *nread gets
 * the byte count.  Holes are hashed as zeros, never read (sparse.h).
 */
ferry_err manifest_hash_fd(
    int fd, uint8_t xxh[16], uint8_t md5[16], uint64_t *nread) FERRY_WUR;

/*
 * The same digests of a file that is still being written, taken in
 * stretches from its start: each call hashes the len bytes after those
 * hashed so far, once they are all written (the ranges of a pull), by
 * pread, holes and bytes past the end as zeros (what the file holds once
 * its size is set).  One thread at a time; fd is not closed.
 */
struct manifest_fdhash;
ferry_err manifest_fdhash_new(
    int fd, int want_md5, struct manifest_fdhash **out) FERRY_WUR;
ferry_err manifest_fdhash_next(
    struct manifest_fdhash *f, uint64_t len) FERRY_WUR;
/* The digests of all the stretches (md5 only if asked for at the start)
 * and their length in *n. */
ferry_err manifest_fdhash_final(struct manifest_fdhash *f, uint8_t xxh[16],
    uint8_t md5[16], uint64_t *n) FERRY_WUR;
void manifest_fdhash_free(struct manifest_fdhash *f);

#endif
