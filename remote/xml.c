/*
 * xml.c: the streaming ListObjectsV2 parser, on the SAX engine of
 * xml_sax.c (which reads S3 <Error> documents too).
 */
#include <stdlib.h>
#include <string.h>

#include "xml_sax.h"

/*
 * Bytes one list page may take.  expat holds a whole token (a comment, a
 * tag with its attributes) in memory, so the stream itself is bounded.
 */
#define LIST_BYTES_MAX ((uint64_t)64 << 20)

/* ListObjectsV2 */

enum { L_KEY, L_SIZE, L_ETAG, L_MTIME, L_TRUNC, L_TOKEN, L_CLASS };

struct xml_list {
	struct xml_sax s;
	xml_list_fn fn;
	void *arg;
	int done; /* the final feed parsed cleanly */
};

static ferry_err
list_record(struct xml_sax *s, int kind)
{
	struct xml_list *p = s->ctx;
	struct xml_list_entry x;
	ferry_err e;

	(void)kind;
	if (!xml_sax_has(s, L_SIZE))
		return ferry_fail(FERRY_EPARSE, "<Contents> without <Size>");
	if ((e = xml_sax_key(s, L_KEY, &x.key, &x.key_len)) != FERRY_OK ||
	    (e = xml_sax_u64("Size", xml_sax_str(s, L_SIZE), &x.size)) !=
	        FERRY_OK)
		return e;
	x.etag = xml_sax_str(s, L_ETAG);
	x.last_modified = xml_sax_str(s, L_MTIME);
	x.storage_class = xml_sax_str(s, L_CLASS);
	if (p->fn(&x, p->arg) != 0)
		return ferry_fail(
		    FERRY_ECANCEL, "listing stopped by its reader");
	return FERRY_OK;
}

static const struct xml_rule list_rules[] = {
    {"Contents/Key", L_KEY, XML_KEY_RAW_MAX, 0},
    {"Contents/Size", L_SIZE, XML_FIELD_MAX, 0},
    {"Contents/ETag", L_ETAG, XML_FIELD_MAX, 0},
    {"Contents/LastModified", L_MTIME, XML_FIELD_MAX, 0},
    {"Contents/StorageClass", L_CLASS, XML_FIELD_MAX, 0},
    {"IsTruncated", L_TRUNC, XML_FIELD_MAX, 0},
    {"NextContinuationToken", L_TOKEN, XML_FIELD_MAX, 0},
    {"EncodingType", XML_SAX_ENC, XML_FIELD_MAX, 0},
};

static const struct xml_record list_records[] = {
    {"Contents", 0,
        XML_BIT(L_KEY) | XML_BIT(L_SIZE) | XML_BIT(L_ETAG) | XML_BIT(L_MTIME) |
            XML_BIT(L_CLASS)},
};

static const char *const list_roots[] = {"ListBucketResult", NULL};

static const struct xml_sax_spec list_spec = {list_roots, list_rules,
    XML_NELEM(list_rules), list_records, XML_NELEM(list_records), list_record};

ferry_err
xml_list_new(xml_list_fn fn, void *arg, struct xml_list **out)
{
	struct xml_list *p;
	ferry_err e;

	*out = NULL;
	if ((p = malloc(sizeof(*p))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = xml_sax_init(&p->s, &list_spec, p)) != FERRY_OK) {
		xml_list_free(p);
		return e;
	}
	p->fn = fn;
	p->arg = arg;
	p->done = 0;
	*out = p;
	return FERRY_OK;
}

ferry_err
xml_list_feed(struct xml_list *p, const char *data, size_t len, int final)
{
	struct xml_sax *s = &p->s;
	ferry_err e;

	if (s->err != FERRY_OK)
		return s->err;
	if (p->done)
		return ferry_fail(FERRY_EPARSE, "list page fed after its end");
	if (len > LIST_BYTES_MAX - s->fed) {
		s->err =
		    ferry_fail(FERRY_EPARSE, "list page larger than %llu bytes",
		        (unsigned long long)LIST_BYTES_MAX);
		return s->err;
	}
	s->fed += len;
	if ((e = xml_sax_feed(s, data, len, final)) != FERRY_OK || !final)
		return e;
	p->done = 1;
	if (s->is_error)
		s->err = xml_sax_error_reply(s, NULL);
	return s->err;
}

ferry_err
xml_list_finish(struct xml_list *p, struct xml_list_info *info)
{
	struct xml_sax *s = &p->s;
	ferry_err e;

	memset(info, 0, sizeof(*info));
	if (s->err != FERRY_OK)
		return s->err;
	if (!p->done)
		return ferry_fail(FERRY_EPARSE, "list page ended early");
	if ((e = xml_sax_truncated(s, L_TRUNC, &info->truncated)) != FERRY_OK)
		return e;
	if (info->truncated && s->slot[L_TOKEN].len == 0) {
		info->truncated = 0;
		return ferry_fail(FERRY_EPARSE,
		    "list page truncated without NextContinuationToken");
	}
	if (s->slot[L_TOKEN].len > 0 &&
	    (e = xml_sax_dup(s, L_TOKEN, &info->next_token)) != FERRY_OK) {
		info->truncated = 0;
		return e;
	}
	info->key_count = s->emitted;
	return FERRY_OK;
}

void
xml_list_free(struct xml_list *p)
{
	if (p == NULL)
		return;
	xml_sax_free(&p->s);
	free(p);
}
