/*
 * output.c: what a run tells: JSON lines on stdout (--json), or words on
 * stderr.  Keys are printed escaped (text_print), in JSON as valid UTF-8
 * with the exact bytes beside when they are not; secrets never pass
 * through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <cJSON.h>

#include "sync/run/opts.h"
#include "sync/run/output.h"
#include "sync/plan/plan.h"

/* Prints one JSON object as a line and frees it. */
static void emit(cJSON *obj);
static void emit_start(const struct sync_opts *opts);

void
output_init(struct output *o, const struct sync_opts *opts)
{
	memset(o, 0, sizeof(*o));
	o->json = opts->json;
	o->quiet = opts->quiet;
	o->verbose = opts->verbose;
	o->dry_run = opts->dry_run;
	o->started_ns = now_mono_ns();
	shard_name(&opts->shard, o->shard, sizeof(o->shard));
	o->moved = output_moved(opts);
	o->progress = output_progress_on(opts);
	o->watching = opts->watching;
	o->plan = opts->cmd == SYNC_CMD_PLAN;
	if (o->plan)
		emit(planfile_header_json(opts->src, opts->dst, opts->delete,
		    opts->follow_symlinks, opts->part_size,
		    opts->multipart_threshold, opts->copy_threshold,
		    opts->at_given));
	else if (o->json)
		emit_start(opts);
}

int
output_progress_on(const struct sync_opts *opts)
{
	return opts->progress ||
	       (!opts->quiet && !opts->json && !opts->dry_run && isatty(2));
}

const char *
output_moved(const struct sync_opts *opts)
{
	if (opts->src && remote_is_url(opts->src))
		return opts->dst && remote_is_url(opts->dst) ? "copied"
		                                             : "downloaded";
	return "uploaded";
}

void
output_set_local(struct output *o, const char *prefix)
{
	o->prefix = prefix;
}

/* Prints one JSON object as a line and frees it. */
static void
emit(cJSON *obj)
{
	char *s;

	if (obj == NULL)
		return;
	if ((s = cJSON_PrintUnformatted(obj)) != NULL) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	cJSON_Delete(obj);
}

/* A new event of type; NULL when out of memory. */
static cJSON *
event_new(const char *type)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj != NULL && cJSON_AddStringToObject(obj, "type", type) == NULL) {
		cJSON_Delete(obj);
		obj = NULL;
	}
	return obj;
}

/*
 * The first line of a sync's or an apply's event stream: which version
 * of the stream follows (ferry(1), JSON OUTPUT), and what the run is.
 */
static void
emit_start(const struct sync_opts *opts)
{
	cJSON *obj = event_new("start");
	char shard[SHARD_NAME_MAX];

	if (obj == NULL)
		return;
	cJSON_AddNumberToObject(obj, "version", OUTPUT_EVENTS_VERSION);
	cJSON_AddStringToObject(obj, "command", opts->command);
	output_json_text(obj, "source", opts->src, strlen(opts->src));
	output_json_text(obj, "destination", opts->dst, strlen(opts->dst));
	cJSON_AddBoolToObject(obj, "dry_run", opts->dry_run);
	shard_name(&opts->shard, shard, sizeof(shard));
	if (shard[0])
		cJSON_AddStringToObject(obj, "shard", shard);
	emit(obj);
}

char *
output_utf8_text(const char *s, size_t n, int *valid)
{
	const unsigned char *u = (const unsigned char *)s;
	char *out = malloc(3 * n + 1), *p = out;
	size_t i = 0, len;

	*valid = 1;
	if (out == NULL)
		return NULL;
	while (i < n) {
		if (u[i] == 0 || utf8_next(u + i, n - i, &len) < 0) {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
			i++;
			*valid = 0;
			continue;
		}
		memcpy(p, s + i, len);
		p += len;
		i += len;
	}
	*p = '\0';
	return out;
}

