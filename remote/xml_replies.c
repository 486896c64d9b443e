/*
 * xml_replies.c: the small replies of multipart uploads, copies and
 * ListBuckets, each a table for the SAX engine of xml_sax.c (DeleteObjects'
 * is in ops_delete.c).
 */
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"
#include "xml_sax.h"

/* Single results: InitiateMultipartUpload, CompleteMultipartUpload, Copy */

static void
error_init(struct xml_error *err)
{
	if (err != NULL)
		memset(err, 0, sizeof(*err));
}

ferry_err
xml_initiate_parse(
    const char *body, size_t len, char **upload_id, struct xml_error *err)
{
	static const char *const roots[] = {
	    "InitiateMultipartUploadResult", NULL};
	static const struct xml_rule rules[] = {
	    {"UploadId", 0, XML_FIELD_MAX, 0}};
	static const struct xml_sax_spec spec = {
	    roots, rules, 1, NULL, 0, NULL};
	struct xml_sax s;
	ferry_err e;

	*upload_id = NULL;
	error_init(err);
	if ((e = xml_sax_init(&s, &spec, NULL)) != FERRY_OK)
		goto out;
	if ((e = xml_sax_reply(&s, body, len, err)) != FERRY_OK)
		goto out;
	if (s.slot[0].len == 0) {
		e = ferry_fail(FERRY_EPARSE, "no <UploadId> in the reply");
		goto out;
	}
	e = xml_sax_dup(&s, 0, upload_id);
out:
	xml_sax_free(&s);
	return e;
}

ferry_err
xml_complete_parse(
    const char *body, size_t len, char **etag, struct xml_error *err)
{
	static const char *const roots[] = {
	    "CompleteMultipartUploadResult", NULL};
	static const struct xml_rule rules[] = {{"ETag", 0, XML_FIELD_MAX, 0}};
	static const struct xml_sax_spec spec = {
	    roots, rules, 1, NULL, 0, NULL};
	struct xml_sax s;
	ferry_err e;

	*etag = NULL;
	error_init(err);
	if ((e = xml_sax_init(&s, &spec, NULL)) != FERRY_OK)
		goto out;
	if ((e = xml_sax_reply(&s, body, len, err)) != FERRY_OK)
		goto out;
	/* some servers send <ETag></ETag> or none: the caller then HEADs */
	if ((*etag = strdup(xml_sax_str(&s, 0))) == NULL)
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
out:
	xml_sax_free(&s);
	return e;
}

ferry_err
xml_copy_parse(const char *body, size_t len, char **etag, char **last_modified,
    struct xml_error *err)
{
	static const char *const roots[] = {
	    "CopyObjectResult", "CopyPartResult", NULL};
	static const struct xml_rule rules[] = {{"ETag", 0, XML_FIELD_MAX, 0},
	    {"LastModified", 1, XML_FIELD_MAX, 0}};
	static const struct xml_sax_spec spec = {
	    roots, rules, 2, NULL, 0, NULL};
	struct xml_sax s;
	ferry_err e;

	*etag = NULL;
	*last_modified = NULL;
	error_init(err);
	if ((e = xml_sax_init(&s, &spec, NULL)) != FERRY_OK)
		goto out;
	if ((e = xml_sax_reply(&s, body, len, err)) != FERRY_OK)
		goto out;
	if (!xml_sax_has(&s, 0)) {
		e = ferry_fail(FERRY_EPARSE, "no <ETag> in the copy reply");
		goto out;
	}
	if ((*etag = strdup(xml_sax_str(&s, 0))) == NULL ||
	    (*last_modified = strdup(xml_sax_str(&s, 1))) == NULL)
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
out:
	if (e != FERRY_OK) {
		free(*etag);
		*etag = NULL;
	}
	xml_sax_free(&s);
	return e;
}

/* ListParts */

enum { P_NUMBER, P_SIZE, P_ETAG, P_TRUNC, P_NEXT };

