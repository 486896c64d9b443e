/*
 * put.c: the transfers of a push: single PUTs, multipart uploads, and the
 * content checks that decide whether an object is already there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include "sync/push.h"

struct part {
	struct xfer *x;
	uint32_t number; /* 1-based */
	uint8_t *buf;
	size_t len;
};

static void start_abort(struct xfer *x);

void
xfer_free(struct xfer *x)
{
	if (x == NULL)
		return;
	if (x->fd >= 0)
		close(x->fd);
	free(x->buf);
	free(x->key);
	free(x->fullkey);
	free(x->upload_id);
	free(x->part_md5);
	free(x);
}

static void
finish(struct xfer *x)
{
	if (x->fd >= 0) {
		close(x->fd);
		x->fd = -1;
	}
	x->state = XF_DONE;
	push_note_completion(x->p);
}

/* Reports the failure recorded by ferry_fail() and ends the transfer. */
static void
fail(struct xfer *x, ferry_err e)
{
	struct push *p = x->p;

	if (!x->failed) {
		x->failed = 1;
		x->err = e;
		snprintf(x->errmsg, sizeof(x->errmsg), "%s", ferry_errmsg());
		output_error(
		    &p->out, x->fullkey, strlen(x->fullkey), e, x->errmsg);
		p->counts.failed++;
	}
	if (x->upload_id && x->parts_inflight == 0 &&
	    x->state != XF_MP_ABORT_SENT) {
		start_abort(x);
		return;
	}
	if (x->parts_inflight == 0)
		finish(x);
}

static ferry_err
open_local(struct xfer *x, int *fd, struct stat *st)
{
	*fd = openat(x->p->rootfd, x->key, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot open: %s", strerror(errno));
	if (fstat(*fd, st) != 0) {
		close(*fd);
		*fd = -1;
		return ferry_fail(
		    FERRY_ESYS, "cannot stat: %s", strerror(errno));
	}
	return FERRY_OK;
}

static int64_t
ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int
stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size &&
	       ts_ns(&a->st_mtim) == ts_ns(&b->st_mtim) &&
	       ts_ns(&a->st_ctim) == ts_ns(&b->st_ctim);
}

static int
stat_matches_scan(const struct stat *st, const struct manifest_local *l)
{
	return (uint64_t)st->st_size == l->size &&
	       ts_ns(&st->st_mtim) == l->mtime_ns &&
	       ts_ns(&st->st_ctim) == l->ctime_ns;
}

/* Writes the record of what is now under the key. */
static void
record(struct xfer *x, uint64_t size, const char *etag, const uint8_t *hash,
    int64_t mtime_ns, uint64_t part_size)
{
	struct manifest_remote rec;
	struct push *p = x->p;

	memset(&rec, 0, sizeof(rec));
	rec.size = size;
	rec.mtime_ns = mtime_ns;
	rec.part_size = part_size;
	memcpy(rec.hash, hash, 16);
	rec.has_hash = 1;
	snprintf(rec.etag, sizeof(rec.etag), "%s", etag);
	if (manifest_remote_put(p->m, x->key, x->keylen, &rec) != FERRY_OK)
		log_warn("manifest: %s", ferry_errmsg());
}

static void
hash_headers(struct remote_req *q, const uint8_t hash[16], int64_t mtime_ns,
    ferry_err *e)
{
	char hex[33], mt[32];

	hex_encode(hash, 16, hex);
	snprintf(mt, sizeof(mt), "%lld", (long long)mtime_ns);
	if (*e == FERRY_OK)
		*e = remote_req_header(q, "x-amz-meta-ferry-xxh128", hex);
	if (*e == FERRY_OK)
		*e = remote_req_header(q, "x-amz-meta-ferry-mtime", mt);
}

static void
uploaded(struct xfer *x, uint64_t size)
{
	struct push *p = x->p;

	p->counts.uploaded++;
	p->counts.bytes += size;
	output_action(
	    &p->out, "upload", x->fullkey, strlen(x->fullkey), size, NULL);
}

static void
md5_etag(const uint8_t md5[16], char *out, size_t outlen)
{
	char hex[33];

	hex_encode(md5, 16, hex);
	snprintf(out, outlen, "\"%s\"", hex);
}

