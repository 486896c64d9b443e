/* test_filter.c: globs and --include/--exclude rules (sync/filter.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sync/plan/filter.h"

/* Generous: each pathological case takes milliseconds, even under ASan. */
#define CPU_BUDGET_SEC 2

struct glob_case {
	const char *pat, *s;
	int want;
};

static const struct glob_case glob_cases[] = {
    /* empty strings and lengths that differ */
    {"", "", 1},
    {"", "a", 0},
    {"a", "", 0},
    {"abc", "abc", 1},
    {"abc", "abd", 0},
    {"abcd", "abc", 0},
    {"abc", "abcd", 0},
    {"a?c?e", "abc", 0},
    /* '*' and '?' stay inside one component */
    {"*", "", 1},
    {"*", "abc", 1},
    {"*", "a/b", 0},
    {"*.c", "x.c", 1},
    {"*.c", ".c", 1},
    {"*.c", "d/x.c", 0},
    {"a*", "a", 1},
    {"*a*", "bab", 1},
    {"*a*", "bbb", 0},
    {"a*b*c", "axxbyyc", 1},
    {"a*b*c", "axxbyy/c", 0},
    {"a/*/c", "a/b/c", 1},
    {"a/*/c", "a//c", 1},
    {"a/*/c", "a/b/x/c", 0},
    {"*/b", "a/b", 1},
    {"*/*", "a/b/c", 0},
    {"?", "a", 1},
    {"?", "", 0},
    {"?", "/", 0},
    {"??", "a", 0},
    {"a?c", "abc", 1},
    {"a?c", "a/c", 0},
    /* "**" crosses '/' */
    {"**", "", 1},
    {"**", "a/b/c", 1},
    {"***", "a/b", 1},
    {"**.c", "a/b.c", 1},
    {"**.c", "a/b.h", 0},
    {"a/**", "a/b/c", 1},
    {"a/**", "a/", 1},
    {"a/**", "a", 0},
    {"**/b", "b", 1},
    {"**/b", "a/b", 1},
    {"**/b", "a/x/b", 1},
    {"**/b", "ab", 0},
    {"**/b", "a/xb", 0},
    {"a/**/b", "a/b", 1},
    {"a/**/b", "a/x/b", 1},
    {"a/**/b", "a/x/y/b", 1},
    {"a/**/b", "a/xb", 0},
    {"a/**/b", "ab", 0},
    {"a/**/b", "a/b/c", 0},
    {"a/**/b/**/c", "a/b/c", 1},
    {"a/**/b/**/c", "a/x/b/y/z/c", 1},
    {"a**b", "ab", 1},
    {"a**b", "a/x/b", 1},
    {"a**/b", "ax/b", 1},
    {"a**/b", "ab", 0},
    {"**/*.tmp", "x/y/z.tmp", 1},
    {"**/*.tmp", "z.tmp", 1},
    {"**/*.tmp", "x/z.tmp/y", 0},
    {"**/x*/y", "a/xx/q/y", 0},
    {"**/x*/y", "a/q/xx/y", 1},
    /* classes */
    {"[abc]", "b", 1},
    {"[abc]", "d", 0},
    {"[abc]", "", 0},
    {"[a-c]x", "bx", 1},
    {"[a-c]x", "dx", 0},
    {"[!a-c]", "d", 1},
    {"[!a-c]", "b", 0},
    {"[^a]", "b", 1},
    {"[^a]", "a", 0},
    {"[]]", "]", 1},
    {"[]a]", "a", 1},
    {"[!]]", "a", 1},
    {"[!]]", "]", 0},
    {"[a-]", "-", 1},
    {"[-a]", "-", 1},
    {"[z-a]", "m", 0},
    {"[/]", "/", 0},
    {"[!a]", "/", 0},
    {"a[/]b", "a/b", 0},
    {"[\\]]", "]", 1},
    {"[a\\-z]", "-", 1},
    {"[a\\-z]", "b", 0},
    {"[\\!a]", "!", 1},
    {"[\x80-\xff]", "\xc3", 1},
    {"[a-c][0-9]", "b7", 1},
    /* an unterminated '[' stands for itself */
    {"[]", "[]", 1},
    {"[ab", "[ab", 1},
    {"[ab", "a", 0},
    {"[!", "[!", 1},
    /* escapes */
    {"\\*", "*", 1},
    {"\\*", "a", 0},
    {"\\?", "?", 1},
    {"\\?", "a", 0},
    {"\\[a]", "[a]", 1},
    {"\\[a]", "a", 0},
    {"\\a", "a", 1},
    {"\\\\", "\\", 1},
    {"a\\", "a\\", 1},
    {"\\**", "*/x", 0},
    {"\\**", "*x", 1},
    {"\\***", "*/x", 1},
    /* bytes, not characters */
    {"caf?", "caf\xc3\xa9", 0},
    {"caf??", "caf\xc3\xa9", 1},
    {"caf*", "caf\xc3\xa9", 1},
};

