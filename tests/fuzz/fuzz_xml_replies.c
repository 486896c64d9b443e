/*
 * fuzz_xml_replies.c: every one-shot reply parser on the same input, the
 * region of a wrong-region reply read from it (as body and as header), and
 * the DeleteObjects body builder, whose output must read back as the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/config.h"
#include "remote/region.h"
#include "remote/xml.h"

static int
on_part(const struct xml_part *p, void *arg)
{
	if (p->number == 0 || strlen(p->etag) >= sizeof(p->etag))
		abort();
	*(uint64_t *)arg += p->size;
	return 0;
}

static int
on_upload(const struct xml_upload *u, void *arg)
{
	if (u->key_len == 0 || u->key_len > XML_KEY_MAX ||
	    strlen(u->key) != u->key_len || u->upload_id[0] == '\0')
		abort();
	*(uint64_t *)arg += u->key_len;
	return 0;
}

static int
on_deleted(const struct xml_deleted *d, void *arg)
{
	if (d->key_len == 0 || strlen(d->key) != d->key_len ||
	    (!d->ok && (d->code == NULL || d->message == NULL)))
		abort();
	*(uint64_t *)arg += d->key_len;
	return 0;
}

/* An <Error> reply must give FERRY_ES3, and err only then. */
static void
check_err(ferry_err e, struct xml_error *err)
{
	if (e != FERRY_ES3 && (err->code || err->message || err->key))
		abort();
	xml_error_clear(err);
}

static void
single_results(const char *d, size_t n)
{
	struct xml_error err;
	char *a, *b;
	ferry_err e;

	e = xml_error_parse(d, n, &err);
	if (e != FERRY_OK && err.code != NULL)
		abort();
	xml_error_clear(&err);
	e = xml_initiate_parse(d, n, &a, &err);
	if ((e == FERRY_OK) != (a != NULL) || (a && a[0] == '\0'))
		abort();
	free(a);
	check_err(e, &err);
	e = xml_complete_parse(d, n, &a, &err);
	if ((e == FERRY_OK) != (a != NULL))
		abort();
	free(a);
	check_err(e, &err);
	e = xml_copy_parse(d, n, &a, &b, &err);
	if ((e == FERRY_OK) != (a != NULL && b != NULL))
		abort();
	free(a);
	free(b);
	check_err(e, &err);
}

static void
lists(const char *d, size_t n)
{
	uint64_t sum = 0;
	uint32_t next;
	char *k, *u;
	int trunc;

	if (xml_list_parts_parse(d, n, on_part, &sum, &trunc, &next) !=
	        FERRY_OK &&
	    (trunc || next))
		abort();
	if (xml_list_uploads_parse(d, n, on_upload, &sum, &trunc, &k, &u) !=
	        FERRY_OK &&
	    (trunc || k || u))
		abort();
	free(k);
	free(u);
	(void)xml_delete_result_parse(d, n, on_deleted, &sum);
}

/* A region read from a reply is a region name other than the signed one. */
static void
check_region(enum region_reply k, const char *out)
{
	if ((k == REGION_NAMED) != (out[0] != '\0'))
		abort();
	if (k == REGION_NAMED &&
	    (!region_valid(out) || strcmp(out, "us-east-1") == 0))
		abort();
}

static void
regions(const char *d, size_t n)
{
	static const long statuses[] = {301, 400, 403};
	char out[REGION_MAX], header[REGION_MAX + 8];
	size_t i;

	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		check_region(
		    region_from_reply(statuses[i], "", d, n, "us-east-1", out),
		    out);
	snprintf(header, sizeof(header), "%.*s", (int)n, d);
	check_region(
	    region_from_reply(301, header, NULL, 0, "us-east-1", out), out);
}

struct echo {
	const char *key;
	size_t len;
	int found;
};

static int
on_echo(const struct xml_deleted *d, void *arg)
{
	struct echo *x = arg;

	if (d->key_len != x->len || memcmp(d->key, x->key, x->len) != 0)
		abort();
	x->found++;
	return 0;
}

/* A key the builder accepts must come back unchanged through a parser. */
static void
round_trip(const char *d, size_t n)
{
	struct echo x = {d, n, 0};
	struct buf body, reply;
	const char *k, *end;

	buf_init(&body, 1u << 20);
	buf_init(&reply, 1u << 20);
	if (n == 0 || n > XML_KEY_MAX ||
	    xml_delete_body(&body, &d, &n, NULL, 1) != FERRY_OK)
		goto out;
	k = strstr(body.data, "<Key>");
	end = strstr(body.data, "</Object>");
	if (k == NULL || end == NULL ||
	    buf_puts(&reply, "<DeleteResult><Deleted>") != FERRY_OK ||
	    buf_append(&reply, k, (size_t)(end - k)) != FERRY_OK ||
	    buf_puts(&reply, "</Deleted></DeleteResult>") != FERRY_OK)
		abort();
	if (xml_delete_result_parse(reply.data, reply.len, on_echo, &x) !=
	        FERRY_OK ||
	    x.found != 1)
		abort();
out:
	buf_free(&body);
	buf_free(&reply);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	struct xml_error x;

	/* every <Error> document is seen as one by the 200's check */
	if (xml_error_parse(d, size, &x) == FERRY_OK && !xml_is_error(d, size))
		abort();
	xml_error_clear(&x);
	single_results(d, size);
	lists(d, size);
	regions(d, size);
	round_trip(d, size);
	return 0;
}
