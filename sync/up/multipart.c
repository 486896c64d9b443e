/*
 * multipart.c: multipart uploads: create, parts in parallel, complete, or
 * abort on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/md5mb.h"
#include "sync/up/resume.h"
#include "sync/up/xfer.h"

struct part {
	struct xfer *x;
	uint32_t number; /* 1-based */
	uint8_t *buf;    /* the bytes, or NULL: read from x->fd as sent */
	size_t len;
	size_t cap; /* the buffer's size, for the pool */
	int out;    /* counted in p->eng.parts_out */
	int early;  /* sent before its MD5 was known: no digest */
	int again;  /* part 1 sent again, its early ETag not its MD5 */
};

enum { EARLY_SENT = 1, EARLY_ANSWERED, EARLY_AGAIN };

static ferry_err submit_part(struct part *pt);
static ferry_err part_go(struct xfer *x, uint32_t number, int again);
static void part_release(struct part *pt);

/*
 * Keeps the open upload in the manifest: a local file's for a later run to
 * resume, a copy's for it to clean up.
 */
static void
record_upload_id(struct xfer *x)
{
	struct manifest_remote rec;
	struct push *p = x->p;

	if (x->source == XS_FILE) {
		resume_record(x);
		return;
	}
	if (manifest_remote_get(p->run.m, x->t.key, x->t.keylen, &rec) !=
	    FERRY_OK)
		memset(&rec, 0, sizeof(rec));
	snprintf(rec.upload_id, sizeof(rec.upload_id), "%s", x->upload_id);
	/* committed at once, so that a run killed now leaves a trace */
	if (manifest_remote_put(p->run.m, x->t.key, x->t.keylen, &rec) !=
	        FERRY_OK ||
	    manifest_commit(p->run.m) != FERRY_OK)
		sync_manifest_warn();
}

const struct remote_upload *
xfer_upload(const struct xfer *x, struct remote_upload *u)
{
	u->bucket = x->p->run.loc.bucket;
	u->key = x->t.fullkey;
	u->keylen = strlen(x->t.fullkey);
	u->upload_id = x->upload_id;
	return u;
}

