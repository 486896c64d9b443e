/*
 * etag.h: what an ETag says, in one place.  S3 gives three forms: a
 * single-part object's (or a part's) "<32 hex>", the MD5 of its bytes; a
 * multipart object's "<32 hex>-N", the MD5 of its N parts' MD5s; and any
 * other, opaque (an encrypted object's, another server's), which says
 * nothing of the bytes.  Servers send them in double quotes.  Included by
 * remote.h.  Pure functions: thread-safe.
 */
#ifndef FERRY_REMOTE_ETAG_H
#define FERRY_REMOTE_ETAG_H

#include <stddef.h>
#include <stdint.h>

enum remote_etag_form {
	REMOTE_ETAG_OPAQUE = 0, /* nothing ferry can check */
	REMOTE_ETAG_MD5,        /* the MD5 of the bytes */
	REMOTE_ETAG_MULTIPART   /* the MD5 of the parts' MD5s, and N */
};

/* An ETag read by remote_etag_parse(). */
struct remote_etag {
	enum remote_etag_form form;
	int quoted;      /* in double quotes, as servers send it */
	uint8_t md5[16]; /* the digest, but for an opaque one */
	uint32_t parts;  /* N of a multipart ETag, else 0 */
};

/*
 * Reads the NUL-terminated etag, in a pair of double quotes or none:
 * 32 hex digits of either case, then for a multipart one '-' and its
 * part count, 1 to 9 decimal digits, not 0.  Returns its form, also in
 * out->form; anything else is REMOTE_ETAG_OPAQUE with the rest of *out zero.
 */
enum remote_etag_form remote_etag_parse(
    const char *etag, struct remote_etag *out);

/*
 * Whether etag is the ETag of a single-part object as a server sends it
 * (quoted), so that it is the MD5 of the bytes; and whether that MD5 is
 * md5.
 */
int remote_etag_is_md5(const char *etag);
int remote_etag_is_md5_of(const char *etag, const uint8_t md5[16]);

/* Whether etag (quoted or not) is a multipart object's. */
int remote_etag_multipart(const char *etag);

/*
 * Writes the quoted ETag of md5 into out (n bytes, cut to fit): a
 * single-part one's for parts 0, else a multipart one's of parts parts
 * (md5 then being the MD5 of their MD5s).
 */
void remote_etag_format(
    const uint8_t md5[16], uint32_t parts, char *out, size_t n);

#endif
