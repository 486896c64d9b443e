/*
 * sparse.h: sparse files.  A file is read as bytes with its holes as
 * zeros made in memory, never read from the disk (SEEK_DATA, SEEK_HOLE):
 * the one reader of a file's bytes for its hash, its MD5s and its upload.
 * And the runs of a body to write that can stay holes: aligned blocks of
 * zeros, as cp --sparse=auto leaves them.
 */
#ifndef FERRY_SPARSE_H
#define FERRY_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/*
 * Where a reader of one open file stands: the stretch [lo, hi) it last
 * found to be data or a hole, asked of the kernel again outside it.
 * Thread-safe as far as one reader is used by one thread at a time; many
 * readers may read one file descriptor at once (they never move its
 * offset but through lseek's SEEK_DATA and SEEK_HOLE, and read with
 * pread).
 */
struct sparse_reader {
	int fd;
	uint64_t lo, hi; /* the stretch known, empty at first */
	int hole;        /* it is a hole: zeros */
	int flat;        /* no SEEK_DATA here (EINVAL): read it all */
	uint64_t zeros;  /* bytes given from holes, never read */
	int err;         /* the errno of sparse_pread()'s last failure */
};

/* Starts r on the regular file open on fd; no system call. */
void sparse_reader_init(struct sparse_reader *r, int fd);

/*
 * Reads up to len bytes of r's file at off into buf, holes as zeros;
 * *got is short of len only at the end of the file.  FERRY_ESYS, with
 * errno's text recorded (and kept in r->err), on a failed read or lseek;
 * *got is then what was read before it.
 */
ferry_err sparse_pread(struct sparse_reader *r, void *buf, size_t len,
    uint64_t off, size_t *got) FERRY_WUR;

/*
 * The length of the run that starts the n bytes at p, which are to go at
 * offset off of a file of blocks of blk bytes: the bytes are cut at the
 * block boundaries, and a run is the cells up to the next that differs
 * from the first in being all zeros (*skip 1: zeros a fresh file can leave
 * as a hole) or not (*skip 0: to write).  Whole blocks of zeros are
 * skipped, and zeros at either end of p, where a write is cut already: a
 * block of data is never written in two.  0 only when n is 0.  blk 0: one
 * run of n to write.
 */
size_t sparse_run(const void *p, size_t n, uint64_t off, size_t blk, int *skip);

#endif
