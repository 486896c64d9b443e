/*
 * fuzz_inventory.c: an S3 Inventory's manifest.json and the CSV rows of
 * its data files (remote/invparse.c).
 *
 * Layout: the bytes before the first NUL are a manifest.json; those after
 * it are rows, one a line, parsed against that manifest's fileSchema when
 * it parses, else against S3's default CSV schema.
 *
 * What an accepted manifest must be: a source bucket, a schema that places
 * Bucket, Key, Size, LastModifiedDate and ETag within its fields, 1 to
 * INVENTORY_FILES_MAX files each with a key.  What an accepted row must
 * be: a key without NUL, of at most XML_KEY_MAX bytes; unless left out, a
 * size up to 5 TiB and a quoted ETag.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/inventory.h"
#include "remote/remote.h"
#include "remote/xml.h"

#define DEFAULT_MANIFEST                                                       \
	"{\"sourceBucket\":\"b\",\"creationTimestamp\":\"1\","                 \
	"\"fileFormat\":\"CSV\",\"fileSchema\":\"Bucket, Key, Size, "          \
	"LastModifiedDate, ETag, IsLatest, IsDeleteMarker\",\"files\":[{"      \
	"\"key\":\"k\",\"size\":1,\"MD5checksum\":"                            \
	"\"0123456789abcdef0123456789abcdef\"}]}"

static void
check_manifest(const struct inventory_manifest *m)
{
	size_t i;
	int c;

	if (m->source_bucket == NULL || m->nfiles == 0 ||
	    m->nfiles > INVENTORY_FILES_MAX || m->ncols == 0 ||
	    m->ncols > INVENTORY_COLS_MAX)
		abort();
	for (c = INV_BUCKET; c <= INV_ETAG; c++)
		if (m->col[c] < 0 || (size_t)m->col[c] >= m->ncols)
			abort();
	for (i = 0; i < m->nfiles; i++)
		if (m->files[i].key == NULL || m->files[i].key[0] == '\0' ||
		    m->files[i].size > REMOTE_MAX_OBJECT)
			abort();
}

static void
check_row(const struct inventory_manifest *m, const char *s, size_t n,
    struct inventory_row *r)
{
	size_t el;

	if (inventory_row_parse(m, s, n, r) != FERRY_OK)
		return;
	if (r->key.len == 0 || r->key.len > XML_KEY_MAX ||
	    memchr(r->key.data, '\0', r->key.len) != NULL)
		abort();
	if (r->skip)
		return;
	el = strlen(r->etag);
	if (r->size > REMOTE_MAX_OBJECT || el < 3 || r->etag[0] != '"' ||
	    r->etag[el - 1] != '"' || r->bucket == NULL ||
	    r->last_modified == NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size, *nl;
	const char *nul = memchr(s, '\0', size);
	size_t jlen = nul ? (size_t)(nul - s) : size;
	struct inventory_manifest m;
	struct inventory_row r;

	if (inventory_manifest_parse(s, jlen, &m) == FERRY_OK)
		check_manifest(&m);
	else if (inventory_manifest_parse(DEFAULT_MANIFEST,
	             strlen(DEFAULT_MANIFEST), &m) != FERRY_OK)
		abort();
	inventory_row_init(&r);
	for (s = nul ? nul + 1 : end; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		nl = nl ? nl : end;
		check_row(&m, s, (size_t)(nl - s), &r);
	}
	inventory_row_free(&r);
	inventory_manifest_clear(&m);
	return 0;
}