static void
test_glob_table(void **state)
{
	const struct glob_case *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(glob_cases) / sizeof(glob_cases[0]); i++) {
		c = &glob_cases[i];
		if (glob_match(c->pat, c->s) != c->want)
			fail_msg("glob_match(\"%s\", \"%s\") != %d", c->pat,
			    c->s, c->want);
	}
	assert_int_equal(glob_match(NULL, "a"), 0);
	assert_int_equal(glob_match("a", NULL), 0);
}

/*
 * The definition of '*', "**" and "**" followed by '/', written as the
 * plain recursion it is: exponential, but plainly right on short inputs.
 * Only '?', '\' and literals besides the stars.
 */
static int
ref_match(const char *pat, const char *p, const char *s)
{
	const char *t;
	size_t k = 0;
	int any;

	if (*p == '\0')
		return *s == '\0';
	if (*p != '*') {
		any = *p == '?';
		if (*p == '\\' && p[1] != '\0')
			p++;
		if (*s == '\0' || (any ? *s == '/' : *p != *s))
			return 0;
		return ref_match(pat, p + 1, s + 1);
	}
	while (p[k] == '*')
		k++;
	if (k >= 2 && (p == pat || p[-1] == '/') && p[k] == '/' &&
	    ref_match(pat, p + k + 1, s))
		return 1;
	for (t = s;; t++) {
		if (ref_match(pat, p + k, t))
			return 1;
		if (*t == '\0' || (k == 1 && *t == '/'))
			return 0;
	}
}

