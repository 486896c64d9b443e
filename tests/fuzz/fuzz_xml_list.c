/*
 * fuzz_xml_list.c: the streaming ListObjectsV2 parser, fed the input in
 * pieces whose boundaries come from the input itself.
 *
 * Layout: byte 0 picks the split (the first piece's length is byte 0 times
 * the input length / 256), byte 1 sets a chunk size for the rest (0: one
 * byte at a time) and which entry, if any, the reader stops at.
 *
 * Each entry's LastModified, and then the input itself as a string, go
 * through the time parser (remote/list.c) that ferry runs on them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"
#include "remote/xml.h"
#include "tests/fuzz/fuzz.h"

/* 0000-01-01T00:00:00Z and 9999-12-31T23:59:60Z, the range it can give */
#define TIME_MIN (-62167219200LL)
#define TIME_MAX 253402300800LL

struct seen {
	uint64_t n;
	uint64_t stop_at;
	uint64_t sum;
};

static void
check_time(const char *s)
{
	int64_t t = remote_parse_time(s);

	if (t != -1 && (t < TIME_MIN || t > TIME_MAX))
		abort();
}

static int
on_entry(const struct xml_list_entry *e, void *arg)
{
	struct seen *s = arg;
	size_t i;

	/* what the parser promises: bounded keys without NUL, strings */
	if (e->key == NULL || e->key_len == 0 || e->key_len > XML_KEY_MAX ||
	    strlen(e->key) != e->key_len || e->etag == NULL ||
	    e->last_modified == NULL)
		abort();
	for (i = 0; i < e->key_len; i++)
		s->sum += (unsigned char)e->key[i];
	s->sum += strlen(e->etag) + strlen(e->last_modified) + e->size;
	check_time(e->last_modified);
	s->n++;
	return s->stop_at != 0 && s->n == s->stop_at;
}

static ferry_err
feed_all(struct xml_list *p, const uint8_t *data, size_t size, size_t split,
    size_t chunk)
{
	const char *d = (const char *)data;
	size_t off, n;
	ferry_err e;

	if ((e = xml_list_feed(p, d, split, 0)) != FERRY_OK)
		return e;
	for (off = split; off < size; off += n) {
		n = size - off < chunk ? size - off : chunk;
		if ((e = xml_list_feed(p, d + off, n, 0)) != FERRY_OK)
			return e;
	}
	return xml_list_feed(p, NULL, 0, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xml_list_info info;
	struct xml_list *p;
	struct seen s = {0, 0, 0};
	size_t split, chunk;
	char *str;
	ferry_err e, f;

	if (size < 2)
		return 0;
	split = (size_t)data[0] * (size - 2) / 256;
	chunk = data[1] & 0x3f ? (size_t)(data[1] & 0x3f) * 97 : 1;
	s.stop_at = data[1] >> 6;
	data += 2;
	size -= 2;
	if (xml_list_new(on_entry, &s, &p) != FERRY_OK)
		return 0;
	e = feed_all(p, data, size, split, chunk);
	f = xml_list_finish(p, &info);
	if (e != FERRY_OK && f != e)
		abort();
	if (f != FERRY_OK && (info.next_token != NULL || info.truncated))
		abort();
	if (f == FERRY_OK && (info.key_count != s.n ||
	                         (info.truncated && info.next_token == NULL)))
		abort();
	free(info.next_token);
	xml_list_free(p);
	str = fuzz_cstr(data, size);
	check_time(str);
	free(str);
	return 0;
}
