/*
 * backup.h: --backup-dir for a push or a mirror.  Before a run overwrites
 * or deletes an object, the object is copied server-side under the backup
 * prefix of the run's date (sync_opts.backup), only while it has the ETag
 * it was listed with; the overwrite or delete goes ahead only after that
 * copy was made.  Private to sync/up/.
 */
#ifndef FERRY_SYNC_BACKUP_H
#define FERRY_SYNC_BACKUP_H

#include "sync/up/up.h"

/* Called once the backup of a key ended: e FERRY_OK when it was made. */
typedef void (*backup_done_fn)(void *arg, ferry_err e);

/* Whether the run p keeps what it overwrites or deletes. */
int backup_on(const struct push *p);
/*
 * Starts the copy of the object fullkey (under the destination's prefix,
 * listed with size and etag) to its place under the backup prefix;
 * done(arg, e) follows from remote_run(), with the failure recorded
 * (ferry_fail()) and told for fullkey when e is not FERRY_OK.  A failure
 * to send is returned instead, done then not called.
 */
ferry_err backup_start(struct push *p, const char *fullkey, uint64_t size,
    const char *etag, backup_done_fn done, void *arg) FERRY_WUR;
/*
 * Copies to the backup each of the n objects keys[i] (full keys, lens[i]
 * bytes, listed with etags[i] and sizes[i]), as many at once as the
 * window allows, and waits for them: kept[i] is 1 for each copy made.
 * A key whose copy failed is told and counted as failed.  FERRY_ECANCEL
 * on a signal (the rest not kept), else FERRY_OK.
 */
ferry_err backup_keys(struct push *p, char *const *keys, const size_t *lens,
    const char (*etags)[MANIFEST_ETAG_MAX], const uint64_t *sizes, size_t n,
    unsigned char *kept) FERRY_WUR;
/*
 * Whether x is to keep the object it replaces before it starts: with
 * --backup-dir, an object listed (xfer_new() marks none as kept), not
 * kept yet, and bytes to replace
 * (a copy of new metadata onto the object keeps its bytes).
 */
int backup_due(const struct xfer *x);
/*
 * Starts the backup of the object x replaces (XF_BACKUP_SENT); x goes
 * back to XF_PUT_READY once it is made, and fails, the object left as
 * it is, when it is not.
 */
ferry_err backup_xfer(struct xfer *x) FERRY_WUR;
/*
 * A dry run: tells and counts the backup that overwriting or deleting
 * the object rel (rellen bytes, relative to the destination's prefix;
 * size bytes, listed with etag) would make first; nothing without
 * --backup-dir.
 */
void backup_planned(struct push *p, const char *rel, size_t rellen,
    uint64_t size, const char *etag);

#endif
