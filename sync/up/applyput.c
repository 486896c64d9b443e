/*
 * applyput.c: the PUT of an object that applies a plan (ferry apply):
 * conditional on the object it replaces being as the plan saw it (absent,
 * or of the ETag the plan saw), and where a server refuses the condition,
 * a HEAD just before the same PUT without it.
 */
#include <string.h>

#include "sync/up/xfer.h"

void
apply_put_cond(const struct xfer *x, struct remote_put *o)
{
	/* where the server refuses the condition, apply_upload() looked */
	if (x->p->run.o->plan == NULL ||
	    !remote_cond_usable(x->p->run.r, REMOTE_COND_PUT))
		return;
	o->if_absent = x->t.listed.etag[0] == '\0';
	o->if_match = x->t.listed.etag;
}

/* The HEAD of apply_put_refused(): the PUT again, or x fails, changed. */
static void
on_put_head(struct remote_req *q, void *arg)
{
	struct xfer *x = arg;
	const char *want = x->t.listed.etag;
	ferry_err e = remote_req_result(q, 0);
	int planned = want[0] ? e == FERRY_OK &&
	                            strcmp(remote_req_resp(q)->etag, want) == 0
	                      : e == FERRY_ENOTFOUND;

	if (planned)
		e = send_put(x);
	else if (e == FERRY_OK || e == FERRY_ENOTFOUND ||
	         (remote_req_resp(q)->outcome == REMOTE_PRECONDITION_FAILED))
		e = ferry_fail(FERRY_ECHANGED,
		    "the destination changed since the plan (the plan saw %s): "
		    "not written",
		    want[0] ? want : "it absent");
	remote_req_free(q);
	if (e != FERRY_OK)
		xfer_fail(x, e);
}

void
apply_put_refused(struct xfer *x)
{
	struct push *p = x->p;
	struct remote_req *q;
	ferry_err e;

	e = remote_head_object(p->run.r, p->run.loc.bucket, x->t.fullkey,
	    strlen(x->t.fullkey), x->t.listed.etag, &q);
	if (e == FERRY_OK &&
	    (e = remote_req_submit(q, on_put_head, x)) != FERRY_OK)
		remote_req_free(q);
	if (e != FERRY_OK)
		xfer_fail(x, e);
}
