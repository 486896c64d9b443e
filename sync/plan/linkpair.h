/*
 * linkpair.h: with --links, a link X is the key X.rclonelink, so a
 * bucket holding both X and X.rclonelink names one file twice.  A pull
 * makes the plain object and leaves the link's out, saying so: the safer
 * of the two (a link could point anywhere), and the same each run, so
 * runs settle.  The keys of a sorted listing go through a link_pairs,
 * which keeps the lengths of those taken that begin the last one taken:
 * X, when listed, comes before X.rclonelink and begins every key between
 * them.  Seen from other wings through sync/plan/plan.h.
 */
#ifndef FERRY_LINKPAIR_H
#define FERRY_LINKPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "manifest/manifest.h"

struct link_pairs {
	char last[MANIFEST_KEY_MAX]; /* the last key taken */
	size_t lastlen;
	uint16_t lens[MANIFEST_KEY_MAX]; /* of taken keys that begin it */
	size_t n;
};

/*
 * Takes key[0..n), the next of a listing in ascending byte order, into
 * lp (zeroed to begin).  Returns non-zero, and does not take it, when
 * key is a link's (X.rclonelink) whose X was taken: the caller leaves it
 * out.  Pure.
 */
int link_pairs_shadowed(struct link_pairs *lp, const char *key, size_t n);

#endif
