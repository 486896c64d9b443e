/*
 * caps.c: the conditions a server refused, learned from its replies and
 * kept per client for the rest of the run, as caps.h describes.  What a
 * status or an S3 error code means for a condition is decided here.
 */
#include <stdio.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/xml.h"

/* What each condition guards, and what takes its place once refused. */
static const struct cond_words {
	const char *condition;
	const char *protection;
	const char *instead;
} words[REMOTE_NCONDS] = {
    {"delete-etags",
        "the ETag each key of a batch delete carries (an object "
        "rewritten since it was listed is not deleted)",
        "a HEAD of each key just before the batch delete, without ETags"},
    {"delete-if-match",
        "the If-Match condition of a delete (an object rewritten since "
        "it was listed is not deleted)",
        "a HEAD with the condition just before an unconditional delete"},
    {"put-if",
        "the If-None-Match / If-Match condition of a write (an object "
        "written by someone else since the plan is not replaced)",
        "a HEAD with the condition just before an unconditional write"},
    {"copy-if-match",
        "the x-amz-copy-source-if-match condition of a server-side copy "
        "(a source rewritten since it was listed is not copied)",
        "a streamed copy (GETs with If-Match, then PUT or UploadPart) "
        "of each multipart source"},
};

void
remote_on_fallback(struct remote *r, remote_fallback_fn fn, void *arg)
{
	r->on_fallback = fn;
	r->on_fallback_arg = arg;
}

int
remote_cond_usable(const struct remote *r, enum remote_cond c)
{
	return !(r->conds_lost & (1u << c));
}

/* Records c as lost for r, told once: why is the server's answer. */
static void
cond_lost(struct remote *r, enum remote_cond c, const char *why)
{
	struct remote_fallback f = {words[c].condition, words[c].protection,
	    words[c].instead, why, r->cfg.endpoint};

	if (!remote_cond_usable(r, c))
		return;
	r->conds_lost |= 1u << c;
	log_warn("%s refuses %s (%s); instead, for the rest of the run: %s",
	    r->cfg.endpoint, words[c].protection, why, words[c].instead);
	if (r->on_fallback)
		r->on_fallback(&f, r->on_fallback_arg);
}

/*
 * The reply's status and its <Code> into why ("400 MalformedXML"); returns
 * 1 when the code is one of those listed (NULL-terminated) or the status
 * is status (0: none).
 */
static int
reply_is(const struct remote_req *q, long status, const char *const *codes,
    char *why, size_t n)
{
	const struct remote_resp *s = &q->resp;
	struct xml_error x = {0};
	int is = status != 0 && s->status == status;
	size_t i;

	snprintf(why, n, "%ld", s->status);
	if (s->status / 100 == 2 || s->body.len == 0 ||
	    xml_error_parse(s->body.data, s->body.len, &x) != FERRY_OK)
		return is;
	for (i = 0; x.code && codes[i]; i++)
		is |= strcmp(x.code, codes[i]) == 0;
	if (x.code)
		snprintf(why, n, "%ld %s", s->status, x.code);
	xml_error_clear(&x);
	return is;
}

/* Non-zero when q carries the condition c. */
static int
carries(const struct remote_req *q, enum remote_cond c)
{
	switch (c) {
	case REMOTE_COND_DELETE_ETAGS:
		return 1; /* the caller knows its body */
	case REMOTE_COND_PUT:
		return req_has_header(q, "If-None-Match") ||
		       req_has_header(q, "If-Match");
	case REMOTE_COND_DELETE_IF_MATCH:
		return req_has_header(q, "If-Match");
	default:
		return req_has_header(q, "x-amz-copy-source-if-match");
	}
}

int
remote_cond_refused(const struct remote_req *q, enum remote_cond c)
{
	static const char *const malformed[] = {"MalformedXML", NULL};
	static const char *const unimplemented[] = {"NotImplemented", NULL};
	char why[128];
	int no;

	if (q->resp.status == 0 || q->resp.status / 100 == 2 || !carries(q, c))
		return 0;
	if (c == REMOTE_COND_DELETE_ETAGS)
		no = q->resp.status == 400 &&
		     reply_is(q, 0, malformed, why, sizeof(why));
	else
		no = reply_is(q, 501, unimplemented, why, sizeof(why));
	if (no)
		cond_lost(q->r, c, why);
	return no;
}

void
remote_cond_contradicted(struct remote *r, enum remote_cond c)
{
	cond_lost(r, c,
	    "412 PreconditionFailed, although a HEAD with the same "
	    "condition matched");
}

int
remote_copy_cond_usable(const struct remote *r, const char *etag)
{
	return remote_cond_usable(r, REMOTE_COND_COPY_IF_MATCH) ||
	       !remote_etag_multipart(etag);
}
