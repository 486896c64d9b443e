/*
 * streams.h: how many parts of files are sent at once.  More parts side by
 * side carry more where one connection is slow (a far endpoint), and less
 * where the server writes one stream faster than two (a Ceph gateway on
 * this machine took 1 GiB in 4 s alone and in 6 s beside another).  So
 * the number is found by trying: one part at first, then twice as many
 * for as long as that sends at least 15% more bytes a second.
 */
#ifndef FERRY_SYNC_STREAMS_H
#define FERRY_SYNC_STREAMS_H

#include <stdint.h>

/* An epoch lasts at least this long and carries this much a part. */
#define STREAMS_EPOCH_NS 500000000LL
#define STREAMS_EPOCH_BYTES (4ULL << 20)
/* How much faster twice the parts must be, in percent, to be kept. */
#define STREAMS_GAIN_PCT 15
#define STREAMS_MAX 1024

struct streams {
	unsigned cap;     /* parts to send at once, for now */
	unsigned best;    /* the cap that sent best_rate */
	double best_rate; /* bytes a second at best; 0: none measured yet */
	int settled;      /* cap is best, for the rest of the run */
	int running;      /* an epoch is under way */
	int short_of;     /* fewer parts than cap were sent in this epoch */
	int64_t t0;       /* the epoch's start, monotonic ns */
	uint64_t b0;      /* bytes sent at its start */
};

void streams_init(struct streams *s);

/*
 * Takes a sample after parts were started: sent, the body bytes sent so
 * far; now, monotonic ns; busy, the parts being sent.  An epoch starts at
 * the first sample with a part being sent, and ends at the first sample
 * that has seen it last long enough and carry enough; one in which fewer
 * than cap parts were sent at some sample tells nothing and starts again.
 * Returns the cap.
 */
unsigned streams_sample(
    struct streams *s, uint64_t sent, int64_t now, unsigned busy);

#endif
