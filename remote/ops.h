/*
 * ops.h: the S3 operations, one typed call each, over the requests of
 * remote.h.  Each call knows its operation's method, query parameters,
 * headers and conditions, and the quirks of the servers ferry meets, so
 * that its caller names none of them.
 *
 * How an operation flows:
 *   1. remote_<operation>(r, bucket, key, ..., &q) builds the request and
 *      returns it prepared, not sent (*q NULL and the failure recorded
 *      with ferry_fail() otherwise; the request is the caller's).
 *   2. The caller adds what is the transfer's, not the operation's: a
 *      body (remote_req_body(), remote_req_body_file(), whose MD5 goes as
 *      the digest), a sink for the reply's body, a body limit.
 *   3. It sends it like any request: remote_req_submit() with its
 *      completion callback, on the one multi loop (or remote_perform()
 *      where the caller waits); retries and signing happen below.
 *   4. In the callback, remote_<operation>_reply(q, ...), where there is
 *      one, reads the reply: the HTTP result, a 200 that carries an
 *      <Error>, and the values of the body; else remote_req_result() and
 *      the fields of struct remote_resp.  The caller frees the request.
 * Listings that run in one call (buckets, uploads), ListObjectsV2's
 * stream and ListParts's pages are in remote.h (remote_list_*,
 * remote_parse_parts()).
 */
#ifndef FERRY_REMOTE_OPS_H
#define FERRY_REMOTE_OPS_H

#include "remote/remote.h"
#include "remote/store.h"

/*
 * The metadata headers in which ferry stores a file's content hash (XXH3
 * 128, hex) and mtime (ns) with its object, for messages that name them.
 */
#define REMOTE_META_HASH "x-amz-meta-ferry-xxh128"
#define REMOTE_META_MTIME "x-amz-meta-ferry-mtime"
/*
 * The marker of a hard link (-H): an object copied from the first name of
 * its file's inode names that name's key, relative to the prefix and
 * percent-encoded as remote_hardlink_encode() does.
 */
#define REMOTE_META_HARDLINK "x-amz-meta-ferry-hardlink"

/*
 * The marker's value for the key rel[0..n) (relative to the prefix) into
 * out (outlen bytes, REMOTE_HARDLINK_MAX is enough for any key of up to
 * 1024 bytes): every byte but A-Z a-z 0-9 - _ . ~ and '/' as %XX.
 * FERRY_EPARSE when it does not fit, or n is 0.
 */
ferry_err remote_hardlink_encode(
    const char *rel, size_t n, char *out, size_t outlen) FERRY_WUR;
/*
 * The key a marker's value names, decoded into out (outcap bytes, NUL
 * ended; its length to *outlen).  FERRY_EPARSE, naming the fault, for a
 * value that is empty, malformed (a '%' not followed by two hex digits,
 * a byte outside the encoding's alphabet), decodes to a NUL byte, or to
 * more than 1024 bytes.  It says nothing of whether the key is a path
 * inside a folder: the caller asks that.
 */
ferry_err remote_hardlink_decode(
    const char *value, char *out, size_t outcap, size_t *outlen) FERRY_WUR;

/* Conditions and a range on reading an object. */
struct remote_get {
	const char *if_match;   /* the ETag it must have; NULL or "": any */
	uint64_t off;           /* with len > 0: only bytes [off, off + len) */
	uint64_t len;           /* 0: the whole object */
	const char *version_id; /* that version of it; NULL or "": current */
	uint64_t size;          /* with sized: the whole object's listed size */
	int sized;
};

/*
 * HeadObject of bucket/key, only while it has the ETag if_match (NULL or
 * "": any).  The object's headers are in the reply's struct remote_resp.
 */
ferry_err remote_head_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const char *if_match,
    struct remote_req **out) FERRY_WUR;
/* The same of its version version_id (NULL or "": the current one). */
ferry_err remote_head_version(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const char *if_match,
    const char *version_id, struct remote_req **out) FERRY_WUR;
/*
 * GetObject of bucket/key, as g says (NULL: all of it, unconditionally).
 * A ranged reply is checked with remote_resp_check_range().
 */
ferry_err remote_get_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const struct remote_get *g,
    struct remote_req **out) FERRY_WUR;

