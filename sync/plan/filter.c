/*
 * filter.c: --include and --exclude rules, and the glob matcher they use.
 *
 * fnmatch() does not fit: it has no "**" that crosses '/'.  The matcher
 * below keeps two backtrack points instead of recursing, so its work is
 * polynomial: the square of the string's length times the pattern's
 * bounds it, and the spans it remembers keep it near the product of the
 * two lengths.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/plan/filter.h"

/* Prepended to a rule that is not anchored, so it matches at any depth. */
#define ANY_DEPTH "**/"
#define ANY_DEPTH_LEN 3
/* A class as a set of bytes, one bit each. */
#define CLASS_SET_LEN 32

struct rule {
	char *glob; /* the pattern as matched against the whole path */
	int include;
	int dir_only;
};

/* What filter_reload() replays: a rule or a file, as it was given. */
enum step_kind { STEP_PATTERN, STEP_FILE, STEP_LIST };
struct step {
	enum step_kind kind;
	int include;
	char *arg; /* the pattern, or the file's path */
};

struct filter {
	struct rule *rules;
	size_t n, cap;
	size_t n_exclude; /* with none, no parent folder can be excluded */
	/* --files-from: the files read, and the paths in them, sorted */
	char **lists;
	size_t nlists;
	const char **paths;
	size_t npaths, paths_cap;
	int has_list;
	/* filter_skip_paths(): files left out by their exact path, sorted */
	char **skips;
	size_t nskips;
	/* the rules and files as given, in their order */
	struct step *steps;
	size_t nsteps;
};

/*
 * One match in progress.  Only the last '*' and the last "**" are kept as
 * backtrack points; why that is enough is explained at glob_run().
 */
struct glob {
	const char *pat; /* the whole pattern */
	const char *p;   /* the next pattern token */
	const char *s;   /* the next string byte */
	const char *end; /* the end of the string */
	/*
	 * The last '*' still live: the pattern after it and where its
	 * current attempt starts.  chain is the first '*' since the last '/'
	 * matched or "**" taken.
	 */
	const char *star, *star_to, *chain;
	/* The last "**": the pattern after it and its current attempt. */
	const char *dstar, *dstar_s;
	int dstar_slash; /* "**" then '/': matches "" or up to a '/' */
	/*
	 * The stars, named by the pattern after them, from dead_lo to
	 * dead_hi fail from any start up to dead_to; dead_set once this "**"
	 * attempt has set them.
	 */
	const char *dead_lo, *dead_hi, *dead_to;
	int dead_set;
	/* The last class met: its '[', its ']' (NULL: none) and members. */
	const char *cls, *cls_close;
	unsigned char cls_set[CLASS_SET_LEN];
};

/* Returns the ']' closing the class whose body starts at p, or NULL. */
static const char *
class_end(const char *p)
{
	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']')
		p++; /* a ']' first is a member, not the end */
	for (; *p != '\0'; p++) {
		if (*p == ']')
			return p;
		if (*p == '\\' && *++p == '\0')
			return NULL;
	}
	return NULL;
}

/* Returns the class member at *pp, honouring '\', and steps past it. */
static unsigned char
class_char(const char **pp)
{
	const char *p = *pp;

	if (*p == '\\')
		p++;
	*pp = p + 1;
	return (unsigned char)*p;
}

/* Fills set, 256 bits, with the members of the class body [p, close). */
static void
class_read(const char *p, const char *close, unsigned char *set)
{
	unsigned int lo, hi, c;
	int neg = *p == '!' || *p == '^';

	memset(set, 0, CLASS_SET_LEN);
	p += neg;
	while (p < close) {
		lo = class_char(&p);
		hi = lo;
		if (*p == '-' && p + 1 < close) {
			p++;
			hi = class_char(&p);
		}
		for (c = lo; c <= hi; c++)
			set[c >> 3] |= (unsigned char)(1u << (c & 7));
	}
	for (c = 0; neg && c < CLASS_SET_LEN; c++)
		set[c] ^= 0xff;
}

/*
 * Returns the ']' closing the class at p (its '['), or NULL, and leaves
 * its members in g->cls_set.  The last class is kept because the
 * backtracking meets the same one again and again.
 */
static const char *
class_at(struct glob *g, const char *p)
{
	if (g->cls != p) {
		g->cls = p;
		g->cls_close = class_end(p + 1);
		if (g->cls_close != NULL)
			class_read(p + 1, g->cls_close, g->cls_set);
	}
	return g->cls_close;
}

