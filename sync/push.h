/*
 * push.h: the engine of a push (local tree to bucket): the merge of the
 * scanned tree with the listing, and the transfers it starts.  Private to
 * sync/.
 */
#ifndef FERRY_PUSH_H
#define FERRY_PUSH_H

#include <sys/stat.h>

#include "sync/internal.h"

enum xfer_state {
	XF_CHECK,     /* compare content before deciding */
	XF_HEAD_SENT, /* HEAD for x-amz-meta-ferry-xxh128 in flight */
	XF_PUT_READY, /* to read and send when memory allows */
	XF_PUT_SENT,
	XF_MP_CREATE_SENT,
	XF_MP_PARTS, /* parts to send or in flight */
	XF_MP_COMPLETE_SENT,
	XF_MP_ABORT_SENT,
	XF_DONE
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
	uint8_t (*part_md5)[16];
	int failed;
	ferry_err err;
	char errmsg[512];
};

struct push {
	const struct sync_opts *o;
	struct output out;
	struct sync_counts counts;
	struct remote *r;
	struct manifest *m;
	struct remote_loc loc;
	int rootfd;
	struct plan_opts popts;
	/* the merge */
	struct manifest_iter *it;
	int lhave;
	const char *lkey;
	size_t lkeylen;
	struct manifest_local lrec;
	struct remote_list *list;
	int rhave;
	struct remote_obj robj;
	int merge_done;
	ferry_err list_err;
	uint64_t nlocal, nremote;
	/* transfers */
	struct xfer *active;
	unsigned nactive;
	uint64_t mem_used;
	unsigned since_commit;
	int64_t last_commit_ns;
	/* deletes, kept in a temporary file until the end */
	FILE *deletes;
	uint64_t ndeletes;
	uint64_t scan_errors;
	int fatal;
};

/* xfer.c: what the transfers share. */
void xfer_finish(struct xfer *x);
/* Reports the failure recorded by ferry_fail() and ends the transfer. */
void xfer_fail(struct xfer *x, ferry_err e);
ferry_err xfer_open_local(struct xfer *x, int *fd, struct stat *st) FERRY_WUR;
int64_t ts_ns(const struct timespec *t);
int stat_same(const struct stat *a, const struct stat *b);
int stat_matches_scan(const struct stat *st, const struct manifest_local *l);
/* Writes the manifest record of what is now under the key. */
void xfer_record(struct xfer *x, uint64_t size, const char *etag,
    const uint8_t *hash, int64_t mtime_ns, uint64_t part_size);
void xfer_hash_headers(struct remote_req *q, const uint8_t hash[16],
    int64_t mtime_ns, ferry_err *e);
void xfer_uploaded(struct xfer *x, uint64_t size);
void md5_etag(const uint8_t md5[16], char *out, size_t outlen);
/* Starts the work for a planned action on key (copied). */
ferry_err xfer_begin(struct push *p, enum plan_action a, const char *key,
    size_t keylen, const struct manifest_local *local,
    const struct remote_obj *dst) FERRY_WUR;
/* put.c, multipart.c, check.c: the steps of each kind of transfer. */
ferry_err start_put(struct xfer *x) FERRY_WUR;
ferry_err start_create(struct xfer *x) FERRY_WUR;
ferry_err start_part(struct xfer *x) FERRY_WUR;
void start_abort(struct xfer *x);
void start_check(struct xfer *x);
/* Starts what the active transfers can start now. */
void xfer_advance(struct push *p);
/* Frees the finished transfers. */
void xfer_sweep(struct push *p);
void xfer_free(struct xfer *x);

/* delete.c */
/* Runs the deletes gathered during the merge, if they are allowed. */
void push_deletes(struct push *p);

/* Commits the manifest every few hundred completions and every second. */
void push_note_completion(struct push *p);

#endif