static ferry_err
part_record(struct xml_sax *s, int kind)
{
	struct xml_page *c = s->ctx;
	struct xml_part part;
	uint64_t n;
	ferry_err e;

	(void)kind;
	if (!xml_sax_has(s, P_NUMBER) || !xml_sax_has(s, P_SIZE))
		return ferry_fail(
		    FERRY_EPARSE, "<Part> without number or size");
	if ((e = xml_sax_u64("PartNumber", xml_sax_str(s, P_NUMBER), &n)) !=
	        FERRY_OK ||
	    (e = xml_sax_u64("Size", xml_sax_str(s, P_SIZE), &part.size)) !=
	        FERRY_OK)
		return e;
	if (n == 0 || n > REMOTE_MAX_PARTS)
		return ferry_fail(FERRY_EPARSE,
		    "ListParts: part number %llu, not from 1 to 10000",
		    (unsigned long long)n);
	if (part.size > REMOTE_MAX_PART_SIZE)
		return ferry_fail(FERRY_EPARSE,
		    "ListParts: part %llu of %llu bytes, more than 5 GiB",
		    (unsigned long long)n, (unsigned long long)part.size);
	if (s->slot[P_ETAG].len >= sizeof(part.etag))
		return ferry_fail(FERRY_EPARSE, "part ETag too long");
	part.number = (uint32_t)n;
	memcpy(part.etag, xml_sax_str(s, P_ETAG), s->slot[P_ETAG].len + 1);
	if (c->fn.part != NULL && c->fn.part(&part, c->arg) != 0)
		return ferry_fail(FERRY_ECANCEL, "part listing stopped");
	return FERRY_OK;
}

static ferry_err
parts_tail(struct xml_sax *s)
{
	struct xml_page *c = s->ctx;
	uint64_t n = 0;
	ferry_err e;

	if ((e = xml_sax_truncated(s, P_TRUNC, c->truncated)) != FERRY_OK)
		return e;
	if (xml_sax_has(s, P_NEXT) &&
	    (e = xml_sax_u64("NextPartNumberMarker", xml_sax_str(s, P_NEXT),
	         &n)) != FERRY_OK)
		return e;
	if (n > REMOTE_MAX_PARTS)
		return ferry_fail(FERRY_EPARSE,
		    "ListParts: NextPartNumberMarker %llu, not a part number",
		    (unsigned long long)n);
	if (*c->truncated && n == 0)
		return ferry_fail(FERRY_EPARSE,
		    "part list truncated without NextPartNumberMarker");
	*c->next_number = (uint32_t)n;
	return FERRY_OK;
}

ferry_err
xml_list_parts_parse(const char *body, size_t len, xml_part_fn fn, void *arg,
    int *truncated, uint32_t *next_marker)
{
	static const char *const roots[] = {"ListPartsResult", NULL};
	static const struct xml_rule rules[] = {
	    {"Part/PartNumber", P_NUMBER, XML_FIELD_MAX, 0},
	    {"Part/Size", P_SIZE, XML_FIELD_MAX, 0},
	    {"Part/ETag", P_ETAG, XML_FIELD_MAX, 0},
	    {"IsTruncated", P_TRUNC, XML_FIELD_MAX, 0},
	    {"NextPartNumberMarker", P_NEXT, XML_FIELD_MAX, 0},
	};
	static const struct xml_record records[] = {
	    {"Part", 0, XML_BIT(P_NUMBER) | XML_BIT(P_SIZE) | XML_BIT(P_ETAG)}};
	static const struct xml_sax_spec spec = {
	    roots, rules, XML_NELEM(rules), records, 1, part_record};
	struct xml_page pg = {.fn.part = fn,
	    .arg = arg,
	    .truncated = truncated,
	    .next_number = next_marker};
	ferry_err e;

	*truncated = 0;
	*next_marker = 0;
	if ((e = xml_sax_page(&spec, &pg, body, len, parts_tail)) != FERRY_OK) {
		*truncated = 0;
		*next_marker = 0;
	}
	return e;
}

/* ListMultipartUploads */

enum { U_KEY, U_ID, U_TRUNC, U_NEXT_KEY, U_NEXT_ID };

static ferry_err
upload_record(struct xml_sax *s, int kind)
{
	struct xml_page *c = s->ctx;
	struct xml_upload u;
	ferry_err e;

	(void)kind;
	if ((e = xml_sax_key(s, U_KEY, &u.key, &u.key_len)) != FERRY_OK)
		return e;
	if (s->slot[U_ID].len == 0)
		return ferry_fail(FERRY_EPARSE, "<Upload> without <UploadId>");
	u.upload_id = xml_sax_str(s, U_ID);
	if (c->fn.upload != NULL && c->fn.upload(&u, c->arg) != 0)
		return ferry_fail(FERRY_ECANCEL, "upload listing stopped");
	return FERRY_OK;
}

