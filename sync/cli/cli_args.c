/* cli_args.c: the usage error and the parsers of option arguments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/cli/cli_args.h"
#include "sync/run/run.h"

/*
 * Whether the command line has --json, set before it is parsed so that a
 * usage error is told as a JSON line too.  Read-only once set.
 */
int cli_usage_json;

int
cli_bad(const char *fmt, const char *arg)
{
	char msg[512];

	/* what the command line said, escaped; shown whatever the level */
	snprintf(msg, sizeof(msg), fmt, arg);
	if (cli_usage_json)
		output_json_error(FERRY_EUSAGE, msg);
	fputs("ferry: ", stderr);
	text_print(stderr, msg, strlen(msg));
	fputs("\nTry 'ferry --help'.\n", stderr);
	return EXIT_USAGE;
}

int
cli_take_size(const char *arg, uint64_t *out)
{
	if (parse_size(arg, out) != FERRY_OK)
		return cli_bad("invalid size '%s'", arg);
	return -1;
}

int
cli_take_count(const char *arg, unsigned *out, unsigned max)
{
	char *end, fmt[80];
	unsigned long v = strtoul(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v == 0 || v > max) {
		snprintf(fmt, sizeof(fmt),
		    "invalid number '%%s': give a whole number from 1 to %u",
		    max);
		return cli_bad(fmt, arg);
	}
	*out = (unsigned)v;
	return -1;
}

/* --stall-timeout: seconds, or 0 for never (-1 to remote). */
int
cli_take_stall(const char *arg, int *out)
{
	unsigned v;
	int rc;

	if (strcmp(arg, "0") == 0) {
		*out = -1;
		return -1;
	}
	if ((rc = cli_take_count(arg, &v, 7 * 86400)) >= 0)
		return rc;
	*out = (int)v;
	return -1;
}

/*
 * --min-age, --max-age: seconds, or a count of s, m, h, d or w (as
 * rclone's), into *out.
 */
int
cli_take_age(const char *arg, int64_t *out)
{
	static const char units[] = "smhdw";
	static const int64_t secs[] = {1, 60, 3600, 86400, 7 * 86400};
	const char *u;
	char *end;
	unsigned long long v;

	if (arg[0] < '0' || arg[0] > '9')
		return cli_bad("invalid age '%s'", arg);
	errno = 0;
	v = strtoull(arg, &end, 10);
	u = *end != '\0' ? strchr(units, *end) : units;
	if (errno != 0 || u == NULL || (*end != '\0' && end[1] != '\0') ||
	    v > (unsigned long long)(INT64_MAX / secs[u - units]))
		return cli_bad("invalid age '%s' (30s, 15m, 2h, 7d, 2w)", arg);
	*out = (int64_t)v * secs[u - units];
	return -1;
}

/* "N" (a count) or "N%" (of the destination's objects). */
int
cli_take_max_delete(struct sync_opts *o, const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (end == arg || (*end != '\0' && strcmp(end, "%") != 0) ||
	    (*end == '%' && v > 100))
		return cli_bad("invalid --max-delete '%s'", arg);
	if (*end == '%') {
		o->max_delete_pct = (int)v;
	} else {
		o->max_delete_pct = -1;
		o->max_delete = v;
	}
	return -1;
}

/* --sample P%: a share of the objects, above 0 and at most 100. */
int
cli_take_sample(struct sync_opts *o, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno != 0 || (*end != '\0' && strcmp(end, "%")) ||
	    !(v > 0 && v <= 100))
		return cli_bad(
		    "invalid --sample '%s' (a share above 0%%, at most "
		    "100%%)",
		    arg);
	o->sample_pct = v;
	return -1;
}

/*
 * The edit distance (insertions, deletions, substitutions) between
 * a[0..an) and b, or SUGGEST_MAX + 1 when it is larger than SUGGEST_MAX
 * or the words are too long to be worth a suggestion.
 */
#define SUGGEST_LEN 40
size_t
cli_distance(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b), row[SUGGEST_LEN + 1], i, j, diag, up;

	if (an > SUGGEST_LEN || bn > SUGGEST_LEN ||
	    (an > bn ? an - bn : bn - an) > SUGGEST_MAX)
		return SUGGEST_MAX + 1;
	for (j = 0; j <= bn; j++)
		row[j] = j;
	for (i = 1; i <= an; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= bn; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[bn];
}

/* Keeps in *best the name closer to word[0..n) than *bestd edits. */
void
cli_suggest(const char *word, size_t n, const char *name, const char **best,
    size_t *bestd)
{
	size_t d = cli_distance(word, n, name);

	if (d < *bestd) {
		*bestd = d;
		*best = name;
	}
}

int
cli_check_posix(const struct sync_opts *o)
{
	if (o->links && o->follow_symlinks)
		return cli_bad("%s", "--links and -L, --follow-symlinks: a "
		                     "symlink is either kept or followed");
	if ((o->links || o->keep_dirs || o->preserve || o->xattrs || o->acls) &&
	    (o->cmd == SYNC_CMD_PLAN || o->cmd == SYNC_CMD_APPLY))
		return cli_bad("%s", "--links, --keep-dirs, --preserve, -X, "
		                     "-A: only sync and verify (a plan does "
		                     "not carry them)");
	if (o->keep_dirs && o->way != SYNC_WAY_PUSH && o->way != SYNC_WAY_LOCAL)
		return cli_bad("%s", "--keep-dirs: only a push from a folder "
		                     "sends empty folders (a pull makes the "
		                     "folders its markers name)");
	if (o->hard_links &&
	    (o->cmd == SYNC_CMD_PLAN || o->cmd == SYNC_CMD_APPLY ||
	        (o->way != SYNC_WAY_PUSH && o->way != SYNC_WAY_PULL)))
		return cli_bad("%s", "-H, --hard-links: only a sync from or to "
		                     "a folder (a mirror copies the marker as "
		                     "any metadata)");
	if (o->track_renames &&
	    ((o->way != SYNC_WAY_PUSH && o->way != SYNC_WAY_PULL) ||
	        o->cmd != SYNC_CMD_SYNC))
		return cli_bad("%s", "--track-renames: only a sync between a "
		                     "folder and a bucket (a mirror and a "
		                     "plan do not track renames)");
	if (o->track_renames && o->hard_links)
		return cli_bad("%s", "--track-renames and -H, --hard-links "
		                     "cannot be used together (a renamed "
		                     "file's copy would not carry its hard "
		                     "link marker)");
	return -1;
}
