/*
 * output.h: where the events of a run go (JSON lines on stdout, or words
 * on stderr), the progress line and the counts for the summary.  Private
 * to sync/.
 */
#ifndef FERRY_SYNC_OUTPUT_H
#define FERRY_SYNC_OUTPUT_H

#include "sync/run/opts.h"

/* Counts of a run, for the summary. */
struct sync_counts {
	uint64_t uploaded, downloaded, copied, deleted, skipped, failed;
	uint64_t checked;
	uint64_t metadata; /* objects given new metadata, no byte sent */
	/* -H: names of one file sent as copies of its first (push), or
	 * made links to it (pull) */
	uint64_t linked;
	/* objects copied from a key the run deletes (--track-renames) */
	uint64_t renamed;
	uint64_t left_out; /* local entries neither files nor folders */
	/* what was overwritten or deleted, kept first (--backup-dir) */
	uint64_t backed_up;
	uint64_t bytes;
};

/*
 * What a run made by a watcher (sync --watch) tells it at its end
 * (struct sync_opts's ran): the run's counts, and the deletes it held
 * back because its source side had nothing (an empty folder, a prefix
 * that lists no key), whatever --force says, so that a lost source
 * never empties the destination.
 */
struct sync_ran {
	struct sync_counts counts;
	uint64_t held;
};

/* Where events go: JSON lines on stdout, or words on stderr. */
struct output {
	int json;
	int quiet;
	int verbose;
	int dry_run;
	int plan; /* writing a plan file (ferry plan): its lines only */
	int64_t started_ns;
	int64_t ended_ns; /* set by output_seconds(), or 0 */
	int progress;     /* an updating line on stderr */
	int64_t last_progress_ns;
	int progress_shown;         /* a line is on screen, to be cleared */
	char shard[SHARD_NAME_MAX]; /* "I/N", or "" */
	const char *moved;          /* "uploaded", "downloaded" or "copied" */
	const char *prefix;   /* see output_set_local(); NULL in a mirror */
	uint64_t expect_keys; /* source keys the run goes through; 0: unknown */
	uint64_t expect_files; /* the files the last scan found; 0: unknown */
	char concur[48];       /* "64 in flight (growing)", or "" */
	const struct sync_watching *watching; /* a watcher's run, or NULL */
};

/*
 * The version of the JSON event stream (ferry(1), JSON OUTPUT), in the
 * first line of each run: raised when a member changes meaning or goes
 * away, not when one is added.
 */
#define OUTPUT_EVENTS_VERSION 1

/*
 * Redraws the progress line (at most five times a second) with what c
 * counts so far and planned, the number of objects planned for transfer
 * and their bytes.  Until planned_all (nothing left to plan) those are
 * only what is planned so far: the line says so ("12+ objects"), and
 * when o->expect_keys is known it also shows the keys gone through out
 * of those ("2969/5469 keys") and an estimated ETA ("ETA ~40s").
 */
void output_progress(struct output *o, const struct sync_counts *c,
    uint64_t planned, uint64_t planned_bytes, int planned_all, int force);
/*
 * Sets o->expect_keys, for the progress line, from the manifest m of the
 * run of opts (not an apply), before its keys are planned: a push's
 * local files (as the scan just counted them), else the objects a pull
 * or mirror recorded, its count of the last run.  Nothing without a
 * progress line.
 */
void output_expect(
    struct output *o, const struct sync_opts *opts, struct manifest *m);
/*
 * Sets o->expect_files, before a scan with the manifest m, to the files
 * its last scan found (its local table), for output_scan_progress().
 * Nothing without a progress line.
 */
void output_expect_scan(struct output *o, struct manifest *m);
/*
 * Redraws the progress line, at most five times a second, while the
 * local folder is scanned: files counted (out of o->expect_files, when
 * known: "1200/~5469 files"), their bytes, files read.
 */
void output_scan_progress(
    struct output *o, uint64_t files, uint64_t bytes, uint64_t hashed);

/*
 * How a run of opts moves its objects, in the words of the summary:
 * "uploaded", "downloaded" or "copied" (a static string).
 */
const char *output_moved(const struct sync_opts *opts);
/*
 * Sets o up for a run of opts; with --json, writes the first line: a
 * plan file's header for ferry plan, else the start event.
 */
void output_init(struct output *o, const struct sync_opts *opts);
/*
 * The run has a local folder whose files are the objects under prefix
 * (valid while o is used): the events of a local file then name its path
 * in the folder as "path" beside its key.
 */
void output_set_local(struct output *o, const char *prefix);
/* An object written, deleted, or planned (dry run). */
void output_action(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason);
/*
 * An object written (an upload or a copy), with the version the server
 * named for it (version_id NULL or "": none), as the JSON event's
 * "version_id".
 */
void output_written(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *version_id);
/*
 * A planned action (dry run) with what it depends on: each side as the
 * plan saw it (NULL: absent), written into the JSON plan line.
 */
void output_planned(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason,
    const struct plan_entry *src, const struct plan_entry *dst);
