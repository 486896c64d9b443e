/*
 * fuzz_manifest_record.c: decodes the input as a local, a remote and an
 * upload record; whatever decodes must encode back to the very same bytes,
 * and a remote record names a version id exactly when it is of an even
 * version, its stored metadata exactly when it is of version 3, 4, 7 or
 * 8, and its attributes' ctime and hash exactly when it is of version 5
 * to 8; a local record names its owner exactly when it is of version 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t buf[MANIFEST_REC_MAX];
	struct manifest_remote r;
	struct manifest_local l;
	struct manifest_upload u;
	size_t len;

	if (manifest_local_decode(data, size, &l) == FERRY_OK) {
		if (l.has_owner != (data[0] == 2) ||
		    manifest_local_encode(&l, buf, &len) != FERRY_OK ||
		    len != size || memcmp(buf, data, size) != 0)
			abort();
	}
	if (manifest_remote_decode(data, size, &r) == FERRY_OK) {
		if ((r.version_id[0] != '\0') != (data[0] % 2 == 0) ||
		    r.has_meta != ((data[0] - 1) % 4 >= 2) ||
		    r.has_xattr != (data[0] >= 5) ||
		    manifest_remote_encode(&r, buf, &len) != FERRY_OK ||
		    len != size || memcmp(buf, data, size) != 0)
			abort();
	}
	if (manifest_upload_decode(data, size, &u) == FERRY_OK) {
		if (manifest_upload_encode(&u, buf, &len) != FERRY_OK ||
		    len != size || memcmp(buf, data, size) != 0)
			abort();
	}
	return 0;
}
