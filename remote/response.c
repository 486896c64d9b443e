/*
 * response.c: a reply as it arrives: its status line and headers, the
 * numbers among them checked (bounds.c), and its body, buffered or given
 * to the request's sink.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote/internal.h"

void
req_reset_response(struct remote_req *q)
{
	struct buf body = q->resp.body, meta = q->resp.meta;

	buf_reset(&body);
	buf_reset(&meta);
	memset(&q->resp, 0, sizeof(q->resp));
	q->resp.body = body;
	q->resp.meta = meta;
	q->body_off = 0;
	q->body_errno = 0;
	if (q->sunk > 0 && q->sink_restart)
		q->sink_restart(q->sink_arg);
	q->sunk = 0;
	q->errbuf[0] = '\0';
	q->fault[0] = '\0';
}

int
remote_header_take(
    const char *line, size_t len, const char *name, char *dst, size_t dstlen)
{
	size_t n = strlen(name), vlen;
	const char *v;

	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return 0;
	v = line + n + 1;
	vlen = len - n - 1;
	while (vlen && (*v == ' ' || *v == '\t')) {
		v++;
		vlen--;
	}
	while (vlen && isspace((unsigned char)v[vlen - 1]))
		vlen--;
	/* cut, "0000000000000104755" would read as mode 010: refused */
	if (vlen >= dstlen) {
		dst[0] = '\0';
		return -1;
	}
	memcpy(dst, v, vlen);
	dst[vlen] = '\0';
	return 1;
}

/*
 * remote_header_take() into a field whose reader must see a value that
 * was too long as refused, not absent: it gets REMOTE_POSIX_CUT.
 */
static int
take_refusable(
    const char *line, size_t len, const char *name, char *dst, size_t dstlen)
{
	int r = remote_header_take(line, len, name, dst, dstlen);

	if (r < 0)
		snprintf(dst, dstlen, "%s", REMOTE_POSIX_CUT);
	return r != 0;
}

/*
 * remote_header_take() into a field that is left "" when the value was
 * too long, with a warning naming the header: 1 when name matched.
 */
static int
take_header(struct remote_req *q, const char *line, size_t len,
    const char *name, char *dst, size_t dstlen)
{
	int r = remote_header_take(line, len, name, dst, dstlen);

	if (r < 0)
		log_warn("%s %s/%s: the reply's %s is longer than %zu bytes: "
		         "ignored",
		    q->method, q->bucket, q->key, name, dstlen - 1);
	return r != 0;
}

/*
 * Keeps a header of a file's POSIX metadata, as text: its parser is the
 * reader's (sync/posix.c), since a bad value there costs the metadata,
 * not the object.  Non-zero when the header was one of them.
 */
static int
take_posix(const char *p, size_t len, struct remote_posix *x)
{
	return take_refusable(p, len, REMOTE_META_POSIX_MTIME, x->mtime,
	           sizeof(x->mtime)) ||
	       take_refusable(p, len, REMOTE_META_POSIX_ATIME, x->atime,
	           sizeof(x->atime)) ||
	       take_refusable(
	           p, len, REMOTE_META_POSIX_MODE, x->mode, sizeof(x->mode)) ||
	       take_refusable(
	           p, len, REMOTE_META_POSIX_UID, x->uid, sizeof(x->uid)) ||
	       take_refusable(
	           p, len, REMOTE_META_POSIX_GID, x->gid, sizeof(x->gid)) ||
	       take_refusable(p, len, REMOTE_META_POSIX_UNAME, x->uname,
	           sizeof(x->uname)) ||
	       take_refusable(
	           p, len, REMOTE_META_POSIX_GNAME, x->gname, sizeof(x->gname));
}

/* The status of a status line "HTTP/1.1 206 ...", or 0. */
static long
status_of(const char *p, size_t len)
{
	const char *sp = memchr(p, ' ', len);
	long v = 0;
	size_t i;

	if (sp == NULL || (size_t)(sp - p) + 4 > len)
		return 0;
	for (i = 1; i <= 3; i++) {
		if (sp[i] < '0' || sp[i] > '9')
			return 0;
		v = v * 10 + (sp[i] - '0');
	}
	return v;
}

enum remote_outcome
reply_outcome(const struct remote_req *q)
{
	long st = q->resp.status;

	if (q->resp.err != FERRY_OK || st == 0)
		return REMOTE_FAILED;
	if (st / 100 == 2)
		return REMOTE_SUCCEEDED;
	if (st == 404)
		return REMOTE_NOT_FOUND;
	if (st == 412)
		return REMOTE_PRECONDITION_FAILED;
	return REMOTE_FAILED;
}

enum remote_outcome
reply_code_outcome(const char *code)
{
	if (code == NULL)
		return REMOTE_FAILED;
	if (strcmp(code, "NoSuchKey") == 0)
		return REMOTE_NOT_FOUND;
	if (strcmp(code, "PreconditionFailed") == 0)
		return REMOTE_PRECONDITION_FAILED;
	return REMOTE_FAILED;
}

