/*
 * get.h: what the files of a pull's downloads share, private to
 * sync/down/: get.c writes the local file (temporary name, pending
 * writes, verification, install) and runs single GETs; getrange.c runs
 * ranged GETs; download.c begins each download and answers the engine;
 * posixgive.c gives a file the metadata its object carries.
 */
#ifndef FERRY_SYNC_GET_H
#define FERRY_SYNC_GET_H

#include "sync/down/down.h"

/* Keeps a sink's failure for the completion; returns non-zero (stop). */
int dl_sink_fail(struct dl *d, ferry_err e);
/*
 * Puts a file at a free random temporary name in d's folder with
 * make(d, name, arg), which fails with EEXIST where the name is taken
 * (O_EXCL, linkat, RENAME_NOREPLACE): 0, the name in d->tmpname, or -1
 * with errno and d->tmpname "".
 */
int dl_temp_name(
    struct dl *d, int (*make)(struct dl *, const char *, void *), void *arg);
/* Creates the file to write in the target's folder (made if missing). */
ferry_err dl_open_temp(struct dl *d) FERRY_WUR;
/* Whether the ETag the bytes came with is their MD5, to check them by. */
int dl_etag_checks_md5(const struct dl *d);
/* Whether s is an XXH3-128 as ferry stores it: 32 hex digits. */
int dl_is_xxh128_hex(const char *s);
/*
 * Checks the bytes written (their XXH3-128 xxh, their MD5 md5 or NULL)
 * against the stored content hash or a single-part ETag.
 */
ferry_err dl_verify(
    const struct dl *d, const uint8_t xxh[16], const uint8_t *md5) FERRY_WUR;
/* Gives the verified file its mtime and puts it at its name. */
ferry_err dl_install(struct dl *d, const uint8_t xxh[16]) FERRY_WUR;
/* Counts and reports d downloaded, and ends it. */
void dl_downloaded(struct dl *d);
/* A GET of d's object, as g says; *q is the caller's. */
ferry_err dl_new_get(
    struct dl *d, const struct remote_get *g, struct remote_req **q) FERRY_WUR;
/* Room in w for a body of size bytes written from offset at. */
void dl_pending_init(struct dl_pending *w, uint64_t size, uint64_t at);
void dl_pending_free(struct dl_pending *w);
/*
 * --sparse: gives d's file its size, the listed one, which the holes left
 * at its end do not; FERRY_ESYS when it cannot.  Without it, nothing.
 */
ferry_err dl_sparse_end(struct dl *d) FERRY_WUR;
/* Writes out what w holds. */
ferry_err dl_pending_flush(struct dl *d, struct dl_pending *w) FERRY_WUR;
/* The next len bytes: kept in w while they fit, else written. */
ferry_err dl_pending_add(
    struct dl *d, struct dl_pending *w, const char *data, size_t len) FERRY_WUR;
/* Sends the single GET of d (again after a restart). */
ferry_err dl_send_get(struct dl *d) FERRY_WUR;
/* Opens the temporary file of d and sends its single GET. */
ferry_err dl_start_get(struct dl *d) FERRY_WUR;

/* getrange.c */
/* Opens the temporary file of d and cuts its object into ranges. */
ferry_err dl_start_ranged(struct dl *d) FERRY_WUR;
/* Sends d's next ranged GET. */
ferry_err dl_start_part(struct dl *d) FERRY_WUR;
/* Ends the reading back of d's file: at once, or (a stretch being hashed
 * on a worker) when that is collected. */
void dl_readback_drop(struct dl *d);

/* posixgive.c */
/*
 * --preserve: gives d's file (open on d->fd) the owner its object
 * carries, as root; the mode to give it goes in *mode and its atime in
 * *atime, for the caller's fchmod and futimens (each left as it is when
 * the object carries none).  The set-uid and set-gid bits are given only
 * with the owner and group the object carries: when they cannot be set
 * (no CAP_CHOWN, root-squashed NFS, a user namespace) the bits are left
 * off, as GNU tar leaves them, and that is said once a pull.  What cannot
 * be read or given is warned about, never a failure: the bytes are there.
 * For the pull's loop thread (it keeps what it said in d->p).
 */
void posix_restore(struct dl *d, struct timespec *atime, mode_t *mode);

/*
 * --links: makes the link that d's downloaded object (of a key ending in
 * POSIX_LINK_EXT) describes, in the place of its file, with mtime_ns,
 * and records it in the local table.
 * FERRY_EUSAGE when its target points outside the folder (without
 * --links-outside), or is empty or too long.
 */
ferry_err posix_link_install(
    struct dl *d, const uint8_t xxh[16], int64_t mtime_ns) FERRY_WUR;

#endif