static void
on_put(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	const struct remote_resp *s = remote_req_resp(q);
	char want[MANIFEST_ETAG_MAX];
	ferry_err e;

	x->p->mem_used -= x->buflen;
	e = remote_req_result(q, 0);
	md5_etag(x->md5, want, sizeof(want));
	if (e == FERRY_OK && s->etag[0] && strcmp(s->etag, want) != 0)
		e = ferry_fail(FERRY_EHTTP,
		    "the server's ETag %s is not the MD5 %s of what was sent",
		    s->etag, want);
	remote_req_free(q);
	free(x->buf);
	x->buf = NULL;
	if (e != FERRY_OK)
		return fail(x, e);
	record(x, x->buflen, want, x->hash, x->sent_mtime_ns, 0);
	uploaded(x, x->buflen);
	finish(x);
}

/* Reads the whole file into x->buf, hashing it, and checks it held still. */
static ferry_err
read_whole(struct xfer *x)
{
	struct stat before, after;
	ssize_t n;
	size_t off = 0;
	ferry_err e;
	int fd;

	if ((e = open_local(x, &fd, &before)) != FERRY_OK)
		return e;
	x->buflen = (size_t)before.st_size;
	if ((x->buf = malloc(x->buflen ? x->buflen : 1)) == NULL) {
		close(fd);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	while (off < x->buflen &&
	       (n = read(fd, x->buf + off, x->buflen - off)) > 0)
		off += (size_t)n;
	if (off != x->buflen || fstat(fd, &after) != 0 ||
	    !stat_same(&before, &after)) {
		close(fd);
		return ferry_fail(
		    FERRY_ECHANGED, "the file changed while it was read");
	}
	close(fd);
	x->sent_mtime_ns = ts_ns(&before.st_mtim);
	XXH128_canonicalFromHash(
	    (XXH128_canonical_t *)x->hash, XXH3_128bits(x->buf, x->buflen));
	EVP_Digest(x->buf, x->buflen, x->md5, NULL, EVP_md5(), NULL);
	return FERRY_OK;
}

static ferry_err
start_put(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_req *q;
	ferry_err e;

	if ((e = read_whole(x)) != FERRY_OK)
		return e;
	q = remote_req_new(p->r, REMOTE_PUT, "PUT", p->loc.bucket, x->fullkey,
	    strlen(x->fullkey));
	if (q == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	hash_headers(q, x->hash, x->sent_mtime_ns, &e);
	remote_req_body(q, x->buf, x->buflen, x->md5);
	if (e == FERRY_OK)
		e = remote_req_submit(q, on_put, x);
	if (e != FERRY_OK) {
		remote_req_free(q);
		return e;
	}
	p->mem_used += x->buflen;
	x->state = XF_PUT_SENT;
	return FERRY_OK;
}

uint64_t
sync_part_size(uint64_t size, uint64_t want)
{
	uint64_t ps = want, mib = 1ULL << 20;

	if (ps < SYNC_MIN_PART)
		ps = SYNC_MIN_PART;
	if ((size + ps - 1) / ps > SYNC_MAX_PARTS)
		ps = (size + SYNC_MAX_PARTS - 1) / SYNC_MAX_PARTS;
	ps = (ps + mib - 1) / mib * mib;
	return ps > SYNC_MAX_PART ? SYNC_MAX_PART : ps;
}

/* Keeps the open upload in the manifest so a later run can clean it up. */
static void
record_upload_id(struct xfer *x)
{
	struct manifest_remote rec;
	struct push *p = x->p;

	if (manifest_remote_get(p->m, x->key, x->keylen, &rec) != FERRY_OK)
		memset(&rec, 0, sizeof(rec));
	snprintf(rec.upload_id, sizeof(rec.upload_id), "%s", x->upload_id);
	if (manifest_remote_put(p->m, x->key, x->keylen, &rec) != FERRY_OK)
		log_warn("manifest: %s", ferry_errmsg());
}

static struct remote_req *
upload_req(struct xfer *x, enum remote_kind kind, const char *method)
{
	struct push *p = x->p;
	struct remote_req *q;

	q = remote_req_new(
	    p->r, kind, method, p->loc.bucket, x->fullkey, strlen(x->fullkey));
	if (q && remote_req_query(q, "uploadId", x->upload_id) != FERRY_OK) {
		remote_req_free(q);
		return NULL;
	}
	return q;
}

static void
on_create(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	ferry_err e;

	e = remote_req_result(q, 1);
	if (e == FERRY_OK)
		e = remote_parse_upload_id(q, &x->upload_id);
	remote_req_free(q);
	if (e != FERRY_OK)
		return fail(x, e);
	record_upload_id(x);
	x->state = XF_MP_PARTS;
}

static ferry_err
start_create(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_req *q;
	struct stat st;
	ferry_err e;

	if ((e = open_local(x, &x->fd, &st)) != FERRY_OK)
		return e;
	if (!stat_matches_scan(&st, &x->local))
		return ferry_fail(
		    FERRY_ECHANGED, "the file changed since it was scanned");
	x->part_size = sync_part_size(x->local.size, p->o->part_size);
	x->nparts =
	    (uint32_t)((x->local.size + x->part_size - 1) / x->part_size);
	if (x->nparts == 0)
		x->nparts = 1;
	if ((x->part_md5 = calloc(x->nparts, 16)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	q = remote_req_new(p->r, REMOTE_POST, "POST", p->loc.bucket, x->fullkey,
	    strlen(x->fullkey));
	if (q == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	e = remote_req_query(q, "uploads", "");
	hash_headers(q, x->local.hash, x->local.mtime_ns, &e);
	if (e == FERRY_OK)
		e = remote_req_submit(q, on_create, x);
	if (e != FERRY_OK) {
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
		log_warn("abort of the upload of %s: %s", x->fullkey,
		    ferry_errmsg());
	else if (manifest_remote_get(x->p->m, x->key, x->keylen, &rec) ==
	         FERRY_OK) {
		rec.upload_id[0] = '\0';
		if (manifest_remote_put(x->p->m, x->key, x->keylen, &rec))
			log_warn("manifest: %s", ferry_errmsg());
	}
	remote_req_free(q);
	finish(x);
}

static void
start_abort(struct xfer *x)
{
	struct remote_req *q = upload_req(x, REMOTE_DELETE, "DELETE");

	x->state = XF_MP_ABORT_SENT;
	if (q == NULL || remote_req_submit(q, on_abort, x) != FERRY_OK) {
		remote_req_free(q);
		finish(x);
	}
}

/* The ETag S3 gives a multipart object: MD5 of the parts' MD5s, "-N". */
static void
multipart_etag(const struct xfer *x, char *out, size_t outlen)
{
	uint8_t md5[16];
	char hex[33];

	EVP_Digest(
	    x->part_md5, (size_t)x->nparts * 16, md5, NULL, EVP_md5(), NULL);
	hex_encode(md5, 16, hex);
	snprintf(out, outlen, "\"%s-%u\"", hex, x->nparts);
}

static void
on_complete(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	char want[MANIFEST_ETAG_MAX], *etag = NULL;
	ferry_err e;

	e = remote_req_result(q, 1);
	if (e == FERRY_OK)
		e = remote_parse_complete(q, &etag);
	remote_req_free(q);
	if (e != FERRY_OK) {
		free(etag);
		return fail(x, e);
	}
	multipart_etag(x, want, sizeof(want));
	if (etag && etag[0] && strcmp(etag, want) != 0)
		log_warn("%s: the server's ETag %s differs from %s", x->fullkey,
		    etag, want);
	record(x, x->local.size, etag && etag[0] ? etag : want, x->local.hash,
	    x->local.mtime_ns, x->part_size);
	free(etag);
	free(x->upload_id);
	x->upload_id = NULL;
	uploaded(x, x->local.size);
	finish(x);
}

static void
start_complete(struct xfer *x)
{
	struct remote_req *q = NULL;
	struct buf body;
	char(*etags)[40] = NULL;
	const char **ptrs = NULL;
	struct stat st;
	uint32_t i;
	ferry_err e;

	buf_init(&body, (size_t)x->nparts * 128 + 256);
	if (fstat(x->fd, &st) != 0 || !stat_matches_scan(&st, &x->local)) {
		e = ferry_fail(
		    FERRY_ECHANGED, "the file changed while it was uploaded");
		goto out;
	}
	etags = calloc(x->nparts, sizeof(*etags));
	ptrs = calloc(x->nparts, sizeof(*ptrs));
	if (etags == NULL || ptrs == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < x->nparts; i++) {
		md5_etag(x->part_md5[i], etags[i], sizeof(etags[i]));
		ptrs[i] = etags[i];
	}
	q = upload_req(x, REMOTE_POST, "POST");
	if (q == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((e = remote_complete_body(&body, ptrs, x->nparts)) != FERRY_OK)
		goto out;
	/* the body must outlive the request: it moves into the transfer */
	free(x->buf);
	x->buf = (uint8_t *)body.data;
	body.data = NULL;
	remote_req_body(q, x->buf, body.len, NULL);
	if ((e = remote_req_submit(q, on_complete, x)) != FERRY_OK)
		goto out;
	q = NULL;
	x->state = XF_MP_COMPLETE_SENT;
out:
	remote_req_free(q);
	buf_free(&body);
	free(etags);
	free(ptrs);
	if (e != FERRY_OK)
		fail(x, e);
}

static void
on_part(struct remote_req *q, void *arg)
{
	struct part *pt = arg;
	struct xfer *x = pt->x;
	ferry_err e;

	e = remote_req_result(q, 0);
	remote_req_free(q);
	x->p->mem_used -= pt->len;
	x->parts_inflight--;
	free(pt->buf);
	free(pt);
	if (e != FERRY_OK)
		return fail(x, e);
	if (x->failed) {
		if (x->parts_inflight == 0)
			fail(x, x->err);
		return;
	}
	if (++x->parts_done == x->nparts)
		start_complete(x);
}

static ferry_err
read_part(struct xfer *x, struct part *pt)
{
	uint64_t off = (uint64_t)(pt->number - 1) * x->part_size;
	size_t got = 0;
	ssize_t n;

	pt->len =
	    (size_t)(x->local.size - off < x->part_size ? x->local.size - off
	                                                : x->part_size);
	if ((pt->buf = malloc(pt->len ? pt->len : 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	while (got < pt->len && (n = pread(x->fd, pt->buf + got, pt->len - got,
	                             (off_t)(off + got))) > 0)
		got += (size_t)n;
	if (got != pt->len)
		return ferry_fail(
		    FERRY_ECHANGED, "the file changed while it was read");
	EVP_Digest(pt->buf, pt->len, x->part_md5[pt->number - 1], NULL,
	    EVP_md5(), NULL);
	return FERRY_OK;
}

static ferry_err
start_part(struct xfer *x)
{
	struct remote_req *q = NULL;
	struct part *pt;
	char num[16];
	ferry_err e;

	if ((pt = calloc(1, sizeof(*pt))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	pt->x = x;
	pt->number = ++x->next_part;
	if ((e = read_part(x, pt)) != FERRY_OK)
		goto out;
	snprintf(num, sizeof(num), "%u", pt->number);
	if ((q = upload_req(x, REMOTE_PUT, "PUT")) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	remote_req_body(q, pt->buf, pt->len, x->part_md5[pt->number - 1]);
	if ((e = remote_req_query(q, "partNumber", num)) != FERRY_OK ||
	    (e = remote_req_submit(q, on_part, pt)) != FERRY_OK)
		goto out;
	x->p->mem_used += pt->len;
	x->parts_inflight++;
	return FERRY_OK;
out:
	remote_req_free(q);
	free(pt->buf);
	free(pt);
	return e;
}

/* The check found the object holds the local bytes: note it and skip. */
static void
checked_same(struct xfer *x, const uint8_t hash[16])
{
	struct push *p = x->p;

	record(x, x->dst_size, x->dst_etag, hash, x->local.mtime_ns, 0);
	p->counts.checked++;
	p->counts.skipped++;
	finish(x);
}

static void
checked_differs(struct xfer *x, const char *reason)
{
	struct push *p = x->p;

	p->counts.checked++;
	x->multipart = x->local.size >= p->o->multipart_threshold;
	if (p->o->dry_run) {
		output_action(&p->out, "upload", x->fullkey, strlen(x->fullkey),
		    x->local.size, reason);
		p->counts.uploaded++;
		p->counts.bytes += x->local.size;
		return finish(x);
	}
	x->state = XF_PUT_READY;
}

static void
on_head(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	const struct remote_resp *s = remote_req_resp(q);
	char hex[33];
	ferry_err e;

	e = remote_req_result(q, 0);
	hex_encode(x->local.hash, 16, hex);
	if (e == FERRY_OK && s->meta_hash[0] && strcmp(s->meta_hash, hex) == 0)
		checked_same(x, x->local.hash);
	else if (e == FERRY_OK && s->meta_hash[0])
		checked_differs(x, "content hash differs");
	else if (e == FERRY_OK &&
	         x->local.mtime_ns / 1000000000 <= x->dst_last_modified) {
		/* written by another tool: size and time are all there is */
		x->p->counts.skipped++;
		finish(x);
	} else if (e == FERRY_OK)
		checked_differs(x, "newer than the object");
	else if (e == FERRY_ENOTFOUND)
		checked_differs(x, "object vanished");
	else
		fail(x, e);
	remote_req_free(q);
}

/* A single-part ETag is the MD5 of the object. */
static int
etag_is_md5(const char *etag)
{
	return strlen(etag) == 34 && etag[0] == '"' && etag[33] == '"' &&
	       strchr(etag, '-') == NULL;
}

static void
start_check(struct xfer *x)
{
	struct remote_req *q;
	uint8_t xxh[16], md5[16];
	char want[MANIFEST_ETAG_MAX];
	struct stat st;
	uint64_t n;
	ferry_err e;
	int fd;

	if (etag_is_md5(x->dst_etag)) {
		if ((e = open_local(x, &fd, &st)) != FERRY_OK)
			return fail(x, e);
		e = manifest_hash_fd(fd, xxh, md5, &n);
		close(fd);
		if (e != FERRY_OK)
			return fail(x, e);
		md5_etag(md5, want, sizeof(want));
		if (strcmp(want, x->dst_etag) == 0)
			return checked_same(x, xxh);
		return checked_differs(x, "content differs");
	}
	q = remote_req_new(x->p->r, REMOTE_HEAD, "HEAD", x->p->loc.bucket,
	    x->fullkey, strlen(x->fullkey));
	if (q == NULL)
		return fail(x, ferry_fail(FERRY_ENOMEM, "out of memory"));
	if ((e = remote_req_submit(q, on_head, x)) != FERRY_OK) {
		remote_req_free(q);
		return fail(x, e);
	}
	x->state = XF_HEAD_SENT;
}

ferry_err
xfer_begin(struct push *p, enum plan_action a, const char *key, size_t keylen,
    const struct manifest_local *local, const struct remote_obj *dst)
{
	struct xfer *x, **pp;
	size_t plen = strlen(p->loc.prefix);

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	x->p = p;
	x->fd = -1;
	x->key = strndup(key, keylen);
	x->keylen = keylen;
	x->fullkey = malloc(plen + keylen + 1);
	if (x->key == NULL || x->fullkey == NULL) {
		xfer_free(x);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	memcpy(x->fullkey, p->loc.prefix, plen);
	memcpy(x->fullkey + plen, key, keylen);
	x->fullkey[plen + keylen] = '\0';
	x->local = *local;
	if (dst) {
		x->dst_size = dst->size;
		snprintf(x->dst_etag, sizeof(x->dst_etag), "%s", dst->etag);
		x->dst_last_modified = dst->last_modified;
	}
	x->multipart = a == PLAN_MULTIPART_PUT;
	x->state = a == PLAN_CHECK ? XF_CHECK : XF_PUT_READY;
	/* appended, so that older transfers get their parts sent first */
	pp = &p->active;
	while (*pp)
		pp = &(*pp)->next;
	*pp = x;
	p->nactive++;
	if (x->state == XF_CHECK)
		start_check(x);
	return FERRY_OK;
}

/* Memory for a buffer of len bytes: always granted when none is held. */
static int
memory_allows(const struct push *p, uint64_t len)
{
	return p->mem_used == 0 || p->mem_used + len <= p->o->memory;
}

static int
has_room(const struct push *p)
{
	return remote_inflight(p->r) < p->o->jobs;
}

static void
advance_one(struct push *p, struct xfer *x)
{
	ferry_err e = FERRY_OK;

	if (x->state == XF_PUT_READY && x->multipart)
		e = start_create(x);
	else if (x->state == XF_PUT_READY && memory_allows(p, x->local.size))
		e = start_put(x);
	while (e == FERRY_OK && x->state == XF_MP_PARTS && !x->failed &&
	       x->next_part < x->nparts && has_room(p) &&
	       memory_allows(p, x->part_size))
		e = start_part(x);
	if (e != FERRY_OK)
		fail(x, e);
}

void
xfer_advance(struct push *p)
{
	struct xfer *x;

	for (x = p->active; x && has_room(p); x = x->next)
		advance_one(p, x);
}

void
xfer_sweep(struct push *p)
{
	struct xfer **pp = &p->active, *x;

	while ((x = *pp) != NULL) {
		if (x->state != XF_DONE) {
			pp = &x->next;
			continue;
		}
		*pp = x->next;
		p->nactive--;
		xfer_free(x);
	}
}
