/*
 * test_manifest.c: records, hashing, the LMDB store and the scanner.
 * Every store and scanner test works in its own folder under /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <xxhash.h>

#include "manifest/internal.h"

/* ---- helpers ---- */

static void
make_tmp(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/ferry-test-%s-XXXXXX", tag);
	assert_non_null(mkdtemp(buf));
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	return remove(path) < 0 ? 0 : 0;
}

static void
rm_tree(const char *dir)
{
	/* Give unreadable folders back their mode so they can be emptied. */
	chmod(dir, 0700);
	nftw(dir, rm_one, 64, FTW_DEPTH | FTW_PHYS);
}

static void
write_at(const char *root, const char *rel, const char *data, size_t n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static void
mkdir_at(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void
xxh128_of(const void *p, size_t n, uint8_t out[16])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, XXH3_128bits(p, n));
	memcpy(out, c.digest, 16);
}

static int
cmp_bytes(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = strlen(x), ny = strlen(y);
	int c = memcmp(x, y, nx < ny ? nx : ny);

	return c ? c : (nx > ny) - (nx < ny);
}

/* ---- records ---- */

static const struct manifest_local local_cases[] = {
    {0, 0, 0, 0, 0, 0, {0}, 0, 0, 0},
    {1, 1700000000123456789, 1700000000987654321, 42, 2049, 0100644,
        {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 0, 0, 0},
    {UINT64_MAX, INT64_MIN, INT64_MAX, UINT64_MAX, UINT64_MAX, UINT32_MAX,
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff},
        0, 0, 0},
    {5, -1, -1000000000, 7, 8, 040755, {0x80}, 0, 0, 0},
    /* with its owner: version 2, 69 bytes */
    {6, 1, 2, 3, 4, 0100600, {0x81}, 1, 1000, UINT32_MAX},
    {7, 1, 2, 3, 4, 0100644, {0}, 1, 0, 0},
};

static void
assert_local_equal(
    const struct manifest_local *a, const struct manifest_local *b)
{
	assert_true(a->size == b->size);
	assert_true(a->mtime_ns == b->mtime_ns);
	assert_true(a->ctime_ns == b->ctime_ns);
	assert_true(a->ino == b->ino);
	assert_true(a->dev == b->dev);
	assert_true(a->mode == b->mode);
	assert_memory_equal(a->hash, b->hash, 16);
	assert_int_equal(a->has_owner, b->has_owner);
	assert_true(a->uid == b->uid);
	assert_true(a->gid == b->gid);
}

static void
assert_remote_equal(
    const struct manifest_remote *a, const struct manifest_remote *b)
{
	assert_true(a->size == b->size);
	assert_true(a->mtime_ns == b->mtime_ns);
	assert_true(a->last_modified == b->last_modified);
	assert_true(a->part_size == b->part_size);
	assert_memory_equal(a->hash, b->hash, 16);
	assert_int_equal(a->has_hash, b->has_hash);
	assert_string_equal(a->etag, b->etag);
	assert_string_equal(a->src_etag, b->src_etag);
	assert_string_equal(a->upload_id, b->upload_id);
	assert_string_equal(a->version_id, b->version_id);
	assert_int_equal(a->has_meta, b->has_meta);
	assert_true(a->meta_mode == b->meta_mode);
	assert_true(a->meta_uid == b->meta_uid);
	assert_true(a->meta_gid == b->meta_gid);
	assert_int_equal(a->has_xattr, b->has_xattr);
	assert_true(a->xattr_ctime_ns == b->xattr_ctime_ns);
	assert_true(a->xattr_hash == b->xattr_hash);
}

/* Fills the remote test case i; strings up to each field's limit. */
static void
remote_case(int i, struct manifest_remote *r)
{
	memset(r, 0, sizeof(*r));
	switch (i) {
	case 0:
		break;
	case 1:
		r->size = 5368709120;
		r->mtime_ns = 1700000000123456789;
		r->last_modified = 1700000001;
		r->part_size = 8388608;
		r->has_hash = 1;
		memset(r->hash, 0xab, 16);
		strcpy(r->etag, "\"0123456789abcdef0123456789abcdef-640\"");
		strcpy(r->src_etag, "\"fedcba9876543210fedcba9876543210\"");
		strcpy(r->upload_id, "2~aBcD-upload.id_1");
		break;
	case 2:
		r->size = UINT64_MAX;
		r->mtime_ns = INT64_MIN;
		r->last_modified = -1;
		r->part_size = UINT64_MAX;
		memset(r->etag, 'e', sizeof(r->etag) - 1);
		memset(r->src_etag, 's', sizeof(r->src_etag) - 1);
		memset(r->upload_id, 'u', sizeof(r->upload_id) - 1);
		break;
	case 3:
		strcpy(r->etag, "\xc3\xa9tag with space");
		break;
	case 4:
		strcpy(r->etag, "\"0123456789abcdef0123456789abcdef\"");
		strcpy(r->version_id, "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY");
		break;
	case 6: /* the metadata it was stored with: version 3 */
		strcpy(r->etag, "\"0123456789abcdef0123456789abcdef\"");
		r->has_meta = 1;
		r->meta_mode = 0100600;
		r->meta_uid = 1000;
		r->meta_gid = UINT32_MAX;
		break;
	case 7: /* and a version id: version 4 */
		remote_case(6, r);
		strcpy(r->version_id, "null");
		break;
	case 8: /* the attributes' ctime and hash alone: version 5 */
		r->has_xattr = 1;
		r->xattr_ctime_ns = INT64_MIN;
		r->xattr_hash = UINT64_MAX;
		break;
	case 9: /* with the metadata and a version id: version 8 */
		remote_case(7, r);
		r->has_xattr = 1;
		r->xattr_ctime_ns = 1700000000123456789;
		r->xattr_hash = 0;
		break;
	default:
		remote_case(2, r);
		memset(r->version_id, 'v', sizeof(r->version_id) - 1);
		break;
	}
}

#define REMOTE_CASES 10

static void
test_local_roundtrip(void **state)
{
	uint8_t buf[MANIFEST_REC_MAX], again[MANIFEST_REC_MAX];
	struct manifest_local out;
	size_t i, len, len2, cut;

	(void)state;
	for (i = 0; i < sizeof(local_cases) / sizeof(local_cases[0]); i++) {
		assert_int_equal(
		    manifest_local_encode(&local_cases[i], buf, &len),
		    FERRY_OK);
		assert_int_equal(len, local_cases[i].has_owner ? 69 : 61);
		assert_int_equal(buf[0], local_cases[i].has_owner ? 2 : 1);
		assert_int_equal(
		    manifest_local_decode(buf, len, &out), FERRY_OK);
		assert_local_equal(&out, &local_cases[i]);
		assert_int_equal(
		    manifest_local_encode(&out, again, &len2), FERRY_OK);
		assert_memory_equal(buf, again, len);
		for (cut = 0; cut < len; cut++)
			assert_int_equal(manifest_local_decode(buf, cut, &out),
			    FERRY_EPARSE);
		buf[len] = 0;
		assert_int_equal(
		    manifest_local_decode(buf, len + 1, &out), FERRY_EPARSE);
	}
}

