/*
 * xfer.h: the transfers of a push or a mirror: one object on its way and
 * the steps of each kind of transfer.  Seen from other wings through
 * sync/up/up.h.
 */
#ifndef FERRY_SYNC_XFER_H
#define FERRY_SYNC_XFER_H

#include <sys/stat.h>

#include "common/workq.h"
#include "sync/up/up.h"
#include "sync/engine/engine.h"

enum xfer_state {
	XF_CHECK,       /* compare content before deciding */
	XF_HEAD_SENT,   /* HEAD for the stored content hash in flight */
	XF_PUT_READY,   /* to read and send when memory allows */
	XF_PUT_READING, /* a worker reads and hashes the file */
	XF_PUT_SENT,
	XF_MP_CREATE_SENT,
	XF_MP_PARTS, /* parts to send or in flight */
	XF_MP_COMPLETE_SENT,
	XF_MP_ABORT_SENT,
	XF_MP_RESUME_SENT, /* ListParts, or the abort of an earlier upload */
	XF_SRC_HEAD_SENT,  /* mirror: HEAD of the source for its metadata */
	XF_GET_SENT,       /* streamed mirror: the source object coming in */
	XF_RETRY_LATER,    /* the file changed while read: again at the end */
	XF_BACKUP_SENT     /* the object to replace, copied to --backup-dir */
};

/* One object on its way: a single PUT, a multipart upload or a check. */
struct xfer {
	struct transfer t; /* t.listed: the destination object, if any */
	struct push *p;
	enum xfer_state state;
	int multipart;
	/* only the file's metadata goes: its object copied onto itself
	 * (in parts: source XS_COPY, the object its own source) */
	int metadata;
	/* single PUT */
	uint8_t *buf;
	size_t buflen;
	uint8_t hash[16]; /* of what was sent */
	uint8_t md5[16];
	int64_t sent_mtime_ns;
	/* a file's POSIX metadata, as opened (xfer_open_local()) */
	struct remote_posix posix;
	/* -X, -A: its extended attributes and ACL as metadata lines, as
	 * opened (xattr_read_fd()); NULL: none */
	char *xmeta;
	/* multipart */
	int fd;
	char *upload_id;
	/* a file's parts: part_md5 holds the first hashed; hashing: the
	 * parts of the batch being hashed (counted in parts_inflight) */
	uint32_t hashed;
	unsigned hashing;
	uint8_t (*part_md5)[16];
	/* part 1 went out before its MD5 was known: EARLY_SENT, then
	 * EARLY_ANSWERED with the server's ETag for it, to be checked
	 * against the MD5 once hashed, and EARLY_AGAIN while it goes again
	 * with its MD5 after the check failed */
	int early;
	char early_etag[REMOTE_ETAG_MAX + 1]; /* as remote_resp.etag */
	/* resuming: the ETags of the parts the server holds ("": none) */
	char (*part_etag)[36];
	/* the server's ETags for parts where they are not the parts' MD5s
	 * (an encrypted object's), to name them by in the Complete ("":
	 * the MD5); NULL while there are none */
	char (*given_etag)[MANIFEST_ETAG_MAX];
	uint32_t list_marker, parts_reused;
	int changed_once; /* already put off once for changing */
	int retry_later;
	/* the server refused its server-side copy's condition (a HEAD
	 * under it matched): copied streamed instead, at the end */
	int restream;
	int copy_checking; /* that HEAD is under way */
	/* mirrors */
	enum xfer_source source;
	char *src_key; /* full key of the source object */
	char src_etag[MANIFEST_ETAG_MAX];
	int have_src_head;
	char *meta; /* the source's headers to carry (remote_resp.meta) */
	char *src_version; /* the source's version to copy (--at); NULL */
	/* a copy of another object of this bucket (keycopy.c): its full
	 * key, its ETag (the copy's condition), its recorded part size, and
	 * where to count the copies made from it (NULL: nowhere); from_key
	 * NULL: none */
	char *from_key;
	char from_etag[MANIFEST_ETAG_MAX];
	uint64_t from_part_size;
	uint64_t *from_copied;
	int from_kind; /* enum keycopy_kind: what the copy is counted as */
	/* the hard link marker the object carries (-H); NULL: none */
	char *marker;
	/* the version written, in a versioned bucket: what the reply of
	 * the PUT, copy or Complete named; "": none */
	char version_id[MANIFEST_VERSION_ID_MAX];
	/* --backup-dir: the listed object is kept (backup.h), or could
	 * not be, and is left as it is */
	int backed_up, backup_failed;
};

