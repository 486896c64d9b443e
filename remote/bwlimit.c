/*
 * bwlimit.c: --bwlimit, parsed; and the one token bucket every transfer
 * of a loop draws on.  A transfer's callback that finds the bucket empty
 * pauses its transfer (CURL_READFUNC_PAUSE, CURL_WRITEFUNC_PAUSE); the
 * loop refills the bucket at the rate and resumes the paused transfers
 * when there is something in it.  Bytes pass whole and the bucket may go
 * below zero, a debt paid back before anything moves again, so that over
 * any stretch of time the run moves what the rate allows, however many
 * transfers share it and whichever of them is busy.  curl's per-handle
 * CURLOPT_MAX_SEND_SPEED_LARGE and _RECV_ would need the rate divided
 * again each time a transfer starts or ends, and would leave unused the
 * share of a transfer waiting on its reply or its turn: the run would move
 * less than the rate, and a handle's own averaging lets it burst above it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "remote/internal.h"

#define BW_MIN_RATE 1024
#define BW_MIN_BURST (64 * 1024)
#define BW_RECHECK_NS 1000000000LL /* the timetable, once a second */

/* "off", "0" or a size of at least BW_MIN_RATE into *rate (0: none). */
static ferry_err
parse_rate(const char *s, uint64_t *rate)
{
	if (strcmp(s, "off") == 0 || strcmp(s, "0") == 0) {
		*rate = 0;
		return FERRY_OK;
	}
	if (parse_size(s, rate) != FERRY_OK || *rate < BW_MIN_RATE)
		return ferry_fail(FERRY_EUSAGE,
		    "--bwlimit: '%.64s' is not a rate of at least 1K (512K, "
		    "2M) or off",
		    s);
	return FERRY_OK;
}

/* "HH:MM,RATE" (n bytes at s) into slot. */
static ferry_err
parse_slot(const char *s, size_t n, struct remote_bwlimit_slot *slot)
{
	char item[80];
	int h, m;

	if (n >= sizeof(item) || n < 7 || s[2] != ':' || s[5] != ',')
		return ferry_fail(FERRY_EUSAGE,
		    "--bwlimit: '%.*s' is not HH:MM,RATE",
		    (int)(n > 64 ? 64 : n), s);
	memcpy(item, s, n);
	item[n] = '\0';
	h = (item[0] - '0') * 10 + (item[1] - '0');
	m = (item[3] - '0') * 10 + (item[4] - '0');
	if (item[0] < '0' || item[0] > '2' || item[1] < '0' || item[1] > '9' ||
	    item[3] < '0' || item[3] > '5' || item[4] < '0' || item[4] > '9' ||
	    h > 23)
		return ferry_fail(FERRY_EUSAGE,
		    "--bwlimit: '%.5s' is not a time of day (00:00 to 23:59)",
		    item);
	slot->minute = h * 60 + m;
	return parse_rate(item + 6, &slot->rate);
}

/* A timetable: items separated by blanks, times ascending. */
static ferry_err
parse_table(const char *s, struct remote_bwlimit *out)
{
	size_t n;
	ferry_err e;

	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0')
			return FERRY_OK;
		if (out->n == REMOTE_BWLIMIT_SLOTS)
			return ferry_fail(FERRY_EUSAGE,
			    "--bwlimit: more than %d times",
			    REMOTE_BWLIMIT_SLOTS);
		n = strcspn(s, " \t");
		if ((e = parse_slot(s, n, &out->slot[out->n])) != FERRY_OK)
			return e;
		if (out->n > 0 &&
		    out->slot[out->n].minute <= out->slot[out->n - 1].minute)
			return ferry_fail(FERRY_EUSAGE,
			    "--bwlimit: the times must be in ascending order");
		out->n++;
		s += n;
	}
}