/* The layout is fixed little-endian, whatever the machine. */
static void
test_local_layout(void **state)
{
	static const uint8_t want[61] = {1,
	    /* size */ 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	    /* mtime -2 */ 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    /* ctime 256 */ 0, 1, 0, 0, 0, 0, 0, 0,
	    /* ino */ 9, 0, 0, 0, 0, 0, 0, 0,
	    /* dev */ 0x34, 0x12, 0, 0, 0, 0, 0, 0,
	    /* mode 0100644 */ 0xa4, 0x81, 0, 0,
	    /* hash */ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	struct manifest_local r = {0x0102030405060708, -2, 256, 9, 0x1234,
	    0100644, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 0,
	    0, 0};
	uint8_t buf[MANIFEST_REC_MAX];
	size_t len;

	(void)state;
	assert_int_equal(manifest_local_encode(&r, buf, &len), FERRY_OK);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

static void
test_remote_roundtrip(void **state)
{
	uint8_t buf[MANIFEST_REC_MAX], again[MANIFEST_REC_MAX];
	struct manifest_remote in, out;
	size_t len, len2, cut;
	int i;

	(void)state;
	for (i = 0; i < REMOTE_CASES; i++) {
		remote_case(i, &in);
		assert_int_equal(
		    manifest_remote_encode(&in, buf, &len), FERRY_OK);
		assert_true(len <= MANIFEST_REC_MAX);
		assert_int_equal(
		    manifest_remote_decode(buf, len, &out), FERRY_OK);
		assert_remote_equal(&out, &in);
		assert_int_equal(
		    manifest_remote_encode(&out, again, &len2), FERRY_OK);
		assert_int_equal(len, len2);
		assert_memory_equal(buf, again, len);
		for (cut = 0; cut < len; cut++)
			assert_int_equal(manifest_remote_decode(buf, cut, &out),
			    FERRY_EPARSE);
		buf[len] = 'x';
		assert_int_equal(
		    manifest_remote_decode(buf, len + 1, &out), FERRY_EPARSE);
	}
}

/* Upload records: a round trip, the fixed layout, and what is refused. */
static void
upload_case(int i, struct manifest_upload *u)
{
	memset(u, 0, sizeof(*u));
	u->file = local_cases[i % (sizeof(local_cases) / sizeof(*local_cases))];
	u->part_size = i == 2 ? UINT64_MAX : (uint64_t)5 << 20;
	if (i == 2)
		memset(u->upload_id, 'u', sizeof(u->upload_id) - 1);
	else
		strcpy(u->upload_id, i ? "2~aBcD-upload.id_1" : "x");
}

static void
test_upload_roundtrip(void **state)
{
	uint8_t buf[MANIFEST_REC_MAX], again[MANIFEST_REC_MAX];
	struct manifest_upload in, out;
	size_t len, len2, cut;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		upload_case(i, &in);
		assert_int_equal(
		    manifest_upload_encode(&in, buf, &len), FERRY_OK);
		assert_int_equal(len, 1 + 8 + 60 + 2 + strlen(in.upload_id));
		assert_int_equal(
		    manifest_upload_decode(buf, len, &out), FERRY_OK);
		assert_true(out.part_size == in.part_size);
		assert_local_equal(&out.file, &in.file);
		assert_string_equal(out.upload_id, in.upload_id);
		assert_int_equal(
		    manifest_upload_encode(&out, again, &len2), FERRY_OK);
		assert_int_equal(len, len2);
		assert_memory_equal(buf, again, len);
		for (cut = 0; cut < len; cut++)
			assert_int_equal(manifest_upload_decode(buf, cut, &out),
			    FERRY_EPARSE);
		buf[len] = 'x';
		assert_int_equal(
		    manifest_upload_decode(buf, len + 1, &out), FERRY_EPARSE);
	}
}

static void
test_upload_layout(void **state)
{
	struct manifest_upload u, out;
	uint8_t buf[MANIFEST_REC_MAX], lbuf[MANIFEST_REC_MAX];
	size_t len, llen;

	(void)state;
	upload_case(1, &u);
	u.part_size = 0x0102030405060708;
	assert_int_equal(manifest_upload_encode(&u, buf, &len), FERRY_OK);
	assert_int_equal(manifest_local_encode(&u.file, lbuf, &llen), FERRY_OK);
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[1], 0x08);
	assert_int_equal(buf[8], 0x01);
	/* the file as in a local record, after its version byte */
	assert_memory_equal(buf + 9, lbuf + 1, llen - 1);
	assert_int_equal(buf[9 + 60], strlen(u.upload_id));
	assert_int_equal(buf[9 + 61], 0);
	/* versions other than 1, an empty or NUL-holding upload id */
	buf[0] = 2;
	assert_int_equal(manifest_upload_decode(buf, len, &out), FERRY_EPARSE);
	buf[0] = 1;
	buf[len - 3] = '\0';
	assert_int_equal(manifest_upload_decode(buf, len, &out), FERRY_EPARSE);
	buf[9 + 60] = 0;
	assert_int_equal(
	    manifest_upload_decode(buf, 9 + 62, &out), FERRY_EPARSE);
	/* encoding refuses an empty or unterminated upload id */
	u.upload_id[0] = '\0';
	assert_int_equal(manifest_upload_encode(&u, buf, &len), FERRY_EPARSE);
	memset(u.upload_id, 'x', sizeof(u.upload_id));
	assert_int_equal(manifest_upload_encode(&u, buf, &len), FERRY_EPARSE);
}

/* Offsets in an encoded remote record with empty strings. */
#define R_HAS_HASH 49
#define R_ETAG 50

static void
test_remote_malformed(void **state)
{
	uint8_t buf[MANIFEST_REC_MAX + 256], bad[MANIFEST_REC_MAX + 256];
	struct manifest_remote r, out;
	struct manifest_local lout;
	size_t len, n;

	(void)state;
	remote_case(0, &r);
	assert_int_equal(manifest_remote_encode(&r, buf, &len), FERRY_OK);
	assert_int_equal(len, R_ETAG + 6);
	/* Versions other than 1. */
	memcpy(bad, buf, len);
	bad[0] = 0;
	assert_int_equal(manifest_remote_decode(bad, len, &out), FERRY_EPARSE);
	bad[0] = 2;
	assert_int_equal(manifest_remote_decode(bad, len, &out), FERRY_EPARSE);
	/* has_hash other than 0 or 1. */
	memcpy(bad, buf, len);
	bad[R_HAS_HASH] = 2;
	assert_int_equal(manifest_remote_decode(bad, len, &out), FERRY_EPARSE);
	/* An etag of 80 bytes does not fit its 80-byte array with a NUL. */
	memcpy(bad, buf, R_ETAG);
	n = R_ETAG;
	bad[n++] = 80;
	bad[n++] = 0;
	memset(bad + n, 'e', 80);
	n += 80;
	memset(bad + n, 0, 4);
	n += 4;
	assert_int_equal(manifest_remote_decode(bad, n, &out), FERRY_EPARSE);
	/* 79 bytes fit. */
	bad[R_ETAG] = 79;
	memmove(bad + R_ETAG + 2 + 79, bad + R_ETAG + 2 + 80, 4);
	assert_int_equal(manifest_remote_decode(bad, n - 1, &out), FERRY_OK);
	assert_int_equal(strlen(out.etag), 79);
	/* A NUL inside a string would not survive a round trip. */
	bad[R_ETAG + 2 + 10] = '\0';
	assert_int_equal(
	    manifest_remote_decode(bad, n - 1, &out), FERRY_EPARSE);
	/* An upload id longer than 1023 bytes. */
	memcpy(bad, buf, len);
	bad[R_ETAG + 4] = 0x00;
	bad[R_ETAG + 5] = 0x04; /* 1024 */
	memset(bad + len, 'u', 1024);
	assert_int_equal(
	    manifest_remote_decode(bad, len + 1024, &out), FERRY_EPARSE);
	/* Encoding refuses an unterminated field. */
	memset(r.etag, 'x', sizeof(r.etag));
	assert_int_equal(manifest_remote_encode(&r, buf, &len), FERRY_EPARSE);
	/* Local records: wrong version. */
	assert_int_equal(
	    manifest_local_encode(&local_cases[1], buf, &len), FERRY_OK);
	buf[0] = 0x11;
	assert_int_equal(manifest_local_decode(buf, len, &lout), FERRY_EPARSE);
}

/*
 * Remote record versions: 1 as every ferry wrote it (no version id), 2
 * with a version id after the upload id; what each byte string decodes
 * to, or that it is refused.
 */
static void
test_remote_versions(void **state)
{
	/* the fixed fields of a record: zeros, but for the version byte */
	static const struct {
		uint8_t version;
		const char *tail; /* after the fixed fields, as bytes */
		size_t taillen;
		const char *version_id; /* NULL: refused */
	} cases[] = {
	    {1, "\0\0\0\0\0\0", 6, ""},
	    {1, "\0\0\0\0\0\0\1\0v", 9, NULL},
	    {2, "\0\0\0\0\0\0\1\0v", 9, "v"},
	    {2, "\0\0\0\0\0\0\4\0null", 12, "null"},
	    {2, "\0\0\0\0\0\0", 6, NULL},         /* no version id */
	    {2, "\0\0\0\0\0\0\0\0", 8, NULL},     /* an empty one */
	    {2, "\0\0\0\0\0\0\2\0v", 9, NULL},    /* short */
	    {2, "\0\0\0\0\0\0\1\0vx", 10, NULL},  /* trailing */
	    {2, "\0\0\0\0\0\0\2\0v\0", 10, NULL}, /* a NUL */
	    {3, "\0\0\0\0\0\0\1\0v", 9, NULL},
	    /* 3 and 4: 1 and 2 with the stored metadata, 12 bytes */
	    {3, "\0\0\0\0\0\0\xa4\x81\0\0\1\0\0\0\2\0\0\0", 18, ""},
	    {4, "\0\0\0\0\0\0\1\0v\xa4\x81\0\0\1\0\0\0\2\0\0\0", 21, "v"},
	    {3, "\0\0\0\0\0\0\xa4\x81\0\0\1\0\0\0\2\0\0", 17, NULL},
	    {4, "\0\0\0\0\0\0\xa4\x81\0\0\1\0\0\0\2\0\0\0", 18, NULL},
	    {5, "\0\0\0\0\0\0\1\0v\xa4\x81\0\0\1\0\0\0\2\0\0\0", 21, NULL},
	    /* 5 to 8: 1 to 4 with the attributes' ctime and hash, 16 bytes */
	    {5, "\0\0\0\0\0\0\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 22, ""},
	    {7,
	        "\0\0\0\0\0\0\xa4\x81\0\0\1\0\0\0\2\0\0\0"
	        "\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0",
	        34, ""},
	    {8,
	        "\0\0\0\0\0\0\1\0v\xa4\x81\0\0\1\0\0\0\2\0\0\0"
	        "\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0",
	        37, "v"},
	    {6, "\0\0\0\0\0\0\1\0v\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0", 24,
	        NULL}, /* short */
	    {9, "\0\0\0\0\0\0\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 22, NULL},
	};
	uint8_t buf[MANIFEST_REC_MAX + 512], again[MANIFEST_REC_MAX];
	struct manifest_remote out;
	size_t i, len, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0, R_ETAG);
		buf[0] = cases[i].version;
		memcpy(buf + R_ETAG, cases[i].tail, cases[i].taillen);
		n = R_ETAG + cases[i].taillen;
		if (cases[i].version_id == NULL) {
			assert_int_equal(
			    manifest_remote_decode(buf, n, &out), FERRY_EPARSE);
			continue;
		}
		assert_int_equal(
		    manifest_remote_decode(buf, n, &out), FERRY_OK);
		assert_string_equal(out.version_id, cases[i].version_id);
		assert_int_equal(out.has_meta, (cases[i].version - 1) % 4 >= 2);
		assert_int_equal(out.has_xattr, cases[i].version >= 5);
		/* each is written back as it was read */
		assert_int_equal(
		    manifest_remote_encode(&out, again, &len), FERRY_OK);
		assert_int_equal(len, n);
		assert_memory_equal(again, buf, n);
	}
	/* a version id of 256 bytes does not fit its field with a NUL */
	memset(buf, 0, R_ETAG + 6);
	buf[0] = 2;
	buf[R_ETAG + 6] = 0;
	buf[R_ETAG + 7] = 1;
	memset(buf + R_ETAG + 8, 'v', 256);
	assert_int_equal(
	    manifest_remote_decode(buf, R_ETAG + 8 + 256, &out), FERRY_EPARSE);
	buf[R_ETAG + 6] = 255;
	buf[R_ETAG + 7] = 0;
	assert_int_equal(
	    manifest_remote_decode(buf, R_ETAG + 8 + 255, &out), FERRY_OK);
	memset(out.version_id, 'v', sizeof(out.version_id));
	assert_int_equal(
	    manifest_remote_encode(&out, again, &len), FERRY_EPARSE);
}

