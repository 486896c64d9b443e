/* cli.c: the command line, parsed once into a read-only struct sync_opts. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/cli/cli.h"
#include "sync/cli/cli_args.h"
#include "sync/cli/cli_store.h"
#include "sync/run/run.h"

enum {
	OPT_DELETE = 256,
	OPT_EXCLUDE,
	OPT_INCLUDE,
	OPT_PART_SIZE,
	OPT_THRESHOLD,
	OPT_SIZE_ONLY,
	OPT_ENDPOINT,
	OPT_REGION,
	OPT_PROFILE,
	OPT_PATH_STYLE,
	OPT_MANIFEST,
	OPT_JSON,
	OPT_MEMORY,
	OPT_REBUILD,
	OPT_NO_VERIFY,
	OPT_RETRIES,
	OPT_VERSION,
	OPT_FORCE,
	OPT_MAX_DELETE,
	OPT_SRC_ENDPOINT,
	OPT_SRC_REGION,
	OPT_SRC_PROFILE,
	OPT_PROGRESS,
	OPT_SHARD,
	OPT_SHARDS,
	OPT_READ_TIMEOUT,
	OPT_STALL_TIMEOUT,
	OPT_EXCLUDE_FROM,
	OPT_INCLUDE_FROM,
	OPT_FILES_FROM,
	OPT_MIN_SIZE,
	OPT_MAX_SIZE,
	OPT_MIN_AGE,
	OPT_MAX_AGE,
	OPT_SRC_INVENTORY,
	OPT_FULL,
	OPT_SAMPLE,
	OPT_FSYNC,
	OPT_SPARSE,
	OPT_PRESERVE,
	OPT_LINKS,
	OPT_LINKS_OUTSIDE,
	OPT_KEEP_DIRS,
	OPT_TRACK_RENAMES,
	OPT_VERSIONS,
	OPT_AT,
	OPT_SPLIT,
	OPT_SPLIT_PREFIX,
	OPT_SHARD_RANGES,
	OPT_RANGES,
	OPT_METRICS_FILE,
	OPT_BACKUP_DIR,
	OPT_WATCH,
	OPT_WATCH_SETTLE,
	OPT_WATCH_RESCAN,
	OPT_WATCH_INTERVAL
};

static const char shortopts[] = "ncj:qvhLHXA";

static const struct option longopts[] = {
    {"delete", no_argument, NULL, OPT_DELETE},
    {"dry-run", no_argument, NULL, 'n'},
    {"dryrun", no_argument, NULL, 'n'}, /* aws s3 sync's spelling */
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"include", required_argument, NULL, OPT_INCLUDE},
    {"exclude-from", required_argument, NULL, OPT_EXCLUDE_FROM},
    {"include-from", required_argument, NULL, OPT_INCLUDE_FROM},
    {"files-from", required_argument, NULL, OPT_FILES_FROM},
    {"min-size", required_argument, NULL, OPT_MIN_SIZE},
    {"max-size", required_argument, NULL, OPT_MAX_SIZE},
    {"min-age", required_argument, NULL, OPT_MIN_AGE},
    {"max-age", required_argument, NULL, OPT_MAX_AGE},
    {"split", required_argument, NULL, OPT_SPLIT},
    {"split-prefix", required_argument, NULL, OPT_SPLIT_PREFIX},
    {"jobs", required_argument, NULL, 'j'},
    {"part-size", required_argument, NULL, OPT_PART_SIZE},
    {"multipart-threshold", required_argument, NULL, OPT_THRESHOLD},
    {"checksum", no_argument, NULL, 'c'},
    {"size-only", no_argument, NULL, OPT_SIZE_ONLY},
    {"endpoint-url", required_argument, NULL, OPT_ENDPOINT},
    {"region", required_argument, NULL, OPT_REGION},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"path-style", no_argument, NULL, OPT_PATH_STYLE},
    {"manifest", required_argument, NULL, OPT_MANIFEST},
    {"rebuild-manifest", no_argument, NULL, OPT_REBUILD},
    {"json", no_argument, NULL, OPT_JSON},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"no-verify-ssl", no_argument, NULL, OPT_NO_VERIFY},
    {"retries", required_argument, NULL, OPT_RETRIES},
    {"read-timeout", required_argument, NULL, OPT_READ_TIMEOUT},
    {"stall-timeout", required_argument, NULL, OPT_STALL_TIMEOUT},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"force", no_argument, NULL, OPT_FORCE},
    {"max-delete", required_argument, NULL, OPT_MAX_DELETE},
    {"source-endpoint-url", required_argument, NULL, OPT_SRC_ENDPOINT},
    {"source-region", required_argument, NULL, OPT_SRC_REGION},
    {"source-profile", required_argument, NULL, OPT_SRC_PROFILE},
    {"source-inventory", required_argument, NULL, OPT_SRC_INVENTORY},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"shards", required_argument, NULL, OPT_SHARDS},
    {"shard-ranges", required_argument, NULL, OPT_SHARD_RANGES},
    {"ranges", required_argument, NULL, OPT_RANGES},
    {"follow-symlinks", no_argument, NULL, 'L'},
    {"full", no_argument, NULL, OPT_FULL},
    {"sample", required_argument, NULL, OPT_SAMPLE},
    {"fsync", no_argument, NULL, OPT_FSYNC},
    {"sparse", no_argument, NULL, OPT_SPARSE},
    {"preserve", no_argument, NULL, OPT_PRESERVE},
    {"xattrs", no_argument, NULL, 'X'},
    {"acls", no_argument, NULL, 'A'},
    {"links", no_argument, NULL, OPT_LINKS},
    {"links-outside", no_argument, NULL, OPT_LINKS_OUTSIDE},
    {"keep-dirs", no_argument, NULL, OPT_KEEP_DIRS},
    {"hard-links", no_argument, NULL, 'H'},
    {"track-renames", no_argument, NULL, OPT_TRACK_RENAMES},
    {"versions", no_argument, NULL, OPT_VERSIONS},
    {"at", required_argument, NULL, OPT_AT},
    {"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
    {"backup-dir", required_argument, NULL, OPT_BACKUP_DIR},
    {"watch", no_argument, NULL, OPT_WATCH},
    {"watch-settle", required_argument, NULL, OPT_WATCH_SETTLE},
    {"watch-rescan", required_argument, NULL, OPT_WATCH_RESCAN},
    {"watch-interval", required_argument, NULL, OPT_WATCH_INTERVAL},
    CLI_STORE_LONGOPTS,
    {NULL, 0, NULL, 0},
};

