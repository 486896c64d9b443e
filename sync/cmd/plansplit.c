/*
 * plansplit.c: "ferry plan --split N": the plan made as usual, then cut
 * into N plan files that N workers apply at once.  Each part holds the
 * header, a share of the actions in the plan's order, and a summary that
 * counts its own actions, so that ferry apply takes it as a plan of its
 * own.  The actions are dealt out as they come, each to the part with
 * the least work so far: memory is the N parts, not the plan.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sync/cmd/cmd.h"
#include "sync/run/run.h"
#include "sync/plan/plan.h"

/*
 * What an action costs beside its bytes, in bytes: a request's round
 * trips, about what a connection moves in the time they take.
 */
#define SPLIT_ACTION_BYTES (256u * 1024)

/* One part being written. */
struct part {
	FILE *f;
	char path[PATH_MAX];
	uint64_t load;
	uint64_t counts[4]; /* by enum planfile_action */
	uint64_t bytes;     /* of its uploads, downloads and copies */
};

uint64_t
planfile_split_weight(enum planfile_action a, uint64_t size)
{
	if (a == PLANFILE_DELETE)
		return SPLIT_ACTION_BYTES;
	if (size > UINT64_MAX - SPLIT_ACTION_BYTES)
		return UINT64_MAX;
	return size + SPLIT_ACTION_BYTES;
}

size_t
planfile_split_pick(const uint64_t *load, size_t n)
{
	size_t i, best = 0;

	for (i = 1; i < n; i++)
		if (load[i] < load[best])
			best = i;
	return best;
}

/* Closes the parts; with failed, removes their files. */
static void
parts_close(struct part *p, unsigned n, int failed)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (p[i].f != NULL)
			fclose(p[i].f);
		p[i].f = NULL;
		if (failed && p[i].path[0] != '\0')
			unlink(p[i].path);
	}
}

/* Creates the files prefix0 ... prefix(n-1). */
static ferry_err
parts_open(struct part *p, unsigned n, const char *prefix)
{
	unsigned i;
	int len;

	for (i = 0; i < n; i++) {
		len = snprintf(p[i].path, sizeof(p[i].path), "%s%u", prefix, i);
		if (len < 0 || (size_t)len >= sizeof(p[i].path)) {
			p[i].path[0] = '\0';
			return ferry_fail(
			    FERRY_EUSAGE, "--split-prefix: a name too long");
		}
		if ((p[i].f = fopen(p[i].path, "w")) == NULL)
			return ferry_fail(FERRY_ESYS, "cannot create %s: %s",
			    p[i].path, strerror(errno));
	}
	return FERRY_OK;
}

static ferry_err
part_write(struct part *p, const char *s, size_t len)
{
	if (fwrite(s, 1, len, p->f) != len || putc('\n', p->f) == EOF)
		return ferry_fail(FERRY_ESYS, "cannot write %s: %s", p->path,
		    strerror(errno));
	return FERRY_OK;
}

/* Sets the number name of obj, if it has one, to v; 0 when out of memory. */
static int
set_count(cJSON *obj, const char *name, uint64_t v)
{
	cJSON *n;

	if (cJSON_GetObjectItemCaseSensitive(obj, name) == NULL)
		return 1;
	if ((n = cJSON_CreateNumber((double)v)) == NULL)
		return 0;
	if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, name, n)) {
		cJSON_Delete(n);
		return 0;
	}
	return 1;
}

/*
 * The summary of part i: its own actions and bytes; what no action
 * stands for (skipped, failed, left out, the requests made) stays with
 * part 0, the exit status with every part.
 */
static int
summary_set(cJSON *obj, const struct part *p, unsigned i, unsigned n)
{
	static const char *const counts[] = {
	    "uploaded", "downloaded", "copied", "deleted"};
	static const char *const others[] = {
	    "skipped", "failed", "checked", "left_out", "retries"};
	static const char *const requests[] = {
	    "list", "get", "head", "put", "post", "delete"};
	cJSON *req = cJSON_GetObjectItemCaseSensitive(obj, "requests");
	size_t k;
	int ok = set_count(obj, "bytes_sent", p->bytes);

	(void)n;
	for (k = 0; k < 4; k++)
		ok = ok && set_count(obj, counts[k], p->counts[k]);
	for (k = 0; i > 0 && k < sizeof(others) / sizeof(*others); k++)
		ok = ok && set_count(obj, others[k], 0);
	for (k = 0; i > 0 && req != NULL && k < 6; k++)
		ok = ok && set_count(req, requests[k], 0);
	return ok;
}

/* The header of part i of n: the plan's, with "part": "I/N". */
static int
header_set(cJSON *obj, const struct part *p, unsigned i, unsigned n)
{
	char name[24];

	(void)p;
	snprintf(name, sizeof(name), "%u/%u", i, n);
	cJSON_DeleteItemFromObjectCaseSensitive(obj, "part");
	return cJSON_AddStringToObject(obj, "part", name) != NULL;
}

/*
 * Writes to each part the line (len bytes at s) as set(obj, part, i, n)
 * makes it for that part; set returns 0 when out of memory.
 */
