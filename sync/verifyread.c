/*
 * verifyread.c: the bytes a verify re-reads, hashed as they come (XXH3-128,
 * MD5, the MD5s of parts) and compared with what the object says of
 * itself: the content hash ferry stored with it, its ETag.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sync/verify.h"

ferry_err
vhash_init(struct vhash *h, uint64_t part_size)
{
	memset(h, 0, sizeof(*h));
	h->part_size = part_size;
	h->xxh = manifest_hash_new();
	h->md5 = remote_md5_new();
	if (part_size) {
		h->part = remote_md5_new();
		h->outer = remote_md5_new();
	}
	if (h->xxh == NULL || h->md5 == NULL ||
	    (part_size && (h->part == NULL || h->outer == NULL))) {
		vhash_free(h);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	return FERRY_OK;
}

/* Ends the current part: its MD5 goes into the outer digest. */
static void
part_end(struct vhash *h)
{
	uint8_t d[16];

	if (remote_md5_final(h->part, d) != FERRY_OK ||
	    remote_md5_update(h->outer, d, 16) != FERRY_OK ||
	    remote_md5_reset(h->part) != FERRY_OK)
		h->failed = 1;
	h->nparts++;
	h->in_part = 0;
}

void
vhash_update(struct vhash *h, const void *p, size_t n)
{
	const char *c = p;
	size_t take;

	if (manifest_hash_update(h->xxh, p, n) != FERRY_OK ||
	    remote_md5_update(h->md5, p, n) != FERRY_OK)
		h->failed = 1;
	h->total += n;
	while (h->part_size && n > 0) {
		take = h->part_size - h->in_part < n
		           ? (size_t)(h->part_size - h->in_part)
		           : n;
		if (remote_md5_update(h->part, c, take) != FERRY_OK)
			h->failed = 1;
		h->in_part += take;
		c += take;
		n -= take;
		if (h->in_part == h->part_size)
			part_end(h);
	}
}

ferry_err
vhash_final(struct vhash *h, uint8_t xxh[16], char *etag, size_t n)
{
	uint8_t d[16];
	char hex[33];

	manifest_hash_final(h->xxh, xxh);
	if (h->part_size == 0) {
		if (remote_md5_final(h->md5, d) != FERRY_OK)
			h->failed = 1;
		remote_etag_format(d, 0, etag, n);
		return h->failed ? FERRY_ESYS : FERRY_OK;
	}
	/* an empty object uploaded in parts still has its one part */
	if (h->in_part > 0 || h->nparts == 0)
		part_end(h);
	if (remote_md5_final(h->outer, d) != FERRY_OK)
		h->failed = 1;
	hex_encode(d, 16, hex);
	snprintf(etag, n, "\"%s-%u\"", hex, h->nparts);
	return h->failed ? FERRY_ESYS : FERRY_OK;
}

void
vhash_free(struct vhash *h)
{
	manifest_hash_free(h->xxh);
	remote_md5_free(h->md5);
	remote_md5_free(h->part);
	remote_md5_free(h->outer);
	memset(h, 0, sizeof(*h));
}

/*
 * The part size to hash with for etag: the one recorded, or none for a
 * single-part ETag; 0 also when it is a multipart ETag of unknown parts.
 */
static uint64_t
etag_parts(const char *etag, uint64_t recorded)
{
	return remote_etag_is_md5(etag) ? 0 : recorded;
}

/* What the re-read bytes are to be compared with. */
struct expect {
	const char *etag;    /* the ETag listed; NULL: none */
	int etag_opaque;     /* no MD5 in it (KMS, SSE-C) */
	uint64_t part_size;  /* what it was uploaded in; 0: single or unknown */
	const char *stored;  /* the ferry-xxh128 metadata, or "" */
	const uint8_t *want; /* the hash the bytes must have, or NULL */
	const char *want_what;
};

/*
 * Compares the digests of h with e, reporting drift, or that nothing
 * could be compared.
 */
static void
judge(struct verify *v, const char *key, size_t keylen, struct vhash *h,
    const struct expect *e)
{
	uint8_t xxh[16];
	char etag[REMOTE_ETAG_MAX + 1], hex[33], msg[256];
	int checked = 0;
	ferry_err e_final;

	e_final = vhash_final(h, xxh, etag, sizeof(etag));
	hex_encode(xxh, 16, hex);
	v->counts.checked++;
	v->bytes_read += h->total;
	if (e_final != FERRY_OK) {
		verify_report(v, "unchecked", key, keylen,
		    "cannot be checked byte-wise: a digest failed");
		return;
	}
	if (e->stored[0] != '\0') {
		checked = 1;
		if (strcasecmp(e->stored, hex) != 0) {
			verify_report(v, "bytes", key, keylen,
			    "the bytes do not hash to the ferry-xxh128 "
			    "metadata stored with the object");
			return;
		}
	}
	if (e->want != NULL) {
		checked = 1;
		if (memcmp(e->want, xxh, 16) != 0) {
			snprintf(msg, sizeof(msg), "the bytes are not %s",
			    e->want_what);
			verify_report(v, "bytes", key, keylen, msg);
			return;
		}
	}
	if (e->etag && !e->etag_opaque &&
	    (remote_etag_is_md5(e->etag) || e->part_size)) {
		checked = 1;
		if (strcmp(etag, e->etag) != 0) {
			snprintf(msg, sizeof(msg),
			    "the bytes hash to the ETag %s, not %s", etag,
			    e->etag);
			verify_report(v, "bytes", key, keylen, msg);
			return;
		}
	}
	if (!checked)
		verify_report(v, "unchecked", key, keylen,
		    "cannot be checked byte-wise: a multipart ETag of "
		    "unknown part size, and no content hash of ferry's");
}

