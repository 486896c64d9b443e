/*
 * fuzz_posixmeta.c: the values of a file's POSIX metadata as a reply
 * carries them (sync/posix.c).  The input is up to seven lines, the
 * fields in the order of struct remote_posix, each one too long for its
 * field made REMOTE_POSIX_CUT as the reply's reader makes it (and then
 * refused); then the whole input as a link's target.  What is read must
 * be within its bounds and read again the same once written, a time in
 * either form, before 1970 too; a link's target that starts with '/' is
 * always outside.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/engine/posix.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Copies the next line of data into dst, REMOTE_POSIX_CUT if too long. */
static size_t
field(const uint8_t *data, size_t size, size_t at, char *dst, size_t n)
{
	size_t end = at, len;

	while (end < size && data[end] != '\n')
		end++;
	len = end - at;
	if (len < n) {
		memcpy(dst, data + at, len);
		dst[len] = '\0';
	} else {
		memcpy(dst, REMOTE_POSIX_CUT, sizeof(REMOTE_POSIX_CUT));
	}
	return end < size ? end + 1 : end;
}

static void
check(const struct posix_attrs *a)
{
	char buf[64];
	int64_t t;
	uint32_t v;

	if (a->has_mtime) {
		posix_format_seconds(a->mtime_ns, buf, sizeof(buf));
		if (posix_parse_seconds(buf, &t) != 0 || t != a->mtime_ns)
			abort();
	}
	if (a->has_mtime != (a->has_mtime && posix_time_ok(a->mtime_ns)) ||
	    a->has_atime != (a->has_atime && posix_time_ok(a->atime_ns)))
		abort();
	if (a->has_atime) {
		posix_format_rfc3339(a->atime_ns, buf, sizeof(buf));
		if (buf[0] &&
		    (posix_parse_rfc3339(buf, &t) != 0 || t != a->atime_ns))
			abort();
	}
	if (a->has_mode && a->mode > 0177777)
		abort();
	if (a->has_uid &&
	    (a->uid == UINT32_MAX || posix_parse_id("4294967295", &v) == 0))
		abort();
	if (strlen(a->uname) >= sizeof(a->uname) ||
	    strlen(a->gname) >= sizeof(a->gname))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct remote_posix m;
	struct posix_attrs a;
	const char *bad = NULL;
	size_t at = 0;
	int n;

	memset(&m, 0, sizeof(m));
	at = field(data, size, at, m.mtime, sizeof(m.mtime));
	at = field(data, size, at, m.atime, sizeof(m.atime));
	at = field(data, size, at, m.mode, sizeof(m.mode));
	at = field(data, size, at, m.uid, sizeof(m.uid));
	at = field(data, size, at, m.gid, sizeof(m.gid));
	at = field(data, size, at, m.uname, sizeof(m.uname));
	(void)field(data, size, at, m.gname, sizeof(m.gname));
	n = posix_decode(&m, &a, &bad);
	if ((n == 0) != (bad == NULL) || n < 0 || n > REMOTE_POSIX_FIELDS)
		abort();
	check(&a);
	if (size > 0 && data[0] == '/' &&
	    !posix_link_outside("d/l", 3, (const char *)data, size))
		abort();
	(void)posix_link_outside((const char *)data, size / 2,
	    (const char *)data + size / 2, size - size / 2);
	return 0;
}
