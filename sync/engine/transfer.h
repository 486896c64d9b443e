/*
 * transfer.h: the one engine that runs the transfers of a push, a pull, a
 * mirror and an apply.  Seen from other wings through sync/engine/engine.h.
 *
 * How a transfer flows.  A planner (push.c, pull.c, mirror.c, apply.c)
 * turns the next key into a transfer of its kind, whose first member is a
 * struct transfer: xfer.h's (a file or an object to an object, whole or in
 * parts) or pull.h's (an object to a file, whole or in ranges), and
 * transfer_add() appends it to the one active list.  transfer_engine_run()
 * plans while fewer than 2 x --jobs are active and the window has room;
 * at each turn every transfer, oldest first, starts what the window and
 * --memory allow (ops->advance).  Replies move it on; the content check
 * (check.c) may end it at once.  Every failure goes through
 * transfer_fail(); transfer_finish() marks it done and the sweep frees it.
 */
#ifndef FERRY_SYNC_TRANSFER_H
#define FERRY_SYNC_TRANSFER_H

#include "sync/run/run.h"

struct output;
struct transfer;
struct workq;

/* What a kind of transfer does at each turn of the engine. */
struct transfer_ops {
	/* starts what t can start now, within the window and --memory */
	void (*advance)(struct transfer *t);
	/*
	 * NULL, or non-zero when the first failure e of t is put off (to be
	 * tried again) rather than reported
	 */
	int (*put_off)(struct transfer *t, ferry_err e);
	/* after a failure: ends t, or what is left of it in flight */
	void (*settle)(struct transfer *t);
	/*
	 * the content check's verdicts (check.c); s: the HEAD's reply, or
	 * NULL when the ETag answered
	 */
	void (*same)(struct transfer *t, const uint8_t xxh[16],
	    const struct remote_resp *s);
	void (*differs)(struct transfer *t, const char *reason);
	/* no content hash to compare: the HEAD's reply s (e: how it went) */
	void (*unhashed)(
	    struct transfer *t, ferry_err e, const struct remote_resp *s);
	/*
	 * NULL, or called after a fatal error, once the requests in flight
	 * ended: leaves nothing half-made behind (aborts an open upload)
	 */
	void (*stop)(struct transfer *t);
	void (*free)(struct transfer *t);
};

/* The object a transfer found listed at its destination or source. */
struct transfer_listed {
	uint64_t size;
	char etag[MANIFEST_ETAG_MAX];
	int64_t last_modified;
};

/* One transfer, as the engine sees it: the first member of every kind. */
struct transfer {
	const struct transfer_ops *ops;
	struct transfer_engine *eng;
	struct transfer *next;
	int done;
	char *key; /* relative to the prefix */
	size_t keylen;
	char *fullkey;
	struct manifest_local local; /* the local file, as scanned */
	struct transfer_listed listed;
	/* in parts (an upload's, a copy's) or ranges (a download's) */
	uint64_t part_size;
	uint32_t nparts, next_part, parts_done;
	uint32_t parts_inflight; /* and what else holds t open: a hash */
	/* the check found the file's MD5 not the listed ETag: a HEAD tells
	 * whether that ETag is an MD5 at all (an encrypted object's is not) */
	int md5_differs;
	/* a HEAD would not read the listed object (a version of --at): an
	 * MD5 that differs decides */
	int no_head;
	/* the version of the listed object to read (--at), borrowed from
	 * the transfer's owner; NULL: the current one */
	const char *version_id;
	int failed;
	ferry_err err;
	char errmsg[512];
};

/* The engine: one active list under --jobs, one run loop. */
struct transfer_engine {
	/* set by the planner */
	struct remote *r; /* the loop every request runs on */
	struct manifest *m;
	struct output *out;
	struct sync_counts *counts;
	const struct sync_opts *o;
	const int *planned_all; /* the planner has no key left */
	void *planner;
	ferry_err (*plan_next)(void *planner); /* plans the next key */
	/* NULL, or called after the transfers had their turn */
	void (*turned)(void *planner);
	/*
	 * NULL, or called when nothing is left to plan: non-zero when it
	 * started again transfers that were put off (all that were left)
	 */
	int (*retry)(void *planner);
	/*
	 * NULL, or does some of the work the planner put off until its
	 * requests are sent (idle_due pieces, counted by the planner): called
	 * while that count is not zero, each time the loop has sent what was
	 * ready and handed over the replies in
	 */
	void (*idle)(void *planner);
	unsigned idle_due;
	/* the engine's */
	struct transfer *active; /* oldest first */
	unsigned nactive;
	/* of those, the ones put off until nothing is left to plan (the
	 * planner's retry): they take no room among the transfers planned
	 * ahead, or enough of them would stop the planning they wait for */
	unsigned nparked;
	/* reads of local files under way: reads counts the requests that
	 * will send what they read, reading the reads themselves (some on
	 * workers, wq) */
	struct workq *wq;
	unsigned reads, reading;
	int stopping; /* what the reads read is not sent any more */
	/* --memory: bytes of buffers held (a single PUT's, a streamed
	 * copy's); bytes of parts or ranges being moved (within --memory,
	 * for the server's sake), and in flight, their replies awaited too
	 * (within twice that; a range's are the same) */
	uint64_t mem_used;
	uint64_t parts_out, parts_alive;
	uint64_t planned, planned_bytes; /* for the progress line */
	uint64_t failed;                 /* transfers that failed */
	struct sync_commits commits;
};

