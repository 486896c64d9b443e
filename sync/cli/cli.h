/*
 * cli.h: the face of sync/cli/, which owns the command line: options
 * parsed once into a read-only struct sync_opts (sync/run/opts.h), their
 * arguments checked, and the run's direction resolved.
 */
#ifndef FERRY_SYNC_CLI_H
#define FERRY_SYNC_CLI_H

#include "sync/run/run.h"

/*
 * Parses argv into opts.  Returns -1 to go on, or an exit status (0 after
 * --help, EXIT_USAGE after a message) to stop with.  argv is reordered:
 * the command word goes first, before options that preceded it, and
 * getopt_long() permutes the rest.
 */
int cli_parse(int argc, char **argv, struct sync_opts *opts);
/* Frees what cli_parse() allocated in opts; opts may be NULL. */
void cli_clear(struct sync_opts *opts);

#endif
