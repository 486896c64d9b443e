/*
 * invparse.c: an S3 Inventory's manifest.json and the CSV rows of its data
 * files, parsed (see inventory.h).  Pure: no I/O.
 */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "remote/inventory.h"
#include "remote/remote.h"
#include "remote/url.h"
#include "remote/xml.h"

static const char *const col_names[INV_NCOLS] = {"Bucket", "Key", "Size",
    "LastModifiedDate", "ETag", "IsLatest", "IsDeleteMarker"};

void
inventory_manifest_clear(struct inventory_manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i].key);
	free(m->files);
	free(m->source_bucket);
	memset(m, 0, sizeof(*m));
}

/* The string member name of o, or NULL. */
static const char *
member_str(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A field name of fileSchema, its spaces trimmed, into m's columns. */
static ferry_err
schema_col(struct inventory_manifest *m, const char *s, size_t n)
{
	size_t i;

	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (i = 0; i < INV_NCOLS; i++) {
		if (strlen(col_names[i]) != n || memcmp(col_names[i], s, n))
			continue;
		if (m->col[i] >= 0)
			return ferry_fail(FERRY_EPARSE,
			    "its fileSchema names %s twice", col_names[i]);
		m->col[i] = (int)m->ncols;
	}
	if (++m->ncols > INVENTORY_COLS_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "its fileSchema has over %d fields", INVENTORY_COLS_MAX);
	return FERRY_OK;
}

/* "Bucket, Key, Size, ...": where each field ferry reads comes. */
static ferry_err
parse_schema(struct inventory_manifest *m, const char *schema)
{
	const char *s = schema, *comma;
	ferry_err e;
	int i;

	for (i = 0; i < INV_NCOLS; i++)
		m->col[i] = -1;
	for (;;) {
		comma = strchr(s, ',');
		e = schema_col(m, s, comma ? (size_t)(comma - s) : strlen(s));
		if (e != FERRY_OK || comma == NULL)
			break;
		s = comma + 1;
	}
	if (e != FERRY_OK)
		return e;
	for (i = INV_BUCKET; i <= INV_ETAG; i++)
		if (m->col[i] < 0)
			return ferry_fail(FERRY_EUSAGE,
			    "its rows have no %s field: ferry needs an "
			    "inventory with the fields Size, "
			    "LastModifiedDate and ETag",
			    col_names[i]);
	return FERRY_OK;
}

/* creationTimestamp: milliseconds, as a string of digits (or a number). */
static ferry_err
parse_created(struct inventory_manifest *m, const cJSON *v)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
	char *end;

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e16) {
		m->created_ms = (int64_t)v->valuedouble;
		return FERRY_OK;
	}
	if (s != NULL && s[0] >= '0' && s[0] <= '9' && strlen(s) <= 16) {
		m->created_ms = (int64_t)strtoll(s, &end, 10);
		if (*end == '\0')
			return FERRY_OK;
	}
	return ferry_fail(FERRY_EPARSE,
	    "its creationTimestamp is not a time in milliseconds");
}

