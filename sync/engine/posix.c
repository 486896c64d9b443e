/*
 * posix.c: the values of a file's POSIX metadata as its object carries
 * them (posix.h), and the checks on a link's target.  Pure: the bytes
 * come from a server and are read strictly, each field on its own.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sync/engine/posix.h"

#define NS_PER_S 1000000000LL
/* the seconds whose nanoseconds fit int64 */
#define SECONDS_MAX (INT64_MAX / NS_PER_S - 1)
/* the times written and read: within a second past +/- SECONDS_MAX */
#define NS_LIMIT ((SECONDS_MAX + 1) * NS_PER_S)

int
posix_time_ok(int64_t ns)
{
	return ns > -NS_LIMIT && ns < NS_LIMIT;
}

/*
 * Reads decimal digits at *s (at most max of them, at least one) into
 * *v, moving *s past them; -1 when none or *v would pass limit.
 */
static int
digits_read(const char **s, int max, int64_t limit, int64_t *v)
{
	const char *p = *s;
	int n = 0;

	*v = 0;
	while (*p >= '0' && *p <= '9' && n < max) {
		if (*v > (limit - (*p - '0')) / 10)
			return -1;
		*v = *v * 10 + (*p - '0');
		p++;
		n++;
	}
	if (n == 0)
		return -1;
	*s = p;
	return 0;
}

/* Reads ".ddddddddd" at *s (up to nine digits) as nanoseconds. */
static int
fraction_read(const char **s, int64_t *ns)
{
	const char *p = *s;
	int n = 0;

	*ns = 0;
	if (*p != '.')
		return 0;
	p++;
	while (*p >= '0' && *p <= '9') {
		if (n == 9)
			return -1;
		*ns = *ns * 10 + (*p - '0');
		p++;
		n++;
	}
	if (n == 0)
		return -1;
	for (; n < 9; n++)
		*ns *= 10;
	*s = p;
	return 0;
}

int
posix_parse_seconds(const char *s, int64_t *out)
{
	int64_t sec, ns;
	int neg = 0;

	*out = 0;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (digits_read(&s, 19, SECONDS_MAX, &sec) != 0 ||
	    fraction_read(&s, &ns) != 0 || *s != '\0')
		return -1;
	*out = neg ? -(sec * NS_PER_S + ns) : sec * NS_PER_S + ns;
	return 0;
}

int
posix_parse_rfc3339(const char *s, int64_t *out)
{
	const char *p = s;
	int64_t sec, ns;

	*out = 0;
	/* the date and time have fixed widths; the zoned parser checks
	 * them and the zone, and skips the fraction read here */
	if (strlen(s) < 20 || (s[10] != 'T' && s[10] != 't'))
		return -1;
	p = s + 19;
	/* before 1970 too, as a push writes an atime of then */
	if (remote_time_zoned(s, &sec) != 0 || fraction_read(&p, &ns) != 0 ||
	    sec < -SECONDS_MAX - 1 || sec > SECONDS_MAX ||
	    !posix_time_ok(sec * NS_PER_S + ns))
		return -1;
	*out = sec * NS_PER_S + ns;
	return 0;
}

int
posix_parse_mode(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	size_t n = 0;

	*out = 0;
	for (; s[n] >= '0' && s[n] <= '7'; n++) {
		v = v * 8 + (uint32_t)(s[n] - '0');
		if (v > 0177777)
			return -1;
	}
	if (n == 0 || s[n] != '\0')
		return -1;
	*out = v;
	return 0;
}

int
posix_parse_id(const char *s, uint32_t *out)
{
	int64_t v;

	*out = 0;
	/* (uid_t)-1 means "no change" to chown(): never an owner */
	if (digits_read(&s, 10, 4294967294LL, &v) != 0 || *s != '\0')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

void
posix_timespec(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / NS_PER_S);
	ts->tv_nsec = (long)(ns % NS_PER_S);
	if (ts->tv_nsec < 0) {
		ts->tv_nsec += NS_PER_S;
		ts->tv_sec--;
	}
}

void
posix_format_seconds(int64_t ns, char *buf, size_t n)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, n, "%s%llu.%09llu", ns < 0 ? "-" : "",
	    (unsigned long long)(a / NS_PER_S),
	    (unsigned long long)(a % NS_PER_S));
}

void
posix_format_rfc3339(int64_t ns, char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	char day[32];

	posix_timespec(ns, &ts);
	if (gmtime_r(&ts.tv_sec, &tm) == NULL ||
	    strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, n, "%s", "");
		return;
	}
	snprintf(buf, n, "%s.%09ldZ", day, ts.tv_nsec);
}

/* Whether s is a name to send: printable ASCII, no blank, fits. */
static int
name_ok(const char *s, size_t cap)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return 0;
	return i > 0 && i < cap;
}

