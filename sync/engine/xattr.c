/*
 * xattr.c: the names and values of user.* extended attributes as object
 * metadata (xattr.h says the form).  Pure.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote/digest.h"
#include "sync/engine/xattr.h"

/* what a base64 byte stands for, by its place (RFC 4648) */
static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* rclone's names for a file's own metadata, and ferry's */
static const char *const RESERVED[] = {
    "mtime", "atime", "btime", "mode", "uid", "gid", "rdev", "uname", "gname"};

int
xattr_name_reserved(const char *name, size_t n)
{
	size_t i;

	if (n >= 6 && strncmp(name, "ferry-", 6) == 0)
		return 1;
	for (i = 0; i < sizeof(RESERVED) / sizeof(RESERVED[0]); i++)
		if (strlen(RESERVED[i]) == n &&
		    memcmp(RESERVED[i], name, n) == 0)
			return 1;
	return 0;
}

/* An HTTP token's byte (RFC 9110), upper case letters aside. */
static int
token_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

const char *
xattr_name_refused(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0)
		return "an empty name";
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= 'A' && c <= 'Z')
			return "an upper case letter (S3 keeps names in lower "
			       "case)";
		if (!token_byte(c))
			return "a byte no metadata name may hold";
	}
	if (xattr_name_reserved(name, n))
		return "a name ferry or rclone keep their own metadata under";
	return NULL;
}

/* Whether v (n bytes) is UTF-8 text: well formed, no control byte. */
static int
utf8_text(const uint8_t *v, size_t n)
{
	size_t i = 0, k, more;
	uint32_t c;

	while (i < n) {
		c = v[i];
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return 0;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			more = 1, c &= 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			more = 2, c &= 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			more = 3, c &= 0x07;
		else
			return 0;
		if (n - i <= more)
			return 0;
		for (k = 1; k <= more; k++) {
			if ((v[i + k] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (v[i + k] & 0x3f);
		}
		/* overlong forms, surrogates, past U+10FFFF */
		if ((more == 2 && c < 0x800) || (more == 3 && c < 0x10000) ||
		    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
			return 0;
		i += more + 1;
	}
	return 1;
}

/* Whether v (n bytes) goes as it is. */
static int
plain(const uint8_t *v, size_t n)
{
	size_t i;

	if (n == 0 || v[0] == ' ' || v[n - 1] == ' ' ||
	    (n >= 2 && v[0] == '=' && v[1] == '?'))
		return 0;
	for (i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return 0;
	return 1;
}

ferry_err
xattr_value_encode(const uint8_t *v, size_t n, struct buf *out)
{
	char *b64;
	ferry_err e;

	if (plain(v, n))
		return buf_append(out, v, n);
	if ((b64 = malloc(4 * ((n + 2) / 3) + 1)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	remote_base64(v, n, b64);
	if ((e = buf_puts(
	         out, utf8_text(v, n) ? "=?UTF-8?B?" : "=?X-BINARY?B?")) ==
	        FERRY_OK &&
	    (e = buf_puts(out, b64)) == FERRY_OK)
		e = buf_puts(out, "?=");
	free(b64);
	return e;
}

/* The value of a base64 byte, or -1. */
static int
b64_value(char c)
{
	const char *p;

	if (c == '\0' || (p = strchr(B64, c)) == NULL)
		return -1;
	return (int)(p - B64);
}

/* Strict base64 of s (n bytes, a multiple of 4) into out. */
static int
b64_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *len)
{
	size_t i, k, pad, o = 0;
	uint32_t w;
	int d;

	if (n % 4 != 0)
		return -1;
	for (i = 0; i < n; i += 4) {
		pad = 0;
		w = 0;
		for (k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == n && k >= 2 &&
			    (k == 3 || s[i + 3] == '=')) {
				pad++;
				w <<= 6;
				continue;
			}
			if (pad > 0 || (d = b64_value(s[i + k])) < 0)
				return -1;
			w = w << 6 | (uint32_t)d;
		}
		/* the bits padding leaves over are zero: one form only */
		if ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))
			return -1;
		if (o + 3 - pad > cap)
			return -1;
		out[o++] = (uint8_t)(w >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(w >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)w;
	}
	*len = o;
	return 0;
}

int
xattr_value_decode(
    const char *s, size_t n, uint8_t *out, size_t cap, size_t *len)
{
	const char *cs, *end;
	size_t head;

	*len = 0;
	if (n < 2 || s[0] != '=' || s[1] != '?') {
		if (n > cap || memchr(s, '\0', n) != NULL)
			return -1;
		memcpy(out, s, n);
		*len = n;
		return 0;
	}
	cs = s + 2;
	if (n >= 10 && strncasecmp(cs, "UTF-8?B?", 8) == 0)
		head = 10;
	else if (n >= 13 && strncasecmp(cs, "X-BINARY?B?", 11) == 0)
		head = 13;
	else
		return -1;
	end = s + n;
	if (n < head + 2 || end[-2] != '?' || end[-1] != '=')
		return -1;
	if (b64_decode(s + head, n - head - 2, out, cap, len) != 0) {
		*len = 0;
		return -1;
	}
	return 0;
}
