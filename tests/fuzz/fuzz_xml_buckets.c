/*
 * fuzz_xml_buckets.c: the ListBuckets reply parser (remote/xml_replies.c)
 * on arbitrary bytes: each bucket it hands out has a name of S3's
 * characters, and a failed parse hands out no continuation token.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/xml.h"

static int
on_bucket(const struct xml_bucket *b, void *arg)
{
	size_t n = strlen(b->name), i;

	if (n == 0 || n > 255 || b->created == NULL)
		abort();
	for (i = 0; i < n; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_",
		        b->name[i]) == NULL)
			abort();
	(*(size_t *)arg)++;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *token = (char *)1;
	size_t n = 0;
	ferry_err e;

	e = xml_list_buckets_parse(
	    (const char *)data, size, on_bucket, &n, &token);
	if (e != FERRY_OK && token != NULL)
		abort();
	if (token != NULL && (token[0] == '\0' || strlen(token) > 2048))
		abort();
	free(token);
	return 0;
}
