/*
 * source.h: what the kind of a watcher's source decides.  A folder's
 * runs follow its inotify events (tree.h); a bucket's (a pull, a mirror)
 * follow a poll of its listing every --watch-interval, each poll a whole
 * run with the warm manifest, so that one that finds nothing new costs
 * the listing alone.  Private to sync/watch/.
 */
#ifndef FERRY_WATCH_SOURCE_H
#define FERRY_WATCH_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "sync/down/down.h"
#include "sync/up/up.h"

/* Whether o's source is a bucket, whose listing is polled. */
int watch_source_polled(const struct sync_opts *o);
/*
 * Runs the whole sync o describes, a push, a pull or a mirror by its
 * way, as a one-off run would (with o->ran, what it did is told there).
 * Returns the exit status.
 */
int watch_source_run(const struct sync_opts *o);
/*
 * Seconds between the runs that come with no event: a bucket's polls
 * (--watch-interval), or the full runs of a folder some of whose folders
 * could not be watched.
 */
int64_t watch_source_period(const struct sync_opts *o);
/* Why such a run is due, as the "run" line says it (a static string). */
const char *watch_source_period_why(const struct sync_opts *o);
/*
 * The wait (seconds) before a failed run is made again, after prev (0
 * for the first failure): the settle time (a folder) or the interval (a
 * bucket), then twice the last, up to 60 s or the interval if longer.
 */
int64_t watch_source_backoff(const struct sync_opts *o, int64_t prev);
/* What the "watching" line says of a polled source, in out (n bytes). */
void watch_source_polling(const struct sync_opts *o, char *out, size_t n);
/*
 * What the "held" line says of n deletes a run held back, its source
 * side having nothing (struct sync_ran), in out (len bytes).
 */
void watch_source_held(
    const struct sync_opts *o, uint64_t n, char *out, size_t len);
/*
 * FERRY_OK when the manifest's folder of the pair can be named: not
 * before a pull's first run has made its folder (FERRY_ENOTFOUND).
 */
ferry_err watch_source_lockable(const struct sync_opts *o) FERRY_WUR;

#endif
