/*
 * request.c: one S3 request: its URL, its SigV4 signature, and the libcurl
 * easy handle that carries it.  Every request ferry sends is built here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "remote/internal.h"
#include "remote/xml.h"

#define REMOTE_BODY_LIMIT (1u << 20)

struct remote_req *
remote_req_new(struct remote *r, enum remote_kind kind, const char *method,
    const char *bucket, const char *key, size_t keylen)
{
	struct remote_req *q;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->r = r;
	q->kind = kind;
	snprintf(q->method, sizeof(q->method), "%s", method);
	q->bucket = strdup(bucket);
	q->key = malloc(keylen + 1);
	if (q->bucket == NULL || q->key == NULL) {
		remote_req_free(q);
		return NULL;
	}
	if (keylen)
		memcpy(q->key, key, keylen);
	q->key[keylen] = '\0';
	q->keylen = keylen;
	q->body_fd = -1;
	buf_init(&q->resp.body, REMOTE_BODY_LIMIT);
	buf_init(&q->resp.meta, REMOTE_META_MAX);
	return q;
}

static void
free_pairs(struct sigv4_pair *p, size_t n)
{
	size_t i;

	/* a value may be a secret (an SSE-C key): wiped */
	for (i = 0; i < n; i++) {
		free((char *)p[i].name);
		if (p[i].value)
			explicit_bzero((char *)p[i].value, strlen(p[i].value));
		free((char *)p[i].value);
	}
}

/* Frees the header lines, wiped: they may carry a key. */
static void
slist_free(struct curl_slist *l)
{
	struct curl_slist *p;

	for (p = l; p != NULL; p = p->next)
		explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(l);
}

void
remote_req_free(struct remote_req *q)
{
	if (q == NULL)
		return;
	req_cancel(q);
	free_pairs(q->query, q->nquery);
	free_pairs(q->headers, q->nheaders);
	free(q->headers);
	free(q->bucket);
	free(q->key);
	free(q->body_owned);
	buf_free(&q->resp.body);
	buf_free(&q->resp.meta);
	slist_free(q->slist);
	req_release(q);
	free(q);
}

static ferry_err
add_pair(struct sigv4_pair *p, size_t *n, size_t max, const char *name,
    const char *value)
{
	char *a, *b;

	if (*n >= max)
		return ferry_fail(FERRY_ENOMEM, "too many parameters");
	a = strdup(name);
	b = strdup(value ? value : "");
	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	p[*n].name = a;
	p[*n].value = b;
	(*n)++;
	return FERRY_OK;
}

ferry_err
remote_req_query(struct remote_req *q, const char *name, const char *value)
{
	return add_pair(q->query, &q->nquery, REMOTE_MAX_QUERY, name, value);
}

