/*
 * xml.h: S3's XML replies, parsed with expat (SAX), and the one request body
 * S3 takes as XML (DeleteObjects, CompleteMultipartUpload).  Private to
 * remote/.  Every parser refuses a DOCTYPE, bounds the length of every
 * text field, and never trusts the input.
 */
#ifndef FERRY_XML_H
#define FERRY_XML_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "remote/bounds.h"

/* Longest key S3 allows is 1024 bytes; text fields are bounded by these. */
#define XML_KEY_MAX 1024
#define XML_FIELD_MAX 2048

/* One <Contents> of a ListObjectsV2 page.  Pointers valid during the call. */
struct xml_list_entry {
	const char *key; /* decoded when the page says EncodingType=url */
	size_t key_len;  /* keys may hold any byte but NUL */
	uint64_t size;
	const char *etag;          /* as listed, quotes kept: "\"abc...\"" */
	const char *last_modified; /* ISO 8601 as listed */
	const char *storage_class; /* as listed; "" when not */
};

/* Returns non-zero to stop the parse with FERRY_ECANCEL. */
typedef int (*xml_list_fn)(const struct xml_list_entry *e, void *arg);

/* What a page says beside its entries. */
struct xml_list_info {
	int truncated;      /* IsTruncated was "true" */
	char *next_token;   /* NextContinuationToken, malloc'd or NULL */
	uint64_t key_count; /* <Contents> seen */
	char *common_prefixes_first; /* unused by sync; NULL */
};

struct xml_list;

/*
 * Creates a streaming ListObjectsV2 parser that calls fn for each entry as
 * its </Contents> is read.  Free with xml_list_free().  Not thread-safe.
 * Keys are decoded when the page says <EncodingType>url</EncodingType>
 * before its first <Contents> (AWS and Ceph put it near the top); a page
 * that says it only after keys were delivered fails with FERRY_EPARSE.  A
 * page without it (a server that ignored encoding-type) is read as is.
 * A page whose root is <Error> fails with FERRY_ES3.
 */
ferry_err xml_list_new(
    xml_list_fn fn, void *arg, struct xml_list **out) FERRY_WUR;
/* Feeds len bytes; final is non-zero on the last call (len may be 0). */
ferry_err xml_list_feed(
    struct xml_list *p, const char *data, size_t len, int final) FERRY_WUR;
/*
 * After the final feed: fills info (info->next_token is moved to the
 * caller, who frees it).
 */
ferry_err xml_list_finish(
    struct xml_list *p, struct xml_list_info *info) FERRY_WUR;
void xml_list_free(struct xml_list *p);

/*
 * An S3 <Error> body. Fields are malloc'd strings or NULL (absent); message
 * and key are cut at XML_FIELD_MAX and XML_KEY_MAX bytes rather than lost.
 */
struct xml_error {
	char *code;
	char *message;
	char *key;
	char *region; /* <Region>, on wrong-region replies */
};

/*
 * Parses an <Error> document.  Returns FERRY_OK and fills err when body is
 * one (root element Error); FERRY_ENOTFOUND when the body is well-formed
 * XML whose root is something else; FERRY_EPARSE when it is not XML.
 */
ferry_err xml_error_parse(
    const char *body, size_t len, struct xml_error *err) FERRY_WUR;
void xml_error_clear(struct xml_error *err);

/*
 * Non-zero when body[0..len) is an XML document whose root element is
 * Error, as a 200 can carry (CopyObject, UploadPartCopy,
 * CompleteMultipartUpload fail that way after the status was sent).  Reads
 * no further than the root's start tag and records no error detail.
 */
int xml_is_error(const char *body, size_t len);

/*
 * The replies that carry one result or an <Error> even with a 200 status.
 * Each fills *err (when the root is Error, returning FERRY_ES3 with the
 * code and message in the failure detail) or its outputs (malloc'd).
 */
/* InitiateMultipartUploadResult: UploadId. */
ferry_err xml_initiate_parse(const char *body, size_t len, char **upload_id,
    struct xml_error *err) FERRY_WUR;
/* CompleteMultipartUploadResult: ETag (may be empty: *etag then ""). */
ferry_err xml_complete_parse(
    const char *body, size_t len, char **etag, struct xml_error *err) FERRY_WUR;
/*
 * CopyObjectResult or CopyPartResult: ETag (required) and LastModified
 * ("" when absent).
 */
ferry_err xml_copy_parse(const char *body, size_t len, char **etag,
    char **last_modified, struct xml_error *err) FERRY_WUR;

