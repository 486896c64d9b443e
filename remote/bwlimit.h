/*
 * bwlimit.h: the bandwidth limit of a run, one rate or a timetable of
 * rates by the time of day (as rclone's --bwlimit), shared by every
 * request on the run's multi loop.  Included by remote.h.
 */
#ifndef FERRY_REMOTE_BWLIMIT_H
#define FERRY_REMOTE_BWLIMIT_H

#include <stdint.h>

#include "common/common.h"

#define REMOTE_BWLIMIT_SLOTS 24

/* From minute (of the local day) on, rate bytes a second (0: no limit). */
struct remote_bwlimit_slot {
	int minute;
	uint64_t rate;
};

/* A timetable, slots in ascending minutes; n == 0: no limit. */
struct remote_bwlimit {
	unsigned n;
	struct remote_bwlimit_slot slot[REMOTE_BWLIMIT_SLOTS];
};

/*
 * Parses "RATE" (a size a second: 512K, 2M, 1G; "off" or 0: none) or a
 * timetable "HH:MM,RATE HH:MM,RATE ..." (times ascending) into out.
 * FERRY_EUSAGE, saying why, for anything else or a rate under 1K.
 */
ferry_err remote_bwlimit_parse(
    const char *s, struct remote_bwlimit *out) FERRY_WUR;
/*
 * The rate at minute of the day (0 to 1439): the last slot begun, or
 * before the first, the day's last one (it runs on past midnight).
 * 0: no limit.
 */
uint64_t remote_bwlimit_rate(const struct remote_bwlimit *b, int minute);

#endif