int
output_json_text(cJSON *obj, const char *name, const char *s, size_t n)
{
	char *t;
	int valid, ok;

	if ((t = output_utf8_text(s, n, &valid)) == NULL)
		return -1;
	ok = cJSON_AddStringToObject(obj, name, t) != NULL;
	free(t);
	return ok ? 0 : -1;
}

int
output_json_key(cJSON *obj, const char *key, size_t keylen)
{
	char *t, *b64;
	int valid, ok;

	if ((t = output_utf8_text(key, keylen, &valid)) == NULL)
		return -1;
	ok = cJSON_AddStringToObject(obj, "key", t) != NULL;
	free(t);
	if (valid || !ok)
		return ok ? 0 : -1;
	/* the exact bytes, when "key" could not carry them */
	if ((b64 = malloc(4 * ((keylen + 2) / 3) + 1)) == NULL)
		return -1;
	remote_base64(key, keylen, b64);
	ok = cJSON_AddStringToObject(obj, "key_base64", b64) != NULL;
	free(b64);
	return ok ? 0 : -1;
}

static void
clear_progress(struct output *o)
{
	if (o->progress_shown) {
		fputs("\r\033[K", stderr);
		o->progress_shown = 0;
	}
}

void
output_action(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason)
{
	output_planned(o, type, key, keylen, size, reason, NULL, NULL);
}

void
output_written(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *version_id)
{
	struct plan_entry d = {.present = 1, .version_id = version_id};

	output_planned(o, type, key, keylen, size, NULL, NULL, &d);
}

/*
 * What an event names: the object key, and for a local file also its
 * path in the folder (path NULL when none).
 */
struct event_names {
	const char *key;
	size_t keylen;
	const char *path;
	size_t pathlen;
};

/* Adds "key" (and "key_base64"), and "path" when there is one. */
static void
add_names(cJSON *obj, const struct event_names *n)
{
	output_json_key(obj, n->key, n->keylen);
	if (n->path)
		output_json_text(obj, "path", n->path, n->pathlen);
}

/*
 * Sets n for the local file at rel[0..len), its path in the folder: its
 * key is the prefix followed by rel, in a new string in *full that the
 * caller frees.  -1 when out of memory.
 */
static int
names_of_path(const struct output *o, const char *rel, size_t len,
    struct event_names *n, char **full)
{
	size_t fulllen;

	if ((*full = remote_key_join(
	         o->prefix ? o->prefix : "", rel, len, &fulllen)) == NULL)
		return -1;
	*n = (struct event_names){*full, fulllen, rel, len};
	return 0;
}

/* Sets n for the object key[0..len) of a local file, if the run has one. */
static void
names_of_file(
    const struct output *o, const char *key, size_t len, struct event_names *n)
{
	size_t plen = o->prefix ? strlen(o->prefix) : 0;

	*n = (struct event_names){key, len, NULL, 0};
	if (o->prefix && len >= plen && memcmp(key, o->prefix, plen) == 0) {
		n->path = key + plen;
		n->pathlen = len - plen;
	}
}

static void
planned_json(struct output *o, const char *type, const struct event_names *n,
    uint64_t size, const char *reason, const struct plan_entry *src,
    const struct plan_entry *dst)
{
	cJSON *obj;

	if ((obj = event_new(o->dry_run ? "plan" : type)) == NULL)
		return;
	if (o->dry_run)
		cJSON_AddStringToObject(obj, "action", type);
	add_names(obj, n);
	cJSON_AddNumberToObject(obj, "size", (double)size);
	if (reason)
		cJSON_AddStringToObject(obj, "reason", reason);
	if (o->dry_run && (src || dst))
		planfile_add_sides(obj, src, dst);
	/* a write into a versioned bucket: the version it made */
	if (!o->dry_run && dst && dst->version_id && dst->version_id[0])
		cJSON_AddStringToObject(obj, "version_id", dst->version_id);
	emit(obj);
}

static void
planned_text(struct output *o, const char *type, const char *name, size_t len,
    const char *reason)
{
	if (o->quiet || (!o->dry_run && !o->verbose))
		return;
	clear_progress(o);
	printf("%s%s: ", o->dry_run ? "(dry run) " : "", type);
	text_print(stdout, name, len);
	printf("%s%s%s\n", reason ? " (" : "", reason ? reason : "",
	    reason ? ")" : "");
}

