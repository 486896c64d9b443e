/*
 * info.c: "ferry manifest info": where a pair's manifest lives, what it
 * holds, and how its last run ended.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "sync/cmd/cmd.h"

static void
add_meta(struct manifest *m, cJSON *j, const char *name, const char *label)
{
	char v[4096];

	if (manifest_meta_get(m, name, v, sizeof(v)) == FERRY_OK)
		output_json_text(j, label, v, strlen(v));
}

/*
 * A meta value that is a number (the schema, an exit status) as one; left
 * out when it is none, which only a damaged manifest holds.
 */
static void
add_meta_number(struct manifest *m, cJSON *j, const char *name)
{
	char v[32], *end;
	long n;

	if (manifest_meta_get(m, name, v, sizeof(v)) != FERRY_OK)
		return;
	n = strtol(v, &end, 10);
	if (end != v && *end == '\0')
		cJSON_AddNumberToObject(j, name, (double)n);
}

static void
print_info(const struct sync_opts *o, struct manifest *m)
{
	uint64_t nl = 0, nr = 0;
	cJSON *j = cJSON_CreateObject(), *it;
	char *s;

	if (j == NULL)
		return;
	if (o->json)
		cJSON_AddStringToObject(j, "type", "manifest");
	output_json_text(
	    j, "manifest", manifest_dir(m), strlen(manifest_dir(m)));
	add_meta_number(m, j, "schema");
	add_meta(m, j, "source", "source");
	add_meta(m, j, "destination", "destination");
	add_meta(m, j, "shard", "shard");
	if (manifest_count(m, &nl, &nr) == FERRY_OK) {
		cJSON_AddNumberToObject(j, "local_entries", (double)nl);
		cJSON_AddNumberToObject(j, "remote_entries", (double)nr);
	}
	add_meta(m, j, "last_run", "last_run");
	add_meta_number(m, j, "last_status");
	add_meta(m, j, "run", "state");
	if (o->json) {
		if ((s = cJSON_PrintUnformatted(j)) != NULL)
			puts(s);
		free(s);
	} else {
		cJSON_ArrayForEach(it, j)
		{
			if (cJSON_IsString(it)) {
				/* paths and bucket names: escaped */
				printf("%-15s ", it->string);
				text_print(stdout, it->valuestring,
				    strlen(it->valuestring));
				putchar('\n');
			} else
				printf("%-15s %.0f\n", it->string,
				    it->valuedouble);
		}
	}
	cJSON_Delete(j);
}

/*
 * With --versions, a line for each remote record that names the version
 * ferry wrote (or read): its name under the prefix and the version id.
 * FERRY_OK, or the failure to read the records (a damaged one: FERRY_EDB).
 */
static ferry_err
print_versions(const struct sync_opts *o, struct manifest *m)
{
	struct manifest_iter *it = NULL;
	struct manifest_remote rec;
	const char *key;
	size_t keylen;
	cJSON *j;
	char *s;
	ferry_err e;

	if ((e = manifest_iter_new(m, MANIFEST_REMOTE, &it)) != FERRY_OK)
		return e;
	while (
	    (e = manifest_iter_remote(it, &key, &keylen, &rec)) == FERRY_OK) {
		if (rec.version_id[0] == '\0')
			continue;
		if (!o->json) {
			printf("%s  ", rec.version_id);
			text_print(stdout, key, keylen);
			putchar('\n');
			continue;
		}
		if ((j = cJSON_CreateObject()) == NULL)
			continue;
		cJSON_AddStringToObject(j, "type", "manifest_version");
		output_json_text(j, "name", key, keylen);
		cJSON_AddStringToObject(j, "version_id", rec.version_id);
		if ((s = cJSON_PrintUnformatted(j)) != NULL)
			puts(s);
		free(s);
		cJSON_Delete(j);
	}
	manifest_iter_free(it);
	return e == FERRY_ENOTFOUND ? FERRY_OK : e;
}

int
sync_manifest_info(const struct sync_opts *o)
{
	struct manifest *m = NULL;
	char dir[PATH_MAX];
	ferry_err e;

	if ((e = sync_manifest_find(o, dir, sizeof(dir))) != FERRY_OK ||
	    (e = manifest_open(dir, NULL, NULL, MANIFEST_INSPECT, &m)) !=
	        FERRY_OK) {
		output_failure(o->json, e);
		if (e == FERRY_ENOTFOUND)
			return EXIT_PARTIAL;
		return e == FERRY_EBUSY ? EXIT_BUSY : EXIT_USAGE;
	}
	print_info(o, m);
	if (o->versions && (e = print_versions(o, m)) != FERRY_OK) {
		output_failure(o->json, e);
		manifest_close(m);
		return EXIT_ABORTED;
	}
	manifest_close(m);
	return EXIT_SYNCED;
}
