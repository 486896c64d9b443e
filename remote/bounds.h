/*
 * bounds.h: the limits on what a server sends, and the strict readers of
 * its times and numbers (time.c, bounds.c).  Included by remote.h.
 */
#ifndef FERRY_REMOTE_BOUNDS_H
#define FERRY_REMOTE_BOUNDS_H

#include <stdint.h>

/*
 * Bounds on the numbers a server sends: an object is at most 5 TiB, a
 * multipart upload has parts numbered 1 to 10,000 of at most 5 GiB (and,
 * but for the last, at least 5 MiB), and a time is one whose nanoseconds
 * since 1970 fit 64 bits (up to 2262).
 */
#define REMOTE_MAX_OBJECT (5ULL << 40)
#define REMOTE_MIN_PART_SIZE (5ULL << 20)
#define REMOTE_MAX_PART_SIZE (5ULL << 30)
#define REMOTE_MAX_PARTS 10000u
/* the largest object one CopyObject copies */
#define REMOTE_MAX_COPY (5ULL << 30)
#define REMOTE_TIME_MAX (INT64_MAX / 1000000000LL)

/*
 * The longest ETag believed, quotes included, in bytes: S3's multipart
 * form "\"<32 hex>-10000\"" has 40, a SHA-256 in hex 66.  A listing
 * entry with a longer one fails the listing's check (listcheck.c), a
 * reply's is refused (response.c), and every buffer that holds an ETag
 * has REMOTE_ETAG_MAX + 1 bytes, so that none is ever cut.
 */
#define REMOTE_ETAG_MAX 79

/* A Content-Range: bytes first-last/total, or (has_bytes 0) total alone. */
struct remote_range {
	uint64_t first, last, total;
	int has_bytes;
};

/*
 * Parses a listing's time ("2023-11-14T22:13:20.000Z") or a Last-Modified
 * header's ("Tue, 14 Nov 2023 22:13:20 GMT") into seconds since the epoch,
 * UTC; -1 on failure.  Leading blanks are skipped; fields have their fixed
 * widths and must be in range (no February 29 outside leap years); second
 * 60 is taken as the next minute's first; names match in any case; what
 * follows the seconds of the first form, or "GMT" in the second, is
 * ignored.  Years 0000 to 9999: before 1970 the result is negative.  Safe
 * on any NUL-terminated bytes; no locale, thread-safe.
 */
int64_t remote_parse_time(const char *s);

/*
 * Parses the ISO 8601 form a credentials document writes,
 * "2024-05-01T12:00:00Z", with optional fractional seconds and a "Z",
 * "+hh:mm", "-hh:mm" or "+hhmm" zone (none: UTC), into seconds since the
 * epoch, UTC; -1 when the whole string is anything else (no leading
 * blanks, fields as remote_parse_time() reads them).  Thread-safe.
 */
int64_t remote_parse_time_zoned(const char *s);
/*
 * The same, for times before 1970 too: 0 with the seconds (negative
 * before 1970) in *out, or -1 with *out 0.
 */
int remote_time_zoned(const char *s, int64_t *out);

/*
 * Strict readers of the numbers in reply headers (bounds.c), pure and
 * thread-safe.  remote_parse_size(): decimal digits only, at most max.
 * remote_parse_mtime_ns(): an optional '-' and digits that fit int64.
 * remote_parse_content_range(): "bytes F-L/T" with F <= L < T <=
 * REMOTE_MAX_OBJECT, or a 416's form, "*" for F-L.  Each returns 0, or -1 with
 * *out zeroed.
 */
int remote_parse_size(const char *s, uint64_t max, uint64_t *out);
int remote_parse_mtime_ns(const char *s, int64_t *out);
int remote_parse_content_range(const char *s, struct remote_range *out);

#endif