/*
 * Matches the token at g->p ('?', a class, an escape or a literal, never
 * '*') against the byte c and steps past it when it matches.  An
 * unterminated '[' stands for itself, as in fnmatch, and so does a
 * trailing '\' (fnmatch fails there; filter_add refuses both).
 */
static int
token_match(struct glob *g, unsigned char c)
{
	const char *p = g->p;
	const char *close;
	int ok;

	if (*p == '\0')
		return 0;
	if (*p == '?') {
		ok = c != '/';
		p++;
	} else if (*p == '[' && (close = class_at(g, p)) != NULL) {
		ok = c != '/' && ((g->cls_set[c >> 3] >> (c & 7)) & 1);
		p = close + 1;
	} else {
		if (*p == '\\' && p[1] != '\0')
			p++;
		ok = c == (unsigned char)*p;
		p++;
	}
	if (ok)
		g->p = p;
	return ok;
}

/*
 * Takes the run of '*' at g->p.  A "**" replaces every earlier backtrack
 * point (see glob_run).  Returns 0 when the '*' is already known to fail
 * from here, so that the caller backtracks at once.
 */
static int
take_star(struct glob *g)
{
	const char *q = g->p;
	int at_start = q == g->pat || q[-1] == '/';

	while (*q == '*')
		q++;
	if (q - g->p >= 2) {
		g->dstar_slash = at_start && *q == '/';
		g->dstar = g->dstar_slash ? q + 1 : q;
		g->dstar_s = g->s;
		g->star = NULL;
		g->dead_set = 0;
		g->p = g->dstar;
		return 1;
	}
	if (g->dead_lo != NULL && q >= g->dead_lo && q <= g->dead_hi &&
	    g->s <= g->dead_to)
		return 0;
	if (g->star == NULL)
		g->chain = q;
	g->star = q;
	g->star_to = g->s;
	g->p = q;
	return 1;
}

/* Lets the last "**" absorb more; returns 0 when it cannot. */
static int
dstar_next(struct glob *g)
{
	const char *slash;

	if (g->dstar == NULL)
		return 0;
	if (g->dstar_slash) {
		/* It absorbs whole components, up to and including a '/'. */
		slash = memchr(g->dstar_s, '/', (size_t)(g->end - g->dstar_s));
		if (slash == NULL)
			return 0;
		g->dstar_s = slash + 1;
	} else if (g->dstar_s < g->end) {
		g->dstar_s++;
	} else {
		return 0;
	}
	g->p = g->dstar;
	g->s = g->dstar_s;
	g->dead_set = 0;
	return 1;
}

/*
 * Drops the last '*', which can go no further than the '/' at slash.  If
 * the attempt fails, every '*' of its chain failed from every start up to
 * that '/', and later attempts start them no earlier (see glob_run), so
 * they may skip them there.  The first chain of an attempt is the one
 * kept: it is the one the next attempt reaches first.
 */
static void
star_drop(struct glob *g, const char *slash)
{
	if (!g->dead_set) {
		g->dead_lo = g->chain;
		g->dead_hi = g->star;
		g->dead_to = slash;
		g->dead_set = 1;
	}
	g->star = NULL;
}

/* Moves to the next attempt after a mismatch; returns 0 when none is left. */
static int
backtrack(struct glob *g)
{
	if (g->star != NULL) {
		if (g->star_to < g->end && *g->star_to != '/') {
			g->star_to++;
			g->p = g->star;
			g->s = g->star_to;
			return 1;
		}
		if (g->star_to == g->end)
			return 0;
		star_drop(g, g->star_to);
	}
	return dstar_next(g);
}

/*
 * Non-zero when pat matches all of [s, end).
 *
 * This is the two-pointer matcher for '*' with a second, outer backtrack
 * point for "**".  Each token other than '*' matches exactly one byte, so
 * the pieces between stars have fixed lengths and placing each piece as
 * early as it fits is never worse than placing it later: a later "**"
 * can absorb whatever an earlier one left.  Hence only the last '*' and
 * the last "**" need retrying.  The same argument shows that a later
 * "**" attempt places each piece, and starts each '*', no earlier than
 * the one before.  A '*' cannot pass a '/', so it is dropped when it
 * reaches one, or when the fixed piece after it matches one (that piece
 * can land its '/' nowhere else); after that only the "**" absorbs more,
 * and the span swept is remembered so that the next attempts do not
 * sweep it again, which would cost the string's length each time.  A '*'
 * that reaches the end of the string ends the match: later attempts could
 * only start it later.
 */
