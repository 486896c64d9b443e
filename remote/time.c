/*
 * time.c: the two forms a server writes a time in, a listing's ISO 8601
 * and a header's HTTP date, read by fixed-width fields with no locale and
 * no libc time functions, so that every caller reads one the same way.
 */
#include <stdint.h>
#include <string.h>

#include "remote/remote.h"

/* A time as written, each field still to be checked for range. */
struct civil {
	int year, mon, day, hour, min, sec;
};

/* The value of the n digits at s, or -1 if one is not a digit (or NUL). */
static int
digits(const char *s, int n)
{
	int v = 0;

	for (; n > 0; n--, s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/*
 * The index in names (3 letters each) of the name at s, in any case, or
 * -1.  A mismatch stops the comparison, so it never reads past a NUL.
 */
static int
name_index(const char *s, const char *names, int n)
{
	const unsigned char *u = (const unsigned char *)s;
	int i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 3; k++)
			if ((u[k] | 0x20) != (names[3 * i + k] | 0x20))
				break;
		if (k == 3)
			return i;
	}
	return -1;
}

/* "22:13:20" at s into c; 0 if it is not that. */
static int
parse_clock(const char *s, struct civil *c)
{
	return (c->hour = digits(s, 2)) >= 0 && s[2] == ':' &&
	       (c->min = digits(s + 3, 2)) >= 0 && s[5] == ':' &&
	       (c->sec = digits(s + 6, 2)) >= 0;
}

/* A listing's "2023-11-14T22:13:20" at s into c; 0 if it is not that. */
static int
parse_iso(const char *s, struct civil *c)
{
	return (c->year = digits(s, 4)) >= 0 && s[4] == '-' &&
	       (c->mon = digits(s + 5, 2)) >= 0 && s[7] == '-' &&
	       (c->day = digits(s + 8, 2)) >= 0 && s[10] == 'T' &&
	       parse_clock(s + 11, c);
}

/*
 * A header's "Tue, 14 Nov 2023 22:13:20 GMT" (RFC 9110's IMF-fixdate) at s
 * into c; 0 if it is not that.  The weekday is not checked against the
 * date, as strptime() did not.
 */
static int
parse_http(const char *s, struct civil *c)
{
	static const char wdays[] = "MonTueWedThuFriSatSun";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	return name_index(s, wdays, 7) >= 0 && s[3] == ',' && s[4] == ' ' &&
	       (c->day = digits(s + 5, 2)) >= 0 && s[7] == ' ' &&
	       (c->mon = name_index(s + 8, months, 12) + 1) > 0 &&
	       s[11] == ' ' && (c->year = digits(s + 12, 4)) >= 0 &&
	       s[16] == ' ' && parse_clock(s + 17, c) &&
	       strncmp(s + 25, " GMT", 4) == 0;
}

/* The days of month mon (1 to 12) of year in the Gregorian calendar. */
static int
days_in_month(int year, int mon)
{
	static const unsigned char n[12] = {
	    31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return mon == 2 ? 28 + leap : n[mon - 1];
}

/*
 * Days from 1970-01-01 to the date, negative before it, in the proleptic
 * Gregorian calendar: Howard Hinnant's days_from_civil, whose years start
 * in March so that the leap day comes last.
 */
static int64_t
civil_days(int year, int mon, int day)
{
	int y = year - (mon <= 2);
	int era = (y >= 0 ? y : y - 399) / 400;
	int yoe = y - era * 400;
	int doy = (153 * (mon > 2 ? mon - 3 : mon + 9) + 2) / 5 + day - 1;
	int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return (int64_t)era * 146097 + doe - 719468;
}

/* Non-zero when every field of c is in range. */
static int
civil_valid(const struct civil *c)
{
	return c->mon >= 1 && c->mon <= 12 && c->day >= 1 &&
	       c->day <= days_in_month(c->year, c->mon) && c->hour <= 23 &&
	       c->min <= 59 && c->sec <= 60;
}

/* Seconds since the epoch of c, or -1 when a field is out of range. */
static int64_t
civil_seconds(const struct civil *c)
{
	if (!civil_valid(c))
		return -1;
	return civil_days(c->year, c->mon, c->day) * 86400 + c->hour * 3600 +
	       c->min * 60 + c->sec;
}

/*
 * Fixed-width fields, no locale, no libc time functions.  What follows the
 * last field is ignored, as strptime() did: the ".000Z" of a listing.
 * Reads s only up to its first byte that does not fit, so any bytes are
 * safe as long as they end with a NUL.
 */
int64_t
remote_parse_time(const char *s)
{
	struct civil c;
	int ok;

	if (s == NULL)
		return -1;
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	ok = *s >= '0' && *s <= '9' ? parse_iso(s, &c) : parse_http(s, &c);
	return ok ? civil_seconds(&c) : -1;
}

/* The zone at s: "", "Z", "+hh:mm", "-hh:mm", "+hhmm"; -1 if not one. */
static int
zone_offset(const char *s, int64_t *off)
{
	int h, m, sign;

	*off = 0;
	if (*s == '\0' || (s[0] == 'Z' && s[1] == '\0'))
		return 0;
	if (*s != '+' && *s != '-')
		return -1;
	sign = *s++ == '-' ? -1 : 1;
	if ((h = digits(s, 2)) < 0)
		return -1;
	s += 2;
	if (*s == ':')
		s++;
	if ((m = digits(s, 2)) < 0 || s[2] != '\0' || h > 23 || m > 59)
		return -1;
	*off = sign * (int64_t)(h * 3600 + m * 60);
	return 0;
}

int
remote_time_zoned(const char *s, int64_t *out)
{
	struct civil c;
	int64_t t, off;

	*out = 0;
	if (s == NULL || !parse_iso(s, &c) || !civil_valid(&c))
		return -1;
	t = civil_seconds(&c);
	s += 19;
	if (*s == '.' && s[1] >= '0' && s[1] <= '9')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	if (zone_offset(s, &off) != 0)
		return -1;
	*out = t - off;
	return 0;
}

int64_t
remote_parse_time_zoned(const char *s)
{
	int64_t t;

	return remote_time_zoned(s, &t) == 0 ? t : -1;
}
