/*
 * fuzz_uri.c: uri_decode() on arbitrary bytes (keys listed with
 * encoding-type=url come from the server), and the uri_encode() ->
 * uri_decode() round trip, which must give back the input exactly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/url.h"

#define LIMIT (1 << 20)

static int
escape_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
	       c == '~' || c == '%' || c == '/';
}

/* Decodes in, then re-encodes and re-decodes what came out. */
static void
decode_input(const char *in, size_t n, int plus_is_space)
{
	struct buf d, e, d2;

	buf_init(&d, LIMIT);
	buf_init(&e, LIMIT);
	buf_init(&d2, LIMIT);
	if (uri_decode(&d, in, n, plus_is_space) != FERRY_OK) {
		if (d.len != 0)
			abort();
		goto out;
	}
	if (d.len > n)
		abort();
	if (uri_encode(&e, d.data, d.len, 0) != FERRY_OK ||
	    uri_decode(&d2, e.data, e.len, plus_is_space) != FERRY_OK)
		abort();
	if (d2.len != d.len || (d.len > 0 && memcmp(d.data, d2.data, d.len)))
		abort();
out:
	buf_free(&d);
	buf_free(&e);
	buf_free(&d2);
}

/* Encodes in and checks the encoding's alphabet and its decoding. */
static void
round_trip(const char *in, size_t n, int keep_slash, int plus_is_space)
{
	struct buf e, d;
	size_t i;

	buf_init(&e, 3 * LIMIT);
	buf_init(&d, LIMIT);
	if (uri_encode(&e, in, n, keep_slash) != FERRY_OK)
		abort();
	for (i = 0; i < e.len; i++)
		if (!escape_char((unsigned char)e.data[i]) ||
		    (e.data[i] == '/' && !keep_slash))
			abort();
	if (uri_decode(&d, e.data, e.len, plus_is_space) != FERRY_OK)
		abort();
	if (d.len != n || (n > 0 && memcmp(d.data, in, n) != 0))
		abort();
	buf_free(&e);
	buf_free(&d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;

	if (size > LIMIT)
		return 0;
	decode_input(in, size, 0);
	decode_input(in, size, 1);
	round_trip(in, size, 0, 0);
	round_trip(in, size, 1, 1);
	return 0;
}