static int
glob_run(const char *pat, const char *s, const char *end)
{
	struct glob g = {.pat = pat, .p = pat, .s = s, .end = end};

	for (;;) {
		if (*g.p == '*') {
			if (take_star(&g))
				continue;
			g.star = NULL;
		} else if (g.s == g.end) {
			if (*g.p == '\0')
				return 1;
		} else if (token_match(&g, (unsigned char)*g.s)) {
			if (*g.s == '/' && g.star != NULL)
				star_drop(&g, g.s);
			g.s++;
			continue;
		}
		if (!backtrack(&g))
			return 0;
	}
}

int
glob_match(const char *pattern, const char *s)
{
	if (pattern == NULL || s == NULL)
		return 0;
	return glob_run(pattern, s, s + strlen(s));
}

struct filter *
filter_new(void)
{
	return calloc(1, sizeof(struct filter));
}

void
filter_free(struct filter *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		free(f->rules[i].glob);
	for (i = 0; i < f->nlists; i++)
		free(f->lists[i]);
	for (i = 0; i < f->nsteps; i++)
		free(f->steps[i].arg);
	for (i = 0; i < f->nskips; i++)
		free(f->skips[i]);
	free(f->skips);
	free(f->steps);
	free(f->rules);
	free(f->lists);
	free(f->paths);
	free(f);
}

/* Returns NULL when the body of a rule is well formed, else why not. */
static const char *
body_problem(const char *p)
{
	int after_slash = 1; /* at the start or just after a '/' */

	if (*p == '\0')
		return "it is empty";
	while (*p != '\0') {
		if (*p == '/' && after_slash)
			return "it has an empty path component";
		after_slash = *p == '/';
		if (*p == '\\' && p[1] == '\0')
			return "it ends in a lone '\\'";
		if (*p == '[' && class_end(p + 1) == NULL)
			return "it has a '[' without a ']'";
		if (*p == '[')
			p = class_end(p + 1);
		else if (*p == '\\')
			p++;
		p++;
	}
	return after_slash ? "it has an empty path component" : NULL;
}

/* Returns a copy of body[0, n), after ANY_DEPTH unless anchored, or NULL. */
static char *
rule_glob(const char *body, size_t n, int anchored)
{
	size_t pre = anchored ? 0 : ANY_DEPTH_LEN;
	char *g;

	g = malloc(pre + n + 1);
	if (g == NULL)
		return NULL;
	memcpy(g, ANY_DEPTH, pre);
	memcpy(g + pre, body, n);
	g[pre + n] = '\0';
	return g;
}

/* Appends r to f; on failure frees r->glob. */
static ferry_err
rule_push(struct filter *f, struct rule *r)
{
	struct rule *nr;
	size_t cap;

	if (f->n == f->cap) {
		cap = f->cap == 0 ? 8 : 2 * f->cap;
		if (cap > SIZE_MAX / sizeof(*nr) ||
		    (nr = realloc(f->rules, cap * sizeof(*nr))) == NULL) {
			free(r->glob);
			return ferry_fail(FERRY_ENOMEM, "no memory for a rule");
		}
		f->rules = nr;
		f->cap = cap;
	}
	f->rules[f->n++] = *r;
	f->n_exclude += !r->include;
	return FERRY_OK;
}

/* Keeps what was given (arg copied) for filter_reload(). */
static ferry_err
step_keep(struct filter *f, enum step_kind kind, int include, const char *arg)
{
	struct step *ns;
	char *copy;

	if ((copy = strdup(arg)) == NULL ||
	    (ns = realloc(f->steps, (f->nsteps + 1) * sizeof(*ns))) == NULL) {
		free(copy);
		return ferry_fail(FERRY_ENOMEM, "no memory for \"%s\"", arg);
	}
	f->steps = ns;
	f->steps[f->nsteps++] = (struct step){kind, include, copy};
	return FERRY_OK;
}

