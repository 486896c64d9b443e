/*
 * loop.c: the one libcurl multi loop that carries every request, with
 * retries (exponential backoff, full jitter) and completion callbacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/internal.h"
#include "remote/xml.h"

#define BACKOFF_BASE_NS 100000000LL  /* 0.1 s */
#define BACKOFF_CAP_NS 20000000000LL /* 20 s */
#define RETRY_BUDGET_MAX 1000.0
#define RETRY_BUDGET_EARN 0.2

static uint64_t
next_random(struct remote *r)
{
	/* xorshift64*: jitter needs spread, not secrecy. */
	r->loop->rng ^= r->loop->rng >> 12;
	r->loop->rng ^= r->loop->rng << 25;
	r->loop->rng ^= r->loop->rng >> 27;
	return r->loop->rng * 2685821657736338717ULL;
}

ferry_err
remote_req_submit(struct remote_req *q, remote_done_fn done, void *arg)
{
	ferry_err e;

	q->done = done;
	q->done_arg = arg;
	q->attempt = 0;
	q->body_sent = 0;
	q->completed = 0;
	q->region_moved = 0;
	req_reset_response(q);
	if ((e = req_start(q)) != FERRY_OK)
		return e;
	q->r->loop->inflight++;
	concur_sent(&q->r->loop->concur, q->r->loop->inflight, now_mono_ns());
	q->submitted = 1;
	q->prev_sub = NULL;
	q->next_sub = q->r->loop->submitted;
	if (q->next_sub)
		q->next_sub->prev_sub = q;
	q->r->loop->submitted = q;
	return FERRY_OK;
}

/* Takes q out of the loop's lists: it is no longer submitted. */
static void
unlink_req(struct remote_req *q)
{
	struct remote_loop *l = q->r->loop;
	struct remote_req **pp;

	for (pp = &l->waiting; *pp; pp = &(*pp)->next_waiting) {
		if (*pp == q) {
			*pp = q->next_waiting;
			break;
		}
	}
	if (q->prev_sub)
		q->prev_sub->next_sub = q->next_sub;
	else
		l->submitted = q->next_sub;
	if (q->next_sub)
		q->next_sub->prev_sub = q->prev_sub;
	q->next_sub = q->prev_sub = NULL;
	q->submitted = 0;
	l->inflight--;
}

void
req_cancel(struct remote_req *q)
{
	if (!q->submitted)
		return;
	/* a HEAD Bucket asked for q ends on its own, for nobody */
	if (q->probe) {
		q->probe->done_arg = NULL;
		q->probe = NULL;
	}
	unlink_req(q);
}

static void
schedule_retry(struct remote *r, struct remote_req *q, const char *why)
{
	int64_t cap = BACKOFF_BASE_NS << (q->attempt < 16 ? q->attempt : 16);

	if (cap > BACKOFF_CAP_NS)
		cap = BACKOFF_CAP_NS;
	q->retry_at = now_mono_ns() + (int64_t)(next_random(r) % (uint64_t)cap);
	q->attempt++;
	r->stats.retries++;
	q->next_waiting = r->loop->waiting;
	r->loop->waiting = q;
	stall_retry(r, q, why);
}

static void
finish(struct remote *r, struct remote_req *q)
{
	(void)r;
	q->completed = 1;
	q->resp.outcome = reply_outcome(q);
	unlink_req(q);
	if (q->done)
		q->done(q, q->done_arg);
}

void
remote_end_all(struct remote *r)
{
	struct remote_req *q;

	/* a callback may submit more (an abort): those end here too */
	while ((q = r->loop->submitted) != NULL) {
		req_release(q);
		q->resp.err = FERRY_ECANCEL;
		snprintf(q->errbuf, sizeof(q->errbuf), "%s",
		    "the run stopped before the reply came");
		finish(q->r, q);
	}
}

/* What q's end says about the path, for the controller. */
static enum concur_event
concur_event_of(const struct remote_req *q, CURLcode rc)
{
	switch (rc) {
	case CURLE_OK:
		break;
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return CONCUR_LOST;
	default:
		return CONCUR_NEUTRAL;
	}
	if (q->resp.status == 503 || q->resp.status == 429)
		return CONCUR_THROTTLED;
	return q->resp.status / 100 == 2 ? CONCUR_OK : CONCUR_NEUTRAL;
}

