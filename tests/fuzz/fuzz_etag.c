/*
 * fuzz_etag.c: remote_etag_parse() on any bytes (ETags come from reply
 * headers and listings): an opaque ETag leaves nothing else set; an MD5
 * or multipart one, written back by remote_etag_format(), parses again
 * to the same digest and part count, and the predicates agree with the
 * form.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"
#include "tests/fuzz/fuzz.h"

static void
check(const char *s)
{
	static const uint8_t zero[16];
	struct remote_etag t, again;
	char out[REMOTE_ETAG_MAX + 1];

	if (remote_etag_parse(s, &t) != t.form)
		abort();
	if (remote_etag_multipart(s) != (t.form == REMOTE_ETAG_MULTIPART) ||
	    remote_etag_is_md5(s) != (t.form == REMOTE_ETAG_MD5 && t.quoted))
		abort();
	if (t.form == REMOTE_ETAG_OPAQUE) {
		if (t.quoted || t.parts || memcmp(t.md5, zero, 16) != 0)
			abort();
		return;
	}
	if (remote_etag_is_md5_of(s, t.md5) != remote_etag_is_md5(s))
		abort();
	remote_etag_format(t.md5, t.parts, out, sizeof(out));
	if (remote_etag_parse(out, &again) != t.form || !again.quoted ||
	    again.parts != t.parts || memcmp(again.md5, t.md5, 16) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *s = fuzz_cstr(data, n);

	check(s);
	free(s);
	return 0;
}
