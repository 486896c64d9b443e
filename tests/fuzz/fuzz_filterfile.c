/*
 * fuzz_filterfile.c: the files of --exclude-from, --include-from and
 * --files-from (bytes from outside) on arbitrary bytes.  The input is read
 * once as a file of patterns and once as a list of paths.  Besides running
 * clean under the sanitizers, each line handed on must be one: no '\n' or
 * NUL, not blank, not a comment, and no longer than FILTER_LINE_MAX; and
 * every path a list accepts must then be kept, with its folders.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/plan/filter.h"
#include "tests/fuzz/fuzz.h"

#define LIMIT (1 << 16)

static void
check_line(const char *line)
{
	size_t n = strlen(line);

	if (n == 0 || n > FILTER_LINE_MAX || line[0] == '#' ||
	    strchr(line, '\n') != NULL || strspn(line, " \t") == n)
		abort();
}

static ferry_err
take_pattern(void *arg, char *line)
{
	check_line(line);
	return filter_add(arg, line, line[0] & 1);
}

/* Every path the list took, checked once the list is whole. */
struct taken {
	char *paths[64];
	size_t n;
};

static ferry_err
take_copy(void *arg, char *line)
{
	struct taken *t = arg;

	check_line(line);
	if (t->n < sizeof(t->paths) / sizeof(t->paths[0]))
		t->paths[t->n++] = strdup(line);
	return FERRY_OK;
}

/* A path as filter_list_add() keeps it: without "./" and '/' in front. */
static const char *
path_trim(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	while (p[0] == '/')
		p++;
	return p;
}

static void
check_list(const uint8_t *data, size_t size)
{
	struct filter *f = filter_new();
	struct taken t = {.n = 0};
	char *buf = fuzz_cstr(data, size), *slash;
	const char *p;
	size_t i;

	if (f == NULL)
		abort();
	if (filter_list_add(f, fuzz_cstr(data, size), size, "F") == FERRY_OK &&
	    filter_lines(buf, size, "F", take_copy, &t) == FERRY_OK) {
		for (i = 0; i < t.n; i++) {
			p = path_trim(t.paths[i]);
			if (!filter_match(f, p, 0))
				abort();
			slash = strrchr(p, '/');
			if (slash != NULL) {
				*slash = '\0';
				if (!filter_match(f, p, 1))
					abort();
			}
		}
	}
	for (i = 0; i < t.n; i++)
		free(t.paths[i]);
	free(buf);
	filter_free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct filter *f;
	char *buf;

	if (size > LIMIT)
		return 0;
	f = filter_new();
	buf = fuzz_cstr(data, size);
	if (f == NULL)
		abort();
	if (filter_lines(buf, size, "F", take_pattern, f) == FERRY_OK)
		(void)filter_match(f, "a/b.c", 0);
	free(buf);
	filter_free(f);
	check_list(data, size);
	return 0;
}