/* Readies eng, all zero, to report to out and counts (borrowed). */
void transfer_engine_init(struct transfer_engine *eng, struct output *out,
    struct sync_counts *counts, const struct sync_opts *o);
/*
 * Makes t (the first member of a zeroed transfer of its kind) a transfer
 * of eng for key (copied, with prefix before it in fullkey) and appends it
 * to the active list, which then owns it.  FERRY_ENOMEM leaves t out.
 */
ferry_err transfer_add(struct transfer_engine *eng, struct transfer *t,
    const struct transfer_ops *ops, const char *prefix, const char *key,
    size_t keylen) FERRY_WUR;
/*
 * A new transfer of eng for key, as transfer_add() makes it: size zeroed
 * bytes (a transfer of its kind, whose first member is the struct
 * transfer), with the size, ETag and date of listed (NULL: nothing
 * listed).  The active list owns it; NULL when out of memory.
 */
struct transfer *transfer_new(struct transfer_engine *eng, size_t size,
    const struct transfer_ops *ops, const char *prefix, const char *key,
    size_t keylen, const struct remote_obj *listed);
/* Frees the members of t that transfer_add() set (not t). */
void transfer_clear(struct transfer *t);
/* How many requests may start now: the window less those in flight. */
unsigned transfer_engine_room(const struct transfer_engine *eng);
/* Whether --memory lets a buffer of len bytes more be held. */
int transfer_engine_memory(const struct transfer_engine *eng, uint64_t len);
/*
 * Whether --memory lets one more part or range of len bytes go, more
 * bytes of others being started with it.
 */
int transfer_engine_parts(
    const struct transfer_engine *eng, uint64_t more, uint64_t len);
/* Lets every active transfer start what it can while there is room. */
void transfer_engine_advance(struct transfer_engine *eng);
/* Frees the transfers that are done. */
void transfer_engine_sweep(struct transfer_engine *eng);
/* Frees every transfer, done or not. */
void transfer_engine_clear(struct transfer_engine *eng);
/* Counts t's bytes (size) in what the progress line shows as planned. */
void transfer_planned(struct transfer *t, uint64_t size);
/* Marks t done and commits the manifest now and then. */
void transfer_finish(struct transfer *t);
/*
 * The one failure path: the failure e recorded by ferry_fail() is kept
 * and reported once (unless ops->put_off takes it), then ops->settle.
 */
void transfer_fail(struct transfer *t, ferry_err e);
/*
 * A part or range of t has ended (e: how), counted in flight no more:
 * fails t on the first failure, and settles it once none is out.  Returns
 * non-zero when it was the last part, all of them well.
 */
int transfer_part_ended(struct transfer *t, ferry_err e) FERRY_WUR;
/* Waits for the reads under way; what they read is dropped. */
void transfer_engine_reads_stop(struct transfer_engine *eng);
/*
 * The workers that read and hash files off the loop's thread, started on
 * first use; NULL once the reads are stopped, or when none could start
 * (said in -v): the caller then does the work itself.
 */
struct workq *transfer_engine_workers(struct transfer_engine *eng);
/*
 * After a fatal error or a signal: lets the requests in flight end (each
 * is one bounded request, for a while), then has every transfer stop
 * (ops->stop) and lets that end too, so that nothing half-made stays.
 */
void transfer_engine_drain(struct transfer_engine *eng);
/* Runs the planner and the transfers until both are done. */
ferry_err transfer_engine_run(struct transfer_engine *eng) FERRY_WUR;

/* check.c: the one content check. */
/*
 * Whether t's local file already holds its listed object: by the file's
 * MD5 against a single-part ETag, else by the content hash ferry stored
 * with the object (a HEAD on bucket), else ops->unhashed decides.  The
 * file is opened under rootfd only while it is the one scanned.  Ends in
 * one of t's ops (same, differs, unhashed) or transfer_fail().
 */
void transfer_check_start(
    struct transfer *t, const char *bucket, int rootfd, int follow);
/*
 * --dry-run: shows t as the check planned it (verb, reason), from its
 * local file (local_src) or its listed object, and counts it in *count
 * and its bytes in the run's.
 */
void transfer_check_dry_run(struct transfer *t, const char *verb,
    const char *reason, int local_src, uint64_t *count);

#endif
