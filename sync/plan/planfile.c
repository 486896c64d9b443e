/*
 * planfile.c: the plan file of "ferry plan" and "ferry apply": the lines
 * written around a dry run's plan events, and the parser that reads them
 * back.  The file comes from outside: every line is checked whole before
 * any action is run.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "remote/remote.h"
#include "sync/plan/planfile.h"
#include "sync/plan/shard.h"

#define MAX_EXACT 9007199254740992.0 /* 2^53: doubles hold integers exactly */

struct planfile {
	FILE *f;
	char *path;
	char *buf;
	size_t cap;
	unsigned long lineno;
	struct planfile_header hdr;
	struct planfile_line line;
};

/* A member that is a non-negative integer a double holds exactly (0 if not). */
static ferry_err
get_uint(const cJSON *obj, const char *name, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	*out = 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
	    v->valuedouble > MAX_EXACT ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble)
		return ferry_fail(
		    FERRY_EPARSE, "\"%s\" is not a non-negative integer", name);
	*out = (uint64_t)v->valuedouble;
	return FERRY_OK;
}

/* A string member of at most max - 1 bytes, copied into out. */
static ferry_err
get_str(const cJSON *obj, const char *name, char *out, size_t max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	size_t n;

	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return ferry_fail(FERRY_EPARSE, "\"%s\" is not a string", name);
	n = strlen(v->valuestring);
	if (n == 0 || n >= max)
		return ferry_fail(FERRY_EPARSE,
		    "\"%s\" is empty or longer than %zu bytes", name, max - 1);
	memcpy(out, v->valuestring, n + 1);
	return FERRY_OK;
}

/*
 * get_str() for a value that goes into a request header (an ETag for
 * If-Match, a version id): a control byte there would end the header
 * and forge another, so it is refused here, where the plan is read.
 */
static ferry_err
get_header_str(const cJSON *obj, const char *name, char *out, size_t max)
{
	ferry_err e;

	if ((e = get_str(obj, name, out, max)) != FERRY_OK)
		return e;
	if (ctl_find(out, strlen(out)) >= 0) {
		out[0] = '\0';
		return ferry_fail(FERRY_EPARSE,
		    "\"%s\" holds a control byte (a line break or other)",
		    name);
	}
	return FERRY_OK;
}

/* A decimal integer written as a string (nanoseconds do not fit doubles). */
static ferry_err
parse_ns(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (s[0] != '-' && (s[0] < '0' || s[0] > '9'))
		return ferry_fail(FERRY_EPARSE, "\"mtime_ns\" is no integer");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s)
		return ferry_fail(FERRY_EPARSE, "\"mtime_ns\" is no integer");
	*out = (int64_t)v;
	return FERRY_OK;
}

static ferry_err
parse_hex16(const char *s, uint8_t out[16])
{
	/* as the plan writes them: lowercase */
	if (strlen(s) != 32 || strspn(s, "0123456789abcdef") != 32 ||
	    hex_decode(s, out, 16) != 0)
		return ferry_fail(
		    FERRY_EPARSE, "\"xxh128\" is not 32 hex digits");
	return FERRY_OK;
}

/* "absent", or {"size", "etag"} (an object), or {"size", "mtime_ns"[,
 * "xxh128"]} (a local file). */
static ferry_err
parse_side(const cJSON *obj, const char *name, struct planfile_side *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name), *m, *h;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (cJSON_IsString(v) && strcmp(v->valuestring, "absent") == 0)
		return FERRY_OK;
	if (!cJSON_IsObject(v))
		return ferry_fail(FERRY_EPARSE,
		    "\"%s\" is neither \"absent\" nor an object", name);
	out->present = 1;
	if ((e = get_uint(v, "size", &out->size)) != FERRY_OK)
		return e;
	m = cJSON_GetObjectItemCaseSensitive(v, "mtime_ns");
	h = cJSON_GetObjectItemCaseSensitive(v, "xxh128");
	if (cJSON_GetObjectItemCaseSensitive(v, "etag") != NULL) {
		if (m != NULL || h != NULL)
			return ferry_fail(FERRY_EPARSE,
			    "\"%s\" has both an ETag and a file's times", name);
		if (cJSON_GetObjectItemCaseSensitive(v, "version_id") != NULL &&
		    (e = get_header_str(v, "version_id", out->version_id,
		         sizeof(out->version_id))) != FERRY_OK)
			return e;
		return get_header_str(v, "etag", out->etag, sizeof(out->etag));
	}
	if (!cJSON_IsString(m))
		return ferry_fail(FERRY_EPARSE,
		    "\"%s\" has neither \"etag\" nor \"mtime_ns\"", name);
	out->local = 1;
	if ((e = parse_ns(m->valuestring, &out->mtime_ns)) != FERRY_OK)
		return e;
	if (h == NULL)
		return FERRY_OK;
	if (!cJSON_IsString(h))
		return ferry_fail(FERRY_EPARSE, "\"xxh128\" is not a string");
	out->has_hash = 1;
	return parse_hex16(h->valuestring, out->hash);
}

