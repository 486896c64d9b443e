/*
 * verify.h: "ferry verify": the audit of a destination against its
 * source and the manifest (verify.c), and the re-reading of bytes it
 * asks for.  Private to sync/cmd/.
 */
#ifndef FERRY_VERIFY_H
#define FERRY_VERIFY_H

#include "sync/merge/merge.h"
#include "sync/run/run.h"

/*
 * The digests of a stream of bytes: XXH3-128, MD5, and, with a part size,
 * the MD5 of the MD5s of its parts (a multipart object's ETag).
 */
struct vhash {
	struct manifest_hash *xxh;
	struct remote_md5 *md5, *part, *outer;
	int failed;         /* a digest failed: they are not to be trusted */
	uint64_t part_size; /* 0: no parts */
	uint64_t in_part;   /* bytes of the current part so far */
	uint64_t total;
	uint32_t nparts;
};

/* One side of a verify: which of the two streams holds what. */
enum verify_way {
	VERIFY_PUSH,  /* local SOURCE, bucket DESTINATION */
	VERIFY_PULL,  /* bucket SOURCE, local DESTINATION */
	VERIFY_MIRROR /* bucket to bucket */
};

struct verify {
	const struct sync_opts *o;
	enum verify_way way;
	struct output out;
	struct sync_counts counts;
	struct remote *r;  /* DESTINATION's bucket, or a pull's SOURCE's */
	struct remote *sr; /* a mirror's SOURCE */
	struct remote_loc loc, sloc;
	int rootfd;
	struct manifest *m;
	char scratch[4096]; /* a manifest of our own, removed at the end */
	struct merge mg;
	struct merge_list src; /* a mirror's SOURCE listing */
	uint64_t seed;         /* which objects a sample takes */
	uint64_t objects, drift, unchecked, extra, bytes_read;
};

/*
 * Sets h up for a stream of parts of part_size bytes (0: no parts).
 * FERRY_ENOMEM, with h freed; vhash_free() accepts a zeroed h.
 */
ferry_err vhash_init(struct vhash *h, uint64_t part_size) FERRY_WUR;
void vhash_update(struct vhash *h, const void *p, size_t n);
/*
 * The XXH3-128 (canonical bytes) into xxh, and the ETag S3 gives the
 * bytes into etag (quoted; of a multipart object with h's part size when
 * it has one).  h may not be updated after.  FERRY_ESYS when a digest
 * failed on the way: then neither is to be trusted.
 */
ferry_err vhash_final(struct vhash *h, uint8_t xxh[16], char *etag, size_t n);
void vhash_free(struct vhash *h);
/*
 * Re-reads the DESTINATION's bytes of key (relative) and compares them
 * with what is known of them: the listed etag, the part size part_size
 * the manifest recorded (0: unknown), the content hash ferry stored with
 * the object, and want (the SOURCE file's hash in a push; NULL: none).
 * Reports drift or what cannot be checked.  FERRY_OK unless the run must
 * stop; a read that fails is reported and counted as failed.
 */
ferry_err verify_object_bytes(struct verify *v, const char *key, size_t keylen,
    const char *etag, uint64_t part_size, const uint8_t *want) FERRY_WUR;
/* The same for a pull: the local file at key, against its source object. */
ferry_err verify_file_bytes(struct verify *v, const char *key, size_t keylen,
    const char *etag, uint64_t part_size,
    const struct manifest_remote *rec) FERRY_WUR;

/* verify.c */
/*
 * The whole key of key (relative): the prefix of the bucket side that
 * is checked (a pull's SOURCE, else the DESTINATION) and key.  malloc'd,
 * for the caller to free; NULL when out of memory.
 */
char *verify_full_key(const struct verify *v, const char *key, size_t keylen);
/*
 * Reports one finding of kind ("missing", "size", ...) about key
 * (relative), and counts it as drift unless it is "unchecked".
 */
void verify_report(struct verify *v, const char *kind, const char *key,
    size_t keylen, const char *msg);

#endif
