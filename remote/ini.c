/*
 * ini.c: the INI dialect of the AWS shared config and credentials files,
 * as the AWS CLI reads it: sections, "key = value", full-line comments,
 * indented "s3 =" blocks and continuation lines.
 *
 * Why not libinih (Debian's libinih-dev, version 55): its options are
 * fixed when the library is built, and Debian's build reads lines of at
 * most 200 bytes (INI_MAX_LINE), cutting an aws_session_token, which runs
 * to a thousand bytes and more, into pieces it then reports as errors.  It
 * also takes " ;" as the start of an inline comment, so that
 * "credential_process = sh -c 'a ; b'" would lose its end where the AWS
 * CLI keeps it, and its handler is not told the line, which every error
 * here names.  The nested blocks themselves it could carry: with
 * INI_ALLOW_MULTILINE each indented "addressing_style = path" under "s3 ="
 * comes as one more value of "s3", to be split here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "remote/config.h"

/* Real files are a few KiB; the cap keeps a wrong path from eating RAM. */
#define INI_MAX_SIZE (1024 * 1024)
/*
 * Lookups are linear, so counts are capped too: a profile has a few dozen
 * keys, and organisations with many accounts a few thousand profiles.
 */
#define INI_MAX_SECTIONS 10000
#define INI_MAX_KEYS 1000
#define NONE ((size_t)-1)

struct ini_kv {
	char *key;   /* lowercased; "parent.sub" for nested lines */
	char *value; /* may hold a secret: wiped when freed */
	uint32_t hash;
};

struct ini_section {
	char *name;
	uint32_t hash;
	struct ini_kv *kv;
	size_t n, cap;
};

struct ini {
	struct ini_section *sec;
	size_t n, cap;
};

struct ini_parser {
	struct ini *ini;
	struct ini_section *sec; /* current section, NULL before the first */
	size_t line;
	size_t open;        /* last top-level key of sec, NONE if none */
	size_t open_indent; /* its indentation */
};

/* Makes room for one more element of size el in *arr. */
static ferry_err
grow(void **arr, size_t *cap, size_t n, size_t el)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return FERRY_OK;
	ncap = *cap ? *cap * 2 : 8;
	if ((p = reallocarray(*arr, ncap, el)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	*arr = p;
	*cap = ncap;
	return FERRY_OK;
}

static int
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && is_space((*s)[0])) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && is_space((*s)[*n - 1]))
		(*n)--;
}

void
ini_free(struct ini *ini)
{
	size_t i, j;

	if (ini == NULL)
		return;
	for (i = 0; i < ini->n; i++) {
		for (j = 0; j < ini->sec[i].n; j++) {
			free(ini->sec[i].kv[j].key);
			free_secret(ini->sec[i].kv[j].value);
		}
		free(ini->sec[i].kv);
		free(ini->sec[i].name);
	}
	free(ini->sec);
	free(ini);
}

/*
 * FNV-1a, ASCII letters folded to lowercase when fold is set: the linear
 * scans compare hashes before strings.
 */
static uint32_t
hash(const char *s, int fold)
{
	uint32_t h = 2166136261u;
	unsigned char c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (fold && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		h = (h ^ c) * 16777619u;
	}
	return h;
}

static struct ini_section *
section_find(const struct ini *ini, const char *name)
{
	uint32_t h;
	size_t i;

	if (ini == NULL || name == NULL)
		return NULL;
	h = hash(name, 0);
	for (i = 0; i < ini->n; i++)
		if (ini->sec[i].hash == h &&
		    strcmp(ini->sec[i].name, name) == 0)
			return &ini->sec[i];
	return NULL;
}

/*
 * Copies a section name, runs of blanks folded to one space, so that
 * "[profile   x]" is "profile x" as the AWS CLI reads it.
 */
