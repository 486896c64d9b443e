/*
 * ls.c: "ferry ls s3://BUCKET[/PREFIX]": one line per object (with
 * --versions, per version and delete marker); "ferry ls s3://": one line
 * per bucket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "sync/cmd/cmd.h"
#include "sync/run/run.h"

/* secs as "YYYY-MM-DDTHH:MM:SSZ" into when, or "-" when unknown (< 0). */
static void
format_time(int64_t secs, char when[32])
{
	time_t t = (time_t)secs;
	struct tm tm;

	strcpy(when, "-");
	if (secs >= 0 && gmtime_r(&t, &tm))
		strftime(when, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The failure of a line of JSON that could not be made. */
static ferry_err
no_memory(void)
{
	return ferry_fail(FERRY_ENOMEM,
	    "out of memory writing a line of JSON: ls stops here");
}

/*
 * Prints j as one line and frees it (accepts NULL).  ok is zero when a
 * member could not be added: j is then not printed, as it is not whole.
 * FERRY_ENOMEM when j is NULL, not whole or could not be printed: ls
 * stops there rather than go on without a line.
 */
static ferry_err
print_json(cJSON *j, int ok)
{
	char *s = j && ok ? cJSON_PrintUnformatted(j) : NULL;

	if (s)
		puts(s);
	free(s);
	cJSON_Delete(j);
	return s ? FERRY_OK : no_memory();
}

/* One object; FERRY_ENOMEM (ls stops) when its line cannot be made. */
static ferry_err
print_obj(
    const struct sync_opts *o, const char *prefix, const struct remote_obj *obj)
{
	char when[32], *key;
	cJSON *j;
	int ok;

	format_time(obj->last_modified, when);
	if (!o->json) {
		/* the ETag and the key are the server's words: escaped */
		printf("%12llu  %s  ", (unsigned long long)obj->size, when);
		text_print(stdout, obj->etag, strlen(obj->etag));
		fputs("  ", stdout);
		text_print(stdout, prefix, strlen(prefix));
		text_print(stdout, obj->key, obj->keylen);
		putchar('\n');
		return FERRY_OK;
	}
	if ((key = remote_key_join(prefix, obj->key, obj->keylen, NULL)) ==
	    NULL)
		return no_memory();
	ok = (j = cJSON_CreateObject()) != NULL &&
	     cJSON_AddStringToObject(j, "type", "object") &&
	     output_json_key(j, key, strlen(key)) == 0 &&
	     cJSON_AddNumberToObject(j, "size", (double)obj->size) &&
	     cJSON_AddStringToObject(j, "etag", obj->etag) &&
	     cJSON_AddStringToObject(j, "last_modified", when);
	free(key);
	return print_json(j, ok);
}

/* What a listing's callbacks print with, and the first failure. */
struct ls_ctx {
	const struct sync_opts *o;
	ferry_err err;
};

/* One bucket (a remote_bucket_fn); after a failure, nothing more. */
static void
print_bucket(const struct remote_bucket *b, void *arg)
{
	struct ls_ctx *c = arg;
	char when[32];
	cJSON *j;
	int ok;

	if (!c->o->json) {
		printf("s3://%s/\n", b->name);
		return;
	}
	if (c->err != FERRY_OK)
		return;
	format_time(b->created, when);
	ok = (j = cJSON_CreateObject()) != NULL &&
	     cJSON_AddStringToObject(j, "type", "bucket") &&
	     cJSON_AddStringToObject(j, "name", b->name) &&
	     (b->created >= 0 ? cJSON_AddStringToObject(j, "created", when)
	                      : cJSON_AddNullToObject(j, "created")) != NULL;
	c->err = print_json(j, ok);
}

/*
 * One version or delete marker (a remote_version_fn; arg: a struct
 * ls_ctx): non-zero stops the listing, the failure in the context.
 */
static int
print_version(const struct remote_version *v, void *arg)
{
	struct ls_ctx *c = arg;
	const struct sync_opts *o = c->o;
	char when[32];
	cJSON *j;
	int ok;

	format_time(v->last_modified, when);
	if (!o->json) {
		/* the server's words: escaped */
		printf("%12llu  %s  %-6s  ", (unsigned long long)v->size, when,
		    v->delete_marker ? "delete"
		    : v->latest      ? "latest"
		                     : "-");
		text_print(stdout, v->version_id, strlen(v->version_id));
		fputs("  ", stdout);
		text_print(stdout, v->etag[0] ? v->etag : "-",
		    v->etag[0] ? strlen(v->etag) : 1);
		fputs("  ", stdout);
		text_print(stdout, v->key, v->keylen);
		putchar('\n');
		return ferror(stdout);
	}
	ok = (j = cJSON_CreateObject()) != NULL &&
	     cJSON_AddStringToObject(j, "type", "version") &&
	     output_json_key(j, v->key, v->keylen) == 0 &&
	     output_json_text(
	         j, "version_id", v->version_id, strlen(v->version_id)) == 0 &&
	     cJSON_AddBoolToObject(j, "latest", v->latest) &&
	     cJSON_AddBoolToObject(j, "delete_marker", v->delete_marker) &&
	     cJSON_AddNumberToObject(j, "size", (double)v->size) &&
	     cJSON_AddStringToObject(j, "etag", v->etag) &&
	     cJSON_AddStringToObject(j, "last_modified", when);
	if ((c->err = print_json(j, ok)) != FERRY_OK)
		return 1;
	return ferror(stdout);
}

/* "ferry ls --versions s3://BUCKET[/PREFIX]". */
static ferry_err
ls_versions(
    const struct sync_opts *o, struct remote *r, const struct remote_loc *loc)
{
	struct ls_ctx c = {o, FERRY_OK};
	ferry_err e = remote_list_versions(
	    r, loc->bucket, loc->prefix, print_version, &c);

	/* the listing's own word on a stop would hide why */
	if (c.err != FERRY_OK)
		return no_memory();
	/* a reader that went away (ferry ls | head) ends the listing */
	return e == FERRY_ECANCEL && ferror(stdout) ? FERRY_OK : e;
}

/* "ferry ls s3://": the buckets of the account. */
static int
ls_buckets(const struct sync_opts *o)
{
	struct ls_ctx c = {o, FERRY_OK};
	struct remote *r = NULL;
	ferry_err e;
	int status = EXIT_SYNCED;

	if ((e = remote_new(&o->remote, &r)) != FERRY_OK)
		status = sync_exit_for(e);
	else if ((e = remote_list_buckets(r, print_bucket, &c)) != FERRY_OK ||
	         (c.err != FERRY_OK && (e = no_memory()) != FERRY_OK))
		status = EXIT_ABORTED;
	if (e != FERRY_OK)
		output_failure(o->json, e);
	remote_free(r);
	return status;
}

/*
 * ls --ranges N: the cuts of N ranges of l's keys with as many keys each,
 * as --shard-ranges reads them, on stdout.  Returns FERRY_ENOTFOUND once
 * written, or the failure.
 */
static ferry_err
ls_ranges(const struct sync_opts *o, struct remote_list *l)
{
	struct shard_sketch *sk = calloc(1, sizeof(*sk));
	struct remote_obj obj;
	ferry_err e;

	if (sk == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	while ((e = remote_list_next(l, &obj)) == FERRY_OK &&
	       (e = shard_sketch_add(sk, obj.key, obj.keylen)) == FERRY_OK)
		;
	if (e == FERRY_ENOTFOUND)
		e = shard_sketch_write(sk, o->ranges, stdout);
	shard_sketch_free(sk);
	free(sk);
	return e == FERRY_OK ? FERRY_ENOTFOUND : e;
}

int
sync_ls(const struct sync_opts *o)
{
	struct remote_loc loc = {0};
	struct remote *r = NULL;
	struct remote_list *l = NULL;
	struct remote_obj obj;
	ferry_err e;
	int status = EXIT_ABORTED;

	if (strcmp(o->src, "s3://") == 0)
		return ls_buckets(o);
	if ((e = remote_loc_parse(o->src, &loc)) != FERRY_OK ||
	    (e = remote_new(&o->remote, &r)) != FERRY_OK) {
		status = sync_exit_for(e);
		goto out;
	}
	if (o->versions) {
		e = ls_versions(o, r, &loc);
		status = e == FERRY_OK ? EXIT_SYNCED : EXIT_ABORTED;
		goto out;
	}
	if ((e = remote_list_open(r, loc.bucket, loc.prefix, &l)) != FERRY_OK)
		goto out;
	if (o->ranges) {
		e = ls_ranges(o, l);
	} else {
		/* a reader that went away (ferry ls | head) ends the listing */
		while (!ferror(stdout) &&
		       (e = remote_list_next(l, &obj)) == FERRY_OK &&
		       (e = print_obj(o, loc.prefix, &obj)) == FERRY_OK)
			;
	}
	if (e == FERRY_ENOTFOUND || e == FERRY_OK) {
		e = FERRY_OK;
		status = EXIT_SYNCED;
	}
out:
	if (e != FERRY_OK)
		output_failure(o->json, e);
	remote_list_free(l);
	remote_free(r);
	remote_loc_clear(&loc);
	return status;
}