/* The words of enum remote_concur_why, for -v and --json. */
static const char *
why_word(enum remote_concur_why w)
{
	static const char *words[] = {"start", "fixed", "growing", "flat",
	    "queueing", "cap", "probing", "slowdown", "lost", "recovering",
	    "recovered"};

	return (size_t)w < sizeof(words) / sizeof(*words) ? words[w] : "";
}

void
remote_concur_get(const struct remote *r, struct remote_concur *t)
{
	const struct concur *c = &r->loop->concur;

	t->in_flight = c->limit;
	t->cap = c->cap;
	t->fixed = c->fixed;
	t->why = c->why;
	t->reason = why_word(c->why);
	t->rate = c->rate;
	t->bytes_rate = c->byte_rate;
}

void
remote_on_concur(struct remote *r, remote_concur_fn fn, void *arg)
{
	r->loop->on_concur = fn;
	r->loop->on_concur_arg = arg;
}

/*
 * The controller decided: curl's connections follow (idle ones kept for
 * reuse up to twice the window), and the decision is told.
 */
static void
concur_told(struct remote *r)
{
	struct remote_loop *l = r->loop;
	struct remote_concur t;

	remote_concur_get(r, &t);
	curl_multi_setopt(
	    l->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)t.in_flight);
	curl_multi_setopt(
	    l->multi, CURLMOPT_MAXCONNECTS, (long)t.in_flight * 2 + 4);
	if (l->on_concur)
		l->on_concur(&t, l->on_concur_arg);
	log_info("requests in flight: %u of at most %u (%s; %.0f requests, "
	         "%.0f KiB a second)",
	    t.in_flight, t.cap, t.reason, t.rate, t.bytes_rate / 1024);
}

/*
 * Tells the controller how q ended, on easy (its times: all of it, and
 * before the request went); a retry budget for the whole run is refilled
 * by successes.
 */
static void
adjust_window(
    struct remote *r, const struct remote_req *q, CURLcode rc, CURL *easy)
{
	struct remote_loop *l = r->loop;
	struct concur_end e = {concur_event_of(q, rc),
	    q->sunk + q->resp.body.len, l->inflight, 0, 0};
	curl_off_t total_us = 0, before_us = 0;
	int64_t now = now_mono_ns();

	if (e.ev == CONCUR_OK && l->budget < RETRY_BUDGET_MAX)
		l->budget += RETRY_BUDGET_EARN;
	if (q->has_body)
		e.bytes += q->body_len;
	curl_easy_getinfo(easy, CURLINFO_TOTAL_TIME_T, &total_us);
	curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &before_us);
	e.sent_ns = now - (int64_t)total_us * 1000;
	e.took_ns = (int64_t)(total_us - before_us) * 1000;
	if (concur_done(&l->concur, &e, now))
		concur_told(r);
}

/*
 * Retries draw on a budget for the whole run, refilled by successes, so
 * that an endpoint that fails everything ends the run instead of being
 * retried at length for every request.
 */
static int
take_retry(struct remote_loop *l)
{
	if (l->budget < 1)
		return 0;
	l->budget -= 1;
	return 1;
}

/* Sends q again, to its bucket's region now.  Non-zero when it went. */
static int
restart(struct remote_req *q)
{
	req_reset_response(q);
	if (req_start(q) == FERRY_OK)
		return 1;
	q->resp.err = FERRY_ENET;
	snprintf(q->errbuf, sizeof(q->errbuf), "%s", ferry_errmsg());
	return 0;
}

/* The HEAD Bucket of a wrong-region reply to q (arg) has come back. */
static void
on_probe(struct remote_req *p, void *arg)
{
	struct remote_req *q = arg;
	char region[REGION_MAX];

	if (q != NULL) {
		q->probe = NULL;
		if (region_pick(p->resp.bucket_region, q->region, region) ==
		        1 &&
		    bucket_region_set(q->r, q->bucket, region) == FERRY_OK &&
		    restart(q))
			q = NULL;
	}
	remote_req_free(p);
	/* no region learnt: q ends with its own reply */
	if (q != NULL)
		finish(q->r, q);
}