ferry_err
remote_req_header(struct remote_req *q, const char *name, const char *value)
{
	struct sigv4_pair *p;
	size_t cap;

	if (q->nheaders == q->cap_headers &&
	    q->cap_headers < REMOTE_MAX_HEADERS) {
		cap = q->cap_headers ? q->cap_headers * 2 : 8;
		if (cap > REMOTE_MAX_HEADERS)
			cap = REMOTE_MAX_HEADERS;
		if ((p = realloc(q->headers, cap * sizeof(*p))) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		q->headers = p;
		q->cap_headers = cap;
	}
	if (q->nheaders == q->cap_headers)
		return ferry_fail(FERRY_EUSAGE,
		    "%s %s/%s: more than %d headers", q->method, q->bucket,
		    q->key, REMOTE_MAX_HEADERS);
	return add_pair(q->headers, &q->nheaders, q->cap_headers, name, value);
}

ferry_err
remote_req_copy_source(struct remote_req *q, const char *bucket,
    const char *key, size_t keylen, const char *version_id)
{
	size_t nv = version_id ? strlen(version_id) : 0;
	struct buf v;
	ferry_err e;

	buf_init(&v, 3 * (keylen + strlen(bucket) + nv) + 32);
	if ((e = buf_printf(&v, "/%s/", bucket)) == FERRY_OK &&
	    (e = uri_encode(&v, key, keylen, 1)) == FERRY_OK && nv > 0 &&
	    (e = buf_printf(&v, "?versionId=")) == FERRY_OK)
		e = uri_encode(&v, version_id, nv, 0);
	if (e == FERRY_OK)
		e = remote_req_header(q, "x-amz-copy-source", v.data);
	buf_free(&v);
	return e;
}

/* The body's fields; md5 NULL: no Content-MD5. */
static void
set_body(struct remote_req *q, const void *data, size_t len, const uint8_t *md5)
{
	q->body = data;
	q->body_len = len;
	q->has_body = 1;
	q->md5_b64[0] = '\0';
	if (md5)
		EVP_EncodeBlock((unsigned char *)q->md5_b64, md5, 16);
}

void
remote_req_body(
    struct remote_req *q, const void *data, size_t len, const uint8_t *md5)
{
	uint8_t digest[16];

	if (md5 == NULL) {
		EVP_Digest(data, len, digest, NULL, EVP_md5(), NULL);
		md5 = digest;
	}
	set_body(q, data, len, md5);
}

void
remote_req_body_file(struct remote_req *q, int fd, uint64_t at, size_t len,
    const uint8_t md5[16])
{
	set_body(q, NULL, len, md5);
	q->body_fd = fd;
	q->body_at = at;
	sparse_reader_init(&q->body_rd, fd);
}

void
remote_req_on_body_end(struct remote_req *q, void (*fn)(void *), void *arg)
{
	q->body_end = fn;
	q->body_end_arg = arg;
}

void
remote_req_body_limit(struct remote_req *q, size_t limit)
{
	q->resp.body.limit = limit;
}

void
remote_req_sink(struct remote_req *q, remote_sink_fn fn, void *arg)
{
	q->sink = fn;
	q->sink_arg = arg;
}

void
remote_req_sink_restart(struct remote_req *q, remote_restart_fn restart)
{
	q->sink_restart = restart;
}

const struct remote_resp *
remote_req_resp(const struct remote_req *q)
{
	return &q->resp;
}

static size_t
on_read(char *p, size_t size, size_t n, void *arg)
{
	struct remote_req *q = arg;
	size_t len = size * n, left = q->body_len - q->body_off, got;
	ferry_err e;

	if (left > 0 && bw_hold(q, CURLPAUSE_SEND))
		return CURL_READFUNC_PAUSE;
	if (len > left)
		len = left;
	if (q->body_fd < 0) {
		memcpy(p, q->body + q->body_off, len);
	} else if (len > 0) {
		/* a hole's zeros come from memory, not the disk */
		e = sparse_pread(
		    &q->body_rd, p, len, q->body_at + q->body_off, &got);
		if (e != FERRY_OK || got == 0) {
			q->body_errno = e != FERRY_OK ? q->body_rd.err : -1;
			return CURL_READFUNC_ABORT;
		}
		len = got;
	}
	q->body_off += len;
	q->r->stats.body_out += len;
	bw_spend(q->r->loop, len);
	/* a retry sending again what an attempt sent is no sign of life */
	if (q->body_off > q->body_sent) {
		q->r->loop->moved += q->body_off - q->body_sent;
		q->body_sent = q->body_off;
	}
	if (q->body_off == q->body_len && q->body_end) {
		void (*fn)(void *) = q->body_end;

		q->body_end = NULL;
		fn(q->body_end_arg);
	}
	return len;
}

static int
on_seek(void *arg, curl_off_t off, int origin)
{
	struct remote_req *q = arg;

	if (origin != SEEK_SET || off < 0 || (size_t)off > q->body_len)
		return CURL_SEEKFUNC_CANTSEEK;
	q->body_off = (size_t)off;
	return CURL_SEEKFUNC_OK;
}

/*
 * "host[:port]" as sent in the Host header, with the bucket for vhosts;
 * host is the endpoint's, or the one of the bucket's region.
 */
static ferry_err
host_header(
    const struct remote_req *q, const char *host, int vhost, struct buf *out)
{
	const struct endpoint *ep = &q->r->ep;
	unsigned dflt = ep->https ? 443 : 80;
	ferry_err e;

	if (vhost && (e = buf_printf(out, "%s.", q->bucket)) != FERRY_OK)
		return e;
	if (ep->port == dflt)
		return buf_puts(out, host);
	return buf_printf(out, "%s:%u", host, ep->port);
}

/* The unencoded path: "/bucket/key" (path style) or "/key". */
static ferry_err
req_path(const struct remote_req *q, int vhost, struct buf *out)
{
	ferry_err e;

	if (!vhost) {
		if ((e = buf_printf(out, "/%s", q->bucket)) != FERRY_OK)
			return e;
		if (q->keylen == 0)
			return FERRY_OK;
	}
	if ((e = buf_puts(out, "/")) != FERRY_OK)
		return e;
	return buf_append(out, q->key, q->keylen);
}

struct signing {
	struct buf host, path, query, auth, scratch;
	struct creds_use cred;
	char date[20];
	struct sigv4_pair *hdr; /* room for the request's headers and 8 */
	size_t nhdr;
};

static void
signing_free(struct signing *s)
{
	buf_free(&s->host);
	buf_free(&s->path);
	buf_free(&s->query);
	buf_free(&s->auth);
	buf_free(&s->scratch);
	creds_use_clear(&s->cred);
	free(s->hdr);
}

/* The headers that are sent and signed, in s->hdr. */
static void
collect_headers(struct remote_req *q, struct signing *s, const char *phash)
{
	size_t i;

	s->nhdr = 0;
	s->hdr[s->nhdr++] = (struct sigv4_pair){"host", s->host.data};
	s->hdr[s->nhdr++] = (struct sigv4_pair){"x-amz-date", s->date};
	s->hdr[s->nhdr++] = (struct sigv4_pair){"x-amz-content-sha256", phash};
	if (s->cred.session_token)
		s->hdr[s->nhdr++] = (struct sigv4_pair){
		    "x-amz-security-token", s->cred.session_token};
	if (q->has_body && q->md5_b64[0])
		s->hdr[s->nhdr++] =
		    (struct sigv4_pair){"content-md5", q->md5_b64};
	if (q->r->request_payer)
		s->hdr[s->nhdr++] =
		    (struct sigv4_pair){"x-amz-request-payer", "requester"};
	for (i = 0; i < q->nheaders; i++)
		s->hdr[s->nhdr++] = q->headers[i];
}

static ferry_err
sign(struct remote_req *q, struct signing *s)
{
	struct remote *r = q->r;
	struct sigv4_request sr = {0};
	static const char empty_hash[] = "e3b0c44298fc1c149afbf4c8996fb924"
	                                 "27ae41e4649b934ca495991b7852b855";
	const char *phash = q->has_body ? "UNSIGNED-PAYLOAD" : empty_hash;
	ferry_err e;

	/* a public bucket's requests go without credentials */
	if (!r->no_sign && (e = creds_get(&r->creds, s->date, q->region,
	                        &s->cred)) != FERRY_OK)
		return e;
	collect_headers(q, s, phash);
	sr.method = q->method;
	sr.path = s->path.data;
	sr.query = q->query;
	sr.nquery = q->nquery;
	sr.headers = s->hdr;
	sr.nheaders = s->nhdr;
	sr.payload_hash = phash;
	sr.amz_date = s->date;
	sr.region = q->region;
	sr.service = "s3";
	sr.algs = &r->algs;
	if ((e = sigv4_canonical_query(&sr, &s->query)) != FERRY_OK ||
	    r->no_sign)
		return e;
	return sigv4_authorization(
	    &sr, s->cred.access_key, s->cred.signing_key, &s->auth);
}

/*
 * Every header ferry sends passes here, signed or not: a line break or
 * a NUL in a value from outside (a key id, a plan's ETag) would end the
 * header early and forge more.  The message names the header, never its
 * value, which may be a secret.
 */
static ferry_err
add_slist(struct remote_req *q, struct buf *scratch, const char *name,
    const char *value)
{
	struct curl_slist *l;
	ferry_err e;

	if (ctl_find(value, strlen(value)) >= 0 ||
	    ctl_find(name, strlen(name)) >= 0)
		return ferry_fail(FERRY_EUSAGE,
		    "%s %s/%s: the value of header %s holds a control byte "
		    "(a line break, NUL or other): request not sent",
		    q->method, q->bucket, q->key, name);
	buf_reset(scratch);
	if (value[0] == '\0')
		e = buf_printf(scratch, "%s;", name);
	else
		e = buf_printf(scratch, "%s: %s", name, value);
	if (e != FERRY_OK)
		return e;
	if ((l = curl_slist_append(q->slist, scratch->data)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	q->slist = l;
	return FERRY_OK;
}

static ferry_err
drop_header(struct remote_req *q, const char *line)
{
	struct curl_slist *l;

	if ((l = curl_slist_append(q->slist, line)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	q->slist = l;
	return FERRY_OK;
}

int
req_has_header(const struct remote_req *q, const char *name)
{
	size_t i;

	for (i = 0; i < q->nheaders; i++)
		if (strcasecmp(q->headers[i].name, name) == 0)
			return 1;
	return 0;
}

static ferry_err
build_slist(struct remote_req *q, struct signing *s)
{
	ferry_err e = FERRY_OK;
	size_t i;

	slist_free(q->slist);
	q->slist = NULL;
	for (i = 0; i < s->nhdr && e == FERRY_OK; i++)
		e = add_slist(q, &s->scratch, s->hdr[i].name, s->hdr[i].value);
	if (e == FERRY_OK && s->auth.len)
		e = add_slist(q, &s->scratch, "Authorization", s->auth.data);
	/* "Name:" tells curl not to send a header it would add itself:
	 * Expect (a round trip per upload), and the form Content-Type it
	 * puts on every POST without one of ours. */
	if (e == FERRY_OK)
		e = drop_header(q, "Expect:");
	if (e == FERRY_OK && strcmp(q->method, "POST") == 0 &&
	    !req_has_header(q, "content-type"))
		e = drop_header(q, "Content-Type:");
	return e;
}

static ferry_err
build_url(struct remote_req *q, struct signing *s, struct buf *url)
{
	const struct endpoint *ep = &q->r->ep;
	ferry_err e;

	if ((e = buf_printf(url, "%s://%s", ep->https ? "https" : "http",
	         s->host.data)) != FERRY_OK)
		return e;
	if ((e = uri_encode(url, s->path.data, s->path.len, 1)) != FERRY_OK)
		return e;
	if (s->query.len == 0)
		return FERRY_OK;
	if ((e = buf_puts(url, "?")) != FERRY_OK)
		return e;
	return buf_append(url, s->query.data, s->query.len);
}

static void
now_amz_date(char out[20])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 20, "%Y%m%dT%H%M%SZ", &tm);
}

static CURL *
easy_get(struct remote *r)
{
	CURL *c;

	if (r->npool > 0) {
		c = r->easy_pool[--r->npool];
		curl_easy_reset(c);
		return c;
	}
	return curl_easy_init();
}

void
req_release(struct remote_req *q)
{
	struct remote *r = q->r;

	if (q->easy == NULL)
		return;
	if (q->inflight) {
		curl_multi_remove_handle(r->loop->multi, q->easy);
		q->inflight = 0;
	}
	bw_forget(q);
	if (r->npool < r->pool_cap)
		r->easy_pool[r->npool++] = q->easy;
	else
		curl_easy_cleanup(q->easy);
	q->easy = NULL;
}

/*
 * libcurl's upload buffer for a body of len bytes: 64 KiB (its default)
 * for large bodies, its least (16 KiB) for small files' PUTs and copies.
 * libcurl allocates one per handle, and each request in flight holds
 * one: 128 small PUTs in flight held about 5 MiB more than they needed.
 */
static long
send_buffer(size_t len)
{
	return len > 64 * 1024 ? 64L * 1024 : 16L * 1024;
}

static void
set_method(struct remote_req *q, CURL *c)
{
	if (strcmp(q->method, "HEAD") == 0) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (strcmp(q->method, "PUT") == 0) {
		curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(
		    c, CURLOPT_UPLOAD_BUFFERSIZE, send_buffer(q->body_len));
		curl_easy_setopt(
		    c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)q->body_len);
		curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(c, CURLOPT_READDATA, q);
		curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
		curl_easy_setopt(c, CURLOPT_SEEKDATA, q);
	} else if (strcmp(q->method, "POST") == 0) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(
		    c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)q->body_len);
		curl_easy_setopt(
		    c, CURLOPT_POSTFIELDS, q->has_body ? q->body : "");
	} else if (strcmp(q->method, "GET") != 0) {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method);
	}
}

