/*
 * failalloc.c: out of memory on demand, for the integration tests, loaded
 * with LD_PRELOAD.  Built with -DFAIL_MALLOC: the first malloc() of
 * exactly $FAILALLOC_SIZE bytes returns NULL (not with the sanitizers,
 * whose malloc this would replace).  Without it: call number
 * $FAILALLOC_PRINT of cJSON_PrintUnformatted() returns NULL.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#ifdef FAIL_MALLOC
extern void *__libc_malloc(size_t);

/* glibc's malloc, but NULL once for the size asked for. */
void *
malloc(size_t n)
{
	static size_t want;
	static int armed = -1;
	const char *s;

	if (armed < 0) {
		s = getenv("FAILALLOC_SIZE");
		want = s ? strtoul(s, NULL, 10) : 0;
		armed = want != 0;
	}
	if (armed && n == want) {
		armed = 0;
		return NULL;
	}
	return __libc_malloc(n);
}
#else
/* cJSON's, but NULL at the call counted. */
char *
cJSON_PrintUnformatted(const void *item)
{
	static char *(*real)(const void *);
	static int calls;
	const char *s = getenv("FAILALLOC_PRINT");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "cJSON_PrintUnformatted");
	if (s != NULL && ++calls == atoi(s))
		return NULL;
	return real(item);
}
#endif
