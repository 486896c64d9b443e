/*
 * caps.h: the safety conditions ferry asks of a server, and those a
 * server was seen to refuse (caps.c).  Included by remote.h.
 *
 * Nothing is assumed of a server: each condition is sent until the
 * server refuses it, and from then on the client holds it as lost for
 * the rest of the run, its callers taking the safest request that server
 * does take instead (a HEAD just before an unconditional request, a
 * streamed copy).  The loss is told once per client: a warning on stderr
 * and remote_on_fallback()'s hook.
 */
#ifndef FERRY_REMOTE_CAPS_H
#define FERRY_REMOTE_CAPS_H

struct remote;
struct remote_req;

/* A condition that ferry sends for safety. */
enum remote_cond {
	REMOTE_COND_DELETE_ETAGS,    /* the ETag of each key of DeleteObjects */
	REMOTE_COND_DELETE_IF_MATCH, /* If-Match on DeleteObject */
	REMOTE_COND_PUT,             /* If-None-Match / If-Match on PutObject */
	REMOTE_COND_COPY_IF_MATCH,   /* x-amz-copy-source-if-match */
	REMOTE_NCONDS
};

/* A condition lost, as remote_on_fallback()'s hook sees it. */
struct remote_fallback {
	const char *condition;  /* a stable word: "delete-etags", ... */
	const char *protection; /* what it guarded, in words */
	const char *instead;    /* what ferry does instead, in words */
	const char *reason;     /* the server's answer: "400 MalformedXML" */
	const char *endpoint;   /* the server's URL */
};
/* Everything in f is valid during the call only. */
typedef void (*remote_fallback_fn)(const struct remote_fallback *f, void *arg);
/*
 * Has fn(f, arg) called once for each condition r's server is found to
 * refuse, after the warning on stderr.  NULL: none.
 */
void remote_on_fallback(struct remote *r, remote_fallback_fn fn, void *arg);

/* Non-zero unless r's server was seen to refuse c during this run. */
int remote_cond_usable(const struct remote *r, enum remote_cond c);

/*
 * Whether the completed q, sent with the condition c (a DeleteObjects
 * with ETags, for REMOTE_COND_DELETE_ETAGS), was refused for it: the ETags of a
 * DeleteObjects as MalformedXML (Swift), a condition as not implemented (501,
 * NotImplemented: Swift's PUTs).  When so, c is lost for q's client (told once)
 * and 1 is returned.  A 412 is not a refusal here: see
 * remote_cond_contradicted().
 */
int remote_cond_refused(const struct remote_req *q, enum remote_cond c);

/*
 * Records c as lost for r (told once): a 412 to a request of r under c
 * was contradicted by a HEAD with the same condition, which the object
 * matched.
 */
void remote_cond_contradicted(struct remote *r, enum remote_cond c);

/*
 * Non-zero when a server-side copy of a source with the ETag etag can be
 * conditioned on r: unless r's server refused the copy's condition, and
 * etag is of a multipart object (the kind whose copy Swift cannot
 * condition: it compares another ETag).
 */
int remote_copy_cond_usable(const struct remote *r, const char *etag);

#endif