/* The parts of the help; "ferry --help" prints them all. */
static const char help_what[] =
    "What to sync:\n"
    "  --delete                 remove what the source no longer has\n"
    "  --max-delete N|N%        most deletes allowed (default 50%)\n"
    "  --force                  delete beyond that, or from an empty "
    "source\n"
    "  --backup-dir PLACE       first keep what is overwritten or deleted\n"
    "                           in PLACE, under the run's date: s3://B/P\n"
    "                           (push, mirror) or a folder (pull)\n"
    "  --exclude GLOB           leave out matching paths (repeatable)\n"
    "  --include GLOB           keep matching paths (first match wins)\n"
    "  --exclude-from FILE      --exclude each pattern in FILE, one a line\n"
    "  --include-from FILE      --include each pattern in FILE\n"
    "  --files-from FILE        only the paths FILE lists; no other is\n"
    "                           sent or deleted\n"
    "  --min-size SIZE, --max-size SIZE\n"
    "                           only keys whose source is that large\n"
    "  --min-age AGE, --max-age AGE\n"
    "                           only keys whose source is that old (30s,\n"
    "                           15m, 2h, 7d, 2w); others are left alone\n"
    "  -c, --checksum           re-read every local file\n"
    "  --size-only              same size counts as unchanged\n"
    "  -L, --follow-symlinks    push what symlinks point to\n"
    "  --links                  symlinks as objects of their target\n"
    "                           (name.rclonelink), made again on pull\n"
    "  --links-outside          a pull makes links that leave the folder\n"
    "  --keep-dirs              a push keeps empty folders (dir/)\n"
    "  -H, --hard-links         keep hard links: one upload per file, its\n"
    "                           other names copied; a pull links them\n"
    "  --track-renames          a push copies renamed files on the server\n"
    "                           (from the deleted key of the same content);\n"
    "                           a pull moves the local file of a renamed\n"
    "                           object to its new name\n"
    "  --preserve               a pull restores mode, owner (as root)\n"
    "                           and atime\n"
    "  -X, --xattrs             keep user.* xattrs (as rclone names them)\n"
    "  -A, --acls               keep POSIX ACLs (as x-amz-meta-ferry-acl)\n"
    "  -n, --dry-run, --dryrun  print the plan, change nothing\n"
    "  --at TIME                the source bucket as it was then\n"
    "                           (2026-11-01T00:00:00Z; versioned buckets)\n"
    "  --shard I/N              only the keys whose hash mod N is I\n"
    "  --shards N               --shard with I from JOB_COMPLETION_INDEX\n"
    "  --shard-ranges FILE      shards by key range, cut as in FILE\n"
    "  --watch                  goes on until SIGTERM or SIGINT: a push\n"
    "                           sends what changes as it changes, a pull\n"
    "                           or mirror polls the source's listing;\n"
    "                           SIGHUP reads the filter files again\n"
    "  --watch-settle AGE       push: quiet time per path before it goes (2s)\n"
    "                           a file being written goes once closed\n"
    "  --watch-rescan AGE       push: full run that often (1h; 0: off)\n"
    "  --watch-interval AGE     pull, mirror: poll that often (30s)\n"
    "\n";