static ferry_err
parts_line(struct part *p, unsigned n, const char *s, size_t len,
    int (*set)(cJSON *, const struct part *, unsigned, unsigned))
{
	cJSON *obj = cJSON_ParseWithLength(s, len);
	ferry_err e = FERRY_OK;
	unsigned i;
	char *out;

	if (obj == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	for (i = 0; i < n && e == FERRY_OK; i++) {
		if (!set(obj, &p[i], i, n) ||
		    (out = cJSON_PrintUnformatted(obj)) == NULL) {
			e = ferry_fail(FERRY_ENOMEM, "out of memory");
			break;
		}
		e = part_write(&p[i], out, strlen(out));
		free(out);
	}
	cJSON_Delete(obj);
	return e;
}

/* Hands the action line l (len bytes at s) to the part with least load. */
static ferry_err
deal(struct part *p, unsigned n, uint64_t *load, const struct planfile_line *l,
    const char *s, size_t len)
{
	uint64_t w = planfile_split_weight(l->action, l->size);
	size_t i = planfile_split_pick(load, n);

	load[i] = load[i] > UINT64_MAX - w ? UINT64_MAX : load[i] + w;
	p[i].counts[l->action]++;
	if (l->action != PLANFILE_DELETE)
		p[i].bytes += l->size;
	return part_write(&p[i], s, len);
}

/* Reads the checked plan in and deals its lines out to the parts. */
static ferry_err
split_lines(FILE *in, struct part *p, unsigned n, uint64_t *load)
{
	struct planfile_line *l = malloc(sizeof(*l));
	char *s = NULL;
	size_t cap = 0;
	ssize_t len;
	ferry_err e = FERRY_OK;

	if (l == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	while (e == FERRY_OK && (len = getline(&s, &cap, in)) > 0) {
		if (s[len - 1] == '\n')
			len--;
		if ((e = planfile_parse_line(s, (size_t)len, l)) != FERRY_OK)
			break;
		if (l->kind == PLANFILE_HEADER)
			e = parts_line(p, n, s, (size_t)len, header_set);
		else if (l->kind == PLANFILE_NOTE)
			e = part_write(&p[0], s, (size_t)len);
		else if (l->kind == PLANFILE_ACTION)
			e = deal(p, n, load, l, s, (size_t)len);
		else
			e = parts_line(p, n, s, (size_t)len, summary_set);
	}
	if (e == FERRY_OK && ferror(in))
		e = ferry_fail(
		    FERRY_ESYS, "cannot read the plan: %s", strerror(errno));
	free(s);
	free(l);
	return e;
}

ferry_err
planfile_split(const char *path, unsigned n, const char *prefix)
{
	struct planfile *pf = NULL;
	struct part *p = NULL;
	uint64_t *load = NULL;
	FILE *in = NULL;
	ferry_err e;
	unsigned i;

	/* the checks ferry apply makes of the whole, before any part */
	if ((e = planfile_open(path, &pf)) != FERRY_OK)
		return e;
	planfile_close(pf);
	p = calloc(n, sizeof(*p));
	load = calloc(n, sizeof(*load));
	if (p == NULL || load == NULL) {
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
		goto out;
	}
	if ((in = fopen(path, "r")) == NULL) {
		e = ferry_fail(
		    FERRY_ESYS, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if ((e = parts_open(p, n, prefix)) != FERRY_OK ||
	    (e = split_lines(in, p, n, load)) != FERRY_OK)
		goto out;
	for (i = 0; i < n && e == FERRY_OK; i++)
		if (fclose(p[i].f) != 0)
			e = ferry_fail(FERRY_ESYS, "cannot write %s: %s",
			    p[i].path, strerror(errno));
		else
			p[i].f = NULL;
out:
	if (p != NULL)
		parts_close(p, n, e != FERRY_OK);
	if (in != NULL)
		fclose(in);
	free(load);
	free(p);
	return e;
}

/* Copies what the file open on fd holds, from its start, to stdout. */
static void
copy_out(int fd)
{
	char buf[65536];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return;
}

/*
 * Points stdout at a new file named after tmpl (its XXXXXX replaced):
 * returns its descriptor, with the former stdout in *saved, or -1.
 */
static int
stdout_to_temp(char *tmpl, int *saved)
{
	int fd;

	fflush(stdout);
	if ((fd = mkstemp(tmpl)) < 0)
		return -1;
	if ((*saved = dup(1)) >= 0 && dup2(fd, 1) >= 0)
		return fd;
	if (*saved >= 0)
		close(*saved);
	close(fd);
	unlink(tmpl);
	return -1;
}

int
sync_plan_split(const struct sync_opts *o, int (*run)(const struct sync_opts *))
{
	char tmp[PATH_MAX];
	int fd, saved = -1, rc, len;
	ferry_err e = FERRY_OK;

	len = snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", o->split_prefix);
	if (len < 0 || (size_t)len >= sizeof(tmp)) {
		output_failure(1, ferry_fail(FERRY_EUSAGE,
		                      "--split-prefix: a name too long"));
		return EXIT_USAGE;
	}
	if ((fd = stdout_to_temp(tmp, &saved)) < 0) {
		output_failure(1, ferry_fail(FERRY_ESYS, "cannot create %s: %s",
		                      tmp, strerror(errno)));
		return EXIT_USAGE;
	}
	rc = run(o);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	/* an unfinished plan, refused by apply, is not cut */
	if (rc <= EXIT_PARTIAL)
		e = planfile_split(tmp, o->split, o->split_prefix);
	copy_out(fd);
	close(fd);
	unlink(tmp);
	if (e != FERRY_OK) {
		output_failure(1, e);
		rc = sync_exit_for(e);
	}
	return rc;
}