static uint32_t
lcg(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

static void
random_string(uint32_t *seed, const char *alphabet, size_t max, char *out)
{
	size_t i, n = lcg(seed) % (max + 1);
	size_t na = strlen(alphabet);

	for (i = 0; i < n; i++)
		out[i] = alphabet[lcg(seed) % na];
	out[n] = '\0';
}

/* The two-pointer matcher against the recursion, with a fixed seed. */
static void
test_glob_against_reference(void **state)
{
	uint32_t seed = 20240611;
	char pat[16], s[16];
	int i;

	(void)state;
	for (i = 0; i < 300000; i++) {
		random_string(&seed, "ab/*?*\\", 9, pat);
		random_string(&seed, "ab/", 10, s);
		if (glob_match(pat, s) != ref_match(pat, pat, s))
			fail_msg("glob_match(\"%s\", \"%s\") != %d", pat, s,
			    ref_match(pat, pat, s));
	}
}

/* Returns unit repeated times, then tail; the caller frees it. */
static char *
repeat(const char *unit, size_t times, const char *tail)
{
	size_t u = strlen(unit), t = strlen(tail), i;
	char *s = malloc(u * times + t + 1);

	assert_non_null(s);
	for (i = 0; i < times; i++)
		memcpy(s + i * u, unit, u);
	memcpy(s + u * times, tail, t + 1);
	return s;
}

struct slow_case {
	const char *pat_unit;
	size_t pat_times;
	const char *pat_tail;
	const char *s_unit;
	size_t s_times;
	const char *s_tail;
	int want;
};

static const struct slow_case slow_cases[] = {
    {"*a", 5, "*b", "a", 100000, "", 0},
    {"*a", 5, "*b", "a", 100000, "b", 1},
    {"**a", 5, "**b", "a/", 50000, "", 0},
    {"**a", 5, "**b", "a/", 50000, "b", 1},
    {"**/", 1, "*a*a*a*a*a*b", "aaaaaaaaa/", 10000, "a", 0},
    {"**/", 1, "*a*a*a*a*a*b", "aaaaaaaaa/", 10000, "aaaaab", 1},
    {"**/", 200, "z", "a/", 20000, "y", 0},
    {"**/", 200, "z", "a/", 20000, "z", 1},
    {"*", 1000, "b", "a", 100000, "", 0},
    {"a*", 100, "b", "a", 20000, "", 0},
    {"**?*", 1, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", "a", 20000, "/b",
        0},
    {"*?", 200, "c", "ab", 20000, "", 0},
    {"**", 1, "/*x*x*x*y/**/z", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/", 3000, "z",
        0},
    {"a/**/b", 300, "c", "a/b/", 3000, "d", 0},
    /* an earlier '*' of the component sweeps, a later one fails */
    {"**a*?ab*a", 1, "", "a", 50000, "b/", 0},
    {"**a*?ab*/", 1, "", "a", 50000, "b/", 1},
    /* a '*' dropped at a '/', then the next component fails */
    {"**?*a/*b", 1, "", "a", 50000, "/ccc/x", 0},
    {"**a*/", 1, "", "a", 50000, "/b", 0},
};

/* Patterns that make a backtracking matcher take exponential time. */
static void
test_glob_pathological(void **state)
{
	const struct slow_case *c;
	char *pat, *s;
	clock_t t0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(slow_cases) / sizeof(slow_cases[0]); i++) {
		c = &slow_cases[i];
		pat = repeat(c->pat_unit, c->pat_times, c->pat_tail);
		s = repeat(c->s_unit, c->s_times, c->s_tail);
		t0 = clock();
		assert_int_equal(glob_match(pat, s), c->want);
		if (clock() - t0 > CPU_BUDGET_SEC * CLOCKS_PER_SEC)
			fail_msg(
			    "slow case %zu took over %d s", i, CPU_BUDGET_SEC);
		free(pat);
		free(s);
	}
}

struct bad_case {
	const char *pat;
	const char *why; /* in the detail */
};

static const struct bad_case bad_cases[] = {
    {"", "empty"},
    {"/", "empty"},
    {"//", "empty"},
    {"a//b", "empty path component"},
    {"x//", "empty path component"},
    {"/a//", "empty path component"},
    {"//a", "empty path component"},
    {"a\\", "lone"},
    {"a\\/", "lone"},
    {"[ab", "without a ']'"},
    {"a/[", "without a ']'"},
    {"[!]", "without a ']'"},
};

static const char *const good_patterns[] = {
    "a",
    "a/",
    "/a",
    "/a/",
    "a/b",
    "**",
    "[]]",
    "\\\\/",
    "[a/]",
    "\\[",
    "*",
};

static void
test_filter_add(void **state)
{
	struct filter *f = filter_new();
	const struct bad_case *c;
	size_t i;

	(void)state;
	assert_non_null(f);
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		c = &bad_cases[i];
		if (filter_add(f, c->pat, 0) != FERRY_EUSAGE)
			fail_msg("\"%s\" was accepted", c->pat);
		if (strstr(ferry_errmsg(), c->why) == NULL)
			fail_msg("\"%s\": detail \"%s\" lacks \"%s\"", c->pat,
			    ferry_errmsg(), c->why);
	}
	for (i = 0; i < sizeof(good_patterns) / sizeof(good_patterns[0]); i++)
		if (filter_add(f, good_patterns[i], 1) != FERRY_OK)
			fail_msg(
			    "\"%s\": %s", good_patterns[i], ferry_errmsg());
	assert_int_equal(filter_add(NULL, "a", 0), FERRY_EUSAGE);
	assert_int_equal(filter_add(f, NULL, 0), FERRY_EUSAGE);
	filter_free(f);
	filter_free(NULL);
}

