/*
 * shard.h: --shard I/N, the part of the keys one worker of N syncs.
 * Seen from other wings through sync/plan/plan.h.
 *
 * The contract, which never changes between versions: a key belongs to
 * shard I of N when the XXH3-64 hash (seed 0) of its path relative to the
 * sync root, as bytes ('/' separators, no leading '/': an object's key
 * with the prefix removed, a file's path under the folder), read as an
 * unsigned 64-bit integer, is I modulo N.  Both sides name a key by the
 * same relative path, so a push, a pull and a mirror of one tree agree
 * on which shard each key is in.
 *
 * Range shards (--shard-ranges FILE): shard I of N holds the keys in the
 * range (cuts[I-1], cuts[I]] of the file's N-1 cuts (relative keys,
 * ascending by bytes; shard 0 from the first key, shard N-1 to the last),
 * so that each lists its own range only.  The file is JSON:
 * {"shards": N, "cuts": ["key", ...]}, written by ferry ls --ranges N.
 */
#ifndef FERRY_SHARD_H
#define FERRY_SHARD_H

#include <stddef.h>
#include <stdio.h>

#include "common/common.h"

#define SHARD_COUNT_MAX 1000000 /* the most shards a run may name */
#define SHARD_NAME_MAX 16       /* "I/N" and its NUL */

/* A run's shard; count 0: not sharded, every key belongs. */
struct shard {
	unsigned index, count;
	int by_range; /* a range shard: the keys in (after, upto] */
	char *after;  /* NULL: from the first key */
	char *upto;   /* NULL: to the last */
};

/* The most bytes a --shard-ranges file may hold. */
#define SHARD_RANGES_MAX (64u << 20)

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
 * Reads "I/N" (decimal digits only, N from 1 to SHARD_COUNT_MAX, I below
 * N) into *index and *count: 1; 0 on anything else, the outputs then
 * unspecified.  Pure: --shard's argument and a split plan's "part".
 */
int shard_spec_parse(const char *s, unsigned *index, unsigned *count);

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

/*
 * Makes s (resolved, count > 0) a range shard from the text (len bytes)
 * of a --shard-ranges file: N must be s->count, the cuts N-1 keys of 1 to
 * 1024 bytes, strictly ascending.  FERRY_EUSAGE with a one-line detail on
 * anything else, s left a hash shard.  shard_clear() frees the range.
 */
ferry_err shard_ranges_parse(
    struct shard *s, const char *text, size_t len) FERRY_WUR;
/*
 * The same from the file at path (NULL: FERRY_OK, s unchanged); s must be
 * sharded (FERRY_EUSAGE otherwise).
 */
ferry_err shard_ranges_load(struct shard *s, const char *path) FERRY_WUR;
void shard_clear(struct shard *s);
/*
 * The range of a range shard into *after and *upto (valid while s is),
 * each NULL when open; both NULL for a hash shard or none.
 */
void shard_range(const struct shard *s, const char **after, const char **upto);

/*
 * The cuts of N balanced ranges of a sorted stream of keys: every stride-th
 * key is kept, the stride doubled (half the kept dropped) when SHARD_KEPT
 * are kept, so that memory stays bounded and the kept keys stay evenly
 * spaced in the stream.
 */
#define SHARD_KEPT 4096
struct shard_sketch {
	char *kept[SHARD_KEPT];
	size_t n;
	unsigned long long stride, seen;
};
/* Adds the next key (ascending); FERRY_ENOMEM. sk starts zeroed. */
ferry_err shard_sketch_add(
    struct shard_sketch *sk, const char *key, size_t keylen) FERRY_WUR;
/*
 * Writes the --shard-ranges file of count shards for the keys added into
 * f; FERRY_ESYS or FERRY_ENOMEM.  Frees the kept keys.
 */
ferry_err shard_sketch_write(
    struct shard_sketch *sk, unsigned count, FILE *f) FERRY_WUR;
void shard_sketch_free(struct shard_sketch *sk);

/* "I/N" into buf (of n bytes, SHARD_NAME_MAX is enough), "" unsharded. */
void shard_name(const struct shard *s, char *buf, size_t n);

#endif
