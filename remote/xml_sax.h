/*
 * xml_sax.h: the SAX engine under every parser of xml.h, on expat.  Private
 * to remote/xml*.c.
 *
 * A parser is a table (struct xml_sax_spec): the text fields it keeps,
 * named by their element path below the root ("Contents/Key", namespaces
 * ignored), and the records (<Contents>, <Part>, ...) whose end hands the
 * fields collected inside them to a callback.  Field buffers are reused
 * from record to record: a page of a thousand keys costs no allocation per
 * key.  A DOCTYPE or an entity declaration stops the parse; every field is
 * bounded; a root of <Error> switches to the fields of an S3 error.
 */
#ifndef FERRY_XML_SAX_H
#define FERRY_XML_SAX_H

#include <expat.h>

#include "xml.h"

/* Text fields one parser keeps; the last one is always EncodingType. */
#define XML_SAX_SLOTS 12
#define XML_SAX_ENC (XML_SAX_SLOTS - 1)
/* Rules name elements at most this many levels below the root. */
#define XML_PATH_LEVELS 3
#define XML_NAME_LEN_MAX 64
/* A listed key of XML_KEY_MAX bytes is at most three times longer encoded. */
#define XML_KEY_RAW_MAX (3 * XML_KEY_MAX)

#define XML_NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define XML_BIT(slot) (1u << (slot))

struct xml_rule {
	const char *path; /* below the root: "Contents/Key" */
	int slot;
	size_t max; /* longest text kept, in bytes */
	int cut;    /* cut at max (messages) instead of refusing the reply */
};

struct xml_record {
	const char *path;
	int kind;
	unsigned reset; /* slots emptied when the record opens */
};

struct xml_sax;
/* Called at the end of a record; a failure stops the parse with it. */
typedef ferry_err (*xml_record_fn)(struct xml_sax *s, int kind);

struct xml_sax_spec {
	const char *const *roots; /* accepted roots besides Error; NULL: any */
	const struct xml_rule *rules;
	size_t nrules;
	const struct xml_record *records;
	size_t nrecords;
	xml_record_fn on_record;
};

struct xml_sax {
	XML_Parser xp;
	const struct xml_sax_spec *spec;
	const struct xml_rule *rules; /* the spec's, or those of <Error> */
	size_t nrules;
	void *ctx; /* the caller's, for on_record */
	ferry_err err;
	int depth;        /* 1 inside the root */
	int is_error;     /* the root is <Error> */
	int url;          /* EncodingType was url */
	int started;      /* something other than leading blanks was fed */
	uint64_t fed;     /* bytes fed, counted by the caller */
	uint64_t emitted; /* records handed out */
	const struct xml_rule *cur; /* the field whose text is being read */
	unsigned seen;              /* slots met since their record opened */
	unsigned cut;               /* slots cut at their limit */
	size_t plen[XML_PATH_LEVELS + 2];
	char path[XML_PATH_LEVELS * (XML_NAME_LEN_MAX + 1) + 1];
	struct buf dec; /* a decoded key */
	struct buf slot[XML_SAX_SLOTS];
};

/*
 * Readies s for one document read with spec; ctx is kept for on_record.
 * spec must outlive s.  Free with xml_sax_free() even on failure.
 */
ferry_err xml_sax_init(
    struct xml_sax *s, const struct xml_sax_spec *spec, void *ctx) FERRY_WUR;
/* Frees what s holds (not s); accepts a zeroed or freed s. */
void xml_sax_free(struct xml_sax *s);
/*
 * Parses len more bytes (data may be NULL when len is 0); final on the
 * last.  Returns the first failure, again on every later call.
 */
ferry_err xml_sax_feed(
    struct xml_sax *s, const char *data, size_t len, int final) FERRY_WUR;
/*
 * Parses a whole reply.  An <Error> root returns FERRY_ES3 with "code:
 * message" as the detail, and fills err (malloc'd fields) when non-NULL.
 */
