/* buf.c: bounded dynamic buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void
buf_init(struct buf *b, size_t limit)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
}

/* Makes room for n more bytes and the NUL. */
static ferry_err
grow(struct buf *b, size_t n)
{
	size_t need, cap;
	char *p;

	if (n > b->limit || b->len > b->limit - n)
		return ferry_fail(FERRY_EPARSE,
		    "reply larger than the %zu-byte limit", b->limit);
	need = b->len + n + 1;
	if (need <= b->cap)
		return FERRY_OK;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (p == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	b->data = p;
	b->cap = cap;
	return FERRY_OK;
}

ferry_err
buf_append(struct buf *b, const void *p, size_t n)
{
	ferry_err e;

	if ((e = grow(b, n)) != FERRY_OK)
		return e;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return FERRY_OK;
}

ferry_err
buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

/*
 * Formats into the room already allocated, so that text that fits (the
 * usual case: a header, a path) is formatted once, not measured first.
 */
ferry_err
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;
	ferry_err e;

	if (b->cap == 0 && (e = grow(b, 0)) != FERRY_OK)
		return e;
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, room, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < room && (size_t)n <= b->limit &&
	    b->len <= b->limit - (size_t)n) {
		b->len += (size_t)n;
		return FERRY_OK;
	}
	b->data[b->len] = '\0';
	if (n < 0)
		return ferry_fail(FERRY_ESYS, "vsnprintf failed");
	if ((e = grow(b, (size_t)n)) != FERRY_OK)
		return e;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return FERRY_OK;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void
buf_free(struct buf *b)
{
	if (b == NULL)
		return;
	free(b->data);
	buf_init(b, b->limit);
}

void
buf_free_secret(struct buf *b)
{
	if (b == NULL)
		return;
	if (b->data)
		explicit_bzero(b->data, b->cap);
	buf_free(b);
}
