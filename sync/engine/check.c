/*
 * check.c: the one content check, which decides whether an object and a
 * local file hold the same bytes when no manifest record says so: by the
 * file's MD5 against a single-part ETag, else by the content hash ferry
 * stored with the object, from a HEAD, else (the kind of transfer
 * decides) by size and time.  An MD5 that is not the ETag takes the HEAD
 * too: an object encrypted with a KMS or a customer's key has an ETag
 * that is no MD5.  Each kind of transfer answers it through its
 * transfer_ops (a push's in sync/up/verdicts.c, a pull's in
 * sync/down/).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/run/run.h"
#include "sync/engine/posix.h"
#include "sync/engine/transfer.h"

static void
on_head(struct remote_req *q, void *arg)
{
	struct transfer *t = arg;
	const struct remote_resp *s = remote_req_resp(q);
	char hex[33];
	ferry_err e;

	e = remote_req_result(q, 0);
	hex_encode(t->local.hash, 16, hex);
	if (e == FERRY_OK && t->md5_differs && !remote_resp_etag_opaque(s))
		t->ops->differs(t, "content differs");
	else if (e == FERRY_OK && s->meta_hash[0] &&
	         strcasecmp(s->meta_hash, hex) == 0)
		t->ops->same(t, t->local.hash, s);
	else if (e == FERRY_OK && s->meta_hash[0])
		t->ops->differs(t, "content hash differs");
	else if (e == FERRY_OK || e == FERRY_ENOTFOUND)
		t->ops->unhashed(t, e, s);
	else
		transfer_fail(t, e);
	remote_req_free(q);
}

/* Hashes the local file of t, only while it is the file the scan saw. */
static ferry_err
hash_local(struct transfer *t, int rootfd, int follow, uint8_t xxh[16],
    uint8_t md5[16])
{
	struct stat st;
	uint64_t n;
	ferry_err e;
	int fd;

	if (!S_ISREG(t->local.mode)) /* --links, --keep-dirs */
		return posix_special_hash(rootfd, t, xxh, md5);
	e = manifest_local_open(rootfd, t->key, &t->local, follow, &fd, &st);
	if (e != FERRY_OK)
		return e;
	e = manifest_hash_fd(fd, xxh, md5, &n);
	close(fd);
	return e;
}

void
transfer_check_start(
    struct transfer *t, const char *bucket, int rootfd, int follow)
{
	struct remote_req *q;
	uint8_t xxh[16], md5[16];
	ferry_err e;

	if (remote_etag_is_md5(t->listed.etag)) {
		if ((e = hash_local(t, rootfd, follow, xxh, md5)) != FERRY_OK) {
			transfer_fail(t, e);
			return;
		}
		if (remote_etag_is_md5_of(t->listed.etag, md5)) {
			t->ops->same(t, xxh, NULL);
			return;
		}
		/* a HEAD tells whether the ETag is an MD5 at all (an
		 * encrypted object's is not) */
		t->md5_differs = 1;
	}
	if (t->no_head) {
		t->ops->differs(t, "content differs");
		return;
	}
	if ((e = remote_head_object(t->eng->r, bucket, t->fullkey,
	         strlen(t->fullkey), NULL, &q)) != FERRY_OK) {
		transfer_fail(t, e);
		return;
	}
	if ((e = remote_req_submit(q, on_head, t)) != FERRY_OK) {
		remote_req_free(q);
		transfer_fail(t, e);
	}
}

void
transfer_check_dry_run(struct transfer *t, const char *verb, const char *reason,
    int local_src, uint64_t *count)
{
	struct plan_entry local = {.present = 1,
	    .size = t->local.size,
	    .mtime_ns = t->local.mtime_ns,
	    .hash = t->local.hash};
	struct plan_entry obj = {.present = 1,
	    .size = t->listed.size,
	    .etag = t->listed.etag,
	    .version_id = local_src ? NULL : t->version_id};
	uint64_t size = local_src ? t->local.size : t->listed.size;

	output_planned(t->eng->out, verb, t->fullkey, strlen(t->fullkey), size,
	    reason, local_src ? &local : &obj, local_src ? &obj : &local);
	(*count)++;
	t->eng->counts->bytes += size;
}
