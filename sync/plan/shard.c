/*
 * shard.c: --shard I/N and --shards N, their defaults from a Kubernetes
 * Indexed Job or a Slurm job array, and which keys a shard syncs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include <cJSON.h>

#include "manifest/hash.h"
#include "sync/plan/filter.h"
#include "sync/plan/shard.h"

#define SHARD_KEY_MAX 1024 /* the longest key S3 stores */

/*
 * Reads the decimal number s[0..len) (digits only: no sign, no spaces)
 * into *out; 0 when it is empty, has another byte or is above max.
 */
static int
take_number(const char *s, size_t len, unsigned long max, unsigned *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
		if (v > max)
			return 0;
	}
	*out = (unsigned)v;
	return 1;
}

static int
take_string(const char *s, unsigned long max, unsigned *out)
{
	return take_number(s, strlen(s), max, out);
}

int
shard_spec_parse(const char *s, unsigned *index, unsigned *count)
{
	const char *slash = strchr(s, '/');

	return slash != NULL &&
	       take_number(s, (size_t)(slash - s), SHARD_COUNT_MAX, index) &&
	       take_string(slash + 1, SHARD_COUNT_MAX, count) && *count != 0 &&
	       *index < *count;
}

/* --shard's "I/N". */
static ferry_err
parse_spec(const char *spec, struct shard *out)
{
	if (!shard_spec_parse(spec, &out->index, &out->count))
		return ferry_fail(FERRY_EUSAGE,
		    "invalid --shard '%.40s': want I/N, N from 1 to %d and I "
		    "from 0 to N-1",
		    spec, SHARD_COUNT_MAX);
	return FERRY_OK;
}

/* --shards N: the index from JOB_COMPLETION_INDEX. */
static ferry_err
parse_count(const char *count, const char *index, struct shard *out)
{
	if (!take_string(count, SHARD_COUNT_MAX, &out->count) ||
	    out->count == 0)
		return ferry_fail(FERRY_EUSAGE,
		    "invalid --shards '%.40s': want a number from 1 to %d",
		    count, SHARD_COUNT_MAX);
	if (index == NULL)
		return ferry_fail(FERRY_EUSAGE,
		    "--shards needs JOB_COMPLETION_INDEX, or use --shard I/N");
	if (!take_string(index, SHARD_COUNT_MAX, &out->index) ||
	    out->index >= out->count)
		return ferry_fail(FERRY_EUSAGE,
		    "invalid JOB_COMPLETION_INDEX '%.40s' for --shards %u: "
		    "want 0 to %u",
		    index, out->count, out->count - 1);
	return FERRY_OK;
}

/*
 * A Slurm job array: the task ids must run from SLURM_ARRAY_TASK_MIN
 * (when set) one by one, so that each shard has one task.
 */
static ferry_err
parse_slurm(const struct shard_env *env, struct shard *out)
{
	unsigned id, min = 0, max;

	if (!take_string(env->slurm_count, SHARD_COUNT_MAX, &out->count) ||
	    out->count == 0)
		return ferry_fail(FERRY_EUSAGE,
		    "invalid SLURM_ARRAY_TASK_COUNT '%.40s'", env->slurm_count);
	if (!take_string(env->slurm_id, UINT32_MAX, &id))
		return ferry_fail(FERRY_EUSAGE,
		    "invalid SLURM_ARRAY_TASK_ID '%.40s'", env->slurm_id);
	if (env->slurm_min && (!take_string(env->slurm_min, id, &min)))
		return ferry_fail(FERRY_EUSAGE,
		    "invalid SLURM_ARRAY_TASK_MIN '%.40s' for "
		    "SLURM_ARRAY_TASK_ID %u",
		    env->slurm_min, id);
	out->index = id - min;
	if (out->index >= out->count ||
	    (env->slurm_step && strcmp(env->slurm_step, "1") != 0) ||
	    (env->slurm_max &&
	        (!take_string(env->slurm_max, UINT32_MAX, &max) ||
	            max - min != out->count - 1)))
		return ferry_fail(FERRY_EUSAGE,
		    "SLURM_ARRAY_TASK_ID %u is not one of %u tasks numbered "
		    "from %u on, one by one: an array with gaps or a step "
		    "cannot be split into shards",
		    id, out->count, min);
	return FERRY_OK;
}