struct check {
	const char *path;
	int is_dir;
	int want;
};

struct filter_case {
	const char *name;
	const char *rules[4]; /* "+pattern" includes, "-pattern" excludes */
	struct check checks[10];
};

static const struct filter_case filter_cases[] = {
    {"no rules", {NULL}, {{"a", 0, 1}, {"a/b", 1, 1}, {"a/b/c", 0, 1}}},
    {"*.tmp at any depth", {"-*.tmp"},
        {{"a.tmp", 0, 0}, {"x/y/a.tmp", 0, 0}, {".tmp", 0, 0}, {"a.tmpx", 0, 1},
            {"x/tmp", 0, 1}, {"a.tmp", 1, 0}, {"a.tmp/x", 0, 0},
            {"x/a.tmp/y/z", 0, 0}}},
    {"/top.txt anchored", {"-/top.txt"},
        {{"top.txt", 0, 0}, {"top.txt", 1, 0}, {"a/top.txt", 0, 1},
            {"top.txt/x", 0, 0}, {"xtop.txt", 0, 1}}},
    {"cache/ folders only", {"-cache/"},
        {{"cache", 1, 0}, {"cache", 0, 1}, {"a/cache", 1, 0},
            {"a/b/cache", 0, 1}, {"a/cache/x", 0, 0}, {"a/cache/x/y", 1, 0},
            {"cachex/y", 0, 1}, {"xcache", 1, 1}}},
    {"include before exclude", {"+keep.tmp", "-*.tmp"},
        {{"keep.tmp", 0, 1}, {"x/keep.tmp", 0, 1}, {"other.tmp", 0, 0},
            {"x/other.tmp", 0, 0}, {"other.c", 0, 1}}},
    {"exclude before include", {"-*.tmp", "+keep.tmp"},
        {{"keep.tmp", 0, 0}, {"other.tmp", 0, 0}, {"other.c", 0, 1}}},
    {"excluded folder, then a file inside it", {"-/build"},
        {{"build", 1, 0}, {"build/a.o", 0, 0}, {"build/sub/a.o", 0, 0},
            {"build/sub", 1, 0}, {"src/build", 1, 1}, {"src/build/a.o", 0, 1},
            {"buildx/a", 0, 1}}},
    {"an include cannot reach into an excluded folder",
        {"+/logs/keep.log", "-/logs/"},
        {{"logs", 1, 0}, {"logs/keep.log", 0, 0}, {"logs", 0, 1},
            {"x/logs/keep.log", 0, 1}}},
    {"folder included first, its contents filtered",
        {"+/logs/", "+keep.log", "-/logs/**"},
        {{"logs", 1, 1}, {"logs/keep.log", 0, 1}, {"logs/other.log", 0, 0},
            {"logs/a", 1, 0}, {"logs/a/keep.log", 0, 0}}},
    {"only *.c, in every folder", {"+*/", "+*.c", "-*"},
        {{"src", 1, 1}, {"src/a.c", 0, 1}, {"src/a.o", 0, 0}, {"src/sub", 1, 1},
            {"src/sub/x.c", 0, 1}, {"README", 0, 0}, {"a.c", 0, 1}}},
    {"a '/' inside matches at a component boundary", {"-b/c"},
        {{"b/c", 0, 0}, {"a/b/c", 0, 0}, {"ab/c", 0, 1}, {"b/cd", 0, 1},
            {"b/c/d", 0, 0}, {"b", 1, 1}}},
    {"** in a rule", {"-/a/**/z"},
        {{"a/z", 0, 0}, {"a/x/y/z", 0, 0}, {"b/a/z", 0, 1}, {"a/z/q", 0, 0},
            {"a/zz", 0, 1}, {"a", 1, 1}}},
    {"escapes and classes", {"-\\*.txt", "-[0-9]*.log"},
        {{"*.txt", 0, 0}, {"a.txt", 0, 1}, {"d/*.txt", 0, 0}, {"7.log", 0, 0},
            {"x.log", 0, 1}, {"d/42.log", 0, 0}}},
};

