/*
 * streams.c: the number of parts sent at once, found by trying; see
 * streams.h.  Pure: the caller gives the bytes and the time.
 */
#include "sync/up/streams.h"

void
streams_init(struct streams *s)
{
	*s = (struct streams){.cap = 1, .best = 1};
}

/* The epoch just measured sent rate bytes a second at s->cap. */
static void
judge(struct streams *s, double rate)
{
	if (s->best_rate == 0 ||
	    rate * 100 > s->best_rate * (100 + STREAMS_GAIN_PCT)) {
		s->best = s->cap;
		s->best_rate = rate;
		if (s->cap * 2 <= STREAMS_MAX) {
			s->cap *= 2;
			return;
		}
	}
	s->cap = s->best;
	s->settled = 1;
}

unsigned
streams_sample(struct streams *s, uint64_t sent, int64_t now, unsigned busy)
{
	if (s->settled)
		return s->cap;
	if (!s->running) {
		if (busy == 0)
			return s->cap;
		s->running = 1;
		s->short_of = 0;
		s->t0 = now;
		s->b0 = sent;
	}
	if (busy < s->cap)
		s->short_of = 1;
	if (now - s->t0 < STREAMS_EPOCH_NS ||
	    sent - s->b0 < s->cap * STREAMS_EPOCH_BYTES)
		return s->cap;
	s->running = 0;
	if (!s->short_of)
		judge(s, (double)(sent - s->b0) * 1e9 / (double)(now - s->t0));
	return s->cap;
}