/*
 * A reply saying that q's bucket lives in another region than q was
 * signed for: the region is recorded for the bucket and q is sent again
 * for it, once, without counting as a retry; when the reply does not
 * name the region, a HEAD Bucket asks for it first (its reply always
 * carries x-amz-bucket-region).  Returns non-zero when q goes on.
 */
static int
follow_region(struct remote_req *q)
{
	char region[REGION_MAX];
	struct remote_req *p;
	enum region_reply k;

	if (q->region_moved || q->is_probe)
		return 0;
	k = region_from_reply(q->resp.status, q->resp.bucket_region,
	    q->resp.body.data, q->resp.body.len, q->region, region);
	if (k == REGION_NONE)
		return 0;
	q->region_moved = 1;
	if (k == REGION_NAMED)
		return bucket_region_set(q->r, q->bucket, region) == FERRY_OK &&
		       restart(q);
	p = remote_req_new(q->r, REMOTE_HEAD, "HEAD", q->bucket, NULL, 0);
	if (p == NULL)
		return 0;
	p->is_probe = 1;
	if (remote_req_submit(p, on_probe, q) != FERRY_OK) {
		remote_req_free(p);
		return 0;
	}
	q->probe = p;
	return 1;
}

static void
on_done(struct remote *r, CURL *easy, CURLcode rc)
{
	struct remote_req *q = NULL;
	char why[160];
	int again;

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&q);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &q->resp.status);
	/* the loop may be shared: the request's own client counts it */
	r = q->r;
	if (rc == CURLE_OK && q->has_body)
		r->stats.bytes_sent += q->body_len;
	/* what the handle knows of a failure, before it goes back */
	if ((again = req_retryable(q, rc)) != 0)
		stall_reason(q, easy, rc, why, sizeof(why));
	adjust_window(r, q, rc, easy);
	req_release(q);
	/* any reply but an overloaded server's says it is there */
	if (rc == CURLE_OK && q->resp.status != 0 && q->resp.status < 500 &&
	    q->resp.status != 429)
		stall_answered(r->loop);
	if (rc == CURLE_OK && follow_region(q))
		return;
	if (again && q->attempt + 1 < r->retries && take_retry(r->loop)) {
		req_reset_response(q);
		schedule_retry(r, q, why);
		return;
	}
	if (rc != CURLE_OK) {
		q->resp.err = FERRY_ENET;
		/* the body's file, not the network */
		if (q->body_errno > 0)
			q->resp.err = FERRY_ESYS;
		else if (q->body_errno < 0)
			q->resp.err = FERRY_ECHANGED;
		if (q->body_errno != 0)
			snprintf(q->errbuf, sizeof(q->errbuf), "%s",
			    q->body_errno > 0
			        ? strerror(q->body_errno)
			        : "the file changed while it was read");
		/* a reply header out of bounds: the server's fault */
		if (q->fault[0] != '\0') {
			q->resp.err = FERRY_EPARSE;
			snprintf(q->errbuf, sizeof(q->errbuf), "%s", q->fault);
		}
		if (q->errbuf[0] == '\0')
			snprintf(q->errbuf, sizeof(q->errbuf), "%s",
			    curl_easy_strerror(rc));
	}
	finish(r, q);
}

/* Starts the retries that are due; returns ms until the next one, or -1. */
static int
start_due(struct remote *r)
{
	struct remote_req **pp = &r->loop->waiting, *q;
	int64_t now = now_mono_ns(), next = -1;

	while ((q = *pp) != NULL) {
		if (q->retry_at > now) {
			if (next < 0 || q->retry_at - now < next)
				next = q->retry_at - now;
			pp = &q->next_waiting;
			continue;
		}
		*pp = q->next_waiting;
		if (req_start(q) != FERRY_OK) {
			q->resp.err = FERRY_ENET;
			snprintf(
			    q->errbuf, sizeof(q->errbuf), "%s", ferry_errmsg());
			finish(r, q);
		}
	}
	return next < 0 ? -1 : (int)(next / 1000000) + 1;
}