static const char help_how[] =
    "How:\n"
    "  -j, --jobs N             requests in flight, fixed (default: adapt)\n"
    "  --part-size SIZE         multipart part size (default auto: 8M,\n"
    "                           up to 128M for uploads, 64M for downloads)\n"
    "  --multipart-threshold SIZE  multipart from this size (8M)\n"
    "                           (given, copies too; else whole to 5G)\n"
    "  --memory SIZE            bound on buffers and parts being sent\n"
    "                           (default 256M)\n"
    "  --retries N              attempts per request (default 10)\n"
    "  --read-timeout SECONDS   retry a request silent that long (60)\n"
    "  --stall-timeout SECONDS  abort when no request has succeeded for\n"
    "                           that long (default 180; 0: never)\n"
    "  --manifest DIR           where the manifest lives\n"
    "  --rebuild-manifest       discard the manifest and start afresh\n"
    "  --fsync                  a pull makes each file and the manifest\n"
    "                           durable before it reports them done\n"
    "  --sparse                 a pull leaves blocks of zeros as holes\n"
    "\n";
static const char help_where[] =
    "Where (the destination; both sides unless --source-* is given):\n"
    "  --endpoint-url URL  --region REGION  --profile NAME\n"
    "  --path-style  --no-verify-ssl\n"
    "  --source-endpoint-url URL  --source-region REGION\n"
    "  --source-profile NAME    the source side of a mirror\n"
    "  --source-inventory s3://BUCKET/.../manifest.json\n"
    "                           read the source (a pull's or a mirror's)\n"
    "                           from this S3 Inventory (CSV), not a listing\n"
    "\n";
static const char help_output[] =
    "Output:\n"
    "  --json                   one JSON object per line on stdout\n"
    "  --ranges N               ls: the --shard-ranges of N shards\n"
    "  --progress               the progress line even when stderr is no "
    "terminal\n"
    "  -q, --quiet  -v, --verbose  -h, --help  --version\n"
    "\n";
static const char help_metrics[] =
    "Watching:\n"
    "  --metrics-file PATH      after the run, its numbers for Prometheus\n"
    "                           (node_exporter's textfile collector)\n"
    "\n";
static const char help_split[] =
    "Plan only:\n"
    "  --split N                also write the plan cut into N plans\n"
    "                           of about equal work, to apply at once\n"
    "  --split-prefix PREFIX    their names: PREFIX0 ... (\"plan.\")\n"
    "\n";
static const char help_exit[] =
    "Exit status: 0 in sync, 1 some objects failed, 2 usage or\n"
    "configuration error, 3 aborted, 4 another run of the pair holds\n"
    "its manifest (nothing done).  More in ferry(1).\n";

/* What one command is for, and which parts of the help concern it. */
static const struct command_help {
	const char *name;
	const char *text;
	int what, how, where, metrics;
} command_helps[] = {
    {"sync",
        "usage: ferry sync SOURCE DESTINATION [options]\n\n"
        "SOURCE and DESTINATION: a local folder or s3://BUCKET[/PREFIX]:\n"
        "folder to bucket (push), bucket to folder (pull), bucket to\n"
        "bucket (mirror: server-side copy on one endpoint, else "
        "streamed).\n"
        "Only what changed moves; --delete removes what the source no\n"
        "longer has.\n\n",
        1, 1, 1, 1},
    {"plan",
        "usage: ferry plan SOURCE DESTINATION [options] > PLAN\n\n"
        "Writes what sync would do, as JSON lines (a header, one line\n"
        "per action, a summary), and changes nothing.  The options are\n"
        "sync's.\n\n",
        1, 1, 1, 0},
    {"apply",
        "usage: ferry apply PLAN [options]\n\n"
        "Runs exactly the actions of a plan file ('-': standard input),\n"
        "refusing those whose source or destination changed since the\n"
        "plan was made.  Actions already in place count as done.\n\n",
        0, 1, 1, 1},
    {"ls",
        "usage: ferry ls s3://BUCKET[/PREFIX] [--versions] [options]\n"
        "       ferry ls s3:// [options]\n\n"
        "Lists the objects under the prefix: size, time and key, or JSON\n"
        "lines with --json.  \"s3://\" alone lists the buckets.\n"
        "  --versions               every version and delete marker\n\n",
        0, 0, 1, 0},
    {"verify",
        "usage: ferry verify SOURCE DESTINATION [--full | --sample P%] "
        "[options]\n\n"
        "Audits DESTINATION against SOURCE and the manifest, changing\n"
        "nothing: every key present, sizes and ETags as recorded.\n"
        "  --full                   re-read and re-hash every object\n"
        "  --sample P%              re-read and re-hash P% of them\n"
        "Exit status 1 when the destination has drifted.\n\n",
        1, 1, 1, 0},
    {"manifest",
        "usage: ferry manifest info [--manifest DIR | SOURCE DESTINATION]\n"
        "                           [--shard I/N] [--versions] [--json]\n\n"
        "Shows where the manifest of a pair lives, its schema, how many\n"
        "entries it holds, and when the last run ended and how.\n"
        "  --versions               the version ids the records name\n\n",
        0, 0, 0, 0},
};

