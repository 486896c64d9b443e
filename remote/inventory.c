/*
 * inventory.c: an S3 Inventory's data files fetched on the multi loop, a
 * few at a time, each digested (MD5), gunzipped and split into rows as it
 * arrives, so that memory holds a chunk and a row per file in flight, not
 * a file.  A file is believed only once its size and MD5 are those of
 * manifest.json; its rows are handed on before that, so the caller keeps
 * them aside (a table) until the whole read has succeeded.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "remote/inventory.h"
#include "remote/listcheck.h"
#include "remote/ops.h"

#define INFLATE_CHUNK (64u << 10)

struct inv;

/* One data file being fetched. */
struct fetch {
	struct inv *inv;
	const struct inventory_file *file;
	struct remote_req *q;
	EVP_MD_CTX *md5;
	z_stream z;
	int z_live;  /* z is initialised */
	int z_ended; /* the last gzip member ended */
	uint64_t got;
	uint64_t inflated, note; /* bytes gunzipped; when to say so next */
	uint64_t lines, skip;    /* rows seen; rows a retry passes over */
	struct buf line;         /* a row cut by a chunk's end */
	struct inventory_row row;
	struct list_check check;
	ferry_err err; /* the first failure, with its message in errmsg */
	char errmsg[1024];
};

/* One read of an inventory. */
struct inv {
	struct remote *r;
	const char *bucket; /* the source, whose rows are read */
	const char *prefix;
	size_t prefixlen;
	char *mbucket; /* where manifest.json and the data files are */
	struct inventory_manifest man;
	remote_inventory_fn fn;
	void *arg;
	size_t next, inflight;
	ferry_err err; /* the first failure of a file */
	char errmsg[1280];
};

/* Keeps e, with the message of the moment, as f's failure. */
static ferry_err
fetch_fail(struct fetch *f, ferry_err e)
{
	if (f->err == FERRY_OK && e != FERRY_OK) {
		f->err = e;
		snprintf(f->errmsg, sizeof(f->errmsg), "%s", ferry_errmsg());
	}
	return f->err;
}

/* e, the failure of f's current row, with the row's number. */
static ferry_err
row_fail(struct fetch *f, ferry_err e)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", ferry_errmsg());
	return ferry_fail(e, "row %llu: %s", (unsigned long long)f->lines, msg);
}

/* One row of f's file: checked, and handed on when the run wants it. */
static ferry_err
take_row(struct fetch *f, const char *s, size_t n)
{
	struct inv *v = f->inv;
	struct xml_list_entry x;
	struct remote_obj o;
	ferry_err e;

	if (++f->lines <= f->skip)
		return FERRY_OK; /* handed on before a retry */
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if ((e = inventory_row_parse(&v->man, s, n, &f->row)) != FERRY_OK)
		return row_fail(f, e);
	if (f->row.skip)
		return FERRY_OK;
	if (strcmp(f->row.bucket, v->bucket) != 0)
		return ferry_fail(FERRY_EPARSE,
		    "row %llu is of the bucket '%.100s', not of '%s'",
		    (unsigned long long)f->lines, f->row.bucket, v->bucket);
	/* a bucket's inventory holds more than a prefix */
	if (f->row.key.len <= v->prefixlen ||
	    memcmp(f->row.key.data, v->prefix, v->prefixlen) != 0)
		return FERRY_OK;
	x.key = f->row.key.data;
	x.key_len = f->row.key.len;
	x.size = f->row.size;
	x.etag = f->row.etag;
	x.last_modified = f->row.last_modified;
	if ((e = list_check_entry(&f->check, &x, &o.last_modified)) != FERRY_OK)
		return row_fail(f, e);
	o.key = x.key + v->prefixlen;
	o.keylen = x.key_len - v->prefixlen;
	o.size = x.size;
	o.etag = x.etag;
	return v->fn(&o, v->arg);
}