/* Hands every finished transfer to on_done(). */
static void
collect(struct remote *r)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(r->loop->multi, &left)) != NULL) {
		if (m->msg == CURLMSG_DONE)
			on_done(r, m->easy_handle, m->data.result);
	}
}

ferry_err
remote_run(struct remote *r, int timeout_ms)
{
	ferry_err e;
	int due;

	due = start_due(r);
	if (due >= 0 && due < timeout_ms)
		timeout_ms = due;
	/* transfers paused for --bwlimit resume when the bucket allows */
	due = bw_tick(r->loop);
	if (due >= 0 && due < timeout_ms)
		timeout_ms = due;
	/* transfers added since the last run start here */
	if ((e = loop_timer(r->loop)) != FERRY_OK)
		return e;
	collect(r);
	if (r->loop->inflight == 0)
		return stall_check(r);
	if ((e = loop_wait(r->loop, timeout_ms)) != FERRY_OK)
		return e;
	collect(r);
	return stall_check(r);
}

ferry_err
remote_idle(struct remote *r, int timeout_ms)
{
	return loop_wait(r->loop, timeout_ms);
}

void
remote_wakeup(void *r)
{
	loop_wake(((struct remote *)r)->loop);
}

ferry_err
remote_run_once(struct remote *r)
{
	/* a run waiting on one reply stops at a signal as its loop would */
	if (ferry_interrupted)
		return ferry_fail(FERRY_ECANCEL, "interrupted by signal %d",
		    (int)ferry_interrupted);
	return remote_run(r, 1000);
}

ferry_err
remote_wait(struct remote *r, struct remote_req *q)
{
	ferry_err e;

	while (!q->completed) {
		if ((e = remote_run_once(r)) != FERRY_OK)
			return e;
	}
	return FERRY_OK;
}

ferry_err
remote_perform(struct remote *r, struct remote_req *q, int check_body)
{
	ferry_err e;

	if ((e = remote_req_submit(q, NULL, NULL)) != FERRY_OK)
		return e;
	if ((e = remote_wait(r, q)) != FERRY_OK)
		return e;
	return remote_req_result(q, check_body);
}

/* What to tell a user about an S3 error code, or "". */
static const char *
hint(const char *code)
{
	if (strcmp(code, "SignatureDoesNotMatch") == 0)
		return " (check the secret access key)";
	if (strcmp(code, "InvalidAccessKeyId") == 0)
		return " (check the access key id)";
	if (strcmp(code, "NoSuchBucket") == 0)
		return " (the bucket does not exist)";
	if (strcmp(code, "AccessDenied") == 0)
		return " (the credentials may not do this)";
	return "";
}

/* Records "S3 code: message" for an <Error> body. */
static ferry_err
s3_failure(struct remote_req *q, const struct xml_error *x)
{
	const char *code = x->code ? x->code : "error";
	const char *msg = x->message ? x->message : "";

	return ferry_fail(FERRY_ES3, "%s %s/%s: %s%s%s%s (HTTP %ld)", q->method,
	    q->bucket, q->key, code, *msg ? ": " : "", msg, hint(code),
	    q->resp.status);
}

ferry_err
remote_req_result(struct remote_req *q, int check_body)
{
	struct remote_resp *s = &q->resp;
	struct xml_error x = {0};
	ferry_err e;

	if (s->err != FERRY_OK)
		return ferry_fail(s->err, "%s %s/%s: %s", q->method, q->bucket,
		    q->key, q->errbuf);
	if (s->status / 100 == 2 && !check_body)
		return FERRY_OK;
	if (s->body.len &&
	    xml_error_parse(s->body.data, s->body.len, &x) == FERRY_OK) {
		e = s3_failure(q, &x);
		xml_error_clear(&x);
		return e;
	}
	if (s->status / 100 == 2)
		return FERRY_OK;
	if (s->status == 404)
		return ferry_fail(FERRY_ENOTFOUND, "%s %s/%s: not found",
		    q->method, q->bucket, q->key);
	return ferry_fail(FERRY_EHTTP, "%s %s/%s: HTTP %ld", q->method,
	    q->bucket, q->key, s->status);
}
