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
#include <openssl/evp.h>

#include "sync/internal.h"
#include "sync/planfile.h"

/* Prints one JSON object as a line and frees it. */
static void emit(cJSON *obj);

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
	/* what the summary says of the objects when none moved */
	if (opts->src && remote_is_url(opts->src))
		o->moved = opts->dst && remote_is_url(opts->dst) ? "copied"
		                                                 : "downloaded";
	else
		o->moved = "uploaded";
	o->progress = opts->progress || (!opts->quiet && !opts->json &&
	                                    !opts->dry_run && isatty(2));
	o->plan = opts->command && strcmp(opts->command, "plan") == 0;
	if (o->plan)
		emit(planfile_header_json(opts->src, opts->dst, opts->delete,
		    opts->follow_symlinks, opts->part_size,
		    opts->multipart_threshold));
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

/*
 * Returns a new NUL-terminated copy of the n bytes at s in which each byte
 * that does not belong to valid UTF-8 (and each NUL) is U+FFFD; *valid
 * says whether there were none.  NULL when out of memory.
 */
static char *
utf8_text(const char *s, size_t n, int *valid)
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

void
output_json_text(cJSON *obj, const char *name, const char *s, size_t n)
{
	char *t;
	int valid;

	if ((t = utf8_text(s, n, &valid)) == NULL)
		return;
	cJSON_AddStringToObject(obj, name, t);
	free(t);
}

