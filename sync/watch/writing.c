/*
 * writing.c: the files being written (writing.h), an array kept sorted
 * by path: a few thousand at most, so a binary search and a memmove
 * serve.
 */
#include <stdlib.h>
#include <string.h>

#include "sync/watch/writing.h"

struct watch_writing {
	struct watch_written *v;
	size_t n, cap;
};

struct watch_writing *
watch_writing_new(void)
{
	return calloc(1, sizeof(struct watch_writing));
}

void
watch_writing_free(struct watch_writing *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	free(s);
}

/* Where path is, or would go: *found says whether it is there. */
static size_t
find(const struct watch_writing *s, const char *path, int *found)
{
	size_t lo = 0, hi = s->n, mid;
	int c;

	*found = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(s->v[mid].path, path)) == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
watch_writing_touch(struct watch_writing *s, const char *path, int64_t now)
{
	struct watch_written *v;
	size_t i, cap;
	int found;

	if (s == NULL)
		return 0;
	i = find(s, path, &found);
	if (found) {
		s->v[i].last_ns = now;
		return 1;
	}
	if (s->n == WATCH_WRITING_MAX)
		return 0;
	if (s->n == s->cap) {
		cap = s->cap ? 2 * s->cap : 16;
		if ((v = realloc(s->v, cap * sizeof(*v))) == NULL)
			return 0;
		s->v = v;
		s->cap = cap;
	}
	memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(*s->v));
	if ((s->v[i].path = strdup(path)) == NULL) {
		memmove(&s->v[i], &s->v[i + 1], (s->n - i) * sizeof(*s->v));
		return 0;
	}
	s->v[i].first_ns = s->v[i].last_ns = now;
	s->n++;
	return 1;
}

void
watch_writing_drop(struct watch_writing *s, size_t i)
{
	if (s == NULL || i >= s->n)
		return;
	free(s->v[i].path);
	s->n--;
	memmove(&s->v[i], &s->v[i + 1], (s->n - i) * sizeof(*s->v));
}

void
watch_writing_end(struct watch_writing *s, const char *path)
{
	size_t i;
	int found;

	if (s == NULL || s->n == 0)
		return;
	i = find(s, path, &found);
	if (found)
		watch_writing_drop(s, i);
}

void
watch_writing_drop_below(struct watch_writing *s, const char *dir)
{
	size_t n = strlen(dir), i, k = 0;

	/* one pass: "dir-x" sorts between "dir" and "dir/a", so the paths
	 * below dir need not lie together */
	for (i = 0; s != NULL && i < s->n; i++) {
		if (strncmp(s->v[i].path, dir, n) == 0 &&
		    s->v[i].path[n] == '/') {
			free(s->v[i].path);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	if (s != NULL)
		s->n = k;
}

size_t
watch_writing_count(const struct watch_writing *s)
{
	return s ? s->n : 0;
}

struct watch_written *
watch_writing_at(struct watch_writing *s, size_t i)
{
	return s && i < s->n ? &s->v[i] : NULL;
}
