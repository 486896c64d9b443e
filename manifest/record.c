/*
 * record.c: the one place where manifest records are turned into bytes
 * and back.  Layout (all integers little-endian):
 *
 *   local:  u8 version, u64 size, i64 mtime_ns, i64 ctime_ns, u64 ino,
 *           u64 dev, u32 mode, 16 bytes hash; version 2 adds u32 uid and
 *           u32 gid (has_owner), version 1 is a record without them
 *   remote: u8 version, u64 size, i64 mtime_ns, i64 last_modified,
 *           u64 part_size, 16 bytes hash, u8 has_hash, then etag,
 *           src_etag and upload_id, each as u16 length and bytes;
 *           version 2 adds version_id (u16 length, at least 1, and
 *           bytes), written only when there is one, so that a record
 *           without stays the version 1 every ferry reads; versions 3
 *           and 4 are 1 and 2 followed by the metadata the object was
 *           stored with (has_meta): u32 mode, u32 uid, u32 gid;
 *           versions 5 to 8 are 1 to 4 followed by the file's ctime and
 *           the hash of its attributes when stored (has_xattr): i64
 *           ctime_ns, u64 hash
 *   upload: u8 version, u64 part_size, then the local record's fields
 *           after its version byte, then upload_id as u16 length (at
 *           least 1) and bytes
 *
 * Decoding is strict so that whatever decodes re-encodes to the same
 * bytes: no trailing bytes, has_hash 0 or 1, no NUL inside a string.
 */
#include <string.h>

#include "manifest/manifest.h"

#define RECORD_VERSION 1
#define RECORD_VERSION_ID 2 /* a remote record with its version id */
#define RECORD_OWNER 2      /* a local record with its owner */
#define RECORD_META 2       /* added to a remote record's: with has_meta */
#define RECORD_XATTR 4      /* added to a remote record's: with has_xattr */

/* A cursor over bytes being decoded. */
struct rd {
	const uint8_t *p;
	size_t left;
};

static void
put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
put_u64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Reads n bytes into out; -1 when fewer are left. */
static int
get_bytes(struct rd *r, void *out, size_t n)
{
	if (r->left < n)
		return -1;
	memcpy(out, r->p, n);
	r->p += n;
	r->left -= n;
	return 0;
}

static int
get_u8(struct rd *r, uint8_t *v)
{
	return get_bytes(r, v, 1);
}

static int
get_u16(struct rd *r, uint16_t *v)
{
	uint8_t b[2];

	if (get_bytes(r, b, 2) < 0)
		return -1;
	*v = (uint16_t)(b[0] | (uint16_t)b[1] << 8);
	return 0;
}

static int
get_u32(struct rd *r, uint32_t *v)
{
	uint8_t b[4];
	int i;

	if (get_bytes(r, b, 4) < 0)
		return -1;
	*v = 0;
	for (i = 3; i >= 0; i--)
		*v = *v << 8 | b[i];
	return 0;
}

