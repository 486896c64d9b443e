/*
 * push.h: the engine of a push (local tree to bucket): the merge of the
 * scanned tree with the listing, and the transfers it starts.  Private to
 * sync/.
 */
#ifndef FERRY_PUSH_H
#define FERRY_PUSH_H

#include <sys/stat.h>

#include "common/workq.h"
#include "sync/internal.h"
#include "sync/loop.h"
#include "sync/merge.h"
#include "sync/streams.h"

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
	XF_DONE
};

/* Where the bytes of a transfer come from. */
enum xfer_source {
	XS_FILE,  /* a local file */
	XS_COPY,  /* a source object on the same endpoint: server-side copy */
	XS_STREAM /* a source object elsewhere: GET, then PUT */
};

struct push;

/* One object on its way: a single PUT, a multipart upload or a check. */
struct xfer {
	struct push *p;
	struct xfer *next;
	enum xfer_state state;
	int multipart;
	char *key; /* relative to the prefix */
	size_t keylen;
	char *fullkey;
	struct manifest_local local; /* as scanned */
	/* the listed object, for checks */
	uint64_t dst_size;
	char dst_etag[MANIFEST_ETAG_MAX];
	int64_t dst_last_modified;
	/* single PUT */
	uint8_t *buf;
	size_t buflen;
	uint8_t hash[16]; /* of what was sent */
	uint8_t md5[16];
	int64_t sent_mtime_ns;
	/* multipart */
	int fd;
	char *upload_id;
	uint64_t part_size;
	uint32_t nparts, next_part, parts_done, parts_inflight;
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
	char early_etag[96]; /* as remote_resp.etag */
	/* resuming: the ETags of the parts the server holds ("": none) */
	char (*part_etag)[36];
	/* the server's ETags for parts where they are not the parts' MD5s
	 * (an encrypted object's), to name them by in the Complete ("":
	 * the MD5); NULL while there are none */
	char (*given_etag)[MANIFEST_ETAG_MAX];
	/* the check found the file's MD5 not the listed ETag: a HEAD tells
	 * whether that ETag is an MD5 at all (an encrypted object's is not) */
	int md5_differs;
	uint32_t list_marker, parts_reused;
	int failed;
	ferry_err err;
	char errmsg[512];
	int changed_once; /* already put off once for changing */
	int retry_later;
	/* mirrors */
	enum xfer_source source;
	char *src_key; /* full key of the source object */
	char src_etag[MANIFEST_ETAG_MAX];
	int have_src_head;
	char *meta; /* the source's headers to carry (remote_resp.meta) */
};

/* At most this many idle part buffers are kept. */
#define XFER_POOL_MAX 64

struct push {
	const struct sync_opts *o;
	struct output out;
	struct sync_counts counts;
	struct remote *r;
	struct manifest *m;
	struct remote_loc loc;
	int rootfd;
	struct plan_opts popts;
	char *root; /* push: the real path of the local folder */
	/* the merge: the scanned tree (push) or the source listing (mirror,
	 * counted in mg.nlocal) with the destination listing */
	struct merge mg;
	struct merge_list src;
	/* mirrors: the source side */
	struct remote *sr;
	struct remote_loc sloc;
	enum xfer_source source;
	/* plans the next key: the push's or the mirror's merge */
	ferry_err (*merge_step)(struct push *p);
	/* transfers */
	uint64_t planned, planned_bytes; /* for the progress line */
	struct xfer *active;
	unsigned nactive;
	uint64_t mem_used;
	/* bytes of file parts, read as they are sent: being sent (within
	 * --memory, for the server's sake), and in flight, their replies
	 * awaited too (within twice that) */
	uint64_t parts_out, parts_alive;
	/* the parts of files being sent, and how many may be (streams.h) */
	unsigned parts_sending;
	struct streams streams;
	/* the server's part ETags proved not to be MD5s: no part goes out
	 * before its MD5 is known */
	int etag_not_md5;
	/* reads of files off the loop's thread; reads counts them, for
	 * the window; stopping: what they read is not sent any more */
	struct workq *wq;
	unsigned reads;
	unsigned jobs; /* on the workers, reads or hashes */
	int stopping;
	/* idle part buffers, kept for the next parts: mem_used + pool_bytes
	 * stays within --memory */
	struct pool_buf {
		uint8_t *buf;
		size_t cap;
	} pool[XFER_POOL_MAX];
	unsigned npool;
	uint64_t pool_bytes;
	struct sync_commits commits;
	/* deletes, kept in a temporary file until the end */
	FILE *deletes;
	uint64_t ndeletes;
	uint64_t scan_errors;
	int fatal;
};

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
 * has.  *fd is the caller's to close.  Thread-safe.
 */
