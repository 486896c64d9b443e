/*
 * cli_backup.c: --backup-dir checked against the run's sides before any
 * request, and resolved into the place of this run's date.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sync/cli/cli_args.h"
#include "sync/run/run.h"

/* "2026-12-06T023000Z", the name of this run's folder, into out. */
static void
run_date(char out[32])
{
	time_t now = time(NULL);
	struct tm tm;

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(out, 32, "%Y-%m-%dT%H%M%SZ", &tm) == 0)
		snprintf(out, 32, "%lld", (long long)now);
}

/* Whether the prefix a starts with the prefix b (both end in '/' or "").*/
static int
starts_with(const char *a, const char *b)
{
	return strncmp(a, b, strlen(b)) == 0;
}

/* Whether two locations on one endpoint share a key: one holds the other. */
static int
overlap(const struct remote_loc *a, const struct remote_loc *b)
{
	return strcmp(a->bucket, b->bucket) == 0 &&
	       (starts_with(a->prefix, b->prefix) ||
	           starts_with(b->prefix, a->prefix));
}

/* Whether the two sides of a mirror are on one endpoint. */
static int
same_endpoint(const struct sync_opts *o)
{
	const char *a = o->remote.endpoint_url, *b = o->src_remote.endpoint_url;

	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/*
 * A push's or mirror's backup: a bucket location on the destination's
 * endpoint, apart from the destination and from a mirror's source.
 */
static int
check_bucket(struct sync_opts *o, const char *date)
{
	struct remote_loc b = {0}, d = {0}, s = {0};
	int rc = -1;

	if (!remote_is_url(o->backup_dir))
		return cli_bad(
		    "--backup-dir '%s': a push or a mirror keeps "
		    "what it replaces in a bucket, s3://BUCKET/PREFIX "
		    "on the destination's endpoint",
		    o->backup_dir);
	if (remote_loc_parse(o->backup_dir, &b) != FERRY_OK ||
	    remote_loc_parse(o->dst, &d) != FERRY_OK ||
	    (o->way == SYNC_WAY_MIRROR &&
	        remote_loc_parse(o->src, &s) != FERRY_OK)) {
		rc = cli_bad("%s", ferry_errmsg());
		goto out;
	}
	if (overlap(&b, &d)) {
		rc = cli_bad("--backup-dir '%s' and the destination hold one "
		             "another: a run would back up or delete its "
		             "own backups",
		    o->backup_dir);
		goto out;
	}
	if (s.bucket && same_endpoint(o) && overlap(&b, &s)) {
		rc = cli_bad("--backup-dir '%s' and the mirror's source hold "
		             "one another",
		    o->backup_dir);
		goto out;
	}
	o->backup.bucket = b.bucket;
	b.bucket = NULL;
	if ((o->backup.prefix = malloc(strlen(b.prefix) + 34)) == NULL) {
		rc = cli_bad("%s", "out of memory");
		goto out;
	}
	sprintf(o->backup.prefix, "%s%s/", b.prefix, date);
out:
	remote_loc_clear(&b);
	remote_loc_clear(&d);
	remote_loc_clear(&s);
	return rc;
}

/*
 * The absolute path of p, "." and ".." taken away by its words (no link
 * followed), malloc'd; NULL when out of memory or no working folder.
 */
static char *
abs_path(const char *p)
{
	char cwd[PATH_MAX], *out, *w, *save = NULL, *tmp;
	size_t n;

	if (p[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	n = (p[0] == '/' ? 0 : strlen(cwd)) + strlen(p) + 2;
	if ((tmp = malloc(n)) == NULL || (out = malloc(n)) == NULL) {
		free(tmp);
		return NULL;
	}
	snprintf(tmp, n, "%s/%s", p[0] == '/' ? "" : cwd, p);
	out[0] = '\0';
	for (w = strtok_r(tmp, "/", &save); w; w = strtok_r(NULL, "/", &save)) {
		if (strcmp(w, ".") == 0)
			continue;
		if (strcmp(w, "..") == 0) {
			if ((w = strrchr(out, '/')) != NULL)
				*w = '\0';
			continue;
		}
		strcat(out, "/");
		strcat(out, w);
	}
	if (out[0] == '\0')
		strcpy(out, "/");
	free(tmp);
	return out;
}

/* Whether the folder a is b or inside it (absolute, normalized). */
static int
inside(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

/*
 * A pull's backup: a local folder outside the destination, by its words
 * and, where both exist, by their real paths.
 */
static int
check_folder(struct sync_opts *o, const char *date)
{
	char *b = NULL, *d = NULL, rb[PATH_MAX], rd[PATH_MAX];
	int rc = -1;
	size_t n;

	if (remote_is_url(o->backup_dir))
		return cli_bad("--backup-dir '%s': a pull keeps what it "
		               "replaces in a local folder",
		    o->backup_dir);
	if ((b = abs_path(o->backup_dir)) == NULL ||
	    (d = abs_path(o->dst)) == NULL) {
		rc = cli_bad("%s", "--backup-dir: no working folder, or out "
		                   "of memory");
		goto out;
	}
	if (inside(b, d) || (realpath(o->backup_dir, rb) &&
	                        realpath(o->dst, rd) && inside(rb, rd))) {
		rc = cli_bad("--backup-dir '%s' is inside the destination "
		             "folder: a run would take its backups for files",
		    o->backup_dir);
		goto out;
	}
	n = strlen(b) + strlen(date) + 2;
	if ((o->backup_path = malloc(n)) == NULL) {
		rc = cli_bad("%s", "out of memory");
		goto out;
	}
	snprintf(
	    o->backup_path, n, "%s%s%s", b, strcmp(b, "/") ? "/" : "", date);
out:
	free(b);
	free(d);
	return rc;
}

int
cli_check_backup(struct sync_opts *o)
{
	char date[32];

	if (o->backup_dir == NULL)
		return -1;
	if (o->cmd != SYNC_CMD_SYNC)
		return cli_bad("%s", "--backup-dir: only sync keeps what it "
		                     "replaces (a plan does not carry it)");
	run_date(date);
	if (o->way == SYNC_WAY_PUSH || o->way == SYNC_WAY_MIRROR)
		return check_bucket(o, date);
	if (o->way == SYNC_WAY_PULL)
		return check_folder(o, date);
	return -1;
}