/* ---- hashing ---- */

/* PATTERN_LEN bytes that do not repeat at any power of two, by shift. */
#define PATTERN_LEN 700001

static uint8_t *
pattern(unsigned shift)
{
	uint8_t *data = malloc(PATTERN_LEN);
	size_t j;

	assert_non_null(data);
	for (j = 0; j < PATTERN_LEN; j++)
		data[j] = (uint8_t)(j * 2654435761u >> shift);
	return data;
}

static void
test_hash_fd(void **state)
{
	static const size_t sizes[] = {0, 3, 262143, 262144, 262145, 700001};
	uint8_t xxh[16], md5[16], want[16];
	char md5hex[33];
	uint64_t n;
	uint8_t *data;
	size_t i;
	FILE *f;

	(void)state;
	data = pattern(13);
	memcpy(data, "abc", 3);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		f = tmpfile();
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, sizes[i], f), sizes[i]);
		fflush(f);
		rewind(f);
		assert_int_equal(
		    manifest_hash_fd(fileno(f), xxh, md5, &n), FERRY_OK);
		assert_true(n == sizes[i]);
		xxh128_of(data, sizes[i], want);
		assert_memory_equal(xxh, want, 16);
		hex_encode(md5, 16, md5hex);
		if (sizes[i] == 0)
			assert_string_equal(
			    md5hex, "d41d8cd98f00b204e9800998ecf8427e");
		if (sizes[i] == 3)
			assert_string_equal(
			    md5hex, "900150983cd24fb0d6963f7d28e17f72");
		rewind(f);
		assert_int_equal(
		    manifest_hash_fd(fileno(f), xxh, NULL, &n), FERRY_OK);
		assert_memory_equal(xxh, want, 16);
		fclose(f);
	}
	/* A descriptor that cannot be read. */
	assert_int_equal(manifest_hash_fd(-1, xxh, md5, &n), FERRY_ESYS);
	assert_true(n == 0);
	free(data);
}

/*
 * The digests of a file taken in stretches, as a pull's ranges come in,
 * are those of the whole file; bytes past its end hash as zeros.
 */
static void
test_fdhash_stretches(void **state)
{
	/* each row: the stretches' lengths, 0-terminated, over 700001 bytes */
	static const size_t cuts[][5] = {
	    {700001, 0},
	    {1, 700000, 0},
	    {262144, 262144, 175713, 0},
	    {3, 262141, 437857, 0},
	    {0},
	};
	uint8_t xxh[16], md5[16], want_xxh[16], want_md5[16];
	struct manifest_fdhash *h;
	uint64_t n;
	uint8_t *data;
	size_t i, j, at;
	FILE *f;

	(void)state;
	data = pattern(11);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, 700001, f), 700001);
	fflush(f);
	rewind(f);
	assert_int_equal(
	    manifest_hash_fd(fileno(f), want_xxh, want_md5, &n), FERRY_OK);
	for (i = 0; cuts[i][0] != 0; i++) {
		assert_int_equal(
		    manifest_fdhash_new(fileno(f), 1, &h), FERRY_OK);
		for (j = 0, at = 0; cuts[i][j] != 0; at += cuts[i][j++])
			assert_int_equal(
			    manifest_fdhash_next(h, cuts[i][j]), FERRY_OK);
		assert_true(at == 700001);
		assert_int_equal(
		    manifest_fdhash_final(h, xxh, md5, &n), FERRY_OK);
		assert_true(n == 700001);
		assert_memory_equal(xxh, want_xxh, 16);
		assert_memory_equal(md5, want_md5, 16);
		manifest_fdhash_free(h);
	}
	/* the file cut short: the rest hashes as the zeros a size set later
	 * would give */
	memset(data + 500000, 0, 200001);
	assert_int_equal(ftruncate(fileno(f), 500000), 0);
	assert_int_equal(manifest_fdhash_new(fileno(f), 0, &h), FERRY_OK);
	assert_int_equal(manifest_fdhash_next(h, 400000), FERRY_OK);
	assert_int_equal(manifest_fdhash_next(h, 300001), FERRY_OK);
	/* no MD5 asked for: md5 is left as it is */
	memset(md5, 0xee, 16);
	assert_int_equal(manifest_fdhash_final(h, xxh, md5, &n), FERRY_OK);
	assert_int_equal(md5[0], 0xee);
	assert_true(n == 700001);
	xxh128_of(data, 700001, want_xxh);
	assert_memory_equal(xxh, want_xxh, 16);
	manifest_fdhash_free(h);
	fclose(f);
	free(data);
}

/* ---- default folder ---- */

struct dir_case {
	const char *ferry_state, *xdg, *home;
	const char *want_fmt; /* %s: the id; NULL: FERRY_EUSAGE */
};

static const struct dir_case dir_cases[] = {
    {"/st", "/xdg", "/home/u", "/st/%s"},
    {"", "/xdg", "/home/u", "/xdg/ferry/%s"},
    {NULL, "/xdg", "/home/u", "/xdg/ferry/%s"},
    {NULL, "relative", "/home/u", "/home/u/.local/state/ferry/%s"},
    {NULL, "", "/home/u", "/home/u/.local/state/ferry/%s"},
    {NULL, NULL, NULL, NULL},
    {NULL, NULL, "", NULL},
};

static void
set_env(const char *name, const char *v)
{
	if (v == NULL)
		unsetenv(name);
	else
		setenv(name, v, 1);
}

static void
test_default_dir(void **state)
{
	static const char *const vars[] = {
	    "FERRY_STATE_DIR", "XDG_STATE_HOME", "HOME"};
	const char *src = "/data/photos", *dst = "s3://archive/photos";
	char buf[512], want[512], id[17], joined[128], *saved[3];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		saved[i] = xstrdup(getenv(vars[i]));
	snprintf(joined, sizeof(joined), "%s\n%s", src, dst);
	snprintf(id, sizeof(id), "%016" PRIx64,
	    (uint64_t)XXH3_64bits(joined, strlen(joined)));
	for (i = 0; i < sizeof(dir_cases) / sizeof(dir_cases[0]); i++) {
		set_env("FERRY_STATE_DIR", dir_cases[i].ferry_state);
		set_env("XDG_STATE_HOME", dir_cases[i].xdg);
		set_env("HOME", dir_cases[i].home);
		if (dir_cases[i].want_fmt == NULL) {
			assert_int_equal(
			    manifest_default_dir(src, dst, buf, sizeof(buf)),
			    FERRY_EUSAGE);
			continue;
		}
		assert_int_equal(
		    manifest_default_dir(src, dst, buf, sizeof(buf)), FERRY_OK);
		snprintf(want, sizeof(want), dir_cases[i].want_fmt, id);
		assert_string_equal(buf, want);
		assert_int_equal(
		    manifest_default_dir(src, dst, buf, 8), FERRY_EUSAGE);
		assert_string_equal(buf, "");
	}
	for (i = 0; i < 3; i++) {
		set_env(vars[i], saved[i]);
		free(saved[i]);
	}
}

/* ---- store ---- */

/* Keys in memcmp order, including long ones sharing a 495-byte prefix. */
static char *order_keys[16];
static size_t norder_keys;

static void
order_keys_make(void)
{
	static const char *const shorts[] = {
	    "a", "a b", "a.b", "a/b", "a0", "\xc3\xa9", "Z", "a/b/c"};
	size_t i, lens[] = {495, 496, 511, 600, 1024};
	char *k;

	norder_keys = 0;
	for (i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
		order_keys[norder_keys++] = strdup(shorts[i]);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		/* Same first 495 bytes, then tails in reverse order. */
		k = malloc(lens[i] + 1);
		memset(k, 'p', lens[i]);
		if (lens[i] > 495)
			k[495] = (char)('z' - i);
		k[lens[i]] = '\0';
		order_keys[norder_keys++] = k;
	}
	k = malloc(700);
	memset(k, 'p', 699);
	k[494] = 'q';
	k[699] = '\0';
	order_keys[norder_keys++] = k;
}

static void
order_keys_free(void)
{
	size_t i;

	for (i = 0; i < norder_keys; i++)
		free(order_keys[i]);
	norder_keys = 0;
}

static struct manifest_local
local_for(size_t i)
{
	struct manifest_local r;

	memset(&r, 0, sizeof(r));
	r.size = i * 1000 + 7;
	r.mtime_ns = (int64_t)i;
	r.mode = 0100644;
	r.hash[0] = (uint8_t)i;
	return r;
}

