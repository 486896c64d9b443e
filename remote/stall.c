/*
 * stall.c: what a run tells of its retries, and when it gives up on a
 * server that does not answer.
 *
 * A server that stops answering makes every request wait out its read
 * timeout, attempt after attempt: each retry is said on stderr (or, when
 * many come at once, one line every few seconds sums them up), and once
 * requests have waited the stall timeout with no answer and no byte
 * moving, remote_run() fails, so that the run ends instead of retrying
 * for as long as the attempts last.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "remote/internal.h"

#define TELL_EVERY_NS 5000000000LL /* at most a summed-up line so often */
#define GAP_NS 5000000000LL        /* the loop did not run: not silence */

void
remote_on_retry(struct remote *r, remote_retry_fn fn, void *arg)
{
	r->on_retry = fn;
	r->on_retry_arg = arg;
}

void
stall_reason(
    const struct remote_req *q, CURL *easy, CURLcode rc, char *why, size_t n)
{
	curl_off_t connect_us = 0, sent_us = 0;
	long oserr = 0;

	if (rc == CURLE_OK) {
		snprintf(why, n, "the server answered HTTP %ld%s",
		    q->resp.status,
		    q->resp.status / 100 == 2 ? " with an error" : "");
		return;
	}
	curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &oserr);
	/* the request went out, on a new connection or on a kept one */
	curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
	curl_easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &sent_us);
	if (rc == CURLE_OPERATION_TIMEDOUT && (connect_us > 0 || sent_us > 0))
		snprintf(why, n, "the server did not answer within %u s",
		    q->r->read_timeout);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		snprintf(why, n, "could not connect within %d s",
		    REMOTE_CONNECT_TIMEOUT);
	else if (rc == CURLE_COULDNT_CONNECT && oserr != 0)
		snprintf(why, n, "could not connect: %s", strerror((int)oserr));
	else if (q->errbuf[0] != '\0')
		snprintf(why, n, "%s", q->errbuf);
	else
		snprintf(why, n, "%s", curl_easy_strerror(rc));
}

/* Prints the line that sums up the retries held back, if any. */
static void
tell_untold(struct remote_loop *l, int64_t now)
{
	if (l->untold == 0)
		return;
	if (l->untold == 1)
		log_warn("retrying %s", l->untold_line);
	else
		log_warn(
		    "%u more retries, the last: %s", l->untold, l->untold_line);
	l->untold = 0;
	l->told_ns = now;
}

/*
 * What q names, for a line: its key, or for a listing the prefix it
 * lists; *len is its length.
 */
static const char *
named(const struct remote_req *q, size_t *len)
{
	size_t i;

	*len = q->keylen;
	if (q->keylen > 0)
		return q->key;
	for (i = 0; i < q->nquery; i++) {
		if (strcmp(q->query[i].name, "prefix") == 0) {
			*len = strlen(q->query[i].value);
			return q->query[i].value;
		}
	}
	return "";
}

void
stall_retry(struct remote *r, const struct remote_req *q, const char *why)
{
	struct remote_retry t = {q->method, q->bucket, q->key, q->keylen,
	    q->attempt + 1, r->retries, why};
	struct remote_loop *l = r->loop;
	int64_t now = now_mono_ns();
	const char *k;
	size_t klen;

	l->failed = r;
	snprintf(l->failed_why, sizeof(l->failed_why), "%s", why);
	if (r->on_retry)
		r->on_retry(&t, r->on_retry_arg);
	k = named(q, &klen);
	/* log_msg() escapes what the line quotes */
	snprintf(l->untold_line, sizeof(l->untold_line),
	    "%s s3://%s/%.*s (attempt %u/%u): %s", q->method, q->bucket,
	    (int)(klen > 400 ? 400 : klen), k, t.attempt, t.of, why);
	l->untold++;
	if (now - l->told_ns >= TELL_EVERY_NS)
		tell_untold(l, now);
}

void
stall_answered(struct remote_loop *l)
{
	l->answered_ns = now_mono_ns();
}

void
stall_flush(struct remote_loop *l)
{
	tell_untold(l, now_mono_ns());
}

ferry_err
stall_check(struct remote *r)
{
	struct remote_loop *l = r->loop;
	const struct remote *who = l->failed ? l->failed : r;
	int64_t now = now_mono_ns();

	if (l->untold > 0 && now - l->told_ns >= TELL_EVERY_NS)
		tell_untold(l, now);
	/* time the loop did not run was the run's own, not the server's */
	if (now - l->checked_ns > GAP_NS)
		l->answered_ns += now - l->checked_ns;
	l->checked_ns = now;
	if (l->inflight == 0 || l->moved != l->moved_seen) {
		l->moved_seen = l->moved;
		l->answered_ns = now;
	}
	if (l->stall_ns <= 0 || now - l->answered_ns < l->stall_ns)
		return FERRY_OK;
	tell_untold(l, now);
	return ferry_fail(FERRY_ENET,
	    "no request has succeeded for %lld s: the server at %s is not "
	    "answering%s%s%s",
	    (long long)(l->stall_ns / 1000000000LL), remote_endpoint(who),
	    l->failed_why[0] ? " (the last attempt: " : "", l->failed_why,
	    l->failed_why[0] ? ")" : "");
}