/*
 * What --backup-dir kept before the run overwrote or deleted it (or, in
 * a dry run, would keep, kept being what the plan saw of it): the object
 * name[0..len), or with local the file at that path in the folder (a
 * pull's), size bytes, gone to to (an s3:// URL or a local path).
 */
void output_backup(struct output *o, const char *name, size_t len, int local,
    uint64_t size, const char *to, const struct plan_entry *kept);
/*
 * The same for a local file named by rel[0..len), its path in the folder
 * (a pull's deletes): the JSON line's key is the prefix followed by rel,
 * its path rel; a plan file keeps rel as the key.
 */
void output_planned_path(struct output *o, const char *type, const char *rel,
    size_t len, uint64_t size, const char *reason, const struct plan_entry *src,
    const struct plan_entry *dst);
/*
 * A local entry left out for its kind (what: "symlink", "fifo", "socket",
 * "device"), path its path in the folder: a JSON line, or a line on
 * stdout with --verbose.
 */
void output_left_out(struct output *o, const char *path, const char *what);
/* A failure for key (NULL: the run), with the recorded detail. */
void output_error(struct output *o, const char *key, size_t keylen, ferry_err e,
    const char *msg);
/* A failure for the object key of a local file (an upload, a download). */
void output_file_error(struct output *o, const char *key, size_t keylen,
    ferry_err e, const char *msg);
/* A failure for the local file at rel[0..len), its path in the folder. */
void output_path_error(struct output *o, const char *rel, size_t len,
    ferry_err e, const char *msg);
/*
 * One JSON error line of kind e on stdout, for a failure before or
 * outside a run (the command line, ls, manifest info).
 */
void output_json_error(ferry_err e, const char *msg);
/*
 * Reports the failure e recorded by ferry_fail() outside a run: on
 * stderr, and with json also as such a line.
 */
void output_failure(int json, ferry_err e);
/* What a watcher (sync --watch) tells beside its runs. */
struct output_watch {
	/* "watching", "run", "heartbeat", "held", "reload", "stop" */
	const char *event;
	const char *reason; /* why, or NULL */
	uint64_t pending;   /* events seen and not yet run */
	uint64_t runs;      /* runs done since the watcher began */
	uint64_t watched;   /* folders watched */
	int status;         /* the last run's exit status, or -1 */
	uint64_t sent;      /* objects sent since the watcher began */
	uint64_t held;      /* a run's files left out, being written */
};
/* With json, writes w as a "watch" line on stdout, flushed. */
void output_watch(int json, const struct output_watch *w);
/*
 * Puts the watcher's line between its runs in the progress line's place
 * on stderr: "watching: " and what it does ("idle, 3 pending, 12 sent");
 * NULL clears it, for a run's lines.
 */
void output_watch_line(const char *doing);
/* Whether a run of opts shows a progress line (--progress, or a tty). */
int output_progress_on(const struct sync_opts *opts);
/*
 * The run's length in seconds, up to its end: the first call marks the
 * end, so that the summary and the metrics file say the same.
 */
double output_seconds(struct output *o);
void output_summary(struct output *o, const struct sync_counts *c,
    const struct remote_stats *rs, int exit_status);
/*
 * A request being retried (a remote_retry_fn; arg is the struct output):
 * a JSON line with --json, but for a plan; the text line on stderr is
 * remote's, and the progress line is cleared for it.
 */
void output_retry(const struct remote_retry *t, void *arg);
/*
 * A decision of the controller of requests in flight (a
 * remote_concur_fn; arg is the struct output): a JSON line with --json,
 * but for a plan, and from then on in the progress line.
 */
void output_concur(const struct remote_concur *t, void *arg);
/* The controller's start, for the progress line only: no event. */
void output_concur_start(struct output *o, const struct remote *r);
/*
 * A condition the server refused, and what ferry does instead (a
 * remote_fallback_fn; arg is the struct output): a JSON line with --json,
 * but for a plan; the warning on stderr is remote's.
 */
void output_fallback(const struct remote_fallback *f, void *arg);
/*
 * Returns status, or EXIT_USAGE when a damaged record of m was read during
 * the run (said on o unless e, the error that ended it, said so).
 */
int sync_damage_status(
    struct output *o, const struct manifest *m, ferry_err e, int status);
/*
 * Returns a new NUL-terminated copy of the n bytes at s, which the caller
 * frees, in which each byte that does not belong to valid UTF-8 (and each
 * NUL) is U+FFFD; *valid says whether there were none.  NULL when out of
 * memory.
 */
char *output_utf8_text(const char *s, size_t n, int *valid);
/*
 * Adds the n bytes at s to the JSON object obj as the string name, each
 * byte that is not part of valid UTF-8 replaced by U+FFFD.  0, or -1
 * when memory ran out (obj then lacks it).
 */
struct cJSON;
int output_json_text(
    struct cJSON *obj, const char *name, const char *s, size_t n);
/*
 * Adds "key" so, and "key_base64" with the exact bytes if any was
 * replaced.  0, or -1 when memory ran out (obj then lacks them).
 */
int output_json_key(struct cJSON *obj, const char *key, size_t keylen);

#endif
