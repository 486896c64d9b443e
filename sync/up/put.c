/*
 * put.c: single-request uploads: a file read whole (or a streamed source
 * object) sent with PUT.  A file of PUT_STREAM_MIN or more (only when
 * --multipart-threshold is raised above it) is hashed through a small
 * buffer and read again as it is sent, holding no buffer of its size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest/hash.h"
#include "remote/digest.h"
#include "sync/engine/engine.h"
#include "sync/up/xfer.h"

#define PUT_STREAM_MIN (8u << 20)

/* What x holds in memory while it is read and sent. */
static size_t
held(const struct xfer *x)
{
	return x->buf ? x->buflen : 0;
}

static void
on_put(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	const struct remote_resp *s = remote_req_resp(q);
	char want[MANIFEST_ETAG_MAX];
	ferry_err e;

	x->p->run.eng.mem_used -= held(x);
	e = remote_req_result(q, 0);
	if (e != FERRY_OK && remote_cond_refused(q, REMOTE_COND_PUT)) {
		remote_req_free(q);
		apply_put_refused(x);
		return;
	}
	remote_etag_format(x->md5, 0, want, sizeof(want));
	/* the server took the MD5 digest; an encrypted object's ETag is
	 * another, and is what listings show from now on */
	if (e == FERRY_OK && s->etag[0] &&
	    !remote_etag_is_md5_of(s->etag, x->md5)) {
		if (!remote_resp_etag_opaque(s))
			e = ferry_fail(FERRY_EHTTP,
			    "the server's ETag %s is not the MD5 %s of what "
			    "was sent",
			    s->etag, want);
		else if (strlen(s->etag) >= sizeof(want))
			e = ferry_fail(FERRY_EHTTP,
			    "the server's ETag %s is too long", s->etag);
		else
			snprintf(want, sizeof(want), "%s", s->etag);
	}
	xfer_written_version(x, q);
	remote_req_free(q);
	free(x->buf);
	x->buf = NULL;
	if (e != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	xfer_record(x, x->buflen, want, x->hash, x->sent_mtime_ns, 0);
	xfer_uploaded(x, x->buflen);
	xfer_finish(x);
}

ferry_err
posix_xfer_read(struct xfer *x)
{
	char target[POSIX_LINK_MAX + 1];
	struct stat st;
	size_t len = 0;
	ferry_err e;

	e = manifest_special_read(x->p->run.rootfd, x->t.key, x->t.keylen,
	    &x->t.local, target, sizeof(target), &len, &st);
	if (e != FERRY_OK)
		return e;
	if (len > x->t.local.size || x->buf == NULL)
		return ferry_fail(
		    FERRY_ECHANGED, "the symlink changed since it was scanned");
	memcpy(x->buf, target, len);
	x->buflen = len;
	x->sent_mtime_ns =
	    (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	manifest_hash_buf(target, len, x->hash);
	remote_md5_buf(target, len, x->md5);
	posix_from_stat(&st, x->sent_mtime_ns, &x->posix);
	return FERRY_OK;
}

/*
 * Reads the whole file into x->buf, hashing it, and checks it held still
 * (on a worker when it is large).
 */
static void
read_whole(struct workq_job *j)
{
	struct xfer_read *r = (struct xfer_read *)j;
	struct xfer *x = r->arg;
	struct stat before, after;
	ferry_err e;
	int fd;
	uint64_t n = 0;

	/* --links, --keep-dirs: a symlink's target, an empty folder */
	if (!S_ISREG(x->t.local.mode)) {
		if ((e = posix_xfer_read(x)) != FERRY_OK)
			xfer_read_failed(r, e);
		return;
	}
	if ((e = xfer_open_local(x, &fd, &before)) != FERRY_OK) {
		xfer_read_failed(r, e);
		return;
	}
	if ((size_t)before.st_size > x->buflen)
		e = ferry_fail(
		    FERRY_ECHANGED, "the file changed since it was scanned");
	else if (x->buf == NULL)
		/* streamed: hashed now, read again as it is sent */
		e = manifest_hash_fd(fd, x->hash, x->md5, &n);
	else
		e = xfer_pread_full(fd, x->buf, (size_t)before.st_size, 0);
	if (e == FERRY_OK &&
	    (fstat(fd, &after) != 0 || !stat_same(&before, &after) ||
	        (x->buf == NULL && n != (uint64_t)before.st_size)))
		e = ferry_fail(
		    FERRY_ECHANGED, "the file changed while it was read");
	if (e != FERRY_OK) {
		close(fd);
		xfer_read_failed(r, e);
		return;
	}
	x->buflen = (size_t)before.st_size;
	x->sent_mtime_ns = ts_ns(&before.st_mtim);
	if (x->buf == NULL) {
		x->fd = fd;
		return;
	}
	close(fd);
	xfer_digest_buf(x);
}

static void
put_read(struct workq_job *j)
{
	struct xfer_read *r = (struct xfer_read *)j;
	struct xfer *x = r->arg;
	ferry_err e = xfer_read_done(x->p, r);

	x->p->run.eng.mem_used -= x->buf ? x->t.local.size : 0;
	if (x->p->run.eng.stopping) {
		x->t.done = 1;
		return;
	}
	x->state = XF_PUT_READY;
	if (e == FERRY_OK)
		e = send_put(x);
	if (e != FERRY_OK)
		xfer_fail(x, e);
}

ferry_err
send_put(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_req *q;
	struct remote_put o;
	ferry_err e;

	xfer_put_opts(x, x->hash, x->sent_mtime_ns, &o);
	apply_put_cond(x, &o);
	if ((e = remote_put_object(p->run.r, p->run.loc.bucket, x->t.fullkey,
	         strlen(x->t.fullkey), &o, &q)) != FERRY_OK)
		return e;
	if (x->buf == NULL && x->fd >= 0)
		remote_req_body_file(q, x->fd, 0, x->buflen, x->md5);
	else
		remote_req_body(q, x->buf, x->buflen, x->md5);
	if ((e = remote_req_submit(q, on_put, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	p->run.eng.mem_used += held(x);
	x->state = XF_PUT_SENT;
	return FERRY_OK;
}

int
put_streams(const struct xfer *x)
{
	return x->source == XS_FILE && x->t.local.size >= PUT_STREAM_MIN;
}

ferry_err
start_put(struct xfer *x)
{
	struct xfer_read *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	/* as scanned: a file grown since is caught while it is read */
	x->buflen = (size_t)x->t.local.size;
	if (!put_streams(x) &&
	    (x->buf = malloc(x->buflen ? x->buflen : 1)) == NULL) {
		free(r);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	x->p->run.eng.mem_used += held(x);
	x->state = XF_PUT_READING;
	r->arg = x;
	r->job.run = read_whole;
	r->job.done = put_read;
	xfer_read_submit(x->p, r, x->buflen, 1);
	return FERRY_OK;
}