/*
 * What a new object (PutObject, CreateMultipartUpload) carries, and the
 * condition on the object it replaces (PutObject only).
 */
struct remote_put {
	const char *content_type; /* NULL: none */
	/* ferry's content hash (16 bytes) and the file's mtime, stored in
	 * the object's metadata; NULL: none */
	const uint8_t *hash;
	int64_t mtime_ns;
	/* the file's POSIX metadata, its fields that are not "" sent under
	 * their names (remote/posixmeta.h); NULL: none */
	const struct remote_posix *posix;
	/* the hard link marker's value (REMOTE_META_HARDLINK); NULL: none */
	const char *hardlink;
	/* or a source object's headers, as its reply's resp.meta holds
	 * them (remote_req_keep_meta()), carried to the copy; NULL: none */
	const char *meta;
	/* more user metadata, "x-amz-meta-name: value\n" lines sent as
	 * they are (a file's extended attributes); NULL: none */
	const char *xmeta;
	int if_absent; /* only if no object has the key */
	/* only while it has this ETag (NULL or "": any); sent without its
	 * quotes, the form Ceph's gateway compares */
	const char *if_match;
	/* where and how the object is stored, its tags, and metadata that
	 * replaces or joins the above as store->replace says; NULL: none */
	const struct remote_store *store;
};

/* The source of a server-side copy: an object, or a range of it. */
struct remote_copy_src {
	const char *bucket;
	const char *key;
	size_t keylen;
	/* copied only while it has this ETag; sent under S3's name for the
	 * condition and under the one Ceph's gateway reads */
	const char *if_match;
	uint64_t off; /* with len > 0: only bytes [off, off + len) */
	uint64_t len; /* 0: the whole object */
	/* that version of it (x-amz-copy-source's ?versionId=); NULL or
	 * "": the current one */
	const char *version_id;
	/* CopyObject: where and how the copy is stored; with
	 * store->replace, its metadata and tags are the store's instead of
	 * the source's; NULL: the source's metadata and tags */
	const struct remote_store *store;
};

/* S3's bound on an object's user metadata: the bytes of the names
 * (without x-amz-meta-) and values, in all */
#define REMOTE_USER_META_MAX 2048

/*
 * The bytes of user metadata a PutObject, Create or CopyObject as o says
 * sends, counted as S3 counts them against REMOTE_USER_META_MAX.  Pure.
 */
size_t remote_put_meta_size(const struct remote_put *o);

/*
 * PutObject of bucket/key, as o says; the caller gives the body (its MD5
 * goes as the digest the server checks).  The reply's ETag is in
 * struct remote_resp.  A condition that fails is a 412.  In a versioned
 * bucket, the replies of PutObject, CopyObject and
 * CompleteMultipartUpload name the version written in resp.version_id.
 */
ferry_err remote_put_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const struct remote_put *o,
    struct remote_req **out) FERRY_WUR;
/*
 * CopyObject of src (whole, with its metadata) to bucket/key.  Read the
 * reply with remote_copy_reply().
 */
ferry_err remote_copy_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const struct remote_copy_src *src,
    struct remote_req **out) FERRY_WUR;
/*
 * CopyObject of bucket/key onto itself, only while it has the ETag
 * if_match, its metadata replaced (x-amz-metadata-directive: REPLACE) by
 * what o says, as a PutObject's would be (o's conditions are not used):
 * the metadata of an object changed, no byte of it sent.  Read the reply
 * with remote_copy_reply().
 */
ferry_err remote_copy_metadata(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const char *if_match,
    const struct remote_put *o, struct remote_req **out) FERRY_WUR;
/*
 * The same, from the object src (whole; its bucket, key and condition)
 * to bucket/key: a copy of another object of the bucket that carries the
 * metadata o says, not the source's.  Read the reply
 * with remote_copy_reply().
 */
ferry_err remote_copy_replace(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const struct remote_copy_src *src,
    const struct remote_put *o, struct remote_req **out) FERRY_WUR;
/*
 * The reply of a completed CopyObject or UploadPartCopy: FERRY_OK with
 * *etag (malloc'd, quoted; NULL or "" when the server sent none), or the
 * failure, an <Error> in a 200 among them.
 */
ferry_err remote_copy_reply(struct remote_req *q, char **etag) FERRY_WUR;

