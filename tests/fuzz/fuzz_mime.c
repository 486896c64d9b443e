/*
 * fuzz_mime.c: mime_type() on arbitrary keys (names come from the disk).
 * It must read no byte past the length, find a type only after a '.' in
 * the last segment, and give the same answer whatever the case of the
 * key and whatever folders come before it.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/up/mime.h"

#define LIMIT 4096

static int
same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const char *key, *type, *slash, *dot;
	char *copy, *up;
	size_t i;

	if (n > LIMIT)
		return 0;
	/* an exact-size copy: a read past the length trips ASan */
	if ((copy = malloc(n ? n : 1)) == NULL || (up = malloc(n + 4)) == NULL)
		abort();
	memcpy(copy, data, n);
	key = copy;
	type = mime_type(key, n);
	if (type != NULL) {
		slash = memrchr(key, '/', n);
		dot = memrchr(key, '.', n);
		if (dot == NULL || (slash != NULL && dot < slash) ||
		    dot == key + n - 1)
			abort();
	}
	for (i = 0; i < n; i++)
		up[i] = (char)toupper((unsigned char)key[i]);
	if (!same(type, mime_type(up, n)))
		abort();
	memcpy(up, "d./", 3);
	memcpy(up + 3, key, n);
	if (!same(type, mime_type(up, n + 3)))
		abort();
	free(copy);
	free(up);
	return 0;
}