/* One part of a ListParts reply. */
struct xml_part {
	uint32_t number;
	uint64_t size;
	char etag[REMOTE_ETAG_MAX + 1];
};
/*
 * ListPartsResult: calls fn for each <Part>; fills *truncated and
 * *next_marker (NextPartNumberMarker, 0 if none).
 */
typedef int (*xml_part_fn)(const struct xml_part *p, void *arg);
ferry_err xml_list_parts_parse(const char *body, size_t len, xml_part_fn fn,
    void *arg, int *truncated, uint32_t *next_marker) FERRY_WUR;

/* One <Upload> of ListMultipartUploads. */
struct xml_upload {
	const char *key;
	size_t key_len;
	const char *upload_id;
};
typedef int (*xml_upload_fn)(const struct xml_upload *u, void *arg);
/* ListMultipartUploadsResult: fn per upload; next markers malloc'd. */
ferry_err xml_list_uploads_parse(const char *body, size_t len, xml_upload_fn fn,
    void *arg, int *truncated, char **next_key_marker,
    char **next_upload_id_marker) FERRY_WUR;

/* One <Version> or <DeleteMarker> of ListObjectVersions. */
struct xml_version {
	const char *key; /* decoded when the page says EncodingType=url */
	size_t key_len;
	const char *version_id;
	int is_latest;
	int delete_marker;
	uint64_t size;             /* 0 for a delete marker */
	const char *etag;          /* "" for a delete marker */
	const char *last_modified; /* ISO 8601 as listed */
};
typedef int (*xml_version_fn)(const struct xml_version *v, void *arg);
/*
 * ListVersionsResult: fn per version and delete marker, in the reply's
 * order; *truncated, and the next markers (malloc'd, NULL when absent).
 * fn returns non-zero to stop, having said why with ferry_fail(): then
 * FERRY_ECANCEL, with that message.
 */
ferry_err xml_list_versions_parse(const char *body, size_t len,
    xml_version_fn fn, void *arg, int *truncated, char **next_key_marker,
    char **next_version_id_marker) FERRY_WUR;

/* DeleteResult: fn called per <Deleted> (ok=1) and per <Error> (ok=0). */
struct xml_deleted {
	const char *key;
	size_t key_len;
	int ok;
	const char *code;    /* for errors */
	const char *message; /* for errors */
};
typedef int (*xml_deleted_fn)(const struct xml_deleted *d, void *arg);
ferry_err xml_delete_result_parse(
    const char *body, size_t len, xml_deleted_fn fn, void *arg) FERRY_WUR;

/* One <Bucket> of a ListBuckets reply.  Pointers valid during the call. */
struct xml_bucket {
	const char *name;    /* 1 to 255 of a-z A-Z 0-9 '.' '-' '_' */
	const char *created; /* CreationDate as listed, "" when absent */
};
typedef int (*xml_bucket_fn)(const struct xml_bucket *b, void *arg);
/*
 * ListAllMyBucketsResult: fn per <Bucket>, in the reply's order;
 * *next_token is its ContinuationToken (malloc'd), NULL when it has none
 * (the last page, or a server that does not page).  A bucket without a
 * name, or whose name holds other characters than S3's old and new rules
 * allow (none that a terminal would act on), fails with FERRY_EPARSE.
 */
ferry_err xml_list_buckets_parse(const char *body, size_t len, xml_bucket_fn fn,
    void *arg, char **next_token) FERRY_WUR;

/*
 * Request bodies, written into out after emptying it (left empty on
 * failure).  Keys and ETags are XML-escaped (& < > " ' and control
 * characters as numeric references; keys containing characters XML 1.0
 * cannot carry are refused with FERRY_EPARSE).
 */
/*
 * <Delete><Quiet>false</Quiet><Object><Key>..</Key></Object>...</Delete>
 * for 1 to 1000 keys (else FERRY_EUSAGE); key_lens may be NULL for
 * NUL-terminated keys; etags NULL, or an <ETag> for each key whose entry
 * is neither NULL nor "".
 */
ferry_err xml_delete_body(struct buf *out, const char *const *keys,
    const size_t *key_lens, const char *const *etags, size_t n) FERRY_WUR;
/*
 * <CompleteMultipartUpload><Part><PartNumber>..</PartNumber><ETag>..
 * for parts 1 to nparts (1 to 10000, else FERRY_EUSAGE), etags[i] being
 * the ETag of part i + 1.
 */
ferry_err xml_complete_body(
    struct buf *out, const char *const *etags, size_t nparts) FERRY_WUR;

#endif
