/*
 * fuzz_meta.c: reply header lines kept as an object's metadata (meta.c),
 * then added to a request: what is kept stays within its bound, names are
 * lower case, and every kept line comes back as one header, unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"

/* Feeds data as header lines, each ended by CRLF as curl passes them. */
static void
feed(struct remote_req *q, const char *d, size_t n)
{
	const char *end;
	char *line;
	size_t len;

	while (n > 0) {
		end = memchr(d, '\n', n);
		len = end ? (size_t)(end - d) : n;
		if ((line = malloc(len + 2)) == NULL)
			return;
		memcpy(line, d, len);
		memcpy(line + len, "\r\n", 2);
		meta_take(q, line, len + 2);
		free(line);
		d += end ? len + 1 : len;
		n -= end ? len + 1 : len;
	}
}

static void
check_kept(const struct remote_resp *s)
{
	const char *p = s->meta.data ? s->meta.data : "", *c;

	if (s->meta.len > REMOTE_META_MAX || strlen(p) != s->meta.len)
		abort();
	for (; *p; p = strchr(p, '\n') + 1) {
		if (strchr(p, '\n') == NULL || (c = strstr(p, ": ")) == NULL ||
		    c > strchr(p, '\n'))
			abort();
		for (; p < c; p++)
			if (*p >= 'A' && *p <= 'Z')
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct remote_req *q, *out;
	const char *p;
	size_t i, lines = 0;
	ferry_err e;

	q = remote_req_new(NULL, REMOTE_HEAD, "HEAD", "b", "k", 1);
	out = remote_req_new(NULL, REMOTE_PUT, "PUT", "b", "k", 1);
	if (q == NULL || out == NULL)
		goto out;
	remote_req_keep_meta(q);
	feed(q, (const char *)data, size);
	check_kept(&q->resp);
	if (q->resp.meta_overflow || q->resp.meta.data == NULL)
		goto out;
	for (p = q->resp.meta.data; *p; p++)
		lines += *p == '\n';
	e = remote_req_meta_headers(out, q->resp.meta.data, 0);
	if (e != FERRY_OK && !(e == FERRY_EUSAGE && lines > REMOTE_MAX_HEADERS))
		abort();
	if (e != FERRY_OK)
		goto out;
	p = q->resp.meta.data;
	for (i = 0; i < out->nheaders; i++) {
		size_t nl = strlen(out->headers[i].name);
		size_t vl = strlen(out->headers[i].value);
		if (strncmp(p, out->headers[i].name, nl) != 0 ||
		    strncmp(p + nl, ": ", 2) != 0 ||
		    strncmp(p + nl + 2, out->headers[i].value, vl) != 0 ||
		    p[nl + 2 + vl] != '\n')
			abort();
		p += nl + 3 + vl;
	}
	if (*p != '\0' || out->nheaders != lines)
		abort();
out:
	remote_req_free(q);
	remote_req_free(out);
	return 0;
}
