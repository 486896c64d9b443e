/*
 * fuzz.h: what the fuzz targets share.  Included by each target, which is
 * built as a program of its own (tests/fuzz/run.sh).
 */
#ifndef FERRY_FUZZ_H
#define FERRY_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Returns a NUL-terminated copy of data[0, n) for the parsers that read C
 * strings; the caller frees it.  Aborts when out of memory.
 */
static inline char *
fuzz_cstr(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

#endif
