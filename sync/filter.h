/*
 * filter.h: --include and --exclude rules.  Private to sync/.
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
 */
#ifndef FERRY_FILTER_H
#define FERRY_FILTER_H

#include <stddef.h>

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

/* Non-zero when path (is_dir: a folder) is to be synced. NULL f: all. */
int filter_match(const struct filter *f, const char *path, int is_dir);

/*
 * Matches one glob against a whole string with the rules above (no
 * anchoring or depth rules: those belong to filter_match).  Never
 * backtracks exponentially (see filter.c).  0 for NULL arguments.
 */
int glob_match(const char *pattern, const char *s);

#endif