static void
check_order(struct manifest *m)
{
	struct manifest_iter *it;
	struct manifest_local r, want;
	const char *sorted[16], *key;
	size_t i, j, keylen;

	memcpy(sorted, order_keys, norder_keys * sizeof(char *));
	qsort(sorted, norder_keys, sizeof(char *), cmp_bytes);
	assert_int_equal(manifest_iter_new(m, MANIFEST_LOCAL, &it), FERRY_OK);
	for (i = 0; i < norder_keys; i++) {
		assert_int_equal(
		    manifest_iter_local(it, &key, &keylen, &r), FERRY_OK);
		assert_int_equal(keylen, strlen(sorted[i]));
		assert_memory_equal(key, sorted[i], keylen);
		for (j = 0; order_keys[j] != sorted[i]; j++)
			;
		want = local_for(j);
		assert_local_equal(&r, &want);
	}
	assert_int_equal(
	    manifest_iter_local(it, &key, &keylen, &r), FERRY_ENOTFOUND);
	assert_int_equal(
	    manifest_iter_local(it, &key, &keylen, &r), FERRY_ENOTFOUND);
	manifest_iter_free(it);
}

/* Upload records live in their own table, apart from remote records. */
static void
store_uploads_put(struct manifest *m)
{
	struct manifest_upload u, got;
	struct manifest_remote rr;

	upload_case(1, &u);
	assert_int_equal(manifest_upload_put(m, "big", 3, &u), FERRY_OK);
	upload_case(2, &u);
	assert_int_equal(manifest_upload_put(m, order_keys[norder_keys - 2],
	                     strlen(order_keys[norder_keys - 2]), &u),
	    FERRY_OK);
	assert_int_equal(manifest_upload_get(m, "big", 3, &got), FERRY_OK);
	assert_string_equal(got.upload_id, "2~aBcD-upload.id_1");
	assert_int_equal(manifest_upload_get(m, "a", 1, &got), FERRY_ENOTFOUND);
	assert_int_equal(
	    manifest_remote_get(m, "big", 3, &rr), FERRY_ENOTFOUND);
}

/* After a reopen: the uploads in key order, then one deleted. */
static void
store_uploads_check(struct manifest *m)
{
	struct manifest_upload got;
	struct manifest_iter *it;
	struct manifest_remote rr;
	const char *key;
	size_t keylen;

	assert_int_equal(manifest_iter_new(m, MANIFEST_UPLOADS, &it), FERRY_OK);
	assert_int_equal(
	    manifest_iter_upload(it, &key, &keylen, &got), FERRY_OK);
	assert_string_equal(key, "big");
	assert_true(got.part_size == (uint64_t)5 << 20);
	assert_int_equal(
	    manifest_iter_upload(it, &key, &keylen, &got), FERRY_OK);
	assert_true(keylen == 1024 && got.upload_id[1022] == 'u');
	assert_int_equal(
	    manifest_iter_upload(it, &key, &keylen, &got), FERRY_ENOTFOUND);
	assert_int_equal(
	    manifest_iter_remote(it, &key, &keylen, &rr), FERRY_EUSAGE);
	manifest_iter_free(it);
	assert_int_equal(manifest_upload_del(m, "big", 3), FERRY_OK);
	assert_int_equal(manifest_upload_del(m, "big", 3), FERRY_OK);
	assert_int_equal(
	    manifest_upload_get(m, "big", 3, &got), FERRY_ENOTFOUND);
}

/* Everything survives a close; deletes work, absent or not. */
static void
store_reopen(const char *sub)
{
	struct manifest_remote rr;
	struct manifest_local r;
	struct manifest *m;
	uint64_t nl, nr;
	size_t i;

	assert_int_equal(manifest_open(sub, "src", "dst", 0, &m), FERRY_OK);
	check_order(m);
	store_uploads_check(m);
	assert_int_equal(manifest_remote_get(m, "a", 1, &rr), FERRY_OK);
	assert_int_equal(manifest_remote_del(m, "a", 1), FERRY_OK);
	assert_int_equal(manifest_remote_del(m, "a", 1), FERRY_OK);
	assert_int_equal(manifest_remote_get(m, "a", 1, &rr), FERRY_ENOTFOUND);
	i = norder_keys - 2; /* a 1024-byte key */
	assert_int_equal(
	    manifest_local_del(m, order_keys[i], strlen(order_keys[i])),
	    FERRY_OK);
	assert_int_equal(
	    manifest_local_get(m, order_keys[i], strlen(order_keys[i]), &r),
	    FERRY_ENOTFOUND);
	assert_int_equal(manifest_commit(m), FERRY_OK);
	assert_int_equal(manifest_count(m, &nl, &nr), FERRY_OK);
	assert_true(nl == norder_keys - 1 && nr == 0);
	manifest_close(m);
}

static void
test_store_basic(void **state)
{
	struct manifest_local r, want;
	struct manifest_remote rr, rw;
	struct manifest *m;
	char dir[256], sub[300], buf[64];
	uint64_t nl, nr;
	size_t i;

	(void)state;
	make_tmp(dir, sizeof(dir), "store");
	snprintf(sub, sizeof(sub), "%s/deep/er", dir);
	order_keys_make();
	assert_int_equal(manifest_open(sub, "src", "dst", 0, &m), FERRY_OK);
	assert_string_equal(manifest_dir(m), sub);
	/* Pending writes are visible before any commit. */
	for (i = 0; i < norder_keys; i++) {
		want = local_for(i);
		assert_int_equal(manifest_local_put(m, order_keys[i],
		                     strlen(order_keys[i]), &want),
		    FERRY_OK);
		assert_int_equal(manifest_local_get(m, order_keys[i],
		                     strlen(order_keys[i]), &r),
		    FERRY_OK);
		assert_local_equal(&r, &want);
	}
	assert_int_equal(manifest_local_get(m, "a/", 2, &r), FERRY_ENOTFOUND);
	assert_int_equal(manifest_local_get(m, "", 0, &r), FERRY_EUSAGE);
	assert_int_equal(
	    manifest_local_put(m, order_keys[0], 1025, &want), FERRY_EUSAGE);
	/* Remote records and meta values. */
	remote_case(1, &rw);
	assert_int_equal(manifest_remote_put(m, "a", 1, &rw), FERRY_OK);
	assert_int_equal(manifest_remote_get(m, "a", 1, &rr), FERRY_OK);
	assert_remote_equal(&rr, &rw);
	assert_int_equal(manifest_remote_get(m, "b", 1, &rr), FERRY_ENOTFOUND);
	assert_int_equal(manifest_meta_put(m, "last_run", "12345"), FERRY_OK);
	assert_int_equal(
	    manifest_meta_get(m, "last_run", buf, sizeof(buf)), FERRY_OK);
	assert_string_equal(buf, "12345");
	assert_int_equal(manifest_meta_get(m, "last_run", buf, 5), FERRY_EDB);
	assert_int_equal(
	    manifest_meta_get(m, "nope", buf, sizeof(buf)), FERRY_ENOTFOUND);
	assert_int_equal(
	    manifest_meta_get(m, "source", buf, sizeof(buf)), FERRY_OK);
	assert_string_equal(buf, "src");
	check_order(m);
	assert_int_equal(manifest_count(m, &nl, &nr), FERRY_OK);
	assert_true(nl == norder_keys && nr == 1);
	store_uploads_put(m);
	manifest_close(m);
	store_reopen(sub);
	manifest_close(NULL);
	order_keys_free();
	rm_tree(dir);
}

/* Enough writes to pass the automatic commit, read through an iterator. */
static void
test_store_batches(void **state)
{
	struct manifest_iter *it;
	struct manifest_local r, w;
	struct manifest *m;
	const char *key;
	char dir[256], k[32];
	size_t keylen;
	int i;

	(void)state;
	make_tmp(dir, sizeof(dir), "batch");
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < MANIFEST_BATCH + 10; i++) {
		w.size = (uint64_t)i;
		snprintf(k, sizeof(k), "f%06d", i);
		assert_int_equal(
		    manifest_local_put(m, k, strlen(k), &w), FERRY_OK);
	}
	assert_true(m->nwrites == 10);
	/* An iterator stays valid across later commits. */
	assert_int_equal(manifest_iter_new(m, MANIFEST_LOCAL, &it), FERRY_OK);
	for (i = 0; i < MANIFEST_BATCH + 10; i++) {
		if (i % 1000 == 0) {
			assert_int_equal(
			    manifest_local_del(m, "f000000", 7), FERRY_OK);
			assert_int_equal(manifest_commit(m), FERRY_OK);
		}
		assert_int_equal(
		    manifest_iter_local(it, &key, &keylen, &r), FERRY_OK);
		snprintf(k, sizeof(k), "f%06d", i);
		assert_string_equal(key, k);
		assert_true(r.size == (uint64_t)i);
	}
	assert_int_equal(
	    manifest_iter_remote(it, &key, &keylen, NULL), FERRY_EUSAGE);
	manifest_iter_free(it);
	manifest_close(m);
	rm_tree(dir);
}

static void
write_garbage(const char *dir, const char *name, size_t n)
{
	char *junk = malloc(n);
	size_t i;

	for (i = 0; i < n; i++)
		junk[i] = (char)(i * 7 + 3);
	write_at(dir, name, junk, n);
	free(junk);
}