ferry_err
shard_resolve(const char *spec, const char *count, const struct shard_env *env,
    struct shard *out)
{
	ferry_err e = FERRY_OK;

	memset(out, 0, sizeof(*out));
	if (spec && count)
		return ferry_fail(
		    FERRY_EUSAGE, "--shard and --shards cannot both be given");
	if (spec)
		e = parse_spec(spec, out);
	else if (count)
		e = parse_count(count, env->job_index, out);
	else if (env->slurm_id && env->slurm_count)
		e = parse_slurm(env, out);
	if (e != FERRY_OK)
		memset(out, 0, sizeof(*out));
	return e;
}

ferry_err
shard_from_env(const char *spec, const char *count, struct shard *out)
{
	struct shard_env env;

	env.job_index = getenv("JOB_COMPLETION_INDEX");
	env.slurm_id = getenv("SLURM_ARRAY_TASK_ID");
	env.slurm_count = getenv("SLURM_ARRAY_TASK_COUNT");
	env.slurm_min = getenv("SLURM_ARRAY_TASK_MIN");
	env.slurm_max = getenv("SLURM_ARRAY_TASK_MAX");
	env.slurm_step = getenv("SLURM_ARRAY_TASK_STEP");
	return shard_resolve(spec, count, &env, out);
}

/* Whether key (keylen bytes) comes after the string bound. */
static int
key_after(const char *key, size_t keylen, const char *bound)
{
	size_t n = strlen(bound);
	int c = memcmp(key, bound, keylen < n ? keylen : n);

	return c > 0 || (c == 0 && keylen > n);
}

int
shard_match(const struct shard *s, const char *key, size_t keylen)
{
	if (s->count == 0)
		return 1;
	if (s->by_range)
		return (s->after == NULL || key_after(key, keylen, s->after)) &&
		       (s->upto == NULL || !key_after(key, keylen, s->upto));
	return manifest_hash_key(key, keylen, 0) % s->count == s->index;
}

void
shard_name(const struct shard *s, char *buf, size_t n)
{
	if (s->count == 0)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "%u/%u", s->index, s->count);
}

void
shard_clear(struct shard *s)
{
	free(s->after);
	free(s->upto);
	s->after = s->upto = NULL;
	s->by_range = 0;
}

void
shard_range(const struct shard *s, const char **after, const char **upto)
{
	*after = s->by_range ? s->after : NULL;
	*upto = s->by_range ? s->upto : NULL;
}

/* The i-th cut of a, checked: up to 1024 bytes, not before prev. */
static const char *
ranges_cut(const cJSON *a, int i, const char *prev)
{
	const cJSON *c = cJSON_GetArrayItem(a, i);
	const char *k = cJSON_IsString(c) ? c->valuestring : NULL;

	if (k == NULL || strlen(k) > SHARD_KEY_MAX ||
	    (prev != NULL && strcmp(k, prev) < 0))
		return NULL;
	return k;
}

