/*
 * getrange.c: the ranged GETs of a pull, each written at its offset into
 * the temporary file, which is read back to be hashed once all are in (on
 * a worker thread when it is large, while the loop goes on).
 */
#include <errno.h>
#include <fcntl.h>
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
 * The file the ranges make, read back and hashed as it grows: once the
 * ranges from its start are in, that stretch is hashed on a worker thread
 * while the rest arrive (an MD5 of 64 MiB, for an object that carries no
 * XXH3-128 of ferry's, takes about 0.1 s, which the loop's thread would
 * not spend on the network).  One stretch of a file at a time, since
 * the digests run in order; files side by side on the workers.
 */
struct dl_readback {
	struct workq_job job; /* first */
	struct dl *d;         /* NULL: d ended while a stretch was out */
	struct transfer_engine *eng;
	int fd; /* d's file, a descriptor of the reader's own */
	struct manifest_fdhash *h;
	uint8_t *in;    /* in[i]: range i is in the file */
	uint32_t nin;   /* ranges 0 to nin - 1 are all in */
	uint32_t done;  /* ranges hashed */
	uint32_t upto;  /* the stretch out ends at range upto */
	int out;        /* a stretch is on a worker */
	uint64_t bytes; /* its length */
	ferry_err e;
	char msg[256]; /* e's detail, from the thread that read */
};

static void
readback_free(struct dl_readback *b)
{
	if (b->fd >= 0)
		close(b->fd);
	manifest_fdhash_free(b->h);
	free(b->in);
	free(b);
}

void
dl_readback_drop(struct dl *d)
{
	struct dl_readback *b = d->rb;

	d->rb = NULL;
	if (b == NULL)
		return;
	if (b->out)
		b->d = NULL; /* freed when its stretch is collected */
	else
		readback_free(b);
}

/* Hashes the stretch (on a worker, or on the loop's thread). */
static void
read_stretch(struct workq_job *j)
{
	struct dl_readback *b = (struct dl_readback *)j;

	if ((b->e = manifest_fdhash_next(b->h, b->bytes)) != FERRY_OK)
		snprintf(b->msg, sizeof(b->msg), "%s", ferry_errmsg());
}

/* Whether d's bytes are checked by their MD5: no XXH3-128 of ferry's is
 * stored with the object, and its ETag is the MD5 of its bytes. */
static int
wants_md5(const struct dl *d)
{
	return !dl_is_xxh128_hex(d->meta.hash) && dl_etag_checks_md5(d);
}

/* All ranges are in and hashed: verifies and installs the file. */
static void
complete_ranged(struct dl *d)
{
	struct dl_readback *b = d->rb;
	int want_md5 = wants_md5(d);
	uint8_t xxh[16], md5[16];
	uint64_t n = 0;
	ferry_err e;

	if ((e = manifest_fdhash_final(b->h, xxh, want_md5 ? md5 : NULL, &n)) ==
	        FERRY_OK &&
	    n != d->t.listed.size)
		e = ferry_fail(FERRY_ESYS,
		    "%s: %" PRIu64 " bytes hashed, %" PRIu64 " listed",
		    d->t.key, n, d->t.listed.size);
	dl_readback_drop(d);
	d->written = n;
	if (e == FERRY_OK)
		e = dl_sparse_end(d);
	if (e == FERRY_OK)
		e = dl_verify(d, xxh, want_md5 ? md5 : NULL);
	if (e == FERRY_OK)
		e = dl_install(d, xxh);
	if (e != FERRY_OK) {
		dl_fail(d, e);
		return;
	}
	dl_downloaded(d);
}

static void stretch_collected(struct workq_job *j);

/*
 * Hashes what is in and not yet hashed: on a worker while the loop goes
 * on, or at once where no worker could start; completes d when the last
 * range is in and hashed.  Once the run is stopping, nothing more is
 * hashed.
 */
static void
readback_next(struct dl *d)
{
	struct dl_readback *b = d->rb;
	struct transfer_engine *eng = &d->p->run.eng;
	uint64_t ps = d->t.part_size, end;
	struct workq *wq;

	if (b == NULL || b->out || d->t.failed)
		return;
	if (eng->stopping) {
		/* what the ranges brought is dropped, as a push's reads are */
		if (d->t.parts_inflight == 0)
			d->t.done = 1;
		return;
	}
	if (b->done == d->t.nparts) {
		complete_ranged(d);
		return;
	}
	if (b->done == b->nin)
		return;
	/* the digests start with the first stretch: their kind is known
	 * from the replies' metadata by then */
	if (b->h == NULL && (b->e = manifest_fdhash_new(
	                         b->fd, wants_md5(d), &b->h)) != FERRY_OK) {
		dl_fail(d, b->e);
		return;
	}
	b->upto = b->nin;
	end = (uint64_t)b->upto * ps;
	if (end > d->t.listed.size)
		end = d->t.listed.size;
	b->bytes = end - (uint64_t)b->done * ps;
	b->job.run = read_stretch;
	b->job.done = stretch_collected;
	if ((wq = transfer_engine_workers(eng)) != NULL) {
		/* the loop waits on the workers while nothing is in flight */
		b->out = 1;
		eng->reading++;
		workq_submit(wq, &b->job);
		return;
	}
	read_stretch(&b->job);
	stretch_collected(&b->job);
}

/* A stretch has been hashed: the next one goes, or d completes. */
static void
stretch_collected(struct workq_job *j)
{
	struct dl_readback *b = (struct dl_readback *)j;
	struct dl *d = b->d;

	if (b->out) {
		b->out = 0;
		b->eng->reading--;
	}
	if (d == NULL) {
		readback_free(b);
		return;
	}
	if (b->e != FERRY_OK) {
		dl_fail(d, ferry_fail(b->e, "%s", b->msg));
		return;
	}
	b->done = b->upto;
	readback_next(d);
}

/* Range i of d is in its file. */
static void
range_in(struct dl *d, uint32_t i)
{
	struct dl_readback *b = d->rb;

	b->in[i] = 1;
	while (b->nin < d->t.nparts && b->in[b->nin])
		b->nin++;
	readback_next(d);
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
	uint32_t i = (uint32_t)(pt->off / d->t.part_size);
	ferry_err e;

	e = part_result(pt, q);
	remote_req_free(q);
	dl_pending_free(&pt->pend);
	d->p->run.eng.parts_out -= pt->len;
	d->p->run.eng.parts_alive -= pt->len;
	free(pt);
	if (transfer_part_ended(&d->t, e) || (e == FERRY_OK && !d->t.failed))
		range_in(d, i);
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
	struct dl_readback *b;
	ferry_err e;

	if ((e = dl_open_temp(d)) != FERRY_OK)
		return e;
	d->t.part_size =
	    sync_range_size(d->t.listed.size, d->p->run.o->part_size);
	d->t.nparts = sync_part_count(d->t.listed.size, d->t.part_size);
	dl_readback_drop(d);
	if ((b = calloc(1, sizeof(*b))) == NULL ||
	    (b->in = calloc(d->t.nparts, 1)) == NULL) {
		free(b);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	b->d = d;
	b->eng = &d->p->run.eng;
	if ((b->fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		e = ferry_fail(FERRY_ESYS,
		    "cannot duplicate the descriptor "
		    "of %s: %s",
		    d->t.key, strerror(errno));
		readback_free(b);
		return e;
	}
	d->rb = b;
	d->state = DL_PARTS;
	return FERRY_OK;
}