static void
test_store_refusals(void **state)
{
	struct manifest *m, *m2;
	struct manifest_local r;
	char dir[256];

	(void)state;
	make_tmp(dir, sizeof(dir), "refuse");
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	/* A second run of the pair. */
	m2 = (void *)1;
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m2), FERRY_EBUSY);
	assert_null(m2);
	assert_non_null(strstr(ferry_errmsg(), "another ferry run"));
	memset(&r, 0, sizeof(r));
	assert_int_equal(manifest_local_put(m, "x", 1, &r), FERRY_OK);
	manifest_close(m);

	/* Another pair. */
	assert_int_equal(manifest_open(dir, "s", "other", 0, &m), FERRY_EDB);
	assert_null(m);
	assert_non_null(strstr(ferry_errmsg(), "--rebuild-manifest"));
	assert_int_equal(manifest_open(dir, "other", "d", 0, &m), FERRY_EDB);
	/* The refusal left the manifest alone and the lock free. */
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	assert_int_equal(manifest_local_get(m, "x", 1, &r), FERRY_OK);
	/* A newer schema. */
	assert_int_equal(manifest_meta_put(m, "schema", "2"), FERRY_OK);
	manifest_close(m);
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_EDB);
	assert_non_null(strstr(ferry_errmsg(), "newer"));
	assert_non_null(strstr(ferry_errmsg(), "--rebuild-manifest"));
	/* Rebuild starts afresh. */
	assert_int_equal(
	    manifest_open(dir, "s", "d", MANIFEST_REBUILD, &m), FERRY_OK);
	assert_int_equal(manifest_local_get(m, "x", 1, &r), FERRY_ENOTFOUND);
	manifest_close(m);
	/* Corrupt files, short and long. */
	write_garbage(dir, "data.mdb", 5);
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_EDB);
	assert_non_null(strstr(ferry_errmsg(), "--rebuild-manifest"));
	write_garbage(dir, "data.mdb", 65536);
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_EDB);
	assert_non_null(strstr(ferry_errmsg(), "--rebuild-manifest"));
	assert_int_equal(
	    manifest_open(dir, "s", "d", MANIFEST_REBUILD, &m), FERRY_OK);
	manifest_close(m);
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	manifest_close(m);
	/* Not a folder. */
	write_at(dir, "file", "x", 1);
	strcat(dir, "/file");
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_ESYS);
	dir[strlen(dir) - 5] = '\0';
	rm_tree(dir);
}

/* A record that does not decode is a damaged manifest. */
static void
test_store_bad_record(void **state)
{
	struct manifest_iter *it;
	struct manifest_local r;
	struct manifest *m;
	MDB_txn *txn;
	MDB_val k = {1, "x"}, v = {3, "bad"};
	const char *key;
	size_t keylen;
	char dir[256];

	(void)state;
	make_tmp(dir, sizeof(dir), "badrec");
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	assert_int_equal(manifest_txn_write(m, &txn), FERRY_OK);
	assert_int_equal(mdb_put(txn, m->dbi[DB_LOCAL], &k, &v, 0), 0);
	assert_int_equal(manifest_damaged(m), FERRY_OK);
	assert_int_equal(manifest_local_get(m, "x", 1, &r), FERRY_EDB);
	assert_non_null(strstr(ferry_errmsg(), "--rebuild-manifest"));
	assert_non_null(strstr(ferry_errmsg(), "'x' does not decode"));
	/* the run it is part of then ends with exit 2 */
	assert_int_equal(manifest_damaged(m), FERRY_EDB);
	assert_int_equal(manifest_iter_new(m, MANIFEST_LOCAL, &it), FERRY_OK);
	assert_int_equal(manifest_iter_local(it, &key, &keylen, &r), FERRY_EDB);
	manifest_iter_free(it);
	manifest_close(m);
	rm_tree(dir);
}

/* Rewrites n bytes of dir/data.mdb at off. */
static void
patch_at(const char *dir, off_t off, const void *bytes, size_t n)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	assert_true((fd = open(path, O_WRONLY)) >= 0);
	assert_int_equal(pwrite(fd, bytes, n, off), (ssize_t)n);
	close(fd);
}

/* The page of the main table's root, from the newer meta page. */
static off_t
main_root(const char *dir)
{
	uint64_t txn[2], root[2];
	char path[512];
	int fd, i;

	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	for (i = 0; i < 2; i++) {
		/* page header 16, MDB_meta: 24, free db 48, main db 48, ... */
		assert_int_equal(
		    pread(fd, &root[i], 8, i * 4096 + 16 + 24 + 88), 8);
		assert_int_equal(
		    pread(fd, &txn[i], 8, i * 4096 + 16 + 24 + 96 + 8), 8);
	}
	close(fd);
	return (off_t)(txn[1] > txn[0] ? root[1] : root[0]) * 4096;
}

/* Opens dir and expects it refused as damaged, saying why. */
static void
expect_damaged(const char *dir, const char *why)
{
	struct manifest *m = (void *)1;

	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_EDB);
	assert_null(m);
	if (strstr(ferry_errmsg(), why) == NULL ||
	    strstr(ferry_errmsg(), "is damaged") == NULL ||
	    strstr(ferry_errmsg(), "--rebuild-manifest") == NULL)
		fail_msg("%s", ferry_errmsg());
	assert_int_equal(
	    manifest_open(dir, NULL, NULL, MANIFEST_INSPECT, &m), FERRY_EDB);
}

/*
 * A data.mdb cut short, or with a page overwritten, is refused before
 * LMDB maps it (where it would fault), and --rebuild-manifest recovers.
 */
/* LMDB's page count and the file's, after a commit through env. */
static void
pages_of(MDB_env *env, const char *dir, uint64_t *last, uint64_t *held)
{
	MDB_envinfo in;
	MDB_stat ms;
	struct stat st;
	char path[512];

	assert_int_equal(mdb_env_info(env, &in), 0);
	assert_int_equal(mdb_env_stat(env, &ms), 0);
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	assert_int_equal(stat(path, &st), 0);
	*last = in.me_last_pgno;
	*held = (uint64_t)st.st_size / ms.ms_psize;
}

/* Records added, deleted and rewritten in bulk, as runs of a pull do. */
struct churn {
	MDB_txn *txn;
	MDB_dbi dl, dr;
	uint32_t live[8000], seed;
	unsigned nlive, next;
};

static unsigned
churn_rand(struct churn *c)
{
	c->seed = c->seed * 1103515245u + 12345u;
	return (c->seed >> 8) & 0xffff;
}

static void
churn_put(struct churn *c, MDB_dbi dbi, uint32_t id, size_t size)
{
	char key[64], v[200];
	MDB_val k = {0, key}, d = {size, v};

	memset(v, 'x', sizeof(v));
	k.mv_size = (size_t)snprintf(key, sizeof(key), "d%u/f%07u", id % 7, id);
	assert_int_equal(mdb_put(c->txn, dbi, &k, &d, 0), 0);
}

static void
churn_del(struct churn *c, uint32_t id)
{
	char key[64];
	MDB_val k = {0, key};

	k.mv_size = (size_t)snprintf(key, sizeof(key), "d%u/f%07u", id % 7, id);
	assert_int_equal(mdb_del(c->txn, c->dl, &k, NULL), 0);
	assert_int_equal(mdb_del(c->txn, c->dr, &k, NULL), 0);
}

/* One transaction of round r: adds, deletes or rewrites by turns. */
static void
churn_round(struct churn *c, unsigned r)
{
	unsigned n, i, j;

	if (r % 3 == 0 || c->nlive < 500) {
		for (n = churn_rand(c) % 1500, i = 0; i < n && c->nlive < 8000;
		     i++, c->next++) {
			churn_put(c, c->dl, c->next, 60);
			churn_put(c, c->dr, c->next, 90);
			c->live[c->nlive++] = c->next;
		}
	} else if (r % 3 == 1) {
		for (n = churn_rand(c) % c->nlive, i = 0; i < n; i++) {
			j = churn_rand(c) % c->nlive;
			churn_del(c, c->live[j]);
			c->live[j] = c->live[--c->nlive];
		}
	} else {
		for (i = 0; i < c->nlive / 3; i++) {
			j = churn_rand(c) % c->nlive;
			churn_put(
			    c, c->dl, c->live[j], 60 + churn_rand(c) % 100);
		}
	}
}

/*
 * LMDB leaves unwritten a page a transaction took past the file's end and
 * freed again before its commit ("loose"): its last page then lies past
 * the file's end, a sound file the check must take.  Made here as runs of
 * a pull make it, until LMDB's last page is past the end (the 7th commit).
 */
static void
test_store_loose_end(void **state)
{
	static struct churn c = {.seed = 1};
	char dir[256], path[512], why[256];
	uint64_t last = 0, held = 0;
	MDB_env *env;
	unsigned r;
	int fd;

	(void)state;
	make_tmp(dir, sizeof(dir), "loose");
	for (r = 0; r < 200 && (r == 0 || last < held); r++) {
		assert_int_equal(mdb_env_create(&env), 0);
		assert_int_equal(mdb_env_set_maxdbs(env, 4), 0);
		assert_int_equal(mdb_env_set_mapsize(env, (size_t)1 << 30), 0);
		assert_int_equal(mdb_env_open(env, dir, MDB_NOSYNC, 0600), 0);
		assert_int_equal(mdb_txn_begin(env, NULL, 0, &c.txn), 0);
		assert_int_equal(
		    mdb_dbi_open(c.txn, "l", MDB_CREATE, &c.dl), 0);
		assert_int_equal(
		    mdb_dbi_open(c.txn, "r", MDB_CREATE, &c.dr), 0);
		churn_round(&c, r);
		assert_int_equal(mdb_txn_commit(c.txn), 0);
		pages_of(env, dir, &last, &held);
		mdb_env_close(env);
	}
	/* else the case is not made, and the check not shown to take it */
	assert_true(last >= held);
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	if (manifest_file_check(fd, why, sizeof(why)) != FERRY_OK)
		fail_msg("last page %llu, %llu in the file: %s",
		    (unsigned long long)last, (unsigned long long)held, why);
	close(fd);
	rm_tree(dir);
}