/* The xfer whose engine part is t (its first member). */
static inline struct xfer *
xfer_of(struct transfer *t)
{
	return (struct xfer *)t;
}

/* xfer.c: what the transfers share. */

/*
 * A buffer of at least len bytes for a part: an idle one of the pool when
 * one fits, else a new one.  Its capacity goes to *cap, for xfer_buf_put.
 */
uint8_t *xfer_buf_get(struct push *p, size_t len, size_t *cap);
/* Gives a part buffer back: kept for reuse while memory allows. */
void xfer_buf_put(struct push *p, uint8_t *buf, size_t cap);
/* Frees the idle buffers. */
void xfer_pool_free(struct push *p);
void xfer_finish(struct xfer *x);
/* Reports the failure recorded by ferry_fail() and ends the transfer. */
void xfer_fail(struct xfer *x, ferry_err e);
/*
 * Opens the file of x to read, where the scan found it and only while it
 * is the file scanned (x->local): manifest_local_open(), whose returns it
 * has, and what it carries read into x->posix and, with -X or -A, its
 * attributes into x->xmeta (a failure to read them is this one's, the
 * file closed).  *fd is the caller's to close.  Thread-safe.
 */
ferry_err xfer_open_local(struct xfer *x, int *fd, struct stat *st) FERRY_WUR;
int64_t ts_ns(const struct timespec *t);
int stat_same(const struct stat *a, const struct stat *b);
int stat_matches_scan(const struct stat *st, const struct manifest_local *l);
/* Keeps the version the completed q (a PUT, copy or Complete) wrote. */
void xfer_written_version(struct xfer *x, const struct remote_req *q);
/*
 * Writes the manifest record of what is now under the key, with the
 * version xfer_written_version() kept.
 */
void xfer_record(struct xfer *x, uint64_t size, const char *etag,
    const uint8_t *hash, int64_t mtime_ns, uint64_t part_size);
/*
 * The content hash and the MD5 of the bytes in x->buf, into x (on any
 * thread).
 */
void xfer_digest_buf(struct xfer *x);
/*
 * What the new object of x carries: for a file, its type by extension
 * (mime.h), hash (16 bytes, borrowed) and mtime; for a source object, its
 * headers, as the source's HEAD or GET gave them.
 */
/* The hash of x->xmeta a record keeps (0: none).  Pure. */
uint64_t xfer_xattr_hash(const struct xfer *x);
void xfer_put_opts(const struct xfer *x, const uint8_t hash[16],
    int64_t mtime_ns, struct remote_put *o);
void xfer_uploaded(struct xfer *x, uint64_t size);
/*
 * A copy planned for x (its bytes not counted) goes as an upload of its
 * file instead, the next time the engine advances it.
 */
void xfer_upload_instead(struct xfer *x);
/*
 * A new transfer of key (copied; dst the listed object or NULL), in the
 * engine's active list, ready to start; NULL when out of memory.
 */
struct xfer *xfer_new(struct push *p, const char *key, size_t keylen,
    const struct remote_obj *dst);
/* Starts the work for a planned action on key (copied). */
ferry_err xfer_begin(struct push *p, enum plan_action a, const char *key,
    size_t keylen, const struct manifest_local *local,
    const struct remote_obj *dst) FERRY_WUR;
