/*
 * down.h: the face of sync/down/, which owns writing to a local folder:
 * a pull (bucket to local tree), the merge that plans it, its downloads
 * (GETs, whole or in ranges, into a temporary file, verified, given
 * their metadata and renamed into place), the safe resolution of keys
 * into paths under the target folder, the hard links a marker asks for
 * (-H, pulllink.c; pulldefer.c makes them without a GET where it can),
 * --track-renames' files moved to the new name of their object
 * (pullrename.c), and the deletes of local files; with --backup-dir, what is
 * overwritten or deleted moved aside first (keep.c). Includes sync/engine/ and
 * the wings below it, never sync/up/.
 */
#ifndef FERRY_PULL_H
#define FERRY_PULL_H

#include "sync/run/run.h"
#include "sync/engine/engine.h"

enum dl_state {
	DL_HEAD_SENT, /* HEAD for the stored content hash in flight */
	DL_READY,     /* to start when a request slot is free */
	DL_GET_SENT,  /* one GET streaming into the temporary file */
	DL_PARTS      /* ranged GETs to send or in flight */
};

struct pull;
struct dl;

/* The dl whose engine part is t (its first member). */
static inline struct dl *
dl_of(struct transfer *t)
{
	return (struct dl *)t;
}

/*
 * How a download that did not replace a file gets its name: written to an
 * unnamed file (O_TMPFILE) and linked in by its descriptor when verified,
 * or, where the file system or the kernel cannot do that, written to a
 * named temporary file and renamed.  The first new file of a pull finds
 * out which, with an empty unnamed file of its own.
 */
enum pull_link {
	PULL_LINK_UNKNOWN,
	PULL_LINK_EMPTY, /* linkat(fd, "", AT_EMPTY_PATH) */
	PULL_LINK_PROC,  /* linkat of /proc/self/fd/N, as open(2) shows */
	PULL_LINK_NONE   /* named temporary files only */
};

/* A folder under the root, shared by the downloads into it. */
struct pull_dir {
	unsigned refs;
	int fd;
	size_t len; /* of key */
	char key[]; /* the folder's path under the root */
};

/* What a response said about the object it carried. */
struct dl_meta {
	int have;
	char etag[REMOTE_ETAG_MAX + 1]; /* as struct remote_resp holds it */
	char hash[40];                  /* the content hash ferry stored */
	char mtime[32];                 /* the mtime ferry stored (ns) */
	char last_modified[64];
	uint64_t content_length;
	int has_content_length;
	int etag_opaque; /* remote_resp_etag_opaque(): no MD5 to check */
	struct remote_posix posix; /* mode, owner, times (sync/posix.h) */
	char hardlink[REMOTE_HARDLINK_MAX]; /* -H: its marker, as sent */
	/* -X, -A: the object's x-amz-meta-* lines, from the first GET's
	 * reply (malloc'd; NULL: none yet) */
	char *xmeta;
};

/*
 * Bytes received and not yet written, to go at file offset at: curl hands
 * a body over in pieces of up to 64 KiB, often less, and one pwrite serves
 * up to cap of the small ones.
 */
struct dl_pending {
	char *buf;
	size_t len, cap;
	uint64_t at;
	uint64_t end; /* the offset after the body's last byte */
	/* --sparse: below it, an attempt cut off wrote: all bytes go */
	uint64_t dense_end;
};

/* One object on its way down: a single GET, ranged GETs, or a check. */
struct dl {
	struct transfer t; /* t.key: the path under the root; t.listed: the
	                      object */
	struct pull *p;
	enum dl_state state;
	int ranged;
	char *version_id; /* --at: the version to read; NULL: the current */
	/* the temporary file, in the target's folder */
	struct pull_dir *dir;
	int dirfd; /* dir->fd, or -1 */
	int fd;    /* -1 until made; a single GET's, once its request is sent */
	/* in the pull's list of GETs sent whose files are to be made */
	struct dl *due_prev, *due_next;
	int due;
	size_t sparse_blk; /* --sparse: fd's block size; 0: zeros written */
	int exists;        /* the scan saw a file at the name */
	int unnamed;       /* fd is an O_TMPFILE, linked in at the end */
	char tmpname[32];  /* else its name, "" once renamed */
	const char *name;  /* the last component of key */
	uint64_t written;
	struct dl_pending pend; /* single GET */
	struct remote_req *get; /* single GET: the one in flight */
	int md5_on;             /* its response has no XXH3-128 of ferry's */
	struct remote_md5
	    *md5; /* single GET: digests of the bytes as written */
	struct manifest_hash *xxh;
	struct dl_meta meta;
	/* ranged GETs */
	struct dl_readback *rb; /* the file hashed as it grows (getrange.c) */
	ferry_err sink_err;     /* why a sink stopped a transfer */
	char sinkmsg[256];
};