/*
 * libcurl's receive buffer for q's reply, allocated per request: 64 KiB
 * for listings and bodies of unknown or large size (fewer recvs and
 * polls), room for the headers and the whole body of a small object (as
 * few recvs, less memory), 8 KiB for replies without a body of
 * substance.  128 small GETs in flight held 8 MiB at 64 KiB each.
 */
static long
recv_buffer(const struct remote_req *q)
{
	const uint64_t most = 64 * 1024, least = 8 * 1024, head = 4 * 1024;
	uint64_t n;

	if (q->kind == REMOTE_LIST ||
	    (q->kind == REMOTE_GET && !q->expect_known))
		return (long)most;
	if (q->kind != REMOTE_GET)
		return (long)least;
	if (q->expect > most - head)
		return (long)most;
	n = (q->expect + head + 4095) / 4096 * 4096;
	return (long)(n < least ? least : n);
}

static void
set_options(struct remote_req *q, CURL *c, const char *url)
{
	struct remote *r = q->r;

	curl_easy_setopt(c, CURLOPT_URL, url);
	/* S3 keys may hold "/./" or "/../": sent as signed, not squashed */
	curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, q->slist);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "ferry/" FERRY_VERSION);
	curl_easy_setopt(c, CURLOPT_PRIVATE, q);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, q->errbuf);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, req_on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, q);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, req_on_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, q);
	curl_easy_setopt(
	    c, CURLOPT_CONNECTTIMEOUT, (long)REMOTE_CONNECT_TIMEOUT);
	/* less than a byte a second either way for that long: the server is
	 * not answering, yet a slow link moving anything at all goes on */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)r->read_timeout);
	curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	loop_socket_options(r->loop, c);
	curl_easy_setopt(c, CURLOPT_BUFFERSIZE, recv_buffer(q));
	/* ferry answers redirects itself (region.c), never across schemes */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, r->ep.scheme);
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, r->ep.scheme);
	if (r->cfg.ca_bundle)
		curl_easy_setopt(c, CURLOPT_CAINFO, r->cfg.ca_bundle);
	if (r->no_verify_ssl) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	set_method(q, c);
}