ferry_err xml_sax_reply(struct xml_sax *s, const char *body, size_t len,
    struct xml_error *err) FERRY_WUR;
/* The <Error> fields into err (malloc'd, NULL when absent). */
ferry_err xml_sax_error_fill(
    const struct xml_sax *s, struct xml_error *err) FERRY_WUR;
/* FERRY_ES3 with the <Error> code and message as the detail. */
ferry_err xml_sax_error_reply(
    const struct xml_sax *s, struct xml_error *err) FERRY_WUR;

/* The text of slot i ("" when absent), valid until its record reopens. */
const char *xml_sax_str(const struct xml_sax *s, int i);
/* Non-zero when slot i was met since its record opened. */
int xml_sax_has(const struct xml_sax *s, int i);
/* A malloc'd copy of slot i into *out; NULL when the field was absent. */
ferry_err xml_sax_dup(const struct xml_sax *s, int i, char **out) FERRY_WUR;
/*
 * The key in slot i, decoded when the reply said EncodingType=url, into
 * *key and *len; valid until the next record.  FERRY_EPARSE when empty,
 * malformed, over XML_KEY_MAX bytes or holding a NUL.
 */
ferry_err xml_sax_key(
    struct xml_sax *s, int i, const char **key, size_t *len) FERRY_WUR;
/* A plain decimal uint64 (no sign, no blanks); what names the field. */
ferry_err xml_sax_u64(const char *what, const char *t, uint64_t *out) FERRY_WUR;
/* IsTruncated in slot i: absent is false; not "true"/"false" is refused. */
ferry_err xml_sax_truncated(const struct xml_sax *s, int i, int *out) FERRY_WUR;
/* The same for the boolean named what in slot i. */
ferry_err xml_sax_bool(
    const struct xml_sax *s, int i, const char *what, int *out) FERRY_WUR;
/*
 * The end of a page listed by markers: IsTruncated in slots[0], the next
 * key marker (decoded) in slots[1] and the next id marker in slots[2]
 * into *truncated and malloc'd *next_key, *next_id (NULL when absent:
 * the caller sets them so first and frees them).  A truncated page
 * without a key marker is FERRY_EPARSE.
 */
ferry_err xml_sax_markers(struct xml_sax *s, const int slots[3], int *truncated,
    char **next_key, char **next_id) FERRY_WUR;

/*
 * One page of a paged listing: the caller's callback for each record
 * (the member its on_record reads), and where the page's end goes.  The
 * spec's on_record finds it as s->ctx.
 */
struct xml_page {
	union {
		xml_part_fn part;
		xml_upload_fn upload;
		xml_version_fn version;
	} fn;
	void *arg;
	const int *tail;       /* marker pages: see xml_sax_markers() */
	int *truncated;        /* IsTruncated */
	char **next_key;       /* marker pages: malloc'd, or NULL */
	char **next_id;        /* marker pages: malloc'd, or NULL */
	uint32_t *next_number; /* ListParts: NextPartNumberMarker */
};
/* Reads the end of a page from s, while its last fields are there. */
typedef ferry_err (*xml_tail_fn)(struct xml_sax *s);
/*
 * Parses the reply body[0..len) with spec, each record to spec's
 * on_record with pg as s->ctx, then its end with tail (NULL: none).
 * Returns the first failure; the caller clears pg's outputs on one.
 */
ferry_err xml_sax_page(const struct xml_sax_spec *spec, struct xml_page *pg,
    const char *body, size_t len, xml_tail_fn tail) FERRY_WUR;
/*
 * xml_sax_page() for a listing paged by a key marker and an id marker
 * (ListMultipartUploads, ListObjectVersions): the end from the slots
 * pg->tail as xml_sax_markers() reads them into *pg->truncated,
 * *pg->next_key and *pg->next_id (malloc'd, the caller frees them; all
 * zero and NULL on failure).
 */
ferry_err xml_sax_marker_page(const struct xml_sax_spec *spec,
    struct xml_page *pg, const char *body, size_t len) FERRY_WUR;

#endif
