/*
 * xml_sax.c: the SAX engine under every parser of xml.h (see xml_sax.h),
 * the <Error> fields it switches to and the <Error> documents it reads
 * (xml_error_parse(), xml_is_error()), and the small readers of keys and
 * numbers the parsers share.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "remote/url.h"
#include "xml_sax.h"

/* Separates namespace URI and local name; never a character of a name. */
#define NS_SEP '|'
#define DEPTH_MAX 256
#define FEED_CHUNK (1 << 30)

enum { E_CODE, E_MESSAGE, E_KEY, E_REGION };

static const struct xml_rule error_rules[] = {
    {"Code", E_CODE, XML_FIELD_MAX, 0},
    {"Message", E_MESSAGE, XML_FIELD_MAX, 1},
    {"Key", E_KEY, XML_KEY_MAX, 1},
    {"Region", E_REGION, XML_FIELD_MAX, 0},
};

/*
 * Records the first failure (FERRY_OK is no failure) and stops expat;
 * later callbacks do nothing.
 */
static void
sax_fail(struct xml_sax *s, ferry_err e)
{
	if (e == FERRY_OK || s->err != FERRY_OK)
		return;
	s->err = e;
	XML_StopParser(s->xp, XML_FALSE);
}

const char *
xml_sax_str(const struct xml_sax *s, int i)
{
	return s->slot[i].data ? s->slot[i].data : "";
}

int
xml_sax_has(const struct xml_sax *s, int i)
{
	return (s->seen & XML_BIT(i)) != 0;
}

static const char *
local_name(const char *name)
{
	const char *p = strrchr(name, NS_SEP);

	return p ? p + 1 : name;
}

/* Returns how many of the first room bytes of t end on a UTF-8 boundary. */
static size_t
utf8_cut(const char *t, size_t room)
{
	while (room > 0 && ((unsigned char)t[room] & 0xC0) == 0x80)
		room--;
	return room;
}

static void
field_text(struct xml_sax *s, const char *t, size_t n)
{
	const struct xml_rule *r = s->cur;
	struct buf *b = &s->slot[r->slot];
	ferry_err e;

	if (s->cut & XML_BIT(r->slot))
		return;
	if (n > r->max - b->len) {
		if (!r->cut) {
			sax_fail(s,
			    ferry_fail(FERRY_EPARSE,
			        "<%s> longer than %zu bytes", r->path, r->max));
			return;
		}
		n = utf8_cut(t, r->max - b->len);
		s->cut |= XML_BIT(r->slot);
	}
	if ((e = buf_append(b, t, n)) != FERRY_OK)
		sax_fail(s, e);
}

static void XMLCALL
on_text(void *ud, const XML_Char *t, int len)
{
	struct xml_sax *s = ud;

	if (s->err != FERRY_OK || s->cur == NULL || len <= 0)
		return;
	field_text(s, t, (size_t)len);
}

static void
start_root(struct xml_sax *s, const char *name)
{
	const char *const *r;

	if (strcmp(name, "Error") == 0) {
		s->is_error = 1;
		s->rules = error_rules;
		s->nrules = XML_NELEM(error_rules);
		return;
	}
	if (s->spec->roots == NULL)
		return;
	for (r = s->spec->roots; *r != NULL; r++)
		if (strcmp(name, *r) == 0)
			return;
	sax_fail(s, ferry_fail(FERRY_EPARSE, "unexpected <%.64s> reply", name));
}

static void
path_push(struct xml_sax *s, const char *name)
{
	size_t n = strlen(name);
	char *p = s->path + s->plen[s->depth - 1];

	if (s->depth > 2)
		*p++ = '/';
	if (n > XML_NAME_LEN_MAX) {
		/* no rule names it; keep a placeholder that matches nothing */
		name = "\x01";
		n = 1;
	}
	memcpy(p, name, n);
	p[n] = '\0';
	s->plen[s->depth] = (size_t)(p + n - s->path);
}