/* Gunzipped bytes: whole rows are taken, a cut one kept for later. */
static ferry_err
take_text(struct fetch *f, const char *s, size_t n)
{
	const char *nl;
	size_t k;
	ferry_err e;

	while ((nl = memchr(s, '\n', n)) != NULL) {
		k = (size_t)(nl - s);
		if (f->line.len > 0) {
			if ((e = buf_append(&f->line, s, k)) != FERRY_OK)
				return e;
			e = take_row(f, f->line.data, f->line.len);
			buf_reset(&f->line);
		} else {
			e = take_row(f, s, k);
		}
		if (e != FERRY_OK)
			return e;
		s = nl + 1;
		n -= k + 1;
	}
	if (n > 0 && buf_append(&f->line, s, n) != FERRY_OK)
		return ferry_fail(
		    FERRY_EPARSE, "a row is over %u bytes", INVENTORY_LINE_MAX);
	return FERRY_OK;
}

/*
 * Counts n more bytes gunzipped from f's file, saying so now and then
 * (-v).  FERRY_EPARSE past what its gzipped size allows.
 */
static ferry_err
count_inflated(struct fetch *f, size_t n)
{
	uint64_t max = inventory_inflate_max(f->file->size);
	char have[32];

	f->inflated += n;
	if (f->inflated > max)
		return ferry_fail(FERRY_EPARSE,
		    "it inflates to more than %llu bytes, %u times its %llu "
		    "gzipped bytes: refused as a gzip bomb",
		    (unsigned long long)max, INVENTORY_INFLATE_RATIO,
		    (unsigned long long)f->file->size);
	if (f->inflated >= f->note) {
		f->note = f->inflated + INVENTORY_NOTE_BYTES;
		format_size(f->inflated, have, sizeof(have));
		log_info("inventory data file %s: %s inflated, %llu rows, "
		         "%llu of %llu bytes fetched",
		    f->file->key, have, (unsigned long long)f->lines,
		    (unsigned long long)f->got,
		    (unsigned long long)f->file->size);
	}
	return FERRY_OK;
}

