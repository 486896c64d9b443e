/*
 * metrics.c: a run's metrics file (--metrics-file), in Prometheus's text
 * format (version 0.0.4): what node_exporter's textfile collector reads
 * from a folder of *.prom files, so that a scheduled backup is watched
 * by the numbers its summary gives.  The file is replaced whole: the
 * collector never reads half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>

#include "sync/run/metrics.h"

/* No label value of ours comes near: a bound on a buffer, not a rule. */
#define METRICS_MAX (1 << 20)

void
metrics_number(double v, char *out, size_t n)
{
	uint64_t ms;

	/* printf's %f would follow LC_NUMERIC's decimal point */
	if (!isfinite(v) || v <= 0) {
		snprintf(out, n, "0");
		return;
	}
	if (v >= 9e15) {
		snprintf(out, n, "%" PRIu64, (uint64_t)9e15);
		return;
	}
	ms = (uint64_t)(v * 1000 + 0.5);
	snprintf(out, n, "%" PRIu64 ".%03u", ms / 1000, (unsigned)(ms % 1000));
}

ferry_err
metrics_label_value(struct buf *b, const char *s, size_t n)
{
	char *t, *p;
	int valid;
	ferry_err e = FERRY_OK;

	if ((t = output_utf8_text(s, n, &valid)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	for (p = t; *p && e == FERRY_OK; p++) {
		if (*p == '\\')
			e = buf_puts(b, "\\\\");
		else if (*p == '"')
			e = buf_puts(b, "\\\"");
		else if (*p == '\n')
			e = buf_puts(b, "\\n");
		else
			e = buf_append(b, p, 1);
	}
	free(t);
	return e;
}

/* A metric's name and what it means (its HELP). */
struct family {
	const char *name;
	const char *help;
};

/* Appends f's HELP and TYPE lines (every metric here is a gauge). */
static ferry_err
family_head(struct buf *b, const struct family *f)
{
	return buf_printf(
	    b, "# HELP %s %s\n# TYPE %s gauge\n", f->name, f->help, f->name);
}

/*
 * Appends one sample of f: the run's labels (in labels, escaped
 * already), then name="value" when name is not NULL, and the value v.
 */
static ferry_err
sample(struct buf *b, const struct family *f, const char *labels,
    const char *name, const char *value, const char *v)
{
	if (name == NULL)
		return buf_printf(b, "%s{%s} %s\n", f->name, labels, v);
	return buf_printf(
	    b, "%s{%s,%s=\"%s\"} %s\n", f->name, labels, name, value, v);
}

/* Appends a family of one sample, an integer. */
static ferry_err
one(struct buf *b, const struct family *f, const char *labels, int64_t v)
{
	char n[32];
	ferry_err e;

	snprintf(n, sizeof(n), "%" PRId64, v);
	if ((e = family_head(b, f)) != FERRY_OK)
		return e;
	return sample(b, f, labels, NULL, NULL, n);
}

/* The labels every sample of r carries, escaped, into b. */
static ferry_err
run_labels(const struct metrics_run *r, struct buf *b)
{
	ferry_err e;

	if ((e = buf_printf(b, "command=\"%s\",source=\"", r->command)) !=
	        FERRY_OK ||
	    (e = metrics_label_value(b, r->src, strlen(r->src))) != FERRY_OK ||
	    (e = buf_puts(b, "\",destination=\"")) != FERRY_OK ||
	    (e = metrics_label_value(b, r->dst, strlen(r->dst))) != FERRY_OK ||
	    (e = buf_puts(b, "\"")) != FERRY_OK)
		return e;
	if (r->shard[0])
		e = buf_printf(b, ",shard=\"%s\"", r->shard);
	return e;
}

static const struct family f_end = {"ferry_run_end_timestamp_seconds",
    "When the last run of the pair ended, in seconds since 1970 (UTC)."};
static const struct family f_success = {"ferry_run_success",
    "1 when the last run synced everything (exit status 0), else 0."};
static const struct family f_exit = {
    "ferry_run_exit_code", "The exit status of the last run (ferry(1))."};
static const struct family f_secs = {
    "ferry_run_duration_seconds", "How long the last run took."};
static const struct family f_objects = {"ferry_run_objects",
    "Objects of the last run by what was done to them (skipped: "
    "unchanged)."};
static const struct family f_failed = {"ferry_run_failures",
    "Objects or files the last run failed to transfer or delete."};
static const struct family f_checked = {"ferry_run_checked_objects",
    "Objects whose content the last run checked to decide whether they "
    "changed (also counted in ferry_run_objects)."};
static const struct family f_left = {"ferry_run_left_out_entries",
    "Local entries the last run left out for being neither files nor "
    "folders."};
static const struct family f_bytes = {"ferry_run_bytes",
    "Bytes the last run moved, by how (uploaded, downloaded or copied)."};
static const struct family f_mentries = {"ferry_manifest_entries",
    "Records in the manifest of the pair after the last run: local "
    "(files scanned), remote (objects of the bucket side)."};
static const struct family f_mbytes = {"ferry_manifest_bytes",
    "Bytes of the records in the manifest of the pair after the last run."};

/* The objects by kind, as the summary counts them. */
static ferry_err
objects(struct buf *b, const char *labels, const struct sync_counts *c)
{
	const char *kinds[] = {"uploaded", "downloaded", "copied", "metadata",
	    "renamed", "deleted", "skipped"};
	uint64_t v[] = {c->uploaded, c->downloaded, c->copied, c->metadata,
	    c->renamed, c->deleted, c->skipped};
	char n[32];
	size_t i;
	ferry_err e = family_head(b, &f_objects);

	for (i = 0; i < sizeof(v) / sizeof(v[0]) && e == FERRY_OK; i++) {
		snprintf(n, sizeof(n), "%" PRIu64, v[i]);
		e = sample(b, &f_objects, labels, "kind", kinds[i], n);
	}
	return e;
}

/* The manifest's totals, by table, when r has them. */
static ferry_err
manifest_totals(struct buf *b, const char *labels, const struct metrics_run *r)
{
	const char *tables[] = {"local", "remote"};
	char n[32];
	int i, have[] = {r->have_manifest, r->have_bytes};
	const struct family *f[] = {&f_mentries, &f_mbytes};
	const uint64_t *v[] = {r->entries, r->bytes};
	int k;
	ferry_err e = FERRY_OK;

	for (k = 0; k < 2 && e == FERRY_OK; k++) {
		if (!have[k])
			continue;
		e = family_head(b, f[k]);
		for (i = 0; i < 2 && e == FERRY_OK; i++) {
			snprintf(n, sizeof(n), "%" PRIu64, v[k][i]);
			e = sample(b, f[k], labels, "table", tables[i], n);
		}
	}
	return e;
}

/* The counts of r's run (all 0 when nothing was counted). */
static ferry_err
counts(struct buf *b, const char *labels, const struct metrics_run *r)
{
	static const struct sync_counts none;
	const struct sync_counts *c = r->counts ? r->counts : &none;
	char n[32];
	ferry_err e;

	snprintf(n, sizeof(n), "%" PRIu64, c->bytes);
	if ((e = objects(b, labels, c)) != FERRY_OK ||
	    (e = one(b, &f_failed, labels, (int64_t)c->failed)) != FERRY_OK ||
	    (e = one(b, &f_checked, labels, (int64_t)c->checked)) != FERRY_OK ||
	    (e = one(b, &f_left, labels, (int64_t)c->left_out)) != FERRY_OK ||
	    (e = family_head(b, &f_bytes)) != FERRY_OK)
		return e;
	return sample(b, &f_bytes, labels, "kind", r->moved, n);
}

ferry_err
metrics_format(const struct metrics_run *r, struct buf *b)
{
	struct buf labels;
	char secs[32];
	ferry_err e;

	buf_init(&labels, METRICS_MAX);
	if ((e = run_labels(r, &labels)) != FERRY_OK)
		goto out;
	metrics_number(r->seconds, secs, sizeof(secs));
	if ((e = one(b, &f_end, labels.data, r->end_time)) != FERRY_OK ||
	    (e = one(b, &f_success, labels.data, r->exit_status == 0)) !=
	        FERRY_OK ||
	    (e = one(b, &f_exit, labels.data, r->exit_status)) != FERRY_OK ||
	    (e = family_head(b, &f_secs)) != FERRY_OK ||
	    (e = sample(b, &f_secs, labels.data, NULL, NULL, secs)) !=
	        FERRY_OK ||
	    (e = counts(b, labels.data, r)) != FERRY_OK)
		goto out;
	e = manifest_totals(b, labels.data, r);
out:
	buf_free(&labels);
	return e;
}

/*
 * Writes the len bytes at data to fd and has them reach the disk.
 * FERRY_ESYS naming path, recorded.
 */
static ferry_err
write_all(int fd, const char *path, const char *data, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, data, len)) < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ferry_fail(FERRY_ESYS, "metrics file '%s': %s",
			    path, strerror(errno));
		data += n;
		len -= (size_t)n;
	}
	if (fsync(fd) != 0)
		return ferry_fail(
		    FERRY_ESYS, "metrics file '%s': %s", path, strerror(errno));
	return FERRY_OK;
}