/* The help of one command, or with command NULL all of it. */
static void
usage(FILE *f, const char *command)
{
	const struct command_help *h = NULL;
	size_t i;

	for (i = 0; command && i < sizeof(command_helps) / sizeof(*h); i++)
		if (strcmp(command, command_helps[i].name) == 0)
			h = &command_helps[i];
	if (h != NULL) {
		fputs(h->text, f);
		fputs(h == &command_helps[1] ? help_split : "", f);
		fputs(h->what ? help_what : "", f);
		fputs(h->how ? help_how : "", f);
		fputs(h->where ? help_where : "", f);
		fputs(h->what ? cli_store_help : "", f);
		fputs(h->metrics ? help_metrics : "", f);
		fputs(help_output, f);
		fputs(help_exit, f);
		fprintf(f, "The manual: ferry help %s (man ferry-%s).\n",
		    h->name, h->name);
		return;
	}
	fputs(
	    "usage: ferry sync SOURCE DESTINATION [options]\n"
	    "       ferry plan SOURCE DESTINATION [options] > PLAN\n"
	    "       ferry apply PLAN [options]\n"
	    "       ferry verify SOURCE DESTINATION [--full | --sample P%]\n"
	    "       ferry ls s3://[BUCKET[/PREFIX]] [--versions] [--json]\n"
	    "       ferry manifest info [--manifest DIR | SOURCE "
	    "DESTINATION]\n"
	    "       ferry COMMAND --help\n"
	    "       ferry help COMMAND       its manual, ferry-COMMAND(1)\n"
	    "\n"
	    "SOURCE and DESTINATION: a local folder or s3://BUCKET[/PREFIX]:\n"
	    "folder to bucket (push), bucket to folder (pull), bucket to\n"
	    "bucket (mirror: server-side copy on one endpoint, else "
	    "streamed).\n"
	    "plan writes what sync would do as JSON lines; apply runs such\n"
	    "a plan, refusing actions whose source or destination changed.\n"
	    "\n",
	    f);
	fputs(help_split, f);
	fputs(help_what, f);
	fputs(help_how, f);
	fputs(help_where, f);
	fputs(cli_store_help, f);
	fputs(help_metrics, f);
	fputs(help_output, f);
	fputs(help_exit, f);
}

static const char part_range[] = "--part-size must be between 5M and 5G";

/* What add_rule() adds: a pattern, a file of them, or a list of paths. */
enum rule_kind { RULE_PATTERN, RULE_FILE, RULE_LIST };

static int
add_rule(struct sync_opts *o, const char *arg, int include, enum rule_kind k)
{
	ferry_err e;

	if (o->filter == NULL && (o->filter = filter_new()) == NULL)
		return cli_bad("%s", "out of memory");
	if (k == RULE_PATTERN)
		e = filter_add(o->filter, arg, include);
	else if (k == RULE_FILE)
		e = filter_add_file(o->filter, arg, include);
	else
		e = filter_files_from(o->filter, arg);
	if (e != FERRY_OK)
		return cli_bad("%s", ferry_errmsg());
	return -1;
}