static void
on_create(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	ferry_err e;

	e = remote_create_upload_reply(q, &x->upload_id);
	remote_req_free(q);
	if (e != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	record_upload_id(x);
	x->state = XF_MP_PARTS;
}

ferry_err
start_create(struct xfer *x)
{
	struct push *p = x->p;
	struct stat st;
	ferry_err e;

	if (x->source == XS_FILE &&
	    (e = xfer_open_local(x, &x->fd, &st)) != FERRY_OK)
		return e;
	if (x->source == XS_FILE && !stat_matches_scan(&st, &x->t.local))
		return ferry_fail(
		    FERRY_ECHANGED, "the file changed since it was scanned");
	if (x->metadata && (e = metadata_read(x)) != FERRY_OK)
		return e;
	x->t.part_size = sync_part_size(x->t.local.size, p->run.o->part_size);
	x->t.nparts =
	    (uint32_t)sync_part_count(x->t.local.size, x->t.part_size);
	if (x->t.nparts == 0)
		x->t.nparts = 1;
	if ((x->part_md5 = calloc(x->t.nparts, 16)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = resume_try(x)) != FERRY_ENOTFOUND)
		return e;
	return send_create(x);
}

ferry_err
send_create(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_req *q;
	struct remote_put o;
	ferry_err e;

	xfer_put_opts(x, x->t.local.hash, x->t.local.mtime_ns, &o);
	if ((e = remote_create_upload(p->run.r, p->run.loc.bucket, x->t.fullkey,
	         strlen(x->t.fullkey), &o, &q)) != FERRY_OK)
		return e;
	if ((e = remote_req_submit(q, on_create, x)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	x->state = XF_MP_CREATE_SENT;
	return FERRY_OK;
}

static void
on_abort(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	struct manifest_remote rec;

	if (remote_req_result(q, 0) != FERRY_OK)
		log_warn("abort of the upload of %s: %s", x->t.fullkey,
		    ferry_errmsg());
	else if (x->source == XS_FILE)
		resume_forget(x);
	else if (manifest_remote_get(
	             x->p->run.m, x->t.key, x->t.keylen, &rec) == FERRY_OK) {
		rec.upload_id[0] = '\0';
		if (manifest_remote_put(
		        x->p->run.m, x->t.key, x->t.keylen, &rec))
			sync_manifest_warn();
	}
	remote_req_free(q);
	xfer_finish(x);
}

void
start_abort(struct xfer *x)
{
	struct remote_req *q = NULL;
	struct remote_upload u;

	x->state = XF_MP_ABORT_SENT;
	if (remote_abort_upload(x->p->run.r, xfer_upload(x, &u), &q) !=
	        FERRY_OK ||
	    remote_req_submit(q, on_abort, x) != FERRY_OK) {
		remote_req_free(q);
		xfer_finish(x);
	}
}

/* The ETag S3 gives a multipart object: MD5 of the parts' MD5s, "-N". */
static void
multipart_etag(const struct xfer *x, char *out, size_t outlen)
{
	uint8_t md5[16];

	remote_md5_buf(x->part_md5, (size_t)x->t.nparts * 16, md5);
	remote_etag_format(md5, x->t.nparts, out, outlen);
}

static void
on_complete(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	char want[MANIFEST_ETAG_MAX], *etag = NULL;
	ferry_err e;

	e = remote_complete_upload_reply(q, &etag);
	xfer_written_version(x, q);
	remote_req_free(q);
	if (e != FERRY_OK) {
		free(etag);
		xfer_fail(x, e);
		return;
	}
	multipart_etag(x, want, sizeof(want));
	/* parts named by other ETags than their MD5s make another one */
	if (etag && etag[0] && strcmp(etag, want) != 0 && !x->given_etag)
		log_warn("%s: the server's ETag %s differs from %s",
		    x->t.fullkey, etag, want);
	xfer_record(x, x->t.local.size, etag && etag[0] ? etag : want,
	    x->t.local.hash, x->t.local.mtime_ns, x->t.part_size);
	free(etag);
	free(x->upload_id);
	x->upload_id = NULL;
	resume_forget(x);
	if (x->parts_reused > 0)
		log_info("%s: %u of %u parts were on the server already",
		    x->t.fullkey, x->parts_reused, x->t.nparts);
	xfer_uploaded(x, x->t.local.size);
	xfer_finish(x);
}

static void
start_complete(struct xfer *x)
{
	struct remote_req *q = NULL;
	struct remote_upload u;
	char(*etags)[40] = NULL;
	const char **ptrs = NULL;
	struct stat st;
	uint32_t i;
	ferry_err e;

	if (x->source == XS_FILE &&
	    (fstat(x->fd, &st) != 0 || !stat_matches_scan(&st, &x->t.local))) {
		e = ferry_fail(
		    FERRY_ECHANGED, "the file changed while it was uploaded");
		goto out;
	}
	etags = calloc(x->t.nparts, sizeof(*etags));
	ptrs = calloc(x->t.nparts, sizeof(*ptrs));
	if (etags == NULL || ptrs == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < x->t.nparts; i++) {
		remote_etag_format(
		    x->part_md5[i], 0, etags[i], sizeof(etags[i]));
		ptrs[i] = x->given_etag && x->given_etag[i][0]
		              ? x->given_etag[i]
		              : etags[i];
	}
	if ((e = remote_complete_upload(x->p->run.r, xfer_upload(x, &u), ptrs,
	         x->t.nparts, &q)) != FERRY_OK)
		goto out;
	free(x->buf);
	x->buf = NULL;
	if ((e = remote_req_submit(q, on_complete, x)) != FERRY_OK)
		goto out;
	q = NULL;
	x->state = XF_MP_COMPLETE_SENT;
out:
	remote_req_free(q);
	free(etags);
	free(ptrs);
	if (e != FERRY_OK)
		xfer_fail(x, e);
}

/*
 * Part 1 of x went out with no MD5 digest, so that the send did not wait
 * for its MD5, and is answered: now that the MD5 is known, the server's
 * ETag must be that MD5, or the part goes again with its MD5 (the
 * bytes were not the ones read, or the server's ETags are no MD5s).
 */
static void
early_check(struct xfer *x)
{
	char want[MANIFEST_ETAG_MAX];
	ferry_err e;

	x->early = 0;
	if (remote_etag_is_md5_of(x->early_etag, x->part_md5[0])) {
		part_finished(x, FERRY_OK);
		return;
	}
	remote_etag_format(x->part_md5[0], 0, want, sizeof(want));
	log_info("%s: the server's ETag %s for part 1 is not the MD5 of its "
	         "bytes, %s; sending it again with its MD5",
	    x->t.fullkey, x->early_etag[0] ? x->early_etag : "(none)", want);
	/* the early part's place in flight goes to the part sent again */
	x->t.parts_inflight--;
	x->early = EARLY_AGAIN;
	if ((e = part_go(x, 1, 1)) != FERRY_OK) {
		x->early = 0;
		xfer_fail(x, e);
	}
}

/*
 * Part 1, sent again with its MD5 after its early ETag did not
 * match, is answered.  If the server took the MD5 and still names the part
 * by another ETag, its ETags are no MD5s: no early part can be checked.
 */
static void
again_answered(struct xfer *x, const char *etag)
{
	if (!remote_etag_is_md5_of(etag, x->part_md5[0]) &&
	    !x->p->etag_not_md5) {
		x->p->etag_not_md5 = 1;
		log_info("the server's part ETags are not their MD5s: parts "
		         "now go out once hashed");
	}
}

/*
 * Keeps the server's ETag for a part sent with its MD5, where it
 * is not that MD5: the server took the bytes, but names the part by
 * another ETag (an encrypted object's, as with SSE-KMS), and the Complete
 * must name it so.
 */
static ferry_err
keep_part_etag(struct xfer *x, uint32_t number, const char *etag)
{
	if (etag[0] == '\0' ||
	    remote_etag_is_md5_of(etag, x->part_md5[number - 1]))
		return FERRY_OK;
	if (strlen(etag) >= sizeof(x->given_etag[0]))
		return ferry_fail(FERRY_EHTTP,
		    "the server's ETag %s for part %u is too long", etag,
		    number);
	if (x->given_etag == NULL && (x->given_etag = calloc(x->t.nparts,
	                                  sizeof(*x->given_etag))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	snprintf(
	    x->given_etag[number - 1], sizeof(x->given_etag[0]), "%s", etag);
	return FERRY_OK;
}

static void
on_part(struct remote_req *q, void *arg)
{
	struct part *pt = arg;
	struct xfer *x = pt->x;
	const char *etag = remote_req_resp(q)->etag;
	int early = pt->early;
	ferry_err e;

	e = remote_req_result(q, 0);
	if (e == FERRY_OK && early)
		snprintf(x->early_etag, sizeof(x->early_etag), "%s", etag);
	if (e == FERRY_OK && pt->again)
		again_answered(x, etag);
	if (pt->again)
		x->early = 0;
	if (e == FERRY_OK && !early)
		e = keep_part_etag(x, pt->number, etag);
	remote_req_free(q);
	part_release(pt);
	if (!early) {
		part_finished(x, e);
		return;
	}
	if (e != FERRY_OK || x->t.failed) {
		x->early = 0;
		part_finished(x, e);
		return;
	}
	x->early = EARLY_ANSWERED;
	if (x->hashed > 0)
		early_check(x);
}

void
part_finished(struct xfer *x, ferry_err e)
{
	if (transfer_part_ended(&x->t, e))
		start_complete(x);
}

/*
 * A file's parts are hashed ahead of their sends, a batch at a time: their
 * MD5 digests side by side in the lanes of md5mb(), several times faster
 * than one after the other, however few requests the window lets out.
 * The parts are read through a small buffer, a piece of each at a time,
 * and read again from the file as they are sent: a part holds no memory
 * while it waits for its turn or for the server, and the page cache has it.
 * A new batch starts when fewer than a batch's parts, of all the files,
 * wait to be sent or are being hashed.
 */
struct hash_batch {
	struct xfer_read r; /* first: xfer_read_done() frees the batch */
	struct xfer *x;
	uint32_t first; /* parts first + 1 to first + n, 1-based */
	unsigned n;
};

/* Each lane's piece of a batch read; 1 MiB for all eight. */
#define PIECE (128u << 10)

/* Reads the batch's parts and hashes them into x->part_md5 (on a worker). */
static void
read_batch(struct workq_job *j)
{
	struct hash_batch *b = (struct hash_batch *)j;
	struct xfer *x = b->x;
	const uint8_t *data[MD5MB_LANES];
	size_t take[MD5MB_LANES], whole[MD5MB_LANES], done[MD5MB_LANES];
	size_t len[MD5MB_LANES];
	uint8_t *bufs;
	struct md5mb_ctx c;
	unsigned i, live = b->n;
	ferry_err e = FERRY_OK;

	if ((bufs = malloc((size_t)b->n * PIECE)) == NULL) {
		xfer_read_failed(
		    &b->r, ferry_fail(FERRY_ENOMEM, "out of memory"));
		return;
	}
	for (i = 0; i < b->n; i++)
		len[i] = (size_t)part_len(x, b->first + i + 1);
	md5mb_init(&c, b->n);
	memset(done, 0, sizeof(done));
	while (live > 0 && e == FERRY_OK) {
		for (i = 0; i < b->n && e == FERRY_OK; i++) {
			/* a lane ended has done > len */
			take[i] = done[i] > len[i] ? 0 : len[i] - done[i];
			if (take[i] > PIECE)
				take[i] = PIECE;
			data[i] = bufs + (size_t)i * PIECE;
			e = xfer_pread_full(x->fd, bufs + (size_t)i * PIECE,
			    take[i],
			    (uint64_t)(b->first + i) * x->t.part_size +
			        done[i]);
			/* the last piece's tail goes to md5mb_final() */
			whole[i] = done[i] + take[i] == len[i]
			               ? take[i] / 64 * 64
			               : take[i];
		}
		if (e != FERRY_OK)
			break;
		md5mb_update(&c, data, whole);
		for (i = 0; i < b->n; i++) {
			if (done[i] > len[i])
				continue;
			done[i] += take[i];
			if (done[i] < len[i])
				continue;
			md5mb_final(&c, i, data[i] + whole[i],
			    take[i] - whole[i], x->part_md5[b->first + i]);
			done[i] = len[i] + 1;
			live--;
		}
	}
	free(bufs);
	if (e != FERRY_OK)
		xfer_read_failed(&b->r, e);
}

/*
 * The part's last byte went out: the next may start while the server
 * writes this one's last bytes and answers (up to a second for 128M on a
 * Ceph gateway).  Sends with no gap keep the server busy writing; parts
 * started together otherwise all end together and leave it idle while
 * it answers.
 */
static void
part_sent(void *arg)
{
	struct part *pt = arg;

	if (pt->out) {
		pt->x->p->run.eng.parts_out -= pt->len;
		pt->x->p->parts_sending--;
		pt->out = 0;
	}
}

/* Gives the part's buffer, if it has one, back to the pool; frees it. */
static void
part_release(struct part *pt)
{
	if (pt->buf) {
		pt->x->p->run.eng.mem_used -= pt->len;
		xfer_buf_put(pt->x->p, pt->buf, pt->cap);
	} else {
		part_sent(pt);
		pt->x->p->run.eng.parts_alive -= pt->len;
	}
	free(pt);
}

/* The batch is hashed, or its read failed: its parts may go. */
static void
batch_hashed(struct workq_job *j)
{
	struct hash_batch *b = (struct hash_batch *)j;
	struct xfer *x = b->x;
	unsigned n = b->n;
	ferry_err e;

	e = xfer_read_done(x->p, &b->r); /* frees b */
	x->hashing = 0;
	if (e == FERRY_OK && !x->t.failed && !x->p->run.eng.stopping)
		x->hashed += n;
	/* counted in flight while hashed, so that a failure waits for it */
	x->t.parts_inflight--;
	/* an answered early part waits for no MD5 that will not come */
	if (x->early == EARLY_ANSWERED && x->hashed == 0) {
		x->early = 0;
		x->t.parts_inflight--;
	}
	if (x->p->run.eng.stopping)
		return;
	if (e != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	if (x->t.failed && x->t.parts_inflight == 0) {
		xfer_fail(x, x->t.err);
		return;
	}
	if (x->early == EARLY_ANSWERED)
		early_check(x);
}

/*
 * Whether x's part 1 may go before its MD5 at all: a new upload (not a
 * resumed one) to a server whose part ETags are MD5s as far as known.
 */
static int
early_upload(const struct xfer *x)
{
	return x->part_etag == NULL && !x->p->etag_not_md5;
}

/*
 * How many parts the next batch of x hashes: eight, or what is left.
 * Lanes end together, so the first part of a full batch is ready only
 * when all eight are: 0.45 s for eight of 128M on this machine's core,
 * against 0.2 s for one MD5 alone, but seven times the work for that one.
 * Part 1 of a new upload goes out early (early_allowed()) while its batch
 * is hashed, and takes longer to send than the batch to hash.  Where it
 * cannot go early (a resumed upload, a server whose ETags are not MD5s)
 * and no part is being sent, as when a run starts, a file's first part
 * is hashed alone, so that the first send waits for one MD5 only.
 */
static unsigned
batch_len(const struct xfer *x)
{
	if (x->hashed == 0 && x->p->run.eng.parts_out == 0 && !early_upload(x))
		return 1;
	return x->t.nparts - x->hashed < MD5MB_LANES ? x->t.nparts - x->hashed
	                                             : MD5MB_LANES;
}

/* The parts hashed and not sent yet, or being hashed, of all the files. */
static unsigned
parts_ahead(const struct push *p)
{
	const struct transfer *t;
	const struct xfer *x;
	unsigned n = 0;

	for (t = p->run.eng.active; t; t = t->next) {
		x = (const struct xfer *)t;
		if (x->source != XS_FILE || x->t.failed || !x->part_md5)
			continue;
		/* an early part is sent before it is hashed */
		n += x->hashed + x->hashing - x->t.next_part;
	}
	return n;
}

void
hash_ahead(struct xfer *x)
{
	struct hash_batch *b;
	uint64_t total = 0;
	unsigned i;

	/* one batch ahead of the sends, of all the files together: the next
	 * is hashed once fewer than a batch's parts wait */
	if (x->source != XS_FILE || x->state != XF_MP_PARTS || x->t.failed ||
	    x->hashing || x->hashed == x->t.nparts ||
	    parts_ahead(x->p) >= MD5MB_LANES)
		return;
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		xfer_fail(x, ferry_fail(FERRY_ENOMEM, "out of memory"));
		return;
	}
	b->x = x;
	b->first = x->hashed;
	b->n = batch_len(x);
	for (i = 0; i < b->n; i++)
		total += part_len(x, b->first + i + 1);
	x->hashing = b->n;
	x->t.parts_inflight++;
	b->r.job.run = read_batch;
	b->r.job.done = batch_hashed;
	/* a hash holds no request of the window: nreads 0 */
	xfer_read_submit(x->p, &b->r, (size_t)total, 0);
}

uint64_t
part_len(const struct xfer *x, uint32_t number)
{
	uint64_t off = (uint64_t)(number - 1) * x->t.part_size;

	return x->t.local.size - off < x->t.part_size ? x->t.local.size - off
	                                              : x->t.part_size;
}

/*
 * Whether some file's early part 1 is answered and waits for its check, or
 * goes again after it: until that settles whether the server's part ETags
 * are MD5s, no other part 1 goes early (to a server whose ETags are not,
 * each would go twice).
 */
static int
early_unsettled(const struct push *p)
{
	const struct transfer *t;
	const struct xfer *x;

	for (t = p->run.eng.active; t; t = t->next) {
		x = (const struct xfer *)t;
		if (x->early == EARLY_ANSWERED || x->early == EARLY_AGAIN)
			return 1;
	}
	return 0;
}

/*
 * Whether part 1 of x may go before its MD5 is known: its hash is under
 * way, the upload is a new one (a resumed one compares the parts the
 * server holds by MD5), and the server's ETags are MD5s as far as known.
 * The send starts that much sooner: the MD5 of a first part of 128M takes
 * a quarter of a second on this machine's core, and nothing else is sent
 * meanwhile when a run starts.
 */
static int
early_allowed(const struct xfer *x)
{
	return x->t.next_part == 0 && x->hashed == 0 && x->hashing > 0 &&
	       early_upload(x) && !early_unsettled(x->p);
}

unsigned
parts_ready(const struct xfer *x)
{
	/* next_part passes hashed by one while part 1 goes early */
	if (x->t.next_part >= x->hashed)
		return (unsigned)early_allowed(x);
	return x->hashed - x->t.next_part;
}

/*
 * Sends part number of x, counted in flight and in the window; again: part
 * 1 once more, after its early ETag.
 */
static ferry_err
part_go(struct xfer *x, uint32_t number, int again)
{
	struct part *pt;
	ferry_err e;

	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	pt->x = x;
	pt->number = number;
	pt->len = (size_t)part_len(x, pt->number);
	pt->early = number > x->hashed;
	pt->again = again;
	x->p->run.eng.parts_out += pt->len;
	x->p->run.eng.parts_alive += pt->len;
	x->p->parts_sending++;
	pt->out = 1;
	x->t.parts_inflight++;
	if (pt->early)
		x->early = EARLY_SENT;
	if (resume_part_there(x, pt->number)) {
		part_release(pt);
		part_finished(x, FERRY_OK);
	} else if ((e = submit_part(pt)) != FERRY_OK) {
		part_release(pt);
		x->early = 0;
		part_finished(x, e);
	}
	return FERRY_OK;
}

ferry_err
start_part(struct xfer *x, unsigned n)
{
	ferry_err e;

	if (x->source == XS_COPY)
		return start_part_copy(x);
	if (x->source == XS_STREAM)
		return start_part_stream(x);
	while (n-- > 0 && x->state == XF_MP_PARTS && !x->t.failed &&
	       parts_ready(x) > 0)
		if ((e = part_go(x, ++x->t.next_part, 0)) != FERRY_OK)
			return e;
	return FERRY_OK;
}

ferry_err
send_part(struct xfer *x, uint32_t number, uint8_t *buf, size_t len)
{
	struct part *pt;
	ferry_err e;

	if ((pt = calloc(1, sizeof(*pt))) == NULL) {
		free(buf);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	pt->x = x;
	pt->number = number;
	pt->buf = buf;
	pt->len = len;
	pt->cap = len ? len : 1;
	remote_md5_buf(buf, len, x->part_md5[number - 1]);
	x->p->run.eng.mem_used += len;
	x->t.parts_inflight++;
	if ((e = submit_part(pt)) != FERRY_OK) {
		x->t.parts_inflight--;
		part_release(pt);
	}
	return e;
}

/* Sends the part, whose MD5 is in x->part_md5 unless it goes early (in
 * flight already). */
static ferry_err
submit_part(struct part *pt)
{
	struct xfer *x = pt->x;
	struct remote_upload u;
	struct remote_req *q;
	ferry_err e;

	if ((e = remote_upload_part(
	         x->p->run.r, xfer_upload(x, &u), pt->number, &q)) != FERRY_OK)
		return e;
	if (pt->buf)
		remote_req_body(
		    q, pt->buf, pt->len, x->part_md5[pt->number - 1]);
	else {
		remote_req_body_file(q, x->fd,
		    (uint64_t)(pt->number - 1) * x->t.part_size, pt->len,
		    pt->early ? NULL : x->part_md5[pt->number - 1]);
		remote_req_on_body_end(q, part_sent, pt);
	}
	if ((e = remote_req_submit(q, on_part, pt)) != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	return FERRY_OK;
}
