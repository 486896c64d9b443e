/*
 * xml_body.c: the two request bodies S3 takes as XML, DeleteObjects and
 * CompleteMultipartUpload, escaped for XML 1.0.
 */
#include <stdio.h>
#include <string.h>

#include "xml.h"

#define DELETE_KEYS_MAX 1000
#define PARTS_MAX 10000
#define S3_XMLNS "http://s3.amazonaws.com/doc/2006-03-01/"

/* The Char production of XML 1.0. */
static int
xml_char_ok(long cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD ||
	       (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
	       (cp >= 0x10000 && cp <= 0x10FFFF);
}

/*
 * Returns the reference that stands for cp in text, or NULL when cp goes
 * as is.  Control characters are references so that no parser normalizes
 * a CR or a tab away.
 */
static const char *
xml_ref(long cp, char ref[16])
{
	switch (cp) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&apos;";
	}
	if (cp >= 0x20 && (cp < 0x7F || cp > 0x9F))
		return NULL;
	snprintf(ref, 16, "&#%u;", (unsigned)(cp & 0x1fffff));
	return ref;
}

/* Appends s[0..n) to out as XML text. */
static ferry_err
xml_escape(struct buf *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, len = 0;
	const char *ref;
	char tmp[16];
	long cp;
	ferry_err e;

	while (i < n) {
		cp = utf8_next(u + i, n - i, &len);
		if (cp < 0 || !xml_char_ok(cp))
			return ferry_fail(FERRY_EPARSE,
			    "byte %zu of '%.*s' cannot be sent in XML", i,
			    (int)(n < 64 ? n : 64), s);
		if ((ref = xml_ref(cp, tmp)) == NULL) {
			i += len;
			continue;
		}
		if ((e = buf_append(out, s + run, i - run)) != FERRY_OK ||
		    (e = buf_puts(out, ref)) != FERRY_OK)
			return e;
		i += len;
		run = i;
	}
	return buf_append(out, s + run, n - run);
}

ferry_err
xml_delete_body(struct buf *out, const char *const *keys,
    const size_t *key_lens, const char *const *etags, size_t n)
{
	size_t i, len;
	ferry_err e;

	buf_reset(out);
	if (n == 0 || n > DELETE_KEYS_MAX)
		return ferry_fail(
		    FERRY_EUSAGE, "%zu keys in one DeleteObjects", n);
	e = buf_puts(out, "<Delete xmlns=\"" S3_XMLNS "\">"
	                  "<Quiet>false</Quiet>");
	for (i = 0; i < n && e == FERRY_OK; i++) {
		len = key_lens != NULL ? key_lens[i] : strlen(keys[i]);
		if ((e = buf_puts(out, "<Object><Key>")) != FERRY_OK ||
		    (e = xml_escape(out, keys[i], len)) != FERRY_OK ||
		    (e = buf_puts(out, "</Key>")) != FERRY_OK)
			break;
		/* the condition: deleted only while it has this ETag */
		if (etags != NULL && etags[i] != NULL && etags[i][0] != '\0' &&
		    ((e = buf_puts(out, "<ETag>")) != FERRY_OK ||
		        (e = xml_escape(out, etags[i], strlen(etags[i]))) !=
		            FERRY_OK ||
		        (e = buf_puts(out, "</ETag>")) != FERRY_OK))
			break;
		e = buf_puts(out, "</Object>");
	}
	if (e == FERRY_OK)
		e = buf_puts(out, "</Delete>");
	if (e != FERRY_OK)
		buf_reset(out);
	return e;
}

ferry_err
xml_complete_body(struct buf *out, const char *const *etags, size_t nparts)
{
	size_t i;
	ferry_err e;

	buf_reset(out);
	if (nparts == 0 || nparts > PARTS_MAX)
		return ferry_fail(
		    FERRY_EUSAGE, "%zu parts in one upload", nparts);
	e = buf_puts(out, "<CompleteMultipartUpload xmlns=\"" S3_XMLNS "\">");
	for (i = 0; i < nparts && e == FERRY_OK; i++) {
		if (etags[i] == NULL) {
			e = ferry_fail(FERRY_EUSAGE,
			    "part %zu xml_sax_has no ETag", i + 1);
			break;
		}
		if ((e = buf_printf(out,
		         "<Part><PartNumber>%zu</PartNumber>"
		         "<ETag>",
		         i + 1)) != FERRY_OK ||
		    (e = xml_escape(out, etags[i], strlen(etags[i]))) !=
		        FERRY_OK)
			break;
		e = buf_puts(out, "</ETag></Part>");
	}
	if (e == FERRY_OK)
		e = buf_puts(out, "</CompleteMultipartUpload>");
	if (e != FERRY_OK)
		buf_reset(out);
	return e;
}