/* The optional "part": "I/N", I < N, of a part of a split plan. */
static ferry_err
parse_part(const cJSON *obj, struct planfile_header *h)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(obj, "part");
	unsigned i, n;

	if (d == NULL)
		return FERRY_OK;
	if (!cJSON_IsString(d) || !shard_spec_parse(d->valuestring, &i, &n))
		return ferry_fail(FERRY_EPARSE, "\"part\" is not \"I/N\"");
	snprintf(h->part, sizeof(h->part), "%u/%u", i, n);
	return FERRY_OK;
}

static ferry_err
parse_header(const cJSON *obj, struct planfile_header *h)
{
	char format[32];
	uint64_t v;
	const cJSON *d;
	ferry_err e;

	if ((e = get_str(obj, "format", format, sizeof(format))) != FERRY_OK)
		return e;
	if (strcmp(format, PLANFILE_FORMAT) != 0)
		return ferry_fail(
		    FERRY_EUSAGE, "not a ferry plan (format %s)", format);
	if ((e = get_uint(obj, "version", &v)) != FERRY_OK)
		return e;
	if (v != PLANFILE_VERSION && v != PLANFILE_VERSION_AT)
		return ferry_fail(FERRY_EUSAGE,
		    "plan version %llu: this ferry reads versions %d and %d",
		    (unsigned long long)v, PLANFILE_VERSION,
		    PLANFILE_VERSION_AT);
	h->version = (int)v;
	d = cJSON_GetObjectItemCaseSensitive(obj, "delete");
	if (!cJSON_IsBool(d))
		return ferry_fail(FERRY_EPARSE, "\"delete\" is not a boolean");
	h->delete = cJSON_IsTrue(d);
	/* absent from plans written before -L */
	d = cJSON_GetObjectItemCaseSensitive(obj, "follow_symlinks");
	if (d != NULL && !cJSON_IsBool(d))
		return ferry_fail(
		    FERRY_EPARSE, "\"follow_symlinks\" is not a boolean");
	h->follow_symlinks = cJSON_IsTrue(d);
	if ((e = parse_part(obj, h)) != FERRY_OK)
		return e;
	if ((e = get_str(obj, "src", h->src, sizeof(h->src))) != FERRY_OK ||
	    (e = get_str(obj, "dst", h->dst, sizeof(h->dst))) != FERRY_OK ||
	    (e = get_uint(obj, "part_size", &h->part_size)) != FERRY_OK ||
	    (e = get_uint(obj, "multipart_threshold",
	         &h->multipart_threshold)) != FERRY_OK)
		return e;
	h->copy_threshold = h->multipart_threshold;
	if (cJSON_GetObjectItemCaseSensitive(obj, "copy_threshold") != NULL &&
	    (e = get_uint(obj, "copy_threshold", &h->copy_threshold)) !=
	        FERRY_OK)
		return e;
	/* part_size 0: chosen for each object by its size */
	if ((h->part_size != 0 && (h->part_size < REMOTE_MIN_PART_SIZE ||
	                              h->part_size > REMOTE_MAX_PART_SIZE)) ||
	    h->multipart_threshold == 0 || h->copy_threshold == 0)
		return ferry_fail(FERRY_EPARSE,
		    "\"part_size\", "
		    "\"multipart_threshold\" or "
		    "\"copy_threshold\" out of range");
	return FERRY_OK;
}

