/*
 * fuzz_manifest_file.c: the input is a whole data.mdb, or, when shorter
 * than a page, edits to one: each 3 bytes put a byte (the third) at one of
 * the places LMDB reads structure from (the first two pick it: meta
 * fields, page headers, node pointers, node headers) in a manifest made at
 * start-up, where random mutations of a whole file seldom land.  Whatever
 * manifest_file_check() accepts is opened as ferry opens it, every record
 * of every table is read, and a record is written and one deleted (LMDB
 * then takes pages from the free list) before it is closed: nothing of
 * this may crash.  The corpus holds small manifests written by ferry.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path[96];

/* The manifest made at start-up, and where edits may go in it. */
static uint8_t *image;
static size_t image_len;
static size_t spots[16384];
static size_t nspots;

static void
drain(struct manifest *m, enum manifest_table t)
{
	struct manifest_iter *it = NULL;
	struct manifest_remote r;
	struct manifest_local l;
	struct manifest_upload u;
	const char *key;
	size_t keylen;
	ferry_err e = FERRY_OK;

	if (manifest_iter_new(m, t, &it) != FERRY_OK)
		return;
	while (e == FERRY_OK) {
		if (t == MANIFEST_LOCAL)
			e = manifest_iter_local(it, &key, &keylen, &l);
		else if (t == MANIFEST_REMOTE)
			e = manifest_iter_remote(it, &key, &keylen, &r);
		else
			e = manifest_iter_upload(it, &key, &keylen, &u);
	}
	manifest_iter_free(it);
}

/* Removes the folder the manifest was opened in, at exit. */
static void
cleanup(void)
{
	static const char *const names[] = {"data.mdb", "lock.mdb", "lock"};
	char p[96];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

/* Makes the folder the manifest is opened in, once. */
static void
dir_make(void)
{
	if (dir[0] != '\0')
		return;
	snprintf(dir, sizeof(dir), "/tmp/fuzz-manifest.XXXXXX");
	if (mkdtemp(dir) == NULL)
		abort();
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
}

/* Writes the input where the manifest is opened; -1 when it cannot. */
static int
put_file(const uint8_t *data, size_t size)
{
	int fd;

	dir_make();
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void
spot_add(size_t from, size_t n)
{
	while (n-- > 0 && nspots < sizeof(spots) / sizeof(*spots))
		spots[nspots++] = from++;
}

/* Writes a manifest of a few tables, records and commits in dir. */
static void
image_write(void)
{
	struct manifest_local l = {.size = 7, .mode = 0100644};
	struct manifest_remote r = {.size = 7, .etag = "\"e\""};
	struct manifest_upload u = {.upload_id = "up", .part_size = 5};
	struct manifest *m;
	char key[1100];
	int i;

	if (manifest_open(dir, "/src", "s3://b/ @ http://h", 0, &m) != FERRY_OK)
		abort();
	for (i = 0; i < 150; i++) {
		snprintf(key, sizeof(key), "d%d/file-%04d", i % 3, i);
		/* a long key, its rest in a value long enough for overflow
		 * pages */
		if (i == 7) {
			memset(key + 12, 'k', 988);
			key[1000] = '\0';
		}
		memset(r.upload_id, 'u', 1000);
		r.upload_id[i == 7 ? 1000 : 0] = '\0';
		if (manifest_local_put(m, key, strlen(key), &l) != FERRY_OK ||
		    manifest_remote_put(m, key, strlen(key), &r) != FERRY_OK ||
		    (i % 4 == 0 &&
		        manifest_local_del(m, key, strlen(key)) != FERRY_OK) ||
		    (i % 40 == 0 && manifest_commit(m) != FERRY_OK))
			abort();
	}
	if (manifest_upload_put(m, "big", 3, &u) != FERRY_OK)
		abort();
	manifest_close(m);
}

/* Makes the manifest and lists the places that hold its structure. */
static void
image_make(void)
{
	size_t pg, i, n, at;
	uint8_t *p;
	FILE *f;

	dir_make();
	image_write();
	if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0)
		abort();
	image_len = (size_t)ftell(f);
	rewind(f);
	if ((image = malloc(image_len)) == NULL ||
	    fread(image, 1, image_len, f) != image_len)
		abort();
	fclose(f);
	spot_add(16, 152);
	spot_add(4096 + 16, 152);
	for (pg = 2; pg < image_len / 4096; pg++) {
		p = image + pg * 4096;
		spot_add(pg * 4096, 16);
		if (!(rd16(p + 10) & 3))
			continue;
		n = (size_t)(rd16(p + 12) - 16) / 2;
		for (i = 0; i < n && i < 512; i++) {
			spot_add(pg * 4096 + 16 + 2 * i, 2);
			at = rd16(p + 16 + 2 * i);
			if (at + 8 <= 4096)
				spot_add(pg * 4096 + at, 8);
		}
	}
}

/* Applies the edits in data to a copy of the image; NULL when none. */
static uint8_t *
image_edit(const uint8_t *data, size_t size)
{
	uint8_t *c;
	size_t i;

	if (image == NULL)
		image_make();
	if (nspots == 0 || (c = malloc(image_len)) == NULL)
		return NULL;
	memcpy(c, image, image_len);
	for (i = 0; i + 3 <= size; i += 3)
		c[spots[((size_t)data[i] << 8 | data[i + 1]) % nspots]] =
		    data[i + 2];
	return c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest_local l = {.size = 1, .mode = 0100644};
	struct manifest *m = NULL;
	char why[256];
	int fd;
	ferry_err e;

	uint8_t *edited = NULL;

	if (size == 0)
		return 0;
	if (size < 4096 && (edited = image_edit(data, size)) == NULL)
		return 0;
	if (put_file(edited ? edited : data, edited ? image_len : size) < 0) {
		free(edited);
		return 0;
	}
	free(edited);
	if ((fd = open(path, O_RDONLY)) < 0)
		return 0;
	e = manifest_file_check(fd, why, sizeof(why));
	close(fd);
	if (e != FERRY_OK ||
	    manifest_open(dir, NULL, NULL, MANIFEST_INSPECT, &m) != FERRY_OK)
		return 0;
	drain(m, MANIFEST_LOCAL);
	drain(m, MANIFEST_REMOTE);
	drain(m, MANIFEST_UPLOADS);
	/* failures are fine: only a crash is not */
	if ((e = manifest_local_put(m, "fuzz/new", 8, &l)) == FERRY_OK &&
	    (e = manifest_remote_del(m, "a", 1)) == FERRY_OK)
		e = manifest_commit(m);
	manifest_close(m);
	return 0;
}
