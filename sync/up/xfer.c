/*
 * xfer.c: what every transfer of a push or mirror shares: its operations
 * for the engine (transfer.h), its failure put off or settled, the record
 * it leaves in the manifest.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/md5mb.h"
#include "common/sparse.h"
#include "sync/up/mime.h"
#include "sync/engine/engine.h"
#include "sync/up/xfer.h"
#include "sync/up/backup.h"

void
xfer_free(struct xfer *x)
{
	if (x == NULL)
		return;
	if (x->fd >= 0)
		close(x->fd);
	free(x->buf);
	transfer_clear(&x->t);
	free(x->upload_id);
	free(x->part_md5);
	free(x->part_etag);
	free(x->given_etag);
	free(x->src_key);
	free(x->meta);
	free(x->xmeta);
	free(x->src_version);
	free(x->from_key);
	free(x->marker);
	free(x);
}

void
xfer_finish(struct xfer *x)
{
	if (x->fd >= 0) {
		close(x->fd);
		x->fd = -1;
	}
	if (x->retry_later) {
		if (x->state != XF_RETRY_LATER)
			x->p->run.eng.nparked++;
		x->state = XF_RETRY_LATER;
		return;
	}
	transfer_finish(&x->t);
}

void
xfer_fail(struct xfer *x, ferry_err e)
{
	transfer_fail(&x->t, e);
}

/*
 * A file caught changing gets one more try, at the end; so does a copy
 * whose condition the server refused, streamed, and a metadata copy in
 * parts the server refused, uploaded.
 */
static int
put_off(struct transfer *t, ferry_err e)
{
	struct xfer *x = xfer_of(t);

	/* the object it would replace could not be kept: it stays */
	if (x->backup_failed)
		return 0;
	/* the server answered a metadata copy in parts with a refusal */
	if (x->metadata && (e == FERRY_EHTTP || e == FERRY_ES3)) {
		metadata_parts_refused(x);
		return 1;
	}
	if (x->restream && x->source == XS_COPY) {
		x->source = XS_STREAM;
		x->retry_later = 1;
		log_info(
		    "%s: copied streamed instead, at the end", x->t.fullkey);
		return 1;
	}
	if (e != FERRY_ECHANGED || x->source != XS_FILE || x->changed_once ||
	    x->p->run.o->plan != NULL)
		return 0;
	x->changed_once = x->retry_later = 1;
	log_info("%s: %s; trying again at the end", x->t.fullkey, x->t.errmsg);
	return 1;
}

/* After a failure: aborts the upload, or ends x, once no part is out. */
static void
settle(struct transfer *t)
{
	struct xfer *x = xfer_of(t);

	if (x->upload_id && x->t.parts_inflight == 0 &&
	    x->state != XF_MP_ABORT_SENT) {
		start_abort(x);
		return;
	}
	if (x->t.parts_inflight == 0)
		xfer_finish(x);
}

/* After a fatal error: aborts the upload left open, once no part is out. */
static void
stop(struct transfer *t)
{
	struct xfer *x = xfer_of(t);

	if (x->upload_id && x->state != XF_MP_ABORT_SENT &&
	    x->t.parts_inflight == 0)
		start_abort(x);
}

ferry_err
xfer_open_local(struct xfer *x, int *fd, struct stat *st)
{
	const struct sync_opts *o = x->p->run.o;
	ferry_err e;

	e = manifest_local_open(x->p->run.rootfd, x->t.key, &x->t.local,
	    o->follow_symlinks, fd, st);
	if (e != FERRY_OK)
		return e;
	posix_from_stat(st, ts_ns(&st->st_mtim), &x->posix);
	free(x->xmeta);
	x->xmeta = NULL;
	if ((o->xattrs || o->acls) &&
	    (e = xattr_read_fd(*fd, x->t.key, o->xattrs, o->acls, &x->xmeta)) !=
	        FERRY_OK) {
		close(*fd);
		*fd = -1;
	}
	return e;
}

int64_t
ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

int
stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size &&
	       ts_ns(&a->st_mtim) == ts_ns(&b->st_mtim) &&
	       ts_ns(&a->st_ctim) == ts_ns(&b->st_ctim);
}

int
stat_matches_scan(const struct stat *st, const struct manifest_local *l)
{
	return (uint64_t)st->st_size == l->size &&
	       ts_ns(&st->st_mtim) == l->mtime_ns &&
	       ts_ns(&st->st_ctim) == l->ctime_ns;
}

