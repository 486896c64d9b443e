/*
 * versions.c: ListObjectVersions: its reply, a table for the SAX engine
 * of xml_sax.c, and its pages, each entry checked as a listing's are.
 */
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/markers.h"
#include "remote/listcheck.h"
#include "remote/xml.h"
#include "remote/xml_sax.h"

enum {
	V_KEY,
	V_ID,
	V_LATEST,
	V_MODIFIED,
	V_ETAG,
	V_SIZE,
	V_TRUNC,
	V_NEXT_KEY,
	V_NEXT_ID
};
enum { REC_VERSION, REC_MARKER };
/* the fields of one version, emptied as each opens */
#define V_FIELDS                                                               \
	(XML_BIT(V_KEY) | XML_BIT(V_ID) | XML_BIT(V_LATEST) |                  \
	    XML_BIT(V_MODIFIED) | XML_BIT(V_ETAG) | XML_BIT(V_SIZE))

static ferry_err
version_record(struct xml_sax *s, int kind)
{
	struct xml_page *c = s->ctx;
	struct xml_version v = {0};
	ferry_err e;

	if ((e = xml_sax_key(s, V_KEY, &v.key, &v.key_len)) != FERRY_OK ||
	    (e = xml_sax_bool(s, V_LATEST, "IsLatest", &v.is_latest)) !=
	        FERRY_OK)
		return e;
	if (s->slot[V_ID].len == 0 || s->slot[V_MODIFIED].len == 0)
		return ferry_fail(FERRY_EPARSE,
		    "a version without <VersionId> or <LastModified>");
	v.version_id = xml_sax_str(s, V_ID);
	v.last_modified = xml_sax_str(s, V_MODIFIED);
	v.delete_marker = kind == REC_MARKER;
	v.etag = v.delete_marker ? "" : xml_sax_str(s, V_ETAG);
	if (!v.delete_marker &&
	    (!xml_sax_has(s, V_SIZE) ||
	        (e = xml_sax_u64("Size", xml_sax_str(s, V_SIZE), &v.size)) !=
	            FERRY_OK))
		return e != FERRY_OK ? e
		                     : ferry_fail(FERRY_EPARSE,
		                           "a <Version> without <Size>");
	/* the reader said why with ferry_fail(): that reason is kept */
	if (c->fn.version != NULL && c->fn.version(&v, c->arg) != 0)
		return FERRY_ECANCEL;
	return FERRY_OK;
}

ferry_err
xml_list_versions_parse(const char *body, size_t len, xml_version_fn fn,
    void *arg, int *truncated, char **next_key_marker,
    char **next_version_id_marker)
{
	static const char *const roots[] = {"ListVersionsResult", NULL};
	static const struct xml_rule rules[] = {
	    {"Version/Key", V_KEY, XML_KEY_RAW_MAX, 0},
	    {"Version/VersionId", V_ID, XML_FIELD_MAX, 0},
	    {"Version/IsLatest", V_LATEST, XML_FIELD_MAX, 0},
	    {"Version/LastModified", V_MODIFIED, XML_FIELD_MAX, 0},
	    {"Version/ETag", V_ETAG, XML_FIELD_MAX, 0},
	    {"Version/Size", V_SIZE, XML_FIELD_MAX, 0},
	    {"DeleteMarker/Key", V_KEY, XML_KEY_RAW_MAX, 0},
	    {"DeleteMarker/VersionId", V_ID, XML_FIELD_MAX, 0},
	    {"DeleteMarker/IsLatest", V_LATEST, XML_FIELD_MAX, 0},
	    {"DeleteMarker/LastModified", V_MODIFIED, XML_FIELD_MAX, 0},
	    {"IsTruncated", V_TRUNC, XML_FIELD_MAX, 0},
	    {"NextKeyMarker", V_NEXT_KEY, XML_KEY_RAW_MAX, 0},
	    {"NextVersionIdMarker", V_NEXT_ID, XML_FIELD_MAX, 0},
	    {"EncodingType", XML_SAX_ENC, XML_FIELD_MAX, 0},
	};
	static const struct xml_record records[] = {
	    {"Version", REC_VERSION, V_FIELDS},
	    {"DeleteMarker", REC_MARKER, V_FIELDS}};
	static const int tail[3] = {V_TRUNC, V_NEXT_KEY, V_NEXT_ID};
	static const struct xml_sax_spec spec = {roots, rules, XML_NELEM(rules),
	    records, XML_NELEM(records), version_record};
	struct xml_page pg = {.fn.version = fn,
	    .arg = arg,
	    .tail = tail,
	    .truncated = truncated,
	    .next_key = next_key_marker,
	    .next_id = next_version_id_marker};

	return xml_sax_marker_page(&spec, &pg, body, len);
}

/* The listing under way: the caller's callback and the check. */
struct listing {
	remote_version_fn fn;
	void *arg;
	struct list_check check;
	ferry_err err; /* why an entry was refused */
};

/*
 * Checks v as a listing's entry (its key may repeat the last one: the
 * versions of a key come in a row) and hands it on.
 */
static int
on_version(const struct xml_version *x, void *arg)
{
	struct listing *l = arg;
	struct xml_list_entry le = {
	    x->key, x->key_len, x->size, x->etag, x->last_modified, ""};
	struct remote_version v;

	if (l->check.have_prev && l->check.prevlen == x->key_len &&
	    memcmp(l->check.prev, x->key, x->key_len) == 0)
		l->check.have_prev = 0;
	if ((l->err = list_check_entry(&l->check, &le, &v.last_modified)) !=
	    FERRY_OK)
		return 1;
	v.key = x->key;
	v.keylen = x->key_len;
	v.version_id = x->version_id;
	v.latest = x->is_latest;
	v.delete_marker = x->delete_marker;
	v.size = x->size;
	v.etag = x->etag;
	return l->fn(&v, l->arg);
}

/* The ListObjectVersions page of body into the listing's callback. */
static ferry_err
versions_parse(const char *body, size_t len, void *ctx, int *more,
    char **key_marker, char **id_marker)
{
	struct listing *l = ctx;
	ferry_err e = xml_list_versions_parse(
	    body, len, on_version, l, more, key_marker, id_marker);

	return e == FERRY_ECANCEL && l->err != FERRY_OK ? l->err : e;
}

ferry_err
remote_list_versions(struct remote *r, const char *bucket, const char *prefix,
    remote_version_fn fn, void *arg)
{
	struct listing l = {fn, arg, {0}, FERRY_OK};
	const struct remote_marker_list ml = {"ListObjectVersions", "versions",
	    "version-id-marker", 1, versions_parse, &l};

	list_check_init(&l.check, prefix, 1);
	return remote_list_markers(r, bucket, prefix, &ml);
}