/* Empties the slots of a record so that nothing of the last one shows. */
static void
record_open(struct xml_sax *s, unsigned reset)
{
	int i;

	for (i = 0; i < XML_SAX_SLOTS; i++)
		if (reset & XML_BIT(i))
			buf_reset(&s->slot[i]);
	s->seen &= ~reset;
}

/* Opens a record or starts reading a field if the path names one. */
static void
start_tracked(struct xml_sax *s)
{
	const struct xml_rule *r;
	size_t i;

	for (i = 0; !s->is_error && i < s->spec->nrecords; i++)
		if (strcmp(s->path, s->spec->records[i].path) == 0) {
			record_open(s, s->spec->records[i].reset);
			return;
		}
	for (i = 0; i < s->nrules; i++) {
		r = &s->rules[i];
		if (strcmp(s->path, r->path) != 0)
			continue;
		if (xml_sax_has(s, r->slot)) {
			sax_fail(s, ferry_fail(FERRY_EPARSE, "<%s> given twice",
			                r->path));
			return;
		}
		s->seen |= XML_BIT(r->slot);
		s->cut &= ~XML_BIT(r->slot);
		buf_reset(&s->slot[r->slot]);
		s->cur = r;
		return;
	}
}

static void XMLCALL
on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
	struct xml_sax *s = ud;

	(void)attrs;
	if (s->err != FERRY_OK)
		return;
	if (s->cur != NULL) {
		sax_fail(s, ferry_fail(FERRY_EPARSE, "element inside <%s>",
		                s->cur->path));
		return;
	}
	if (++s->depth > DEPTH_MAX) {
		sax_fail(s, ferry_fail(FERRY_EPARSE, "XML nested too deep"));
		return;
	}
	if (s->depth == 1) {
		start_root(s, local_name(name));
		return;
	}
	if (s->depth > XML_PATH_LEVELS + 1)
		return;
	path_push(s, local_name(name));
	start_tracked(s);
}

/* EncodingType decides how keys are read: it must come before any key. */
static ferry_err
end_encoding(struct xml_sax *s)
{
	if (strcmp(xml_sax_str(s, XML_SAX_ENC), "url") != 0)
		return ferry_fail(FERRY_EPARSE, "unknown EncodingType '%s'",
		    xml_sax_str(s, XML_SAX_ENC));
	if (s->emitted > 0)
		return ferry_fail(
		    FERRY_EPARSE, "EncodingType given after keys were read");
	s->url = 1;
	return FERRY_OK;
}

static void
end_tracked(struct xml_sax *s)
{
	const struct xml_record *rec;
	size_t i;

	for (i = 0; !s->is_error && i < s->spec->nrecords; i++) {
		rec = &s->spec->records[i];
		if (strcmp(s->path, rec->path) != 0)
			continue;
		s->emitted++;
		sax_fail(s, s->spec->on_record(s, rec->kind));
		return;
	}
}

static void XMLCALL
on_end(void *ud, const XML_Char *name)
{
	struct xml_sax *s = ud;
	int tracked = s->depth >= 2 && s->depth <= XML_PATH_LEVELS + 1;

	(void)name;
	if (s->err != FERRY_OK)
		return;
	if (s->cur != NULL) {
		if (s->cur->slot == XML_SAX_ENC)
			sax_fail(s, end_encoding(s));
		s->cur = NULL;
	} else if (tracked) {
		end_tracked(s);
	}
	if (tracked)
		s->path[s->plen[s->depth - 1]] = '\0';
	s->depth--;
}

static void XMLCALL
on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
    const XML_Char *pubid, int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	sax_fail(ud, ferry_fail(FERRY_EPARSE, "DOCTYPE in a reply refused"));
}

static void XMLCALL
on_entity(void *ud, const XML_Char *name, int is_param, const XML_Char *value,
    int value_len, const XML_Char *base, const XML_Char *sysid,
    const XML_Char *pubid, const XML_Char *notation)
{
	(void)name;
	(void)is_param;
	(void)value;
	(void)value_len;
	(void)base;
	(void)sysid;
	(void)pubid;
	(void)notation;
	sax_fail(ud, ferry_fail(FERRY_EPARSE, "entity in a reply refused"));
}