void
xfer_written_version(struct xfer *x, const struct remote_req *q)
{
	/* the reply keeps no id longer than 255 bytes: none is cut here */
	snprintf(x->version_id, sizeof(x->version_id), "%.*s",
	    (int)sizeof(x->version_id) - 1, remote_req_resp(q)->version_id);
}

/*
 * Keeps in rec the POSIX metadata a file's object was just stored with
 * (x->posix, as sent), for the next push to compare: has_meta 0 when
 * the object carries none of a file or not all of it.
 */
static void
record_posix(const struct xfer *x, struct manifest_remote *rec)
{
	struct posix_attrs a;

	if ((x->source != XS_FILE && !x->metadata) || !x->posix.mode[0] ||
	    posix_decode(&x->posix, &a, NULL) != 0 || !a.has_mode ||
	    !a.has_uid || !a.has_gid)
		return;
	rec->has_meta = 1;
	rec->meta_mode = a.mode;
	rec->meta_uid = a.uid;
	rec->meta_gid = a.gid;
	/* -X, -A: what they were read as, sent or not (too large) */
	if (x->p->run.o->xattrs || x->p->run.o->acls) {
		rec->has_xattr = 1;
		rec->xattr_ctime_ns = x->t.local.ctime_ns;
		rec->xattr_hash = xfer_xattr_hash(x);
	}
}

uint64_t
xfer_xattr_hash(const struct xfer *x)
{
	uint8_t h[16];
	uint64_t v = 0;
	int i;

	if (x->xmeta == NULL)
		return 0;
	manifest_hash_buf(x->xmeta, strlen(x->xmeta), h);
	for (i = 0; i < 8; i++)
		v = v << 8 | h[i];
	/* 0 stands for none */
	return v ? v : 1;
}

/* Writes the record of what is now under the key. */
void
xfer_record(struct xfer *x, uint64_t size, const char *etag,
    const uint8_t *hash, int64_t mtime_ns, uint64_t part_size)
{
	struct manifest_remote rec;
	struct push *p = x->p;

	memset(&rec, 0, sizeof(rec));
	rec.size = size;
	rec.mtime_ns = mtime_ns;
	rec.part_size = part_size;
	if (hash) {
		memcpy(rec.hash, hash, 16);
		rec.has_hash = 1;
	}
	snprintf(rec.etag, sizeof(rec.etag), "%s", etag);
	snprintf(rec.src_etag, sizeof(rec.src_etag), "%s", x->src_etag);
	snprintf(rec.version_id, sizeof(rec.version_id), "%s", x->version_id);
	record_posix(x, &rec);
	if (manifest_remote_put(p->run.m, x->t.key, x->t.keylen, &rec) !=
	    FERRY_OK)
		sync_manifest_warn();
}

int
xfer_copy_settle(
    struct xfer *x, struct remote_req *q, uint64_t part_size, int *changed)
{
	char *etag = NULL;
	ferry_err e;

	e = xfer_copy_reply(x, q, &etag);
	*changed = remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED;
	remote_req_free(q);
	if (e == FERRY_OK)
		xfer_record(x, x->t.local.size, etag, x->t.local.hash,
		    x->t.local.mtime_ns,
		    remote_etag_multipart(etag) ? part_size : 0);
	free(etag);
	if (e == FERRY_OK)
		return 1;
	/* the server answered, and refused */
	if (e == FERRY_EHTTP || e == FERRY_ES3)
		return 0;
	xfer_fail(x, e);
	return -1;
}

void
xfer_put_opts(const struct xfer *x, const uint8_t hash[16], int64_t mtime_ns,
    struct remote_put *o)
{
	memset(o, 0, sizeof(*o));
	o->store = &x->p->run.o->store;
	if (x->source != XS_FILE && !x->metadata) {
		o->meta = x->meta;
		return;
	}
	o->content_type = mime_type(x->t.key, x->t.keylen);
	o->hardlink = x->marker;
	o->hash = hash;
	o->mtime_ns = mtime_ns;
	o->posix = x->posix.mode[0] ? &x->posix : NULL;
	/* never a cut value: over S3's bound, none of them goes */
	o->xmeta = x->xmeta;
	if (x->xmeta && remote_put_meta_size(o) > REMOTE_USER_META_MAX) {
		log_warn("%s: its extended attributes and ACL with ferry's "
		         "own metadata come to %zu bytes, more than the %d "
		         "an object keeps: sent without them",
		    x->t.key, remote_put_meta_size(o), REMOTE_USER_META_MAX);
		o->xmeta = NULL;
	}
}

