/*
 * shard.h: --shard I/N, the part of the keys one worker of N syncs.
 * Private to sync/.
 *
 * The contract, which never changes between versions: a key belongs to
 * shard I of N when the XXH3-64 hash (seed 0) of its path relative to the
 * sync root, as bytes ('/' separators, no leading '/': an object's key
 * with the prefix removed, a file's path under the folder), read as an
 * unsigned 64-bit integer, is I modulo N.  Both sides name a key by the
 * same relative path, so a push, a pull and a mirror of one tree agree
 * on which shard each key is in.
 */
#ifndef FERRY_SHARD_H
#define FERRY_SHARD_H

#include <stddef.h>

#include "common/common.h"

#define SHARD_COUNT_MAX 1000000 /* the most shards a run may name */
#define SHARD_NAME_MAX 16       /* "I/N" and its NUL */

/* A run's shard; count 0: not sharded, every key belongs. */
struct shard {
	unsigned index, count;
};

/* The variables that give the defaults, each NULL when unset. */
struct shard_env {
	const char *job_index;   /* JOB_COMPLETION_INDEX */
	const char *slurm_id;    /* SLURM_ARRAY_TASK_ID */
	const char *slurm_count; /* SLURM_ARRAY_TASK_COUNT */
	const char *slurm_min;   /* SLURM_ARRAY_TASK_MIN */
	const char *slurm_max;   /* SLURM_ARRAY_TASK_MAX */
	const char *slurm_step;  /* SLURM_ARRAY_TASK_STEP */
};

/*
 * The shard of a run, from --shard's argument (spec, "I/N", or NULL),
 * --shards' (count, "N", or NULL) and env: spec as given; count with the
 * index from env->job_index; neither: env's SLURM task id (less its
 * SLURM_ARRAY_TASK_MIN when set) and count when both are set, refusing an
 * array with gaps or a step, whose ids are not 0 to N-1 from the minimum;
 * else not sharded.  A pure function: it reads no environment.  On a bad value
 * or both options, FERRY_EUSAGE with a one-line detail, and *out is zero.
 */
ferry_err shard_resolve(const char *spec, const char *count,
    const struct shard_env *env, struct shard *out) FERRY_WUR;

/* shard_resolve() with env read from the process's environment. */
ferry_err shard_from_env(
    const char *spec, const char *count, struct shard *out) FERRY_WUR;

/*
 * Non-zero when the key (keylen bytes, relative to the sync root) belongs
 * to shard s, or when s is not sharded.  Thread-safe.
 */
int shard_match(const struct shard *s, const char *key, size_t keylen);

/* "I/N" into buf (of n bytes, SHARD_NAME_MAX is enough), "" unsharded. */
void shard_name(const struct shard *s, char *buf, size_t n);

#endif