static void
test_store_damaged_file(void **state)
{
	struct manifest_local r = {.size = 1};
	struct manifest *m;
	char dir[256], path[512], key[64];
	uint8_t bad8[8] = {9, 9, 9, 9, 9, 9, 9, 9};
	uint8_t even8[8] = {8, 9, 9, 9, 9, 9, 9, 9};
	uint16_t flags = 0x10; /* P_DIRTY: LMDB would write into its map */
	struct stat st;
	int i;

	(void)state;
	make_tmp(dir, sizeof(dir), "damaged");
	assert_int_equal(manifest_open(dir, "s", "d", 0, &m), FERRY_OK);
	for (i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "folder/file-%05d", i);
		assert_int_equal(
		    manifest_local_put(m, key, strlen(key), &r), FERRY_OK);
	}
	manifest_close(m);
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
	expect_damaged(dir, "past its end");
	assert_int_equal(truncate(path, 100), 0);
	expect_damaged(dir, "cut short");
	assert_int_equal(
	    manifest_open(dir, "s", "d", MANIFEST_REBUILD, &m), FERRY_OK);
	for (i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "folder/file-%05d", i);
		assert_int_equal(
		    manifest_local_put(m, key, strlen(key), &r), FERRY_OK);
	}
	manifest_close(m);
	/* the main table's root: its number, then its flags */
	patch_at(dir, main_root(dir), bad8, sizeof(bad8));
	expect_damaged(dir, "is not the leaf page expected");
	assert_int_equal(
	    manifest_open(dir, "s", "d", MANIFEST_REBUILD, &m), FERRY_OK);
	assert_int_equal(manifest_local_put(m, "x", 1, &r), FERRY_OK);
	manifest_close(m);
	patch_at(dir, main_root(dir) + 10, &flags, sizeof(flags));
	expect_damaged(dir, "is not the leaf page expected");
	assert_int_equal(
	    manifest_open(dir, "s", "d", MANIFEST_REBUILD, &m), FERRY_OK);
	manifest_close(m);
	/* its first node's offset, out of the page */
	patch_at(dir, main_root(dir) + 16, bad8, 2);
	expect_damaged(dir, "out of the page");
	assert_int_equal(
	    manifest_open(dir, "s", "d", MANIFEST_REBUILD, &m), FERRY_OK);
	manifest_close(m);
	/* meta page 1 made the newest with an even transaction: LMDB would
	 * then use page 0's older snapshot, which is not checked */
	patch_at(dir, 4096 + 16 + 24 + 96 + 8, even8, sizeof(even8));
	expect_damaged(dir, "the meta pages hold transactions");
	rm_tree(dir);
}

/* ---- scanner ---- */

struct reports {
	int n;
	char last[2048];
	char msg[2048]; /* of the last */
	ferry_err e;    /* of the last */
};

static void
on_report(const char *relpath, ferry_err e, const char *msg, void *arg)
{
	struct reports *r = arg;

	r->n++;
	r->e = e;
	snprintf(r->last, sizeof(r->last), "%s", relpath);
	snprintf(r->msg, sizeof(r->msg), "%s", msg);
}

/* Excludes the folder named by arg, wherever it is. */
static int
exclude_dir(const char *relpath, int is_dir, void *arg)
{
	const char *name = strrchr(relpath, '/'), *p;
	size_t n = strlen(arg);

	/* Nothing under an excluded folder is even looked at. */
	for (p = relpath; (p = strstr(p, arg)) != NULL; p += n)
		if ((p == relpath || p[-1] == '/') && p[n] == '/')
			fail_msg("filter asked about %s", relpath);
	name = name ? name + 1 : relpath;
	return !(is_dir && strcmp(name, arg) == 0);
}

/* The regular files of the test tree, with their contents. */
static const char *const tree_files[][2] = {
    {"a", "alpha"},
    {"a b", "with a space"},
    {"a.b", "dot"},
    {"a0", "zero"},
    {"d/b", "in d"},
    {"d/sub/deep.txt", "deep"},
    {"d.b", "dot b"},
    {"sp ace/f", "f in a spaced folder"},
    {"\xc3\xa9t\xc3\xa9", "summer"},
    {"nl\nname", "newline"},
    {"bad\xff\xfeutf8", "not utf-8"},
    {"empty", ""},
    {"x/y/z/w", "four deep"},
};
#define TREE_FILES (sizeof(tree_files) / sizeof(tree_files[0]))

static void
tree_make(const char *root)
{
	static const char *const dirs[] = {
	    "d", "d/sub", "sp ace", "x", "x/y", "x/y/z", "emptydir"};
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mkdir_at(root, dirs[i]);
	for (i = 0; i < TREE_FILES; i++)
		write_at(root, tree_files[i][0], tree_files[i][1],
		    strlen(tree_files[i][1]));
	snprintf(path, sizeof(path), "%s/link", root);
	assert_int_equal(symlink("a0", path), 0);
	snprintf(path, sizeof(path), "%s/dlink", root);
	assert_int_equal(symlink("d", path), 0);
	snprintf(path, sizeof(path), "%s/fifo", root);
	assert_int_equal(mkfifo(path, 0644), 0);
}

/* Checks that the table holds exactly the given files, in order. */
static void
check_table(
    struct manifest *m, const char *root, const char *const *keys, size_t n)
{
	const char *sorted[64], *key;
	struct manifest_iter *it;
	struct manifest_local r;
	uint8_t want[16];
	char path[2048], data[256];
	size_t i, keylen;
	ssize_t len;
	int fd;

	memcpy(sorted, keys, n * sizeof(*keys));
	qsort(sorted, n, sizeof(*sorted), cmp_bytes);
	assert_int_equal(manifest_iter_new(m, MANIFEST_LOCAL, &it), FERRY_OK);
	for (i = 0; i < n; i++) {
		assert_int_equal(
		    manifest_iter_local(it, &key, &keylen, &r), FERRY_OK);
		assert_string_equal(key, sorted[i]);
		snprintf(path, sizeof(path), "%s/%s", root, key);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		len = read(fd, data, sizeof(data));
		close(fd);
		assert_true(len >= 0 && r.size == (uint64_t)len);
		xxh128_of(data, (size_t)len, want);
		assert_memory_equal(r.hash, want, 16);
	}
	assert_int_equal(
	    manifest_iter_local(it, &key, &keylen, &r), FERRY_ENOTFOUND);
	manifest_iter_free(it);
}

static size_t
last_txnid(struct manifest *m)
{
	MDB_envinfo info;

	assert_int_equal(mdb_env_info(m->env, &info), 0);
	return info.me_last_txnid;
}

struct scan_fixture {
	char root[256], mdir[256];
	const char *keys[64];
	size_t nkeys;
	int rootfd;
	struct manifest *m;
	struct reports rep;
	struct manifest_scan_opts opts;
	struct manifest_scan_stats st;
};

static void
fixture_open(struct scan_fixture *f)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	make_tmp(f->root, sizeof(f->root), "tree");
	make_tmp(f->mdir, sizeof(f->mdir), "mf");
	tree_make(f->root);
	for (i = 0; i < TREE_FILES; i++)
		f->keys[f->nkeys++] = tree_files[i][0];
	f->rootfd = open(f->root, O_RDONLY | O_DIRECTORY);
	assert_true(f->rootfd >= 0);
	assert_int_equal(
	    manifest_open(f->mdir, f->root, "s3://b/p", 0, &f->m), FERRY_OK);
	f->opts.report = on_report;
	f->opts.report_arg = &f->rep;
}

static void
fixture_close(struct scan_fixture *f)
{
	manifest_close(f->m);
	close(f->rootfd);
	rm_tree(f->root);
	rm_tree(f->mdir);
}

static void
scan_ok(struct scan_fixture *f)
{
	assert_int_equal(
	    manifest_scan(f->m, f->rootfd, &f->opts, &f->st), FERRY_OK);
}

static void
forget_key(struct scan_fixture *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nkeys; i++)
		if (strcmp(f->keys[i], key) == 0)
			f->keys[i] = f->keys[--f->nkeys];
}

/* The first scan reads everything; the next, nothing. */
static void
test_scan_first(void **state)
{
	struct scan_fixture f;
	size_t txn;

	(void)state;
	fixture_open(&f);
	scan_ok(&f);
	assert_true(f.st.hashed == TREE_FILES && f.st.files == TREE_FILES);
	assert_true(f.st.skipped == 3 && f.st.errors == 0);
	assert_true(f.st.bytes == f.st.hashed_bytes);
	check_table(f.m, f.root, f.keys, f.nkeys);

	/* Unchanged: nothing read, nothing written. */
	txn = last_txnid(f.m);
	scan_ok(&f);
	assert_true(f.st.hashed == 0 && f.st.files == TREE_FILES);
	assert_true(last_txnid(f.m) == txn);
	fixture_close(&f);
}

/* Touched, or rewritten keeping size and mtime. */
static void
test_scan_touch_modify(void **state)
{
	struct timespec times[2] = {{1000000000, 5}, {1000000000, 5}};
	struct manifest_local before, after;
	struct scan_fixture f;
	char path[512];

	(void)state;
	fixture_open(&f);
	scan_ok(&f);
	/* Touched: read again, same hash, new mtime. */
	assert_int_equal(manifest_local_get(f.m, "d/b", 3, &before), FERRY_OK);
	snprintf(path, sizeof(path), "%s/d/b", f.root);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	scan_ok(&f);
	assert_true(f.st.hashed == 1);
	assert_int_equal(manifest_local_get(f.m, "d/b", 3, &after), FERRY_OK);
	assert_memory_equal(before.hash, after.hash, 16);
	assert_true(after.mtime_ns == 1000000000LL * 1000000000LL + 5);

	/* Rewritten with the same size and mtime: a new hash. */
	assert_int_equal(manifest_local_get(f.m, "a0", 2, &before), FERRY_OK);
	write_at(f.root, "a0", "ZERO", 4);
	times[0].tv_sec = times[1].tv_sec = before.mtime_ns / 1000000000;
	times[0].tv_nsec = times[1].tv_nsec = before.mtime_ns % 1000000000;
	snprintf(path, sizeof(path), "%s/a0", f.root);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	scan_ok(&f);
	assert_true(f.st.hashed == 1);
	assert_int_equal(manifest_local_get(f.m, "a0", 2, &after), FERRY_OK);
	assert_true(after.mtime_ns == before.mtime_ns);
	assert_memory_not_equal(before.hash, after.hash, 16);
	check_table(f.m, f.root, f.keys, f.nkeys);
	fixture_close(&f);
}