void
xfer_upload_instead(struct xfer *x)
{
	struct push *p = x->p;

	x->multipart = x->t.local.size >= p->run.o->multipart_threshold;
	x->state = XF_PUT_READY;
	/* counted as planned already, its bytes now */
	p->run.eng.planned_bytes += x->t.local.size;
}

void
xfer_uploaded(struct xfer *x, uint64_t size)
{
	struct push *p = x->p;

	if (x->metadata) {
		p->run.counts.metadata++;
		output_written(&p->run.out, "metadata", x->t.fullkey,
		    strlen(x->t.fullkey), size, x->version_id);
		return;
	}
	if (x->source == XS_FILE)
		p->run.counts.uploaded++;
	else
		p->run.counts.copied++;
	p->run.counts.bytes += size;
	output_written(&p->run.out, x->source == XS_FILE ? "upload" : "copy",
	    x->t.fullkey, strlen(x->t.fullkey), size, x->version_id);
}

void
xfer_digest_buf(struct xfer *x)
{
	manifest_hash_buf(x->buf, x->buflen, x->hash);
	remote_md5_buf(x->buf, x->buflen, x->md5);
}

static void advance_one(struct transfer *t);

static void
free_one(struct transfer *t)
{
	xfer_free(xfer_of(t));
}

static const struct transfer_ops xfer_ops = {.advance = advance_one,
    .put_off = put_off,
    .settle = settle,
    .same = check_same,
    .differs = check_differs,
    .unhashed = check_unhashed,
    .stop = stop,
    .free = free_one};

struct xfer *
xfer_new(struct push *p, const char *key, size_t keylen,
    const struct remote_obj *dst)
{
	struct xfer *x;

	x = xfer_of(transfer_new(&p->run.eng, sizeof(*x), &xfer_ops,
	    p->run.loc.prefix, key, keylen, dst));
	if (x == NULL)
		return NULL;
	x->p = p;
	x->fd = -1;
	x->state = XF_PUT_READY;
	/* no object listed: nothing to keep before writing */
	x->backed_up = dst == NULL;
	return x;
}

void
xfer_planned(struct xfer *x)
{
	transfer_planned(&x->t, x->t.local.size);
}