static const char *const action_names[] = {
    "upload", "download", "copy", "delete"};

/* The sides each action needs: what it reads and what it replaces. */
static ferry_err
check_sides(const struct planfile_line *l)
{
	const struct planfile_side *s = &l->src, *d = &l->dst;

	switch (l->action) {
	case PLANFILE_UPLOAD:
		if (!s->present || !s->local || (d->present && d->local))
			break;
		return FERRY_OK;
	case PLANFILE_DOWNLOAD:
		if (!s->present || s->local || (d->present && !d->local))
			break;
		return FERRY_OK;
	case PLANFILE_COPY:
		if (!s->present || s->local || (d->present && d->local))
			break;
		return FERRY_OK;
	case PLANFILE_DELETE:
		if (s->present || !d->present)
			break;
		return FERRY_OK;
	}
	return ferry_fail(FERRY_EPARSE,
	    "the source or destination does not fit a %s",
	    action_names[l->action]);
}

static ferry_err
parse_action(const cJSON *obj, struct planfile_line *l)
{
	char action[16];
	size_t i;
	ferry_err e;

	if ((e = get_str(obj, "action", action, sizeof(action))) != FERRY_OK)
		return e;
	for (i = 0; i < 4 && strcmp(action, action_names[i]) != 0; i++)
		;
	if (i == 4)
		return ferry_fail(
		    FERRY_EPARSE, "unknown action \"%s\"", action);
	l->action = (enum planfile_action)i;
	if ((e = get_str(obj, "key", l->key, sizeof(l->key))) != FERRY_OK ||
	    (e = get_uint(obj, "size", &l->size)) != FERRY_OK ||
	    (e = parse_side(obj, "source", &l->src)) != FERRY_OK ||
	    (e = parse_side(obj, "destination", &l->dst)) != FERRY_OK)
		return e;
	l->keylen = strlen(l->key);
	return check_sides(l);
}

static ferry_err
parse_summary(const cJSON *obj, struct planfile_line *l)
{
	static const char *const counts[] = {
	    "uploaded", "downloaded", "copied", "deleted"};
	uint64_t v, sum = 0;
	const cJSON *dry = cJSON_GetObjectItemCaseSensitive(obj, "dry_run");
	size_t i;
	ferry_err e;

	if (!cJSON_IsTrue(dry))
		return ferry_fail(FERRY_EPARSE, "the summary is not a plan's");
	for (i = 0; i < 4; i++) {
		if ((e = get_uint(obj, counts[i], &v)) != FERRY_OK)
			return e;
		sum += v;
	}
	if ((e = get_uint(obj, "exit_status", &v)) != FERRY_OK)
		return e;
	l->actions = sum;
	l->exit_status = v > 255 ? 255 : (int)v;
	return FERRY_OK;
}

ferry_err
planfile_parse_line(const char *s, size_t len, struct planfile_line *out)
{
	cJSON *obj;
	const cJSON *type;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (len >= PLANFILE_LINE_MAX)
		return ferry_fail(FERRY_EPARSE, "line too long");
	if (memchr(s, '\0', len) != NULL)
		return ferry_fail(FERRY_EPARSE, "a NUL byte");
	obj = cJSON_ParseWithLength(s, len);
	if (!cJSON_IsObject(obj)) {
		cJSON_Delete(obj);
		return ferry_fail(FERRY_EPARSE, "not a JSON object");
	}
	type = cJSON_GetObjectItemCaseSensitive(obj, "type");
	if (!cJSON_IsString(type)) {
		e = ferry_fail(FERRY_EPARSE, "no \"type\"");
	} else if (strcmp(type->valuestring, "header") == 0) {
		out->kind = PLANFILE_HEADER;
		e = parse_header(obj, &out->hdr);
	} else if (strcmp(type->valuestring, "plan") == 0) {
		out->kind = PLANFILE_ACTION;
		e = parse_action(obj, out);
	} else if (strcmp(type->valuestring, "summary") == 0) {
		out->kind = PLANFILE_SUMMARY;
		e = parse_summary(obj, out);
	} else if (strcmp(type->valuestring, "left_out") == 0) {
		out->kind = PLANFILE_NOTE;
		e = FERRY_OK;
	} else {
		e = ferry_fail(FERRY_EPARSE, "unknown \"type\" \"%.40s\"",
		    type->valuestring);
	}
	cJSON_Delete(obj);
	return e;
}

