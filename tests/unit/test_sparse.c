/*
 * test_sparse.c: sparse files (common/sparse.c).  The runs a pull writes
 * or leaves as holes, as a table; and a file with holes read back, in
 * pieces of every size, as the bytes a plain read gives, its holes made
 * in memory and not read, and hashed (manifest_hash_fd) as those bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/sparse.h"
#include "manifest/hash.h"
#include "manifest/manifest.h"

#define MIB (1u << 20)

/*
 * The runs of a body written at off in blocks of blk: the body is a
 * pattern, '.' a zero byte, 'x' another; the runs "s3 w5 ...", s for a
 * skip, w for a write, with their lengths.
 */
static void
test_sparse_run(void **state)
{
	static const struct {
		const char *body;
		uint64_t off;
		size_t blk;
		const char *runs;
	} cases[] = {
	    {"", 0, 4, ""},
	    {"xxxx", 0, 0, "w4"},     /* blk 0: all written */
	    {"....", 0, 0, "w4"},     /* ... zeros too */
	    {"........", 0, 4, "s8"}, /* two whole blocks */
	    {"xxxxxxxx", 0, 4, "w8"}, /* data */
	    {"....xxxx....", 0, 4, "s4 w4 s4"},
	    {"x.......", 0, 4, "w4 s4"}, /* a block with a byte of data */
	    {".......x", 0, 4, "s4 w4"},
	    {"...x....", 0, 4, "w4 s4"},
	    /* cut at off 2: cells of 2, 4, 4, 2 */
	    {"............", 2, 4, "s12"},
	    {"..xxxx....xx", 2, 4, "s2 w4 s4 w2"},
	    {"x...........", 2, 4, "w2 s10"}, /* a short cell of data */
	    {"..x.........", 2, 4, "s2 w4 s6"},
	    {"...", 1, 4, "s3"},  /* inside one block */
	    {"..x", 1, 4, "w3"},  /* ... with data */
	    {"xx..", 3, 4, "w4"}, /* cells of 1 and 3, both data */
	    {"x...", 3, 4, "w1 s3"},
	};
	size_t i, j, n, off, len;
	char got[128], *p;
	uint8_t buf[64];
	int skip;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = strlen(cases[i].body);
		for (j = 0; j < len; j++)
			buf[j] = cases[i].body[j] == '.' ? 0 : 0xa5;
		got[0] = '\0';
		p = got;
		for (off = 0; off < len; off += n) {
			n = sparse_run(buf + off, len - off, cases[i].off + off,
			    cases[i].blk, &skip);
			assert_true(n > 0);
			p += sprintf(
			    p, "%s%c%zu", off ? " " : "", skip ? 's' : 'w', n);
		}
		if (strcmp(got, cases[i].runs) != 0)
			fail_msg("case %zu (%s at %llu): got \"%s\", want "
			         "\"%s\"",
			    i, cases[i].body, (unsigned long long)cases[i].off,
			    got, cases[i].runs);
	}
	assert_int_equal(sparse_run(buf, 0, 0, 4, &skip), 0);
}

/* The data of the test file: where, and how much. */
static const struct {
	uint64_t off;
	size_t len;
} data[] = {
    {1 * MIB, 64 << 10},    /* aligned */
    {5 * MIB + 100, 10000}, /* not */
    {8 * MIB - 3, 3},       /* the last bytes */
};

/*
 * Makes a file of 8 MiB with the data above and holes elsewhere, open on
 * the return, removed already; its bytes in want.  Fails the test, saying
 * so, where the folder's filesystem keeps no holes: a pass there would
 * prove nothing.
 */