/* Builds the filter of c; the caller frees it. */
static struct filter *
case_filter(const struct filter_case *c)
{
	struct filter *f = filter_new();
	size_t i;

	assert_non_null(f);
	for (i = 0; i < 4 && c->rules[i] != NULL; i++)
		if (filter_add(f, c->rules[i] + 1, c->rules[i][0] == '+') !=
		    FERRY_OK)
			fail_msg("%s: %s", c->name, ferry_errmsg());
	return f;
}

static void
test_filter_table(void **state)
{
	const struct filter_case *c;
	const struct check *k;
	struct filter *f;
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(filter_cases) / sizeof(filter_cases[0]); i++) {
		c = &filter_cases[i];
		f = case_filter(c);
		for (j = 0; j < 10 && c->checks[j].path != NULL; j++) {
			k = &c->checks[j];
			if (!filter_match(f, k->path, k->is_dir) != !k->want)
				fail_msg("%s: \"%s\"%s should be %s", c->name,
				    k->path, k->is_dir ? " (folder)" : "",
				    k->want ? "included" : "excluded");
		}
		filter_free(f);
	}
}

static void
test_filter_edges(void **state)
{
	struct filter *f = filter_new();
	char pat[16];
	int i;

	(void)state;
	assert_true(filter_match(NULL, "a", 0));
	assert_non_null(f);
	assert_false(filter_match(f, NULL, 0));
	assert_true(filter_match(f, "", 1));
	/* Enough rules to grow the array several times; the last decides. */
	for (i = 0; i < 100; i++) {
		snprintf(pat, sizeof(pat), "f%d", i);
		assert_int_equal(filter_add(f, pat, i % 2), FERRY_OK);
	}
	assert_true(filter_match(f, "d/f99", 0));
	assert_false(filter_match(f, "d/f98", 0));
	assert_false(filter_match(f, "f98/x", 0));
	assert_true(filter_match(f, "f100", 0));
	filter_free(f);
}

/* A --*-from file's bytes, and the lines it yields or the error. */
struct lines_case {
	const char *in;
	size_t len;       /* 0: strlen(in) */
	const char *want; /* the lines, each followed by '|'; NULL: refused */
	const char *err;  /* what the message begins with when refused */
};

static const struct lines_case lines_cases[] = {
    {"", 0, "", NULL},
    {"\n\n\n", 0, "", NULL},
    {"a", 0, "a|", NULL},
    {"a\n", 0, "a|", NULL},
    {"a\nb", 0, "a|b|", NULL},
    {"# comment\n*.log\n\n  \t\n#x\nb/\n", 0, "*.log|b/|", NULL},
    {" # not a comment\n", 0, " # not a comment|", NULL},
    {"a\r\nb\r\n\r\n", 0, "a|b|", NULL},
    {"a\r\r\n", 0, "a\r|", NULL},
    {"\r", 0, "", NULL},
    {"a\n\0b\n", 5, NULL, "F:2: the line holds a NUL byte"},
    {"a\nb\nREFUSE\nc\n", 0, NULL, "F:3: refused"},
};

/* Collects the lines into a buffer; "REFUSE" is refused. */
static ferry_err
collect(void *arg, char *line)
{
	char *out = arg;

	if (strcmp(line, "REFUSE") == 0)
		return ferry_fail(FERRY_EUSAGE, "refused");
	strcat(out, line);
	strcat(out, "|");
	return FERRY_OK;
}

