/*
 * opts.h: the options of a run, read-only once parsed, with its way
 * (push, pull, mirror) resolved once; its exit statuses; where its
 * manifest lives.  Seen from other wings through sync/run/run.h.
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
#include "remote/remote.h"
#include "sync/plan/plan.h"

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

/*
 * Which way a run's bytes go, resolved once from its two sides by
 * sync_way_of(): none for a command of one side (ls, apply before its
 * plan is read, manifest info by folder).
 */
enum sync_way {
	SYNC_WAY_NONE = 0,
	SYNC_WAY_PUSH,   /* a local tree to a bucket */
	SYNC_WAY_PULL,   /* a bucket to a local tree */
	SYNC_WAY_MIRROR, /* a bucket to a bucket */
	SYNC_WAY_LOCAL   /* neither side is a bucket: refused */
};

/* The way from src to dst (each a bucket URL or a local path, or NULL). */
static inline enum sync_way
sync_way_of(const char *src, const char *dst)
{
	if (src == NULL || dst == NULL)
		return SYNC_WAY_NONE;
	if (remote_is_url(src))
		return remote_is_url(dst) ? SYNC_WAY_MIRROR : SYNC_WAY_PULL;
	return remote_is_url(dst) ? SYNC_WAY_PUSH : SYNC_WAY_LOCAL;
}

/* Whether a run of way w reads its source from a bucket. */
static inline int
sync_way_from_bucket(enum sync_way w)
{
	return w == SYNC_WAY_PULL || w == SYNC_WAY_MIRROR;
}

/* The command of a run, resolved once from its word. */
enum sync_cmd {
	SYNC_CMD_NONE = 0,
	SYNC_CMD_SYNC,
	SYNC_CMD_PLAN,
	SYNC_CMD_APPLY,
	SYNC_CMD_LS,
	SYNC_CMD_MANIFEST,
	SYNC_CMD_VERIFY
};

/* The command line, read-only once parsed. */
struct sync_opts {
	const char *command; /* "sync", "ls": the word, for messages */
	enum sync_cmd cmd;   /* the same, resolved */
	const char *src;
	const char *dst;
	enum sync_way way; /* from src and dst, resolved once */
	int delete;
	int dry_run;
	int checksum;
	int size_only;
	int follow_symlinks; /* -L: a push walks what symlinks point to */
	/* --preserve: a pull gives files the mode, owner and atime their
	 * objects carry (sync/posix.h) */
	int preserve;
	/* -X, --xattrs and -A, --acls: a file's user.* extended attributes
	 * and its access ACL go with its object and come back on a pull
	 * (sync/engine/xattr.h) */
	int xattrs, acls;
	int links;         /* --links: symlinks go as objects (posix.h) */
	int links_outside; /* --links-outside: a pull makes any target */
	/* -H: a push sends the names of one inode once, the others as
	 * copies marked with the first key; a pull links them again */
	int hard_links;
	int keep_dirs; /* --keep-dirs: empty folders go as "dir/" */
	/* --track-renames: a push's new key whose content a key it deletes
	 * holds is a server-side copy of it (sync/up/rename.c) */
	int track_renames;
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
	/*
	 * server-side copies go in parts (UploadPartCopy) from this size:
	 * above 5 GiB, what one CopyObject copies, or from a
	 * --multipart-threshold given below it
	 */
	uint64_t copy_threshold;
	uint64_t memory;
	const char *manifest_dir;
	const char *shard_arg;     /* --shard I/N, as given */
	const char *shards_arg;    /* --shards N, as given */
	struct shard shard;        /* resolved from those and the environment */
	struct remote_opts remote; /* the destination, or both sides */
	struct remote_opts src_remote; /* the source side of a mirror */
	int src_given;                 /* a --source-* flag was given */
	struct filter *filter;
	/* a push's files left out besides: those sync --watch finds still
	 * being written (filter_skip_paths()), or NULL; never the user's */
	struct filter *hold;
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
	int sparse;     /* a pull leaves blocks of zeros as holes */
	int versions;   /* ls: every version and delete marker */
	int at_given;   /* --at: a pull of the source as it was at that time */
	int64_t at;     /* seconds since the epoch */
	unsigned split; /* plan --split N: parts to write, or 0 */
	const char *split_prefix; /* their names, with 0 ... N-1 after */
	/* --shard-ranges FILE: the shard is a range of keys (shard.h) */
	const char *shard_ranges_arg;
	/* ls --ranges N: the cuts of N range shards, not the listing */
	unsigned ranges;
	/* --metrics-file PATH: a sync's or an apply's metrics (metrics.h) */
	const char *metrics_file;
	/* --backup-dir: what a sync overwrites or deletes is kept there
	 * first, under the run's date; NULL: not kept (backup.h, cli.c) */
	const char *backup_dir;
	/* resolved from it: a push's or mirror's bucket and prefix, the
	 * date's folder ending it ("old/2026-12-06T023000Z/"), on the
	 * destination's endpoint */
	struct remote_loc backup;
	/* a pull's: the absolute path of the date's folder (malloc'd) */
	char *backup_path;
	/* --watch: a sync goes on after its run (sync/watch/): a push's
	 * runs follow inotify events, a pull's or a mirror's polls of the
	 * source's listing; --watch-settle, --watch-rescan (a push's) and
	 * --watch-interval (a poll's) in seconds */
	int watch;
	int64_t watch_settle;
	int64_t watch_rescan; /* 0: no periodic full run */
	int64_t watch_interval;
	/* a run made by a watcher: what it did is told in *ran at its end,
	 * and a source side with nothing holds its deletes (output.h);
	 * NULL in a one-off run */
	struct sync_ran *ran;
	/* set by the watcher for each of its runs (NULL in any other):
	 * what its progress line adds, valid for the run */
	const struct sync_watching *watching;
};

/* A watcher's counts, shown on the progress line of its runs. */
struct sync_watching {
	uint64_t pending; /* events seen, not yet run to the end */
	uint64_t sent;    /* objects it sent before this run */
	/* called with arg as the run moves on (its scan at each file, its
	 * transfer loop at least every 0.1 s): the service manager's
	 * watchdog is pinged from there during a run */
	void (*tick)(void *arg);
	void *arg;
};

/* manifest.c */
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