/*
 * Builds, signs and adds the request to the multi handle.  Called for the
 * first attempt and for each retry (the date, and so the signature, is
 * renewed each time).
 */
ferry_err
req_start(struct remote_req *q)
{
	struct remote *r = q->r;
	const struct bucket_region *br = bucket_region_find(r, q->bucket);
	struct signing s = {0};
	struct buf url;
	/* no bucket (ListBuckets): the endpoint's own host */
	int vhost = !r->cfg.path_style && q->bucket[0] != '\0';
	ferry_err e;

	buf_init(&url, 16384);
	buf_init(&s.host, 1024);
	buf_init(&s.path, 4096);
	buf_init(&s.query, 8192);
	/* the canonical request is built here first: path, query, headers */
	buf_init(&s.auth, 32768);
	buf_init(&s.scratch, 16384);
	now_amz_date(s.date);
	if ((s.hdr = calloc(q->nheaders + 8, sizeof(*s.hdr))) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	snprintf(q->region, sizeof(q->region), "%s",
	    br ? br->region : r->cfg.region);
	if ((e = host_header(q, br ? br->host : r->ep.host, vhost, &s.host)) !=
	        FERRY_OK ||
	    (e = req_path(q, vhost, &s.path)) != FERRY_OK ||
	    (e = sign(q, &s)) != FERRY_OK ||
	    (e = build_slist(q, &s)) != FERRY_OK ||
	    (e = build_url(q, &s, &url)) != FERRY_OK)
		goto out;
	if (q->easy == NULL && (q->easy = easy_get(r)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "cannot create a curl handle");
		goto out;
	}
	set_options(q, q->easy, url.data);
	if (curl_multi_add_handle(r->loop->multi, q->easy) != CURLM_OK) {
		e = ferry_fail(FERRY_ENET, "cannot add a transfer");
		goto out;
	}
	q->inflight = 1;
	r->stats.requests[q->kind]++;
out:
	buf_free(&url);
	signing_free(&s);
	return e;
}

/*
 * A 200 whose body is an S3 <Error> document (CopyObject, UploadPartCopy,
 * CompleteMultipartUpload fail that way after the status was sent).
 */
static int
error_body(const struct remote_req *q)
{
	return !q->sink && xml_is_error(q->resp.body.data, q->resp.body.len);
}

int
req_retryable(const struct remote_req *q, CURLcode rc)
{
	long st = q->resp.status;

	if (q->sunk > 0 && q->sink_restart == NULL)
		return 0;
	switch (rc) {
	case CURLE_OK:
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
	if (st == 500 || st == 502 || st == 503 || st == 504 || st == 429)
		return 1;
	if (st == 200 && strcmp(q->method, "GET") != 0 && error_body(q))
		return 1;
	if (st == 400 && q->resp.body.data &&
	    strstr(q->resp.body.data, "<Code>RequestTimeout</Code>"))
		return 1;
	return 0;
}
