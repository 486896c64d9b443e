/*
 * planfile.h: the plan file that "ferry plan" writes and "ferry apply"
 * runs: JSON lines, a header, one line per action, a summary.  The schema
 * is described in ferry(1), PLAN FILES.  Seen from other wings through
 * sync/plan/plan.h.
 */
#ifndef FERRY_PLANFILE_H
#define FERRY_PLANFILE_H

#include <stdint.h>
#include <stdio.h>

#include "manifest/manifest.h"
#include "sync/plan/decide.h"

/* version 2 names the version of each source object to read (--at); a
 * plan without one is written as version 1, which every ferry reads */
#define PLANFILE_VERSION 1
#define PLANFILE_VERSION_AT 2
#define PLANFILE_FORMAT "ferry-plan"
#define PLANFILE_LINE_MAX 65536 /* bytes in a line, newline included */
#define PLANFILE_PATH_MAX 4096

/* PLANFILE_NOTE: a line that tells and asks nothing ("left_out") */
enum planfile_kind {
	PLANFILE_HEADER,
	PLANFILE_ACTION,
	PLANFILE_SUMMARY,
	PLANFILE_NOTE
};

enum planfile_action {
	PLANFILE_UPLOAD,
	PLANFILE_DOWNLOAD,
	PLANFILE_COPY,
	PLANFILE_DELETE
};

/* One side of an action as the plan saw it. */
struct planfile_side {
	int present;
	uint64_t size;
	int local; /* a local file: mtime_ns is set; else an object: etag */
	int64_t mtime_ns;
	int has_hash;
	uint8_t hash[16]; /* XXH3-128 of a local file, when known */
	char etag[MANIFEST_ETAG_MAX];
	/* an object's version to read ("version_id", plans of version 2);
	 * "": the current one */
	char version_id[MANIFEST_VERSION_ID_MAX];
};

#define PLANFILE_PART_MAX 24 /* a header's part, "I/N", and its NUL */

struct planfile_header {
	int version;
	char src[PLANFILE_PATH_MAX];
	char dst[PLANFILE_PATH_MAX];
	int delete;
	int follow_symlinks; /* -L (absent in a plan: false) */
	uint64_t part_size;
	uint64_t multipart_threshold;
	/* a mirror's copies in parts from here (absent in a plan written
	 * before it: multipart_threshold, as copies then were) */
	uint64_t copy_threshold;
	/* "I/N": part I of a plan cut into N (ferry plan --split), or "" */
	char part[PLANFILE_PART_MAX];
};

/* One parsed line; which members are set depends on kind. */
struct planfile_line {
	enum planfile_kind kind;
	struct planfile_header hdr; /* PLANFILE_HEADER */
	/* PLANFILE_ACTION */
	enum planfile_action action;
	char key[MANIFEST_KEY_MAX + 1];
	size_t keylen;
	uint64_t size;
	struct planfile_side src, dst;
	/* PLANFILE_SUMMARY */
	uint64_t actions; /* uploaded + downloaded + copied + deleted */
	int exit_status;
};

/*
 * Parses one line (len bytes at s, without its newline) into *out.
 * FERRY_EPARSE with the reason in ferry_errmsg() for anything malformed:
 * not JSON, a missing or mistyped member, an unknown action, an action
 * without the guard it needs; FERRY_EUSAGE for a header of another
 * format or version.  Pure: no I/O, no allocation kept.
 */
ferry_err planfile_parse_line(
    const char *s, size_t len, struct planfile_line *out) FERRY_WUR;

/*
 * An open plan file, read twice: planfile_open() checks every line (a
 * header first, a summary last whose counts match the actions, every
 * action of the header's direction and under its prefixes) so that a
 * malformed or truncated file is refused before anything is done; then
 * planfile_next() hands out the actions in order.
 */
struct planfile;

/*
 * Opens the plan at path, or with "-" standard input, copied whole into
 * an unnamed temporary file first.  FERRY_EUSAGE (with the file and line)
 * or FERRY_EPARSE on failure, FERRY_ESYS when the copy cannot be made.
 */
ferry_err planfile_open(const char *path, struct planfile **out) FERRY_WUR;
/* The header; valid until planfile_close(). */
const struct planfile_header *planfile_header(const struct planfile *pf);
/*
 * The next action, in a line owned by pf and valid until the next call;
 * FERRY_ENOTFOUND after the last one.
 */
ferry_err planfile_next(
    struct planfile *pf, const struct planfile_line **line) FERRY_WUR;
void planfile_close(struct planfile *pf);

struct cJSON;
/*
 * Writing a plan: the header line of a run of "ferry plan" from src to
 * dst (a local path is made absolute), as a new cJSON object for the
 * caller to print and free; NULL when out of memory.  With at, the plan
 * of a past time (--at), whose sources name their versions: version 2.
 */
struct cJSON *planfile_header_json(const char *src, const char *dst, int delete,
    int follow_symlinks, uint64_t part_size, uint64_t multipart_threshold,
    uint64_t copy_threshold, int at);
/*
 * Adds "source" and "destination" to a plan line (a cJSON object): each
 * side's identity as planned, or "absent".  src and dst may be NULL
 * (absent).
 */
void planfile_add_sides(struct cJSON *obj, const struct plan_entry *src,
    const struct plan_entry *dst);

/*
 * Splitting a plan (plansplit.c).  The weight of an action when parts
 * are balanced: its bytes (none for a delete) and a fixed cost for its
 * requests.  Pure.
 */
uint64_t planfile_split_weight(enum planfile_action a, uint64_t size);
/* The index of the least of load[0..n) (n > 0), the first of equals. */
size_t planfile_split_pick(const uint64_t *load, size_t n);
/*
 * Checks the plan file at path as ferry apply does, then writes n plan
 * files, prefix0 ... prefix(n-1): each the header, a share of the actions
 * in the plan's order (each dealt to the part with the least weight so
 * far: a part holds at most the average weight and one action more), and
 * a summary counting its own actions.  On failure no part is left.
 */
ferry_err planfile_split(
    const char *path, unsigned n, const char *prefix) FERRY_WUR;

#endif
