/* ls.c: "ferry ls s3://BUCKET[/PREFIX]": one line per object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "sync/internal.h"

static void
print_obj(
    const struct sync_opts *o, const char *prefix, const struct remote_obj *obj)
{
	char when[32] = "-", *key;
	struct tm tm;
	time_t t = (time_t)obj->last_modified;
	cJSON *j;

	if (obj->last_modified >= 0 && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!o->json) {
		/* the ETag and the key are the server's words: escaped */
		printf("%12llu  %s  ", (unsigned long long)obj->size, when);
		text_print(stdout, obj->etag, strlen(obj->etag));
		fputs("  ", stdout);
		text_print(stdout, prefix, strlen(prefix));
		text_print(stdout, obj->key, obj->keylen);
		putchar('\n');
		return;
	}
	if ((key = malloc(strlen(prefix) + obj->keylen + 1)) == NULL)
		return;
	sprintf(key, "%s%.*s", prefix, (int)obj->keylen, obj->key);
	if ((j = cJSON_CreateObject()) != NULL) {
		output_json_key(j, key, strlen(key));
		cJSON_AddNumberToObject(j, "size", (double)obj->size);
		cJSON_AddStringToObject(j, "etag", obj->etag);
		cJSON_AddStringToObject(j, "last_modified", when);
		char *s = cJSON_PrintUnformatted(j);
		if (s)
			puts(s);
		free(s);
		cJSON_Delete(j);
	}
	free(key);
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

	if ((e = remote_loc_parse(o->src, &loc)) != FERRY_OK ||
	    (e = remote_new(&o->remote, &r)) != FERRY_OK) {
		status = sync_exit_for(e);
		goto out;
	}
	if ((e = remote_list_open(r, loc.bucket, loc.prefix, &l)) != FERRY_OK)
		goto out;
	/* a reader that went away (ferry ls | head) ends the listing */
	while (!ferror(stdout) && (e = remote_list_next(l, &obj)) == FERRY_OK)
		print_obj(o, loc.prefix, &obj);
	if (e == FERRY_ENOTFOUND || e == FERRY_OK) {
		e = FERRY_OK;
		status = EXIT_SYNCED;
	}
out:
	if (e != FERRY_OK)
		log_error("%s", ferry_errmsg());
	remote_list_free(l);
	remote_free(r);
	remote_loc_clear(&loc);
	return status;
}
