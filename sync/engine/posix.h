/*
 * posix.h: a file's POSIX metadata (mode, owner, times) kept with its
 * object, and the symbolic links and empty folders a push can keep.
 * posix.c encodes and decodes the values (pure, thread-safe);
 * posixfs.c reads them from and gives them to files.  Seen from other wings
 * through sync/engine/engine.h.
 *
 * The values are those rclone writes and reads (remote/posixmeta.h):
 * mtime as seconds since the epoch with nine decimals, atime in RFC
 * 3339, mode in octal with the file type bits, uid and gid in decimal;
 * and the owner's names, as s3cmd names them.  A symbolic link goes as
 * rclone's --links sends it: an object named after it with POSIX_LINK_EXT
 * added, whose bytes are its target.
 */
#ifndef FERRY_SYNC_POSIX_H
#define FERRY_SYNC_POSIX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "manifest/manifest.h"
#include "remote/remote.h"

#define POSIX_LINK_EXT MANIFEST_LINK_EXT
#define POSIX_LINK_EXT_LEN MANIFEST_LINK_EXT_LEN
/* the longest target a link's object may carry, as readlink() gives it */
#define POSIX_LINK_MAX 4095

/* What an object's metadata says of its file: each part with its has_. */
struct posix_attrs {
	int has_mtime, has_atime, has_mode, has_uid, has_gid;
	int64_t mtime_ns, atime_ns;
	uint32_t mode; /* file type and permission bits, as st_mode */
	uint32_t uid, gid;
	char uname[64], gname[64]; /* "" when absent or refused */
};

/*
 * Fills out from st: its mode, owner and atime, and mtime_ns as its
 * mtime (the one the caller read with the bytes).  uname and gname, the
 * owner's names or NULL, are kept when they are printable ASCII without
 * blanks that fit.  A time posix_time_ok() refuses is left out, so that
 * what a push writes its pull reads back.  Thread-safe.
 */
void posix_encode(const struct stat *st, int64_t mtime_ns, const char *uname,
    const char *gname, struct remote_posix *out);

/*
 * Reads what in says into out, each field on its own: a field absent or
 * malformed is left out (has_ 0, name ""), and its header's name goes in
 * *bad when bad is not NULL (the first such; NULL when none).  Returns
 * the number of fields refused.  Any NUL-terminated bytes are safe.
 * Thread-safe.
 */
int posix_decode(
    const struct remote_posix *in, struct posix_attrs *out, const char **bad);

/*
 * The parsers posix_decode() uses, each returning 0 with *out set, or -1
 * with *out 0: seconds since the epoch with an optional '-' and up to
 * nine decimals ("1700000000.5"); an RFC 3339 time, with optional
 * fractional seconds (to the nanosecond) and a "Z" or "+hh:mm" zone;
 * octal digits of at most 0177777; a decimal id below 4294967295.
 * Times are those posix_time_ok() takes, before 1970 too.
 */
int posix_parse_seconds(const char *s, int64_t *out);
int posix_parse_rfc3339(const char *s, int64_t *out);
int posix_parse_mode(const char *s, uint32_t *out);
int posix_parse_id(const char *s, uint32_t *out);
/*
 * Non-zero when ns nanoseconds since the epoch is a time that is written
 * and read back: less than a second past the whole seconds that fit
 * int64 nanoseconds either way (1677-09-21 to 2262-04-11).  Pure.
 */
int posix_time_ok(int64_t ns);
/* ns nanoseconds since the epoch as a timespec (tv_nsec 0 to 1e9 - 1). */
void posix_timespec(int64_t ns, struct timespec *ts);
/* The forms the parsers read, into buf of n bytes (40 are enough). */
void posix_format_seconds(int64_t ns, char *buf, size_t n);
void posix_format_rfc3339(int64_t ns, char *buf, size_t n);

/*
 * The permission bits a pull gives a file from mode: as root all of them,
 * the set-uid and set-gid bits only when the file has the owner and group
 * its object carries (owned); else the read, write and execute bits alone.
 */
uint32_t posix_mode_allowed(uint32_t mode, int root, int owned);

/*
 * Whether the link target (of len bytes) of a link at key (the path
 * under the folder the links are made in, '/'-separated) points outside
 * that folder or may be led out of it by other links: empty, absolute,
 * with a NUL byte, with more leading ".." than the link has folders above
 * it, or with a ".." after a name ("a/../b"), which would climb from
 * wherever a link at "a" leads.  A link that passes, resolved through
 * any links that passed too, stays where names walked down from the
 * folder lead.
 */
int posix_link_outside(
    const char *key, size_t keylen, const char *target, size_t len);

/* The same rule for a link depth folders below the folder links are made in. */
int posix_target_outside(long depth, const char *target, size_t len);

/* posixfs.c */

/*
 * Whether target, for a link made in the folder dirfd (whose path under
 * the folder links are made in is dir[0..dirlen), "" at the top), leads
 * through a link already on disk that could take it out: the target is
 * walked name by name from dirfd, never following a link, and each link
 * met (the last name too) must pass posix_target_outside() from its own
 * folder, its target then walked in turn; a chain of more than 40 links
 * is refused.  The walk ends, passing, at a name that does not exist yet
 * or is no folder.  0 when it passes; else 1 with why said in why (what
 * the target does, e.g. "goes through the link a/l ...").  Meant for a
 * target that posix_link_outside() passed.  Thread-safe.
 */
int posix_link_walk(int dirfd, const char *dir, size_t dirlen,
    const char *target, char *why, size_t whylen);

/* Whether key[0..n) names a link's object (ends in POSIX_LINK_EXT). */
int posix_is_link_key(const char *key, size_t n);

struct transfer;

/*
 * Fills out from st and its mtime mtime_ns, the owner's names looked up
 * (getpwuid_r, getgrgid_r).  Thread-safe.
 */
void posix_from_stat(
    const struct stat *st, int64_t mtime_ns, struct remote_posix *out);

/*
 * The content check's hashes (XXH3-128, MD5) of t's link or empty folder
 * under rootfd: FERRY_OK, or why not.  Thread-safe.
 */
ferry_err posix_special_hash(int rootfd, const struct transfer *t,
    uint8_t xxh[16], uint8_t md5[16]) FERRY_WUR;

/*
 * The name in its folder of the local entry l at name (a key's last
 * component), into buf of n bytes: name itself, or for a link's entry
 * the link's name (without POSIX_LINK_EXT).
 */
void posix_fs_name(
    const char *name, const struct manifest_local *l, char *buf, size_t n);

#endif