/* Gunzips n bytes of f's file (members in a row, as gzip allows). */
static ferry_err
take_gzip(struct fetch *f, const char *data, size_t n)
{
	unsigned char out[INFLATE_CHUNK];
	ferry_err e;
	int zr;

	f->z.next_in = (unsigned char *)(uintptr_t)data;
	f->z.avail_in = (uInt)n;
	while (f->z.avail_in > 0) {
		if (f->z_ended) {
			inflateReset(&f->z);
			f->z_ended = 0;
		}
		f->z.next_out = out;
		f->z.avail_out = sizeof(out);
		zr = inflate(&f->z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return ferry_fail(FERRY_EPARSE,
			    "it is not gzip data, or damaged (%s)",
			    f->z.msg ? f->z.msg : "inflate failed");
		f->z_ended = zr == Z_STREAM_END;
		if ((e = count_inflated(f, sizeof(out) - f->z.avail_out)) !=
		        FERRY_OK ||
		    (e = take_text(f, (char *)out,
		         sizeof(out) - f->z.avail_out)) != FERRY_OK)
			return e;
		if (zr == Z_BUF_ERROR && f->z.avail_out > 0)
			break;
	}
	return FERRY_OK;
}

/* The bytes of one chunk of f's file: counted, digested, gunzipped. */
static ferry_err
take_chunk(struct fetch *f, const char *data, size_t len)
{
	f->got += len;
	if (f->got > f->file->size)
		return ferry_fail(FERRY_EPARSE,
		    "it is longer than the %llu bytes manifest.json gives",
		    (unsigned long long)f->file->size);
	if (EVP_DigestUpdate(f->md5, data, len) != 1)
		return ferry_fail(FERRY_ENOMEM, "MD5 failed");
	return take_gzip(f, data, len);
}

static int
on_data(const char *data, size_t len, void *arg)
{
	struct fetch *f = arg;

	if (f->err != FERRY_OK || f->inv->err != FERRY_OK)
		return 1;
	return fetch_fail(f, take_chunk(f, data, len)) != FERRY_OK;
}

/* Starts f's file over (a retry): its rows taken so far are passed over. */
static void
on_restart(void *arg)
{
	struct fetch *f = arg;

	f->skip = f->skip > f->lines ? f->skip : f->lines;
	f->lines = 0;
	f->got = 0;
	f->inflated = 0;
	f->note = INVENTORY_NOTE_BYTES;
	f->z_ended = 0;
	buf_reset(&f->line);
	if (EVP_DigestInit_ex(f->md5, EVP_md5(), NULL) != 1 ||
	    inflateReset(&f->z) != Z_OK)
		(void)fetch_fail(f, ferry_fail(FERRY_ENOMEM, "out of memory"));
}

/* Whether f's whole file came as manifest.json describes it. */
static ferry_err
fetch_check(struct fetch *f)
{
	uint8_t md5[16];
	char hex[33];
	unsigned mdlen = 0;

	if (f->got != f->file->size)
		return ferry_fail(FERRY_EPARSE,
		    "it has %llu bytes where manifest.json gives %llu",
		    (unsigned long long)f->got,
		    (unsigned long long)f->file->size);
	if (EVP_DigestFinal_ex(f->md5, md5, &mdlen) != 1 || mdlen != 16)
		return ferry_fail(FERRY_ENOMEM, "MD5 failed");
	if (memcmp(md5, f->file->md5, 16) != 0) {
		hex_encode(md5, 16, hex);
		return ferry_fail(FERRY_EPARSE,
		    "its MD5 is %s, not the MD5checksum of manifest.json: "
		    "damaged or replaced",
		    hex);
	}
	if (!f->z_ended)
		return ferry_fail(FERRY_EPARSE, "its gzip data ends early");
	if (f->line.len > 0)
		return take_row(f, f->line.data, f->line.len);
	return FERRY_OK;
}

static void
fetch_free(struct fetch *f)
{
	if (f == NULL)
		return;
	remote_req_free(f->q);
	EVP_MD_CTX_free(f->md5);
	if (f->z_live)
		inflateEnd(&f->z);
	buf_free(&f->line);
	inventory_row_free(&f->row);
	free(f);
}

static void start_next(struct inv *v);

/* Says (-v) that f's file was read whole. */
static void
note_done(const struct fetch *f)
{
	char have[32];

	format_size(f->inflated, have, sizeof(have));
	log_info("inventory data file %s: read, %s inflated, %llu rows",
	    f->file->key, have, (unsigned long long)f->lines);
}

static void
on_done(struct remote_req *q, void *arg)
{
	struct fetch *f = arg;
	struct inv *v = f->inv;
	ferry_err e;

	e = remote_req_result(q, 0);
	if (f->err == FERRY_OK && e != FERRY_OK)
		(void)fetch_fail(f, e);
	if (f->err == FERRY_OK)
		(void)fetch_fail(f, fetch_check(f));
	if (f->err == FERRY_OK)
		note_done(f);
	if (f->err != FERRY_OK && v->err == FERRY_OK) {
		v->err = f->err;
		snprintf(v->errmsg, sizeof(v->errmsg), "data file %s: %s",
		    f->file->key, f->errmsg);
	}
	v->inflight--;
	fetch_free(f);
	start_next(v);
}

/* A fetch of v's next file, ready to submit. */
static ferry_err
fetch_new(struct inv *v, struct fetch **out)
{
	struct fetch *f;
	const struct inventory_file *file = &v->man.files[v->next];

	*out = NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	f->inv = v;
	f->file = file;
	f->note = INVENTORY_NOTE_BYTES;
	buf_init(&f->line, INVENTORY_LINE_MAX);
	inventory_row_init(&f->row);
	/* rows come in no order: only a repeat in a row is seen here */
	list_check_init(&f->check, v->prefix, 0);
	if ((f->md5 = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(f->md5, EVP_md5(), NULL) != 1 ||
	    inflateInit2(&f->z, 16 + MAX_WBITS) != Z_OK) {
		fetch_free(f);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	f->z_live = 1;
	*out = f;
	return remote_get_object(
	    v->r, v->mbucket, file->key, strlen(file->key), NULL, &f->q);
}

/* Submits the next file, unless a file failed or none is left. */
static void
start_next(struct inv *v)
{
	struct fetch *f;
	ferry_err e;

	if (v->err != FERRY_OK || v->next >= v->man.nfiles)
		return;
	e = fetch_new(v, &f);
	v->next++;
	if (e == FERRY_OK) {
		remote_req_sink(f->q, on_data, f);
		remote_req_sink_restart(f->q, on_restart);
		e = remote_req_submit(f->q, on_done, f);
	}
	if (e != FERRY_OK) {
		v->err = e;
		snprintf(v->errmsg, sizeof(v->errmsg), "%s", ferry_errmsg());
		fetch_free(f);
		return;
	}
	v->inflight++;
}

/* "s3://BUCKET/KEY" into v->mbucket and *key (pointing into url). */
static ferry_err
split_url(struct inv *v, const char *url, const char **key)
{
	const char *b = url + 5, *slash;

	if (strncmp(url, "s3://", 5) != 0 || (slash = strchr(b, '/')) == NULL ||
	    slash == b || slash[1] == '\0')
		return ferry_fail(FERRY_EUSAGE,
		    "--source-inventory '%s': give the inventory's "
		    "s3://BUCKET/.../manifest.json",
		    url);
	if ((v->mbucket = strndup(b, (size_t)(slash - b))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	*key = slash + 1;
	return FERRY_OK;
}

/* Fetches and parses manifest.json, and checks it is of v's bucket. */
static ferry_err
read_manifest(struct inv *v, const char *url)
{
	struct remote_req *q = NULL;
	const struct remote_resp *s;
	const char *key = NULL;
	ferry_err e;

	if ((e = split_url(v, url, &key)) != FERRY_OK ||
	    (e = remote_get_object(
	         v->r, v->mbucket, key, strlen(key), NULL, &q)) != FERRY_OK)
		return e;
	remote_req_body_limit(q, INVENTORY_MANIFEST_MAX);
	if ((e = remote_perform(v->r, q, 0)) == FERRY_OK) {
		s = remote_req_resp(q);
		e = inventory_manifest_parse(
		    s->body.data, s->body.len, &v->man);
	}
	remote_req_free(q);
	if (e != FERRY_OK) {
		/* the detail is formatted into the buffer it is read from */
		snprintf(v->errmsg, sizeof(v->errmsg), "%s", ferry_errmsg());
		return ferry_fail(e, "inventory %s: %s", url, v->errmsg);
	}
	if (strcmp(v->man.source_bucket, v->bucket) != 0)
		return ferry_fail(FERRY_EUSAGE,
		    "inventory %s is of the bucket '%s', not of '%s'", url,
		    v->man.source_bucket, v->bucket);
	return FERRY_OK;
}

ferry_err
remote_inventory_read(struct remote *r, const char *url, const char *bucket,
    const char *prefix, unsigned jobs, remote_inventory_fn fn, void *arg,
    int64_t *created)
{
	struct inv v = {.r = r,
	    .bucket = bucket,
	    .prefix = prefix ? prefix : "",
	    .fn = fn,
	    .arg = arg};
	ferry_err e;
	unsigned i;

	*created = 0;
	v.prefixlen = strlen(v.prefix);
	if ((e = read_manifest(&v, url)) != FERRY_OK)
		goto out;
	log_info("inventory %s: %zu data files, made at %lld ms", url,
	    v.man.nfiles, (long long)v.man.created_ms);
	for (i = 0; i < (jobs ? jobs : 1); i++)
		start_next(&v);
	while (v.inflight > 0)
		if ((e = remote_run(r, 1000)) != FERRY_OK)
			break;
	/* the files still in flight end now, while v is there for them */
	if (v.inflight > 0)
		remote_end_all(r);
	if (e == FERRY_OK && v.err != FERRY_OK)
		e = ferry_fail(v.err, "inventory %s, %s", url, v.errmsg);
	if (e == FERRY_OK)
		*created = v.man.created_ms / 1000;
out:
	inventory_manifest_clear(&v.man);
	free(v.mbucket);
	return e;
}