/* A GET's body into its digests. */
static int
sink(const char *data, size_t len, void *arg)
{
	struct vhash *h = arg;

	if (h->xxh == NULL)
		return 1;
	vhash_update(h, data, len);
	return 0;
}

/* A GET sent again: its digests start afresh. */
static void
restart(void *arg)
{
	struct vhash *h = arg;
	ferry_err e;

	vhash_free(h);
	e = vhash_init(h, h->part_size);
	(void)e; /* a hash left unset fails the GET in sink() */
}

/* Reports a read that failed, with the detail recorded. */
static void
read_failed(struct verify *v, const char *key, size_t keylen, ferry_err e)
{
	char *full = verify_full_key(v, key, keylen);

	v->counts.failed++;
	if (full == NULL)
		return;
	if (v->way == VERIFY_MIRROR)
		output_error(&v->out, full, strlen(full), e, ferry_errmsg());
	else
		output_file_error(
		    &v->out, full, strlen(full), e, ferry_errmsg());
	free(full);
}

ferry_err
verify_object_bytes(struct verify *v, const char *key, size_t keylen,
    const char *etag, uint64_t part_size, const uint8_t *want)
{
	struct remote_get g = {.if_match = etag};
	struct remote_req *q = NULL;
	const struct remote_resp *s;
	struct expect x = {0};
	struct vhash h;
	char *full = NULL;
	ferry_err e;

	if ((e = vhash_init(&h, etag_parts(etag, part_size))) != FERRY_OK)
		return e;
	x.part_size = h.part_size;
	if ((full = verify_full_key(v, key, keylen)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((e = remote_get_object(
	         v->r, v->loc.bucket, full, strlen(full), &g, &q)) != FERRY_OK)
		goto out;
	remote_req_sink(q, sink, &h);
	remote_req_sink_restart(q, restart);
	if ((e = remote_perform(v->r, q, 0)) != FERRY_OK || h.xxh == NULL) {
		read_failed(v, key, keylen, e ? e : FERRY_ENOMEM);
		e = FERRY_OK;
		goto out;
	}
	s = remote_req_resp(q);
	x.etag = s->etag[0] ? s->etag : etag;
	x.etag_opaque = remote_resp_etag_opaque(s);
	x.stored = s->meta_hash;
	x.want = want;
	x.want_what = "the source file's";
	judge(v, key, keylen, &h, &x);
out:
	remote_req_free(q);
	free(full);
	vhash_free(&h);
	return e;
}

/* HEAD of a pull's source object: its stored hash into x->stored. */
static ferry_err
head_source(struct verify *v, const char *key, size_t keylen, const char *etag,
    char stored[40], int *opaque)
{
	struct remote_req *q = NULL;
	char *full = NULL;
	ferry_err e;

	if ((full = verify_full_key(v, key, keylen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	e = remote_head_object(
	    v->r, v->sloc.bucket, full, strlen(full), etag, &q);
	if (e == FERRY_OK && (e = remote_perform(v->r, q, 0)) == FERRY_OK) {
		snprintf(stored, 40, "%s", remote_req_resp(q)->meta_hash);
		*opaque = remote_resp_etag_opaque(remote_req_resp(q));
	}
	remote_req_free(q);
	free(full);
	return e;
}

/* Reads the file fd to its end into h. */
static ferry_err
read_file(int fd, struct vhash *h)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ferry_fail(
			    FERRY_ESYS, "read: %s", strerror(errno));
		vhash_update(h, buf, (size_t)n);
	}
	return FERRY_OK;
}

ferry_err
verify_file_bytes(struct verify *v, const char *key, size_t keylen,
    const char *etag, uint64_t part_size, const struct manifest_remote *rec)
{
	struct expect x = {.etag = etag, .stored = ""};
	char stored[40] = "", path[MANIFEST_KEY_MAX + 1];
	struct vhash h;
	ferry_err e;
	int fd;

	snprintf(path, sizeof(path), "%.*s", (int)keylen, key);
	if ((fd = openat(v->rootfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) <
	    0) {
		read_failed(v, key, keylen,
		    ferry_fail(FERRY_ESYS, "open: %s", strerror(errno)));
		return FERRY_OK;
	}
	/* the ETag says nothing of the bytes: the stored hash might */
	if (!remote_etag_is_md5(etag) && etag_parts(etag, part_size) == 0 &&
	    (e = head_source(v, key, keylen, etag, stored, &x.etag_opaque)) !=
	        FERRY_OK) {
		close(fd);
		read_failed(v, key, keylen, e);
		return FERRY_OK;
	}
	x.stored = stored;
	if (rec && rec->has_hash) {
		x.want = rec->hash;
		x.want_what = "those ferry wrote";
	}
	if ((e = vhash_init(&h, etag_parts(etag, part_size))) != FERRY_OK) {
		close(fd);
		return e;
	}
	x.part_size = h.part_size;
	if ((e = read_file(fd, &h)) != FERRY_OK)
		read_failed(v, key, keylen, e);
	else
		judge(v, key, keylen, &h, &x);
	close(fd);
	vhash_free(&h);
	return FERRY_OK;
}
