/*
 * source.c: what the kind of a watcher's source decides (source.h).
 * A bucket sends no event: its listing is the only way to learn of a
 * change, and a run's listing is the poll, so nothing is listed twice.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "sync/watch/source.h"

/* the full runs of a folder not wholly watched, this often (seconds) */
#define WATCH_POLL_S 60
/* the longest wait before a failed run is tried again (seconds) */
#define WATCH_BACKOFF_MAX 60

int
watch_source_polled(const struct sync_opts *o)
{
	return o->way == SYNC_WAY_PULL || o->way == SYNC_WAY_MIRROR;
}

int
watch_source_run(const struct sync_opts *o)
{
	if (o->way == SYNC_WAY_PULL)
		return sync_pull(o);
	if (o->way == SYNC_WAY_MIRROR)
		return sync_mirror(o);
	return sync_push(o);
}

int64_t
watch_source_period(const struct sync_opts *o)
{
	return watch_source_polled(o) ? o->watch_interval : WATCH_POLL_S;
}

const char *
watch_source_period_why(const struct sync_opts *o)
{
	return watch_source_polled(o)
	           ? "the poll of the source's listing (--watch-interval)"
	           : "a periodic sync: not every folder is watched";
}

int64_t
watch_source_backoff(const struct sync_opts *o, int64_t prev)
{
	int64_t base =
	    watch_source_polled(o) ? o->watch_interval : o->watch_settle;
	int64_t cap = base > WATCH_BACKOFF_MAX ? base : WATCH_BACKOFF_MAX;

	if (prev == 0)
		return base;
	return prev * 2 > cap ? cap : prev * 2;
}

void
watch_source_polling(const struct sync_opts *o, char *out, size_t n)
{
	snprintf(out, n,
	    "no event comes from a bucket: its listing is polled "
	    "every %lld s",
	    (long long)o->watch_interval);
}

void
watch_source_held(const struct sync_opts *o, uint64_t n, char *out, size_t len)
{
	snprintf(out, len,
	    "%s: its %llu delete%s held, whatever --force says, until it has "
	    "some again",
	    watch_source_polled(o) ? "the source lists no key under its prefix"
	                           : "the source folder is empty",
	    (unsigned long long)n, n == 1 ? " is" : "s are");
}

ferry_err
watch_source_lockable(const struct sync_opts *o)
{
	struct stat st;

	if (o->way == SYNC_WAY_PULL && o->manifest_dir == NULL &&
	    stat(o->dst, &st) != 0 && errno == ENOENT)
		return FERRY_ENOTFOUND;
	return FERRY_OK;
}
