/*
 * up.h: the face of sync/up/, which owns writing to a bucket: a push
 * (from a local tree) and a mirror (from another bucket), the merge that
 * plans them, their transfers (xfer.h: PUT, multipart, server-side or
 * streamed copy; an object's new metadata copied onto itself,
 * metadata.c; an object copied from another of the bucket, keycopy.c),
 * the names of one inode sent once (-H, hardlink.c), the multipart
 * uploads that outlive a run (resume.h), the deletes of objects, and
 * with --backup-dir the server-side copies of what is overwritten or
 * deleted, made first (backup.h).  Includes sync/engine/ and the wings
 * below it, never sync/down/.
 */
#ifndef FERRY_PUSH_H
#define FERRY_PUSH_H

#include "sync/run/run.h"
#include "sync/engine/engine.h"
#include "sync/up/streams.h"
#include "sync/up/rename.h"

/* Where the bytes of a transfer come from. */
enum xfer_source {
	XS_FILE,  /* a local file */
	XS_COPY,  /* a source object on the same endpoint: server-side copy */
	XS_STREAM /* a source object elsewhere: GET, then PUT */
};

struct xfer;

/* At most this many idle part buffers are kept. */
#define XFER_POOL_MAX 64

struct push {
	struct sync_run run; /* first: what a pull has too */
	char *root;          /* push: the real path of the local folder */
	/* a mirror's source listing, counted in run.mg.nlocal */
	struct merge_list src;
	/* mirrors: the source side */
	struct remote *sr;
	struct remote_loc sloc;
	enum xfer_source source;
	/* plans the next key: the push's or the mirror's merge */
	ferry_err (*merge_step)(struct push *p);
	/* the parts of files being sent, and how many may be (streams.h) */
	unsigned parts_sending;
	struct streams streams;
	/* the server's part ETags proved not to be MD5s: no part goes out
	 * before its MD5 is known */
	int etag_not_md5;
	/* the server refused a copy of an object onto itself with new
	 * metadata: said once (metadata.c) */
	int metadata_refused;
	/* and a copy of its parts onto itself: said once */
	int metadata_parts_refused;
	/* and a copy of another of its objects (keycopy.c): said once */
	int keycopy_refused;
	/* -H: the names of one inode (hardlink.c); NULL without */
	struct hardlinks *hl;
	/* idle part buffers, kept for the next parts: run.eng.mem_used +
	 * pool_bytes stays within --memory */
	struct pool_buf {
		uint8_t *buf;
		size_t cap;
	} pool[XFER_POOL_MAX];
	unsigned npool;
	uint64_t pool_bytes;
	/* --track-renames: new keys held back, deletes as sources */
	struct renames renames;
};

/* A delete gathered, after its key: what the listing said of the object. */
struct push_delete {
	uint64_t size;
	char etag[MANIFEST_ETAG_MAX];
};

/* engine.c: what a push and a mirror share */
ferry_err push_gather_delete(
    struct push *p, const struct remote_obj *o) FERRY_WUR;
/* Runs the merge and the transfers until both are done. */
ferry_err push_run(struct push *p) FERRY_WUR;
void push_close(struct push *p);
/*
 * Runs a whole push or mirror: open() sets up the sides and the manifest
 * and p->merge_step, start() begins the merge; then the transfers, the
 * deletes, the summary.  Returns the exit status.
 */
int push_execute(const struct sync_opts *o, ferry_err (*open)(struct push *),
    ferry_err (*start)(struct push *));
/* push.c, mirror.c: the sides and the manifest of a push or a mirror. */
ferry_err push_open(struct push *p) FERRY_WUR;
ferry_err mirror_open(struct push *p) FERRY_WUR;
/* rename.c */
/*
 * With --track-renames, keeps the delete of o as a source of renames
 * when its stored content is known for certain.  FERRY_ENOMEM only.
 */
ferry_err renames_gather(struct push *p, const struct remote_obj *o) FERRY_WUR;
/*
 * With --track-renames, holds back the new key's upload d (key copied,
 * its file l), into *kept 1; 0 when it goes now (not new, empty, too
 * large for one copy, or past the bound).  FERRY_ENOMEM only.
 */
ferry_err renames_defer(struct push *p, const struct plan_decision *d,
    const char *key, size_t keylen, const struct manifest_local *l,
    int *kept) FERRY_WUR;
/*
 * The next new key held back into *n, and into *src the delete of the
 * same content and size it is copied from, or NULL: it is uploaded.
 * Both stay valid until push_close().  0 when none is left.
 */
int renames_take(
    struct push *p, struct rename_new **n, struct rename_src **src);
/*
 * Starts the copy of n from src (or, in a dry run, prints it), counted
 * as renamed.
 */
ferry_err renames_start(struct push *p, const struct rename_new *n,
    struct rename_src *src) FERRY_WUR;
/* The deletes copied from: their bytes stay under a new key. */
uint64_t renames_sources_copied(const struct push *p);
/* delete.c */
/*
 * Runs the deletes gathered during the merge, if they are allowed; a
 * batch that fails is reported and counted.  FERRY_ENOMEM when memory ran
 * out while the keys were read: the rest are not deleted, and the run
 * must end with that error.
 */
ferry_err push_deletes(struct push *p) FERRY_WUR;

/* hardlink.c */
/*
 * -H: whether the file l under key (o: the object listed there, or NULL),
 * planned as d says, is one name of an inode with others whose transfer
 * waits for hardlink_run() (*taken 1), else 0 and the caller acts on d.
 * A name planned unchanged becomes the source its inode's other names
 * are copied from.
 */
ferry_err hardlink_take(struct push *p, const struct plan_decision *d,
    const char *key, size_t keylen, const struct manifest_local *l,
    const struct remote_obj *o, int *taken) FERRY_WUR;
/*
 * After the merge's transfers: sends the names taken, per inode one
 * upload (unless a name is stored already) and then copies of it marked
 * with its key; a name whose source was not stored fails, not copied.
 */
ferry_err hardlink_run(struct push *p) FERRY_WUR;
void hardlink_free(struct hardlinks *hl);

/* push.c: local tree to bucket.  Returns the exit status. */
int sync_push(const struct sync_opts *opts);
/* mirror.c: bucket to bucket.  Returns the exit status. */
int sync_mirror(const struct sync_opts *opts);

#include "sync/up/xfer.h"

#endif
