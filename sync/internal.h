/*
 * internal.h: what the files of sync/ share: the options of a run, its
 * exit statuses, and the commands.  Private to sync/.
 */
#ifndef FERRY_SYNC_INTERNAL_H
#define FERRY_SYNC_INTERNAL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>

#include "manifest/hash.h"
#include "manifest/manifest.h"
#include "remote/digest.h"
#include "remote/ops.h"
#include "sync/filter.h"
#include "sync/plan.h"
#include "sync/shard.h"

/*
 * The manifest keeps ETags in buffers of its own size (manifest/ cannot
 * see remote/): the same as remote/'s bound, so that an ETag a listing
 * passed is never cut on its way to a record.
 */
_Static_assert(MANIFEST_ETAG_MAX == REMOTE_ETAG_MAX + 1,
    "the manifest's ETag buffer is remote/'s bound");

enum {
	EXIT_SYNCED = 0,
	EXIT_PARTIAL = 1,
	EXIT_USAGE = 2,
	EXIT_ABORTED = 3,
	EXIT_BUSY = 4 /* another run holds the manifest: nothing was done */
};
/* The exit status of a run that could not start or go on after e. */
int sync_exit_for(ferry_err e);

/* the part and range sizes chosen when none is given, within S3's
 * (remote/bounds.h): see sync_part_size() */
#define SYNC_AUTO_PART_MIN (8ULL << 20)
#define SYNC_AUTO_PART_MAX (128ULL << 20)
#define SYNC_AUTO_SPLIT 8
#define SYNC_AUTO_RANGE_MAX (64ULL << 20)
#define SYNC_AUTO_RANGE_SPLIT 16

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
	/* --preserve: a pull gives files the mode, owner and atime their
	 * objects carry (sync/posix.h) */
	int preserve;
	int links;         /* --links: symlinks go as objects (posix.h) */
	int links_outside; /* --links-outside: a pull makes any target */
	int keep_dirs;     /* --keep-dirs: empty folders go as "dir/" */
	int json;
	int quiet;
	int verbose;
	int progress; /* --progress: the updating line even off a terminal */
	int rebuild_manifest;
	int force;
	uint64_t max_delete; /* a count, when max_delete_pct < 0 */
	int max_delete_pct;  /* a percentage of the destination, or -1 */
	unsigned jobs;       /* --jobs, or the controller's start */
	int jobs_fixed;      /* --jobs given: no controller */
	uint64_t part_size;  /* 0: chosen for each object by its size */
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
	int64_t min_age, max_age;  /* seconds */
	struct planfile *plan;     /* apply: the plan being run (planfile.h) */
	struct remote_store store; /* where and how new objects are stored */
	struct remote_bwlimit bwlimit; /* --bwlimit */
	/* --source-inventory: the source's S3 Inventory manifest.json */
	const char *source_inventory;
	/* verify: the share of objects whose bytes are re-read, 0 to 100 */
	double sample_pct;
	int fsync;      /* a pull makes each file and the manifest durable */
	int versions;   /* ls: every version and delete marker */
	int at_given;   /* --at: a pull of the source as it was at that time */
	int64_t at;     /* seconds since the epoch */
	unsigned split; /* plan --split N: parts to write, or 0 */
	const char *split_prefix; /* their names, with 0 ... N-1 after */
	/* --shard-ranges FILE: the shard is a range of keys (shard.h) */
	const char *shard_ranges_arg;
	/* ls --ranges N: the cuts of N range shards, not the listing */
	unsigned ranges;
};

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
 * The folder of the manifest of the pair o->src, o->dst (--manifest DIR,
 * else the default one) into dir, of n bytes, without opening it.
 */
ferry_err sync_manifest_find(
    const struct sync_opts *o, char *dir, size_t n) FERRY_WUR;
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
/* verify.c: "ferry verify SOURCE DESTINATION".  Returns the exit status. */
int sync_verify(const struct sync_opts *opts);

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