/* A new reply (after a 100 Continue, or a redirect): its fields afresh. */
static void
begin_reply(struct remote_resp *s, const char *p, size_t len)
{
	s->etag[0] = s->last_modified[0] = s->content_type[0] = '\0';
	s->meta_hash[0] = s->meta_mtime[0] = s->sse[0] = '\0';
	s->meta_hardlink[0] = '\0';
	memset(&s->posix, 0, sizeof(s->posix));
	s->version_id[0] = '\0';
	s->has_content_length = s->sse_customer = 0;
	s->content_length = 0;
	memset(&s->range, 0, sizeof(s->range));
	s->status = status_of(p, len);
	buf_reset(&s->meta);
	s->meta_overflow = 0;
}

/*
 * A bounded header of name into dst, checked (bounds.c): 2 when name does
 * not match, 1 taken, 0 refused (the reply stops): too long for dst, or
 * out of its bounds.
 */
static size_t
take_checked(struct remote_req *q, const char *p, size_t len, const char *name,
    char *dst, size_t dstlen)
{
	int r = remote_header_take(p, len, name, dst, dstlen);

	if (r == 0)
		return 2;
	if (r < 0)
		return bounds_refuse_long(q, name, dstlen - 1);
	return bounds_check_header(q, name, dst);
}

/* The headers whose values are bounded: 0 stops the reply, 2 none. */
static size_t
take_bounded(struct remote_req *q, const char *p, size_t len)
{
	struct remote_resp *s = &q->resp;
	char v[64];
	size_t r;
	int t;

	if ((r = take_checked(q, p, len, "content-length", v, sizeof(v))) !=
	        2 ||
	    (r = take_checked(q, p, len, "content-range", v, sizeof(v))) != 2 ||
	    (r = take_checked(q, p, len, "last-modified", s->last_modified,
	         sizeof(s->last_modified))) != 2 ||
	    (r = take_checked(q, p, len, "x-amz-meta-ferry-mtime",
	         s->meta_mtime, sizeof(s->meta_mtime))) != 2)
		return r;
	/* a cut ETag would be taken for another object's */
	if ((t = remote_header_take(p, len, "etag", s->etag, sizeof(s->etag))) <
	    0)
		return bounds_refuse_long(q, "etag", sizeof(s->etag) - 1);
	return t > 0 ? 1 : 2;
}

size_t
req_on_header(char *p, size_t size, size_t n, void *arg)
{
	struct remote_req *q = arg;
	struct remote_resp *s = &q->resp;
	size_t len = size * n, r;
	char num[32];

	if (len >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		begin_reply(s, p, len);
		return len;
	}
	if (q->keep_meta)
		meta_take(q, p, len);
	if ((r = take_bounded(q, p, len)) != 2)
		return r ? len : 0;
	if (take_header(q, p, len, "content-type", s->content_type,
	        sizeof(s->content_type)) ||
	    take_header(q, p, len, "x-amz-meta-ferry-xxh128", s->meta_hash,
	        sizeof(s->meta_hash)) ||
	    take_header(q, p, len, "x-amz-meta-ferry-hardlink",
	        s->meta_hardlink, sizeof(s->meta_hardlink)) ||
	    take_posix(p, len, &s->posix))
		return len;
	/* any value says the key is the customer's: its length is moot */
	if (remote_header_take(p, len,
	        "x-amz-server-side-encryption-customer-algorithm", num,
	        sizeof(num)) != 0)
		s->sse_customer = 1;
	/* too long, a version id would name another version: none is
	 * better, and the region asked for stays */
	if (take_header(q, p, len, "x-amz-server-side-encryption", s->sse,
	        sizeof(s->sse)) ||
	    take_header(q, p, len, "x-amz-version-id", s->version_id,
	        sizeof(s->version_id)))
		return len;
	take_header(q, p, len, "x-amz-bucket-region", s->bucket_region,
	    sizeof(s->bucket_region));
	return len;
}

int
remote_resp_etag_opaque(const struct remote_resp *s)
{
	return s->sse_customer || strncasecmp(s->sse, "aws:kms", 7) == 0;
}

size_t
req_on_write(char *p, size_t size, size_t n, void *arg)
{
	struct remote_req *q = arg;
	size_t len = size * n;
	long status = 0;

	if (bw_hold(q, CURLPAUSE_RECV))
		return CURL_WRITEFUNC_PAUSE;
	bw_spend(q->r->loop, len);
	curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &status);
	q->r->stats.bytes_received += len;
	if (status / 100 == 2)
		q->r->loop->moved += len;
	if (q->sink && status / 100 == 2) {
		if (q->sink(p, len, q->sink_arg))
			return 0;
		q->sunk += len;
		return len;
	}
	if (buf_append(&q->resp.body, p, len) != FERRY_OK)
		return 0;
	return len;
}