/* Deleted files and folders, --checksum, a folder turned into a file. */
static void
test_scan_delete(void **state)
{
	struct manifest_local after;
	struct scan_fixture f;
	char path[512];
	size_t txn;

	(void)state;
	fixture_open(&f);
	scan_ok(&f);
	/* Deleted, file and whole folder. */
	write_at(f.root, "new file", "n", 1);
	f.keys[f.nkeys++] = "new file";
	snprintf(path, sizeof(path), "%s/a.b", f.root);
	assert_int_equal(unlink(path), 0);
	forget_key(&f, "a.b");
	snprintf(path, sizeof(path), "%s/x", f.root);
	rm_tree(path);
	forget_key(&f, "x/y/z/w");
	scan_ok(&f);
	assert_true(f.st.hashed == 1 && f.st.files == f.nkeys);
	assert_int_equal(
	    manifest_local_get(f.m, "a.b", 3, &after), FERRY_ENOTFOUND);
	check_table(f.m, f.root, f.keys, f.nkeys);

	/* --checksum reads everything, and writes nothing that is right. */
	f.opts.checksum = 1;
	txn = last_txnid(f.m);
	scan_ok(&f);
	assert_true(f.st.hashed == f.nkeys && f.st.errors == 0);
	assert_true(last_txnid(f.m) == txn);
	check_table(f.m, f.root, f.keys, f.nkeys);

	/* A folder replaced by a file of the same name. */
	f.opts.checksum = 0;
	snprintf(path, sizeof(path), "%s/sp ace", f.root);
	rm_tree(path);
	write_at(f.root, "sp ace", "now a file", 10);
	forget_key(&f, "sp ace/f");
	f.keys[f.nkeys++] = "sp ace";
	scan_ok(&f);
	check_table(f.m, f.root, f.keys, f.nkeys);
	assert_int_equal(f.rep.n, 0);
	fixture_close(&f);
}

static void
test_scan_filter(void **state)
{
	struct scan_fixture f;
	const char *kept[64];
	size_t i, n = 0;

	(void)state;
	fixture_open(&f);
	scan_ok(&f);
	f.opts.filter = exclude_dir;
	f.opts.filter_arg = "sub";
	scan_ok(&f);
	assert_true(f.st.hashed == 0 && f.st.files == TREE_FILES - 1);
	for (i = 0; i < f.nkeys; i++)
		if (strcmp(f.keys[i], "d/sub/deep.txt") != 0)
			kept[n++] = f.keys[i];
	check_table(f.m, f.root, kept, n);
	/* Excluded from the first scan: never read. */
	f.opts.filter_arg = "d";
	scan_ok(&f);
	assert_true(f.st.hashed == 0 && f.st.files == TREE_FILES - 2);
	f.opts.filter = NULL;
	scan_ok(&f);
	assert_true(f.st.hashed == 2);
	check_table(f.m, f.root, f.keys, f.nkeys);
	fixture_close(&f);
}

/* Makes depth nested one-letter folders and returns the path below. */
static void
make_chain(const char *root, int depth, char *rel, size_t cap)
{
	size_t n = 0;
	int i;

	for (i = 0; i < depth; i++) {
		n += (size_t)snprintf(rel + n, cap - n, "%sq", i ? "/" : "");
		mkdir_at(root, rel);
	}
}

/* Files at the end of a chain of folders of 250-byte names. */
static const char *const long_names[] = {
    "c", "a b", "a.b", "a/x", "a0", "b", "ffffffffffffffffffa"};

/* Folders too deep, paths too long, long keys in one group. */
static void
test_scan_limits(void **state)
{
	struct manifest_local r;
	struct scan_fixture f;
	char rel[1600], name[300], deep[1700];
	size_t i, n = 0;

	(void)state;
	fixture_open(&f);
	/* The record of a file below the depth limit is kept. */
	make_chain(f.root, 257, rel, sizeof(rel));
	snprintf(deep, sizeof(deep), "%s/file", rel);
	write_at(f.root, deep, "deep", 4);
	memset(&r, 0, sizeof(r));
	assert_int_equal(
	    manifest_local_put(f.m, deep, strlen(deep), &r), FERRY_OK);
	scan_ok(&f);
	assert_int_equal(f.st.errors, 1);
	assert_int_equal(f.rep.n, 1);
	assert_int_equal(strlen(f.rep.last), 2 * 257 - 1);
	assert_int_equal(
	    manifest_local_get(f.m, deep, strlen(deep), &r), FERRY_OK);
	snprintf(name, sizeof(name), "%s/q", f.root);
	rm_tree(name);

	/* 1003 bytes of folders: names of up to 20 bytes fit under it. */
	memset(name, 'n', 250);
	name[250] = '\0';
	for (i = 0; i < 4; i++) {
		n += (size_t)snprintf(
		    rel + n, sizeof(rel) - n, "%s%s", i ? "/" : "", name);
		mkdir_at(f.root, rel);
	}
	snprintf(deep, sizeof(deep), "%s/a", rel);
	mkdir_at(f.root, deep);
	for (i = 0; i < sizeof(long_names) / sizeof(long_names[0]); i++) {
		snprintf(deep, sizeof(deep), "%s/%s", rel, long_names[i]);
		write_at(f.root, deep, long_names[i], strlen(long_names[i]));
		f.keys[f.nkeys++] = strdup(deep);
	}
	for (i = 1; i < 6; i++) {
		snprintf(deep, sizeof(deep), "%s/%.*s", rel, (int)(20 + i),
		    "gggggggggggggggggggggggggggggg");
		write_at(f.root, deep, "too long", 8);
	}
	f.rep.n = 0;
	scan_ok(&f);
	assert_int_equal(f.st.errors, 5);
	assert_int_equal(f.rep.n, 5);
	assert_true(f.st.files == f.nkeys);
	check_table(f.m, f.root, f.keys, f.nkeys);
	for (i = TREE_FILES; i < f.nkeys; i++)
		free((void *)f.keys[i]);
	fixture_close(&f);
}

/* Unreadable files and folders keep their records; not for root. */
static void
test_scan_unreadable(void **state)
{
	struct manifest_local r;
	struct scan_fixture f;
	char path[512], dpath[512];

	(void)state;
	if (geteuid() == 0)
		skip();
	fixture_open(&f);
	scan_ok(&f);
	snprintf(path, sizeof(path), "%s/a", f.root);
	assert_int_equal(chmod(path, 0), 0);
	snprintf(path, sizeof(path), "%s/x/y", f.root);
	assert_int_equal(chmod(path, 0), 0);
	/* Listed but not searchable: no entry can be stat'ed. */
	snprintf(dpath, sizeof(dpath), "%s/d", f.root);
	assert_int_equal(chmod(dpath, 0444), 0);
	scan_ok(&f);
	assert_int_equal(f.st.errors, 4);
	assert_int_equal(f.rep.n, 4);
	assert_true(f.st.files == TREE_FILES);
	assert_int_equal(manifest_local_get(f.m, "a", 1, &r), FERRY_OK);
	assert_int_equal(manifest_local_get(f.m, "x/y/z/w", 7, &r), FERRY_OK);
	assert_int_equal(manifest_local_get(f.m, "d/b", 3, &r), FERRY_OK);
	assert_int_equal(
	    manifest_local_get(f.m, "d/sub/deep.txt", 14, &r), FERRY_OK);
	chmod(path, 0755);
	chmod(dpath, 0755);
	fixture_close(&f);
}

/* ---- the scanner's workers: many files to read in one folder ---- */

#define MANY 240
#define MANY_BIG (300 * 1024) /* past the hash's chunk */

static uint8_t many_buf[MANY_BIG];

/* Writes file i of the folder many/, its bytes depending on gen. */
static void
many_write(const char *root, unsigned i, unsigned gen)
{
	size_t k, n = i % 60 == 7 ? MANY_BIG : (size_t)(i * 37 % 3000);
	char rel[64];

	for (k = 0; k < n; k++)
		many_buf[k] = (uint8_t)(i * 31 + k * 7 + gen);
	snprintf(rel, sizeof(rel), "many/f%03u", i);
	write_at(root, rel, (const char *)many_buf, n);
}

/* A folder of MANY files, with a folder among them and files above. */
static void
many_make(const char *root)
{
	unsigned i;

	mkdir_at(root, "many");
	mkdir_at(root, "many/f100sub");
	write_at(root, "many/f100sub/inner", "inner", 5);
	for (i = 0; i < MANY; i++)
		many_write(root, i, 0);
}

/*
 * Checks the record of root/key against the file: its stat, and the hash
 * of its bytes; adds its size to *bytes.
 */
static void
record_check(
    struct manifest *m, const char *root, const char *key, uint64_t *bytes)
{
	struct manifest_local r;
	struct stat st;
	char path[2048];
	uint8_t want[16];
	ssize_t n;
	int fd;

