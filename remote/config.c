/*
 * config.c: where endpoint, region and credentials come from: flags, the
 * environment and the profiles of the shared files, in the order the AWS
 * CLI v2 uses.  Credentials that are fetched (a credential_process, the
 * instance metadata service) are only located here; remote/creds.c
 * fetches them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "remote/config.h"
#include "remote/config_internal.h"
#include "remote/creds.h"
#include "remote/creds_http.h"
#include "remote/url.h"

/* How many source_profile links a chain of roles may follow. */
#define ROLE_CHAIN_MAX 5

static const char *
real_getenv(const char *name)
{
	return getenv(name);
}

/* An unset and an empty value mean the same, as for the AWS CLI. */
const char *
config_nonempty(const char *v)
{
	return v != NULL && *v != '\0' ? v : NULL;
}

const char *
config_env_get(const struct resolve *r, const char *name)
{
	return config_nonempty(r->env(name));
}

/* Looks key up in the profile's section of the config file. */
static const char *
conf_get(const struct resolve *r, const char *key)
{
	const char *v = ini_get(r->conf, r->conf_section, key);

	/* The default profile is "[default]" or "[profile default]". */
	if (v == NULL && strcmp(r->profile, "default") == 0)
		v = ini_get(r->conf, "default", key);
	return config_nonempty(v);
}

/* A profile setting: the credentials file first, then the config file. */
const char *
config_profile_get(const struct resolve *r, const char *key)
{
	const char *v = config_nonempty(ini_get(r->cred, r->profile, key));

	return v ? v : conf_get(r, key);
}

char *
config_concat(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s;

	if ((s = malloc(na + nb + 1)) == NULL)
		return NULL;
	memcpy(s, a, na);
	memcpy(s + na, b, nb + 1);
	return s;
}

/*
 * Sets *out to the file named by env (a leading "~/" meaning HOME), else
 * to HOME/.aws/leaf, else NULL when there is no HOME.
 */
static ferry_err
file_path(
    const struct resolve *r, const char *env, const char *leaf, char **out)
{
	const char *v = config_env_get(r, env),
	           *home = config_env_get(r, "HOME");

	*out = NULL;
	if (v != NULL && home != NULL && strncmp(v, "~/", 2) == 0)
		*out = config_concat(home, v + 1);
	else if (v != NULL)
		*out = strdup(v);
	else if (home != NULL)
		*out = config_concat(home, leaf);
	else
		return FERRY_OK;
	return *out ? FERRY_OK : ferry_fail(FERRY_ENOMEM, "out of memory");
}

/* Loads path into *ini; a missing file leaves *ini NULL. */
static ferry_err
load_file(const char *path, struct ini **ini)
{
	char why[768];
	ferry_err e;

	*ini = NULL;
	if (path == NULL)
		return FERRY_OK;
	e = ini_load(path, ini);
	if (e == FERRY_OK || e == FERRY_ENOMEM)
		return e;
	if (e == FERRY_ENOTFOUND)
		return FERRY_OK;
	/* The detail already names the file and the line. */
	snprintf(why, sizeof(why), "%s", ferry_errmsg());
	return ferry_fail(FERRY_EUSAGE, "%s", why);
}

/* Non-zero when r's profile has a section in either file. */
static int
profile_exists(const struct resolve *r)
{
	return ini_has_section(r->cred, r->profile) ||
	       ini_has_section(r->conf, r->conf_section) ||
	       (strcmp(r->profile, "default") == 0 &&
	           ini_has_section(r->conf, "default"));
}

/*
 * The AWS tools read only [default], [profile NAME], [sso-session NAME]
 * and [services NAME] in the config file: a [NAME] written for a profile
 * is ignored, by them and by ferry.  Non-zero, with the words that say so
 * in why (n bytes), when the profile was named and has such a section.
 */
static int
ignored_section(const struct resolve *r, int named, char *why, size_t n)
{
	if (!named || strcmp(r->profile, "default") == 0 ||
	    !ini_has_section(r->conf, r->profile) ||
	    ini_has_section(r->conf, r->conf_section))
		return 0;
	snprintf(why, n,
	    "; the config file %.256s has a section [%.64s], which the AWS "
	    "tools "
	    "ignore; did you mean [profile %.64s]?",
	    r->conf_path, r->profile, r->profile);
	return 1;
}