void
xml_sax_free(struct xml_sax *s)
{
	int i;

	if (s->xp != NULL)
		XML_ParserFree(s->xp);
	s->xp = NULL;
	for (i = 0; i < XML_SAX_SLOTS; i++)
		buf_free(&s->slot[i]);
	buf_free(&s->dec);
}

/*
 * The document's own encoding declaration is overridden with UTF-8, which
 * is what S3 sends; no external entity handler is set, so nothing outside
 * the reply is ever read.
 */
ferry_err
xml_sax_init(struct xml_sax *s, const struct xml_sax_spec *spec, void *ctx)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < XML_SAX_SLOTS; i++)
		buf_init(&s->slot[i], XML_KEY_RAW_MAX);
	buf_init(&s->dec, XML_KEY_RAW_MAX);
	s->spec = spec;
	s->rules = spec->rules;
	s->nrules = spec->nrules;
	s->ctx = ctx;
	if ((s->xp = XML_ParserCreateNS("UTF-8", NS_SEP)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	XML_SetUserData(s->xp, s);
	XML_SetElementHandler(s->xp, on_start, on_end);
	XML_SetCharacterDataHandler(s->xp, on_text);
	XML_SetStartDoctypeDeclHandler(s->xp, on_doctype);
	XML_SetEntityDeclHandler(s->xp, on_entity);
	XML_SetParamEntityParsing(s->xp, XML_PARAM_ENTITY_PARSING_NEVER);
	return FERRY_OK;
}

static ferry_err
parse_failure(struct xml_sax *s)
{
	enum XML_Error code = XML_GetErrorCode(s->xp);

	if (s->err != FERRY_OK)
		return s->err;
	s->err = ferry_fail(FERRY_EPARSE,
	    "XML reply: %s at line %lu column %lu", XML_ErrorString(code),
	    (unsigned long)XML_GetCurrentLineNumber(s->xp),
	    (unsigned long)XML_GetCurrentColumnNumber(s->xp));
	return s->err;
}

/*
 * S3 keeps a slow CompleteMultipartUpload or CopyObject alive by sending
 * blanks before the XML declaration, which expat refuses; they are skipped.
 */
static void
skip_blanks(struct xml_sax *s, const char **data, size_t *len)
{
	while (!s->started && *len > 0 &&
	       (**data == ' ' || **data == '\t' || **data == '\r' ||
	           **data == '\n')) {
		(*data)++;
		(*len)--;
	}
	if (*len > 0)
		s->started = 1;
}

ferry_err
xml_sax_feed(struct xml_sax *s, const char *data, size_t len, int final)
{
	int n, last;

	if (s->err != FERRY_OK)
		return s->err;
	if (data == NULL)
		data = "";
	skip_blanks(s, &data, &len);
	do {
		n = len > FEED_CHUNK ? FEED_CHUNK : (int)len;
		last = final && (size_t)n == len;
		if (XML_Parse(s->xp, data, n, last) != XML_STATUS_OK)
			return parse_failure(s);
		data += n;
		len -= (size_t)n;
	} while (len > 0);
	return s->err;
}

/* Copies slot i into a malloc'd string; NULL when the field was absent. */
ferry_err
xml_sax_dup(const struct xml_sax *s, int i, char **out)
{
	*out = NULL;
	if (!xml_sax_has(s, i))
		return FERRY_OK;
	if ((*out = strdup(xml_sax_str(s, i))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

ferry_err
xml_sax_error_fill(const struct xml_sax *s, struct xml_error *err)
{
	ferry_err e;

	if ((e = xml_sax_dup(s, E_CODE, &err->code)) != FERRY_OK ||
	    (e = xml_sax_dup(s, E_MESSAGE, &err->message)) != FERRY_OK ||
	    (e = xml_sax_dup(s, E_KEY, &err->key)) != FERRY_OK ||
	    (e = xml_sax_dup(s, E_REGION, &err->region)) != FERRY_OK)
		xml_error_clear(err);
	return e;
}

/* An <Error> root where a result was expected: fills err, FERRY_ES3. */
ferry_err
xml_sax_error_reply(const struct xml_sax *s, struct xml_error *err)
{
	ferry_err e;

	if (err != NULL && (e = xml_sax_error_fill(s, err)) != FERRY_OK)
		return e;
	return ferry_fail(FERRY_ES3, "%s: %s",
	    xml_sax_has(s, E_CODE) ? xml_sax_str(s, E_CODE) : "unknown error",
	    xml_sax_str(s, E_MESSAGE));
}

/* Parses a whole reply; FERRY_ES3 with err filled for an <Error>. */
ferry_err
xml_sax_reply(
    struct xml_sax *s, const char *body, size_t len, struct xml_error *err)
{
	ferry_err e;

	if ((e = xml_sax_feed(s, body, len, 1)) != FERRY_OK)
		return e;
	if (s->is_error)
		return xml_sax_error_reply(s, err);
	return FERRY_OK;
}

ferry_err
xml_sax_u64(const char *what, const char *t, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	*out = 0;
	if (*t == '\0')
		return ferry_fail(FERRY_EPARSE, "empty <%s>", what);
	for (p = t; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return ferry_fail(
			    FERRY_EPARSE, "<%s> '%.32s' not a number", what, t);
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return ferry_fail(
			    FERRY_EPARSE, "<%s> '%.32s' too large", what, t);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return FERRY_OK;
}

/* A boolean: absent is false; anything but "true"/"false" refused. */
ferry_err
xml_sax_bool(const struct xml_sax *s, int slot, const char *what, int *out)
{
	const char *t = xml_sax_str(s, slot);

	*out = 0;
	if (!xml_sax_has(s, slot) || strcmp(t, "false") == 0)
		return FERRY_OK;
	if (strcmp(t, "true") != 0)
		return ferry_fail(FERRY_EPARSE, "<%s> '%.32s'", what, t);
	*out = 1;
	return FERRY_OK;
}

ferry_err
xml_sax_truncated(const struct xml_sax *s, int slot, int *out)
{
	return xml_sax_bool(s, slot, "IsTruncated", out);
}

/*
 * The markers come before EncodingType in AWS's replies, so the key marker
 * is decoded only now, at the end.
 */
ferry_err
xml_sax_markers(struct xml_sax *s, const int slots[3], int *truncated,
    char **next_key, char **next_id)
{
	const char *k;
	size_t n;
	ferry_err e;

	if ((e = xml_sax_truncated(s, slots[0], truncated)) != FERRY_OK)
		return e;
	if (s->slot[slots[1]].len > 0) {
		if ((e = xml_sax_key(s, slots[1], &k, &n)) != FERRY_OK)
			return e;
		if ((*next_key = strdup(k)) == NULL)
			return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	if (s->slot[slots[2]].len > 0 &&
	    (e = xml_sax_dup(s, slots[2], next_id)) != FERRY_OK)
		return e;
	if (*truncated && *next_key == NULL)
		return ferry_fail(
		    FERRY_EPARSE, "a list truncated without NextKeyMarker");
	return FERRY_OK;
}

ferry_err
xml_sax_page(const struct xml_sax_spec *spec, struct xml_page *pg,
    const char *body, size_t len, xml_tail_fn tail)
{
	struct xml_sax s;
	ferry_err e;

	if ((e = xml_sax_init(&s, spec, pg)) == FERRY_OK &&
	    (e = xml_sax_reply(&s, body, len, NULL)) == FERRY_OK && tail)
		e = tail(&s);
	xml_sax_free(&s);
	return e;
}

static ferry_err
marker_tail(struct xml_sax *s)
{
	struct xml_page *pg = s->ctx;

	return xml_sax_markers(
	    s, pg->tail, pg->truncated, pg->next_key, pg->next_id);
}

ferry_err
xml_sax_marker_page(const struct xml_sax_spec *spec, struct xml_page *pg,
    const char *body, size_t len)
{
	ferry_err e;

	*pg->truncated = 0;
	*pg->next_key = NULL;
	*pg->next_id = NULL;
	if ((e = xml_sax_page(spec, pg, body, len, marker_tail)) != FERRY_OK) {
		*pg->truncated = 0;
		free(*pg->next_key);
		free(*pg->next_id);
		*pg->next_key = *pg->next_id = NULL;
	}
	return e;
}

/*
 * Returns in *key the key held in slot, decoded when the reply said
 * EncodingType=url; valid until the next record.
 */
ferry_err
xml_sax_key(struct xml_sax *s, int slot, const char **key, size_t *len)
{
	const char *k = xml_sax_str(s, slot);
	size_t n = s->slot[slot].len;

	*key = NULL;
	*len = 0;
	if (s->url) {
		/*
		 * AWS encodes as HTML forms do: a space is '+' and a '+' is
		 * %2B.  Ceph RGW writes a space as %20 and also escapes '+'
		 * as %2B, so neither server ever sends a literal '+' for a
		 * '+', and reading '+' as a space is right for both.
		 */
		buf_reset(&s->dec);
		if (uri_decode(&s->dec, k, n, 1) != FERRY_OK)
			return ferry_fail(FERRY_EPARSE,
			    "malformed %%-escape in a listed key");
		k = s->dec.data;
		n = s->dec.len;
	}
	if (n == 0)
		return ferry_fail(FERRY_EPARSE, "empty or missing <Key>");
	if (n > XML_KEY_MAX)
		return ferry_fail(FERRY_EPARSE,
		    "listed key of %zu bytes, over %d", n, XML_KEY_MAX);
	if (memchr(k, '\0', n) != NULL)
		return ferry_fail(FERRY_EPARSE, "listed key holds a NUL byte");
	*key = k;
	*len = n;
	return FERRY_OK;
}

/* <Error> */

ferry_err
xml_error_parse(const char *body, size_t len, struct xml_error *err)
{
	static const struct xml_sax_spec spec = {NULL, NULL, 0, NULL, 0, NULL};
	struct xml_sax s;
	ferry_err e;

	memset(err, 0, sizeof(*err));
	if ((e = xml_sax_init(&s, &spec, NULL)) != FERRY_OK)
		goto out;
	if ((e = xml_sax_feed(&s, body, len, 1)) != FERRY_OK)
		goto out;
	if (!s.is_error) {
		e = ferry_fail(FERRY_ENOTFOUND, "reply is not an S3 <Error>");
		goto out;
	}
	e = xml_sax_error_fill(&s, err);
out:
	xml_sax_free(&s);
	return e;
}

void
xml_error_clear(struct xml_error *err)
{
	if (err == NULL)
		return;
	free(err->code);
	free(err->message);
	free(err->key);
	free(err->region);
	memset(err, 0, sizeof(*err));
}

struct root_sniff {
	XML_Parser xp;
	int is_error;
};

/* The root's name decides; nothing past its start tag is read. */
static void XMLCALL
sniff_start(void *ud, const XML_Char *name, const XML_Char **attr)
{
	struct root_sniff *r = ud;

	(void)attr;
	r->is_error = strcmp(name, "Error") == 0;
	XML_StopParser(r->xp, XML_FALSE);
}

/* A document type comes before no S3 reply: it is not an <Error>. */
static void XMLCALL
sniff_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
    const XML_Char *pubid, int has_internal_subset)
{
	struct root_sniff *r = ud;

	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	XML_StopParser(r->xp, XML_FALSE);
}

int
xml_is_error(const char *body, size_t len)
{
	struct root_sniff r = {NULL, 0};

	if (body == NULL || len == 0 || len > INT_MAX)
		return 0;
	if ((r.xp = XML_ParserCreate("UTF-8")) == NULL)
		return 0;
	XML_SetUserData(r.xp, &r);
	XML_SetStartElementHandler(r.xp, sniff_start);
	XML_SetStartDoctypeDeclHandler(r.xp, sniff_doctype);
	(void)XML_Parse(r.xp, body, (int)len, 1);
	XML_ParserFree(r.xp);
	return r.is_error;
}