void
output_planned(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason,
    const struct plan_entry *src, const struct plan_entry *dst)
{
	struct event_names n = {key, keylen, NULL, 0};

	if (!o->json) {
		planned_text(o, type, key, keylen, reason);
		return;
	}
	/* an upload reads a local file, a download writes one */
	if (!o->plan &&
	    (strcmp(type, "upload") == 0 || strcmp(type, "download") == 0))
		names_of_file(o, key, keylen, &n);
	planned_json(o, type, &n, size, reason, src, dst);
}

void
output_backup(struct output *o, const char *name, size_t len, int local,
    uint64_t size, const char *to, const struct plan_entry *kept)
{
	struct event_names n = {name, len, NULL, 0};
	struct plan_entry none = {0};
	char *full = NULL;
	cJSON *obj;

	if (o->dry_run && local) {
		output_planned_path(
		    o, "backup", name, len, size, to, kept, &none);
		return;
	}
	if (o->dry_run) {
		output_planned(o, "backup", name, len, size, to, kept, &none);
		return;
	}
	if (!o->json) {
		planned_text(o, "backup", name, len, to);
		return;
	}
	if (local && names_of_path(o, name, len, &n, &full) != 0)
		return;
	if ((obj = event_new("backup")) != NULL) {
		add_names(obj, &n);
		cJSON_AddNumberToObject(obj, "size", (double)size);
		cJSON_AddStringToObject(obj, "to", to);
		emit(obj);
	}
	free(full);
}

void
output_planned_path(struct output *o, const char *type, const char *rel,
    size_t len, uint64_t size, const char *reason, const struct plan_entry *src,
    const struct plan_entry *dst)
{
	struct event_names n = {rel, len, NULL, 0};
	char *full = NULL;

	if (!o->json) {
		planned_text(o, type, rel, len, reason);
		return;
	}
	/* a plan file keeps its format: the path in "key" (PLAN FILES) */
	if (!o->plan && names_of_path(o, rel, len, &n, &full) != 0)
		return;
	planned_json(o, type, &n, size, reason, src, dst);
	free(full);
}

/*
 * The columns the progress line may fill: stderr's terminal's width, else
 * $COLUMNS, else 0 (no limit).
 */
static unsigned
term_width(void)
{
	struct winsize ws;
	const char *c;
	long n;

	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if ((c = getenv("COLUMNS")) != NULL && (n = strtol(c, NULL, 10)) > 0 &&
	    n < 10000)
		return (unsigned)n;
	return 0;
}

/*
 * Whether the progress line is due now (at most five times a second, or
 * force); notes the time when it is.
 */
static int
progress_due(struct output *o, int force)
{
	int64_t now = now_mono_ns();

	if (o->watching && o->watching->tick)
		o->watching->tick(o->watching->arg);
	if (!o->progress || (!force && now - o->last_progress_ns < 200000000))
		return 0;
	o->last_progress_ns = now;
	return 1;
}

/*
 * Puts line in place of the progress line, cut short of the terminal's
 * last column: a line that wrapped would not be overwritten by the next,
 * and they would pile up.  The line is ASCII: a byte is a column.
 */
static void
line_show(const char *line)
{
	unsigned w = term_width();
	size_t n = strlen(line);

	if (w > 0 && n > w - 1)
		n = w - 1;
	fprintf(stderr, "\r\033[K%.*s", (int)n, line);
}

/* The same, as the run's progress line, to be cleared before a line. */
static void
progress_show(struct output *o, const char *line)
{
	line_show(line);
	o->progress_shown = 1;
}

void
output_scan_progress(
    struct output *o, uint64_t files, uint64_t bytes, uint64_t hashed)
{
	char line[160], size[32], of[32] = "";

