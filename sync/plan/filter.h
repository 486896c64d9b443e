/*
 * filter.h: --include and --exclude rules.  Seen from other wings through
 * sync/plan/plan.h.
 *
 * Patterns are matched against the path relative to the sync root, with
 * '/' separators, byte by byte.  '*' and '?' and "[...]" classes (ranges,
 * '!' or '^' to negate) do not match '/'; '\' makes the next character
 * literal; "**" matches any run of characters including '/' ("**" at the
 * start of a component and followed by '/' also matches nothing, so
 * "a/ ** /b" style patterns, without the spaces, match "a/b").  A pattern
 * with no '/' matches the last path component at any depth ("*.tmp"
 * excludes "x/y.tmp"), one with a '/' inside matches the end of the path
 * at a component boundary ("b/c" matches "a/b/c"); a pattern starting
 * with '/' is anchored at the root; a pattern ending in '/' matches
 * folders only.  The rules are tried in command-line order and the first
 * that matches decides; a path no rule matches is included.  A folder
 * that an exclude rule matches is not descended into, and filter_match()
 * excludes everything below it even when asked about a path alone.
 *
 * --exclude-from and --include-from add the patterns of a file, one a
 * line, in their place in that order.  --files-from restricts the run to
 * the paths a file lists: a path it does not list is left out as an
 * excluded one is, on both sides, so it is neither sent nor deleted.
 */
#ifndef FERRY_FILTER_H
#define FERRY_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct filter;

/*
 * Creates an empty filter (includes everything).  NULL when out of memory.
 * The caller frees it with filter_free(), which accepts NULL.  Once the
 * rules are added, several threads may call filter_match() at once.
 */
struct filter *filter_new(void);
void filter_free(struct filter *f);

/*
 * Adds a rule, copying pattern; FERRY_EUSAGE for an empty or malformed
 * pattern (an empty component, a trailing lone '\', an unclosed '[').
 */
ferry_err filter_add(
    struct filter *f, const char *pattern, int include) FERRY_WUR;

/* The longest line of a --*-from file, in bytes (PATH_MAX). */
#define FILTER_LINE_MAX 4096
/* The largest --*-from file read, in bytes. */
#define FILTER_FILE_MAX (1ULL << 30)
/*
 * Reads the file at path whole into b (initialised here; the caller
 * frees it), up to FILTER_FILE_MAX bytes.  FERRY_EUSAGE naming the file.
 */
ferry_err filter_file_read(const char *path, struct buf *b) FERRY_WUR;

/* Called with each line of a file; FERRY_EUSAGE and a message refuses it. */
typedef ferry_err (*filter_line_fn)(void *arg, char *line);

/*
 * Splits buf[0, n) into lines at '\n', drops a trailing '\r' of each,
 * skips blank lines and those whose first byte is '#', and calls fn with
 * each other line, NUL-terminated in place (buf must hold n + 1 bytes and
 * is changed; the lines stay valid as long as buf).  Returns FERRY_OK, or
 * FERRY_EUSAGE with "name:LINE: why" as the message for a line longer
 * than FILTER_LINE_MAX, one holding a NUL byte, or one fn refused (then
 * fn's error code, with its message behind the same prefix).
 */
ferry_err filter_lines(char *buf, size_t n, const char *name, filter_line_fn fn,
    void *arg) FERRY_WUR;

/*
 * Adds the patterns of the file at path as filter_add() would, each an
 * include rule when include is non-zero.  FERRY_EUSAGE naming the file
 * (and the line) when it cannot be read or a line is bad.
 */
ferry_err filter_add_file(
    struct filter *f, const char *path, int include) FERRY_WUR;

/*
 * Restricts f to the relative paths listed in the file at path, one a
 * line; a leading "./" or '/' is dropped.  A second list adds to the
 * first.  FERRY_EUSAGE naming the file and line for a path with an empty,
 * "." or ".." component, or a trailing '/'.
 */
ferry_err filter_files_from(struct filter *f, const char *path) FERRY_WUR;
/*
 * The same for a list already read: buf[0, n), holding n + 1 bytes (NULL
 * for none), is taken over whatever the outcome and freed by
 * filter_free(); name stands for it in messages.
 */
ferry_err filter_list_add(
    struct filter *f, char *buf, size_t n, const char *name) FERRY_WUR;

/* How many of f's rules are files (--*-from): 0 for NULL. */
size_t filter_files(const struct filter *f);
/*
 * A new filter made as f was, its files read again (sync --watch on
 * SIGHUP): the rules and files given to filter_add(), filter_add_file()
 * and filter_files_from(), in their order (a list given to
 * filter_list_add() alone is not kept).  *out is the caller's, freed by
 * filter_free(); NULL for a NULL f.  On failure (a file unreadable or
 * bad now: FERRY_EUSAGE naming it and the line) *out is NULL and f is
 * as it was.
 */
ferry_err filter_reload(const struct filter *f, struct filter **out) FERRY_WUR;

/*
 * Leaves out of f the files at the relative paths paths[0, n) (copied),
 * each by its exact bytes, no pattern: on both sides, as an exclude rule
 * naming each alone would, so that each is neither sent nor deleted and
 * the record of what was sent of it is not changed (sync --watch: files still
 * being written). Not kept by filter_reload().  FERRY_ENOMEM.
 */
ferry_err filter_skip_paths(
    struct filter *f, const char *const *paths, size_t n) FERRY_WUR;

/* Non-zero when path (is_dir: a folder) is to be synced. NULL f: all. */
int filter_match(const struct filter *f, const char *path, int is_dir);

/*
 * Matches one glob against a whole string with the rules above (no
 * anchoring or depth rules: those belong to filter_match).  Never
 * backtracks exponentially (see filter.c).  0 for NULL arguments.
 */
int glob_match(const char *pattern, const char *s);

#endif
