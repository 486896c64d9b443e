/*
 * sparse.c: reading a file with its holes as zeros from memory, and
 * finding the blocks of zeros a written file can leave as holes.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sparse.h"

void
sparse_reader_init(struct sparse_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
}

/* Whether err says the file cannot tell data from holes. */
static int
unsupported(int err)
{
	return err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP;
}

/*
 * Asks the kernel what is at off: sets r's stretch to the data or the
 * hole that holds off, to an empty one at off when off is at or past the
 * end, or makes r flat where the file cannot tell.  -1 with errno.
 */
static int
find(struct sparse_reader *r, uint64_t off)
{
	struct stat st;
	off_t d, h;

	r->lo = r->hi = off;
	r->hole = 0;
	if ((d = lseek(r->fd, (off_t)off, SEEK_DATA)) < 0) {
		if (unsupported(errno)) {
			r->flat = 1;
			return 0;
		}
		/* no data at or after off: a hole up to the end, or the end */
		if (errno != ENXIO || fstat(r->fd, &st) != 0)
			return -1;
		r->hole = 1;
		if ((uint64_t)st.st_size > off)
			r->hi = (uint64_t)st.st_size;
		return 0;
	}
	if ((uint64_t)d > off) {
		r->hole = 1;
		r->hi = (uint64_t)d;
		return 0;
	}
	if ((h = lseek(r->fd, (off_t)off, SEEK_HOLE)) < 0) {
		/* cut short between the two seeks: off is now the end */
		if (errno == ENXIO)
			return 0;
		r->flat = unsupported(errno);
		return r->flat ? 0 : -1;
	}
	r->hi = (uint64_t)h > off ? (uint64_t)h : off;
	/* data that ends where it starts: a file cut under us; read it */
	if (r->hi == off)
		r->hi = off + 1;
	return 0;
}

/* Reads up to len bytes at off from the file: pread() without EINTR. */
static ssize_t
read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n;
}

/*
 * Reads one piece, within one stretch, of up to len bytes at off: how
 * many (0 at the end of the file), or -1 with errno.
 */
static ssize_t
piece(struct sparse_reader *r, void *buf, size_t len, uint64_t off)
{
	if (!r->flat && (off < r->lo || off >= r->hi) && find(r, off) < 0)
		return -1;
	if (r->flat)
		return read_at(r->fd, buf, len, off);
	if (off >= r->hi) /* the end */
		return 0;
	if (len > r->hi - off)
		len = (size_t)(r->hi - off);
	if (!r->hole)
		return read_at(r->fd, buf, len, off);
	memset(buf, 0, len);
	r->zeros += len;
	return (ssize_t)len;
}

ferry_err
sparse_pread(
    struct sparse_reader *r, void *buf, size_t len, uint64_t off, size_t *got)
{
	ssize_t n = 0;

	*got = 0;
	while (*got < len) {
		n = piece(r, (char *)buf + *got, len - *got, off + *got);
		if (n <= 0)
			break;
		*got += (size_t)n;
	}
	if (n < 0) {
		r->err = errno;
		return ferry_fail(FERRY_ESYS, "read: %s", strerror(r->err));
	}
	return FERRY_OK;
}

/* Whether the n bytes at p (n > 0) are all zeros. */
static int
all_zero(const unsigned char *p, size_t n)
{
	return p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}

size_t
sparse_run(const void *p, size_t n, uint64_t off, size_t blk, int *skip)
{
	const unsigned char *b = p;
	size_t i = 0, cell;
	int z;

	*skip = 0;
	if (blk == 0)
		return n;
	/* cells end at block boundaries: only the first and last are short */
	while (i < n) {
		cell = blk - (size_t)((off + i) % blk);
		if (cell > n - i)
			cell = n - i;
		z = all_zero(b + i, cell);
		if (i == 0)
			*skip = z;
		else if (z != *skip)
			break;
		i += cell;
	}
	return i;
}
