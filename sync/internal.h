/*
 * internal.h: what the files of sync/ share: the options of a run, the
 * output of events, and the engine of a push.  Private to sync/.
 */
#ifndef FERRY_SYNC_INTERNAL_H
#define FERRY_SYNC_INTERNAL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>

#include "manifest/manifest.h"
#include "remote/ops.h"
#include "sync/filter.h"
#include "sync/plan.h"
#include "sync/shard.h"

enum {
	EXIT_SYNCED = 0,
	EXIT_PARTIAL = 1,
	EXIT_USAGE = 2,
	EXIT_ABORTED = 3,
	EXIT_BUSY = 4 /* another run holds the manifest: nothing was done */
};
/* The exit status of a run that could not start or go on after e. */
int sync_exit_for(ferry_err e);

#define SYNC_MIN_PART (5ULL << 20)
#define SYNC_MAX_PART (5ULL << 30)
#define SYNC_MAX_PARTS 10000
/* the part and range sizes chosen when none is given: see
 * sync_part_size() */
#define SYNC_AUTO_PART_MIN (8ULL << 20)
#define SYNC_AUTO_PART_MAX (128ULL << 20)
#define SYNC_AUTO_SPLIT 8
#define SYNC_AUTO_RANGE_MAX (64ULL << 20)
#define SYNC_AUTO_RANGE_SPLIT 16
#define SYNC_MAX_OBJECT REMOTE_MAX_OBJECT

/* The command line, read-only once parsed. */
struct sync_opts {
	const char *command; /* "sync", "ls" */
	const char *src;
	const char *dst;
	int delete;
	int dry_run;
	int checksum;
	int size_only;
	int follow_symlinks; /* -L: a push walks what symlinks point to */
	int json;
	int quiet;
	int verbose;
	int progress; /* --progress: the updating line even off a terminal */
	int rebuild_manifest;
	int force;
	uint64_t max_delete; /* a count, when max_delete_pct < 0 */
	int max_delete_pct;  /* a percentage of the destination, or -1 */
	unsigned jobs;
	uint64_t part_size; /* 0: chosen for each object by its size */
	uint64_t multipart_threshold;
	uint64_t memory;
	const char *manifest_dir;
	const char *shard_arg;     /* --shard I/N, as given */
	const char *shards_arg;    /* --shards N, as given */
	struct shard shard;        /* resolved from those and the environment */
	struct remote_opts remote; /* the destination, or both sides */
	struct remote_opts src_remote; /* the source side of a mirror */
	int src_given;                 /* a --source-* flag was given */
	struct filter *filter;
	/* the source's size and age a run keeps (max_size UINT64_MAX, ages -1:
	 * no bound); the others are left alone on both sides */
	uint64_t min_size, max_size;
	int64_t min_age, max_age; /* seconds */
	struct planfile *plan;    /* apply: the plan being run (planfile.h) */
};

/* Counts of a run, for the summary. */
struct sync_counts {
	uint64_t uploaded, downloaded, copied, deleted, skipped, failed;
	uint64_t checked;
	uint64_t left_out; /* local entries neither files nor folders */
	uint64_t bytes;
};

