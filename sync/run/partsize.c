/*
 * partsize.c: the sizes of the parts of an upload and of the ranges of a
 * download, chosen by the object's size within S3's limits.
 */
#include <stdint.h>

#include "sync/run/opts.h"

/* want, or size / split between 8M and max; then within S3's limits */
static uint64_t
size_of_parts(uint64_t size, uint64_t want, uint64_t split, uint64_t max)
{
	uint64_t ps = want, mib = 1ULL << 20;

	if (ps == 0) {
		ps = size / split;
		if (ps < SYNC_AUTO_PART_MIN)
			ps = SYNC_AUTO_PART_MIN;
		if (ps > max)
			ps = max;
	}
	if (ps < REMOTE_MIN_PART_SIZE)
		ps = REMOTE_MIN_PART_SIZE;
	if (ps > REMOTE_MAX_PART_SIZE)
		ps = REMOTE_MAX_PART_SIZE;
	if (sync_part_count(size, ps) > REMOTE_MAX_PARTS)
		ps = size / REMOTE_MAX_PARTS + (size % REMOTE_MAX_PARTS != 0);
	ps = (ps + mib - 1) / mib * mib;
	return ps > REMOTE_MAX_PART_SIZE ? REMOTE_MAX_PART_SIZE : ps;
}

/*
 * The number of parts of ps bytes (ps > 0) that size takes, written so
 * that no size can wrap it: sizes are bounded by REMOTE_MAX_OBJECT before
 * this is used, and 2^64-1 bytes would still count right.
 */
uint64_t
sync_part_count(uint64_t size, uint64_t ps)
{
	return size / ps + (size % ps != 0);
}

/*
 * Chosen for uploads: 8M parts up to 64M, then an eighth of the object up
 * to 128M parts: fewer, larger requests for large objects (each part is a
 * request, an object written at the server and an entry in its upload's
 * index, and a Ceph gateway spends more CPU the more part requests it
 * serves at once).  With the default --memory, two parts of 128M may be
 * sent side by side, when that is faster (streams.h).
 */
uint64_t
sync_part_size(uint64_t size, uint64_t want)
{
	return size_of_parts(size, want, SYNC_AUTO_SPLIT, SYNC_AUTO_PART_MAX);
}

/*
 * Chosen for downloads: 8M ranges up to 128M, then a sixteenth of the
 * object up to 64M ranges.  A range is only a read at the server, and a
 * pull of 2 GiB in 128M ranges was no faster than in 64M ones (bench S5b,
 * bench/RESULTS.md).
 */
uint64_t
sync_range_size(uint64_t size, uint64_t want)
{
	return size_of_parts(
	    size, want, SYNC_AUTO_RANGE_SPLIT, SYNC_AUTO_RANGE_MAX);
}
