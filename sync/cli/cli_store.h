/*
 * cli_store.h: the options of where and how objects are stored, and of
 * bandwidth and courtesy to the server, as cli.c takes them.  Private to
 * sync/.
 */
#ifndef FERRY_SYNC_CLI_STORE_H
#define FERRY_SYNC_CLI_STORE_H

#include <stdio.h>

#include "sync/run/run.h"

/* Their getopt_long() values, after cli.c's own. */
enum {
	OPT_STORAGE_CLASS = 512,
	OPT_SSE,
	OPT_SSE_KMS_KEY_ID,
	OPT_SSE_C_KEY,
	OPT_ACL,
	OPT_TAGS,
	OPT_CACHE_CONTROL,
	OPT_CONTENT_TYPE,
	OPT_METADATA,
	OPT_METADATA_DIRECTIVE,
	OPT_BWLIMIT,
	OPT_NO_SIGN_REQUEST,
	OPT_REQUEST_PAYER
};

/* Their entries of cli.c's longopts. */
#define CLI_STORE_LONGOPTS                                                     \
	{"storage-class", required_argument, NULL, OPT_STORAGE_CLASS},         \
	    {"sse", required_argument, NULL, OPT_SSE},                         \
	    {"sse-kms-key-id", required_argument, NULL, OPT_SSE_KMS_KEY_ID},   \
	    {"sse-c-key", required_argument, NULL, OPT_SSE_C_KEY},             \
	    {"acl", required_argument, NULL, OPT_ACL},                         \
	    {"tags", required_argument, NULL, OPT_TAGS},                       \
	    {"cache-control", required_argument, NULL, OPT_CACHE_CONTROL},     \
	    {"content-type", required_argument, NULL, OPT_CONTENT_TYPE},       \
	    {"metadata", required_argument, NULL, OPT_METADATA},               \
	    {"metadata-directive", required_argument, NULL,                    \
	        OPT_METADATA_DIRECTIVE},                                       \
	    {"bwlimit", required_argument, NULL, OPT_BWLIMIT},                 \
	    {"no-sign-request", no_argument, NULL, OPT_NO_SIGN_REQUEST},       \
	{                                                                      \
		"request-payer", optional_argument, NULL, OPT_REQUEST_PAYER    \
	}

/* Their part of the help. */
extern const char cli_store_help[];

/*
 * Takes option c (one of the above) with arg into o.  Returns FERRY_OK,
 * or FERRY_EUSAGE with the reason in ferry_errmsg().
 */
ferry_err cli_store_take(struct sync_opts *o, int c, const char *arg) FERRY_WUR;
/*
 * Once all options are read: checks them together, against the run's
 * sides, and gives both sides what concerns them.  As cli_store_take().
 */
ferry_err cli_store_check(struct sync_opts *o) FERRY_WUR;

#endif
