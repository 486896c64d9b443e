/*
 * resume.h: multipart uploads that outlive a run, kept in the manifest.
 * Private to sync/up/.
 */
#ifndef FERRY_SYNC_RESUME_H
#define FERRY_SYNC_RESUME_H

#include "sync/up/xfer.h"

/*
 * Resumes the upload the manifest keeps for x's key when it fits x: asks
 * ListParts (state XF_MP_RESUME_SENT).  Aborts it first when it does not
 * fit, then creates a new one.  FERRY_ENOTFOUND when there is none.
 */
ferry_err resume_try(struct xfer *x) FERRY_WUR;
/* Keeps x's new upload in the manifest; resume_forget() drops it. */
void resume_record(struct xfer *x);
void resume_forget(struct xfer *x);
/*
 * Notes part number of size bytes and ETag etag as listed by the server;
 * returns non-zero when it is a part x can keep (number, size and an MD5
 * ETag that fit the upload).
 */
int resume_note_part(
    struct xfer *x, uint32_t number, uint64_t size, const char *etag);
/*
 * Whether part number, whose local bytes have their MD5 in x->part_md5, is
 * on the server already: its listed ETag is that MD5.
 */
int resume_part_there(struct xfer *x, uint32_t number);
/* Aborts an upload now; non-zero when it is gone (aborted or unknown). */
int resume_abort_upload(struct push *p, const char *key, const char *upload_id);
/* Whether the manifest keeps this upload of the full key key. */
int resume_owns(struct push *p, const char *key, const char *upload_id);
/* Drops the records of uploads whose id is not among ids (the open ones). */
void resume_forget_gone(struct push *p, char *const *ids, size_t n);
/* At the end of a run: aborts the kept uploads no key took up. */
void resume_sweep(struct push *p);

#endif
