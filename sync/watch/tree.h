/*
 * tree.h: inotify watches on every folder of a local tree, kept as
 * folders come, go and move, and what a read of their events says: that
 * something changed (and which files are being written: writing.h), or
 * that events may have been lost and only a full run can tell (the queue
 * overflowed, the watch limit was hit, a folder was moved in from outside).
 * Linux only.  Private to sync/watch/.
 */
#ifndef FERRY_WATCH_TREE_H
#define FERRY_WATCH_TREE_H

#include <stdint.h>

#include "common/common.h"
#include "sync/watch/writing.h"

struct watch_tree;

/* What one read of the events found. */
struct watch_news {
	/*
	 * The caller's: the files being written, told of each event, or
	 * NULL (every event then waits a settle time); now, the time of
	 * the read for its writes.
	 */
	struct watch_writing *writing;
	int64_t now;
	uint64_t events; /* events that touch the tree */
	/* of them, the closes of a file written (IN_CLOSE_WRITE) and those
	 * that wait a settle time: all but the writes of files kept as
	 * being written */
	uint64_t closed, settling;
	/* a write of a file the set could not take (it was full) */
	int unfollowed;
	/* a reason a full run is needed beyond the touched paths (a static
	 * string), or NULL */
	const char *full;
	int limit;     /* a watch could not be added: the limit was hit */
	int root_gone; /* the tree's folder was deleted or moved away */
};

/*
 * Opens an inotify instance and watches root and every folder under it,
 * but skip (a folder of the tree not to watch: the manifest's, or NULL).
 * *out is the caller's, freed by watch_tree_close(); NULL on failure.
 * FERRY_ESYS when inotify cannot be had at all (the message says why);
 * a watch limit hit is not a failure: watch_tree_limited() tells.
 */
ferry_err watch_tree_open(
    const char *root, const char *skip, struct watch_tree **out) FERRY_WUR;
/* The descriptor to poll(2) for POLLIN. */
int watch_tree_fd(const struct watch_tree *t);
/* Whether some folder could not be watched (max_user_watches). */
int watch_tree_limited(const struct watch_tree *t);
/* How many folders are watched. */
uint64_t watch_tree_count(const struct watch_tree *t);
/*
 * Reads the events waiting, without blocking, into *n (added to what it
 * holds), and watches the folders that appeared.  FERRY_ESYS on a read
 * error other than EAGAIN.
 */
ferry_err watch_tree_read(struct watch_tree *t, struct watch_news *n) FERRY_WUR;
/* Drops every watch and walks the tree afresh (after an overflow). */
ferry_err watch_tree_reset(struct watch_tree *t) FERRY_WUR;
/* Accepts NULL. */
void watch_tree_close(struct watch_tree *t);

#endif