	assert_int_equal(manifest_local_get(m, key, strlen(key), &r), FERRY_OK);
	snprintf(path, sizeof(path), "%s/%s", root, key);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	n = read(fd, many_buf, sizeof(many_buf));
	close(fd);
	assert_true(n >= 0 && r.size == (uint64_t)n);
	assert_true(r.size == (uint64_t)st.st_size);
	assert_true(r.mtime_ns ==
	            st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
	assert_true(r.ctime_ns ==
	            st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);
	assert_true(r.ino == (uint64_t)st.st_ino);
	assert_true(r.mode == (uint32_t)st.st_mode);
	xxh128_of(many_buf, (size_t)n, want);
	assert_memory_equal(r.hash, want, 16);
	*bytes += r.size;
}

/* Checks every record under many/ and returns their bytes. */
static uint64_t
many_check(struct manifest *m, const char *root)
{
	uint64_t bytes = 0;
	char key[64];
	unsigned i;

	for (i = 0; i < MANY; i++) {
		snprintf(key, sizeof(key), "many/f%03u", i);
		record_check(m, root, key, &bytes);
	}
	record_check(m, root, "many/f100sub/inner", &bytes);
	return bytes;
}

/* Sets the mtime of many/f%03u to ns past a fixed second. */
static void
many_touch(const char *root, unsigned i, long ns)
{
	struct timespec times[2] = {{1500000000, ns}, {1500000000, ns}};
	char path[512];

	snprintf(path, sizeof(path), "%s/many/f%03u", root, i);
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/*
 * The files of a folder read on workers get the records one read at a
 * time gets: new, touched, rewritten, with --checksum, deleted.
 */
static void
test_scan_many(void **state)
{
	struct scan_fixture f;
	uint64_t bytes;
	char path[512];
	unsigned i, n;
	size_t txn;

	(void)state;
	fixture_open(&f);
	many_make(f.root);
	scan_ok(&f);
	assert_true(f.st.hashed == TREE_FILES + MANY + 1);
	assert_true(f.st.files == f.st.hashed && f.st.errors == 0);
	assert_true(f.st.bytes == f.st.hashed_bytes);
	bytes = many_check(f.m, f.root);
	for (i = 0; i < f.nkeys; i++)
		record_check(f.m, f.root, f.keys[i], &bytes);
	assert_true(bytes == f.st.bytes);

	/* Unchanged: nothing read, nothing written. */
	txn = last_txnid(f.m);
	scan_ok(&f);
	assert_true(f.st.hashed == 0 && f.st.hashed_bytes == 0);
	assert_true(last_txnid(f.m) == txn);

	/* Every third touched, every fifth rewritten. */
	for (i = n = 0; i < MANY; i++) {
		if (i % 5 == 0)
			many_write(f.root, i, 1);
		if (i % 3 == 0)
			many_touch(f.root, i, (long)i);
		n += i % 5 == 0 || i % 3 == 0;
	}
	scan_ok(&f);
	assert_true(f.st.hashed == n && f.st.errors == 0);
	assert_true(f.st.files == TREE_FILES + MANY + 1);
	bytes = many_check(f.m, f.root);

	/* --checksum reads everything, and writes nothing that is right. */
	f.opts.checksum = 1;
	txn = last_txnid(f.m);
	scan_ok(&f);
	assert_true(f.st.hashed == TREE_FILES + MANY + 1);
	assert_true(f.st.hashed_bytes == f.st.bytes);
	assert_true(last_txnid(f.m) == txn);
	assert_true(many_check(f.m, f.root) == bytes);
	f.opts.checksum = 0;

	/* Deleted while others are read. */
	for (i = 0; i < MANY; i += 2) {
		snprintf(path, sizeof(path), "%s/many/f%03u", f.root, i);
		assert_int_equal(unlink(path), 0);
		if (i % 4 == 2)
			many_touch(f.root, i + 1, 1);
	}
	scan_ok(&f);
	assert_true(f.st.hashed == MANY / 4 && f.st.errors == 0);
	assert_true(f.st.files == TREE_FILES + MANY / 2 + 1);
	assert_int_equal(manifest_local_get(
	                     f.m, "many/f000", 9, &(struct manifest_local){0}),
	    FERRY_ENOTFOUND);
	fixture_close(&f);
}

/*
 * A file that keeps changing while the workers read it is reported as
 * before, and keeps its record; the others are read.  With -L, a link to
 * /proc/self/stat stands for it: a size of 0 by its stat, and bytes to
 * read each time, so that every read finds it changed.  (A thread
 * rewriting a real file races the reads: on a loaded machine it may not
 * run while the file is read, three times over.)
 */
static void
test_scan_many_changing(void **state)
{
	struct manifest_local before, after;
	struct scan_fixture f;
	char path[512];
	uint64_t files;

	(void)state;
	fixture_open(&f);
	many_make(f.root);
	f.opts.follow = 1;
	scan_ok(&f);
	files = f.st.files;
	assert_int_equal(
	    manifest_local_get(f.m, "many/f005", 9, &before), FERRY_OK);
	snprintf(path, sizeof(path), "%s/many/f005", f.root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/proc/self/stat", path), 0);
	f.opts.checksum = 1;
	scan_ok(&f);
	assert_int_equal(f.st.errors, 1);
	assert_int_equal(f.rep.n, 1);
	assert_int_equal(f.rep.e, FERRY_ECHANGED);
	assert_string_equal(f.rep.last, "many/f005");
	assert_string_equal(f.rep.msg, "many/f005 keeps changing while read");
	assert_true(f.st.hashed == files - 1);
	assert_true(f.st.files == files);
	assert_int_equal(
	    manifest_local_get(f.m, "many/f005", 9, &after), FERRY_OK);
	assert_memory_equal(&before, &after, sizeof(before));
	fixture_close(&f);
}

/*
 * Files that cannot be read among many are reported as before: one
 * whose read fails (with -L, a link to /proc/self/mem, which says EIO at
 * its start, even to root), and, when not root, one that cannot be
 * opened, whose record is kept.
 */
static void
test_scan_many_unreadable(void **state)
{
	struct manifest_local r;
	struct scan_fixture f;
	char path[512];
	int root = geteuid() == 0;
	uint64_t files;

	(void)state;
	fixture_open(&f);
	many_make(f.root);
	f.opts.follow = 1;
	scan_ok(&f);
	files = f.st.files;
	snprintf(path, sizeof(path), "%s/many/f050", f.root);
	if (!root)
		assert_int_equal(chmod(path, 0), 0);
	snprintf(path, sizeof(path), "%s/many/mem", f.root);
	assert_int_equal(symlink("/proc/self/mem", path), 0);
	f.opts.checksum = 1;
	scan_ok(&f);
	assert_int_equal(f.st.errors, root ? 1 : 2);
	assert_int_equal(f.rep.n, root ? 1 : 2);
	assert_int_equal(f.rep.e, FERRY_ESYS);
	assert_string_equal(f.rep.last, "many/mem");
	assert_string_equal(
	    f.rep.msg, "cannot read many/mem: read: Input/output error");
	assert_true(f.st.hashed == files - (root ? 0 : 1));
	assert_true(f.st.files == files);
	assert_int_equal(
	    manifest_local_get(f.m, "many/mem", 8, &r), FERRY_ENOTFOUND);
	assert_int_equal(manifest_local_get(f.m, "many/f050", 9, &r), FERRY_OK);
	fixture_close(&f);
}

/* A damaged record stops the scan while workers read: they are waited. */
static void
test_scan_many_stopped(void **state)
{
	MDB_val k = {9, "many/f120"}, v = {3, "bad"};
	struct scan_fixture f;
	MDB_txn *txn;

	(void)state;
	fixture_open(&f);
	many_make(f.root);
	scan_ok(&f);
	assert_int_equal(manifest_txn_write(f.m, &txn), FERRY_OK);
	assert_int_equal(mdb_put(txn, f.m->dbi[DB_LOCAL], &k, &v, 0), 0);
	assert_int_equal(manifest_commit(f.m), FERRY_OK);
	f.opts.checksum = 1;
	assert_int_equal(
	    manifest_scan(f.m, f.rootfd, &f.opts, &f.st), FERRY_EDB);
	fixture_close(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_local_roundtrip),
	    cmocka_unit_test(test_local_layout),
	    cmocka_unit_test(test_remote_roundtrip),
	    cmocka_unit_test(test_remote_malformed),
	    cmocka_unit_test(test_remote_versions),
	    cmocka_unit_test(test_upload_roundtrip),
	    cmocka_unit_test(test_upload_layout),
	    cmocka_unit_test(test_hash_fd),
	    cmocka_unit_test(test_fdhash_stretches),
	    cmocka_unit_test(test_default_dir),
	    cmocka_unit_test(test_store_basic),
	    cmocka_unit_test(test_store_batches),
	    cmocka_unit_test(test_store_refusals),
	    cmocka_unit_test(test_store_bad_record),
	    cmocka_unit_test(test_store_loose_end),
	    cmocka_unit_test(test_store_damaged_file),
	    cmocka_unit_test(test_scan_first),
	    cmocka_unit_test(test_scan_touch_modify),
	    cmocka_unit_test(test_scan_delete),
	    cmocka_unit_test(test_scan_filter),
	    cmocka_unit_test(test_scan_limits),
	    cmocka_unit_test(test_scan_unreadable),
	    cmocka_unit_test(test_scan_many),
	    cmocka_unit_test(test_scan_many_changing),
	    cmocka_unit_test(test_scan_many_unreadable),
	    cmocka_unit_test(test_scan_many_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
