/*
 * fuzz_ssec.c: an SSE-C key's text (a file's bytes, or a variable's) on
 * arbitrary input: 32 bytes are taken as they are, 44 characters of
 * base64 must decode to 32, anything else is refused with the key wiped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/ssec.h"

#define LIMIT 256

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	static const uint8_t zero[32];
	uint8_t key[32];
	char *text;

	if (n > LIMIT)
		return 0;
	/* an exact-size copy: a read past the length trips ASan */
	if ((text = malloc(n ? n : 1)) == NULL)
		abort();
	memcpy(text, data, n);
	memset(key, 0xa5, sizeof(key));
	if (ssec_key_parse(text, n, key) == FERRY_OK) {
		if (n == 32 && memcmp(key, data, 32) != 0)
			abort();
		if (n != 32 && n < 44)
			abort();
	} else if (memcmp(key, zero, 32) != 0) {
		abort();
	}
	free(text);
	return 0;
}
