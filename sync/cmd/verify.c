/*
 * verify.c: "ferry verify SOURCE DESTINATION": the two sides merge-joined
 * in key order as a sync would (merge.c), each key checked for presence,
 * size, and the ETag and content hash the manifest recorded; with --full
 * or --sample the DESTINATION's bytes are re-read, hashed as they come
 * (XXH3-128, MD5, the MD5s of parts) and compared with what the object
 * says of itself: the content hash ferry stored with it, its ETag.
 * Nothing is written to either side: only listings, GETs and HEADs.
 */
#include <errno.h>
#include <strings.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common/sparse.h"
#include "sync/cmd/cmd.h"
#include "sync/cmd/verify.h"

char *
verify_full_key(const struct verify *v, const char *key, size_t keylen)
{
	const char *prefix =
	    v->way == VERIFY_PULL ? v->sloc.prefix : v->loc.prefix;

	return remote_key_join(prefix, key, keylen, NULL);
}

static void
report_json(struct verify *v, const char *kind, const char *full,
    const char *key, size_t keylen, const char *msg)
{
	int drift = strcmp(kind, "unchecked") != 0;
	cJSON *j = cJSON_CreateObject();
	char *s;

	if (j == NULL)
		return;
	cJSON_AddStringToObject(j, "type", drift ? "drift" : "unchecked");
	if (drift)
		cJSON_AddStringToObject(j, "kind", kind);
	output_json_key(j, full, strlen(full));
	if (v->way != VERIFY_MIRROR)
		output_json_text(j, "path", key, keylen);
	cJSON_AddStringToObject(j, "message", msg);
	if ((s = cJSON_PrintUnformatted(j)) != NULL)
		puts(s);
	free(s);
	cJSON_Delete(j);
}

void
verify_report(struct verify *v, const char *kind, const char *key,
    size_t keylen, const char *msg)
{
	char *full = verify_full_key(v, key, keylen);

	if (strcmp(kind, "unchecked") == 0)
		v->unchecked++;
	else
		v->drift++;
	if (full == NULL)
		return;
	if (v->o->json) {
		report_json(v, kind, full, key, keylen, msg);
	} else {
		/* the key is the server's or the tree's bytes: escaped */
		printf("%-9s ", kind);
		text_print(stdout, full, strlen(full));
		printf(": %s\n", msg);
	}
	free(full);
}

/* The bytes re-read: hashed as they come and compared. */