/* Handles one option; returns -1 to go on or an exit status. */
static int
take_option(struct sync_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_DELETE:
		o->delete = 1;
		return -1;
	case 'n':
		o->dry_run = 1;
		return -1;
	case OPT_EXCLUDE:
	case OPT_INCLUDE:
		return add_rule(o, arg, c == OPT_INCLUDE, RULE_PATTERN);
	case OPT_EXCLUDE_FROM:
	case OPT_INCLUDE_FROM:
		return add_rule(o, arg, c == OPT_INCLUDE_FROM, RULE_FILE);
	case OPT_FILES_FROM:
		return add_rule(o, arg, 1, RULE_LIST);
	case OPT_MIN_SIZE:
		return cli_take_size(arg, &o->min_size);
	case OPT_MAX_SIZE:
		return cli_take_size(arg, &o->max_size);
	case OPT_MIN_AGE:
		return cli_take_age(arg, &o->min_age);
	case OPT_MAX_AGE:
		return cli_take_age(arg, &o->max_age);
	case OPT_SPLIT:
		return cli_take_count(arg, &o->split, 10000);
	case OPT_SPLIT_PREFIX:
		o->split_prefix = arg;
		return -1;
	case 'j':
		o->jobs_fixed = 1;
		return cli_take_count(arg, &o->jobs, 1024);
	case OPT_PART_SIZE:
		if (strcmp(arg, "auto") == 0) {
			o->part_size = 0;
			return -1;
		}
		if (cli_take_size(arg, &o->part_size) != -1)
			return EXIT_USAGE; /* said by cli_take_size() */
		return o->part_size == 0 ? cli_bad("%s", part_range) : -1;
	case OPT_THRESHOLD:
		if (cli_take_size(arg, &o->multipart_threshold) != -1)
			return EXIT_USAGE; /* said by cli_take_size() */
		/* given, it asks for copies in parts too */
		if (o->multipart_threshold < o->copy_threshold)
			o->copy_threshold = o->multipart_threshold;
		return -1;
	case OPT_MEMORY:
		return cli_take_size(arg, &o->memory);
	case 'c':
		o->checksum = 1;
		return -1;
	case OPT_SIZE_ONLY:
		o->size_only = 1;
		return -1;
	case 'L':
		o->follow_symlinks = 1;
		return -1;
	case OPT_ENDPOINT:
		o->remote.endpoint_url = arg;
		return -1;
	case OPT_REGION:
		o->remote.region = arg;
		return -1;
	case OPT_PROFILE:
		o->remote.profile = arg;
		return -1;
	case OPT_SRC_ENDPOINT:
		o->src_remote.endpoint_url = arg;
		o->src_given = 1;
		return -1;
	case OPT_SRC_REGION:
		o->src_remote.region = arg;
		o->src_given = 1;
		return -1;
	case OPT_SRC_PROFILE:
		o->src_remote.profile = arg;
		o->src_given = 1;
		return -1;
	case OPT_SRC_INVENTORY:
		o->source_inventory = arg;
		return -1;
	case OPT_PATH_STYLE:
		o->remote.path_style = 1;
		return -1;
	case OPT_NO_VERIFY:
		o->remote.no_verify_ssl = 1;
		return -1;
	case OPT_RETRIES:
		return cli_take_count(arg, &o->remote.retries, 100);
	case OPT_READ_TIMEOUT:
		return cli_take_count(arg, &o->remote.read_timeout, 3600);
	case OPT_STALL_TIMEOUT:
		return cli_take_stall(arg, &o->remote.stall_timeout);
	case OPT_MANIFEST:
		o->manifest_dir = arg;
		return -1;
	case OPT_SHARD:
		o->shard_arg = arg;
		return -1;
	case OPT_SHARDS:
		o->shards_arg = arg;
		return -1;
	case OPT_SHARD_RANGES:
		o->shard_ranges_arg = arg;
		return -1;
	case OPT_RANGES:
		return cli_take_count(arg, &o->ranges, SHARD_COUNT_MAX);
	case OPT_FORCE:
		o->force = 1;
		return -1;
	case OPT_MAX_DELETE:
		return cli_take_max_delete(o, arg);
	case OPT_FULL:
		o->sample_pct = 100;
		return -1;
	case OPT_SAMPLE:
		return cli_take_sample(o, arg);
	case OPT_FSYNC:
		o->fsync = 1;
		return -1;
	case OPT_SPARSE:
		o->sparse = 1;
		return -1;
	case OPT_PRESERVE:
		o->preserve = 1;
		return -1;
	case 'X':
		o->xattrs = 1;
		return -1;
	case 'A':
		o->acls = 1;
		return -1;
	case OPT_LINKS_OUTSIDE:
		o->links_outside = 1;
		/* fall through */
	case OPT_LINKS:
		o->links = 1;
		return -1;
	case OPT_KEEP_DIRS:
		o->keep_dirs = 1;
		return -1;
	case 'H':
		o->hard_links = 1;
		return -1;
	case OPT_TRACK_RENAMES:
		o->track_renames = 1;
		return -1;
	case OPT_VERSIONS:
		o->versions = 1;
		return -1;
	case OPT_AT:
		o->at = remote_parse_time_zoned(arg);
		o->at_given = 1;
		return o->at < 0
		           ? cli_bad("invalid time '%s' (2026-11-01T00:00:00Z)",
		                 arg)
		           : -1;
	case OPT_REBUILD:
		o->rebuild_manifest = 1;
		return -1;
	case OPT_METRICS_FILE:
		o->metrics_file = arg;
		return *arg ? -1 : cli_bad("%s", "--metrics-file needs a PATH");
	case OPT_BACKUP_DIR:
		o->backup_dir = arg;
		return *arg ? -1 : cli_bad("%s", "--backup-dir needs a place");
	case OPT_WATCH:
		o->watch = 1;
		return -1;
	case OPT_WATCH_SETTLE:
		return cli_take_age(arg, &o->watch_settle);
	case OPT_WATCH_RESCAN:
		return cli_take_age(arg, &o->watch_rescan);
	case OPT_WATCH_INTERVAL:
		return cli_take_age(arg, &o->watch_interval);
	case OPT_JSON:
		o->json = 1;
		return -1;
	case 'q':
		o->quiet = 1;
		return -1;
	case OPT_PROGRESS:
		o->progress = 1;
		return -1;
	case 'v':
		o->verbose++;
		return -1;
	case 'h':
		usage(stdout, o->command);
		return EXIT_SYNCED;
	case OPT_VERSION:
		printf("ferry %s\n", FERRY_VERSION);
		return EXIT_SYNCED;
	}
	if (cli_store_take(o, c, arg) != FERRY_OK)
		return cli_bad("%s", ferry_errmsg());
	return -1;
}

