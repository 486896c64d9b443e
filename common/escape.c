/*
 * escape.c: bytes from outside (keys, paths, a server's messages) made
 * safe to show as text, so that no key can move a terminal's cursor,
 * change its colours or forge a line of a log.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

/*
 * Whether cp is a format control that reorders text on screen: the
 * marks (U+061C, U+200E, U+200F), embeddings and overrides (U+202A to
 * U+202E) and isolates (U+2066 to U+2069).  A name holding one could
 * show as another (U+202E turns "exe.txt" around).
 */
static int
is_bidi(long cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * Looks at the bytes at u (n > 0 left).  Returns how many of them are
 * consumed; when they must not be shown as they are, esc receives their
 * escape (at most 4 bytes per byte consumed, no NUL) and *esclen its
 * length, else *esclen is 0 and the bytes consumed show as themselves.
 */
static size_t
escape_next(const unsigned char *u, size_t n, char esc[8], size_t *esclen)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, len;
	long cp;

	*esclen = 0;
	while (i < n) {
		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\\') {
			i++;
			continue;
		}
		/* C1 controls (U+0080 to U+009F) move some terminals too;
		 * a bidi control goes as its bytes, each escaped */
		if (u[i] >= 0x80 &&
		    (cp = utf8_next(u + i, n - i, &len)) >= 0xa0 &&
		    !is_bidi(cp)) {
			i += len;
			continue;
		}
		break;
	}
	if (i > 0)
		return i;
	esc[0] = '\\';
	*esclen = 2;
	switch (u[0]) {
	case '\\':
		esc[1] = '\\';
		return 1;
	case '\t':
		esc[1] = 't';
		return 1;
	case '\n':
		esc[1] = 'n';
		return 1;
	case '\r':
		esc[1] = 'r';
		return 1;
	}
	esc[1] = 'x';
	esc[2] = hex[u[0] >> 4];
	esc[3] = hex[u[0] & 0xf];
	*esclen = 4;
	return 1;
}

size_t
text_escape(char *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, used, esclen, len = 0;
	char esc[8];

	while (i < n) {
		used = escape_next(u + i, n - i, esc, &esclen);
		if (esclen == 0) {
			memcpy(out + len, s + i, used);
			len += used;
		} else {
			memcpy(out + len, esc, esclen);
			len += esclen;
		}
		i += used;
	}
	out[len] = '\0';
	return len;
}

int
text_print(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, used, esclen;
	char esc[8];

	while (i < n) {
		used = escape_next(u + i, n - i, esc, &esclen);
		if (esclen == 0 && fwrite(s + i, 1, used, f) != used)
			return -1;
		if (esclen != 0 && fwrite(esc, 1, esclen, f) != esclen)
			return -1;
		i += used;
	}
	return 0;
}