/* Reads the next line into pf->buf: its length, or -1 at the end. */
static ferry_err
read_line(struct planfile *pf, size_t *len, int *eof)
{
	ssize_t n;

	errno = 0;
	n = getline(&pf->buf, &pf->cap, pf->f);
	if (n < 0) {
		*eof = 1;
		if (ferror(pf->f))
			return ferry_fail(FERRY_EUSAGE, "%s: %s", pf->path,
			    strerror(errno ? errno : EIO));
		return FERRY_OK;
	}
	*eof = 0;
	pf->lineno++;
	if (n > 0 && pf->buf[n - 1] == '\n')
		n--;
	*len = (size_t)n;
	return FERRY_OK;
}

/* Records the failure again with the file and line in front. */
static ferry_err
at_line(const struct planfile *pf, ferry_err e)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", ferry_errmsg());
	return ferry_fail(e, "%s, line %lu: %s", pf->path, pf->lineno, msg);
}

/*
 * Parses the next line but for notes, with the file and line number in
 * any failure.
 */
static ferry_err
next_line(struct planfile *pf, int *eof)
{
	size_t len;
	ferry_err e;

	do {
		len = 0;
		if ((e = read_line(pf, &len, eof)) != FERRY_OK || *eof)
			return e;
		e = planfile_parse_line(pf->buf, len, &pf->line);
		if (e != FERRY_OK)
			return at_line(pf, e);
	} while (pf->line.kind == PLANFILE_NOTE);
	return FERRY_OK;
}

/* Which prefix an action's key starts with: the source's or the
 * destination's; none for a pull's deletes (paths in the folder). */
static ferry_err
check_action(const struct planfile *pf, const struct remote_loc *src,
    const struct remote_loc *dst)
{
	const struct planfile_line *l = &pf->line;
	int push = src->bucket == NULL, pull = dst->bucket == NULL;
	const char *prefix = NULL;

	if ((push && l->action != PLANFILE_UPLOAD &&
	        l->action != PLANFILE_DELETE) ||
	    (pull && l->action != PLANFILE_DOWNLOAD &&
	        l->action != PLANFILE_DELETE) ||
	    (!push && !pull && l->action != PLANFILE_COPY &&
	        l->action != PLANFILE_DELETE))
		return ferry_fail(FERRY_EPARSE, "a %s in a plan from %s to %s",
		    action_names[l->action], pf->hdr.src, pf->hdr.dst);
	/* an older ferry would read the current object: version 2 only */
	if ((l->src.version_id[0] || l->dst.version_id[0]) &&
	    pf->hdr.version < PLANFILE_VERSION_AT)
		return ferry_fail(FERRY_EPARSE,
		    "a \"version_id\" in a plan of version %d",
		    pf->hdr.version);
	if (l->dst.version_id[0])
		return ferry_fail(FERRY_EPARSE,
		    "a \"version_id\" names a source's version only");
	if (pull && l->action == PLANFILE_DELETE && !l->dst.local)
		return ferry_fail(FERRY_EPARSE, "a pull deletes local files");
	if (!pull && l->action == PLANFILE_DELETE && l->dst.local)
		return ferry_fail(FERRY_EPARSE, "a delete of a local file");
	if (l->action == PLANFILE_DOWNLOAD)
		prefix = src->prefix;
	else if (!pull)
		prefix = dst->prefix;
	if (prefix && (l->keylen <= strlen(prefix) ||
	                  strncmp(l->key, prefix, strlen(prefix)) != 0))
		return ferry_fail(FERRY_EPARSE,
		    "the key is not under the prefix \"%s\"", prefix);
	return FERRY_OK;
}

