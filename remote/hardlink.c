/*
 * hardlink.c: the value of a hard link's marker (ops.h,
 * REMOTE_META_HARDLINK), the key of the first name of a file's inode,
 * relative to the prefix, percent-encoded so that any key goes in a
 * header; and its reading back, which trusts nothing of what a server
 * or another writer sent.
 */
#include <string.h>

#include "remote/internal.h"
#include "remote/ops.h"
#include "remote/url.h"

/* A key of more than this many bytes is not one S3 holds. */
#define HARDLINK_KEY_MAX 1024

ferry_err
remote_hardlink_encode(const char *rel, size_t n, char *out, size_t outlen)
{
	struct buf b;
	ferry_err e;

	if (n == 0 || n > HARDLINK_KEY_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "a hard link's first key must have 1 to %d bytes",
		    HARDLINK_KEY_MAX);
	buf_init(&b, outlen);
	if ((e = uri_encode(&b, rel, n, 1)) == FERRY_OK &&
	    (e = buf_append(&b, "", 1)) == FERRY_OK)
		memcpy(out, b.data, b.len);
	buf_free(&b);
	if (e != FERRY_OK)
		return ferry_fail(e,
		    "a hard link's marker does not fit in %zu "
		    "bytes",
		    outlen);
	return FERRY_OK;
}

/* Whether c may stand in a marker's value as it is. */
static int
marker_byte(unsigned char c)
{
	return uri_unreserved(c) || c == '/' || c == '%';
}

ferry_err
remote_hardlink_decode(
    const char *value, char *out, size_t outcap, size_t *outlen)
{
	size_t i, n = strlen(value);
	struct buf b;
	ferry_err e;

	*outlen = 0;
	if (outcap > 0)
		out[0] = '\0';
	if (n == 0)
		return ferry_fail(
		    FERRY_EPARSE, "the hard link marker is empty");
	for (i = 0; i < n; i++)
		if (!marker_byte((unsigned char)value[i]))
			return ferry_fail(FERRY_EPARSE,
			    "the hard link marker has a byte 0x%02x that its "
			    "encoding never writes, at %zu",
			    (unsigned char)value[i], i);
	buf_init(&b, HARDLINK_KEY_MAX);
	e = uri_decode(&b, value, n, 0);
	if (e == FERRY_OK && (b.len == 0 || memchr(b.data, '\0', b.len)))
		e = ferry_fail(FERRY_EPARSE,
		    "the hard link marker names no key, or one with a NUL");
	else if (e == FERRY_OK && b.len >= outcap)
		e = ferry_fail(FERRY_EPARSE,
		    "the hard link marker's key is "
		    "longer than %zu bytes",
		    outcap - 1);
	else if (e == FERRY_EPARSE)
		e = ferry_fail(e, "the hard link marker: %s", ferry_errmsg());
	if (e == FERRY_OK) {
		memcpy(out, b.data, b.len);
		out[b.len] = '\0';
		*outlen = b.len;
	}
	buf_free(&b);
	return e;
}
