/*
 * metrics.h: a run's metrics file (--metrics-file): when it ended, how
 * (success, exit status), how long it took, its counts (the summary's)
 * and the manifest's totals, in Prometheus's text format for
 * node_exporter's textfile collector, replaced whole or not at all.
 * Private to sync/; seen through run.h.
 */
#ifndef FERRY_SYNC_METRICS_H
#define FERRY_SYNC_METRICS_H

#include "common/common.h"
#include "sync/run/opts.h"
#include "sync/run/output.h"

/* What a metrics file says of one run (metrics_format()). */
struct metrics_run {
	const char *command; /* "sync" or "apply" */
	const char *src, *dst;
	const char *shard; /* "I/N", or "": not sharded */
	const char *moved; /* how its bytes moved: "uploaded", ... */
	const struct sync_counts *counts;
	int exit_status;
	double seconds;
	int64_t end_time; /* seconds since 1970, UTC */
	/* the manifest's records (local, remote tables) and their bytes,
	 * when one was open and could be read to its end */
	int have_manifest, have_bytes;
	uint64_t entries[2], bytes[2];
};

/*
 * Writes v into out (n >= 32 bytes) as a number of the text format, in
 * decimal with at most three decimals, whatever the locale: "0" for a
 * value that is negative, NaN or infinite.
 */
void metrics_number(double v, char *out, size_t n);
/*
 * Appends the n bytes at s to b as a label value between its quotes:
 * backslash, double quote and newline escaped, a byte that is not
 * valid UTF-8 (or NUL) as U+FFFD.  FERRY_ENOMEM or FERRY_EPARSE (b's
 * limit), recorded.
 */
ferry_err metrics_label_value(struct buf *b, const char *s, size_t n) FERRY_WUR;
/*
 * Appends r's metrics to b, each with its HELP and TYPE lines and the
 * labels command, source, destination (and shard).  Errors as
 * metrics_label_value().
 */
ferry_err metrics_format(const struct metrics_run *r, struct buf *b) FERRY_WUR;
/*
 * Replaces the file at path with the len bytes at data: written to a
 * new file beside it (".NAME.XXXXXX", mode 0644), made durable, renamed
 * over it.  On failure the old file is left as it was and no new one
 * stays: FERRY_ESYS naming path, recorded.
 */
ferry_err metrics_file_write(
    const char *path, const char *data, size_t len) FERRY_WUR;
/*
 * The end of a run of o (a sync or an apply) whose exit status is
 * status: with --metrics-file, writes its metrics from c (NULL: nothing
 * counted) and the start in out (NULL: none), and the totals of m (NULL:
 * none).  Returns status, or EXIT_PARTIAL when it was EXIT_SYNCED and
 * the file could not be written (said on stderr: the run's work stays
 * done).  A dry run writes nothing, and says so.
 */
int metrics_run_write(const struct sync_opts *o, struct output *out,
    const struct sync_counts *c, struct manifest *m, int status);

#endif