/* The checks of the whole file, from the header to the summary. */
static ferry_err
check_file(struct planfile *pf, const struct remote_loc *src,
    const struct remote_loc *dst)
{
	uint64_t n = 0;
	int eof = 0;
	ferry_err e;

	for (;;) {
		if ((e = next_line(pf, &eof)) != FERRY_OK)
			return e;
		if (eof)
			return ferry_fail(FERRY_EPARSE,
			    "%s: truncated: no summary line after line %lu",
			    pf->path, pf->lineno);
		if (pf->line.kind == PLANFILE_SUMMARY)
			break;
		if (pf->line.kind != PLANFILE_ACTION)
			return ferry_fail(FERRY_EPARSE,
			    "%s, line %lu: a second header", pf->path,
			    pf->lineno);
		if ((e = check_action(pf, src, dst)) != FERRY_OK)
			return at_line(pf, e);
		n++;
	}
	if (pf->line.actions != n)
		return ferry_fail(FERRY_EPARSE,
		    "%s: the summary counts %llu actions, the file holds %llu",
		    pf->path, (unsigned long long)pf->line.actions,
		    (unsigned long long)n);
	if (pf->line.exit_status > 1)
		return ferry_fail(FERRY_EUSAGE,
		    "%s: the plan did not finish (exit status %d)", pf->path,
		    pf->line.exit_status);
	if ((e = read_line(pf, &(size_t){0}, &eof)) != FERRY_OK)
		return e;
	if (!eof)
		return ferry_fail(FERRY_EPARSE,
		    "%s, line %lu: a line after the summary", pf->path,
		    pf->lineno);
	return FERRY_OK;
}

/* Reads the header, then checks the rest against it. */
static ferry_err
check_plan(struct planfile *pf)
{
	struct remote_loc src = {0}, dst = {0};
	int eof = 0;
	ferry_err e;

	if ((e = next_line(pf, &eof)) != FERRY_OK)
		return e;
	if (eof || pf->line.kind != PLANFILE_HEADER)
		return ferry_fail(FERRY_EPARSE,
		    "%s: the first line is not a plan header", pf->path);
	pf->hdr = pf->line.hdr;
	if (remote_is_url(pf->hdr.src) &&
	    (e = remote_loc_parse(pf->hdr.src, &src)) != FERRY_OK)
		goto out;
	if (remote_is_url(pf->hdr.dst) &&
	    (e = remote_loc_parse(pf->hdr.dst, &dst)) != FERRY_OK)
		goto out;
	if (src.bucket == NULL && dst.bucket == NULL) {
		e = ferry_fail(
		    FERRY_EPARSE, "%s: neither side is a bucket", pf->path);
		goto out;
	}
	e = check_file(pf, &src, &dst);
out:
	remote_loc_clear(&src);
	remote_loc_clear(&dst);
	return e;
}

/*
 * A plan is read twice, and a pipe cannot be: standard input is copied
 * whole into an unnamed temporary file (in TMPDIR, else /tmp), which
 * *out is opened on, at its start.
 */
static ferry_err
stdin_copy(FILE **out)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX], buf[65536];
	FILE *f = NULL;
	size_t n;
	int fd;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/ferry-plan-XXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return ferry_fail(FERRY_ESYS,
		    "cannot make a temporary file for the plan in %s: %s",
		    dir && *dir ? dir : "/tmp", strerror(errno));
	unlink(path);
	if ((f = fdopen(fd, "w+")) == NULL) {
		close(fd);
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	}
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (ferror(stdin) || ferror(f) || fflush(f) != 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return ferry_fail(FERRY_ESYS,
		    "cannot copy the plan from standard input: %s",
		    strerror(errno));
	}
	*out = f;
	return FERRY_OK;
}