ferry_err xfer_open_local(struct xfer *x, int *fd, struct stat *st) FERRY_WUR;
int64_t ts_ns(const struct timespec *t);
int stat_same(const struct stat *a, const struct stat *b);
int stat_matches_scan(const struct stat *st, const struct manifest_local *l);
/* Writes the manifest record of what is now under the key. */
void xfer_record(struct xfer *x, uint64_t size, const char *etag,
    const uint8_t *hash, int64_t mtime_ns, uint64_t part_size);
/*
 * What the new object of x carries: for a file, its type by extension
 * (mime.h), hash (16 bytes, borrowed) and mtime; for a source object, its
 * headers, as the source's HEAD or GET gave them.
 */
void xfer_put_opts(const struct xfer *x, const uint8_t hash[16],
    int64_t mtime_ns, struct remote_put *o);
void xfer_uploaded(struct xfer *x, uint64_t size);
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
/* A copy or streamed transfer of the source object src (mirror). */
ferry_err xfer_begin_copy(struct push *p, enum plan_action a,
    const struct remote_obj *src, const struct remote_obj *dst) FERRY_WUR;
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
/* Starts what the active transfers can start now. */
void xfer_advance(struct push *p);
/* Frees the finished transfers. */
void xfer_sweep(struct push *p);
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
/* Reads len bytes at off; FERRY_ECHANGED when the file has fewer. */
ferry_err xfer_pread_full(
    int fd, uint8_t *buf, size_t len, uint64_t off) FERRY_WUR;
/*
 * Runs r's job now, or on a worker when len bytes are worth the trip; its
 * done follows at once or from xfer_advance().  Counted as nreads in
 * p->reads until done: one for each request that will send what it reads.
 */
void xfer_read_submit(
    struct push *p, struct xfer_read *r, size_t len, unsigned nreads);
/*
 * Called first by the done of r, a job of xfer_read_submit(): frees r and
 * returns how the read went (with ferry_errmsg() set on this thread).
 */
ferry_err xfer_read_done(struct push *p, struct xfer_read *r) FERRY_WUR;
/* Waits for the reads under way; what they read is dropped. */
void xfer_reads_stop(struct push *p);
void xfer_free(struct xfer *x);

/* engine.c: what a push and a mirror share */
ferry_err push_gather_delete(
    struct push *p, const struct remote_obj *o) FERRY_WUR;
/*
 * Advances the destination listing past objects the run does not want,
 * counting in mg.nremote every object of the run's shard.
 */
ferry_err push_next_remote(struct push *p) FERRY_WUR;
/* Runs the merge and the transfers until both are done. */
ferry_err push_run(struct push *p) FERRY_WUR;
void push_close(struct push *p);
/*
 * Runs a whole push or mirror: open() sets up the sides and the manifest
 * and p->merge_step, start() begins the merge; then the transfers, the
 * deletes, the summary.  Returns the exit status.
 */
int push_execute(const struct sync_opts *o, ferry_err (*open)(struct push *),
    ferry_err (*start)(struct push *));
/* push.c, mirror.c: the sides and the manifest of a push or a mirror. */
ferry_err push_open(struct push *p) FERRY_WUR;
ferry_err mirror_open(struct push *p) FERRY_WUR;
/*
 * apply.c: the condition on the object a PUT that applies a plan
 * replaces: absent, or with the ETag the plan saw.
 */
void apply_put_cond(const struct xfer *x, struct remote_put *o);
/* delete.c */
/* Runs the deletes gathered during the merge, if they are allowed. */
void push_deletes(struct push *p);

/* resume.c: multipart uploads that outlive a run */
/*
 * Resumes the upload the manifest keeps for x's key when it fits x: asks
 * ListParts (state XF_MP_RESUME_SENT).  Aborts it first when it does not
 * fit, then creates a new one.  FERRY_ENOTFOUND when there is none.
 */
ferry_err resume_try(struct xfer *x) FERRY_WUR;
/* Keeps x's new upload in the manifest; resume_forget() drops it. */
void resume_record(struct xfer *x);
void resume_forget(struct xfer *x);
/*
 * Notes part number of size bytes and ETag etag as listed by the server;
 * returns non-zero when it is a part x can keep (number, size and an MD5
 * ETag that fit the upload).
 */
int resume_note_part(
    struct xfer *x, uint32_t number, uint64_t size, const char *etag);
/*
 * Whether part number, whose local bytes have their MD5 in x->part_md5, is
 * on the server already: its listed ETag is that MD5.
 */
int resume_part_there(struct xfer *x, uint32_t number);
/* Aborts an upload now; non-zero when it is gone (aborted or unknown). */
int resume_abort_upload(struct push *p, const char *key, const char *upload_id);
/* Whether the manifest keeps this upload of the full key key. */
int resume_owns(struct push *p, const char *key, const char *upload_id);
/* Drops the records of uploads whose id is not among ids (the open ones). */
void resume_forget_gone(struct push *p, char *const *ids, size_t n);
/* At the end of a run: aborts the kept uploads no key took up. */
void resume_sweep(struct push *p);

/* Commits the manifest every few hundred completions and every second. */
void push_note_completion(struct push *p);

#endif
