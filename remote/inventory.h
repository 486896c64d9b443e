/*
 * inventory.h: an S3 Inventory read in place of a listing.  The inventory's
 * manifest.json (sourceBucket, creationTimestamp, fileFormat, fileSchema,
 * files with their size and MD5checksum) names gzip-compressed CSV data
 * files, each row one object: its bucket, its key (URL-encoded, '+' for a
 * space), and the fields fileSchema names.  The parsers (invparse.c) are
 * pure; the reader (inventory.c) fetches the data files on the multi loop.
 * Used by sync/mergeinv.c, the tests and the fuzz target.
 */
#ifndef FERRY_REMOTE_INVENTORY_H
#define FERRY_REMOTE_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "remote/bounds.h"
#include "remote/list.h"

/* Bounds on what an inventory may hold. */
#define INVENTORY_MANIFEST_MAX (64u << 20) /* manifest.json's bytes */
#define INVENTORY_FILES_MAX 1000000u       /* data files it names */
#define INVENTORY_LINE_MAX (256u << 10)    /* bytes of one CSV row */
#define INVENTORY_COLS_MAX 64              /* fields of fileSchema */
/*
 * What a data file may inflate to: manifest.json gives only its gzipped
 * size, so a ratio of that, with a floor for small files.  Real rows
 * gzip 5 to 35 times; every optional field, constant, with empty objects
 * under one long key prefix, made 241 times: 512 leaves room for them
 * and refuses a bomb, whose gzip nears 1,000 times.
 */
#define INVENTORY_INFLATE_RATIO 512u
#define INVENTORY_INFLATE_FLOOR (4u << 20)
/* Bytes inflated between two -v lines on one data file. */
#define INVENTORY_NOTE_BYTES (256u << 20)

/* The fields of a row ferry reads, by their fileSchema names. */
enum inventory_col {
	INV_BUCKET,        /* Bucket */
	INV_KEY,           /* Key */
	INV_SIZE,          /* Size */
	INV_MTIME,         /* LastModifiedDate */
	INV_ETAG,          /* ETag */
	INV_IS_LATEST,     /* IsLatest: versioned inventories */
	INV_DELETE_MARKER, /* IsDeleteMarker: versioned inventories */
	INV_NCOLS
};

struct inventory_file {
	char *key; /* in the bucket that holds manifest.json */
	uint64_t size;
	uint8_t md5[16];
};

/* What manifest.json says; every pointer owned, freed by _clear(). */
struct inventory_manifest {
	char *source_bucket;
	int64_t created_ms; /* creationTimestamp: ms since the epoch */
	int col[INV_NCOLS]; /* each field's place in a row, -1: absent */
	size_t ncols;       /* fields in a row */
	struct inventory_file *files;
	size_t nfiles;
};

/*
 * Parses manifest.json's len bytes at json into *out (zeroed first; on
 * failure nothing is left to free).  FERRY_EUSAGE for an inventory ferry
 * cannot use as it is (ORC or Parquet data, a schema without Size,
 * LastModifiedDate or ETag), FERRY_EPARSE for one that is malformed; the
 * message says which.  Pure, thread-safe.
 */
ferry_err inventory_manifest_parse(
    const char *json, size_t len, struct inventory_manifest *out) FERRY_WUR;
void inventory_manifest_clear(struct inventory_manifest *m);

/* One CSV row, parsed: pointers into the row's own buffers. */
struct inventory_row {
	struct buf fields; /* the unquoted fields, each NUL-terminated */
	struct buf key;    /* the decoded key */
	const char *bucket;
	uint64_t size;
	char etag[REMOTE_ETAG_MAX + 1]; /* quoted, as a listing gives it */
	const char *last_modified;
	int skip; /* a delete marker, or not the latest version */
};

/*
 * Makes r ready for inventory_row_parse(); inventory_row_free() frees
 * what its buffers hold (r itself is the caller's; NULL is fine).
 */
void inventory_row_init(struct inventory_row *r);
void inventory_row_free(struct inventory_row *r);
/*
 * Parses one CSV line (len bytes, no line end) of a data file whose
 * schema is m's into r, valid until the next call on r.  Fields are
 * separated by ',', may be quoted with '"' (a doubled '"' inside stands
 * for one); the key is URL-decoded.  FERRY_EPARSE with the reason for a
 * row with too few or too many fields, a quote left open, a key that does
 * not decode or holds a NUL, a size that is not a number.  Pure.
 */
ferry_err inventory_row_parse(const struct inventory_manifest *m,
    const char *line, size_t len, struct inventory_row *r) FERRY_WUR;

/*
 * The most bytes a data file of gz_size gzipped bytes may inflate to
 * (INVENTORY_INFLATE_*), UINT64_MAX past its range.  Pure.
 */
uint64_t inventory_inflate_max(uint64_t gz_size);

/* Called for each object under the prefix; non-FERRY_OK stops the read. */
typedef ferry_err (*remote_inventory_fn)(const struct remote_obj *o, void *arg);

/*
 * Reads the inventory whose manifest.json is at url ("s3://BUCKET/KEY")
 * through r: its data files, at most jobs at a time, each checked against
 * the size and MD5checksum manifest.json gives and gunzipped as it
 * arrives.  Each row of bucket under prefix is checked as a listed entry
 * is (listcheck.h: size, date) and handed to fn with its key relative to
 * prefix, in no particular order; delete markers and older versions are
 * left out.  *created is the inventory's creationTimestamp, in seconds.
 * FERRY_EUSAGE for an inventory of another bucket or one ferry cannot
 * read; FERRY_EPARSE for a damaged one, or one that inflates past
 * inventory_inflate_max() (the message names the data file); with -v, a
 * line for each data file read and each INVENTORY_NOTE_BYTES inflated;
 * else the failure of a request or of fn.  Runs the loop; when
 * the loop itself fails, ends what is in flight on it (remote_end_all()),
 * so call it while r has nothing else under way.
 */
ferry_err remote_inventory_read(struct remote *r, const char *url,
    const char *bucket, const char *prefix, unsigned jobs,
    remote_inventory_fn fn, void *arg, int64_t *created) FERRY_WUR;

#endif
