/*
 * rename.h: --track-renames in a push.  A new key (no object under it)
 * is held back during the merge instead of uploaded; the deletes the
 * merge gathers whose stored content is known for certain (the
 * manifest's record of the object, with the ETag the listing shows) are
 * kept by their content hash.  When the merge is done, each new key
 * held back whose file has the content of such a delete is copied from
 * it on the server (keycopy.c); the others are uploaded.  The deletes
 * run after, as always.
 *
 * Memory is bounded: at most RENAMES_MAX new keys are held back and at
 * most RENAMES_MAX deletes kept as sources (with their keys, about 30
 * MiB for keys of 100 bytes, 150 MiB for keys of 1,024); past either
 * bound, the new keys met are uploaded at once and the deletes are not
 * sources, which costs bytes sent, never a wrong object.
 */
#ifndef FERRY_SYNC_RENAME_H
#define FERRY_SYNC_RENAME_H

#include <stddef.h>
#include <stdint.h>

#include "sync/run/run.h"

#define RENAMES_MAX 65536

/* A delete whose object's content the manifest knows. */
struct rename_src {
	uint8_t hash[16];
	uint64_t size;
	char *key; /* relative to the prefix, as listed */
	size_t keylen;
	char etag[MANIFEST_ETAG_MAX];
	uint64_t part_size;
	uint64_t copied; /* copies made from it */
};

/* A new key held back, with its file as scanned. */
struct rename_new {
	char *key;
	size_t keylen;
	struct plan_decision d;
	struct manifest_local l;
};

struct renames {
	struct rename_src *src;
	size_t nsrc, srccap;
	struct rename_new *nw;
	size_t nnew, newcap, next;
	int sorted;    /* src sorted by content, for the look-ups */
	int full_said; /* the bound was met, said once */
};

void renames_free(struct renames *rn);

#endif