	if (!progress_due(o, 0))
		return;
	format_size(bytes, size, sizeof(size));
	/* the files the last scan found, while this one has fewer */
	if (o->expect_files > files)
		snprintf(of, sizeof(of), "/~%llu",
		    (unsigned long long)o->expect_files);
	snprintf(line, sizeof(line), "scanning: %llu%s files, %s, %llu read",
	    (unsigned long long)files, of, size, (unsigned long long)hashed);
	progress_show(o, line);
}

void
output_expect_scan(struct output *o, struct manifest *m)
{
	uint64_t nlocal, nremote;

	if (o->progress && m != NULL &&
	    manifest_count(m, &nlocal, &nremote) == FERRY_OK)
		o->expect_files = nlocal;
}

void
output_expect(
    struct output *o, const struct sync_opts *opts, struct manifest *m)
{
	uint64_t nlocal, nremote;

	/* apply runs a plan's actions, not the keys of a listing */
	if (!o->progress || opts->plan != NULL || m == NULL ||
	    manifest_count(m, &nlocal, &nremote) != FERRY_OK)
		return;
	o->expect_keys = remote_is_url(opts->src) ? nremote : nlocal;
}

/* The larger of a and b. */
static double
max_of(double a, double b)
{
	return a > b ? a : b;
}

/*
 * While keys are still being planned, and o->expect_keys says how many
 * there are: how far through them the run is, in keys (the ones skipped
 * and the ones planned), and an estimate of the time left: the larger of
 * the time the keys left take at the pace so far, and that of the
 * transfers they would add if they ask for what the keys seen asked for.
 */
static void
progress_keys(const struct output *o, const struct sync_counts *c,
    uint64_t planned, uint64_t planned_bytes, double secs, char *keys,
    char *eta, size_t n)
{
	uint64_t seen = c->skipped + planned, all = o->expect_keys;
	uint64_t done = c->uploaded + c->downloaded + c->copied + c->metadata +
	                c->linked + c->renamed;
	double frac, left;

	if (all == 0)
		return;
	snprintf(keys, n, ", %llu/%llu%s keys", (unsigned long long)seen,
	    (unsigned long long)(seen > all ? seen : all),
	    seen > all ? "+" : "");
	if (seen == 0 || seen >= all || secs <= 0)
		return;
	frac = (double)seen / (double)all;
	left = secs * (1 - frac) / frac;
	if (c->bytes > 0)
		left = max_of(left, ((double)planned_bytes / frac - c->bytes) /
		                        ((double)c->bytes / secs));
	if (done > 0)
		left = max_of(left,
		    ((double)planned / frac - done) / ((double)done / secs));
	snprintf(eta, n, ", ETA ~%.0fs", left);
}

void
output_progress(struct output *o, const struct sync_counts *c, uint64_t planned,
    uint64_t planned_bytes, int planned_all, int force)
{
	double secs = (double)(now_mono_ns() - o->started_ns) / 1e9, rate;
	uint64_t done = c->uploaded + c->downloaded + c->copied + c->metadata +
	                c->linked + c->renamed;
	char bytes[32], total[32], speed[32], eta[64] = "", keys[64] = "";
	char line[384], watching[64] = "";
	const char *more = planned_all ? "" : "+";

	if (!progress_due(o, force))
		return;
	rate = secs > 0 ? (double)c->bytes / secs : 0;
	format_size(c->bytes, bytes, sizeof(bytes));
	format_size(planned_bytes, total, sizeof(total));
	format_size((uint64_t)rate, speed, sizeof(speed));
	/* an ETA once the total is known; before, an estimate, if any */
	if (planned_all && rate > 0 && planned_bytes > c->bytes)
		snprintf(eta, sizeof(eta), ", ETA %.0fs",
		    (double)(planned_bytes - c->bytes) / rate);
	else if (!planned_all)
		progress_keys(
		    o, c, planned, planned_bytes, secs, keys, eta, sizeof(eta));
	if (o->watching)
		snprintf(watching, sizeof(watching),
		    ", %llu pending, %llu sent",
		    (unsigned long long)o->watching->pending,
		    (unsigned long long)(o->watching->sent + c->uploaded +
		                         c->copied + c->linked));
	snprintf(line, sizeof(line),
	    "%llu/%llu%s objects, %s/%s%s, %s/s%s%s, %llu deleted, %llu "
	    "failed%s%s",
	    (unsigned long long)done, (unsigned long long)planned, more, bytes,
	    total, more, speed, keys, eta, (unsigned long long)c->deleted,
	    (unsigned long long)c->failed, watching, o->concur);
	progress_show(o, line);
}

