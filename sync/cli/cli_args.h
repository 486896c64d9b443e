/*
 * cli_args.h: what cli.c's options share: the usage error, the parsers of
 * option arguments, and the word distance behind "did you mean".  Private
 * to sync/.
 */
#ifndef FERRY_SYNC_CLI_ARGS_H
#define FERRY_SYNC_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "sync/run/run.h"

/* Edits at most between a word and a name offered in its place. */
#define SUGGEST_MAX 2

/*
 * Whether the command line has --json, set before it is parsed so that a
 * usage error is told as a JSON line too.  Read-only once set.
 */
extern int cli_usage_json;

/*
 * Reports the usage error fmt (one %s: arg) on stderr, and as a JSON line
 * with --json.  Returns EXIT_USAGE.
 */
int cli_bad(const char *fmt, const char *arg);
/*
 * The parsers of option arguments: each stores what arg says in *out (or
 * o) and returns -1, or reports why not and returns EXIT_USAGE.
 */
int cli_take_size(const char *arg, uint64_t *out);
/* A count from 1 to max. */
int cli_take_count(const char *arg, unsigned *out, unsigned max);
/* --stall-timeout: seconds, or 0 for never (-1 to remote). */
int cli_take_stall(const char *arg, int *out);
/* --min-age, --max-age: seconds, or a count of s, m, h, d or w. */
int cli_take_age(const char *arg, int64_t *out);
/* --max-delete: "N" (a count) or "N%" (of the destination's objects). */
int cli_take_max_delete(struct sync_opts *o, const char *arg);
/* --sample P%: a share of the objects, above 0 and at most 100. */
int cli_take_sample(struct sync_opts *o, const char *arg);
/*
 * Checks --links, --links-outside and --keep-dirs against the other
 * options and the run's way (o->way):
 * -1, or EXIT_USAGE after a message.
 */
int cli_check_posix(const struct sync_opts *o);
/*
 * cli_backup.c: checks --backup-dir against the command and the run's
 * sides, and resolves it into o->backup (a push, a mirror) or
 * o->backup_path (a pull), under the date of now: -1, or EXIT_USAGE
 * after a message.
 */
int cli_check_backup(struct sync_opts *o);
/*
 * The edit distance between a[0..an) and b, or SUGGEST_MAX + 1 when it is
 * larger or the words are too long to be worth a suggestion.
 */
size_t cli_distance(const char *a, size_t an, const char *b);
/* Keeps in *best the name closer to word[0..n) than *bestd edits. */
void cli_suggest(const char *word, size_t n, const char *name,
    const char **best, size_t *bestd);

#endif