static char *
section_name_dup(const char *s, size_t n)
{
	char *out;
	size_t i, o = 0;

	if ((out = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t') {
			if (o > 0 && out[o - 1] == ' ')
				continue;
			out[o++] = ' ';
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* Makes the section named s[0..n) current, adding it if new. */
static ferry_err
section_open(struct ini_parser *p, const char *s, size_t n)
{
	struct ini *ini = p->ini;
	char *name;
	ferry_err e;

	if ((name = section_name_dup(s, n)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((p->sec = section_find(ini, name)) != NULL) {
		free(name);
		return FERRY_OK;
	}
	if (ini->n == INI_MAX_SECTIONS) {
		free(name);
		return ferry_fail(FERRY_EPARSE,
		    "line %zu: more than %d sections", p->line,
		    INI_MAX_SECTIONS);
	}
	e = grow((void **)&ini->sec, &ini->cap, ini->n, sizeof(*ini->sec));
	if (e != FERRY_OK) {
		free(name);
		return e;
	}
	p->sec = &ini->sec[ini->n++];
	memset(p->sec, 0, sizeof(*p->sec));
	p->sec->name = name;
	p->sec->hash = hash(name, 0);
	return FERRY_OK;
}

/* Returns "parent.k" (or "k"), lowercased, or NULL. */
static char *
key_dup(const char *parent, const char *k, size_t n)
{
	size_t plen = parent ? strlen(parent) + 1 : 0, i;
	char *key;

	if ((key = malloc(plen + n + 1)) == NULL)
		return NULL;
	if (parent) {
		memcpy(key, parent, plen - 1);
		key[plen - 1] = '.';
	}
	for (i = 0; i < n; i++)
		key[plen + i] = (k[i] >= 'A' && k[i] <= 'Z') ? k[i] + 32 : k[i];
	key[plen + n] = '\0';
	return key;
}

/*
 * Sets key (prefixed by parent, if any) to v[0..vn) in the current
 * section, replacing an earlier value: the last line wins.  Stores the
 * key's index in *idx.
 */
static ferry_err
kv_set(struct ini_parser *p, const char *parent, const char *k, size_t kn,
    const char *v, size_t vn, size_t *idx)
{
	char *key = key_dup(parent, k, kn), *val = strndup(v, vn);
	struct ini_section *sec = p->sec;
	ferry_err e = FERRY_OK;
	uint32_t h;
	size_t i;

	if (key == NULL || val == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	h = hash(key, 0);
	for (i = 0; i < sec->n; i++)
		if (sec->kv[i].hash == h && strcmp(sec->kv[i].key, key) == 0)
			break;
	if (i == sec->n && sec->n == INI_MAX_KEYS) {
		e = ferry_fail(FERRY_EPARSE,
		    "line %zu: more than %d keys in section '%s'", p->line,
		    INI_MAX_KEYS, sec->name);
		goto out;
	}
	if (i == sec->n) {
		e = grow(
		    (void **)&sec->kv, &sec->cap, sec->n, sizeof(*sec->kv));
		if (e != FERRY_OK)
			goto out;
		sec->kv[sec->n++] = (struct ini_kv){key, NULL, h};
		key = NULL;
	}
	free_secret(sec->kv[i].value);
	sec->kv[i].value = val;
	val = NULL;
	*idx = i;
out:
	free(key);
	free_secret(val);
	return e;
}

/* Splits "key = value" at the first '='; 0 when there is no usable key. */
static int
split_pair(const char *s, size_t n, const char **k, size_t *kn, const char **v,
    size_t *vn)
{
	const char *eq = memchr(s, '=', n);

	if (eq == NULL)
		return 0;
	*k = s;
	*kn = (size_t)(eq - s);
	*v = eq + 1;
	*vn = n - *kn - 1;
	trim(k, kn);
	trim(v, vn);
	return *kn > 0;
}

/* "[name]", optionally followed by a comment. */
static ferry_err
parse_header(struct ini_parser *p, const char *s, size_t n)
{
	const char *close = memchr(s, ']', n), *name, *rest;
	size_t nn, rn;

	if (close == NULL)
		return ferry_fail(FERRY_EPARSE,
		    "line %zu: section header without ']'", p->line);
	rest = close + 1;
	rn = n - (size_t)(rest - s);
	trim(&rest, &rn);
	if (rn > 0 && rest[0] != '#' && rest[0] != ';')
		return ferry_fail(FERRY_EPARSE,
		    "line %zu: unexpected text after the section header",
		    p->line);
	name = s + 1;
	nn = (size_t)(close - name);
	trim(&name, &nn);
	if (nn == 0)
		return ferry_fail(
		    FERRY_EPARSE, "line %zu: empty section name", p->line);
	return section_open(p, name, nn);
}

/* A top-level "key = value" line; it may open a nested block. */
static ferry_err
parse_pair(struct ini_parser *p, const char *s, size_t n, size_t indent)
{
	const char *k, *v;
	size_t kn, vn;
	ferry_err e;

	if (p->sec == NULL)
		return ferry_fail(FERRY_EPARSE,
		    "line %zu: 'key = value' before any [section]", p->line);
	/* The detail never quotes the line: it may hold a secret. */
	if (!split_pair(s, n, &k, &kn, &v, &vn))
		return ferry_fail(FERRY_EPARSE,
		    "line %zu: expected '[section]' or 'key = value'", p->line);
	if ((e = kv_set(p, NULL, k, kn, v, vn, &p->open)) != FERRY_OK)
		return e;
	p->open_indent = indent;
	return FERRY_OK;
}

/* Appends "\n" and s[0..n) to the value of kv (a continuation line). */
static ferry_err
append_line(struct ini_kv *kv, const char *s, size_t n)
{
	size_t old = strlen(kv->value);
	char *val;

	if ((val = malloc(old + n + 2)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	memcpy(val, kv->value, old);
	val[old] = '\n';
	memcpy(val + old + 1, s, n);
	val[old + n + 1] = '\0';
	free_secret(kv->value);
	kv->value = val;
	return FERRY_OK;
}

/*
 * A line indented under the open key: "sub = value" in the block of a key
 * with an empty value ("s3 ="), otherwise a continuation of the value.
 */
static ferry_err
parse_nested(struct ini_parser *p, const char *s, size_t n)
{
	struct ini_kv *parent = &p->sec->kv[p->open];
	const char *k, *v;
	size_t kn, vn, idx;

	if (parent->value[0] != '\0')
		return append_line(parent, s, n);
	if (!split_pair(s, n, &k, &kn, &v, &vn))
		return ferry_fail(FERRY_EPARSE,
		    "line %zu: expected 'key = value' in the '%s' block",
		    p->line, parent->key);
	/* parent->key survives the kv array moving: only the array moves. */
	return kv_set(p, parent->key, k, kn, v, vn, &idx);
}

static ferry_err
parse_line(struct ini_parser *p, const char *s, size_t n)
{
	size_t indent = 0;

	while (indent < n && (s[indent] == ' ' || s[indent] == '\t'))
		indent++;
	s += indent;
	n -= indent;
	trim(&s, &n);
	if (n == 0 || s[0] == '#' || s[0] == ';')
		return FERRY_OK;
	if (indent > 0 && p->open != NONE && indent > p->open_indent)
		return parse_nested(p, s, n);
	p->open = NONE;
	if (s[0] == '[')
		return parse_header(p, s, n);
	return parse_pair(p, s, n, indent);
}

ferry_err
ini_parse(const char *text, size_t len, struct ini **out)
{
	struct ini_parser p = {.open = NONE};
	size_t off = 0, n;
	const char *s, *nl;
	ferry_err e = FERRY_OK;

	*out = NULL;
	if ((p.ini = calloc(1, sizeof(*p.ini))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	/* Editors on Windows may start the file with a UTF-8 BOM. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		off = 3;
	while (off < len) {
		s = text + off;
		p.line++;
		nl = memchr(s, '\n', len - off);
		n = nl ? (size_t)(nl - s) : len - off;
		off += n + 1;
		if (memchr(s, '\0', n) != NULL) {
			e = ferry_fail(
			    FERRY_EPARSE, "line %zu: NUL byte", p.line);
			goto out;
		}
		if ((e = parse_line(&p, s, n)) != FERRY_OK)
			goto out;
	}
	*out = p.ini;
	p.ini = NULL;
out:
	ini_free(p.ini);
	return e;
}

/* Reads fd to the end into b. */
static ferry_err
read_all(int fd, const char *path, struct buf *b)
{
	char chunk[4096];
	ssize_t n;
	ferry_err e = FERRY_OK;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = ferry_fail(FERRY_ESYS, "cannot read %s: %s", path,
			    strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if ((e = buf_append(b, chunk, (size_t)n)) != FERRY_OK) {
			if (e == FERRY_EPARSE)
				e = ferry_fail(e, "%s is larger than %d bytes",
				    path, INI_MAX_SIZE);
			break;
		}
	}
	explicit_bzero(chunk, sizeof(chunk));
	return e;
}

ferry_err
ini_load(const char *path, struct ini **out)
{
	char why[512];
	struct buf b;
	ferry_err e;
	int fd;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return ferry_fail(
			    FERRY_ENOTFOUND, "%s: no such file", path);
		return ferry_fail(
		    FERRY_ESYS, "cannot open %s: %s", path, strerror(errno));
	}
	buf_init(&b, INI_MAX_SIZE);
	if ((e = read_all(fd, path, &b)) != FERRY_OK)
		goto out;
	e = ini_parse(b.data ? b.data : "", b.len, out);
	if (e == FERRY_EPARSE) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		e = ferry_fail(e, "%s: %s", path, why);
	}
out:
	close(fd);
	buf_free_secret(&b);
	return e;
}

const char *
ini_get(const struct ini *ini, const char *section, const char *key)
{
	const struct ini_section *s = section_find(ini, section);
	uint32_t h;
	size_t i;

	if (s == NULL || key == NULL)
		return NULL;
	/* Stored keys are lowercase, so a folded hash matches any case. */
	h = hash(key, 1);
	for (i = 0; i < s->n; i++)
		if (s->kv[i].hash == h && strcasecmp(s->kv[i].key, key) == 0)
			return s->kv[i].value;
	return NULL;
}

int
ini_has_section(const struct ini *ini, const char *section)
{
	return section_find(ini, section) != NULL;
}
