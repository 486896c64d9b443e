/*
 * fuzz_store.c: --tags and --metadata on arbitrary text.  What is taken
 * must be a header value a request can carry: tags URL-encoded (only
 * unreserved bytes, '%', '=' and '&'), metadata lines of printable ASCII,
 * and no more than S3's limits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "tests/fuzz/fuzz.h"

#define LIMIT 8192

static int
tagging_ok(const struct remote_store *s)
{
	const char *p = s->tagging.data ? s->tagging.data : "";

	for (; *p != '\0'; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		        (*p >= '0' && *p <= '9') || strchr("-_.~%=&", *p)))
			return 0;
	return s->ntags <= REMOTE_MAX_TAGS;
}

static int
meta_ok(const struct remote_store *s)
{
	const char *p = s->meta.data ? s->meta.data : "";

	for (; *p != '\0'; p++)
		if (*p != '\n' && ((unsigned char)*p < 0x20 || *p == 0x7f))
			return 0;
	return s->meta.len == 0 ||
	       strncmp(s->meta.data, "x-amz-meta-", 11) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct remote_store s;
	char *text;

	if (n > LIMIT)
		return 0;
	text = fuzz_cstr(data, n);
	remote_store_init(&s);
	(void)remote_store_tags(&s, text);
	(void)remote_store_meta(&s, text);
	if (!tagging_ok(&s) || !meta_ok(&s))
		abort();
	remote_store_clear(&s);
	free(text);
	return 0;
}