ferry_err
xfer_begin(struct push *p, enum plan_action a, const char *key, size_t keylen,
    const struct manifest_local *local, const struct remote_obj *dst)
{
	struct xfer *x;

	if ((x = xfer_new(p, key, keylen, dst)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	x->t.local = *local;
	x->multipart = a == PLAN_MULTIPART_PUT;
	x->metadata = a == PLAN_METADATA;
	/* a metadata copy sends no byte of the file; in parts as a mirror's
	 * copy is, and past what one CopyObject copies */
	if (x->metadata && (local->size >= p->run.o->multipart_threshold ||
	                       local->size > REMOTE_MAX_COPY)) {
		x->multipart = 1;
		x->source = XS_COPY;
		x->have_src_head = 1;
	}
	if (x->metadata)
		transfer_planned(&x->t, 0);
	else if (a != PLAN_CHECK)
		xfer_planned(x);
	if (a == PLAN_CHECK) {
		x->state = XF_CHECK;
		start_check(x);
	}
	return FERRY_OK;
}

ferry_err
xfer_begin_copy(struct push *p, enum plan_action a,
    const struct remote_obj *src, const struct remote_obj *dst)
{
	struct xfer *x;

	if ((x = xfer_new(p, src->key, src->keylen, dst)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	x->source = p->source;
	/* a copy the server cannot condition is streamed */
	if (x->source == XS_COPY &&
	    !remote_copy_cond_usable(p->run.r, src->etag))
		x->source = XS_STREAM;
	x->multipart = a == PLAN_MULTIPART_COPY;
	x->t.local.size = src->size;
	/* listings are held to this bound; a plan's sizes are too */
	if (src->size > REMOTE_MAX_OBJECT) {
		xfer_fail(x, ferry_fail(FERRY_EPARSE,
		                 "listed as %" PRIu64 " bytes, more than the 5 "
		                 "TiB an object can have: not copied",
		                 src->size));
		return FERRY_OK;
	}
	xfer_planned(x);
	snprintf(x->src_etag, sizeof(x->src_etag), "%s", src->etag);
	if ((x->src_key = remote_key_join(
	         p->sloc.prefix, src->key, src->keylen, NULL)) == NULL) {
		x->t.done = 1;
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	if (src->version_id &&
	    (x->src_version = strdup(src->version_id)) == NULL) {
		x->t.done = 1;
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	return FERRY_OK;
}

/*
 * Readies a transfer put off because its file changed while it was read:
 * the file is looked at and hashed afresh, and the transfer starts over.
 */
static void
retry_changed(struct xfer *x)
{
	struct stat st;
	uint64_t n;
	ferry_err e;
	int fd;

	if (x->state == XF_RETRY_LATER)
		x->p->run.eng.nparked--;
	x->retry_later = x->t.failed = 0;
	/* the file changed, or its metadata copy was refused: its bytes
	 * go, read from the file */
	if (x->metadata) {
		x->p->run.eng.planned_bytes += x->t.local.size;
		x->source = XS_FILE;
		x->have_src_head = 0;
	}
	x->metadata = 0;
	/* a copy of another object: the file may hold other bytes now */
	if (x->from_key) {
		x->p->run.eng.planned_bytes += x->t.local.size;
		free(x->from_key);
		x->from_key = NULL;
	}
	x->t.next_part = x->t.parts_done = x->hashed = 0;
	x->early = 0;
	free(x->upload_id);
	free(x->part_md5);
	free(x->part_etag);
	free(x->given_etag);
	free(x->buf);
	x->upload_id = NULL;
	x->part_md5 = NULL;
	x->part_etag = NULL;
	x->given_etag = NULL;
	x->buf = NULL;
	if (x->source != XS_FILE) {
		x->state = XF_PUT_READY;
		return;
	}
	if ((e = xfer_open_local(x, &fd, &st)) != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	e = manifest_hash_fd(fd, x->t.local.hash, NULL, &n);
	close(fd);
	if (e != FERRY_OK) {
		xfer_fail(x, e);
		return;
	}
	x->t.local.size = (uint64_t)st.st_size;
	x->t.local.mtime_ns = ts_ns(&st.st_mtim);
	x->t.local.ctime_ns = ts_ns(&st.st_ctim);
	x->multipart = x->t.local.size >= x->p->run.o->multipart_threshold;
	x->state = XF_PUT_READY;
}

void
xfer_retry_changed(struct push *p)
{
	struct transfer *t;

	for (t = p->run.eng.active; t; t = t->next)
		if (xfer_of(t)->state == XF_RETRY_LATER)
			retry_changed(xfer_of(t));
}

int
push_has_room(const struct push *p)
{
	return transfer_engine_room(&p->run.eng) > 0;
}

/* Below this, a read is cheaper done at once than handed to a worker. */
#define READ_ON_WORKER_MIN (1u << 20)

void
xfer_read_submit(
    struct push *p, struct xfer_read *r, size_t len, unsigned nreads)
{
	struct workq_job *j = &r->job;
	struct transfer_engine *eng = &p->run.eng;
	struct workq *wq;

	r->nreads = nreads;
	eng->reads += nreads;
	eng->reading++;
	if (len >= READ_ON_WORKER_MIN &&
	    (wq = transfer_engine_workers(eng)) != NULL) {
		workq_submit(wq, j);
		return;
	}
	j->run(j);
	j->done(j);
}

ferry_err
xfer_read_done(struct push *p, struct xfer_read *r)
{
	ferry_err e = r->e;

	p->run.eng.reads -= r->nreads;
	p->run.eng.reading--;
	if (e != FERRY_OK)
		e = ferry_fail(e, "%s", r->msg);
	free(r);
	return e;
}

void
xfer_read_failed(struct xfer_read *r, ferry_err e)
{
	r->e = e;
	snprintf(r->msg, sizeof(r->msg), "%s", ferry_errmsg());
}

ferry_err
xfer_pread_full(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	struct sparse_reader r;
	size_t got;
	ferry_err e;

	sparse_reader_init(&r, fd);
	if ((e = sparse_pread(&r, buf, len, off, &got)) != FERRY_OK)
		return e;
	if (got != len)
		return ferry_fail(
		    FERRY_ECHANGED, "the file changed while it was read");
	return FERRY_OK;
}

/* Starts a single-request transfer, when memory allows. */
static ferry_err
start_single(struct push *p, struct xfer *x)
{
	if (x->from_key)
		return start_keycopy(x);
	switch (x->source) {
	case XS_COPY:
		return start_copy_object(x);
	case XS_STREAM:
		if (!transfer_engine_memory(&p->run.eng, x->t.local.size))
			return FERRY_OK;
		return start_stream_get(x);
	case XS_FILE:
		break;
	}
	if (x->metadata)
		return start_metadata(x);
	if (!put_streams(x) &&
	    !transfer_engine_memory(&p->run.eng, x->t.local.size))
		return FERRY_OK;
	return start_put(x);
}

/*
 * How many hashed parts of a file x to send now: as many as the window
 * allows, and --memory for the bytes of parts being sent (one part at
 * least).  A part holds no buffer here, but each costs the server one:
 * more bytes in flight than a link carries in a round trip only queue.
 * A part all sent, its reply awaited, makes room for the next; those
 * awaited too stay within twice --memory.
 */
static unsigned
parts_to_start(const struct push *p, const struct xfer *x)
{
	unsigned k = 0, ready = parts_ready(x);
	unsigned room = transfer_engine_room(&p->run.eng);
	uint64_t more;

	for (; k < ready && k < room && p->parts_sending + k < p->streams.cap;
	     k++) {
		more = (uint64_t)k * x->t.part_size;
		if (!transfer_engine_parts(&p->run.eng, more, x->t.part_size))
			break;
	}
	return k;
}

static void
advance_one(struct transfer *t)
{
	struct xfer *x = xfer_of(t);
	struct push *p = x->p;
	ferry_err e = FERRY_OK;
	unsigned n = 1;

	if (x->state == XF_PUT_READY && backup_due(x)) {
		e = backup_xfer(x);
	} else if (x->state == XF_PUT_READY && x->multipart) {
		if (x->source != XS_FILE && !x->have_src_head)
			e = start_src_head(x);
		else
			e = start_create(x);
	} else if (x->state == XF_PUT_READY) {
		e = start_single(p, x);
	}
	/* under way before the sends: part 1 may go while it is hashed */
	if (e == FERRY_OK)
		hash_ahead(x);
	while (e == FERRY_OK && x->state == XF_MP_PARTS && !x->t.failed &&
	       x->t.next_part < x->t.nparts && push_has_room(p)) {
		if (x->source == XS_FILE)
			n = parts_to_start(p, x);
		/* a server-side copy holds no buffer */
		else if (x->source == XS_STREAM &&
		         !transfer_engine_memory(&p->run.eng, x->t.part_size))
			n = 0;
		if (n == 0)
			break;
		e = start_part(x, n);
	}
	if (e != FERRY_OK)
		xfer_fail(x, e);
	else
		hash_ahead(x);
}

void
xfer_turned(struct push *p)
{
	if (p->streams.settled ||
	    (p->parts_sending == 0 && !p->streams.running))
		return;
	streams_sample(&p->streams, remote_stats(p->run.r)->body_out,
	    now_mono_ns(), p->parts_sending);
	if (p->streams.settled)
		log_info("parts sent at once: %u (%.0f MB/s)", p->streams.cap,
		    p->streams.best_rate / 1e6);
}

uint8_t *
xfer_buf_get(struct push *p, size_t len, size_t *cap)
{
	unsigned i;
	uint8_t *buf;

	/* a buffer at most twice the need: parts of one object are alike */
	for (i = p->npool; i-- > 0;) {
		if (p->pool[i].cap < len || p->pool[i].cap / 2 > len)
			continue;
		buf = p->pool[i].buf;
		*cap = p->pool[i].cap;
		p->pool_bytes -= *cap;
		p->pool[i] = p->pool[--p->npool];
		return buf;
	}
	/* none fits: those idle are of another size, and would only add up */
	xfer_pool_free(p);
	*cap = len ? len : 1;
	return malloc(*cap);
}

void
xfer_buf_put(struct push *p, uint8_t *buf, size_t cap)
{
	if (buf == NULL)
		return;
	if (p->npool == XFER_POOL_MAX ||
	    p->run.eng.mem_used + p->pool_bytes + cap > p->run.o->memory) {
		free(buf);
		return;
	}
	p->pool[p->npool].buf = buf;
	p->pool[p->npool].cap = cap;
	p->npool++;
	p->pool_bytes += cap;
}

void
xfer_pool_free(struct push *p)
{
	while (p->npool > 0)
		free(p->pool[--p->npool].buf);
	p->pool_bytes = 0;
}
