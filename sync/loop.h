/*
 * loop.h: the loop that runs the engine of a push, a mirror or a pull:
 * plans keys while requests have room, lets the network run, and after a
 * fatal error lets what is in flight end.  Private to sync/.
 */
#ifndef FERRY_LOOP_H
#define FERRY_LOOP_H

#include "sync/internal.h"

struct output;
struct sync_counts;

/* An engine as the loop sees it; each function is passed engine. */
struct sync_loop {
	void *engine; /* a struct push or a struct pull */
	struct remote *r;
	const int *done;         /* nothing left to plan */
	const unsigned *nactive; /* transfers not yet swept */
	unsigned max_active;
	ferry_err (*step)(void *engine); /* plans the next key */
	void (*advance)(void *engine);   /* starts what the transfers can */
	void (*sweep)(void *engine);     /* frees the transfers that ended */
	/*
	 * NULL, or called when nothing is left to plan: non-zero when it
	 * started again transfers that were put off (all that were left).
	 */
	int (*retry)(void *engine);
	/* for the progress line */
	struct output *out;
	const struct sync_counts *counts;
	const uint64_t *planned, *planned_bytes;
	/*
	 * NULL, or non-zero while work runs off the loop's thread: the loop
	 * then waits for its wakeup even with no request in flight.
	 */
	int (*pending)(void *engine);
};

/* When a run last committed its manifest. */
struct sync_commits {
	unsigned since; /* completions since then */
	int64_t last_ns;
};

/* Commits m after every few hundred completions and every second. */
void sync_note_completion(struct manifest *m, struct sync_commits *c);

/* Runs the merge and the transfers until both are done. */
ferry_err sync_loop_run(const struct sync_loop *l) FERRY_WUR;
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