static int
check_sizes(struct sync_opts *o)
{
	if (o->part_size != 0 && (o->part_size < REMOTE_MIN_PART_SIZE ||
	                             o->part_size > REMOTE_MAX_PART_SIZE))
		return cli_bad("%s", part_range);
	if (o->min_size > o->max_size)
		return cli_bad("%s", "--min-size is above --max-size: nothing "
		                     "would be synced");
	if (o->max_age >= 0 && o->min_age > o->max_age)
		return cli_bad("%s",
		    "--min-age is above --max-age: nothing would "
		    "be synced");
	if (o->multipart_threshold == 0)
		return cli_bad(
		    "%s", "--multipart-threshold must be at least 1");
	/* auto parts are SYNC_AUTO_PART_MIN at least */
	if (o->memory < (o->part_size ? o->part_size : SYNC_AUTO_PART_MIN))
		return cli_bad("%s", "--memory must hold at least one part");
	return -1;
}

/* Whether an option of --watch was given (-1: not yet parsed). */
static int
watch_opts_given(const struct sync_opts *o)
{
	return o->watch_settle != 2 || o->watch_rescan != 3600 ||
	       o->watch_interval != -1;
}

/*
 * --watch and its options against the command and the way: -1 or a
 * status.  A push's runs follow events, and a pull's or a mirror's the
 * poll of a listing: the options of the one are refused with the other.
 */
static int
check_watch(struct sync_opts *o)
{
	int push = o->way == SYNC_WAY_PUSH;

	if (!o->watch)
		return watch_opts_given(o)
		           ? cli_bad("%s", "--watch-settle, --watch-rescan and "
		                           "--watch-interval go with --watch")
		           : -1;
#ifndef __linux__
	if (push)
		return cli_bad("%s", "--watch of a folder needs Linux's "
		                     "inotify");
#endif
	if (o->cmd != SYNC_CMD_SYNC ||
	    (!push && o->way != SYNC_WAY_PULL && o->way != SYNC_WAY_MIRROR))
		return cli_bad("%s", "--watch: only sync watches, from a "
		                     "folder or a bucket to a bucket or a "
		                     "folder");
	if (o->dry_run)
		return cli_bad("%s", "--watch sends what changes: not with "
		                     "--dry-run");
	if (push && o->watch_interval != -1)
		return cli_bad("%s", "--watch-interval: a push's runs follow "
		                     "the folder's events (--watch-settle, "
		                     "--watch-rescan)");
	if (!push && (o->watch_settle != 2 || o->watch_rescan != 3600))
		return cli_bad("%s", "--watch-settle and --watch-rescan are a "
		                     "push's: a pull or a mirror polls the "
		                     "source's listing (--watch-interval)");
	if (!push && o->source_inventory)
		return cli_bad("%s", "--watch polls the source's listing: not "
		                     "with --source-inventory");
	if (!push && o->at_given)
		return cli_bad("%s", "--watch follows the source as it is: "
		                     "not with --at");
	if (o->watch_interval == -1)
		o->watch_interval = 30;
	if (o->watch_settle < 1 || o->watch_interval < 1)
		return cli_bad("%s", "--watch-settle and --watch-interval "
		                     "must be at least 1s");
	return -1;
}

/* "manifest info" with --manifest DIR, or with SOURCE DESTINATION. */
static int
take_manifest_operands(struct sync_opts *o, int argc, char **argv, int i)
{
	if (argc - i < 1 || strcmp(argv[i], "info") != 0)
		return cli_bad(
		    "%s", "manifest takes: info [SOURCE DESTINATION]");
	i++;
	if (argc - i == 2) {
		o->src = argv[i];
		o->dst = argv[i + 1];
		o->way = sync_way_of(o->src, o->dst);
		return -1;
	}
	if (argc - i == 0 && o->manifest_dir)
		return -1;
	return cli_bad("%s", "manifest info takes --manifest DIR, or SOURCE "
	                     "DESTINATION");
}

static int
take_operands(struct sync_opts *o, int argc, char **argv, int i)
{
	int two = o->cmd == SYNC_CMD_SYNC || o->cmd == SYNC_CMD_PLAN ||
	          o->cmd == SYNC_CMD_VERIFY;
	int want = two ? 2 : 1;

	if (o->cmd == SYNC_CMD_MANIFEST)
		return take_manifest_operands(o, argc, argv, i);
	if (argc - i != want) {
		if (two)
			return cli_bad(
			    "%s takes a SOURCE and a DESTINATION", o->command);
		if (o->cmd == SYNC_CMD_APPLY)
			return cli_bad("%s", "apply takes one PLAN file");
		return cli_bad("%s",
		    "ls takes one s3://BUCKET[/PREFIX], or s3:// "
		    "for the buckets");
	}
	o->src = argv[i];
	o->dst = want == 2 ? argv[i + 1] : NULL;
	o->way = sync_way_of(o->src, o->dst);
	if (o->source_inventory &&
	    (!sync_way_from_bucket(o->way) ||
	        strncmp(o->source_inventory, "s3://", 5) != 0))
		return cli_bad("%s",
		    "--source-inventory s3://BUCKET/.../"
		    "manifest.json: only for a pull or a mirror, "
		    "whose source is a bucket");
	if (o->at_given &&
	    (!sync_way_from_bucket(o->way) || o->cmd == SYNC_CMD_VERIFY ||
	        o->source_inventory))
		return cli_bad("%s", "--at: only a pull or a mirror (from a "
		                     "bucket, listed) reads a past time");
	if (o->follow_symlinks && o->way != SYNC_WAY_PUSH &&
	    o->way != SYNC_WAY_LOCAL)
		return cli_bad("%s",
		    "-L, --follow-symlinks: only a push from a "
		    "folder walks symlinks (apply takes it from "
		    "its plan)");
	return cli_check_posix(o);
}