static void
test_filter_lines(void **state)
{
	const struct lines_case *c;
	char buf[64], out[64];
	size_t i, n;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(lines_cases) / sizeof(lines_cases[0]); i++) {
		c = &lines_cases[i];
		n = c->len ? c->len : strlen(c->in);
		memcpy(buf, c->in, n);
		buf[n] = '\0';
		out[0] = '\0';
		e = filter_lines(buf, n, "F", collect, out);
		if (c->want != NULL && (e != FERRY_OK || strcmp(out, c->want)))
			fail_msg("case %zu: got \"%s\" (%s)", i, out,
			    e ? ferry_errmsg() : "ok");
		if (c->want == NULL &&
		    (e != FERRY_EUSAGE ||
		        strncmp(ferry_errmsg(), c->err, strlen(c->err))))
			fail_msg("case %zu: got \"%s\"", i, ferry_errmsg());
	}
}

static void
test_filter_lines_long(void **state)
{
	size_t n = FILTER_LINE_MAX + 3;
	char *buf = malloc(n + 1), out[8] = "";

	(void)state;
	assert_non_null(buf);
	memset(buf, 'a', n);
	buf[0] = '#'; /* a comment may not be longer either */
	buf[1] = '\n';
	assert_int_equal(filter_lines(buf, n, "F", collect, out), FERRY_EUSAGE);
	assert_string_equal(ferry_errmsg(), "F:2: the line is longer than 4096 "
	                                    "bytes");
	/* FILTER_LINE_MAX bytes and a "\r\n" are fine */
	memset(buf, '#', n);
	buf[FILTER_LINE_MAX] = '\r';
	buf[FILTER_LINE_MAX + 1] = '\n';
	assert_int_equal(filter_lines(buf, n, "F", collect, out), FERRY_OK);
	free(buf);
}

/* Writes text into a new temporary file; returns its name (static). */
static const char *
temp_file(const char *text)
{
	static char name[] = "/tmp/test_filter.XXXXXX";
	int fd;

	strcpy(name, "/tmp/test_filter.XXXXXX");
	fd = mkstemp(name);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return name;
}

/* Exact paths left out: the files alone, by their bytes, no glob. */
static void
test_filter_skip_paths(void **state)
{
	const char *paths[] = {"b/log.txt", "a*", "x/y/z"};
	struct filter *f = filter_new();

	(void)state;
	assert_non_null(f);
	assert_int_equal(filter_skip_paths(f, paths, 3), FERRY_OK);
	assert_int_equal(filter_skip_paths(f, NULL, 0), FERRY_OK);
	assert_int_equal(filter_skip_paths(NULL, paths, 1), FERRY_EUSAGE);
	assert_false(filter_match(f, "b/log.txt", 0));
	assert_false(filter_match(f, "a*", 0));
	assert_false(filter_match(f, "x/y/z", 0));
	/* not a pattern, not a folder, not a prefix */
	assert_true(filter_match(f, "ab", 0));
	assert_true(filter_match(f, "b/log.txt2", 0));
	assert_true(filter_match(f, "b/log.tx", 0));
	assert_true(filter_match(f, "c/b/log.txt", 0));
	assert_true(filter_match(f, "x/y/z", 1));
	assert_true(filter_match(f, "x/y", 1));
	/* with rules beside them: both apply */
	assert_int_equal(filter_add(f, "*.log", 0), FERRY_OK);
	assert_false(filter_match(f, "c.log", 0));
	assert_false(filter_match(f, "b/log.txt", 0));
	assert_true(filter_match(f, "c.txt", 0));
	filter_free(f);
}

static void
test_filter_files(void **state)
{
	struct filter *f = filter_new();
	const char *name;

	(void)state;
	assert_non_null(f);
	name = temp_file("# a list\n./b/c.txt\n/a.txt\nb/d/e\nz\n");
	assert_int_equal(filter_add(f, "*.log", 0), FERRY_OK);
	assert_int_equal(filter_files_from(f, name), FERRY_OK);
	unlink(name);
	assert_true(filter_match(f, "a.txt", 0));
	assert_true(filter_match(f, "b/c.txt", 0));
	assert_true(filter_match(f, "b/d/e", 0));
	assert_true(filter_match(f, "b", 1));
	assert_true(filter_match(f, "b/d", 1));
	assert_false(filter_match(f, "b", 0));
	assert_false(filter_match(f, "a.txt", 1));
	assert_false(filter_match(f, "b/c", 1));
	assert_false(filter_match(f, "b/c.tx", 0));
	assert_false(filter_match(f, "b.", 1));
	assert_false(filter_match(f, "a", 1));
	assert_false(filter_match(f, "zz", 0));
	/* a second list adds to the first; the rules still apply */
	name = temp_file("y.log\nb-\n");
	assert_int_equal(filter_files_from(f, name), FERRY_OK);
	unlink(name);
	assert_true(filter_match(f, "b-", 0));
	assert_true(filter_match(f, "z", 0));
	assert_false(filter_match(f, "y.log", 0));
	filter_free(f);
}

