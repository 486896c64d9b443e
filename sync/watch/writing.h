/*
 * writing.h: the files of a watched tree being written: a write (a file
 * created, or modified) not yet followed by its close (IN_CLOSE_WRITE),
 * deletion, move or change of attributes, each with the times of its
 * first and last write.  Bounded: a file beyond WATCH_WRITING_MAX is not
 * kept, and its events count as any other's (the whole window waits for
 * them, as before paths were told apart).  Private to sync/watch/.
 */
#ifndef FERRY_WATCH_WRITING_H
#define FERRY_WATCH_WRITING_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* The most files kept as being written. */
#define WATCH_WRITING_MAX 4096

struct watch_writing;

/* One file being written; path relative to the tree's root. */
struct watch_written {
	char *path;
	int64_t first_ns, last_ns; /* its first and last write events */
};

/*
 * An empty set, the caller's (watch_writing_free(), which accepts NULL);
 * NULL when out of memory.  Not thread-safe.
 */
struct watch_writing *watch_writing_new(void);
void watch_writing_free(struct watch_writing *s);
/*
 * A write event on path (relative, '/'-separated) at now: the file is
 * being written from now on, or still.  Returns 1 when path is kept,
 * 0 when it is not (the set full, or out of memory): its event is then
 * one like any other.
 */
int watch_writing_touch(struct watch_writing *s, const char *path, int64_t now);
/* path is no longer being written (closed, deleted, moved, changed). */
void watch_writing_end(struct watch_writing *s, const char *path);
/* Drops every path below the folder dir (deleted or moved away). */
void watch_writing_drop_below(struct watch_writing *s, const char *dir);
/* How many files are kept; the i-th in path order, valid until a change. */
size_t watch_writing_count(const struct watch_writing *s);
struct watch_written *watch_writing_at(struct watch_writing *s, size_t i);
/* Drops the i-th (one a run takes). */
void watch_writing_drop(struct watch_writing *s, size_t i);

#endif
