/* util.c: sizes, hex, strings, clocks. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

/* Returns the shift for a K/M/G/T suffix, 0 for none, -1 if unknown. */
static int
suffix_shift(const char *s)
{
	int shift;

	switch (toupper((unsigned char)*s)) {
	case '\0':
		return 0;
	case 'B':
		return s[1] == '\0' ? 0 : -1;
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -1;
	}
	s++;
	if (*s == 'i' || *s == 'I')
		s++;
	if (*s == 'B' || *s == 'b')
		s++;
	return *s == '\0' ? shift : -1;
}

ferry_err
parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift;

	*out = 0;
	if (s == NULL || !isdigit((unsigned char)*s))
		return ferry_fail(
		    FERRY_EUSAGE, "invalid size '%s'", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return ferry_fail(FERRY_EUSAGE, "size '%s' is too large", s);
	shift = suffix_shift(end);
	if (shift < 0)
		return ferry_fail(FERRY_EUSAGE, "invalid size '%s'", s);
	if (shift && v > (UINT64_MAX >> shift))
		return ferry_fail(FERRY_EUSAGE, "size '%s' is too large", s);
	*out = (uint64_t)v << shift;
	return FERRY_OK;
}

void
format_size(uint64_t n, char *out, size_t outlen)
{
	static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, outlen, "%llu B", (unsigned long long)n);
	else
		snprintf(out, outlen, "%.1f %s", v, units[u]);
}

int
array_grow(void **a, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *b;

	if (n < *cap)
		return 0;
	if (c < *cap || c > SIZE_MAX / sz || (b = realloc(*a, c * sz)) == NULL)
		return -1;
	*a = b;
	*cap = c;
	return 0;
}

void
hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
hex_decode(const char *s, uint8_t *out, size_t n)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if ((hi = hex_value((unsigned char)s[2 * i])) < 0 ||
		    (lo = hex_value((unsigned char)s[2 * i + 1])) < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/*
 * Returns the code point of the UTF-8 sequence at u (n > 0 bytes left) and
 * its length in *len, or -1 for bytes that are not well-formed UTF-8
 * (overlong forms, surrogates and values past U+10FFFF included).
 */
long
utf8_next(const unsigned char *u, size_t n, size_t *len)
{
	size_t need, i;
	long cp;

	if (u[0] < 0x80) {
		*len = 1;
		return u[0];
	}
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		need = 1, cp = u[0] & 0x1F;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		need = 2, cp = u[0] & 0x0F;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		need = 3, cp = u[0] & 0x07;
	else
		return -1;
	if (n <= need)
		return -1;
	for (i = 1; i <= need; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return -1;
		cp = cp << 6 | (u[i] & 0x3F);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
	    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	*len = need + 1;
	return cp;
}

int
ferry_tmp_name(const char *name, size_t n)
{
	size_t plen = sizeof(FERRY_TMP_PREFIX) - 1, i;

	if (n != plen + FERRY_TMP_DIGITS ||
	    memcmp(name, FERRY_TMP_PREFIX, plen) != 0)
		return 0;
	for (i = plen; i < n; i++)
		if (!((name[i] >= '0' && name[i] <= '9') ||
		        (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	return 1;
}

long
ctl_find(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') ||
		    s[i] == 0x7f)
			return (long)i;
	return -1;
}

char *
xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

void
free_secret(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

int64_t
now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