void
output_left_out(struct output *o, const char *path, const char *what)
{
	struct event_names n = {path, strlen(path), NULL, 0};
	char *full = NULL;
	cJSON *obj;

	if (o->json) {
		/* a plan file keeps its format: the path in "key" */
		if (!o->plan &&
		    names_of_path(o, path, strlen(path), &n, &full) != 0)
			return;
		if ((obj = event_new("left_out")) != NULL) {
			add_names(obj, &n);
			cJSON_AddStringToObject(obj, "reason", what);
			emit(obj);
		}
		free(full);
		return;
	}
	if (o->quiet || !o->verbose)
		return;
	clear_progress(o);
	fputs("left out: ", stdout);
	text_print(stdout, path, strlen(path));
	printf(" (a %s, not a file)\n", what);
}

/* The error line of a failure of n (NULL: of the run), with its kind. */
static cJSON *
error_json(const struct event_names *n, ferry_err e, const char *msg)
{
	cJSON *obj = event_new("error");

	if (obj == NULL)
		return NULL;
	if (n)
		add_names(obj, n);
	cJSON_AddStringToObject(obj, "error", ferry_err_token(e));
	/* the detail may quote a key */
	output_json_text(obj, "message", msg, strlen(msg));
	return obj;
}

/* Reports a failure of n (NULL: of the run), named name in text. */
static void
failed(struct output *o, const struct event_names *n, const char *name,
    size_t len, ferry_err e, const char *msg)
{
	if (o->json)
		emit(error_json(n, e, msg));
	clear_progress(o);
	if (name)
		log_error("%.*s: %s", (int)len, name, msg);
	else
		log_error("%s", msg);
}

void
output_error(struct output *o, const char *key, size_t keylen, ferry_err e,
    const char *msg)
{
	struct event_names n = {key, keylen, NULL, 0};

	failed(o, key ? &n : NULL, key, keylen, e, msg);
}

void
output_file_error(struct output *o, const char *key, size_t keylen, ferry_err e,
    const char *msg)
{
	struct event_names n;

	names_of_file(o, key, keylen, &n);
	failed(o, &n, key, keylen, e, msg);
}

void
output_path_error(
    struct output *o, const char *rel, size_t len, ferry_err e, const char *msg)
{
	struct event_names n = {rel, len, NULL, 0};
	char *full = NULL;

	/* out of memory: the path alone, in "key" as before */
	(void)names_of_path(o, rel, len, &n, &full);
	failed(o, &n, rel, len, e, msg);
	free(full);
}

void
output_json_error(ferry_err e, const char *msg)
{
	emit(error_json(NULL, e, msg));
	fflush(stdout);
}

void
output_failure(int json, ferry_err e)
{
	if (json)
		output_json_error(e, ferry_errmsg());
	log_error("%s", ferry_errmsg());
}

void
output_watch_line(const char *doing)
{
	char line[320];

	if (doing == NULL) {
		fputs("\r\033[K", stderr);
		return;
	}
	snprintf(line, sizeof(line), "watching: %s", doing);
	line_show(line);
}