struct pull {
	struct sync_run run; /* first: what a push has too */
	uint64_t rng;        /* names of temporary files */
	enum pull_link link; /* how an unnamed file gets its name */
	/* file keys that are prefixes of the last listed key, by length */
	char prev[MANIFEST_KEY_MAX];
	size_t prevlen;
	size_t files[MANIFEST_KEY_MAX];
	size_t nfiles;
	struct pull_dir *dir; /* the folder of the last download started */
	/* single GETs sent whose files are still to be made, oldest first */
	struct dl *due_head, *due_tail;
	mode_t umask;     /* the process's, read once at the start */
	int owner_warned; /* --preserve: an owner not given, said once */
	int setid_warned; /* set-id bits left off, said once */
	struct xattr_warned xattr_warned; /* -X, -A: said once */
	/* plans the next key: the merge, or the next action of a plan */
	ferry_err (*merge_step)(struct pull *p);
	/* -H: downloaded files to be made links (pulllink.c) */
	struct pull_hardlink *hl;
	size_t nhl, caphl;
	/* -H: objects whose download waits for a HEAD (pulldefer.c) */
	struct pull_defer *defer;
	/* --track-renames: new keys held back, files deleted as sources
	 * (pullrename.c) */
	struct pull_renames *renames;
};

/* download.c */
/*
 * Starts the work for a planned action (PLAN_GET, PLAN_RANGED_GET or
 * PLAN_CHECK) on key (copied); local is the scanned file or NULL.
 */
ferry_err dl_begin(struct pull *p, enum plan_action a, const char *key,
    size_t keylen, const struct remote_obj *obj,
    const struct manifest_local *local) FERRY_WUR;
/* An object listed whose download the merge held back, as listed. */
struct dl_held {
	char *key; /* malloc'd by its holder */
	size_t keylen;
	char *etag; /* malloc'd by its holder */
	uint64_t size;
	int64_t last_modified;
};
/* Begins the download of h as dl_begin() does (local as there). */
ferry_err dl_begin_held(struct pull *p, enum plan_action a,
    const struct dl_held *h, const struct manifest_local *local) FERRY_WUR;
/*
 * A round of the engine after the merge, for downloads held back:
 * plan_next(p) begins the next, and sets *all once none is left.
 * FERRY_OK once all have ended, or why the engine stopped.
 */
ferry_err dl_round_run(
    struct pull *p, int *all, ferry_err (*plan_next)(void *)) FERRY_WUR;
/* get.c */
/* Frees d, removing its temporary file if it is still there. */
void dl_free(struct dl *d);
/* Ends d: removes its temporary file if still there, notes the completion. */
void dl_finish(struct dl *d);
/*
 * Reports the failure recorded by ferry_fail() once, and ends the
 * transfer when no ranged GET of it is still in flight.
 */
void dl_fail(struct dl *d, ferry_err e);
/*
 * Makes the files of a few single GETs already sent (the engine's idle
 * hook): a download whose file cannot be made fails with its reply.
 */
void dl_make_due(struct pull *p);
/* Keeps what the first successful response said about the object. */
void dl_take_meta(struct dl *d, const struct remote_resp *s);
/* The object's mtime: the one ferry stored, else Last-Modified. */
int64_t dl_object_mtime_ns(const struct dl *d);
/* Writes the record of what is now under d's key. */
void dl_record_remote(struct dl *d, const char *etag, uint64_t size,
    const uint8_t xxh[16], int64_t mtime_ns);
/* Where key's file goes: *dirlen bytes of folder, then the name. */
const char *dl_key_name(const char *key, size_t keylen, size_t *dirlen);

/* pull.c */
/*
 * Opens the folder key[0..dirlen) under the root one component at a
 * time, never following a symbolic link (O_NOFOLLOW), creating missing
 * folders when create is non-zero.  *fd is the folder's descriptor, for
 * the caller to close; -1 on failure, with the detail recorded.
 */
ferry_err pull_open_dir(struct pull *p, const char *key, size_t dirlen,
    int create, int *fd) FERRY_WUR;
/*
 * A reference to the folder key[0..dirlen), opened (and made if missing)
 * as pull_open_dir() does, or the one already open when it is the folder
 * of the last call.  Give it back with pull_dir_put().
 */
ferry_err pull_dir_get(struct pull *p, const char *key, size_t dirlen,
    struct pull_dir **out) FERRY_WUR;
/* Drops a reference from pull_dir_get(); the last one closes it. */
void pull_dir_put(struct pull_dir *dir);
/*
 * Why key cannot name a path inside the target folder (prefixed: it is
 * relative to a prefix), or NULL.
 */
const char *pull_key_refused(const char *key, size_t keylen, int prefixed);
/* keep.c */
/*
 * With --backup-dir, moves the entry name of the folder dirfd, the path
 * rel[0..len) of the destination, to its place in the backup folder of
 * the run (its folders made): *kept 1 when it was, told and counted;
 * FERRY_OK and *kept 0 when there is no backup folder or nothing at the
 * name.  On failure (recorded) the entry stays where it was.
 */
ferry_err pull_keep(struct pull *p, int dirfd, const char *name,
    const char *rel, size_t len, int *kept) FERRY_WUR;
/*
 * A dry run: tells and counts the move pull_keep() would make of the
 * file l, as scanned.
 */
void pull_keep_planned(struct pull *p, const char *rel, size_t len,
    const struct manifest_local *l);
