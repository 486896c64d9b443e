/*
 * filehash.h: reading and hashing one file of a folder for the scanner,
 * so that the hash is known to be of the bytes its stat describes.  Kept
 * within manifest/.
 */
#ifndef FERRY_MANIFEST_FILEHASH_H
#define FERRY_MANIFEST_FILEHASH_H

#include "manifest/manifest.h"

/*
 * The hashing of one file, which touches nothing but itself: it can run
 * on a worker thread.  A failure is kept in parts, since the detail of
 * ferry_fail() belongs to the thread that ran it; filehash_result() makes
 * the message on the thread that reads it.
 */
struct filehash {
	int dirfd;               /* the folder, open until it has run */
	const char *name;        /* the file in it, kept by the caller */
	int oflags;              /* to open it */
	struct manifest_local r; /* its stat and hash, when e is FERRY_OK */
	uint64_t nread;          /* bytes read, every try counted */
	ferry_err e;
	const char *what; /* "cannot read", ... for a failure with a message */
	int err;          /* the errno of what, or 0: detail says */
	char detail[128];
};

/* Sets h up to hash name in the folder dirfd, through a symlink if follow. */
void filehash_init(struct filehash *h, int dirfd, const char *name, int follow);

/* Has reads of fd leave its atime alone where the kernel allows. */
void filehash_no_atime(int fd);

/* Hashes the file of h into its fields. */
void filehash_run(struct filehash *h);

/*
 * Returns the outcome of h, once run, recording a failure with ferry_fail()
 * and naming the file path: FERRY_OK with h->r set, FERRY_ENOTFOUND when
 * it is gone or no longer a regular file, FERRY_ECHANGED when it kept
 * changing while read, else FERRY_ESYS or FERRY_ENOMEM.
 */
ferry_err filehash_result(const struct filehash *h, const char *path) FERRY_WUR;

/* Whether a and b have the same size, mtime, ctime, inode and device. */
int filehash_same_stat(
    const struct manifest_local *a, const struct manifest_local *b);

#endif
