/* etag.c: the forms of an ETag (etag.h). */
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "remote/etag.h"

#define ETAG_PARTS_DIGITS 9 /* fits uint32_t */

/*
 * Reads s[0..n), an unquoted ETag, into out: 32 hex digits, then '-' and
 * its part count for a multipart one.  The form, or REMOTE_ETAG_OPAQUE.
 */
static enum remote_etag_form
parse_bare(const char *s, size_t n, struct remote_etag *out)
{
	uint32_t parts = 0;
	size_t i;
	int hi, lo;

	if (n < 32)
		return REMOTE_ETAG_OPAQUE;
	for (i = 0; i < 16; i++) {
		hi = hex_value((unsigned char)s[2 * i]);
		lo = hex_value((unsigned char)s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return REMOTE_ETAG_OPAQUE;
		out->md5[i] = (uint8_t)(hi << 4 | lo);
	}
	if (n == 32)
		return REMOTE_ETAG_MD5;
	if (s[32] != '-' || n == 33 || n - 33 > ETAG_PARTS_DIGITS)
		return REMOTE_ETAG_OPAQUE;
	for (i = 33; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return REMOTE_ETAG_OPAQUE;
		parts = parts * 10 + (uint32_t)(s[i] - '0');
	}
	if (parts == 0)
		return REMOTE_ETAG_OPAQUE;
	out->parts = parts;
	return REMOTE_ETAG_MULTIPART;
}

enum remote_etag_form
remote_etag_parse(const char *etag, struct remote_etag *out)
{
	size_t n = strlen(etag);
	int quoted = n >= 2 && etag[0] == '"' && etag[n - 1] == '"';

	memset(out, 0, sizeof(*out));
	out->form = quoted ? parse_bare(etag + 1, n - 2, out)
	                   : parse_bare(etag, n, out);
	if (out->form == REMOTE_ETAG_OPAQUE)
		memset(out, 0, sizeof(*out));
	else
		out->quoted = quoted;
	return out->form;
}

int
remote_etag_is_md5(const char *etag)
{
	struct remote_etag t;

	return remote_etag_parse(etag, &t) == REMOTE_ETAG_MD5 && t.quoted;
}

int
remote_etag_is_md5_of(const char *etag, const uint8_t md5[16])
{
	struct remote_etag t;

	return remote_etag_parse(etag, &t) == REMOTE_ETAG_MD5 && t.quoted &&
	       memcmp(t.md5, md5, 16) == 0;
}

int
remote_etag_multipart(const char *etag)
{
	struct remote_etag t;

	return remote_etag_parse(etag, &t) == REMOTE_ETAG_MULTIPART;
}

void
remote_etag_format(const uint8_t md5[16], uint32_t parts, char *out, size_t n)
{
	char hex[33];

	hex_encode(md5, 16, hex);
	if (parts == 0)
		snprintf(out, n, "\"%s\"", hex);
	else
		snprintf(out, n, "\"%s-%u\"", hex, (unsigned)parts);
}
