/*
 * manifest-walk.c: how much of a manifest's map a resync-like walk brings
 * into the RSS (see the S8 notes in bench/RESULTS.md).
 *
 *   manifest-walk DIR [EVERY]   walk the manifest in DIR as an unchanged
 *                               resync does (the local table in order, the
 *                               remote record of each key) and print the
 *                               peak RSS and its anonymous and file-backed
 *                               parts before and after; with EVERY, drop
 *                               the mapped pages (madvise MADV_DONTNEED)
 *                               every EVERY keys
 *   manifest-walk fill DIR N    write a compact manifest of N keys like
 *                               S8's (d000/f000000.bin), 16 per commit
 *
 * Build from the top of the tree, after make:
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. -o manifest-walk bench/manifest-walk.c \
 *     build/libferry.a $(pkg-config --libs libcurl openssl libxxhash lmdb \
 *     libcjson expat) -lpthread
 * Copy a manifest before walking it: opening takes its run lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "manifest/internal.h"

static void
show(const char *what)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return;
	printf("%-7s", what);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM", 5) ||
		    !strncmp(line, "RssAnon", 7) ||
		    !strncmp(line, "RssFile", 7)) {
			line[strcspn(line, "\n")] = '\0';
			printf("  %s", line);
		}
	printf("\n");
	fclose(f);
}

/* Unmaps the pages of data.mdb from this process (they stay cached). */
static void
drop_map(struct manifest *m)
{
	static unsigned long lo, hi;
	char line[512];
	MDB_envinfo ei;
	FILE *f;

	if (lo == 0 && (f = fopen("/proc/self/maps", "r")) != NULL) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "/data.mdb") &&
			    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
				break;
		fclose(f);
	}
	if (lo == 0 || mdb_env_info(m->env, &ei) != 0)
		return;
	if (madvise((void *)lo, (ei.me_last_pgno + 1) * 4096UL, MADV_DONTNEED))
		perror("madvise");
}

static int
fill(const char *dir, unsigned long n)
{
	struct manifest *m;
	struct manifest_local l;
	struct manifest_remote r;
	unsigned long i, dirs = n / 200 ? n / 200 : 1;
	char k[64];

	if (manifest_open(dir, "src", "dst", MANIFEST_REBUILD, &m) != FERRY_OK)
		return 1;
	for (i = 0; i < n; i++) {
		memset(&l, 0, sizeof(l));
		memset(&r, 0, sizeof(r));
		l.size = r.size = 1024;
		l.mtime_ns = r.mtime_ns = 1700000000000000000LL;
		l.ino = 1000000 + i;
		l.dev = 254;
		l.mode = 0100644;
		memset(l.hash, (int)i, sizeof(l.hash));
		memcpy(r.hash, l.hash, sizeof(r.hash));
		r.has_hash = 1;
		r.last_modified = 1764515000;
		snprintf(
		    r.etag, sizeof(r.etag), "\"%032lx\"", i * 2654435761UL);
		snprintf(k, sizeof(k), "d%03lu/f%06lu.bin", i % dirs, i);
		if (manifest_local_put(m, k, strlen(k), &l) != FERRY_OK ||
		    manifest_remote_put(m, k, strlen(k), &r) != FERRY_OK ||
		    (i % 16 == 15 && manifest_commit(m) != FERRY_OK))
			return 1;
	}
	manifest_close(m);
	return 0;
}

int
main(int argc, char **argv)
{
	struct manifest *m;
	struct manifest_iter *it;
	struct manifest_local l;
	struct manifest_remote r;
	const char *key;
	size_t keylen;
	unsigned long n = 0, found = 0, every = 0;

	if (argc == 4 && strcmp(argv[1], "fill") == 0)
		return fill(argv[2], strtoul(argv[3], NULL, 10));
	if (argc != 2 && argc != 3) {
		fprintf(
		    stderr, "usage: manifest-walk DIR [EVERY] | fill DIR N\n");
		return 2;
	}
	if (argc == 3)
		every = strtoul(argv[2], NULL, 10);
	if (manifest_open(argv[1], NULL, NULL, MANIFEST_INSPECT, &m) !=
	        FERRY_OK ||
	    manifest_iter_new(m, MANIFEST_LOCAL, &it) != FERRY_OK) {
		fprintf(stderr, "manifest-walk: %s\n", ferry_errmsg());
		return 1;
	}
	show("open");
	while (manifest_iter_local(it, &key, &keylen, &l) == FERRY_OK) {
		n++;
		if (manifest_remote_get(m, key, keylen, &r) == FERRY_OK)
			found++;
		if (every && n % every == 0)
			drop_map(m);
	}
	manifest_iter_free(it);
	show("walked");
	printf("%lu local records, %lu with a remote record\n", n, found);
	manifest_close(m);
	return 0;
}