void
output_watch(int json, const struct output_watch *w)
{
	cJSON *obj;

	if (!json || (obj = event_new("watch")) == NULL)
		return;
	cJSON_AddStringToObject(obj, "event", w->event);
	if (w->reason)
		cJSON_AddStringToObject(obj, "reason", w->reason);
	cJSON_AddNumberToObject(obj, "pending", (double)w->pending);
	cJSON_AddNumberToObject(obj, "runs", (double)w->runs);
	cJSON_AddNumberToObject(obj, "watched", (double)w->watched);
	cJSON_AddNumberToObject(obj, "sent", (double)w->sent);
	if (strcmp(w->event, "run") == 0)
		cJSON_AddNumberToObject(obj, "held", (double)w->held);
	if (w->status >= 0)
		cJSON_AddNumberToObject(obj, "status", w->status);
	emit(obj);
	fflush(stdout);
}

/*
 * A new event of type told by remote/ as it happens, or NULL: none with
 * --json off or for a plan (which holds what apply reads; the line remote/
 * writes on stderr tells), the progress line cleared for that line.
 * Emit it with emit_now().
 */
static cJSON *
remote_event(struct output *o, const char *type)
{
	cJSON *obj;

	if (!o->json || o->plan) {
		clear_progress(o);
		return NULL;
	}
	if ((obj = cJSON_CreateObject()) != NULL)
		cJSON_AddStringToObject(obj, "type", type);
	return obj;
}

/* Emits obj now: a reader of the stream learns of it now, not at the end. */
static void
emit_now(cJSON *obj)
{
	emit(obj);
	fflush(stdout);
}

void
output_retry(const struct remote_retry *t, void *arg)
{
	cJSON *obj;

	if ((obj = remote_event(arg, "retry")) == NULL)
		return;
	cJSON_AddStringToObject(obj, "method", t->method);
	output_json_text(obj, "bucket", t->bucket, strlen(t->bucket));
	output_json_key(obj, t->key, t->keylen);
	cJSON_AddNumberToObject(obj, "attempt", t->attempt);
	cJSON_AddNumberToObject(obj, "of", t->of);
	output_json_text(obj, "reason", t->why, strlen(t->why));
	emit_now(obj);
}

/* The progress line's words for t. */
static void
concur_words(struct output *o, const struct remote_concur *t)
{
	snprintf(o->concur, sizeof(o->concur), ", %u in flight (%s)",
	    t->in_flight, t->reason);
}

void
output_concur_start(struct output *o, const struct remote *r)
{
	struct remote_concur t;

	remote_concur_get(r, &t);
	concur_words(o, &t);
}

void
output_concur(const struct remote_concur *t, void *arg)
{
	struct output *o = arg;
	cJSON *obj;

	concur_words(o, t);
	if ((obj = remote_event(o, "concurrency")) == NULL)
		return;
	cJSON_AddNumberToObject(obj, "in_flight", t->in_flight);
	cJSON_AddNumberToObject(obj, "cap", t->cap);
	cJSON_AddBoolToObject(obj, "fixed", t->fixed);
	cJSON_AddStringToObject(obj, "reason", t->reason);
	cJSON_AddNumberToObject(obj, "requests_per_second", (int64_t)t->rate);
	cJSON_AddNumberToObject(
	    obj, "bytes_per_second", (int64_t)t->bytes_rate);
	emit_now(obj);
}

void
output_fallback(const struct remote_fallback *f, void *arg)
{
	cJSON *obj;

	if ((obj = remote_event(arg, "fallback")) == NULL)
		return;
	cJSON_AddStringToObject(obj, "condition", f->condition);
	cJSON_AddStringToObject(obj, "endpoint", f->endpoint);
	output_json_text(obj, "reason", f->reason, strlen(f->reason));
	cJSON_AddStringToObject(obj, "protection", f->protection);
	cJSON_AddStringToObject(obj, "instead", f->instead);
	emit_now(obj);
}

static void
add_requests(cJSON *obj, const struct remote_stats *rs)
{
	static const char *names[REMOTE_NKINDS] = {
	    "list", "get", "head", "put", "post", "delete"};
	cJSON *req = cJSON_AddObjectToObject(obj, "requests");
	int i;

	if (req == NULL)
		return;
	for (i = 0; i < REMOTE_NKINDS; i++)
		cJSON_AddNumberToObject(
		    req, names[i], rs ? (double)rs->requests[i] : 0);
	cJSON_AddNumberToObject(obj, "retries", rs ? (double)rs->retries : 0);
}