/* Where events go: JSON lines on stdout, or words on stderr. */
struct output {
	int json;
	int quiet;
	int verbose;
	int dry_run;
	int plan; /* writing a plan file (ferry plan): its lines only */
	int64_t started_ns;
	int progress; /* an updating line on stderr */
	int64_t last_progress_ns;
	int progress_shown;         /* a line is on screen, to be cleared */
	char shard[SHARD_NAME_MAX]; /* "I/N", or "" */
	const char *moved;          /* "uploaded", "downloaded" or "copied" */
	const char *prefix; /* see output_set_local(); NULL in a mirror */
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
 * only what is planned so far: the line says so ("12+ objects") and
 * shows no ETA.
 */
void output_progress(struct output *o, const struct sync_counts *c,
    uint64_t planned, uint64_t planned_bytes, int planned_all, int force);
/*
 * Redraws the progress line, at most five times a second, while the
 * local folder is scanned: files counted, their bytes, files read.
 */
void output_scan_progress(
    struct output *o, uint64_t files, uint64_t bytes, uint64_t hashed);

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
 * A planned action (dry run) with what it depends on: each side as the
 * plan saw it (NULL: absent), written into the JSON plan line.
 */
void output_planned(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason,
    const struct plan_entry *src, const struct plan_entry *dst);
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
void output_summary(struct output *o, const struct sync_counts *c,
    const struct remote_stats *rs, int exit_status);
/*
 * A request being retried (a remote_retry_fn; arg is the struct output):
 * a JSON line with --json, but for a plan; the text line on stderr is
 * remote's, and the progress line is cleared for it.
 */
void output_retry(const struct remote_retry *t, void *arg);
/*
 * Returns status, or EXIT_USAGE when a damaged record of m was read during
 * the run (said on o unless e, the error that ended it, said so).
 */
int sync_damage_status(
    struct output *o, const struct manifest *m, ferry_err e, int status);
/*
 * Adds the n bytes at s to the JSON object obj as the string name, each
 * byte that is not part of valid UTF-8 replaced by U+FFFD.
 */
struct cJSON;
void output_json_text(
    struct cJSON *obj, const char *name, const char *s, size_t n);
/* Adds "key" so, and "key_base64" with the exact bytes if any was replaced. */
void output_json_key(struct cJSON *obj, const char *key, size_t keylen);

/* cli.c */
/*
 * Parses argv into opts.  Returns -1 to go on, or an exit status (0 after
 * --help, EXIT_USAGE after a message) to stop with.  argv is reordered:
 * the command word goes first, before options that preceded it, and
 * getopt_long() permutes the rest.
 */
int cli_parse(int argc, char **argv, struct sync_opts *opts);
void cli_clear(struct sync_opts *opts);

/* shard.c */
/*
 * Non-zero when the run syncs the key (relative to the sync root): the
 * filter keeps it and it is in the run's shard.
 */
int sync_key_wanted(const struct sync_opts *o, const char *key, size_t keylen);
/* The same as a manifest_scan_opts filter, opts being the sync_opts. */
int sync_scan_wanted(const char *path, int is_dir, void *opts);

/* info.c */
/*
 * Opens the run's manifest for the pair of normalized sides (src, dst):
 * in --manifest DIR, else in the default folder of the pair, which for a
 * sharded run is that of (src, "dst shard I/N").  *out as manifest_open.
 */
ferry_err sync_manifest_open(const struct sync_opts *o, const char *src,
    const char *dst, struct manifest **out) FERRY_WUR;
/*
 * Warns, with the detail of the last failure, that the manifest could not
 * be written: the run goes on, and the next one finds less recorded.
 */
void sync_manifest_warn(void);

/* push.c: local tree to bucket.  Returns the exit status. */
int sync_push(const struct sync_opts *opts);
/* pull.c: bucket to local tree.  Returns the exit status. */
int sync_pull(const struct sync_opts *opts);
/* mirror.c: bucket to bucket.  Returns the exit status. */
int sync_mirror(const struct sync_opts *opts);
/* info.c: "ferry manifest info".  Returns the exit status. */
int sync_manifest_info(const struct sync_opts *opts);
/* ls.c */
int sync_ls(const struct sync_opts *opts);
/* apply.c: "ferry apply PLAN" (opts->src names the plan file). */
int sync_apply(const struct sync_opts *opts);

/* xfer.c: the quoted hex ETag of a single-part object of MD5 md5. */
void md5_etag(const uint8_t md5[16], char *out, size_t outlen);
/* Whether etag is that of a single-part object: the MD5 of its bytes. */
int etag_is_md5(const char *etag);

/* Part size for an upload of size bytes: at least want (0: chosen by
 * size), at most 10,000 parts, a multiple of 1 MiB. */
uint64_t sync_part_size(uint64_t size, uint64_t want);
/* The same for the ranges of a download. */
uint64_t sync_range_size(uint64_t size, uint64_t want);
/* ceil(size / ps) for ps > 0, for any size. */
uint64_t sync_part_count(uint64_t size, uint64_t ps);

/* len bytes more within limit, used bytes counted already: always granted
 * when none are (--memory must let one part or range through). */
static inline int
sync_within(uint64_t used, uint64_t len, uint64_t limit)
{
	return used == 0 || used + len <= limit;
}

#endif