/* put.c, multipart.c, check.c: the steps of each kind of transfer. */
ferry_err start_put(struct xfer *x) FERRY_WUR;
ferry_err start_create(struct xfer *x) FERRY_WUR;
/* Sends CreateMultipartUpload for x, whose parts are counted already. */
ferry_err send_create(struct xfer *x) FERRY_WUR;
/*
 * Sends up to n of the parts of x hashed already; a part copy or a
 * streamed part is one at a time, whatever n.
 */
ferry_err start_part(struct xfer *x, unsigned n) FERRY_WUR;
/* Hashes the next batch of the parts of a file, when it is due. */
void hash_ahead(struct xfer *x);
/* How many parts of the file x may be sent now, the window aside. */
unsigned parts_ready(const struct xfer *x);
void start_abort(struct xfer *x);
void start_check(struct xfer *x);
/* verdicts.c: a push's answers to the content check (transfer_ops). */
void check_same(
    struct transfer *t, const uint8_t xxh[16], const struct remote_resp *s);
void check_differs(struct transfer *t, const char *reason);
void check_unhashed(
    struct transfer *t, ferry_err e, const struct remote_resp *s);
/*
 * metadata.c: sends the new metadata of the file of x, whose bytes its
 * object holds, by a copy of the object onto itself (or, refused, has x
 * uploaded).
 */
ferry_err start_metadata(struct xfer *x) FERRY_WUR;
/*
 * The metadata of the file of x as it is now, into x->posix: FERRY_OK
 * while the file is the one scanned, else FERRY_ECHANGED.
 */
ferry_err metadata_read(struct xfer *x) FERRY_WUR;
/*
 * The metadata copy in parts of x was refused (a server may compare
 * another ETag than it lists, as Swift does for a multipart object):
 * its file is uploaded instead, at the end, said once.
 */
void metadata_parts_refused(struct xfer *x);
/* A copy or streamed transfer of the source object src (mirror). */
ferry_err xfer_begin_copy(struct push *p, enum plan_action a,
    const struct remote_obj *src, const struct remote_obj *dst) FERRY_WUR;
/*
 * The reply of the copy q of x (copy.c): remote_copy_reply()'s, with the
 * version written kept, and a copy whose reply names no ETag a failure.
 */
ferry_err xfer_copy_reply(
    struct xfer *x, struct remote_req *q, char **etag) FERRY_WUR;
/*
 * The reply q (freed here) of a single copy that makes the object of x
 * from bytes the server holds, x's file as scanned (metadata.c,
 * keycopy.c).  1: the object made and recorded, part_size its part
 * size should its ETag be a multipart one; 0: the server refused (*changed
 * set when it refused the condition), x left to its caller; -1: x failed.
 */
int xfer_copy_settle(
    struct xfer *x, struct remote_req *q, uint64_t part_size, int *changed);
/* Request builders for the source side of a mirror (copy.c). */
ferry_err start_copy_object(struct xfer *x) FERRY_WUR;
ferry_err start_stream_get(struct xfer *x) FERRY_WUR;
ferry_err start_src_head(struct xfer *x) FERRY_WUR;
ferry_err start_part_copy(struct xfer *x) FERRY_WUR;
ferry_err start_part_stream(struct xfer *x) FERRY_WUR;
/* Sends part number of x from buf (taken over), counting it in flight. */
ferry_err send_part(
    struct xfer *x, uint32_t number, uint8_t *buf, size_t len) FERRY_WUR;
/* The length of part number (1-based) of x. */
uint64_t part_len(const struct xfer *x, uint32_t number);
/* A part has come back (e: how); completes the upload after the last. */
void part_finished(struct xfer *x, ferry_err e);
/* Fills u with the multipart upload of x and returns it (multipart.c). */
const struct remote_upload *xfer_upload(
    const struct xfer *x, struct remote_upload *u);
/* Whether the file of x is sent in one PUT read from the file as it goes,
 * holding no buffer (put.c). */