/* The plan file at path, or with "-" standard input, into pf->f. */
static ferry_err
open_file(struct planfile *pf, const char *path)
{
	int in = strcmp(path, "-") == 0;

	if ((pf->path = strdup(in ? "standard input" : path)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (in)
		return stdin_copy(&pf->f);
	if ((pf->f = fopen(path, "re")) == NULL)
		return ferry_fail(
		    FERRY_EUSAGE, "%s: %s", path, strerror(errno));
	return FERRY_OK;
}

ferry_err
planfile_open(const char *path, struct planfile **out)
{
	struct planfile *pf;
	ferry_err e;

	*out = NULL;
	if ((pf = calloc(1, sizeof(*pf))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = open_file(pf, path)) != FERRY_OK) {
		planfile_close(pf);
		return e;
	}
	if ((e = check_plan(pf)) == FERRY_OK && fseek(pf->f, 0, SEEK_SET) != 0)
		e = ferry_fail(FERRY_EUSAGE, "%s: cannot read it again: %s",
		    pf->path, strerror(errno));
	if (e != FERRY_OK) {
		planfile_close(pf);
		return e == FERRY_EPARSE ? FERRY_EUSAGE : e;
	}
	pf->lineno = 0;
	*out = pf;
	return FERRY_OK;
}

const struct planfile_header *
planfile_header(const struct planfile *pf)
{
	return &pf->hdr;
}

ferry_err
planfile_next(struct planfile *pf, const struct planfile_line **line)
{
	int eof = 0;
	ferry_err e;

	*line = NULL;
	do {
		if ((e = next_line(pf, &eof)) != FERRY_OK)
			return e;
		if (eof)
			return FERRY_ENOTFOUND;
	} while (pf->line.kind == PLANFILE_HEADER);
	if (pf->line.kind == PLANFILE_SUMMARY)
		return FERRY_ENOTFOUND;
	*line = &pf->line;
	return FERRY_OK;
}

void
planfile_close(struct planfile *pf)
{
	if (pf == NULL)
		return;
	if (pf->f)
		fclose(pf->f);
	free(pf->buf);
	free(pf->path);
	free(pf);
}

/* A local path made absolute, so that the plan applies from anywhere. */
static void
add_side_name(cJSON *obj, const char *name, const char *where)
{
	char cwd[PATH_MAX], *abs = NULL;

	if (!remote_is_url(where) && where[0] != '/' &&
	    getcwd(cwd, sizeof(cwd)) != NULL &&
	    asprintf(&abs, "%s/%s", cwd, where) < 0)
		abs = NULL;
	cJSON_AddStringToObject(obj, name, abs ? abs : where);
	free(abs);
}

cJSON *
planfile_header_json(const char *src, const char *dst, int delete,
    int follow_symlinks, uint64_t part_size, uint64_t multipart_threshold,
    uint64_t copy_threshold, int at)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj == NULL)
		return NULL;
	cJSON_AddStringToObject(obj, "type", "header");
	cJSON_AddStringToObject(obj, "format", PLANFILE_FORMAT);
	cJSON_AddNumberToObject(
	    obj, "version", at ? PLANFILE_VERSION_AT : PLANFILE_VERSION);
	add_side_name(obj, "src", src);
	add_side_name(obj, "dst", dst);
	cJSON_AddBoolToObject(obj, "delete", delete);
	cJSON_AddBoolToObject(obj, "follow_symlinks", follow_symlinks);
	cJSON_AddNumberToObject(obj, "part_size", (double)part_size);
	cJSON_AddNumberToObject(
	    obj, "multipart_threshold", (double)multipart_threshold);
	cJSON_AddNumberToObject(obj, "copy_threshold", (double)copy_threshold);
	return obj;
}

static void
add_side(cJSON *obj, const char *name, const struct plan_entry *s)
{
	char num[32], hex[33];
	cJSON *side;

	if (s == NULL || !s->present ||
	    (side = cJSON_AddObjectToObject(obj, name)) == NULL) {
		cJSON_AddStringToObject(obj, name, "absent");
		return;
	}
	cJSON_AddNumberToObject(side, "size", (double)s->size);
	if (s->etag) {
		cJSON_AddStringToObject(side, "etag", s->etag);
		if (s->version_id)
			cJSON_AddStringToObject(
			    side, "version_id", s->version_id);
		return;
	}
	snprintf(num, sizeof(num), "%lld", (long long)s->mtime_ns);
	cJSON_AddStringToObject(side, "mtime_ns", num);
	if (s->hash) {
		hex_encode(s->hash, 16, hex);
		cJSON_AddStringToObject(side, "xxh128", hex);
	}
}

void
planfile_add_sides(
    cJSON *obj, const struct plan_entry *src, const struct plan_entry *dst)
{
	add_side(obj, "source", src);
	add_side(obj, "destination", dst);
}
