/*
 * output.c: what a run tells: JSON lines on stdout (--json), or words on
 * stderr.  Keys are printed as their bytes; secrets never pass through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sync/internal.h"

void
output_init(struct output *o, const struct sync_opts *opts)
{
	memset(o, 0, sizeof(*o));
	o->json = opts->json;
	o->quiet = opts->quiet;
	o->verbose = opts->verbose;
	o->dry_run = opts->dry_run;
	o->started_ns = now_mono_ns();
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

/* A JSON string of the key's bytes (keys never hold NUL). */
static void
add_key(cJSON *obj, const char *key, size_t keylen)
{
	char *k = strndup(key, keylen);

	if (k == NULL)
		return;
	cJSON_AddStringToObject(obj, "key", k);
	free(k);
}

void
output_action(struct output *o, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason)
{
	cJSON *obj;

	if (o->json) {
		if ((obj = cJSON_CreateObject()) == NULL)
			return;
		cJSON_AddStringToObject(
		    obj, "type", o->dry_run ? "plan" : type);
		if (o->dry_run)
			cJSON_AddStringToObject(obj, "action", type);
		add_key(obj, key, keylen);
		cJSON_AddNumberToObject(obj, "size", (double)size);
		if (reason)
			cJSON_AddStringToObject(obj, "reason", reason);
		emit(obj);
		return;
	}
	if (o->quiet || (!o->dry_run && !o->verbose))
		return;
	printf("%s%s: %.*s%s%s%s\n", o->dry_run ? "(dry run) " : "", type,
	    (int)keylen, key, reason ? " (" : "", reason ? reason : "",
	    reason ? ")" : "");
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
			add_key(obj, key, keylen);
		cJSON_AddStringToObject(obj, "error", ferry_err_name(e));
		cJSON_AddStringToObject(obj, "message", msg);
		emit(obj);
	}
	if (key)
		log_error("%.*s: %s", (int)keylen, key, msg);
	else
		log_error("%s", msg);
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
		cJSON_AddNumberToObject(obj, "uploaded", (double)c->uploaded);
		cJSON_AddNumberToObject(
		    obj, "downloaded", (double)c->downloaded);
		cJSON_AddNumberToObject(obj, "deleted", (double)c->deleted);
		cJSON_AddNumberToObject(obj, "skipped", (double)c->skipped);
		cJSON_AddNumberToObject(obj, "failed", (double)c->failed);
		cJSON_AddNumberToObject(obj, "checked", (double)c->checked);
		cJSON_AddNumberToObject(obj, "bytes_sent", (double)c->bytes);
		cJSON_AddNumberToObject(obj, "seconds", secs);
		add_requests(obj, rs);
		cJSON_AddNumberToObject(obj, "exit_status", exit_status);
		emit(obj);
		fflush(stdout);
		return;
	}
	if (o->quiet || exit_status == EXIT_USAGE)
		return;
	format_size(c->bytes, size, sizeof(size));
	fprintf(stderr,
	    "%s%llu uploaded (%s), %llu deleted, %llu unchanged, "
	    "%llu failed in %.1fs\n",
	    o->dry_run ? "dry run: would have " : "",
	    (unsigned long long)c->uploaded, size,
	    (unsigned long long)c->deleted, (unsigned long long)c->skipped,
	    (unsigned long long)c->failed, secs);
}
