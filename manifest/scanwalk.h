/*
 * scanwalk.h: what the two halves of the local tree walker share: the
 * walk itself (scan.c) and the hashing of a folder's files ahead on
 * worker threads (scanahead.c).  Nobody outside manifest/ sees it.
 */
#ifndef FERRY_MANIFEST_SCANWALK_H
#define FERRY_MANIFEST_SCANWALK_H

#include <dirent.h>
#include <limits.h>
#include <sys/types.h>

#include "common/workq.h"
#include "manifest/filehash.h"
#include "manifest/internal.h"

#define SCAN_DEPTH_MAX 256
/*
 * A job of the workers hashes a few files one after the other, at most
 * this many or, once it holds one, no more than about this many bytes: a
 * job each would cost more to hand over and wait for than small files
 * cost to read.
 */
#define SCAN_BATCH_FILES 16
#define SCAN_BATCH_BYTES (1u << 20)

/* One entry of a folder, as fstatat saw it. */
struct ent {
	const char *name; /* NUL-terminated, in the level's arena */
	size_t off;       /* of name in the arena, while it may move */
	size_t namelen;
	int is_dir;
	int special; /* a symlink's or an empty folder's entry (scan.h) */
	struct manifest_local st; /* stat fields; hash unset */
};

struct batch;

/* A file of a folder hashed ahead, by a worker. */
struct ahead {
	struct filehash h;
	const struct ent *ent;
	struct batch *batch; /* the job that hashes it */
};

/* Files of a folder hashed one after the other by a worker. */
struct batch {
	struct workq_job j;
	struct ahead *files;
	size_t n;
	int finished; /* its done has run: the worker is through with it */
};

/* One folder being walked. */
struct level {
	DIR *dir;
	int fd;
	struct ent *ents;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
	size_t base; /* length of the folder's path with its '/' */
	int protect; /* an entry was unreadable: keep vanished records */
	int depth;
	struct ahead *ahead; /* files hashed ahead, in the order of ents */
	size_t nahead, acap;
	size_t anext; /* the first of them visit_file() has not reached */
	struct batch *batches; /* the jobs that hash them */
	size_t nbatches;
	int ahead_done; /* level_hash_ahead() ran */
};

struct scan {
	struct manifest *m;
	const struct manifest_scan_opts *opts;
	struct manifest_scan_stats *stats;
	struct manifest_iter *it; /* the table as it was at the start */
	struct workq *wq; /* started by the first folder with files to hash */
	const char *key;  /* the cursor's key, NULL at the end */
	size_t keylen;
	struct manifest_local rec;
	char path[MANIFEST_KEY_MAX + NAME_MAX + MANIFEST_LINK_EXT_LEN + 2];
	size_t plen;
	/* with opts->follow: the folders on the path, by depth, for loops */
	struct {
		dev_t dev;
		ino_t ino;
	} anc[SCAN_DEPTH_MAX + 1];
};

/* Sets s->path to the folder's path followed by name (and '/' if dir). */
void scan_path_set(
    struct scan *s, size_t base, const char *name, size_t n, int dir);

/* Cuts s->path back to its first base bytes. */
void scan_path_cut(struct scan *s, size_t base);

/*
 * Returns arr, or a larger copy of it, with room for n + 1 elements of
 * size bytes, *cap updated; NULL when out of memory (arr stays).
 */
void *scan_room_for_one(void *arr, size_t n, size_t *cap, size_t size);

/* Whether the file ent, whose record is rec (NULL: none), is to be read. */
int scan_stale(const struct scan *s, const struct manifest_local *rec,
    const struct ent *ent);

/*
 * Hashes the file ent (at s->path) into *r: takes the job that hashed it
 * ahead, waiting for it to finish, or else hashes it now.  Returns what
 * filehash_result() does.
 */
ferry_err scan_hash_entry(struct scan *s, struct level *lv,
    const struct ent *ent, struct manifest_local *r) FERRY_WUR;

/*
 * Starts hashing on workers the files of lv from first on that the walk
 * will read (see scanahead.c); returns FERRY_OK or FERRY_ENOMEM.  s->path
 * is left at first's path.
 */
ferry_err scan_hash_ahead(
    struct scan *s, struct level *lv, const struct ent *first) FERRY_WUR;

/* Waits for the jobs of lv, which use its folder and names, then frees. */
void scan_ahead_free(struct scan *s, struct level *lv);

#endif
