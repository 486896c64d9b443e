/*
 * config_internal.h: what config.c and config_endpoint.c share about one
 * config_resolve() call.  Private to remote/.
 */
#ifndef FERRY_REMOTE_CONFIG_INTERNAL_H
#define FERRY_REMOTE_CONFIG_INTERNAL_H

#include "common/common.h"
#include "remote/config.h"
#include "remote/url.h"

/* State of one config_resolve() call. */
struct resolve {
	const struct config_flags *f;
	const char *(*env)(const char *);
	const char *profile;
	char *cred_path; /* NULL: no file (no HOME) */
	char *conf_path;
	struct ini *cred;
	struct ini *conf;
	char *conf_section; /* "profile NAME" */
	int depth;          /* source_profile links followed to get here */
	int self;           /* a role's source_profile naming its own */
};

/* An environment variable, NULL when unset or empty. */
const char *config_env_get(const struct resolve *r, const char *name);
/* A profile setting: the credentials file first, then the config file. */
const char *config_profile_get(const struct resolve *r, const char *key);
/* An unset and an empty value mean the same, as for the AWS CLI. */
const char *config_nonempty(const char *v);
/* a followed by b, malloc'd; NULL when out of memory. */
char *config_concat(const char *a, const char *b);

/* Sets c->region from the flags, the environment or the profile. */
ferry_err config_region_resolve(
    const struct resolve *r, struct config *c) FERRY_WUR;
/* Sets c->endpoint and c->path_style; c->region must be set. */
ferry_err config_endpoint_resolve(
    const struct resolve *r, struct config *c) FERRY_WUR;
/*
 * The endpoint of one service set outside the command line, in the AWS
 * CLI's order (config_endpoint.c says which); *v stays NULL when nothing
 * is set, *src names where it came from.
 */
ferry_err config_endpoint_configured(const struct resolve *r, const char *env,
    const char *key, const char **v, const char **src) FERRY_WUR;
/* Formats ep as "scheme://host[:port]", the port only when not default. */
ferry_err config_endpoint_format(
    const struct endpoint *ep, char **out) FERRY_WUR;

#endif
