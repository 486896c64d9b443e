/*
 * config_endpoint.c: where the region and the endpoint come from: flags,
 * the environment, the profile and its services section.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote/config.h"
#include "remote/config_internal.h"
#include "remote/url.h"

#define DEFAULT_REGION "us-east-1"

/* Region names go into host names and the signing scope. */
int
region_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		        (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		        s[i] == '_'))
			return 0;
	return i > 0 && i <= 63;
}

ferry_err
config_region_resolve(const struct resolve *r, struct config *c)
{
	const char *v = r->f->region;

	if (v == NULL)
		v = config_env_get(r, "AWS_REGION");
	if (v == NULL)
		v = config_env_get(r, "AWS_DEFAULT_REGION");
	if (v == NULL)
		v = config_profile_get(r, "region");
	if (v == NULL)
		v = DEFAULT_REGION;
	if (!region_valid(v))
		return ferry_fail(FERRY_EUSAGE,
		    "invalid region '%s' (expected letters, digits, '-' or "
		    "'_')",
		    v);
	if ((c->region = strdup(v)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

/*
 * The "services" key of a profile names a "[services NAME]" section of
 * the config file whose service block ("s3 =", "sts =") may set
 * endpoint_url: key is "s3.endpoint_url" or "sts.endpoint_url".
 */
static ferry_err
services_endpoint(const struct resolve *r, const char *key, const char **v)
{
	const char *name = config_profile_get(r, "services");
	ferry_err e = FERRY_OK;
	char *sec;

	*v = NULL;
	if (name == NULL)
		return FERRY_OK;
	if ((sec = config_concat("services ", name)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (!ini_has_section(r->conf, sec))
		e = ferry_fail(FERRY_EUSAGE,
		    "profile '%s' uses services section '%s', which is not in "
		    "%s",
		    r->profile, name, r->conf_path ? r->conf_path : "(none)");
	else
		*v = config_nonempty(ini_get(r->conf, sec, key));
	free(sec);
	return e;
}

/*
 * The endpoint of one service set outside the command line, in the AWS
 * CLI's order: the service's variable (env: AWS_ENDPOINT_URL_S3),
 * AWS_ENDPOINT_URL, the services section, then the profile (its service
 * block, key: "s3.endpoint_url", before its own endpoint_url).  *v stays
 * NULL when nothing is set or ignore_configured_endpoint_urls is true.
 */
ferry_err
config_endpoint_configured(const struct resolve *r, const char *env,
    const char *key, const char **v, const char **src)
{
	const char *ign =
	    config_env_get(r, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
	ferry_err e;

	*v = NULL;
	if (ign == NULL)
		ign = config_profile_get(r, "ignore_configured_endpoint_urls");
	if (ign != NULL && strcasecmp(ign, "true") == 0)
		return FERRY_OK;
	*src = env;
	if ((*v = config_env_get(r, env)) != NULL)
		return FERRY_OK;
	*src = "AWS_ENDPOINT_URL";
	if ((*v = config_env_get(r, "AWS_ENDPOINT_URL")) != NULL)
		return FERRY_OK;
	*src = "the profile";
	if ((e = services_endpoint(r, key, v)) != FERRY_OK || *v != NULL)
		return e;
	if ((*v = config_profile_get(r, key)) == NULL)
		*v = config_profile_get(r, "endpoint_url");
	return FERRY_OK;
}

/* Formats ep as "scheme://host[:port]", the port only when not default. */
ferry_err
config_endpoint_format(const struct endpoint *ep, char **out)
{
	size_t n = strlen(ep->scheme) + strlen(ep->host) + 16;
	unsigned def = ep->https ? 443 : 80;

	if ((*out = malloc(n)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (ep->port == def)
		snprintf(*out, n, "%s://%s", ep->scheme, ep->host);
	else
		snprintf(*out, n, "%s://%s:%u", ep->scheme, ep->host, ep->port);
	return FERRY_OK;
}

/*
 * Whether buckets go in the path: asked for (--path-style, or
 * addressing_style = path); else for a literal IP address, where a
 * bucket cannot prefix the host; else, unless addressing_style =
 * virtual says otherwise, for "localhost" (a local server seldom answers
 * for bucket.localhost, though libcurl sends *.localhost to loopback).
 */
static int
path_style(int flag, const char *style, const struct endpoint *ep)
{
	int local = strcasecmp(ep->host, "localhost") == 0;

	if (flag || (style != NULL && strcasecmp(style, "path") == 0))
		return 1;
	if (ep->host_is_ip && !local)
		return 1;
	return local && (style == NULL || strcasecmp(style, "virtual") != 0);
}

/* Sets c->endpoint and c->path_style; c->region must be set. */
ferry_err
config_endpoint_resolve(const struct resolve *r, struct config *c)
{
	const char *v = r->f->endpoint_url, *src = "--endpoint-url", *style;
	char def[128], why[768];
	struct endpoint ep;
	ferry_err e;

	if (v == NULL &&
	    (e = config_endpoint_configured(r, "AWS_ENDPOINT_URL_S3",
	         "s3.endpoint_url", &v, &src)) != FERRY_OK)
		return e;
	if (v == NULL) {
		/* China regions live under their own domain. */
		snprintf(def, sizeof(def), "https://s3.%s.amazonaws.com%s",
		    c->region, strncmp(c->region, "cn-", 3) == 0 ? ".cn" : "");
		v = def;
		src = "the region";
	}
	if ((e = endpoint_parse(v, &ep)) != FERRY_OK) {
		if (e != FERRY_EUSAGE)
			return e;
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(e, "%s (set by %s)", why, src);
	}
	style = config_profile_get(r, "s3.addressing_style");
	c->path_style = path_style(r->f->path_style, style, &ep);
	e = config_endpoint_format(&ep, &c->endpoint);
	endpoint_clear(&ep);
	return e;
}