static void
test_filter_files_bad(void **state)
{
	static const char *const bad[] = {
	    "a//b", "a/./b", "a/..", "/", "./", "a/", "..", NULL};
	struct filter *f;
	const char *name;
	char text[64];
	size_t i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		f = filter_new();
		assert_non_null(f);
		snprintf(text, sizeof(text), "ok\n\n%s\n", bad[i]);
		name = temp_file(text);
		assert_int_equal(filter_files_from(f, name), FERRY_EUSAGE);
		assert_non_null(strstr(ferry_errmsg(), ":3: bad path"));
		unlink(name);
		filter_free(f);
	}
	f = filter_new();
	assert_non_null(f);
	assert_int_equal(
	    filter_files_from(f, "/nonexistent/list"), FERRY_EUSAGE);
	assert_string_equal(
	    ferry_errmsg(), "/nonexistent/list: No such file or directory");
	/* an empty list keeps nothing */
	name = temp_file("");
	assert_int_equal(filter_files_from(f, name), FERRY_OK);
	unlink(name);
	assert_false(filter_match(f, "a", 0));
	filter_free(f);
}

static void
test_filter_add_file(void **state)
{
	struct filter *f = filter_new();
	const char *name;

	(void)state;
	assert_non_null(f);
	name = temp_file(
	    "# the logs, at the top and in today/\ntoday/\r\n\n*.log\n");
	assert_int_equal(filter_add_file(f, name, 1), FERRY_OK);
	assert_int_equal(filter_add(f, "*", 0), FERRY_OK);
	unlink(name);
	assert_true(filter_match(f, "today/a.log", 0));
	assert_true(filter_match(f, "y.log", 0));
	assert_false(filter_match(f, "today/a.txt", 0));
	assert_false(filter_match(f, "x/y.log", 0));
	name = temp_file("*.log\n[a-\n");
	assert_int_equal(filter_add_file(f, name, 0), FERRY_EUSAGE);
	assert_non_null(strstr(ferry_errmsg(), ":2: bad filter pattern"));
	unlink(name);
	filter_free(f);
}

/*
 * Files that are not lists are refused at once, by name: what is not a
 * regular file (a fifo would block, a device never end), and a line too
 * long as soon as it is read, not after the whole file.
 */
static void
test_filter_files_refused(void **state)
{
	static const char *const kinds[] = {
	    "/dev/zero", "a device", "/tmp", "a folder", NULL};
	char fifo[] = "/tmp/test_filter.XXXXXX", msg[256];
	struct filter *f = filter_new();
	const char *name;
	size_t i;
	int fd;

	(void)state;
	assert_non_null(f);
	for (i = 0; kinds[i] != NULL; i += 2) {
		assert_int_equal(filter_add_file(f, kinds[i], 0), FERRY_EUSAGE);
		snprintf(msg, sizeof(msg), "%s: %s, not a regular file",
		    kinds[i], kinds[i + 1]);
		assert_string_equal(ferry_errmsg(), msg);
	}
	/* a fifo no one writes to */
	fd = mkstemp(fifo);
	assert_true(fd >= 0);
	close(fd);
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(filter_files_from(f, fifo), FERRY_EUSAGE);
	snprintf(msg, sizeof(msg), "%s: a fifo, not a regular file", fifo);
	assert_string_equal(ferry_errmsg(), msg);
	unlink(fifo);
	/* past FILTER_FILE_MAX, sparse: its second line is refused first */
	name = temp_file("ok\n");
	assert_int_equal(truncate(name, (off_t)FILTER_FILE_MAX + 4096), 0);
	assert_int_equal(filter_add_file(f, name, 1), FERRY_EUSAGE);
	snprintf(
	    msg, sizeof(msg), "%s:2: the line is longer than 4096 bytes", name);
	assert_string_equal(ferry_errmsg(), msg);
	unlink(name);
	filter_free(f);
}