/* filter_add() but for keeping the pattern: a line of a file's. */
static ferry_err
pattern_add(struct filter *f, const char *pattern, int include)
{
	struct rule r;
	const char *body, *why;
	size_t n;
	int anchored;

	if (f == NULL || pattern == NULL)
		return ferry_fail(FERRY_EUSAGE, "no filter or no pattern");
	anchored = pattern[0] == '/';
	body = pattern + anchored;
	n = strlen(body);
	r.dir_only = n > 0 && body[n - 1] == '/';
	r.include = include != 0;
	r.glob = rule_glob(body, n - (size_t)r.dir_only, anchored);
	if (r.glob == NULL)
		return ferry_fail(
		    FERRY_ENOMEM, "no memory for \"%s\"", pattern);
	why = body_problem(r.glob + (anchored ? 0 : ANY_DEPTH_LEN));
	if (why != NULL) {
		free(r.glob);
		return ferry_fail(FERRY_EUSAGE, "bad filter pattern \"%s\": %s",
		    pattern, why);
	}
	return rule_push(f, &r);
}

ferry_err
filter_add(struct filter *f, const char *pattern, int include)
{
	ferry_err e = pattern_add(f, pattern, include);

	return e == FERRY_OK ? step_keep(f, STEP_PATTERN, include, pattern) : e;
}

/* Returns the verdict of the first rule matching path[0, n), else 1. */
static int
decide(const struct filter *f, const char *path, size_t n, int is_dir)
{
	const struct rule *r;
	size_t i;

	for (i = 0; i < f->n; i++) {
		r = &f->rules[i];
		if (r->dir_only && !is_dir)
			continue;
		if (glob_run(r->glob, path, path + n))
			return r->include;
	}
	return 1;
}

/*
 * Compares s with key[0, n) followed by tail: 0 when s is key[0, n) and
 * tail ('\0': nothing more), or begins with them (tail '/').
 */
static int
listed_cmp(const char *s, const char *key, size_t n, char tail)
{
	int c = strncmp(s, key, n);

	if (c != 0)
		return c;
	return (int)(unsigned char)s[n] - (int)(unsigned char)tail;
}

/*
 * Non-zero when --files-from lists path[0, n), or for a folder something
 * below it.  The paths are sorted, so those a folder holds lie together
 * from the first not before "path/".
 */
static int
listed(const struct filter *f, const char *path, size_t n, int is_dir)
{
	char tail = is_dir ? '/' : '\0';
	size_t lo = 0, hi = f->npaths, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (listed_cmp(f->paths[mid], path, n, tail) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->npaths && listed_cmp(f->paths[lo], path, n, tail) == 0;
}

/*
 * The scanner asks about a folder before descending into it, but a path
 * alone (a key from a listing, say) must get the same answer, so its
 * parent folders are decided too and an excluded one excludes it.  That
 * costs one pass of the rules per level: none when no rule excludes or
 * when the path's own rule already excludes it.
 */
static int path_cmp(const void *a, const void *b);

int
filter_match(const struct filter *f, const char *path, int is_dir)
{
	const char *slash;
	size_t n;

	if (f == NULL)
		return 1;
	if (path == NULL)
		return 0;
	n = strlen(path);
	if (f->has_list && !listed(f, path, n, is_dir))
		return 0;
	if (f->nskips && !is_dir &&
	    bsearch(&path, f->skips, f->nskips, sizeof(*f->skips), path_cmp))
		return 0;
	if (!decide(f, path, n, is_dir))
		return 0;
	for (slash = path;
	     f->n_exclude > 0 &&
	     (slash = memchr(slash, '/', n - (size_t)(slash - path))) != NULL;
	     slash++)
		if (slash > path && !decide(f, path, (size_t)(slash - path), 1))
			return 0;
	return 1;
}

/* Returns e with "name:no: why" as the message. */
static ferry_err
line_fail(ferry_err e, const char *name, size_t no, const char *why)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", why);
	return ferry_fail(e, "%s:%zu: %s", name, no, msg);
}

/* Non-zero when line[0, n) holds nothing but spaces and tabs. */
static int
blank(const char *line, size_t n)
{
	return strspn(line, " \t") == n;
}

