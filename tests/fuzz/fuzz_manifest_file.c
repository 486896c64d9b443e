/*
 * fuzz_manifest_file.c: the input is a whole data.mdb.  Whatever
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

/* Writes the input where the manifest is opened; -1 when it cannot. */
static int
put_file(const uint8_t *data, size_t size)
{
	int fd;

	if (dir[0] == '\0') {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-manifest.XXXXXX");
		if (mkdtemp(dir) == NULL)
			abort();
		atexit(cleanup);
		snprintf(path, sizeof(path), "%s/data.mdb", dir);
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest_local l = {.size = 1, .mode = 0100644};
	struct manifest *m = NULL;
	char why[256];
	int fd;
	ferry_err e;

	if (size == 0 || put_file(data, size) < 0)
		return 0;
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