/* Writes text over the file at name. */
static void
rewrite(const char *name, const char *text)
{
	FILE *fp = fopen(name, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

/*
 * filter_reload() replays the rules in their order, reading their files
 * again; a file gone or bad refuses the reload and leaves the old filter
 * as it was.
 */
static void
test_filter_reload(void **state)
{
	char ex[64], list[64];
	struct filter *f = filter_new(), *g = NULL, *h = NULL;

	(void)state;
	assert_non_null(f);
	snprintf(ex, sizeof(ex), "%s", temp_file("*.log\n"));
	snprintf(list, sizeof(list), "%s", temp_file("a.log\nb.txt\nc.txt\n"));
	assert_int_equal(filter_files(NULL), 0);
	assert_int_equal(filter_reload(NULL, &g), FERRY_OK);
	assert_null(g);
	assert_int_equal(filter_add(f, "a.log", 1), FERRY_OK);
	assert_int_equal(filter_add_file(f, ex, 0), FERRY_OK);
	assert_int_equal(filter_files_from(f, list), FERRY_OK);
	assert_int_equal(filter_add(f, "c.txt", 0), FERRY_OK);
	assert_int_equal(filter_files(f), 2);
	assert_true(filter_match(f, "a.log", 0));
	assert_true(filter_match(f, "b.txt", 0));
	assert_false(filter_match(f, "c.txt", 0));
	assert_false(filter_match(f, "d.txt", 0));

	rewrite(ex, "*.txt\n");
	rewrite(list, "b.txt\nd.txt\nz.log\n");
	assert_int_equal(filter_reload(f, &g), FERRY_OK);
	assert_non_null(g);
	assert_int_equal(filter_files(g), 2);
	/* the pattern first still includes; the file's now excludes .txt */
	assert_false(filter_match(g, "a.log", 0)); /* no longer listed */
	assert_false(filter_match(g, "b.txt", 0));
	assert_false(filter_match(g, "d.txt", 0));
	assert_true(filter_match(g, "z.log", 0));
	/* f is untouched */
	assert_true(filter_match(f, "b.txt", 0));

	/* a bad line, then a file gone: refused, g kept as it was */
	rewrite(ex, "*.txt\n[oops\n");
	assert_int_equal(filter_reload(g, &h), FERRY_EUSAGE);
	assert_null(h);
	assert_non_null(strstr(ferry_errmsg(), ":2: bad filter pattern"));
	unlink(ex);
	assert_int_equal(filter_reload(g, &h), FERRY_EUSAGE);
	assert_null(h);
	assert_true(filter_match(g, "z.log", 0));
	assert_false(filter_match(g, "b.txt", 0));
	unlink(list);
	filter_free(g);
	filter_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_glob_table),
	    cmocka_unit_test(test_glob_against_reference),
	    cmocka_unit_test(test_glob_pathological),
	    cmocka_unit_test(test_filter_add),
	    cmocka_unit_test(test_filter_table),
	    cmocka_unit_test(test_filter_edges),
	    cmocka_unit_test(test_filter_lines),
	    cmocka_unit_test(test_filter_lines_long),
	    cmocka_unit_test(test_filter_files),
	    cmocka_unit_test(test_filter_skip_paths),
	    cmocka_unit_test(test_filter_files_bad),
	    cmocka_unit_test(test_filter_add_file),
	    cmocka_unit_test(test_filter_files_refused),
	    cmocka_unit_test(test_filter_reload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