ferry_err
filter_lines(
    char *buf, size_t n, const char *name, filter_line_fn fn, void *arg)
{
	char *line, *nl;
	size_t no = 0, len;
	ferry_err e;

	for (line = buf; n > 0 && line <= buf + n; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(buf + n - line));
		if (nl == NULL)
			nl = buf + n;
		if (nl == line && nl == buf + n)
			break; /* after the last '\n' */
		no++;
		*nl = '\0';
		len = (size_t)(nl - line);
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len > FILTER_LINE_MAX)
			return line_fail(FERRY_EUSAGE, name, no,
			    "the line is longer than 4096 bytes");
		if (strlen(line) != len)
			return line_fail(FERRY_EUSAGE, name, no,
			    "the line holds a NUL byte");
		if (blank(line, len) || line[0] == '#')
			continue;
		if ((e = fn(arg, line)) != FERRY_OK)
			return line_fail(e, name, no, ferry_errmsg());
	}
	return FERRY_OK;
}

/*
 * Checks the bytes b->data[from, b->len) just read: *start is where the
 * line under way began, *no its number.  FERRY_EUSAGE naming path and the
 * line as soon as one is longer than a line can be (its '\r' aside).
 */
static ferry_err
lines_check(const struct buf *b, size_t from, size_t *start, size_t *no,
    const char *path)
{
	size_t i;

	for (i = from; i < b->len; i++) {
		if (b->data[i] == '\n') {
			*start = i + 1;
			++*no;
		} else if (i - *start > FILTER_LINE_MAX) {
			return line_fail(FERRY_EUSAGE, path, *no,
			    "the line is longer than 4096 bytes");
		}
	}
	return FERRY_OK;
}

/*
 * Reads the open fd to its end into b, up to FILTER_FILE_MAX bytes; with
 * lines, refuses a line too long as soon as it is read.
 */
static ferry_err
read_all(int fd, const char *path, int lines, struct buf *b)
{
	char chunk[65536], why[256];
	size_t n, start = 0, no = 1;
	ferry_err e;

	while ((e = infile_read(fd, chunk, sizeof(chunk), &n)) == FERRY_OK &&
	       n > 0) {
		if ((e = buf_append(b, chunk, n)) == FERRY_EPARSE)
			return ferry_fail(FERRY_EUSAGE,
			    "%s: larger than %llu bytes", path,
			    (unsigned long long)FILTER_FILE_MAX);
		if (e == FERRY_OK && lines)
			e = lines_check(b, b->len - n, &start, &no, path);
		if (e != FERRY_OK)
			return e;
	}
	if (e == FERRY_OK)
		return FERRY_OK;
	snprintf(why, sizeof(why), "%s", ferry_errmsg());
	return ferry_fail(FERRY_EUSAGE, "%s: %s", path, why);
}

/* filter_file_read(), the lines checked as they come when lines is set. */
static ferry_err
file_read(const char *path, int lines, struct buf *b)
{
	char why[256];
	ferry_err e;
	int fd;

	buf_init(b, FILTER_FILE_MAX);
	if ((e = infile_open(path, &fd)) != FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(FERRY_EUSAGE, "%s: %s", path, why);
	}
	e = read_all(fd, path, lines, b);
	close(fd);
	return e;
}

ferry_err
filter_file_read(const char *path, struct buf *b)
{
	return file_read(path, 0, b);
}

/* What filter_add_file() passes along with each line. */
struct pattern_arg {
	struct filter *f;
	int include;
};

static ferry_err
take_pattern(void *arg, char *line)
{
	struct pattern_arg *a = arg;

	return pattern_add(a->f, line, a->include);
}

ferry_err
filter_add_file(struct filter *f, const char *path, int include)
{
	struct pattern_arg a = {f, include};
	struct buf b;
	ferry_err e;

	if (f == NULL || path == NULL)
		return ferry_fail(FERRY_EUSAGE, "no filter or no file");
	if ((e = file_read(path, 1, &b)) == FERRY_OK)
		e = filter_lines(b.data, b.len, path, take_pattern, &a);
	buf_free(&b);
	return e == FERRY_OK ? step_keep(f, STEP_FILE, include, path) : e;
}

/* Returns NULL when a listed path is well formed, else why not. */
static const char *
path_problem(const char *p)
{
	size_t n;

	if (*p == '\0')
		return "it names the root";
	for (;; p += n + 1) {
		n = strcspn(p, "/");
		if (n == 0)
			return "it has an empty path component";
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return "it has a '.' or '..' component";
		if (p[n] == '\0')
			return NULL;
	}
}