ferry_err
remote_bwlimit_parse(const char *s, struct remote_bwlimit *out)
{
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (strchr(s, ':') == NULL) {
		if ((e = parse_rate(s, &out->slot[0].rate)) == FERRY_OK)
			out->n = out->slot[0].rate ? 1 : 0;
		return e;
	}
	if ((e = parse_table(s, out)) != FERRY_OK || out->n == 0)
		memset(out, 0, sizeof(*out));
	if (e == FERRY_OK && out->n == 0)
		e = ferry_fail(FERRY_EUSAGE, "--bwlimit: an empty timetable");
	return e;
}

uint64_t
remote_bwlimit_rate(const struct remote_bwlimit *b, int minute)
{
	unsigned i;

	if (b->n == 0)
		return 0;
	for (i = b->n; i > 0; i--)
		if (b->slot[i - 1].minute <= minute)
			return b->slot[i - 1].rate;
	return b->slot[b->n - 1].rate;
}

/* The rate the timetable gives now, by the local time of day. */
static uint64_t
rate_now(const struct bw_bucket *b)
{
	time_t t = time(NULL);
	struct tm tm;

	if (b->table.n == 1 || localtime_r(&t, &tm) == NULL)
		return b->table.slot[0].rate;
	return remote_bwlimit_rate(&b->table, tm.tm_hour * 60 + tm.tm_min);
}

ferry_err
bw_open(struct remote_loop *l, const struct remote_bwlimit *t)
{
	if (t == NULL || t->n == 0)
		return FERRY_OK;
	if ((l->bw = calloc(1, sizeof(*l->bw))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	l->bw->table = *t;
	l->bw->rate = rate_now(l->bw);
	l->bw->last_ns = l->bw->checked_ns = now_mono_ns();
	return FERRY_OK;
}

void
bw_close(struct remote_loop *l)
{
	if (l->bw == NULL)
		return;
	log_info("--bwlimit: transfers paused %llu times to keep to the "
	         "rate",
	    (unsigned long long)l->bw->pauses);
	free(l->bw);
	l->bw = NULL;
}

int
bw_hold(struct remote_req *q, int dir)
{
	struct bw_bucket *b = q->r->loop->bw;

	if (b == NULL || b->rate == 0 || b->tokens > 0)
		return 0;
	if (q->bw_paused == 0)
		b->paused++;
	q->bw_paused |= dir;
	b->pauses++;
	return 1;
}

void
bw_spend(struct remote_loop *l, size_t n)
{
	if (l->bw != NULL && l->bw->rate != 0)
		l->bw->tokens -= (double)n;
}

void
bw_forget(struct remote_req *q)
{
	struct bw_bucket *b = q->r->loop->bw;

	if (b != NULL && q->bw_paused != 0)
		b->paused--;
	q->bw_paused = 0;
}

/* Resumes every transfer paused for the bucket. */
static void
resume_all(struct remote_loop *l)
{
	struct remote_req *q, *next;

	for (q = l->submitted; q != NULL && l->bw->paused > 0; q = next) {
		next = q->next_sub;
		if (q->bw_paused == 0 || q->easy == NULL)
			continue;
		bw_forget(q);
		/* may hand over held bytes at once, and pause again */
		curl_easy_pause(q->easy, CURLPAUSE_CONT);
	}
}

int
bw_tick(struct remote_loop *l)
{
	struct bw_bucket *b = l->bw;
	int64_t now = now_mono_ns();
	double burst;

	if (b == NULL)
		return -1;
	if (now - b->checked_ns >= BW_RECHECK_NS) {
		b->checked_ns = now;
		b->rate = rate_now(b);
	}
	burst = b->rate / 10.0 > BW_MIN_BURST ? b->rate / 10.0 : BW_MIN_BURST;
	b->tokens += (double)(now - b->last_ns) * (double)b->rate / 1e9;
	b->last_ns = now;
	if (b->tokens > burst)
		b->tokens = burst;
	if (b->paused > 0 && (b->rate == 0 || b->tokens > 0))
		resume_all(l);
	if (b->paused == 0)
		return -1;
	/* the time the debt takes to pay back, at least a millisecond */
	return (int)(-b->tokens * 1000.0 / (double)b->rate) + 1;
}