void
posix_encode(const struct stat *st, int64_t mtime_ns, const char *uname,
    const char *gname, struct remote_posix *out)
{
	int64_t atime_ns = 0;

	memset(out, 0, sizeof(*out));
	/* only what a pull reads back: a time out of range is left out */
	if (posix_time_ok(mtime_ns))
		posix_format_seconds(mtime_ns, out->mtime, sizeof(out->mtime));
	if (st->st_atim.tv_sec >= -SECONDS_MAX - 1 &&
	    st->st_atim.tv_sec <= SECONDS_MAX)
		atime_ns = (int64_t)st->st_atim.tv_sec * NS_PER_S +
		           st->st_atim.tv_nsec;
	else
		atime_ns = INT64_MIN;
	if (posix_time_ok(atime_ns))
		posix_format_rfc3339(atime_ns, out->atime, sizeof(out->atime));
	snprintf(out->mode, sizeof(out->mode), "%o",
	    (unsigned)st->st_mode & 0177777u);
	snprintf(out->uid, sizeof(out->uid), "%u", (unsigned)st->st_uid);
	snprintf(out->gid, sizeof(out->gid), "%u", (unsigned)st->st_gid);
	if (uname != NULL && name_ok(uname, sizeof(out->uname)))
		snprintf(out->uname, sizeof(out->uname), "%s", uname);
	if (gname != NULL && name_ok(gname, sizeof(out->gname)))
		snprintf(out->gname, sizeof(out->gname), "%s", gname);
}

/* A time as rclone's S3 backend writes it, or as RFC 3339. */
static int
time_parse(const char *s, int64_t *out)
{
	if (posix_parse_seconds(s, out) == 0)
		return 0;
	return posix_parse_rfc3339(s, out);
}

/* Counts a refused field, keeping the first one's name in *bad. */
static int
refused(const char *name, const char **bad)
{
	if (bad != NULL && *bad == NULL)
		*bad = name;
	return 1;
}

int
posix_decode(
    const struct remote_posix *in, struct posix_attrs *out, const char **bad)
{
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (bad != NULL)
		*bad = NULL;
	if (in->mtime[0] &&
	    !(out->has_mtime = time_parse(in->mtime, &out->mtime_ns) == 0))
		n += refused(REMOTE_META_POSIX_MTIME, bad);
	if (in->atime[0] &&
	    !(out->has_atime = time_parse(in->atime, &out->atime_ns) == 0))
		n += refused(REMOTE_META_POSIX_ATIME, bad);
	if (in->mode[0] &&
	    !(out->has_mode = posix_parse_mode(in->mode, &out->mode) == 0))
		n += refused(REMOTE_META_POSIX_MODE, bad);
	if (in->uid[0] &&
	    !(out->has_uid = posix_parse_id(in->uid, &out->uid) == 0))
		n += refused(REMOTE_META_POSIX_UID, bad);
	if (in->gid[0] &&
	    !(out->has_gid = posix_parse_id(in->gid, &out->gid) == 0))
		n += refused(REMOTE_META_POSIX_GID, bad);
	if (in->uname[0] && name_ok(in->uname, sizeof(out->uname)))
		snprintf(out->uname, sizeof(out->uname), "%s", in->uname);
	else if (in->uname[0])
		n += refused(REMOTE_META_POSIX_UNAME, bad);
	if (in->gname[0] && name_ok(in->gname, sizeof(out->gname)))
		snprintf(out->gname, sizeof(out->gname), "%s", in->gname);
	else if (in->gname[0])
		n += refused(REMOTE_META_POSIX_GNAME, bad);
	return n;
}

uint32_t
posix_mode_allowed(uint32_t mode, int root, int owned)
{
	if (!root)
		return mode & 0777u;
	return mode & (owned ? 07777u : 01777u);
}

/*
 * The rule keeps every link a pull makes to places that names walked down
 * from the folder reach: its ".." lead (climbing real folders only, as the
 * link's own folder is reached without a link) stays within the folder,
 * and after a name no ".." follows, since a name may be a link that this
 * or a later key makes, whose ".." would climb from wherever it leads.
 * A chain of such links, in any order and however replaced, cannot climb.
 */
int
posix_target_outside(long depth, const char *target, size_t len)
{
	size_t i, start, n;
	int named = 0;

	if (len == 0 || target[0] == '/' || memchr(target, '\0', len))
		return 1;
	for (start = 0; start <= len; start = i + 1) {
		for (i = start; i < len && target[i] != '/'; i++)
			;
		n = i - start;
		if (n == 2 && target[start] == '.' &&
		    target[start + 1] == '.' && (named || --depth < 0))
			return 1;
		if (n > 0 && !(n <= 2 && memcmp(target + start, "..", n) == 0))
			named = 1;
	}
	return 0;
}

int
posix_link_outside(
    const char *key, size_t keylen, const char *target, size_t len)
{
	long depth = 0;
	size_t i;

	/* the folders above the link */
	for (i = 0; i < keylen; i++)
		if (key[i] == '/')
			depth++;
	return posix_target_outside(depth, target, len);
}

int
posix_is_link_key(const char *key, size_t n)
{
	return n > POSIX_LINK_EXT_LEN &&
	       key[n - POSIX_LINK_EXT_LEN - 1] != '/' &&
	       memcmp(key + n - POSIX_LINK_EXT_LEN, POSIX_LINK_EXT,
	           POSIX_LINK_EXT_LEN) == 0;
}