static const char *const commands[] = {
    "sync", "plan", "apply", "ls", "manifest", "verify"};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The command named c, in the order of commands[], or SYNC_CMD_NONE. */
static enum sync_cmd
command_of(const char *c)
{
	static const enum sync_cmd cmds[] = {SYNC_CMD_SYNC, SYNC_CMD_PLAN,
	    SYNC_CMD_APPLY, SYNC_CMD_LS, SYNC_CMD_MANIFEST, SYNC_CMD_VERIFY};
	size_t i;

	_Static_assert(sizeof(cmds) / sizeof(cmds[0]) == NCOMMANDS,
	    "one enum sync_cmd per command word");
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(c, commands[i]) == 0)
			return cmds[i];
	return SYNC_CMD_NONE;
}

/* An option getopt_long() refused; it has said why. */
static int
bad_option(const char *arg)
{
	const struct option *o;
	const char *best = NULL;
	size_t n, bestd = SUGGEST_MAX + 1;

	if (optopt != 0 || arg == NULL || strncmp(arg, "--", 2) != 0)
		return cli_bad("%s", "invalid option");
	n = strcspn(arg + 2, "=");
	for (o = longopts; o->name != NULL; o++)
		cli_suggest(arg + 2, n, o->name, &best, &bestd);
	return best ? cli_bad("did you mean --%s?", best)
	            : cli_bad("%s", "invalid option");
}

static int
bad_command(const char *c)
{
	const char *best = NULL;
	size_t i, bestd = SUGGEST_MAX + 1;
	char msg[256];

	for (i = 0; i < NCOMMANDS; i++)
		cli_suggest(c, strlen(c), commands[i], &best, &bestd);
	snprintf(msg, sizeof(msg), "unknown command '%.100s'%s%s%s", c,
	    best ? "; did you mean " : "", best ? best : "", best ? "?" : "");
	return cli_bad("%s", msg);
}

/* How many arguments after it the option arg takes: 0 or 1. */
static int
option_args(const char *arg)
{
	const struct option *o, *found = NULL;
	const char *s;
	size_t n, i;

	/* a cluster ("-vj", "-j4"): an option with an argument ends it */
	for (i = 1; arg[1] != '-' && arg[i] != '\0'; i++) {
		s = strchr(shortopts, arg[i]);
		if (arg[i] != ':' && s != NULL && s[1] == ':')
			return arg[i + 1] == '\0';
	}
	if (arg[1] != '-')
		return 0;
	n = strcspn(arg + 2, "=");
	if (arg[2 + n] == '=')
		return 0;
	/* an exact name, else the first it begins (getopt_long's rule) */
	for (o = longopts; o->name != NULL; o++) {
		if (strncmp(o->name, arg + 2, n) != 0)
			continue;
		if (o->name[n] == '\0')
			return o->has_arg == required_argument;
		if (found == NULL)
			found = o;
	}
	return found != NULL && found->has_arg == required_argument;
}

/*
 * Whether argv has --json (or a prefix of it that getopt_long() takes for
 * it) as an option, before any "--".
 */
static int
json_asked(int argc, char **argv)
{
	size_t n;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			continue;
		n = strlen(argv[i]);
		/* "--j" alone is also --jobs */
		if (n >= 4 && n <= 6 && strncmp(argv[i], "--json", n) == 0)
			return 1;
		i += option_args(argv[i]);
	}
	return 0;
}

/*
 * "ferry --profile p sync SRC DST": moves the command word, the first
 * argument that is not an option or an option's argument, to argv[1],
 * so that the options before it count as if after it.
 */
static void
command_first(int argc, char **argv)
{
	char *word;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0';
	     i += 1 + option_args(argv[i]))
		if (strcmp(argv[i], "--") == 0)
			return;
	if (i <= 1 || i >= argc)
		return;
	word = argv[i];
	memmove(&argv[2], &argv[1], (size_t)(i - 1) * sizeof(*argv));
	argv[1] = word;
}

/*
 * "ferry help [COMMAND]": the command's manual page, by man(1), which
 * does not return; an exit status if it could not be shown.  Without
 * man, the short help stands in.
 */
static int
help_command(int argc, char **argv)
{
	char page[32];

	if (argc < 3) {
		usage(stdout, NULL);
		return EXIT_SYNCED;
	}
	if (argc > 3)
		return cli_bad("%s", "help takes one command");
	if (command_of(argv[2]) == SYNC_CMD_NONE)
		return bad_command(argv[2]);
	snprintf(page, sizeof(page), "ferry-%s", argv[2]);
	fflush(stdout);
	execlp("man", "man", page, (char *)NULL);
	log_error("could not run man (%s); the short help of %s follows",
	    strerror(errno), argv[2]);
	usage(stdout, argv[2]);
	return EXIT_SYNCED;
}

