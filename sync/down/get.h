/*
 * get.h: what the two halves of a pull's downloads share: get.c writes
 * the local file (temporary name, pending writes, verification, install)
 * and runs single GETs; getrange.c runs ranged GETs and schedules the
 * downloads.  Private to get.c and getrange.c.
 */
#ifndef FERRY_SYNC_GET_H
#define FERRY_SYNC_GET_H

#include "sync/down/down.h"

/* Keeps a sink's failure for the completion; returns non-zero (stop). */
int dl_sink_fail(struct dl *d, ferry_err e);
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
/* Writes out what w holds. */
ferry_err dl_pending_flush(struct dl *d, struct dl_pending *w) FERRY_WUR;
/* The next len bytes: kept in w while they fit, else written. */
ferry_err dl_pending_add(
    struct dl *d, struct dl_pending *w, const char *data, size_t len) FERRY_WUR;
/* Sends the single GET of d (again after a restart). */
ferry_err dl_send_get(struct dl *d) FERRY_WUR;
/* Opens the temporary file of d and sends its single GET. */
ferry_err dl_start_get(struct dl *d) FERRY_WUR;

#endif