void
output_json_key(cJSON *obj, const char *key, size_t keylen)
{
	char *t, *b64;
	int valid;

	if ((t = utf8_text(key, keylen, &valid)) == NULL)
		return;
	cJSON_AddStringToObject(obj, "key", t);
	free(t);
	if (valid)
		return;
	/* the exact bytes, when "key" could not carry them */
	if ((b64 = malloc(4 * ((keylen + 2) / 3) + 1)) == NULL)
		return;
	EVP_EncodeBlock(
	    (unsigned char *)b64, (const unsigned char *)key, (int)keylen);
	cJSON_AddStringToObject(obj, "key_base64", b64);
	free(b64);
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
output_planned(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason,
    const struct plan_entry *src, const struct plan_entry *dst)
{
	cJSON *obj;

	if (o->json) {
		if ((obj = cJSON_CreateObject()) == NULL)
			return;
		cJSON_AddStringToObject(
		    obj, "type", o->dry_run ? "plan" : type);
		if (o->dry_run)
			cJSON_AddStringToObject(obj, "action", type);
		output_json_key(obj, key, keylen);
		cJSON_AddNumberToObject(obj, "size", (double)size);
		if (reason)
			cJSON_AddStringToObject(obj, "reason", reason);
		if (o->dry_run && (src || dst))
			planfile_add_sides(obj, src, dst);
		emit(obj);
		return;
	}
	if (o->quiet || (!o->dry_run && !o->verbose))
		return;
	clear_progress(o);
	printf("%s%s: ", o->dry_run ? "(dry run) " : "", type);
	text_print(stdout, key, keylen);
	printf("%s%s%s\n", reason ? " (" : "", reason ? reason : "",
	    reason ? ")" : "");
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
progress_show(struct output *o, const char *line)
{
	unsigned w = term_width();
	size_t n = strlen(line);

	if (w > 0 && n > w - 1)
		n = w - 1;
	fprintf(stderr, "\r\033[K%.*s", (int)n, line);
	o->progress_shown = 1;
}

void
output_scan_progress(
    struct output *o, uint64_t files, uint64_t bytes, uint64_t hashed)
{
	char line[160], size[32];

	if (!progress_due(o, 0))
		return;
	format_size(bytes, size, sizeof(size));
	snprintf(line, sizeof(line), "scanning: %llu files, %s, %llu read",
	    (unsigned long long)files, size, (unsigned long long)hashed);
	progress_show(o, line);
}

void
output_progress(struct output *o, const struct sync_counts *c, uint64_t planned,
    uint64_t planned_bytes, int planned_all, int force)
{
	double secs = (double)(now_mono_ns() - o->started_ns) / 1e9, rate;
	uint64_t done = c->uploaded + c->downloaded + c->copied;
	char bytes[32], total[32], speed[32], eta[32] = "", line[256];
	const char *more = planned_all ? "" : "+";

	if (!progress_due(o, force))
		return;
	rate = secs > 0 ? (double)c->bytes / secs : 0;
	format_size(c->bytes, bytes, sizeof(bytes));
	format_size(planned_bytes, total, sizeof(total));
	format_size((uint64_t)rate, speed, sizeof(speed));
	/* an ETA only once the total is known */
	if (planned_all && rate > 0 && planned_bytes > c->bytes)
		snprintf(eta, sizeof(eta), ", ETA %.0fs",
		    (double)(planned_bytes - c->bytes) / rate);
	snprintf(line, sizeof(line),
	    "%llu/%llu%s objects, %s/%s%s, %s/s%s, %llu deleted, %llu failed",
	    (unsigned long long)done, (unsigned long long)planned, more, bytes,
	    total, more, speed, eta, (unsigned long long)c->deleted,
	    (unsigned long long)c->failed);
	progress_show(o, line);
}

void
output_left_out(struct output *o, const char *path, const char *what)
{
	cJSON *obj;

	if (o->json) {
		if ((obj = cJSON_CreateObject()) == NULL)
			return;
		cJSON_AddStringToObject(obj, "type", "left_out");
		output_json_key(obj, path, strlen(path));
		cJSON_AddStringToObject(obj, "reason", what);
		emit(obj);
		return;
	}
	if (o->quiet || !o->verbose)
		return;
	clear_progress(o);
	fputs("left out: ", stdout);
	text_print(stdout, path, strlen(path));
	printf(" (a %s, not a file)\n", what);
}

void
output_error(struct output *o, const char *key, size_t keylen, ferry_err e,
    const char *msg)
{
	cJSON *obj;

	if (o->json) {
		if ((obj = cJSON_CreateObject()) == NULL)
			return;
		cJSON_AddStringToObject(obj, "type", "error");
		if (key)
			output_json_key(obj, key, keylen);
		cJSON_AddStringToObject(obj, "error", ferry_err_name(e));
		/* the detail may quote a key */
		output_json_text(obj, "message", msg, strlen(msg));
		emit(obj);
	}
	clear_progress(o);
	if (key)
		log_error("%.*s: %s", (int)keylen, key, msg);
	else
		log_error("%s", msg);
}

void
output_retry(const struct remote_retry *t, void *arg)
{
	struct output *o = arg;
	cJSON *obj;

	/* a plan holds what apply reads; the line on stderr tells */
	if (!o->json || o->plan) {
		clear_progress(o);
		return;
	}
	if ((obj = cJSON_CreateObject()) == NULL)
		return;
	cJSON_AddStringToObject(obj, "type", "retry");
	cJSON_AddStringToObject(obj, "method", t->method);
	output_json_text(obj, "bucket", t->bucket, strlen(t->bucket));
	output_json_key(obj, t->key, t->keylen);
	cJSON_AddNumberToObject(obj, "attempt", t->attempt);
	cJSON_AddNumberToObject(obj, "of", t->of);
	output_json_text(obj, "reason", t->why, strlen(t->why));
	emit(obj);
	/* a reader of the stream learns of it now, not at the end */
	fflush(stdout);
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

void
output_summary(struct output *o, const struct sync_counts *c,
    const struct remote_stats *rs, int exit_status)
{
	double secs = (double)(now_mono_ns() - o->started_ns) / 1e9;
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
		cJSON_AddNumberToObject(
		    obj, "downloaded", (double)c->downloaded);
		cJSON_AddNumberToObject(obj, "deleted", (double)c->deleted);
		cJSON_AddNumberToObject(obj, "skipped", (double)c->skipped);
		cJSON_AddNumberToObject(obj, "failed", (double)c->failed);
		cJSON_AddNumberToObject(obj, "checked", (double)c->checked);
		cJSON_AddNumberToObject(obj, "left_out", (double)c->left_out);
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
	fprintf(stderr, "%s moved, %llu deleted, %llu unchanged, %llu failed",
	    size, (unsigned long long)c->deleted,
	    (unsigned long long)c->skipped, (unsigned long long)c->failed);
	if (c->left_out)
		fprintf(stderr, ", %llu left out (not files or folders%s)",
		    (unsigned long long)c->left_out,
		    o->verbose ? "" : "; -v names them");
	fprintf(stderr, " in %.1fs\n", secs);
}
