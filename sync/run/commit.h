/*
 * commit.h: what the runs share around the transfer engine (transfer.h):
 * the manifest's commits, and after a fatal error letting what is in
 * flight end.  Seen from other wings through sync/run/run.h.
 */
#ifndef FERRY_LOOP_H
#define FERRY_LOOP_H

#include "sync/run/opts.h"

/* When a run last committed its manifest. */
struct sync_commits {
	unsigned since; /* completions since then */
	int64_t last_ns;
};

/* Commits m after every few hundred completions and every second. */
void sync_note_completion(struct manifest *m, struct sync_commits *c);

/*
 * The name of a bucket side in a manifest's identity, into out (n bytes):
 * "s3://BUCKET/PREFIX @ ENDPOINT".
 */
void sync_side_name(
    const struct remote_loc *loc, const struct remote *r, char *out, size_t n);
/*
 * Opens the manifest of a run between the real local path root and the
 * bucket side loc on r, the local side the source when push: *m as
 * sync_manifest_open().
 */
ferry_err sync_manifest_open_local(const struct sync_opts *o,
    const struct remote_loc *loc, const struct remote *r, const char *root,
    int push, struct manifest **m) FERRY_WUR;

/* How long a run that stops lets its requests in flight end. */
#define SYNC_DRAIN_SECONDS 30
/*
 * The time until which a run that stops now lets its requests in flight
 * end; after a signal, says so, and that a second one stops at once.
 */
int64_t sync_loop_drain_until(struct remote *r);
/*
 * Lets the requests in flight on r end, until now_mono_ns() is until or
 * the loop fails, then ends those left as failed.
 */
void sync_loop_drain(struct remote *r, int64_t until);

#endif
