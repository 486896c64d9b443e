/*
 * getrange.c: the ranged GETs of a pull, each written at its offset into
 * the temporary file, which is read back to be hashed once all are in (on
 * a worker thread when it is large, while the loop goes on).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/workq.h"
#include "sync/down/get.h"
#include "sync/down/down.h"

/* One ranged GET: bytes [off, off + len) of the object. */
struct part {
	struct dl *d;
	struct remote_req *q;
	uint64_t off, len, got;
	struct dl_pending pend;
};

/*
 * The assembled file read back to be hashed: on a worker when it is
 * large, so that the loop goes on meanwhile (an MD5 of 64 MiB, for an
 * object that carries no XXH3-128 of ferry's, takes about 0.1 s).
 */
struct readback {
	struct workq_job job; /* first */
	struct dl *d;
	int want_md5;
	uint64_t n;
	uint8_t xxh[16], md5[16];
	ferry_err e;
	char msg[256]; /* e's detail, from the thread that read */
};

/* Below this, the file is hashed at once on the loop's thread. */
#define READ_BACK_ON_WORKER_MIN (4u << 20)

static void
read_back(struct workq_job *j)
{
	struct readback *b = (struct readback *)j;

	b->e = FERRY_OK;
	if (lseek(b->d->fd, 0, SEEK_SET) != 0)
		b->e = ferry_fail(FERRY_ESYS, "seek: %s", strerror(errno));
	if (b->e == FERRY_OK)
		b->e = manifest_hash_fd(
		    b->d->fd, b->xxh, b->want_md5 ? b->md5 : NULL, &b->n);
	if (b->e != FERRY_OK)
		snprintf(b->msg, sizeof(b->msg), "%s", ferry_errmsg());
}