ferry_err
vhash_init(struct vhash *h, uint64_t part_size)
{
	memset(h, 0, sizeof(*h));
	h->part_size = part_size;
	h->xxh = manifest_hash_new();
	h->md5 = remote_md5_new();
	if (part_size) {
		h->part = remote_md5_new();
		h->outer = remote_md5_new();
	}
	if (h->xxh == NULL || h->md5 == NULL ||
	    (part_size && (h->part == NULL || h->outer == NULL))) {
		vhash_free(h);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	return FERRY_OK;
}

/* Ends the current part: its MD5 goes into the outer digest. */
static void
part_end(struct vhash *h)
{
	uint8_t d[16];

	if (remote_md5_final(h->part, d) != FERRY_OK ||
	    remote_md5_update(h->outer, d, 16) != FERRY_OK ||
	    remote_md5_reset(h->part) != FERRY_OK)
		h->failed = 1;
	h->nparts++;
	h->in_part = 0;
}

void
vhash_update(struct vhash *h, const void *p, size_t n)
{
	const char *c = p;
	size_t take;

	if (manifest_hash_update(h->xxh, p, n) != FERRY_OK ||
	    remote_md5_update(h->md5, p, n) != FERRY_OK)
		h->failed = 1;
	h->total += n;
	while (h->part_size && n > 0) {
		take = h->part_size - h->in_part < n
		           ? (size_t)(h->part_size - h->in_part)
		           : n;
		if (remote_md5_update(h->part, c, take) != FERRY_OK)
			h->failed = 1;
		h->in_part += take;
		c += take;
		n -= take;
		if (h->in_part == h->part_size)
			part_end(h);
	}
}

ferry_err
vhash_final(struct vhash *h, uint8_t xxh[16], char *etag, size_t n)
{
	uint8_t d[16];
	char hex[33];

	manifest_hash_final(h->xxh, xxh);
	if (h->part_size == 0) {
		if (remote_md5_final(h->md5, d) != FERRY_OK)
			h->failed = 1;
		remote_etag_format(d, 0, etag, n);
		return h->failed ? FERRY_ESYS : FERRY_OK;
	}
	/* an empty object uploaded in parts still has its one part */
	if (h->in_part > 0 || h->nparts == 0)
		part_end(h);
	if (remote_md5_final(h->outer, d) != FERRY_OK)
		h->failed = 1;
	hex_encode(d, 16, hex);
	snprintf(etag, n, "\"%s-%u\"", hex, h->nparts);
	return h->failed ? FERRY_ESYS : FERRY_OK;
}

void
vhash_free(struct vhash *h)
{
	manifest_hash_free(h->xxh);
	remote_md5_free(h->md5);
	remote_md5_free(h->part);
	remote_md5_free(h->outer);
	memset(h, 0, sizeof(*h));
}

/*
 * The part size to hash with for etag: the one recorded, or none for a
 * single-part ETag; 0 also when it is a multipart ETag of unknown parts.
 */
static uint64_t
etag_parts(const char *etag, uint64_t recorded)
{
	return remote_etag_is_md5(etag) ? 0 : recorded;
}

/* What the re-read bytes are to be compared with. */
struct expect {
	const char *etag;    /* the ETag listed; NULL: none */
	int etag_opaque;     /* no MD5 in it (KMS, SSE-C) */
	uint64_t part_size;  /* what it was uploaded in; 0: single or unknown */
	const char *stored;  /* the ferry-xxh128 metadata, or "" */
	const uint8_t *want; /* the hash the bytes must have, or NULL */
	const char *want_what;
};

/*
 * Compares the digests of h with e, reporting drift, or that nothing
 * could be compared.
 */
static void
judge(struct verify *v, const char *key, size_t keylen, struct vhash *h,
    const struct expect *e)
{
	uint8_t xxh[16];
	char etag[REMOTE_ETAG_MAX + 1], hex[33], msg[256];
	int checked = 0;
	ferry_err e_final;

	e_final = vhash_final(h, xxh, etag, sizeof(etag));
	hex_encode(xxh, 16, hex);
	v->counts.checked++;
	v->bytes_read += h->total;
	if (e_final != FERRY_OK) {
		verify_report(v, "unchecked", key, keylen,
		    "cannot be checked byte-wise: a digest failed");
		return;
	}
	if (e->stored[0] != '\0') {
		checked = 1;
		if (strcasecmp(e->stored, hex) != 0) {
			verify_report(v, "bytes", key, keylen,
			    "the bytes do not hash to the ferry-xxh128 "
			    "metadata stored with the object");
			return;
		}
	}
	if (e->want != NULL) {
		checked = 1;
		if (memcmp(e->want, xxh, 16) != 0) {
			snprintf(msg, sizeof(msg), "the bytes are not %s",
			    e->want_what);
			verify_report(v, "bytes", key, keylen, msg);
			return;
		}
	}
	if (e->etag && !e->etag_opaque &&
	    (remote_etag_is_md5(e->etag) || e->part_size)) {
		checked = 1;
		if (strcmp(etag, e->etag) != 0) {
			snprintf(msg, sizeof(msg),
			    "the bytes hash to the ETag %s, not %s", etag,
			    e->etag);
			verify_report(v, "bytes", key, keylen, msg);
			return;
		}
	}
	if (!checked)
		verify_report(v, "unchecked", key, keylen,
		    "cannot be checked byte-wise: a multipart ETag of "
		    "unknown part size, and no content hash of ferry's");
}

/* A GET's body into its digests. */
static int
sink(const char *data, size_t len, void *arg)
{
	struct vhash *h = arg;

	if (h->xxh == NULL)
		return 1;
	vhash_update(h, data, len);
	return 0;
}

/* A GET sent again: its digests start afresh. */
static void
restart(void *arg)
{
	struct vhash *h = arg;
	ferry_err e;

	vhash_free(h);
	e = vhash_init(h, h->part_size);
	(void)e; /* a hash left unset fails the GET in sink() */
}

/* Reports a read that failed, with the detail recorded. */
static void
read_failed(struct verify *v, const char *key, size_t keylen, ferry_err e)
{
	char *full = verify_full_key(v, key, keylen);

	v->counts.failed++;
	if (full == NULL)
		return;
	if (v->way == VERIFY_MIRROR)
		output_error(&v->out, full, strlen(full), e, ferry_errmsg());
	else
		output_file_error(
		    &v->out, full, strlen(full), e, ferry_errmsg());
	free(full);
}

ferry_err
verify_object_bytes(struct verify *v, const char *key, size_t keylen,
    const char *etag, uint64_t part_size, const uint8_t *want)
{
	struct remote_get g = {.if_match = etag};
	struct remote_req *q = NULL;
	const struct remote_resp *s;
	struct expect x = {0};
	struct vhash h;
	char *full = NULL;
	ferry_err e;

	if ((e = vhash_init(&h, etag_parts(etag, part_size))) != FERRY_OK)
		return e;
	x.part_size = h.part_size;
	if ((full = verify_full_key(v, key, keylen)) == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((e = remote_get_object(
	         v->r, v->loc.bucket, full, strlen(full), &g, &q)) != FERRY_OK)
		goto out;
	remote_req_sink(q, sink, &h);
	remote_req_sink_restart(q, restart);
	if ((e = remote_perform(v->r, q, 0)) != FERRY_OK || h.xxh == NULL) {
		read_failed(v, key, keylen, e ? e : FERRY_ENOMEM);
		e = FERRY_OK;
		goto out;
	}
	s = remote_req_resp(q);
	x.etag = s->etag[0] ? s->etag : etag;
	x.etag_opaque = remote_resp_etag_opaque(s);
	x.stored = s->meta_hash;
	x.want = want;
	x.want_what = "the source file's";
	judge(v, key, keylen, &h, &x);
out:
	remote_req_free(q);
	free(full);
	vhash_free(&h);
	return e;
}

/* HEAD of a pull's source object: its stored hash into x->stored. */
static ferry_err
head_source(struct verify *v, const char *key, size_t keylen, const char *etag,
    char stored[40], int *opaque)
{
	struct remote_req *q = NULL;
	char *full = NULL;
	ferry_err e;

	if ((full = verify_full_key(v, key, keylen)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	e = remote_head_object(
	    v->r, v->sloc.bucket, full, strlen(full), etag, &q);
	if (e == FERRY_OK && (e = remote_perform(v->r, q, 0)) == FERRY_OK) {
		snprintf(stored, 40, "%s", remote_req_resp(q)->meta_hash);
		*opaque = remote_resp_etag_opaque(remote_req_resp(q));
	}
	remote_req_free(q);
	free(full);
	return e;
}

/* Reads the file fd to its end into h, its holes as zeros (sparse.h). */
static ferry_err
read_file(int fd, struct vhash *h)
{
	struct sparse_reader r;
	char buf[65536];
	uint64_t off = 0;
	size_t n;
	ferry_err e;

	sparse_reader_init(&r, fd);
	do {
		if ((e = sparse_pread(&r, buf, sizeof(buf), off, &n)) !=
		    FERRY_OK)
			return e;
		vhash_update(h, buf, n);
		off += n;
	} while (n == sizeof(buf));
	return FERRY_OK;
}

ferry_err
verify_file_bytes(struct verify *v, const char *key, size_t keylen,
    const char *etag, uint64_t part_size, const struct manifest_remote *rec)
{
	struct expect x = {.etag = etag, .stored = ""};
	char stored[40] = "", path[MANIFEST_KEY_MAX + 1];
	struct vhash h;
	ferry_err e;
	int fd;

	snprintf(path, sizeof(path), "%.*s", (int)keylen, key);
	if ((fd = openat(v->rootfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) <
	    0) {
		read_failed(v, key, keylen,
		    ferry_fail(FERRY_ESYS, "open: %s", strerror(errno)));
		return FERRY_OK;
	}
	/* the ETag says nothing of the bytes: the stored hash might */
	if (!remote_etag_is_md5(etag) && etag_parts(etag, part_size) == 0 &&
	    (e = head_source(v, key, keylen, etag, stored, &x.etag_opaque)) !=
	        FERRY_OK) {
		close(fd);
		read_failed(v, key, keylen, e);
		return FERRY_OK;
	}
	x.stored = stored;
	if (rec && rec->has_hash) {
		x.want = rec->hash;
		x.want_what = "those ferry wrote";
	}
	if ((e = vhash_init(&h, etag_parts(etag, part_size))) != FERRY_OK) {
		close(fd);
		return e;
	}
	x.part_size = h.part_size;
	if ((e = read_file(fd, &h)) != FERRY_OK)
		read_failed(v, key, keylen, e);
	else
		judge(v, key, keylen, &h, &x);
	close(fd);
	vhash_free(&h);
	return FERRY_OK;
}

/* Whether key is among the objects whose bytes are re-read. */
static int
sampled(const struct verify *v, const char *key, size_t keylen)
{
	double pct = v->o->sample_pct;

	if (pct >= 100)
		return 1;
	if (pct <= 0)
		return 0;
	return (double)(manifest_hash_key(key, keylen, v->seed) % 1000000) <
	       pct * 10000;
}

/* What the two sides and the record say of one key present on both. */
struct pair {
	const char *key;
	size_t keylen;
	uint64_t ssize, dsize;
	const char *setag, *detag;         /* listed ETags, or NULL (a file) */
	const uint8_t *shash, *dhash;      /* scanned hashes, or NULL */
	const struct manifest_remote *rec; /* or NULL */
};

/* The record's checks of a bucket DESTINATION: non-zero when drift. */
static int
check_object_record(struct verify *v, const struct pair *p)
{
	const struct manifest_remote *rec = p->rec;

	if (strcmp(p->detag, rec->etag) != 0) {
		verify_report(v, "etag", p->key, p->keylen,
		    "the object's ETag is not the one the manifest recorded: "
		    "it was replaced since ferry wrote it");
		return 1;
	}
	if (p->shash && rec->has_hash && memcmp(p->shash, rec->hash, 16)) {
		verify_report(v, "content", p->key, p->keylen,
		    "the source file changed since it was sent");
		return 1;
	}
	if (p->setag && rec->src_etag[0] &&
	    strcmp(p->setag, rec->src_etag) != 0) {
		verify_report(v, "content", p->key, p->keylen,
		    "the source object changed since it was copied");
		return 1;
	}
	return 0;
}

/* The same for a local DESTINATION (a pull). */
static int
check_file_record(struct verify *v, const struct pair *p)
{
	const struct manifest_remote *rec = p->rec;

	if (strcmp(p->setag, rec->etag) != 0) {
		verify_report(v, "content", p->key, p->keylen,
		    "the source object changed since it was pulled");
		return 1;
	}
	if (rec->has_hash && memcmp(p->dhash, rec->hash, 16) != 0) {
		verify_report(v, "content", p->key, p->keylen,
		    "the local file changed since ferry wrote it");
		return 1;
	}
	return 0;
}

/* Checks one key present on both sides. */
static ferry_err
check_pair(struct verify *v, const struct pair *p)
{
	char msg[128];
	int bad;

	v->objects++;
	if (p->ssize != p->dsize) {
		snprintf(msg, sizeof(msg), "%llu bytes, the source has %llu",
		    (unsigned long long)p->dsize, (unsigned long long)p->ssize);
		verify_report(v, "size", p->key, p->keylen, msg);
		return FERRY_OK;
	}
	if (v->way == VERIFY_MIRROR && p->rec == NULL &&
	    remote_etag_is_md5(p->setag) && remote_etag_is_md5(p->detag) &&
	    strcmp(p->setag, p->detag) != 0) {
		verify_report(v, "etag", p->key, p->keylen,
		    "the object's ETag is not the source's");
		return FERRY_OK;
	}
	if (p->rec != NULL) {
		bad = v->way == VERIFY_PULL ? check_file_record(v, p)
		                            : check_object_record(v, p);
		if (bad)
			return FERRY_OK;
	}
	if (!sampled(v, p->key, p->keylen))
		return FERRY_OK;
	if (v->way == VERIFY_PULL)
		return verify_file_bytes(v, p->key, p->keylen, p->setag,
		    p->rec ? p->rec->part_size : 0, p->rec);
	return verify_object_bytes(v, p->key, p->keylen, p->detag,
	    p->rec ? p->rec->part_size : 0, p->shash);
}

/* A key on one side only: c < 0 the SOURCE's, > 0 the DESTINATION's. */
static void
one_side(struct verify *v, const char *key, size_t keylen, int c)
{
	if (c < 0) {
		v->objects++;
		verify_report(
		    v, "missing", key, keylen, "not at the destination");
		return;
	}
	v->extra++;
	if (v->o->delete)
		verify_report(v, "extra", key, keylen,
		    "not in the source (a sync with --delete removes it)");
}

/* The pair at the heads of the streams, c being SOURCE against DEST. */
static ferry_err
head_pair(struct verify *v, struct pair *p, struct manifest_remote *rec)
{
	const struct remote_obj *lo = &v->mg.remote.obj;
	const struct remote_obj *so = &v->src.obj;
	ferry_err e;

	memset(p, 0, sizeof(*p));
	if (v->way == VERIFY_MIRROR) {
		p->key = so->key;
		p->keylen = so->keylen;
		p->ssize = so->size;
		p->setag = so->etag;
	} else {
		p->key = v->mg.lkey;
		p->keylen = v->mg.lkeylen;
	}
	if (v->way == VERIFY_PUSH) {
		p->ssize = v->mg.lrec.size;
		p->shash = v->mg.lrec.hash;
	} else if (v->way == VERIFY_PULL) {
		p->dsize = v->mg.lrec.size;
		p->dhash = v->mg.lrec.hash;
		p->ssize = lo->size;
		p->setag = lo->etag;
	}
	if (v->way != VERIFY_PULL) {
		p->dsize = lo->size;
		p->detag = lo->etag;
	}
	e = manifest_remote_get(v->m, p->key, p->keylen, rec);
	p->rec = e == FERRY_OK ? rec : NULL;
	return e == FERRY_ENOTFOUND ? FERRY_OK : e;
}

/* Checks the smallest key of the two streams and advances past it. */
static ferry_err
step(struct verify *v)
{
	struct manifest_remote rec;
	struct pair p;
	const struct remote_obj *lo = &v->mg.remote.obj;
	ferry_err e = FERRY_OK;
	int c, sc; /* c: the streams' order; sc: SOURCE against DEST */

	if (v->way == VERIFY_MIRROR ? !merge_head_lists(&v->mg, &v->src, &c)
	                            : !merge_head(&v->mg, &c))
		return FERRY_OK;
	sc = v->way == VERIFY_PULL ? -c : c;
	if (c == 0 && (e = head_pair(v, &p, &rec)) == FERRY_OK)
		e = check_pair(v, &p);
	else if (c < 0)
		one_side(v,
		    v->way == VERIFY_MIRROR ? v->src.obj.key : v->mg.lkey,
		    v->way == VERIFY_MIRROR ? v->src.obj.keylen : v->mg.lkeylen,
		    sc);
	else if (c > 0)
		one_side(v, lo->key, lo->keylen, sc);
	if (e != FERRY_OK)
		return e;
	if (c <= 0 && v->way == VERIFY_MIRROR)
		e = merge_list_next(&v->src, v->o, 0, &v->mg.nlocal);
	else if (c <= 0)
		e = merge_next_local(&v->mg);
	if (e == FERRY_OK && c >= 0)
		e = merge_list_next(&v->mg.remote, v->o, 0, &v->mg.nremote);
	return e;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

/*
 * The pair's manifest when there is one, for what it recorded; else one
 * of our own in a temporary folder, for the scan and an unsorted listing.
 */
static ferry_err
open_manifest(struct verify *v)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	ferry_err e;

	if ((e = sync_manifest_find(v->o, dir, sizeof(dir))) != FERRY_OK)
		return e;
	e = manifest_open(dir, NULL, NULL, MANIFEST_INSPECT, &v->m);
	if (e != FERRY_ENOTFOUND)
		return e;
	snprintf(v->scratch, sizeof(v->scratch), "%s/ferry-verify.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(v->scratch) == NULL) {
		e = ferry_fail(FERRY_ESYS, "cannot make a folder in %s: %s",
		    tmp && *tmp ? tmp : "/tmp", strerror(errno));
		v->scratch[0] = '\0';
		return e;
	}
	log_info("no manifest for the pair: sizes and ETags only");
	return manifest_open(v->scratch, "verify", "verify", 0, &v->m);
}

/* The local side's folder, opened. */
static ferry_err
open_root(struct verify *v, const char *path)
{
	v->rootfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v->rootfd < 0)
		return ferry_fail(
		    FERRY_EUSAGE, "folder '%s': %s", path, strerror(errno));
	return FERRY_OK;
}

static ferry_err
open_sides(struct verify *v)
{
	const struct sync_opts *o = v->o;
	ferry_err e;

	if (v->way == VERIFY_PUSH) {
		if ((e = open_root(v, o->src)) != FERRY_OK ||
		    (e = remote_loc_parse(o->dst, &v->loc)) != FERRY_OK)
			return e;
		output_set_local(&v->out, v->loc.prefix);
		return remote_new(&o->remote, &v->r);
	}
	if (v->way == VERIFY_PULL) {
		if ((e = open_root(v, o->dst)) != FERRY_OK ||
		    (e = remote_loc_parse(o->src, &v->sloc)) != FERRY_OK)
			return e;
		output_set_local(&v->out, v->sloc.prefix);
		/* the listing's stream is the source's */
		return remote_new(&o->remote, &v->r);
	}
	if ((e = remote_loc_parse(o->src, &v->sloc)) != FERRY_OK ||
	    (e = remote_loc_parse(o->dst, &v->loc)) != FERRY_OK ||
	    (e = remote_new(&o->remote, &v->r)) != FERRY_OK)
		return e;
	return remote_new_sharing(&o->src_remote, v->r, &v->sr);
}

/* Scans the local side (if any) and opens the streams. */
static ferry_err
start(struct verify *v)
{
	uint64_t errors = 0;
	ferry_err e;

	if ((e = open_sides(v)) != FERRY_OK)
		return e;
	remote_on_retry(v->r, output_retry, &v->out);
	if ((e = open_manifest(v)) != FERRY_OK)
		return e;
	if (v->way == VERIFY_MIRROR) {
		if ((e = merge_list_open(&v->src, v->o, v->m,
		         MANIFEST_LISTED_SRC, v->sr, &v->sloc)) != FERRY_OK ||
		    (e = merge_list_open(&v->mg.remote, v->o, v->m,
		         MANIFEST_LISTED, v->r, &v->loc)) != FERRY_OK ||
		    (e = merge_list_next(&v->src, v->o, 0, &v->mg.nlocal)) !=
		        FERRY_OK)
			return e;
		return merge_list_next(&v->mg.remote, v->o, 0, &v->mg.nremote);
	}
	e = merge_scan(v->o, v->m, v->rootfd, &v->out, &v->counts, &errors);
	if (e != FERRY_OK)
		return e;
	return merge_open(&v->mg, v->o, v->m, v->r,
	    v->way == VERIFY_PULL ? &v->sloc : &v->loc, 0);
}

/* The last lines: the findings counted, and the run's summary. */
static void
finish(struct verify *v, int status)
{
	cJSON *j;
	char *s;

	if (!v->o->json) {
		if (!v->o->quiet)
			fprintf(stderr,
			    "ferry: verified %llu objects, %llu re-read "
			    "(%llu bytes): %llu drift, %llu unchecked, "
			    "%llu failed\n",
			    (unsigned long long)v->objects,
			    (unsigned long long)v->counts.checked,
			    (unsigned long long)v->bytes_read,
			    (unsigned long long)v->drift,
			    (unsigned long long)v->unchecked,
			    (unsigned long long)v->counts.failed);
		return;
	}
	if ((j = cJSON_CreateObject()) != NULL) {
		cJSON_AddStringToObject(j, "type", "verified");
		cJSON_AddNumberToObject(j, "objects", (double)v->objects);
		cJSON_AddNumberToObject(j, "reread", (double)v->counts.checked);
		cJSON_AddNumberToObject(j, "bytes_read", (double)v->bytes_read);
		cJSON_AddNumberToObject(j, "drift", (double)v->drift);
		cJSON_AddNumberToObject(j, "unchecked", (double)v->unchecked);
		cJSON_AddNumberToObject(j, "extra", (double)v->extra);
		if ((s = cJSON_PrintUnformatted(j)) != NULL)
			puts(s);
		free(s);
		cJSON_Delete(j);
	}
	output_summary(
	    &v->out, &v->counts, v->r ? remote_stats(v->r) : NULL, status);
}

static void
verify_close(struct verify *v)
{
	merge_list_close(&v->src);
	merge_close(&v->mg);
	manifest_close(v->m);
	if (v->scratch[0] != '\0')
		nftw(v->scratch, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	remote_free(v->sr);
	remote_free(v->r);
	remote_loc_clear(&v->loc);
	remote_loc_clear(&v->sloc);
	if (v->rootfd >= 0)
		close(v->rootfd);
}

/* The exit status of a verify that went to its end. */
static int
verdict(const struct verify *v)
{
	return v->drift || v->counts.failed ? EXIT_PARTIAL : EXIT_SYNCED;
}

int
sync_verify(const struct sync_opts *o)
{
	struct verify v = {0};
	ferry_err e;
	int status;

	v.o = o;
	v.rootfd = -1;
	v.way = o->way == SYNC_WAY_PULL     ? VERIFY_PULL
	        : o->way == SYNC_WAY_MIRROR ? VERIFY_MIRROR
	                                    : VERIFY_PUSH;
	v.seed = (uint64_t)now_mono_ns() ^ (uint64_t)time(NULL);
	output_init(&v.out, o);
	if (o->way == SYNC_WAY_LOCAL) {
		e = ferry_fail(
		    FERRY_EUSAGE, "one side must be s3://BUCKET[/PREFIX]");
	} else if ((e = start(&v)) == FERRY_OK) {
		while (!v.mg.done && !ferry_interrupted &&
		       (e = step(&v)) == FERRY_OK)
			;
		if (e == FERRY_OK && ferry_interrupted)
			e = ferry_fail(FERRY_ECANCEL, "interrupted");
	}
	if (e != FERRY_OK) {
		output_error(&v.out, NULL, 0, e, ferry_errmsg());
		status = sync_exit_for(e);
	} else {
		status = verdict(&v);
	}
	finish(&v, status);
	verify_close(&v);
	return status;
}