/* One entry of files: {"key", "size", "MD5checksum"}. */
static ferry_err
parse_file(struct inventory_file *f, const cJSON *o)
{
	const char *key = member_str(o, "key");
	const char *md5 = member_str(o, "MD5checksum");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(o, "size");

	if (key == NULL || key[0] == '\0' || strlen(key) > XML_KEY_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "a data file in its files has no key, or one too long");
	if (!cJSON_IsNumber(size) || size->valuedouble < 0 ||
	    size->valuedouble > (double)REMOTE_MAX_OBJECT)
		return ferry_fail(FERRY_EPARSE,
		    "the data file '%s' has no size, or one out of range", key);
	if (md5 == NULL || strlen(md5) != 32 || hex_decode(md5, f->md5, 16))
		return ferry_fail(FERRY_EPARSE,
		    "the data file '%s' has no MD5checksum of 32 hex digits",
		    key);
	f->size = (uint64_t)size->valuedouble;
	if ((f->key = strdup(key)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

static ferry_err
parse_files(struct inventory_manifest *m, const cJSON *files)
{
	const cJSON *f;
	int n = cJSON_GetArraySize(files);
	ferry_err e;

	if (!cJSON_IsArray(files) || n <= 0 ||
	    (unsigned)n > INVENTORY_FILES_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "its files are not a list of 1 to %u data files",
		    INVENTORY_FILES_MAX);
	if ((m->files = calloc((size_t)n, sizeof(*m->files))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	cJSON_ArrayForEach(f, files)
	{
		if ((e = parse_file(&m->files[m->nfiles], f)) != FERRY_OK)
			return e;
		m->nfiles++;
	}
	return FERRY_OK;
}

/* fileFormat: CSV, or a refusal that names what was found. */
static ferry_err
check_format(const char *format)
{
	if (format == NULL)
		return ferry_fail(FERRY_EPARSE, "it has no fileFormat");
	if (strcmp(format, "CSV") == 0)
		return FERRY_OK;
	if (strcmp(format, "ORC") == 0 || strcmp(format, "Parquet") == 0)
		return ferry_fail(FERRY_EUSAGE,
		    "its data files are %s: ferry reads CSV inventories "
		    "only (set the inventory's output format to CSV)",
		    format);
	return ferry_fail(
	    FERRY_EPARSE, "its fileFormat '%.40s' is unknown", format);
}

ferry_err
inventory_manifest_parse(
    const char *json, size_t len, struct inventory_manifest *out)
{
	cJSON *o;
	const char *schema;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if ((o = cJSON_ParseWithLength(json, len)) == NULL ||
	    !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return ferry_fail(FERRY_EPARSE, "it is not a JSON object");
	}
	schema = member_str(o, "fileSchema");
	if ((e = check_format(member_str(o, "fileFormat"))) != FERRY_OK)
		goto out;
	if (member_str(o, "sourceBucket") == NULL || schema == NULL) {
		e = ferry_fail(
		    FERRY_EPARSE, "it has no sourceBucket or no fileSchema");
		goto out;
	}
	if ((out->source_bucket = strdup(member_str(o, "sourceBucket"))) ==
	    NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((e = parse_created(out, cJSON_GetObjectItemCaseSensitive(
	                                o, "creationTimestamp"))) != FERRY_OK ||
	    (e = parse_schema(out, schema)) != FERRY_OK)
		goto out;
	e = parse_files(out, cJSON_GetObjectItemCaseSensitive(o, "files"));
out:
	cJSON_Delete(o);
	if (e != FERRY_OK)
		inventory_manifest_clear(out);
	return e;
}

void
inventory_row_init(struct inventory_row *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->fields, INVENTORY_LINE_MAX + INVENTORY_COLS_MAX);
	buf_init(&r->key, XML_KEY_MAX + 1);
}

void
inventory_row_free(struct inventory_row *r)
{
	if (r == NULL)
		return;
	buf_free(&r->fields);
	buf_free(&r->key);
}

/*
 * One CSV field of s[0..n) from *i, unquoted, appended to b; *i is left
 * at the comma after it or at n.
 */
static ferry_err
csv_field(struct buf *b, const char *s, size_t n, size_t *i)
{
	size_t j = *i, k;
	ferry_err e;

	if (j >= n || s[j] != '"') {
		for (k = j; k < n && s[k] != ',';)
			k++;
		*i = k;
		return buf_append(b, s + j, k - j);
	}
	for (j++;; j = k + 2) {
		for (k = j; k < n && s[k] != '"';)
			k++;
		if (k >= n)
			return ferry_fail(
			    FERRY_EPARSE, "the row has a quote left open");
		if ((e = buf_append(b, s + j, k - j)) != FERRY_OK)
			return e;
		if (k + 1 >= n || s[k + 1] != '"')
			break;
		/* "" inside quotes: one quote */
		if ((e = buf_append(b, "\"", 1)) != FERRY_OK)
			return e;
	}
	*i = k + 1;
	if (*i < n && s[*i] != ',')
		return ferry_fail(
		    FERRY_EPARSE, "the row has text after a quoted field");
	return FERRY_OK;
}

/*
 * Splits the CSV line s[0..n) into r->fields, each field unquoted and
 * NUL-terminated, its offset in off[]; *nf the count.
 */
static ferry_err
csv_split(
    struct inventory_row *r, const char *s, size_t n, size_t *off, size_t *nf)
{
	size_t i = 0;
	ferry_err e;

	buf_reset(&r->fields);
	for (*nf = 0;; i++) {
		if (*nf == INVENTORY_COLS_MAX)
			return ferry_fail(FERRY_EPARSE,
			    "the row has over %d fields", INVENTORY_COLS_MAX);
		off[(*nf)++] = r->fields.len;
		if ((e = csv_field(&r->fields, s, n, &i)) != FERRY_OK ||
		    (e = buf_append(&r->fields, "", 1)) != FERRY_OK)
			return e;
		if (i >= n)
			return FERRY_OK;
	}
}

/* A size: decimal digits, at most REMOTE_MAX_OBJECT. */
static ferry_err
parse_size_field(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return ferry_fail(FERRY_EPARSE, "the row has an empty Size");
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > REMOTE_MAX_OBJECT)
			break;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0' || v > REMOTE_MAX_OBJECT)
		return ferry_fail(FERRY_EPARSE,
		    "the row has a Size that is not a number up to 5 TiB");
	*out = v;
	return FERRY_OK;
}

/* The key field, URL-decoded ('+' a space) into r->key. */
static ferry_err
decode_key(struct inventory_row *r, const char *s)
{
	buf_reset(&r->key);
	if (*s == '\0')
		return ferry_fail(FERRY_EPARSE, "the row has an empty Key");
	if (uri_decode(&r->key, s, strlen(s), 1) != FERRY_OK)
		return ferry_fail(FERRY_EPARSE,
		    "the row's Key '%.200s' is not URL-encoded", s);
	if (memchr(r->key.data, '\0', r->key.len) != NULL)
		return ferry_fail(
		    FERRY_EPARSE, "the row's Key '%.200s' holds a NUL byte", s);
	if (r->key.len > XML_KEY_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "the row's Key '%.200s...' is longer than the %d bytes of "
		    "a "
		    "key",
		    s, XML_KEY_MAX);
	return FERRY_OK;
}

ferry_err
inventory_row_parse(const struct inventory_manifest *m, const char *line,
    size_t len, struct inventory_row *r)
{
	size_t off[INVENTORY_COLS_MAX], nf;
	const char *f[INV_NCOLS] = {0};
	const char *etag;
	ferry_err e;
	int i;

	if ((e = csv_split(r, line, len, off, &nf)) != FERRY_OK)
		return e;
	if (nf != m->ncols)
		return ferry_fail(FERRY_EPARSE,
		    "the row has %zu fields where the fileSchema names %zu", nf,
		    m->ncols);
	for (i = 0; i < INV_NCOLS; i++)
		f[i] = m->col[i] >= 0 ? r->fields.data + off[m->col[i]] : "";
	r->skip = (m->col[INV_IS_LATEST] >= 0 &&
	              strcmp(f[INV_IS_LATEST], "true") != 0) ||
	          strcmp(f[INV_DELETE_MARKER], "true") == 0;
	r->bucket = f[INV_BUCKET];
	r->last_modified = f[INV_MTIME];
	if ((e = decode_key(r, f[INV_KEY])) != FERRY_OK || r->skip)
		return e;
	if ((e = parse_size_field(f[INV_SIZE], &r->size)) != FERRY_OK)
		return e;
	/* a listing's ETag keeps its quotes; an inventory's has none */
	etag = f[INV_ETAG];
	if (etag[0] == '\0' || strlen(etag) + 3 > sizeof(r->etag) ||
	    strchr(etag, '"') != NULL)
		return ferry_fail(FERRY_EPARSE,
		    "the row's ETag '%.100s' is empty, too long or quoted",
		    etag);
	snprintf(r->etag, sizeof(r->etag), "\"%s\"", etag);
	return FERRY_OK;
}

uint64_t
inventory_inflate_max(uint64_t gz_size)
{
	if (gz_size > UINT64_MAX / INVENTORY_INFLATE_RATIO)
		return UINT64_MAX;
	if (gz_size * INVENTORY_INFLATE_RATIO < INVENTORY_INFLATE_FLOOR)
		return INVENTORY_INFLATE_FLOOR;
	return gz_size * INVENTORY_INFLATE_RATIO;
}
