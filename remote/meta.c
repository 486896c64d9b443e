/*
 * meta.c: the headers that describe an object (its type, caching and
 * encoding headers, its user metadata), kept from a HEAD or GET of it so
 * that a copy made by parts or streamed from elsewhere carries them as
 * CopyObject would.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote/internal.h"

#define META_PREFIX "x-amz-meta-"
#define META_PREFIX_LEN 11

/* Whether a reply header is kept for a copy: a token, and one of these. */
static int
is_meta(const char *name, size_t n)
{
	static const char *const names[] = {"content-type", "cache-control",
	    "content-disposition", "content-encoding", "content-language",
	    "expires", NULL};
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' ||
		    (unsigned char)name[i] >= 0x7f)
			return 0;
	if (n > META_PREFIX_LEN &&
	    strncasecmp(name, META_PREFIX, META_PREFIX_LEN) == 0)
		return 1;
	for (i = 0; names[i]; i++)
		if (strlen(names[i]) == n &&
		    strncasecmp(names[i], name, n) == 0)
			return 1;
	return 0;
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void
meta_take(struct remote_req *q, const char *p, size_t len)
{
	struct remote_resp *s = &q->resp;
	const char *colon = memchr(p, ':', len), *v;
	size_t n, vlen, i;
	char c;

	if (colon == NULL || !is_meta(p, (size_t)(colon - p)))
		return;
	n = (size_t)(colon - p);
	v = colon + 1;
	vlen = len - n - 1;
	while (vlen && is_blank(*v)) {
		v++;
		vlen--;
	}
	while (vlen && is_blank(v[vlen - 1]))
		vlen--;
	/* a NUL or a line break in a value could not be sent back */
	if (memchr(v, '\0', vlen) || memchr(v, '\n', vlen) ||
	    memchr(v, '\r', vlen))
		return;
	for (i = 0; i < n && !s->meta_overflow; i++) {
		c = p[i] >= 'A' && p[i] <= 'Z' ? (char)(p[i] - 'A' + 'a')
		                               : p[i];
		s->meta_overflow = buf_append(&s->meta, &c, 1) != FERRY_OK;
	}
	if (!s->meta_overflow &&
	    (buf_puts(&s->meta, ": ") != FERRY_OK ||
	        buf_append(&s->meta, v, vlen) != FERRY_OK ||
	        buf_puts(&s->meta, "\n") != FERRY_OK))
		s->meta_overflow = 1;
}

void
remote_req_keep_meta(struct remote_req *q)
{
	q->keep_meta = 1;
}

ferry_err
remote_req_meta_headers(struct remote_req *q, const char *meta, int own_only)
{
	const char *line, *end, *next, *colon, *v;
	char *name, *value;
	ferry_err e = FERRY_OK;

	for (line = meta; *line != '\0' && e == FERRY_OK; line = next) {
		end = strchr(line, '\n');
		next = end ? end + 1 : line + strlen(line);
		if (end == NULL)
			end = next;
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon == NULL || colon == line ||
		    (own_only && strncmp(line, "x-amz-meta-ferry-", 17) != 0))
			continue;
		v = colon + 1 < end && colon[1] == ' ' ? colon + 2 : colon + 1;
		name = strndup(line, (size_t)(colon - line));
		value = strndup(v, (size_t)(end - v));
		if (name == NULL || value == NULL)
			e = ferry_fail(FERRY_ENOMEM, "out of memory");
		else
			e = remote_req_header(q, name, value);
		free(name);
		free(value);
	}
	return e;
}