/*
 * Removes the local file at key if its inode, size and mtime are those
 * of l, reporting and counting the outcome.
 */
void pull_delete_local(
    struct pull *p, const char *key, const struct manifest_local *l);
/*
 * Runs a whole pull: opens the sides and the manifest, then start()
 * (which sets p->merge_step), the loop, the deletes, the summary.
 * Returns the exit status.
 */
int pull_execute(const struct sync_opts *o, ferry_err (*start)(struct pull *));
/* The local record of the file at key, from fd (after the rename). */
void pull_record_local(
    struct pull *p, const char *key, size_t keylen, int fd, const uint8_t *h);

/* pulllink.c */
/*
 * -H: the file just installed at key, with content hash, carried the
 * hard link marker marker: noted, to be made a link to the file the
 * marker names by pull_hardlinks(); a marker that cannot name a path
 * inside the folder is warned about and ignored.
 */
void pull_hardlink_note(struct pull *p, const char *key, size_t keylen,
    const char *marker, const uint8_t hash[16]);
/*
 * Once the downloads have landed: makes each file noted a link to the
 * file its marker names, where that file is here with the same bytes;
 * else warns and leaves it a plain file.  Frees the notes.  FERRY_OK,
 * or FERRY_ECANCEL when a signal stopped it.
 */
ferry_err pull_hardlinks(struct pull *p) FERRY_WUR;
void pull_hardlinks_free(struct pull *p);
/*
 * Makes the file at key a link to the file at target, when target's file
 * is the one the manifest recorded with content hash: 0, else -1 (the
 * file at key left as it was, nothing said).  Counted and told as a link.
 */
int pull_hardlink_make(struct pull *p, const char *key, size_t keylen,
    const char *target, size_t targetlen, const uint8_t hash[16]);

/* pulldefer.c */
/* Below it, a HEAD costs about what the GET it could spare does. */
#define PULL_DEFER_MIN (1024 * 1024)
/*
 * -H: during the merge, for each listed object and the action planned
 * for it (local: the scanned file or NULL).  Non-zero when its download
 * is deferred to pull_defer_run(): a GET of at least PULL_DEFER_MIN bytes
 * whose size and ETag an object listed before it has.
 */
int pull_defer_listed(struct pull *p, const struct remote_obj *o,
    enum plan_action a, const struct manifest_local *local);
/*
 * Once the merge's downloads have landed: each deferred object is asked
 * with a HEAD and made a link to the file its marker names when that file
 * holds its bytes (pull_hardlink_make()); the others are downloaded, with
 * the engine run again.  FERRY_OK, or why the engine stopped.
 */
ferry_err pull_defer_run(struct pull *p) FERRY_WUR;
void pull_defer_free(struct pull *p);

/* pullrename.c */
/*
 * --track-renames: during the merge, for each local file it deletes (l:
 * as scanned): kept as a source of renames when the manifest records
 * that it holds the bytes of the object last under its key.  FERRY_OK,
 * or FERRY_ENOMEM.
 */
ferry_err pull_renames_gather(struct pull *p, const char *key, size_t keylen,
    const struct manifest_local *l) FERRY_WUR;
/*
 * --track-renames: during the merge, for a listed object with no file
 * here whose download d plans: *held 1 when its download is held back
 * for pull_renames_run().  FERRY_OK, or FERRY_ENOMEM.
 */
ferry_err pull_renames_hold(struct pull *p, const struct remote_obj *o,
    const struct plan_decision *d, int *held) FERRY_WUR;
/*
 * Once the merge's downloads have landed: each new key held back whose
 * content a source holds, as its HEAD confirms, is that file moved to
 * its name and given its metadata (a dry run tells it); the others are
 * downloaded, with the engine run again.  FERRY_OK, or why it stopped.
 */
ferry_err pull_renames_run(struct pull *p) FERRY_WUR;
/* Whether the file at key was moved to a new name by a rename. */
int pull_renamed_away(const struct pull *p, const char *key, size_t keylen);
/* How many files were moved to a new name (a dry run: would be). */
uint64_t pull_renames_moved(const struct pull *p);
void pull_renames_free(struct pull *p);

/* pullsource.c */
/*
 * After a listing that gave nothing: FERRY_EUSAGE, naming the object and
 * its folder, when the location without its trailing '/' is an object
 * (one HEAD; not with filters or shards, nor for a whole bucket), else
 * FERRY_OK.
 */
ferry_err pull_check_object(struct pull *p) FERRY_WUR;
/*
 * Opens the listing into p->mg.remote and reads its first object, with
 * pull_check_object() when there is none: for a pull into a folder that
 * does not exist yet, so that a missing bucket, a refused listing or an
 * object named as the source leave nothing made.  merge_open() then keeps
 * the listing.  Nothing is done for a bucket that lists unsorted: its
 * listing goes through the manifest, which is not open yet.
 */
ferry_err pull_list_first(struct pull *p) FERRY_WUR;

/* pull.c: bucket to local tree.  Returns the exit status. */
int sync_pull(const struct sync_opts *opts);

#endif