int
cli_parse(int argc, char **argv, struct sync_opts *o)
{
	int c, rc;

	memset(o, 0, sizeof(*o));
	remote_store_init(&o->store);
	o->jobs = REMOTE_JOBS_START;
	o->part_size = 0;
	o->multipart_threshold = 8ULL << 20;
	o->copy_threshold = REMOTE_MAX_COPY + 1;
	o->memory = 256ULL << 20;
	o->max_delete_pct = 50;
	o->max_size = UINT64_MAX;
	o->min_age = o->max_age = -1;
	o->watch_settle = 2;
	o->watch_rescan = 3600;
	o->watch_interval = -1; /* 30s, once known to be given or not */
	cli_usage_json = json_asked(argc, argv);
	if (argc >= 2)
		command_first(argc, argv);
	if (argc < 2 || argv[1][0] == '-') {
		optind = 1;
		while (
		    (c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1)
			if (c == 'h' || c == OPT_VERSION)
				return take_option(o, c, optarg);
		return cli_bad("%s", "a command is needed: sync, plan, apply, "
		                     "verify, ls or manifest");
	}
	o->command = argv[1];
	if (strcmp(o->command, "help") == 0)
		return help_command(argc, argv);
	if ((o->cmd = command_of(o->command)) == SYNC_CMD_NONE)
		return bad_command(o->command);
	optind = 2;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?')
			return bad_option(argv[optind - 1]);
		if ((rc = take_option(o, c, optarg)) >= 0)
			return rc;
	}
	if ((rc = check_sizes(o)) >= 0)
		return rc;
	if (o->versions && o->cmd != SYNC_CMD_LS && o->cmd != SYNC_CMD_MANIFEST)
		return cli_bad("%s", "--versions: only ls and manifest info "
		                     "list versions");
	if (o->sample_pct > 0 && o->cmd != SYNC_CMD_VERIFY)
		return cli_bad("%s",
		    "--full and --sample: only verify re-reads "
		    "what it checks");
	/* a plan is a dry run's JSON lines */
	if (o->cmd == SYNC_CMD_PLAN)
		o->dry_run = o->json = 1;
	o->remote.max_connections = o->jobs;
	/* without --jobs, a controller finds how many the path takes */
	if (!o->jobs_fixed)
		o->remote.max_connections = remote_concur_cap(o->memory);
	o->remote.adaptive = !o->jobs_fixed;
	/* without --source-* flags, the plain ones describe both sides */
	if (!o->src_given)
		o->src_remote = o->remote;
	o->src_remote.max_connections = o->remote.max_connections;
	o->src_remote.adaptive = o->remote.adaptive;
	o->src_remote.retries = o->remote.retries;
	o->src_remote.read_timeout = o->remote.read_timeout;
	o->src_remote.stall_timeout = o->remote.stall_timeout;
	o->src_remote.no_verify_ssl = o->remote.no_verify_ssl;
	o->src_remote.path_style = o->remote.path_style;
	log_level = o->quiet ? LOG_ERROR : LOG_WARN + o->verbose;
	/* ls has no manifest and syncs nothing: no shard */
	if ((o->split || o->split_prefix) && o->cmd != SYNC_CMD_PLAN)
		return cli_bad("%s", "--split and --split-prefix are plan's");
	if (o->split_prefix && !o->split)
		return cli_bad("%s", "--split-prefix goes with --split N");
	if (o->cmd == SYNC_CMD_LS && (o->shard_arg || o->shards_arg))
		return cli_bad("%s",
		    "ls lists every key: --shard and --shards do "
		    "not apply to it");
	if (o->cmd != SYNC_CMD_LS &&
	    shard_from_env(o->shard_arg, o->shards_arg, &o->shard) != FERRY_OK)
		return cli_bad("%s", ferry_errmsg());
	if (o->ranges && o->cmd != SYNC_CMD_LS)
		return cli_bad("%s", "--ranges is an option of ls");
	if (o->metrics_file && o->cmd != SYNC_CMD_SYNC &&
	    o->cmd != SYNC_CMD_APPLY)
		return cli_bad("%s", "--metrics-file: only sync and apply, "
		                     "which transfer, write metrics");
	if (shard_ranges_load(&o->shard, o->shard_ranges_arg) != FERRY_OK)
		return cli_bad("%s", ferry_errmsg());
	if ((rc = take_operands(o, argc, argv, optind)) >= 0 ||
	    (rc = check_watch(o)) >= 0)
		return rc;
	if ((rc = cli_check_backup(o)) >= 0)
		return rc;
	return cli_store_check(o) == FERRY_OK ? -1
	                                      : cli_bad("%s", ferry_errmsg());
}

void
cli_clear(struct sync_opts *o)
{
	filter_free(o->filter);
	o->filter = NULL;
	remote_store_clear(&o->store);
	shard_clear(&o->shard);
	remote_loc_clear(&o->backup);
	free(o->backup_path);
	o->backup_path = NULL;
}