/*
 * Has the rename into the folder of path (its first dirlen bytes, 0:
 * the current folder) reach the disk.  Nothing is said when it cannot:
 * the file is in place.
 */
static void
sync_folder(const char *path, size_t dirlen)
{
	char *dir = dirlen ? strndup(path, dirlen) : strdup(".");
	int fd;

	if (dir && (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

ferry_err
metrics_file_write(const char *path, const char *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	int fd;
	ferry_err e;

	/* hidden, and not named *.prom: the collector passes it by */
	if ((tmp = malloc(strlen(path) + 9)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	snprintf(tmp, strlen(path) + 9, "%.*s.%s.XXXXXX", (int)dirlen, path,
	    path + dirlen);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		e = ferry_fail(
		    FERRY_ESYS, "metrics file '%s': %s", path, strerror(errno));
		free(tmp);
		return e;
	}
	/* the collector runs as another user */
	if (fchmod(fd, 0644) != 0)
		e = ferry_fail(
		    FERRY_ESYS, "metrics file '%s': %s", path, strerror(errno));
	else
		e = write_all(fd, path, data, len);
	if (close(fd) != 0 && e == FERRY_OK)
		e = ferry_fail(
		    FERRY_ESYS, "metrics file '%s': %s", path, strerror(errno));
	if (e == FERRY_OK && rename(tmp, path) != 0)
		e = ferry_fail(
		    FERRY_ESYS, "metrics file '%s': %s", path, strerror(errno));
	if (e != FERRY_OK)
		unlink(tmp);
	else
		sync_folder(path, dirlen);
	free(tmp);
	return e;
}

/*
 * Adds up the sizes of the records of table t of m into *bytes, and
 * counts them into *n.  FERRY_OK; FERRY_ECANCEL when a signal came (a
 * large manifest is not walked while the run is asked to stop), or the
 * manifest's failure (a damaged record).
 */
static ferry_err
table_bytes(
    struct manifest *m, enum manifest_table t, uint64_t *n, uint64_t *bytes)
{
	struct manifest_iter *it;
	struct manifest_local l;
	struct manifest_remote r;
	const char *key;
	size_t keylen;
	ferry_err e;

	*n = *bytes = 0;
	if ((e = manifest_iter_new(m, t, &it)) != FERRY_OK)
		return e;
	while (!ferry_interrupted) {
		if (t == MANIFEST_LOCAL)
			e = manifest_iter_local(it, &key, &keylen, &l);
		else
			e = manifest_iter_remote(it, &key, &keylen, &r);
		if (e != FERRY_OK)
			break;
		*bytes += t == MANIFEST_LOCAL ? l.size : r.size;
		(*n)++;
	}
	manifest_iter_free(it);
	if (ferry_interrupted)
		return FERRY_ECANCEL;
	return e == FERRY_ENOTFOUND ? FERRY_OK : e;
}

/* Sets r's manifest totals from m, those it can read. */
static void
totals_of(struct manifest *m, struct metrics_run *r)
{
	enum manifest_table t[] = {MANIFEST_LOCAL, MANIFEST_REMOTE};
	uint64_t n;
	int i;

	if (m == NULL)
		return;
	r->have_manifest =
	    manifest_count(m, &r->entries[0], &r->entries[1]) == FERRY_OK;
	r->have_bytes = r->have_manifest;
	/* the records counted as they are walked: the same as above */
	for (i = 0; i < 2 && r->have_bytes; i++)
		r->have_bytes =
		    table_bytes(m, t[i], &n, &r->bytes[i]) == FERRY_OK;
}

int
metrics_run_write(const struct sync_opts *o, struct output *out,
    const struct sync_counts *c, struct manifest *m, int status)
{
	char shard[SHARD_NAME_MAX], msg[512];
	struct metrics_run r = {0};
	struct buf b;
	ferry_err e;

	if (o->metrics_file == NULL)
		return status;
	if (o->dry_run) {
		log_warn("--metrics-file: a dry run changes nothing and writes "
		         "no metrics; '%s' is left as it was",
		    o->metrics_file);
		return status;
	}
	shard_name(&o->shard, shard, sizeof(shard));
	r = (struct metrics_run){.command = o->command,
	    .src = o->src ? o->src : "",
	    .dst = o->dst ? o->dst : "",
	    .shard = shard,
	    .moved = output_moved(o),
	    .counts = c,
	    .exit_status = status,
	    .seconds = out ? output_seconds(out) : 0,
	    .end_time = (int64_t)time(NULL)};
	totals_of(m, &r);
	buf_init(&b, METRICS_MAX);
	if ((e = metrics_format(&r, &b)) == FERRY_OK)
		e = metrics_file_write(o->metrics_file, b.data, b.len);
	buf_free(&b);
	if (e == FERRY_OK)
		return status;
	/* said before the summary, which gives the status it leads to */
	snprintf(msg, sizeof(msg), "%s", ferry_errmsg());
	output_failure(
	    o->json, ferry_fail(e, "%s (the run's own work is kept)", msg));
	return status == EXIT_SYNCED ? EXIT_PARTIAL : status;
}