/*
 * DeleteObject of bucket/key, only while it has the ETag if_match (NULL
 * or "": any), a condition AWS honours (a 412 otherwise) and Ceph's
 * gateway ignores.
 */
ferry_err remote_delete_object(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const char *if_match,
    struct remote_req **out) FERRY_WUR;
/*
 * DeleteObjects of n keys (1 to 1000) of bucket (ops_delete.c); etags
 * NULL, or each key's listed ETag ("" or NULL: none), sent as its <ETag>
 * so that a server that honours it deletes the object only while it has
 * that ETag, and answers PreconditionFailed for that key otherwise.  The
 * request holds its body.  Read the reply with
 * remote_delete_objects_reply().
 */
ferry_err remote_delete_objects(struct remote *r, const char *bucket,
    const char *const *keys, const size_t *key_lens, const char *const *etags,
    size_t n, struct remote_req **out) FERRY_WUR;
/*
 * Per key of a DeleteObjects reply: its outcome (REMOTE_SUCCEEDED when
 * deleted), and for another, the S3 code and message, to be told.
 */
typedef void (*remote_deleted_fn)(const char *key, size_t keylen,
    enum remote_outcome outcome, const char *code, const char *message,
    void *arg);
/*
 * The reply of a completed DeleteObjects: fn for each key, and FERRY_OK;
 * or the failure of the whole request, an <Error> in a 200 among them.
 */
ferry_err remote_delete_objects_reply(
    struct remote_req *q, remote_deleted_fn fn, void *arg) FERRY_WUR;
/*
 * Whether the completed q was refused as an operation the server does not
 * have (501, or NotImplemented): GCS's XML API answers DeleteObjects so.
 */
int remote_req_not_implemented(const struct remote_req *q);

/* A multipart upload: its object and the id CreateMultipartUpload gave. */
struct remote_upload {
	const char *bucket;
	const char *key;
	size_t keylen;
	const char *upload_id;
};

/*
 * CreateMultipartUpload of bucket/key, whose object carries what o says
 * (its conditions are not used).  Read the reply with
 * remote_create_upload_reply().
 */
ferry_err remote_create_upload(struct remote *r, const char *bucket,
    const char *key, size_t keylen, const struct remote_put *o,
    struct remote_req **out) FERRY_WUR;
/*
 * The reply of a completed CreateMultipartUpload: FERRY_OK with
 * *upload_id (malloc'd), or the failure, an <Error> in a 200 among them.
 */
ferry_err remote_create_upload_reply(
    struct remote_req *q, char **upload_id) FERRY_WUR;
/*
 * UploadPart of part number (1 to REMOTE_MAX_PARTS) of u; the caller
 * gives the body (with its MD5, or none, and then checks the reply's
 * ETag).  The part's ETag is in struct remote_resp.
 */
ferry_err remote_upload_part(struct remote *r, const struct remote_upload *u,
    uint32_t number, struct remote_req **out) FERRY_WUR;
/*
 * UploadPartCopy of src (a range of it: len > 0) as part number of u.
 * Read the reply with remote_copy_reply().
 */
ferry_err remote_upload_part_copy(struct remote *r,
    const struct remote_upload *u, uint32_t number,
    const struct remote_copy_src *src, struct remote_req **out) FERRY_WUR;
/*
 * CompleteMultipartUpload of u from its nparts parts, named by their
 * ETags in order (quoted); the request holds its body.  Read the reply
 * with remote_complete_upload_reply().
 */
ferry_err remote_complete_upload(struct remote *r,
    const struct remote_upload *u, const char *const *etags, size_t nparts,
    struct remote_req **out) FERRY_WUR;
/*
 * The reply of a completed CompleteMultipartUpload: FERRY_OK with *etag
 * (malloc'd, quoted), NULL or "" when the server sent none (Ceph, for a
 * Complete repeated after its reply was lost); or the failure, an
 * <Error> in a 200 among them.
 */
ferry_err remote_complete_upload_reply(
    struct remote_req *q, char **etag) FERRY_WUR;
/* AbortMultipartUpload of u.  A 404: the upload is gone already. */
ferry_err remote_abort_upload(struct remote *r, const struct remote_upload *u,
    struct remote_req **out) FERRY_WUR;

#endif