/* Chooses the profile, loads both files and checks the profile exists. */
static ferry_err
open_files(struct resolve *r, struct config *c)
{
	const char *env_profile = config_env_get(r, "AWS_PROFILE");
	char why[512];
	int ignored;
	ferry_err e;

	if (r->f->profile != NULL && r->f->profile[0] == '\0')
		return ferry_fail(FERRY_EUSAGE, "empty --profile name");
	r->profile = r->f->profile ? r->f->profile
	             : env_profile ? env_profile
	                           : "default";
	if ((r->conf_section = config_concat("profile ", r->profile)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = file_path(r, "AWS_SHARED_CREDENTIALS_FILE",
	         "/.aws/credentials", &r->cred_path)) != FERRY_OK ||
	    (e = file_path(r, "AWS_CONFIG_FILE", "/.aws/config",
	         &r->conf_path)) != FERRY_OK)
		return e;
	if ((e = load_file(r->cred_path, &r->cred)) != FERRY_OK ||
	    (e = load_file(r->conf_path, &r->conf)) != FERRY_OK)
		return e;
	ignored =
	    ignored_section(r, r->f->profile || env_profile, why, sizeof(why));
	if ((r->f->profile || env_profile) && !profile_exists(r))
		return ferry_fail(FERRY_EUSAGE,
		    "profile '%s' not found in %s or %s%s", r->profile,
		    r->cred_path ? r->cred_path : "~/.aws/credentials",
		    r->conf_path ? r->conf_path : "~/.aws/config",
		    ignored ? why : "");
	/* found elsewhere (the credentials file): a warning, less "; " */
	if (ignored && (c->warning = strdup(why + 2)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

/* Whether s is printable ASCII, a space allowed only when blank_ok. */
static int
printable(const char *s, int blank_ok)
{
	for (; *s != '\0'; s++)
		if (*s < (blank_ok ? ' ' : '!') || *s > '~')
			return 0;
	return 1;
}

ferry_err
config_keys_check(const char *ak, const char *sk, const char *tok)
{
	/* the key id goes on the wire in Authorization, the token in a
	 * header of its own, the secret into HMAC: all as text */
	if (!printable(ak, 0))
		return ferry_fail(FERRY_EPARSE,
		    "the access key id holds a byte that is not printable "
		    "ASCII, or a blank");
	if (!printable(sk, 1))
		return ferry_fail(FERRY_EPARSE,
		    "the secret access key holds a byte that is not "
		    "printable ASCII");
	if (tok != NULL && !printable(tok, 1))
		return ferry_fail(FERRY_EPARSE,
		    "the session token holds a byte that is not printable "
		    "ASCII");
	return FERRY_OK;
}

ferry_err
config_keys_set(
    struct config_keys *k, const char *ak, const char *sk, const char *tok)
{
	ferry_err e;

	config_keys_clear(k);
	if ((e = config_keys_check(ak, sk, tok)) != FERRY_OK)
		return e;
	k->access_key = strdup(ak);
	k->secret_key = strdup(sk);
	k->session_token = xstrdup(tok);
	if (k->access_key != NULL && k->secret_key != NULL &&
	    (tok == NULL || k->session_token != NULL))
		return FERRY_OK;
	config_keys_clear(k);
	return ferry_fail(FERRY_ENOMEM, "out of memory");
}

void
config_keys_clear(struct config_keys *k)
{
	if (k == NULL)
		return;
	free(k->access_key);
	free_secret(k->secret_key);
	free_secret(k->session_token);
	memset(k, 0, sizeof(*k));
}

/* config_keys_set(), a refusal naming where the keys were read. */
static ferry_err
keys_from(struct config_keys *k, const char *ak, const char *sk,
    const char *tok, const char *where)
{
	char why[256];
	ferry_err e;

	if ((e = config_keys_set(k, ak, sk, tok)) != FERRY_EPARSE)
		return e;
	snprintf(why, sizeof(why), "%s", ferry_errmsg());
	return ferry_fail(FERRY_EUSAGE, "%s: %s", where, why);
}

/* Keys from the environment; *found when AWS_ACCESS_KEY_ID is set. */
static ferry_err
env_creds(const struct resolve *r, struct config *c, int *found)
{
	const char *ak = config_env_get(r, "AWS_ACCESS_KEY_ID");
	const char *sk = config_env_get(r, "AWS_SECRET_ACCESS_KEY");
	const char *tok = config_env_get(r, "AWS_SESSION_TOKEN");

	*found = ak != NULL;
	if (ak == NULL)
		return FERRY_OK;
	if (sk == NULL)
		return ferry_fail(FERRY_EUSAGE, "AWS_ACCESS_KEY_ID is set but "
		                                "AWS_SECRET_ACCESS_KEY is not");
	if (tok == NULL)
		tok = config_env_get(r, "AWS_SECURITY_TOKEN");
	return keys_from(&c->keys, ak, sk, tok,
	    "the environment's AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or "
	    "AWS_SESSION_TOKEN");
}

/* A setting of the profile in the credentials file only. */
static const char *
cred_get(const struct resolve *r, const char *key)
{
	return config_nonempty(ini_get(r->cred, r->profile, key));
}

/* Keys from one file, read through get; *found when it had a key id. */
static ferry_err
file_creds(const struct resolve *r,
    const char *(*get)(const struct resolve *, const char *), const char *path,
    struct config *c, int *found)
{
	const char *ak = get(r, "aws_access_key_id");
	const char *sk = get(r, "aws_secret_access_key");
	const char *tok = get(r, "aws_session_token");
	char where[1024];

	*found = ak != NULL;
	if (ak == NULL && sk == NULL)
		return FERRY_OK;
	if (ak == NULL || sk == NULL)
		return ferry_fail(FERRY_EUSAGE,
		    "profile '%s' in %s has %s but no %s", r->profile, path,
		    ak ? "aws_access_key_id" : "aws_secret_access_key",
		    ak ? "aws_secret_access_key" : "aws_access_key_id");
	if (tok == NULL)
		tok = get(r, "aws_security_token");
	snprintf(where, sizeof(where), "profile '%s' in %s", r->profile,
	    path ? path : "the shared files");
	return keys_from(&c->keys, ak, sk, tok, where);
}

static ferry_err
unsupported(const struct resolve *r, const char *what)
{
	return ferry_fail(FERRY_EUSAGE,
	    "profile '%s' gets credentials through %s, which ferry does not "
	    "support yet; set aws_access_key_id and aws_secret_access_key "
	    "(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)",
	    r->profile, what);
}

/*
 * A whole number from env, else from the profile's key (NULL: none),
 * else def; FERRY_EUSAGE when it is not in [min, max].
 */
static ferry_err
int_setting(const struct resolve *r, const char *env, const char *key, long min,
    long max, long def, long *out)
{
	const char *v = config_env_get(r, env), *name = env;
	char *end;

	if (v == NULL && key != NULL) {
		v = config_profile_get(r, key);
		name = key;
	}
	*out = def;
	if (v == NULL)
		return FERRY_OK;
	errno = 0;
	*out = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || *out < min || *out > max)
		return ferry_fail(FERRY_EUSAGE,
		    "invalid %s '%s' (expected a whole number from %ld to %ld)",
		    name, v, min, max);
	return FERRY_OK;
}

/* The profile's credential_process, run later by the client. */
static ferry_err
process_creds(const struct resolve *r, const char *cmd, struct config *c)
{
	long t;
	ferry_err e;

	c->source = CONFIG_PROCESS;
	if ((c->credential_process = strdup(cmd)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	e = int_setting(
	    r, "FERRY_CREDENTIAL_PROCESS_TIMEOUT", NULL, 1, 3600, 60, &t);
	c->process_timeout = (int)t;
	return e;
}

/* The instance metadata service, asked later by the client. */
static ferry_err
imds_creds(const struct resolve *r, struct config *c)
{
	const char *off = config_env_get(r, "AWS_EC2_METADATA_DISABLED");
	const char *v = config_env_get(r, "AWS_EC2_METADATA_SERVICE_ENDPOINT");
	struct endpoint ep;
	char why[768];
	long t, n;
	ferry_err e;

	if (off != NULL && strcasecmp(off, "true") == 0)
		return ferry_fail(FERRY_ECREDS,
		    "%s (profile '%s'); the instance metadata service is "
		    "disabled by AWS_EC2_METADATA_DISABLED",
		    CONFIG_NO_CREDS, r->profile);
	if (v == NULL)
		v = config_profile_get(r, "ec2_metadata_service_endpoint");
	if ((e = endpoint_parse(v ? v : CONFIG_IMDS_ENDPOINT, &ep)) !=
	    FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(e, "metadata service endpoint: %s", why);
	}
	e = config_endpoint_format(&ep, &c->imds_endpoint);
	endpoint_clear(&ep);
	c->source = CONFIG_IMDS;
	if (e != FERRY_OK ||
	    (e = int_setting(r, "AWS_METADATA_SERVICE_TIMEOUT",
	         "metadata_service_timeout", 1, 60, 1, &t)) != FERRY_OK ||
	    (e = int_setting(r, "AWS_METADATA_SERVICE_NUM_ATTEMPTS",
	         "metadata_service_num_attempts", 1, 10, 2, &n)) != FERRY_OK)
		return e;
	c->imds_timeout_ms = t * 1000;
	c->imds_attempts = (unsigned)n;
	return FERRY_OK;
}

/* Sets *out to a copy of v (NULL stays NULL). */
static ferry_err
dup_opt(const char *v, char **out)
{
	if (v != NULL && (*out = strdup(v)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

/* The container credentials endpoint; *found when one is set. */
static ferry_err
container_creds(const struct resolve *r, struct config *c, int *found)
{
	const char *rel =
	    config_env_get(r, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
	const char *full =
	    config_env_get(r, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
	const char *tok =
	    config_env_get(r, "AWS_CONTAINER_AUTHORIZATION_TOKEN");
	const char *tf =
	    config_env_get(r, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	ferry_err e;

	if (!(*found = rel != NULL || full != NULL))
		return FERRY_OK;
	if (rel != NULL && rel[0] != '/')
		return ferry_fail(FERRY_EUSAGE,
		    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI does not start "
		    "with '/'");
	if (rel == NULL && !creds_container_url_ok(full))
		return ferry_fail(FERRY_EUSAGE,
		    "AWS_CONTAINER_CREDENTIALS_FULL_URI is neither https nor "
		    "http to a loopback address, 169.254.170.2, "
		    "169.254.170.23 or fd00:ec2::23");
	if (tf == NULL && tok != NULL && !creds_token_ok(tok, strlen(tok)))
		return ferry_fail(FERRY_EUSAGE,
		    "AWS_CONTAINER_AUTHORIZATION_TOKEN is not one printable "
		    "line");
	c->source = CONFIG_CONTAINER;
	c->container_url =
	    rel ? config_concat(CONFIG_CONTAINER_ENDPOINT, rel) : strdup(full);
	if (c->container_url == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = dup_opt(tf, &c->container_token_file)) != FERRY_OK)
		return e;
	return tf ? FERRY_OK : dup_opt(tok, &c->container_token);
}

/*
 * Where STS is, and the region its requests are signed for: set as the S3
 * endpoint is, else the region's (the global one when
 * sts_regional_endpoints is "legacy").  c->region must be set.
 */
static ferry_err
resolve_sts(const struct resolve *r, struct config *c)
{
	const char *v, *src = "the region", *sign = c->region, *mode;
	char def[128], why[768];
	struct endpoint ep;
	ferry_err e;

	if ((e = config_endpoint_configured(r, "AWS_ENDPOINT_URL_STS",
	         "sts.endpoint_url", &v, &src)) != FERRY_OK)
		return e;
	if ((mode = config_env_get(r, "AWS_STS_REGIONAL_ENDPOINTS")) == NULL)
		mode = config_profile_get(r, "sts_regional_endpoints");
	if (v == NULL && mode != NULL && strcasecmp(mode, "legacy") == 0) {
		v = "https://sts.amazonaws.com";
		sign = "us-east-1";
	} else if (v == NULL) {
		snprintf(def, sizeof(def), "https://sts.%s.amazonaws.com%s",
		    c->region, strncmp(c->region, "cn-", 3) == 0 ? ".cn" : "");
		v = def;
	}
	if ((e = endpoint_parse(v, &ep)) != FERRY_OK) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(e, "STS endpoint: %s (set by %s)", why, src);
	}
	e = config_endpoint_format(&ep, &c->sts_endpoint);
	endpoint_clear(&ep);
	if (e == FERRY_OK)
		e = dup_opt(sign, &c->sts_region);
	return e;
}

/* The role_arn, role_session_name and STS of a role to assume. */
static ferry_err
role_settings(const struct resolve *r, const char *arn, const char *name,
    struct config *c)
{
	ferry_err e;

	if ((e = dup_opt(arn, &c->role_arn)) != FERRY_OK ||
	    (e = dup_opt(name, &c->role_session_name)) != FERRY_OK)
		return e;
	return resolve_sts(r, c);
}

/*
 * Web identity, with the token in file: the role from AWS_ROLE_ARN, else
 * the profile's role_arn (from the profile only within a chain of roles).
 */
static ferry_err
web_identity_creds(const struct resolve *r, const char *file, struct config *c)
{
	const char *arn = r->depth ? NULL : config_env_get(r, "AWS_ROLE_ARN");
	const char *name =
	    r->depth ? NULL : config_env_get(r, "AWS_ROLE_SESSION_NAME");
	ferry_err e;

	if (arn == NULL)
		arn = config_profile_get(r, "role_arn");
	if (name == NULL)
		name = config_profile_get(r, "role_session_name");
	if (arn == NULL)
		return ferry_fail(FERRY_EUSAGE,
		    "a web identity token file is set for profile '%s' but no "
		    "role: set AWS_ROLE_ARN or role_arn",
		    r->profile);
	c->source = CONFIG_WEB_IDENTITY;
	if ((e = dup_opt(file, &c->token_file)) != FERRY_OK)
		return e;
	return role_settings(r, arn, name, c);
}

static ferry_err container_creds(
    const struct resolve *r, struct config *c, int *found);
static ferry_err imds_creds(const struct resolve *r, struct config *c);
static ferry_err resolve_creds(const struct resolve *r, struct config *c);

/* The keys a role is assumed with, as credential_source names them. */
static ferry_err
credential_source(const struct resolve *r, const char *cs, struct config *c)
{
	int found = 0;
	ferry_err e;

	c->source = CONFIG_STATIC;
	if (strcmp(cs, "Ec2InstanceMetadata") == 0)
		return imds_creds(r, c);
	if (strcmp(cs, "Environment") == 0)
		e = env_creds(r, c, &found);
	else if (strcmp(cs, "EcsContainer") == 0)
		e = container_creds(r, c, &found);
	else
		return ferry_fail(FERRY_EUSAGE,
		    "profile '%s': unknown credential_source '%s' (expected "
		    "Environment, Ec2InstanceMetadata or EcsContainer)",
		    r->profile, cs);
	if (e == FERRY_OK && !found)
		e = ferry_fail(FERRY_EUSAGE,
		    "profile '%s': credential_source %s has no credentials",
		    r->profile, cs);
	return e;
}

/* The keys of source_profile sp, resolved as a profile of its own. */
static ferry_err
source_profile(const struct resolve *r, const char *sp, struct config *c)
{
	struct resolve sub = *r;
	char why[512];
	ferry_err e;

	if (r->depth >= ROLE_CHAIN_MAX)
		return ferry_fail(FERRY_EUSAGE,
		    "profile '%s': more than %d roles chained by "
		    "source_profile (a loop?)",
		    r->profile, ROLE_CHAIN_MAX);
	sub.profile = sp;
	sub.depth = r->depth + 1;
	sub.self = strcmp(sp, r->profile) == 0;
	if ((sub.conf_section = config_concat("profile ", sp)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if (!profile_exists(&sub))
		e = ferry_fail(FERRY_EUSAGE,
		    "profile '%s' names source_profile '%s', which is not in "
		    "%s or %s%s",
		    r->profile, sp, r->cred_path ? r->cred_path : "(none)",
		    r->conf_path ? r->conf_path : "(none)",
		    ignored_section(&sub, 1, why, sizeof(why)) ? why : "");
	else
		e = resolve_creds(&sub, c);
	free(sub.conf_section);
	return e;
}

/*
 * The profile's role_arn, assumed with the keys of its source_profile or
 * credential_source, which c->role_source gets.
 */
static ferry_err
assume_role_creds(const struct resolve *r, const char *arn, struct config *c)
{
	const char *sp = config_profile_get(r, "source_profile");
	const char *cs = config_profile_get(r, "credential_source");
	struct config *src;
	ferry_err e;

	if ((sp == NULL) == (cs == NULL))
		return ferry_fail(FERRY_EUSAGE,
		    "profile '%s' has role_arn: give it source_profile or "
		    "credential_source (one of them)",
		    r->profile);
	if ((src = c->role_source = calloc(1, sizeof(*src))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	c->source = CONFIG_ASSUME_ROLE;
	if ((e = dup_opt(c->region, &src->region)) != FERRY_OK ||
	    (e = dup_opt(sp ? sp : r->profile, &src->profile)) != FERRY_OK ||
	    (e = dup_opt(c->ca_bundle, &src->ca_bundle)) != FERRY_OK ||
	    (e = sp ? source_profile(r, sp, src)
	            : credential_source(r, cs, src)) != FERRY_OK)
		return e;
	return role_settings(
	    r, arn, config_profile_get(r, "role_session_name"), c);
}

/*
 * Credentials in the AWS CLI's provider order: environment, the
 * profile's role to assume, web identity, then (SSO being unsupported)
 * the credentials file, credential_process, the config file, the
 * container endpoint, the instance metadata service.  Within a chain of
 * roles (r->depth) the environment and the endpoints are not looked at,
 * and a profile that is its own source_profile gives its static keys.
 */
static ferry_err
resolve_creds(const struct resolve *r, struct config *c)
{
	const char *cmd, *arn = config_profile_get(r, "role_arn"), *wif;
	int found = 0;
	ferry_err e;

	c->source = CONFIG_STATIC;
	/* An explicit --profile outranks keys in the environment. */
	if (r->f->profile == NULL && r->depth == 0 &&
	    ((e = env_creds(r, c, &found)) != FERRY_OK || found))
		return e;
	wif =
	    r->depth ? NULL : config_env_get(r, "AWS_WEB_IDENTITY_TOKEN_FILE");
	if (wif == NULL)
		wif = config_profile_get(r, "web_identity_token_file");
	if (!r->self && arn != NULL &&
	    config_profile_get(r, "web_identity_token_file") == NULL)
		return assume_role_creds(r, arn, c);
	if (!r->self && wif != NULL)
		return web_identity_creds(r, wif, c);
	if (config_profile_get(r, "sso_session") ||
	    config_profile_get(r, "sso_start_url"))
		return unsupported(r, "SSO (sso_session, sso_start_url)");
	e = file_creds(r, cred_get, r->cred_path, c, &found);
	if (e != FERRY_OK || found)
		return e;
	if (!r->self &&
	    (cmd = config_profile_get(r, "credential_process")) != NULL)
		return process_creds(r, cmd, c);
	e = file_creds(r, conf_get, r->conf_path, c, &found);
	if (e != FERRY_OK || found)
		return e;
	if (r->depth > 0)
		return ferry_fail(FERRY_EUSAGE,
		    "profile '%s', a source_profile, has no credentials",
		    r->profile);
	if ((e = container_creds(r, c, &found)) != FERRY_OK || found)
		return e;
	return imds_creds(r, c);
}

static void
resolve_free(struct resolve *r)
{
	ini_free(r->cred);
	ini_free(r->conf);
	free(r->cred_path);
	free(r->conf_path);
	free(r->conf_section);
}

ferry_err
config_resolve(const struct config_flags *f,
    const char *(*getenv_fn)(const char *), struct config *c)
{
	static const struct config_flags none;
	struct resolve r = {.f = f ? f : &none};
	const char *ca;
	long margin;
	ferry_err e;

	memset(c, 0, sizeof(*c));
	r.env = getenv_fn ? getenv_fn : real_getenv;
	if ((e = open_files(&r, c)) != FERRY_OK ||
	    (e = config_region_resolve(&r, c)) != FERRY_OK ||
	    (e = config_endpoint_resolve(&r, c)) != FERRY_OK ||
	    (e = int_setting(&r, "FERRY_CREDENTIAL_REFRESH_MARGIN", NULL, 0,
	         86400, 300, &margin)) != FERRY_OK)
		goto out;
	c->refresh_margin = margin;
	if ((ca = config_env_get(&r, "AWS_CA_BUNDLE")) == NULL)
		ca = config_profile_get(&r, "ca_bundle");
	if ((e = dup_opt(ca, &c->ca_bundle)) != FERRY_OK ||
	    (e = dup_opt(r.profile, &c->profile)) != FERRY_OK)
		goto out;
	e = r.f->no_creds ? FERRY_OK : resolve_creds(&r, c);
out:
	resolve_free(&r);
	if (e != FERRY_OK)
		config_clear(c);
	return e;
}

void
config_clear(struct config *c)
{
	if (c == NULL)
		return;
	free(c->endpoint);
	free(c->region);
	config_keys_clear(&c->keys);
	free(c->ca_bundle);
	free(c->profile);
	free(c->credential_process);
	free(c->imds_endpoint);
	free(c->role_arn);
	free(c->role_session_name);
	free(c->token_file);
	free(c->sts_endpoint);
	free(c->sts_region);
	if (c->role_source != NULL) {
		config_clear(c->role_source);
		free(c->role_source);
	}
	free(c->container_url);
	free_secret(c->container_token);
	free(c->container_token_file);
	free(c->warning);
	memset(c, 0, sizeof(*c));
}