double
output_seconds(struct output *o)
{
	if (o->ended_ns == 0)
		o->ended_ns = now_mono_ns();
	return (double)(o->ended_ns - o->started_ns) / 1e9;
}

void
output_summary(struct output *o, const struct sync_counts *c,
    const struct remote_stats *rs, int exit_status)
{
	double secs = output_seconds(o);
	char size[32];
	cJSON *obj;

	if (o->json) {
		if ((obj = cJSON_CreateObject()) == NULL)
			return;
		cJSON_AddStringToObject(obj, "type", "summary");
		cJSON_AddBoolToObject(obj, "dry_run", o->dry_run);
		if (o->shard[0])
			cJSON_AddStringToObject(obj, "shard", o->shard);
		cJSON_AddNumberToObject(obj, "uploaded", (double)c->uploaded);
		cJSON_AddNumberToObject(obj, "copied", (double)c->copied);
		cJSON_AddNumberToObject(obj, "metadata", (double)c->metadata);
		cJSON_AddNumberToObject(obj, "linked", (double)c->linked);
		cJSON_AddNumberToObject(obj, "renamed", (double)c->renamed);
		cJSON_AddNumberToObject(
		    obj, "downloaded", (double)c->downloaded);
		cJSON_AddNumberToObject(obj, "deleted", (double)c->deleted);
		cJSON_AddNumberToObject(obj, "skipped", (double)c->skipped);
		cJSON_AddNumberToObject(obj, "failed", (double)c->failed);
		cJSON_AddNumberToObject(obj, "checked", (double)c->checked);
		cJSON_AddNumberToObject(obj, "left_out", (double)c->left_out);
		cJSON_AddNumberToObject(obj, "backed_up", (double)c->backed_up);
		cJSON_AddNumberToObject(obj, "bytes_sent", (double)c->bytes);
		cJSON_AddNumberToObject(obj, "seconds", secs);
		add_requests(obj, rs);
		cJSON_AddNumberToObject(obj, "exit_status", exit_status);
		emit(obj);
		fflush(stdout);
		return;
	}
	clear_progress(o);
	/* the object lines on stdout come before the summary on stderr */
	fflush(stdout);
	if (o->quiet || exit_status == EXIT_USAGE)
		return;
	format_size(c->bytes, size, sizeof(size));
	if (o->shard[0])
		fprintf(stderr, "shard %s: ", o->shard);
	fprintf(stderr, "%s", o->dry_run ? "dry run: would have " : "");
	if (c->downloaded)
		fprintf(stderr, "%llu downloaded, ",
		    (unsigned long long)c->downloaded);
	if (c->copied)
		fprintf(stderr, "%llu copied, ", (unsigned long long)c->copied);
	if (c->uploaded)
		fprintf(
		    stderr, "%llu uploaded, ", (unsigned long long)c->uploaded);
	if (!c->downloaded && !c->copied && !c->uploaded)
		fprintf(stderr, "0 %s, ", o->moved);
	if (c->renamed)
		fprintf(
		    stderr, "%llu renamed, ", (unsigned long long)c->renamed);
	if (c->metadata)
		fprintf(
		    stderr, "%llu metadata, ", (unsigned long long)c->metadata);
	if (c->linked)
		fprintf(stderr, "%llu linked, ", (unsigned long long)c->linked);
	fprintf(stderr, "%s moved, %llu deleted, %llu unchanged, %llu failed",
	    size, (unsigned long long)c->deleted,
	    (unsigned long long)c->skipped, (unsigned long long)c->failed);
	if (c->backed_up)
		fprintf(stderr, ", %llu backed up",
		    (unsigned long long)c->backed_up);
	if (c->left_out)
		fprintf(stderr, ", %llu left out (not files or folders%s)",
		    (unsigned long long)c->left_out,
		    o->verbose ? "" : "; -v names them");
	fprintf(stderr, " in %.1fs\n", secs);
}
