/*
 * fuzz_xml_versions.c: the ListObjectVersions reply parser
 * (remote/versions.c) on arbitrary bytes: each version it hands out has a
 * key of at most 1024 bytes without NUL, a version id and a date; a delete
 * marker has no size and no ETag; a failed parse hands out no markers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
on_version(const struct xml_version *v, void *arg)
{
	if (v->key_len == 0 || v->key_len > XML_KEY_MAX ||
	    memchr(v->key, '\0', v->key_len) != NULL ||
	    v->version_id[0] == '\0' || v->last_modified[0] == '\0' ||
	    (v->delete_marker && (v->size != 0 || v->etag[0] != '\0')))
		abort();
	(*(size_t *)arg)++;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *key = (char *)1, *id = (char *)1;
	size_t n = 0;
	int trunc;
	ferry_err e;

	e = xml_list_versions_parse(
	    (const char *)data, size, on_version, &n, &trunc, &key, &id);
	if (e != FERRY_OK && (key != NULL || id != NULL))
		abort();
	if (e == FERRY_OK && trunc && key == NULL)
		abort();
	free(key);
	free(id);
	return 0;
}