int put_streams(const struct xfer *x);
/* Sends x->buf (x->buflen bytes, hashed) with PUT (put.c). */
ferry_err send_put(struct xfer *x) FERRY_WUR;
/* Counts x in what the progress line shows as planned. */
void xfer_planned(struct xfer *x);
/* Starts again the transfers put off because their file changed. */
void xfer_retry_changed(struct push *p);
/* Whether another request may go out now (--jobs, lowered by SlowDown). */
int push_has_room(const struct push *p);
/* After the transfers' turn: measures how many parts go at once best. */
void xfer_turned(struct push *p);
/*
 * A read of a local file for a transfer: its job, what it is for (a part
 * or a transfer), and how it failed.
 */
struct xfer_read {
	struct workq_job job;
	void *arg;
	unsigned nreads; /* the requests of the window it stands for */
	ferry_err e;
	char msg[256];
};
/* On the worker: notes the failure e of r, with ferry_errmsg(). */
void xfer_read_failed(struct xfer_read *r, ferry_err e);
/*
 * Reads len bytes at off, holes as zeros made in memory (sparse.h);
 * FERRY_ECHANGED when the file has fewer, FERRY_ESYS when a read fails.
 */
ferry_err xfer_pread_full(
    int fd, uint8_t *buf, size_t len, uint64_t off) FERRY_WUR;
/*
 * Runs r's job now, or on a worker when len bytes are worth the trip; its
 * done follows at once or from the engine's turn.  Counted as nreads in
 * p->eng.reads until done: one for each request that will send what it reads.
 */
void xfer_read_submit(
    struct push *p, struct xfer_read *r, size_t len, unsigned nreads);
/*
 * Called first by the done of r, a job of xfer_read_submit(): frees r and
 * returns how the read went (with ferry_errmsg() set on this thread).
 */
ferry_err xfer_read_done(struct push *p, struct xfer_read *r) FERRY_WUR;
void xfer_free(struct xfer *x);

/*
 * applyput.c: the condition on the object a PUT that applies a plan
 * replaces: absent, or with the ETag the plan saw.
 */
void apply_put_cond(const struct xfer *x, struct remote_put *o);
/*
 * The same PUT of x again, its condition refused by the server: without
 * it, just after a HEAD under it finds the object as the plan saw it
 * (else x fails, changed).
 */
void apply_put_refused(struct xfer *x);

/*
 * keycopy.c: an object made from another of the same bucket, server-side.
 * Begins the transfer of the file l under key as a copy of the object
 * from->key (relative to the prefix) while it has the ETag from->etag,
 * carrying the file's metadata and the hard link marker from->marker
 * (copied; NULL: none).  A file changed since the scan is uploaded
 * instead; so is one whose copy the server refuses: a refused condition
 * for that file alone, any other refusal for every later such copy of
 * the run, said once.  A copy made is counted as from->kind says, and in
 * *from->copied (NULL: nowhere).
 */
enum keycopy_kind {
	KEYCOPY_LINK,   /* another name of a file's inode (-H): "link" */
	KEYCOPY_RENAME, /* a key the run deletes (--track-renames): "rename" */
};
struct keycopy_from {
	const char *key;
	size_t keylen;
	const char *etag;
	uint64_t part_size; /* the object's recorded part size; 0: none */
	uint64_t *copied;
	const char *marker;
	enum keycopy_kind kind;
};
ferry_err xfer_begin_keycopy(struct push *p, const char *key, size_t keylen,
    const struct manifest_local *l, const struct keycopy_from *from) FERRY_WUR;
/* Sends the copy of x begun by xfer_begin_keycopy(). */
ferry_err start_keycopy(struct xfer *x) FERRY_WUR;

/* put.c */
/*
 * Reads the link or empty folder of x's scanned entry (a push with
 * --links or --keep-dirs) into x->buf (its target; x->buflen bytes), with
 * its hashes, mtime and metadata.  FERRY_ECHANGED when it is not what
 * the scan saw.  For a worker: touches x alone.
 */
ferry_err posix_xfer_read(struct xfer *x) FERRY_WUR;

#endif
