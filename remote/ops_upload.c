/*
 * ops_upload.c: the operations of a multipart upload (Create, UploadPart,
 * UploadPartCopy, Complete, Abort), built as ops.h describes.  ListParts
 * and ListMultipartUploads are in replies.c.
 */
#include <stdio.h>

#include "remote/internal.h"
#include "remote/ops.h"
#include "remote/ssec.h"

/* A request on the upload upload_id of bucket/key. */
static ferry_err
upload_new(struct remote *r, enum remote_kind kind, const char *method,
    const struct remote_upload *u, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, kind, method, u->bucket, u->key, u->keylen, out);
	if (e == FERRY_OK)
		e = remote_req_query(*out, "uploadId", u->upload_id);
	return ops_end(out, e);
}

/* A request on part number of the upload u. */
static ferry_err
part_new(struct remote *r, const struct remote_upload *u, uint32_t number,
    struct remote_req **out)
{
	char num[16];
	ferry_err e;

	snprintf(num, sizeof(num), "%u", number);
	e = upload_new(r, REMOTE_PUT, "PUT", u, out);
	if (e == FERRY_OK)
		e = remote_req_query(*out, "partNumber", num);
	return ops_end(out, e);
}

ferry_err
remote_create_upload(struct remote *r, const char *bucket, const char *key,
    size_t keylen, const struct remote_put *o, struct remote_req **out)
{
	ferry_err e;

	e = ops_new(r, REMOTE_POST, "POST", bucket, key, keylen, out);
	if (e == FERRY_OK)
		e = remote_req_query(*out, "uploads", "");
	if (e == FERRY_OK)
		e = ops_object_meta(*out, o);
	/* S3's type for an object that names none: else Swift takes the
	 * Complete's (application/xml) as the object's */
	if (e == FERRY_OK && !req_has_header(*out, "Content-Type"))
		e = remote_req_header(
		    *out, "Content-Type", "binary/octet-stream");
	return ops_end(out, e);
}

ferry_err
remote_create_upload_reply(struct remote_req *q, char **upload_id)
{
	return ops_reply(q, remote_parse_upload_id, upload_id);
}

ferry_err
remote_upload_part(struct remote *r, const struct remote_upload *u,
    uint32_t number, struct remote_req **out)
{
	ferry_err e;

	/* a part of an object encrypted with a customer's key carries it */
	e = part_new(r, u, number, out);
	if (e == FERRY_OK)
		e = ssec_headers(&r->ssec, *out, 0);
	return ops_end(out, e);
}

ferry_err
remote_upload_part_copy(struct remote *r, const struct remote_upload *u,
    uint32_t number, const struct remote_copy_src *src, struct remote_req **out)
{
	ferry_err e;

	e = part_new(r, u, number, out);
	if (e == FERRY_OK)
		e = ops_copy_source(*out, src);
	if (e == FERRY_OK)
		e = ssec_headers(&r->ssec, *out, 0);
	return ops_end(out, e);
}

ferry_err
remote_complete_upload(struct remote *r, const struct remote_upload *u,
    const char *const *etags, size_t nparts, struct remote_req **out)
{
	struct buf body;
	ferry_err e;

	buf_init(&body, nparts * 128 + 256);
	e = upload_new(r, REMOTE_POST, "POST", u, out);
	if (e == FERRY_OK)
		e = remote_complete_body(&body, etags, nparts);
	if (e == FERRY_OK)
		e = ops_body_xml(*out, &body);
	buf_free(&body);
	return ops_end(out, e);
}

/* a bare ETag (Ceph, for a repeated Complete) comes back quoted */
ferry_err
remote_complete_upload_reply(struct remote_req *q, char **etag)
{
	return ops_reply(q, remote_parse_complete, etag);
}

ferry_err
remote_abort_upload(
    struct remote *r, const struct remote_upload *u, struct remote_req **out)
{
	return upload_new(r, REMOTE_DELETE, "DELETE", u, out);
}
