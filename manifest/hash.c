/* hash.c: content hashing of a file descriptor (XXH3-128, optional MD5). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include "common/sparse.h"
#include "manifest/manifest.h"

#define HASH_CHUNK (256 * 1024)

/* The state of one hashing pass; everything is freed by hash_done().  The
 * chunk the bytes are read into is its user's to allocate. */
struct hasher {
	XXH3_state_t *xxh;
	EVP_MD_CTX *md5;
	uint8_t *chunk;
};

static void
hash_done(struct hasher *h)
{
	XXH3_freeState(h->xxh);
	EVP_MD_CTX_free(h->md5);
	free(h->chunk);
}

static ferry_err
hash_init(struct hasher *h, int want_md5)
{
	memset(h, 0, sizeof(*h));
	if ((h->xxh = XXH3_createState()) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (XXH3_128bits_reset(h->xxh) != XXH_OK)
		return ferry_fail(FERRY_ENOMEM, "cannot start XXH3");
	if (!want_md5)
		return FERRY_OK;
	h->md5 = EVP_MD_CTX_new();
	if (h->md5 == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (EVP_DigestInit_ex(h->md5, EVP_md5(), NULL) != 1)
		return ferry_fail(FERRY_ESYS, "MD5 is not available");
	return FERRY_OK;
}

/* Feeds n bytes of the chunk to both digests. */
static ferry_err
hash_update(struct hasher *h, size_t n)
{
	if (XXH3_128bits_update(h->xxh, h->chunk, n) != XXH_OK)
		return ferry_fail(FERRY_ESYS, "XXH3 update failed");
	if (h->md5 != NULL && EVP_DigestUpdate(h->md5, h->chunk, n) != 1)
		return ferry_fail(FERRY_ESYS, "MD5 update failed");
	return FERRY_OK;
}

static ferry_err
hash_final(struct hasher *h, uint8_t xxh[16], uint8_t md5[16])
{
	XXH128_canonical_t c;
	unsigned int n = 0;

	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h->xxh));
	memcpy(xxh, c.digest, 16);
	if (md5 == NULL)
		return FERRY_OK;
	if (EVP_DigestFinal_ex(h->md5, md5, &n) != 1 || n != 16)
		return ferry_fail(FERRY_ESYS, "MD5 final failed");
	return FERRY_OK;
}

/*
 * Returns FERRY_OK with the XXH3-128 (canonical big-endian bytes) of what
 * is left to read from fd in xxh, its MD5 in md5 when md5 is not NULL,
 * and the byte count in *nread.  The file's holes are hashed as the zeros
 * they read as, made in memory, not read (sparse.h).  FERRY_ESYS on a
 * read error, with errno's text in the detail.  On failure the digests
 * and *nread are zero.  fd, a regular file, stays open and ends at EOF.
 * Thread-safe.
 */
ferry_err
manifest_hash_fd(int fd, uint8_t xxh[16], uint8_t md5[16], uint64_t *nread)
{
	struct sparse_reader r;
	struct hasher h;
	off_t start;
	uint64_t total = 0;
	size_t n;
	ferry_err e;

	memset(xxh, 0, 16);
	if (md5 != NULL)
		memset(md5, 0, 16);
	*nread = 0;
	if ((e = hash_init(&h, md5 != NULL)) != FERRY_OK)
		goto out;
	if ((h.chunk = malloc(HASH_CHUNK)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((start = lseek(fd, 0, SEEK_CUR)) < 0) {
		e = ferry_fail(FERRY_ESYS, "seek: %s", strerror(errno));
		goto out;
	}
	/* A hint only: some filesystems refuse it. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	sparse_reader_init(&r, fd);
	do {
		e = sparse_pread(
		    &r, h.chunk, HASH_CHUNK, (uint64_t)start + total, &n);
		if (e == FERRY_OK && n > 0)
			e = hash_update(&h, n);
		total += n;
	} while (e == FERRY_OK && n == HASH_CHUNK);
	/* where a read() to the end would have left it */
	if (e == FERRY_OK && lseek(fd, start + (off_t)total, SEEK_SET) < 0)
		e = ferry_fail(FERRY_ESYS, "seek: %s", strerror(errno));
	if (e == FERRY_OK && (e = hash_final(&h, xxh, md5)) == FERRY_OK)
		*nread = total;
out:
	if (e != FERRY_OK) {
		memset(xxh, 0, 16);
		if (md5 != NULL)
			memset(md5, 0, 16);
	}
	hash_done(&h);
	return e;
}

/* Between stretches it holds the digests' states alone: its chunk is
 * taken for a stretch and given back after, so that a pull with many
 * files under way holds no 256 KiB for each of them. */
struct manifest_fdhash {
	struct hasher h;
	int fd;
	uint64_t at; /* bytes hashed so far: where the next stretch starts */
};

ferry_err
manifest_fdhash_new(int fd, int want_md5, struct manifest_fdhash **out)
{
	struct manifest_fdhash *f = calloc(1, sizeof(*f));
	ferry_err e;

	*out = NULL;
	if (f == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = hash_init(&f->h, want_md5)) != FERRY_OK) {
		hash_done(&f->h);
		free(f);
		return e;
	}
	f->fd = fd;
	*out = f;
	return FERRY_OK;
}

ferry_err
manifest_fdhash_next(struct manifest_fdhash *f, uint64_t len)
{
	struct sparse_reader r;
	ferry_err e;

	if ((f->h.chunk = malloc(HASH_CHUNK)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	/* a reader of its own each time: a hole it saw may be written now */
	sparse_reader_init(&r, f->fd);
	for (e = FERRY_OK; e == FERRY_OK && len > 0;) {
		size_t want = len < HASH_CHUNK ? (size_t)len : HASH_CHUNK, n;

		if ((e = sparse_pread(&r, f->h.chunk, want, f->at, &n)) !=
		    FERRY_OK)
			break;
		/* past the end: zeros the size, once set, gives */
		memset(f->h.chunk + n, 0, want - n);
		e = hash_update(&f->h, want);
		f->at += want;
		len -= want;
	}
	free(f->h.chunk);
	f->h.chunk = NULL;
	return e;
}

ferry_err
manifest_fdhash_final(
    struct manifest_fdhash *f, uint8_t xxh[16], uint8_t md5[16], uint64_t *n)
{
	*n = f->at;
	/* an MD5 not asked for at the start is left as it is */
	return hash_final(&f->h, xxh, f->h.md5 != NULL ? md5 : NULL);
}

void
manifest_fdhash_free(struct manifest_fdhash *f)
{
	if (f == NULL)
		return;
	hash_done(&f->h);
	free(f);
}
