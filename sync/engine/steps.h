/*
 * steps.h: what a push, a pull and a mirror hold alike: the options, the
 * output and its counts, the client and location of the bucket side, the
 * manifest, the local folder, the merge and the transfer engine, and the
 * deletes gathered on the way; and the steps of a run that use only these
 * (run.c).  The first member of struct push and struct pull.  Private to
 * sync/.
 */
#ifndef FERRY_SYNC_STEPS_H
#define FERRY_SYNC_STEPS_H

#include <stdio.h>

#include "sync/run/run.h"
#include "sync/merge/merge.h"
#include "sync/engine/transfer.h"

struct sync_run {
	const struct sync_opts *o;
	struct output out;
	struct sync_counts counts;
	struct remote *r; /* the bucket side (a mirror's destination) */
	struct manifest *m;
	struct remote_loc loc;
	int rootfd; /* the local folder, or -1 */
	struct plan_opts popts;
	/* the merge: the scanned tree (push, pull) or the source listing
	 * (mirror, counted in mg.nlocal) with the bucket side's listing */
	struct merge mg;
	struct transfer_engine eng; /* the transfers */
	/* deletes, kept in a temporary file until the end */
	FILE *deletes;
	uint64_t ndeletes;
	uint64_t ndeletes_read; /* of them, read back so far */
	/* of them, those whose bytes stay under another key (the sources
	 * of renames): no loss, not counted against --max-delete */
	uint64_t ndeletes_kept;
	uint64_t scan_errors;
	int fatal;
};

/* What the guard on the deletes says, in the words of the run's sides. */
struct sync_run_guard {
	const char *unread; /* some files of the scan could not be read */
	const char *failed; /* some transfers failed */
	const char *empty;  /* the source side is empty */
};

/* plan_push(), plan_pull() or plan_mirror() (plan.h). */
typedef void sync_run_planner(const struct plan_entry *src,
    const struct plan_entry *dst, const struct manifest_remote *rec,
    const struct plan_opts *o, struct plan_decision *out);

/*
 * Readies a zeroed run for o (not copied: it outlives the run): its
 * output and its transfer engine, no folder open.
 */
void sync_run_init(struct sync_run *run, const struct sync_opts *o);
/*
 * Opens the client of the bucket side into run->r, its retries told on
 * run->out.  Returns FERRY_OK, or the error with its detail recorded.
 */
ferry_err sync_run_remote_open(struct sync_run *run) FERRY_WUR;
/*
 * Opens the local folder path into run->rootfd, its real path into root
 * (PATH_MAX bytes).  FERRY_EUSAGE, naming it "<what> folder", when it
 * cannot be.
 */
ferry_err sync_run_root_open(struct sync_run *run, const char *path,
    const char *what, char *root) FERRY_WUR;
/*
 * Runs the merge (plan_next(planner) for each key, until run->mg.done) and
 * the transfers until both are done.  The caller may have set the
 * engine's turned and retry hooks before.
 */
ferry_err sync_run_loop(struct sync_run *run, void *planner,
    ferry_err (*plan_next)(void *planner)) FERRY_WUR;
/*
 * Plans the key at the head of run's merge into *d, c as merge_head() or
 * merge_head_lists() set it: the scanned file (src NULL) or src's object
 * (a mirror's source) against the listed object and the manifest's record
 * of it.  The listing is the destination, except in a pull (o->way).
 */
ferry_err sync_run_plan(struct sync_run *run, int c,
    const struct merge_list *src, sync_run_planner *plan,
    struct plan_decision *d) FERRY_WUR;
/*
 * Advances run's merge past the key just planned (c as for
 * sync_run_plan()): the scanned tree or src when c <= 0, the listing,
 * with all_in_shard as for merge_list_next(), when c >= 0.
 */
ferry_err sync_run_advance(struct sync_run *run, int c, struct merge_list *src,
    int all_in_shard) FERRY_WUR;
/*
 * Prints the planned action type of a dry run on key (relative to
 * run->loc's prefix, which is put before it).
 */
ferry_err sync_run_planned(struct sync_run *run, const char *type,
    const char *key, size_t keylen, uint64_t size, const char *reason,
    const struct plan_entry *src, const struct plan_entry *dst) FERRY_WUR;
/*
 * Keeps key (keylen bytes) and rec (reclen bytes) in the temporary file of
 * deletes, for the end of the run.  FERRY_ESYS when it cannot be written.
 */
ferry_err sync_run_delete_add(struct sync_run *run, const char *key,
    size_t keylen, const void *rec, size_t reclen) FERRY_WUR;
/*
 * Reads back the next delete kept: its key into key (MANIFEST_KEY_MAX + 1
 * bytes, NUL-terminated, length in *keylen), its record into rec.  1, 0
 * at the end, or -1 when the file fails before every delete kept was read
 * back (recorded: FERRY_ESYS, naming where the deletes stop).  The
 * first call after sync_run_deletes_allowed() reads the first delete.
 */
int sync_run_delete_next(
    struct sync_run *run, char *key, size_t *keylen, void *rec, size_t reclen);
/*
 * Non-zero when deletes were gathered and the guard lets them run: no
 * file of the scan unread, nfailed transfers failed, nsource keys on the
 * source side and ndest on the destination's.  When it does not, it
 * reports why in g's words and sets run->fatal; but in a watcher's run
 * (o->ran), a source side with no key holds the deletes without a fault,
 * counted in o->ran->held.
 */
int sync_run_deletes_allowed(struct sync_run *run,
    const struct sync_run_guard *g, uint64_t nfailed, uint64_t nsource,
    uint64_t ndest);
/* After the fatal error e: reports it, and ends what is in flight. */
void sync_run_fatal(struct sync_run *run, ferry_err e);
/* The exit status of a run that went to its end. */
int sync_run_status(const struct sync_run *run);
/*
 * The end of every run: the exit status from status and e, note(m, it)
 * when note is not NULL and the manifest open, the manifest committed
 * (synced with durable), the metrics file written (--metrics-file), the
 * summary printed with the requests rs (NULL: none were sent), the
 * counts told to a watcher (o->ran).  Returns the exit status.
 */
int sync_run_finish(struct sync_run *run, ferry_err e, int status,
    const struct remote_stats *rs, int durable,
    void (*note)(struct manifest *m, int status));
/*
 * Frees what the run holds: its transfers, merge, manifest, client,
 * location, deletes and folder.  Not run itself.
 */
void sync_run_close(struct sync_run *run);

#endif
