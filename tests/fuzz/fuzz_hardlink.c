/*
 * fuzz_hardlink.c: a hard link marker's value (x-amz-meta-ferry-hardlink,
 * any bytes a reply header carries) read back by remote_hardlink_decode()
 * and checked as a pull -H checks it (pull_key_refused()): a key that
 * passes is a relative path inside the folder (no '/' first, no '.', '..'
 * or empty segment but a last one, no NUL) within its bound, and written again
 * by remote_hardlink_encode() it reads back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/ops.h"
#include "sync/down/down.h"
#include "tests/fuzz/fuzz.h"

/* Whether key[0..n) has a segment seg (of len bytes) or an empty one. */
static int
has_segment(const char *key, size_t n, const char *seg, size_t len)
{
	size_t i, start = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && key[i] != '/')
			continue;
		if (i - start == len && memcmp(key + start, seg, len) == 0)
			return 1;
		start = i + 1;
	}
	return 0;
}

static void
check(const char *value)
{
	char key[MANIFEST_KEY_MAX + 1], again[MANIFEST_KEY_MAX + 1];
	char enc[REMOTE_HARDLINK_MAX];
	size_t n, m, t;

	if (remote_hardlink_decode(value, key, sizeof(key), &n) != FERRY_OK) {
		if (n != 0 || key[0] != '\0')
			abort();
		return;
	}
	if (n == 0 || n > MANIFEST_KEY_MAX || strlen(key) != n)
		abort();
	/* a '/' last ends the key in an empty name, which names no file */
	t = n - (key[n - 1] == '/');
	if (pull_key_refused(key, n, 1) == NULL &&
	    (key[0] == '/' || has_segment(key, t, "..", 2) ||
	        has_segment(key, t, ".", 1) || has_segment(key, t, "", 0)))
		abort();
	if (remote_hardlink_encode(key, n, enc, sizeof(enc)) != FERRY_OK ||
	    remote_hardlink_decode(enc, again, sizeof(again), &m) != FERRY_OK ||
	    m != n || memcmp(again, key, n) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	check(s);
	free(s);
	return 0;
}