static int
get_u64(struct rd *r, uint64_t *v)
{
	uint8_t b[8];
	int i;

	if (get_bytes(r, b, 8) < 0)
		return -1;
	*v = 0;
	for (i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return 0;
}

/* Signed fields travel as their two's complement bit pattern. */
static int
get_i64(struct rd *r, int64_t *v)
{
	uint64_t u;

	if (get_u64(r, &u) < 0)
		return -1;
	memcpy(v, &u, sizeof(*v));
	return 0;
}

static uint64_t
i64_bits(int64_t v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/*
 * Reads a u16-prefixed string into out (of cap bytes) with its NUL;
 * -1 when short, longer than cap - 1, or holding a NUL byte.
 */
static int
get_str(struct rd *r, char *out, size_t cap)
{
	uint16_t n;

	if (get_u16(r, &n) < 0 || n >= cap || r->left < n)
		return -1;
	if (memchr(r->p, '\0', n) != NULL)
		return -1;
	if (get_bytes(r, out, n) < 0)
		return -1;
	out[n] = '\0';
	return 0;
}

/* Writes n, then the n bytes of s, at p; returns the bytes written. */
static size_t
put_str(uint8_t *p, const char *s, size_t n)
{
	put_u16(p, (uint16_t)n);
	memcpy(p + 2, s, n);
	return 2 + n;
}

/* Writes the 60 bytes of a local record after its version byte. */
static uint8_t *
put_local(uint8_t *p, const struct manifest_local *r)
{
	put_u64(p, r->size);
	put_u64(p + 8, i64_bits(r->mtime_ns));
	put_u64(p + 16, i64_bits(r->ctime_ns));
	put_u64(p + 24, r->ino);
	put_u64(p + 32, r->dev);
	put_u32(p + 40, r->mode);
	memcpy(p + 44, r->hash, 16);
	return p + 60;
}

/* Reads what put_local() wrote; -1 when short. */
static int
get_local(struct rd *rd, struct manifest_local *r)
{
	if (get_u64(rd, &r->size) < 0 || get_i64(rd, &r->mtime_ns) < 0 ||
	    get_i64(rd, &r->ctime_ns) < 0 || get_u64(rd, &r->ino) < 0 ||
	    get_u64(rd, &r->dev) < 0 || get_u32(rd, &r->mode) < 0 ||
	    get_bytes(rd, r->hash, 16) < 0)
		return -1;
	return 0;
}

/*
 * Returns FERRY_OK with the 61-byte record in buf (caller's, at least
 * MANIFEST_REC_MAX bytes) and its length in *len.  Thread-safe.
 */
ferry_err
manifest_local_encode(const struct manifest_local *r, uint8_t *buf, size_t *len)
{
	uint8_t *p = buf;

	*p++ = r->has_owner ? RECORD_OWNER : RECORD_VERSION;
	p = put_local(p, r);
	if (r->has_owner) {
		put_u32(p, r->uid);
		put_u32(p + 4, r->gid);
		p += 8;
	}
	*len = (size_t)(p - buf);
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with buf decoded into *r, else FERRY_EPARSE with *r zeroed.
 * Thread-safe.
 */
ferry_err
manifest_local_decode(const uint8_t *buf, size_t len, struct manifest_local *r)
{
	struct rd rd = {buf, len};
	uint8_t version;

	memset(r, 0, sizeof(*r));
	if (get_u8(&rd, &version) < 0 ||
	    (version != RECORD_VERSION && version != RECORD_OWNER) ||
	    get_local(&rd, r) < 0)
		goto bad;
	r->has_owner = version == RECORD_OWNER;
	if (r->has_owner &&
	    (get_u32(&rd, &r->uid) < 0 || get_u32(&rd, &r->gid) < 0))
		goto bad;
	if (rd.left == 0)
		return FERRY_OK;
bad:
	memset(r, 0, sizeof(*r));
	return ferry_fail(
	    FERRY_EPARSE, "malformed local record (%zu bytes)", len);
}

/*
 * Returns FERRY_OK with the record in buf (caller's, at least MANIFEST_REC_MAX
 * bytes) and its length in *len; FERRY_EPARSE when a string fills its whole
 * field.  Thread-safe.
 */
ferry_err
manifest_remote_encode(
    const struct manifest_remote *r, uint8_t *buf, size_t *len)
{
	size_t ne, ns, nu, nv;
	uint8_t *p = buf;

	*len = 0;
	/* An unterminated field would be cut or overrun: refuse it. */
	ne = strnlen(r->etag, sizeof(r->etag));
	ns = strnlen(r->src_etag, sizeof(r->src_etag));
	nu = strnlen(r->upload_id, sizeof(r->upload_id));
	nv = strnlen(r->version_id, sizeof(r->version_id));
	if (ne == sizeof(r->etag) || ns == sizeof(r->src_etag) ||
	    nu == sizeof(r->upload_id) || nv == sizeof(r->version_id))
		return ferry_fail(FERRY_EPARSE,
		    "remote record string is not terminated in its field");
	*p++ = (uint8_t)((nv > 0 ? RECORD_VERSION_ID : RECORD_VERSION) +
	                 (r->has_meta ? RECORD_META : 0) +
	                 (r->has_xattr ? RECORD_XATTR : 0));
	put_u64(p, r->size);
	put_u64(p + 8, i64_bits(r->mtime_ns));
	put_u64(p + 16, i64_bits(r->last_modified));
	put_u64(p + 24, r->part_size);
	p += 32;
	memcpy(p, r->hash, 16);
	p += 16;
	*p++ = r->has_hash ? 1 : 0;
	p += put_str(p, r->etag, ne);
	p += put_str(p, r->src_etag, ns);
	p += put_str(p, r->upload_id, nu);
	if (nv > 0)
		p += put_str(p, r->version_id, nv);
	if (r->has_meta) {
		put_u32(p, r->meta_mode);
		put_u32(p + 4, r->meta_uid);
		put_u32(p + 8, r->meta_gid);
		p += 12;
	}
	if (r->has_xattr) {
		put_u64(p, i64_bits(r->xattr_ctime_ns));
		put_u64(p + 8, r->xattr_hash);
		p += 16;
	}
	*len = (size_t)(p - buf);
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with buf decoded into *r, else FERRY_EPARSE with *r zeroed.
 * Thread-safe.
 */
ferry_err
manifest_remote_decode(
    const uint8_t *buf, size_t len, struct manifest_remote *r)
{
	struct rd rd = {buf, len};
	uint8_t version;

	memset(r, 0, sizeof(*r));
	if (get_u8(&rd, &version) < 0 || version < RECORD_VERSION ||
	    version > RECORD_VERSION_ID + RECORD_META + RECORD_XATTR)
		goto bad;
	if (version > RECORD_VERSION_ID + RECORD_META) {
		r->has_xattr = 1;
		version -= RECORD_XATTR;
	}
	if (version > RECORD_VERSION_ID) {
		r->has_meta = 1;
		version -= RECORD_META;
	}
	if (get_u64(&rd, &r->size) < 0 || get_i64(&rd, &r->mtime_ns) < 0 ||
	    get_i64(&rd, &r->last_modified) < 0 ||
	    get_u64(&rd, &r->part_size) < 0 ||
	    get_bytes(&rd, r->hash, 16) < 0 || get_u8(&rd, &r->has_hash) < 0 ||
	    r->has_hash > 1)
		goto bad;
	if (get_str(&rd, r->etag, sizeof(r->etag)) < 0 ||
	    get_str(&rd, r->src_etag, sizeof(r->src_etag)) < 0 ||
	    get_str(&rd, r->upload_id, sizeof(r->upload_id)) < 0)
		goto bad;
	/* version 2 is written only for a version id, never an empty one */
	if (version == RECORD_VERSION_ID &&
	    (get_str(&rd, r->version_id, sizeof(r->version_id)) < 0 ||
	        r->version_id[0] == '\0'))
		goto bad;
	if (r->has_meta && (get_u32(&rd, &r->meta_mode) < 0 ||
	                       get_u32(&rd, &r->meta_uid) < 0 ||
	                       get_u32(&rd, &r->meta_gid) < 0))
		goto bad;
	if (r->has_xattr && (get_i64(&rd, &r->xattr_ctime_ns) < 0 ||
	                        get_u64(&rd, &r->xattr_hash) < 0))
		goto bad;
	if (rd.left != 0)
		goto bad;
	return FERRY_OK;
bad:
	memset(r, 0, sizeof(*r));
	return ferry_fail(
	    FERRY_EPARSE, "malformed remote record (%zu bytes)", len);
}

/*
 * Returns FERRY_OK with the record in buf (caller's, at least MANIFEST_REC_MAX
 * bytes) and its length in *len; FERRY_EPARSE when the upload id is empty or
 * fills its whole field.  Thread-safe.
 */
ferry_err
manifest_upload_encode(
    const struct manifest_upload *r, uint8_t *buf, size_t *len)
{
	size_t nu = strnlen(r->upload_id, sizeof(r->upload_id));
	uint8_t *p = buf;

	*len = 0;
	if (nu == 0 || nu == sizeof(r->upload_id))
		return ferry_fail(FERRY_EPARSE,
		    "upload record without a terminated upload id");
	*p++ = RECORD_VERSION;
	put_u64(p, r->part_size);
	p = put_local(p + 8, &r->file);
	p += put_str(p, r->upload_id, nu);
	*len = (size_t)(p - buf);
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with buf decoded into *r, else FERRY_EPARSE with *r zeroed.
 * Thread-safe.
 */
ferry_err
manifest_upload_decode(
    const uint8_t *buf, size_t len, struct manifest_upload *r)
{
	struct rd rd = {buf, len};
	uint8_t version;

	memset(r, 0, sizeof(*r));
	if (get_u8(&rd, &version) < 0 || version != RECORD_VERSION ||
	    get_u64(&rd, &r->part_size) < 0 || get_local(&rd, &r->file) < 0 ||
	    get_str(&rd, r->upload_id, sizeof(r->upload_id)) < 0 ||
	    r->upload_id[0] == '\0' || rd.left != 0) {
		memset(r, 0, sizeof(*r));
		return ferry_fail(
		    FERRY_EPARSE, "malformed upload record (%zu bytes)", len);
	}
	return FERRY_OK;
}