ferry_err
xml_list_uploads_parse(const char *body, size_t len, xml_upload_fn fn,
    void *arg, int *truncated, char **next_key_marker,
    char **next_upload_id_marker)
{
	static const char *const roots[] = {"ListMultipartUploadsResult", NULL};
	static const struct xml_rule rules[] = {
	    {"Upload/Key", U_KEY, XML_KEY_RAW_MAX, 0},
	    {"Upload/UploadId", U_ID, XML_FIELD_MAX, 0},
	    {"IsTruncated", U_TRUNC, XML_FIELD_MAX, 0},
	    {"NextKeyMarker", U_NEXT_KEY, XML_KEY_RAW_MAX, 0},
	    {"NextUploadIdMarker", U_NEXT_ID, XML_FIELD_MAX, 0},
	    {"EncodingType", XML_SAX_ENC, XML_FIELD_MAX, 0},
	};
	static const struct xml_record records[] = {
	    {"Upload", 0, XML_BIT(U_KEY) | XML_BIT(U_ID)}};
	static const int tail[3] = {U_TRUNC, U_NEXT_KEY, U_NEXT_ID};
	static const struct xml_sax_spec spec = {
	    roots, rules, XML_NELEM(rules), records, 1, upload_record};
	struct xml_page pg = {.fn.upload = fn,
	    .arg = arg,
	    .tail = tail,
	    .truncated = truncated,
	    .next_key = next_key_marker,
	    .next_id = next_upload_id_marker};

	return xml_sax_marker_page(&spec, &pg, body, len);
}

/* ListBuckets */

enum { B_NAME, B_CREATED, B_TOKEN };

#define BUCKET_NAME_MAX 255

struct buckets_ctx {
	xml_bucket_fn fn;
	void *arg;
};

/* Old us-east-1 buckets may hold capitals and '_': nothing else. */
static int
bucket_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > BUCKET_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		        (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
		        s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

static ferry_err
bucket_record(struct xml_sax *s, int kind)
{
	struct buckets_ctx *c = s->ctx;
	struct xml_bucket b;

	(void)kind;
	if (!bucket_name_ok(xml_sax_str(s, B_NAME), s->slot[B_NAME].len))
		return ferry_fail(FERRY_EPARSE,
		    "a <Bucket> whose <Name> is missing or not a bucket name");
	b.name = xml_sax_str(s, B_NAME);
	b.created = xml_sax_str(s, B_CREATED);
	if (c->fn != NULL && c->fn(&b, c->arg) != 0)
		return ferry_fail(FERRY_ECANCEL, "bucket listing stopped");
	return FERRY_OK;
}

ferry_err
xml_list_buckets_parse(const char *body, size_t len, xml_bucket_fn fn,
    void *arg, char **next_token)
{
	static const char *const roots[] = {"ListAllMyBucketsResult", NULL};
	static const struct xml_rule rules[] = {
	    {"Buckets/Bucket/Name", B_NAME, BUCKET_NAME_MAX, 0},
	    {"Buckets/Bucket/CreationDate", B_CREATED, XML_FIELD_MAX, 0},
	    {"ContinuationToken", B_TOKEN, XML_FIELD_MAX, 0},
	};
	static const struct xml_record records[] = {
	    {"Buckets/Bucket", 0, XML_BIT(B_NAME) | XML_BIT(B_CREATED)}};
	static const struct xml_sax_spec spec = {
	    roots, rules, XML_NELEM(rules), records, 1, bucket_record};
	struct buckets_ctx c = {fn, arg};
	struct xml_sax s;
	ferry_err e;

	*next_token = NULL;
	if ((e = xml_sax_init(&s, &spec, &c)) != FERRY_OK)
		goto out;
	if ((e = xml_sax_reply(&s, body, len, NULL)) != FERRY_OK)
		goto out;
	if (s.slot[B_TOKEN].len > 0)
		e = xml_sax_dup(&s, B_TOKEN, next_token);
out:
	xml_sax_free(&s);
	return e;
}