/* Adds one --files-from line to f->paths, pointing into its buffer. */
static ferry_err
take_path(void *arg, char *line)
{
	struct filter *f = arg;
	const char **np, *why;
	size_t cap;

	while (line[0] == '.' && line[1] == '/')
		line += 2;
	while (line[0] == '/')
		line++;
	if ((why = path_problem(line)) != NULL)
		return ferry_fail(
		    FERRY_EUSAGE, "bad path \"%s\": %s", line, why);
	if (f->npaths == f->paths_cap) {
		cap = f->paths_cap == 0 ? 64 : 2 * f->paths_cap;
		if (cap > SIZE_MAX / sizeof(*np) ||
		    (np = realloc(f->paths, cap * sizeof(*np))) == NULL)
			return ferry_fail(FERRY_ENOMEM, "no memory for a path");
		f->paths = np;
		f->paths_cap = cap;
	}
	f->paths[f->npaths++] = line;
	return FERRY_OK;
}

static int
path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

ferry_err
filter_list_add(struct filter *f, char *buf, size_t n, const char *name)
{
	char **nl;
	ferry_err e;

	if (f == NULL || name == NULL) {
		free(buf);
		return ferry_fail(FERRY_EUSAGE, "no filter or no name");
	}
	f->has_list = 1;
	if (buf == NULL)
		return FERRY_OK;
	/* the paths point into buf, kept until filter_free() */
	nl = realloc(f->lists, (f->nlists + 1) * sizeof(*nl));
	if (nl == NULL) {
		free(buf);
		return ferry_fail(FERRY_ENOMEM, "no memory for %s", name);
	}
	f->lists = nl;
	f->lists[f->nlists++] = buf;
	e = filter_lines(buf, n, name, take_path, f);
	if (f->npaths > 1)
		qsort(f->paths, f->npaths, sizeof(*f->paths), path_cmp);
	return e;
}

ferry_err
filter_files_from(struct filter *f, const char *path)
{
	struct buf b;
	ferry_err e;

	if (f == NULL || path == NULL)
		return ferry_fail(FERRY_EUSAGE, "no filter or no file");
	if ((e = file_read(path, 1, &b)) != FERRY_OK) {
		buf_free(&b);
		return e;
	}
	if ((e = filter_list_add(f, b.data, b.len, path)) != FERRY_OK)
		return e;
	return step_keep(f, STEP_LIST, 1, path);
}

size_t
filter_files(const struct filter *f)
{
	size_t i, n = 0;

	for (i = 0; f != NULL && i < f->nsteps; i++)
		n += f->steps[i].kind != STEP_PATTERN;
	return n;
}

/* Adds to f what the step s adds, its file read again. */
static ferry_err
step_run(struct filter *f, const struct step *s)
{
	if (s->kind == STEP_FILE)
		return filter_add_file(f, s->arg, s->include);
	if (s->kind == STEP_LIST)
		return filter_files_from(f, s->arg);
	return filter_add(f, s->arg, s->include);
}

ferry_err
filter_reload(const struct filter *f, struct filter **out)
{
	struct filter *n;
	ferry_err e = FERRY_OK;
	size_t i;

	*out = NULL;
	if (f == NULL)
		return FERRY_OK;
	if ((n = filter_new()) == NULL)
		return ferry_fail(FERRY_ENOMEM, "no memory for the filters");
	for (i = 0; e == FERRY_OK && i < f->nsteps; i++)
		e = step_run(n, &f->steps[i]);
	if (e != FERRY_OK) {
		filter_free(n);
		return e;
	}
	*out = n;
	return FERRY_OK;
}

ferry_err
filter_skip_paths(struct filter *f, const char *const *paths, size_t n)
{
	char **v;
	size_t i;

	if (f == NULL || (n > 0 && paths == NULL))
		return ferry_fail(FERRY_EUSAGE, "no filter or no paths");
	if (n == 0)
		return FERRY_OK;
	if ((v = realloc(f->skips, (f->nskips + n) * sizeof(*v))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "no memory for the filters");
	f->skips = v;
	for (i = 0; i < n; i++) {
		if ((v[f->nskips] = strdup(paths[i])) == NULL)
			return ferry_fail(
			    FERRY_ENOMEM, "no memory for the filters");
		f->nskips++;
	}
	qsort(f->skips, f->nskips, sizeof(*f->skips), path_cmp);
	return FERRY_OK;
}
