/*
 * fuzz_manifest_record.c: decodes the input as a local and as a remote
 * record; whatever decodes must encode back to the very same bytes.
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
	size_t len;

	if (manifest_local_decode(data, size, &l) == FERRY_OK) {
		if (manifest_local_encode(&l, buf, &len) != FERRY_OK ||
		    len != size || memcmp(buf, data, size) != 0)
			abort();
	}
	if (manifest_remote_decode(data, size, &r) == FERRY_OK) {
		if (manifest_remote_encode(&r, buf, &len) != FERRY_OK ||
		    len != size || memcmp(buf, data, size) != 0)
			abort();
	}
	return 0;
}