ferry_err
shard_ranges_parse(struct shard *s, const char *text, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(text, len);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "shards");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "cuts");
	const char *k = NULL, *prev = NULL;
	ferry_err e = FERRY_OK;
	int i;

	if (!cJSON_IsNumber(n) || n->valuedouble != (double)s->count ||
	    !cJSON_IsArray(a) || cJSON_GetArraySize(a) != (int)s->count - 1) {
		e = ferry_fail(FERRY_EUSAGE,
		    "--shard-ranges: want {\"shards\": %u, \"cuts\": [%u "
		    "keys]}",
		    s->count, s->count - 1);
		goto out;
	}
	for (i = 0; i < (int)s->count - 1; i++, prev = k)
		if ((k = ranges_cut(a, i, prev)) == NULL) {
			e = ferry_fail(FERRY_EUSAGE,
			    "--shard-ranges: cut %d is not a key of up to %d "
			    "bytes, at or after the one before",
			    i + 1, SHARD_KEY_MAX);
			goto out;
		}
	shard_clear(s);
	s->by_range = 1;
	if ((s->index > 0 &&
	        (s->after = strdup(
	             cJSON_GetArrayItem(a, (int)s->index - 1)->valuestring)) ==
	            NULL) ||
	    (s->index + 1 < s->count &&
	        (s->upto = strdup(
	             cJSON_GetArrayItem(a, (int)s->index)->valuestring)) ==
	            NULL)) {
		shard_clear(s);
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
	}
out:
	cJSON_Delete(j);
	return e;
}

ferry_err
shard_ranges_load(struct shard *s, const char *path)
{
	struct buf b;
	ferry_err e;
	char msg[512];

	if (path == NULL)
		return FERRY_OK;
	if (s->count == 0)
		return ferry_fail(FERRY_EUSAGE,
		    "--shard-ranges needs --shard I/N or --shards N");
	if ((e = filter_file_read(path, &b)) == FERRY_OK) {
		e = b.len > SHARD_RANGES_MAX
		        ? ferry_fail(FERRY_EUSAGE, "larger than %u bytes",
		              SHARD_RANGES_MAX)
		        : shard_ranges_parse(s, b.data ? b.data : "", b.len);
		snprintf(msg, sizeof(msg), "%s", ferry_errmsg());
		if (e != FERRY_OK)
			ferry_fail(e, "%s: %s", path, msg);
	}
	buf_free(&b);
	return e;
}

ferry_err
shard_sketch_add(struct shard_sketch *sk, const char *key, size_t keylen)
{
	size_t i;

	if (sk->stride == 0)
		sk->stride = 1;
	if (sk->seen++ % sk->stride != 0)
		return FERRY_OK;
	if (sk->n == SHARD_KEPT) {
		/* every other kept key goes: the rest are 2 strides apart */
		for (i = 0; i < SHARD_KEPT / 2; i++) {
			free(sk->kept[2 * i + 1]);
			sk->kept[i] = sk->kept[2 * i];
		}
		sk->n = SHARD_KEPT / 2;
		sk->stride *= 2;
		if ((sk->seen - 1) % sk->stride != 0)
			return FERRY_OK;
	}
	if ((sk->kept[sk->n] = malloc(keylen + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(sk->kept[sk->n], key, keylen);
	sk->kept[sk->n++][keylen] = '\0';
	return FERRY_OK;
}

ferry_err
shard_sketch_write(struct shard_sketch *sk, unsigned count, FILE *f)
{
	cJSON *j = cJSON_CreateObject(), *a = cJSON_CreateArray();
	char *text = NULL;
	ferry_err e = FERRY_OK;
	unsigned i;

	if (j == NULL || a == NULL || !cJSON_AddItemToObject(j, "cuts", a)) {
		cJSON_Delete(a);
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	cJSON_AddNumberToObject(j, "shards", count);
	/* the same cut twice (fewer keys than shards) leaves a shard empty */
	for (i = 1; i < count; i++) {
		const char *k =
		    sk->n ? sk->kept[(size_t)i * sk->n / count] : "";
		cJSON_AddItemToArray(a, cJSON_CreateString(k));
	}
	if ((text = cJSON_PrintUnformatted(j)) == NULL)
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
	else if (fprintf(f, "%s\n", text) < 0 || fflush(f) != 0)
		e = ferry_fail(
		    FERRY_ESYS, "writing the ranges: %s", strerror(errno));
out:
	free(text);
	cJSON_Delete(j);
	shard_sketch_free(sk);
	return e;
}

void
shard_sketch_free(struct shard_sketch *sk)
{
	size_t i;

	for (i = 0; i < sk->n; i++)
		free(sk->kept[i]);
	sk->n = 0;
}
