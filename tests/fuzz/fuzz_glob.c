/*
 * fuzz_glob.c: glob_match() and the filter rules on arbitrary bytes (rules
 * come from the command line, paths from the disk and the bucket).  The
 * input is a pattern, a NUL or a newline, then a path.  Besides running
 * clean under the sanitizers and within libFuzzer's -timeout, the results
 * must agree with what some patterns are known to match.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/plan/filter.h"
#include "tests/fuzz/fuzz.h"

#define LIMIT 4096 /* PATH_MAX; S3 keys stop at 1024 */

/* Returns path with every byte escaped, a glob matching only path. */
static char *
escape_all(const char *path)
{
	size_t i, n = strlen(path);
	char *e = malloc(2 * n + 1);

	if (e == NULL)
		abort();
	for (i = 0; i < n; i++) {
		e[2 * i] = '\\';
		e[2 * i + 1] = path[i];
	}
	e[2 * n] = '\0';
	return e;
}

/* Checks the matcher against patterns whose answer is known. */
static void
check_glob(const char *pat, const char *path)
{
	char *e;

	if (strpbrk(pat, "*?[\\") == NULL &&
	    glob_match(pat, path) != (strcmp(pat, path) == 0))
		abort();
	if (!glob_match("**", path))
		abort();
	if (glob_match("*", path) != (strchr(path, '/') == NULL))
		abort();
	e = escape_all(path);
	if (!glob_match(e, path))
		abort();
	free(e);
}

/* Applies pat as one rule, then as the first of two. */
static void
check_filter(const char *pat, const char *path, int include)
{
	struct filter *f = filter_new();
	int a, b;

	if (f == NULL)
		abort();
	if (filter_add(f, pat, include) == FERRY_OK) {
		a = filter_match(f, path, 0);
		b = filter_match(f, path, 1);
		/* An include rule alone can exclude nothing. */
		if (include && (!a || !b))
			abort();
		if (filter_add(f, "*.tmp/", !include) != FERRY_OK)
			abort();
		(void)filter_match(f, path, 0);
		(void)filter_match(f, path, 1);
	}
	filter_free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep;
	char *pat, *path;
	size_t k;

	if (size > LIMIT)
		return 0;
	sep = memchr(data, '\n', size);
	k = sep != NULL ? (size_t)(sep - data) : size;
	sep = memchr(data, '\0', k);
	k = sep != NULL ? (size_t)(sep - data) : k;
	pat = fuzz_cstr(data, k);
	path = k < size ? fuzz_cstr(data + k + 1, size - k - 1)
	                : fuzz_cstr(data, k);
	(void)glob_match(pat, path);
	check_glob(pat, path);
	check_filter(pat, path, 0);
	check_filter(pat, path, 1);
	free(pat);
	free(path);
	return 0;
}