/* Verifies and installs the file read back. */
static void
read_back_done(struct workq_job *j)
{
	struct readback *b = (struct readback *)j;
	struct dl *d = b->d;
	ferry_err e = b->e;

	if (e != FERRY_OK)
		e = ferry_fail(e, "%s", b->msg);
	else if (b->n != d->t.listed.size)
		e = ferry_fail(FERRY_ESYS,
		    "%s: %" PRIu64 " bytes in the file, %" PRIu64 " listed",
		    d->t.key, b->n, d->t.listed.size);
	d->written = b->n;
	if (e == FERRY_OK)
		e = dl_verify(d, b->xxh, b->want_md5 ? b->md5 : NULL);
	if (e == FERRY_OK)
		e = dl_install(d, b->xxh);
	free(b);
	if (e != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	dl_downloaded(d);
}

/* A read back on a worker has ended: its file is installed, unless the
 * run is stopping, when it is dropped as the reads of a push are. */
static void
read_back_collected(struct workq_job *j)
{
	struct dl *d = ((struct readback *)j)->d;
	struct transfer_engine *eng = &d->p->run.eng;

	eng->reading--;
	if (eng->stopping) {
		free(j);
		d->t.done = 1;
		return;
	}
	read_back_done(j);
}

/* All ranges are in: the file is read back, hashed, verified, installed. */
static void
complete_ranged(struct dl *d)
{
	struct transfer_engine *eng = &d->p->run.eng;
	struct readback *b;
	struct workq *wq;
	ferry_err e;

	if ((e = dl_sparse_end(d)) != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		dl_fail(d, ferry_fail(FERRY_ENOMEM, "out of memory"));
		return;
	}
	b->d = d;
	b->want_md5 = !dl_is_xxh128_hex(d->meta.hash) && dl_etag_checks_md5(d);
	b->job.run = read_back;
	b->job.done = read_back_collected;
	if (d->t.listed.size >= READ_BACK_ON_WORKER_MIN &&
	    (wq = transfer_engine_workers(eng)) != NULL) {
		/* the loop waits on the workers while nothing is in flight */
		eng->reading++;
		workq_submit(wq, &b->job);
		return;
	}
	read_back(&b->job);
	read_back_done(&b->job);
}

/* A range cut off is asked again whole: its bytes are written over. */
static void
restart_part(void *arg)
{
	struct part *pt = arg;

	/* --sparse: a zero may now fall where the cut attempt wrote data */
	if (pt->pend.at > pt->pend.dense_end)
		pt->pend.dense_end = pt->pend.at;
	pt->got = 0;
	pt->pend.len = 0;
	pt->pend.at = pt->off;
}

/* A range's bytes, written where they belong in the file. */
static int
sink_part(const char *data, size_t len, void *arg)
{
	struct part *pt = arg;
	struct dl *d = pt->d;
	ferry_err e;

	if (d->t.failed || d->sink_err != FERRY_OK)
		return 1;
	/* the headers are all in: they must name the range asked for */
	if (pt->got == 0 &&
	    (e = remote_resp_check_range(remote_req_resp(pt->q), pt->off,
	         pt->len, d->t.listed.size)) != FERRY_OK)
		return dl_sink_fail(d, e);
	if (len > pt->len - pt->got)
		return dl_sink_fail(
		    d, ferry_fail(FERRY_EHTTP,
		           "the server sent more than the range "
		           "asked for"));
	if ((e = dl_pending_add(d, &pt->pend, data, len)) != FERRY_OK)
		return dl_sink_fail(d, e);
	pt->got += len;
	return 0;
}

static ferry_err
part_result(struct part *pt, struct remote_req *q)
{
	const struct remote_resp *s = remote_req_resp(q);
	struct dl *d = pt->d;
	ferry_err e = remote_req_result(q, 0);

	if (s->outcome == REMOTE_PRECONDITION_FAILED)
		return ferry_fail(FERRY_ECHANGED,
		    "the object was replaced while it was downloaded (its "
		    "ETag is no longer %s)",
		    d->t.listed.etag);
	if (d->sink_err != FERRY_OK)
		return ferry_fail(d->sink_err, "%s", d->sinkmsg);
	if (e != FERRY_OK)
		return e;
	if ((e = remote_resp_check_range(
	         s, pt->off, pt->len, d->t.listed.size)) != FERRY_OK)
		return e;
	if (pt->got != pt->len)
		return ferry_fail(FERRY_ENET,
		    "%s: %" PRIu64 " bytes of a %" PRIu64 "-byte range",
		    d->t.fullkey, pt->got, pt->len);
	if ((e = dl_pending_flush(d, &pt->pend)) != FERRY_OK)
		return e;
	dl_take_meta(d, s);
	return FERRY_OK;
}

static void
on_part(struct remote_req *q, void *arg)
{
	struct part *pt = arg;
	struct dl *d = pt->d;
	ferry_err e;

	e = part_result(pt, q);
	remote_req_free(q);
	dl_pending_free(&pt->pend);
	d->p->run.eng.parts_out -= pt->len;
	d->p->run.eng.parts_alive -= pt->len;
	free(pt);
	if (transfer_part_ended(&d->t, e))
		complete_ranged(d);
}

/* Sends the ranged GET for pt, which stays owned by the caller on failure. */
static ferry_err
send_part(struct part *pt)
{
	struct dl *d = pt->d;
	/* every range must come from the object that was listed */
	struct remote_get g = {
	    .if_match = d->t.listed.etag, .off = pt->off, .len = pt->len};
	struct remote_req *q;
	ferry_err e;

	if ((e = dl_new_get(d, &g, &q)) != FERRY_OK)
		return e;
	remote_req_sink(q, sink_part, pt);
	remote_req_sink_restart(q, restart_part);
	pt->q = q;
	if ((e = remote_req_submit(q, on_part, pt)) != FERRY_OK) {
		pt->q = NULL;
		remote_req_free(q);
	}
	return e;
}

ferry_err
dl_start_part(struct dl *d)
{
	struct part *pt;
	ferry_err e;

	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	pt->d = d;
	pt->off = (uint64_t)d->t.next_part * d->t.part_size;
	pt->len = d->t.listed.size - pt->off < d->t.part_size
	              ? d->t.listed.size - pt->off
	              : d->t.part_size;
	dl_pending_init(&pt->pend, pt->len, pt->off);
	if ((e = send_part(pt)) != FERRY_OK) {
		dl_pending_free(&pt->pend);
		free(pt);
		return e;
	}
	d->t.next_part++;
	d->t.parts_inflight++;
	d->p->run.eng.parts_out += pt->len;
	d->p->run.eng.parts_alive += pt->len;
	return FERRY_OK;
}

ferry_err
dl_start_ranged(struct dl *d)
{
	ferry_err e;

	if ((e = dl_open_temp(d)) != FERRY_OK)
		return e;
	d->t.part_size =
	    sync_range_size(d->t.listed.size, d->p->run.o->part_size);
	d->t.nparts = sync_part_count(d->t.listed.size, d->t.part_size);
	d->state = DL_PARTS;
	return FERRY_OK;
}