static int
holey_file(uint8_t *want, size_t size)
{
	char path[] = "/tmp/ferry-test-sparse.XXXXXX";
	struct statfs fs;
	struct stat st;
	size_t i, j;
	int fd;

	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	memset(want, 0, size);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	for (i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
		for (j = 0; j < data[i].len; j++)
			want[data[i].off + j] = (uint8_t)(j % 251 + 1);
		assert_int_equal(pwrite(fd, want + data[i].off, data[i].len,
		                     (off_t)data[i].off),
		    (ssize_t)data[i].len);
	}
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(fstatfs(fd, &fs), 0);
	if ((uint64_t)st.st_blocks * 512 >= size)
		fail_msg("/tmp (filesystem type 0x%lx) keeps no holes: %llu "
		         "bytes on disk for a file of %zu with 80 KB of data",
		    (unsigned long)fs.f_type,
		    (unsigned long long)st.st_blocks * 512, size);
	return fd;
}

/* Reading it in pieces of many sizes gives its bytes, holes not read. */
static void
test_sparse_pread(void **state)
{
	static const size_t pieces[] = {1, 7, 4096, 65536, 100000, 3 * MIB};
	size_t size = 8 * MIB, i, got, off;
	uint8_t *want = malloc(size), *buf = malloc(size + 1);
	struct sparse_reader r;
	int fd;

	(void)state;
	assert_non_null(want);
	assert_non_null(buf);
	fd = holey_file(want, size);
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		sparse_reader_init(&r, fd);
		for (off = 0; off < size; off += got) {
			assert_int_equal(
			    sparse_pread(&r, buf + off, pieces[i], off, &got),
			    FERRY_OK);
			assert_true(got == pieces[i] || off + got == size);
		}
		assert_int_equal(off, size);
		assert_memory_equal(buf, want, size);
		/* the end: nothing more */
		assert_int_equal(
		    sparse_pread(&r, buf, 10, size, &got), FERRY_OK);
		assert_int_equal(got, 0);
		/* read from the disk: the data, in the filesystem's blocks
		 * around it, never the holes */
		assert_true(r.zeros >= size - 512 * 1024);
	}
	/* a read past the end of a piece in a hole: short, at the end */
	sparse_reader_init(&r, fd);
	assert_int_equal(sparse_pread(&r, buf, 100, size - 50, &got), FERRY_OK);
	assert_int_equal(got, 50);
	assert_memory_equal(buf, want + size - 50, 50);
	close(fd);
	free(want);
	free(buf);
}

/* The hash of the file is the hash of its bytes; the offset ends at EOF. */
static void
test_sparse_hash(void **state)
{
	size_t size = 8 * MIB;
	uint8_t *want = malloc(size), xxh[16], md5[16], hwant[16];
	uint64_t n;
	int fd;

	(void)state;
	assert_non_null(want);
	fd = holey_file(want, size);
	manifest_hash_buf(want, size, hwant);
	assert_int_equal(manifest_hash_fd(fd, xxh, md5, &n), FERRY_OK);
	assert_memory_equal(xxh, hwant, 16);
	assert_int_equal(n, size);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), (off_t)size);
	/* from an offset: what is left */
	assert_int_equal(lseek(fd, (off_t)(size - 3), SEEK_SET), size - 3);
	assert_int_equal(manifest_hash_fd(fd, xxh, NULL, &n), FERRY_OK);
	manifest_hash_buf(want + size - 3, 3, hwant);
	assert_memory_equal(xxh, hwant, 16);
	assert_int_equal(n, 3);
	close(fd);
	free(want);
}

/* A file with no holes is read whole, as it always was. */
static void
test_sparse_dense(void **state)
{
	char path[] = "/tmp/ferry-test-dense.XXXXXX";
	uint8_t want[20000], buf[20000];
	struct sparse_reader r;
	size_t got;
	int fd;

	(void)state;
	memset(want, 0, sizeof(want)); /* zeros written are data */
	want[17] = 1;
	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	assert_int_equal(write(fd, want, sizeof(want)), (ssize_t)sizeof(want));
	sparse_reader_init(&r, fd);
	assert_int_equal(sparse_pread(&r, buf, sizeof(buf), 0, &got), FERRY_OK);
	assert_int_equal(got, sizeof(buf));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(r.zeros, 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sparse_run),
	    cmocka_unit_test(test_sparse_pread),
	    cmocka_unit_test(test_sparse_hash),
	    cmocka_unit_test(test_sparse_dense),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
