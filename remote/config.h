/*
 * config.h: where an S3 endpoint, region and credentials come from, as the
 * AWS tools read them: flags, then the environment, then the shared
 * config and credentials files (profiles).  Private to remote/.
 */
#ifndef FERRY_CONFIG_H
#define FERRY_CONFIG_H

#include <stdint.h>

#include "common/common.h"

/*
 * One parsed INI file (~/.aws/credentials or ~/.aws/config).  Sections
 * "[name]" and "[profile name]" are both kept under their raw header text
 * ("name", "profile name"); keys are lowercased and trimmed, values
 * trimmed.  Lines starting with '#' or ';' are comments.  Indented lines
 * after "key =" with an empty value (the "s3 =" nested block) are stored
 * as "key.sub" (e.g. "s3.addressing_style").
 */
struct ini;

/*
 * Parses len bytes of INI text.  FERRY_EPARSE with the line number in the
 * detail for a line that is neither a section, a key = value, a comment,
 * a nested line nor blank.  Free with ini_free().
 */
ferry_err ini_parse(const char *text, size_t len, struct ini **out) FERRY_WUR;
/* Reads and parses a file; FERRY_ENOTFOUND if it does not exist. */
ferry_err ini_load(const char *path, struct ini **out) FERRY_WUR;
/* Returns the value or NULL; valid until ini_free(). */
const char *ini_get(
    const struct ini *ini, const char *section, const char *key);
/* Non-zero when the section exists. */
int ini_has_section(const struct ini *ini, const char *section);
void ini_free(struct ini *ini);

/* What the user asked for on the command line (NULL: not given). */
struct config_flags {
	const char *endpoint_url;
	const char *region;
	const char *profile;
	int path_style; /* 1: forced by --path-style, 0: not given */
	int no_creds;   /* requests go unsigned: no credentials resolved */
};

/* One set of keys.  Owned; free with config_keys_clear(). */
struct config_keys {
	char *access_key;
	char *secret_key;    /* wiped on clear */
	char *session_token; /* NULL: none; wiped on clear */
	int64_t expires;     /* seconds since the epoch; 0: never */
};

/*
 * FERRY_OK when the key id is printable ASCII without blanks and the
 * secret and the token (NULL: none) printable ASCII; else FERRY_EPARSE
 * naming the field, never quoting it.  Pure.
 */
ferry_err config_keys_check(
    const char *ak, const char *sk, const char *tok) FERRY_WUR;
/*
 * Copies the key id, the secret and the token (NULL: none) into k, which
 * is cleared first, once config_keys_check() passes them.  FERRY_EPARSE
 * (from the check) or FERRY_ENOMEM leaves k cleared.
 */
ferry_err config_keys_set(struct config_keys *k, const char *ak, const char *sk,
    const char *tok) FERRY_WUR;
/* Frees the strings (the secrets wiped) and zeroes k; accepts NULL. */
void config_keys_clear(struct config_keys *k);

/* Where the credentials come from. */
enum config_source {
	CONFIG_STATIC,       /* access_key, secret_key and session_token */
	CONFIG_PROCESS,      /* the profile's credential_process */
	CONFIG_IMDS,         /* the EC2 instance metadata service */
	CONFIG_WEB_IDENTITY, /* STS AssumeRoleWithWebIdentity, a token file */
	CONFIG_ASSUME_ROLE,  /* STS AssumeRole with role_source's keys */
	CONFIG_CONTAINER     /* the container credentials endpoint */
};

#define CONFIG_IMDS_ENDPOINT "http://169.254.169.254"
#define CONFIG_CONTAINER_ENDPOINT "http://169.254.170.2"
#define CONFIG_NO_CREDS                                                        \
	"no credentials found: set AWS_ACCESS_KEY_ID and "                     \
	"AWS_SECRET_ACCESS_KEY; or AWS_WEB_IDENTITY_TOKEN_FILE and "           \
	"AWS_ROLE_ARN (web identity); or AWS_CONTAINER_CREDENTIALS_FULL_URI "  \
	"or _RELATIVE_URI (the container endpoint); or give the profile "      \
	"keys, a credential_process, or a role_arn with source_profile, "      \
	"credential_source or web_identity_token_file"

/* The resolved configuration of one side.  Owned; free with config_clear. */
struct config {
	char *endpoint;          /* "http://127.0.0.1:7480", no trailing '/' */
	char *region;            /* never NULL after config_resolve */
	char *profile;           /* the profile's name, for messages */
	struct config_keys keys; /* CONFIG_STATIC */
	char *ca_bundle;         /* AWS_CA_BUNDLE or profile ca_bundle */
	int path_style;          /* path-style addressing */
	enum config_source source;
	char *credential_process; /* CONFIG_PROCESS: the command */
	int process_timeout;      /* seconds it may take */
	char *imds_endpoint;      /* CONFIG_IMDS: no trailing '/' */
	long imds_timeout_ms;     /* to connect, per request */
	unsigned imds_attempts;   /* per request */
	int64_t refresh_margin;   /* refresh when this many seconds remain */
	/* CONFIG_WEB_IDENTITY and CONFIG_ASSUME_ROLE */
	char *role_arn;
	char *role_session_name;
	char *token_file;           /* CONFIG_WEB_IDENTITY: read each time */
	char *sts_endpoint;         /* "https://sts.REGION.amazonaws.com" */
	char *sts_region;           /* what AssumeRole is signed for */
	struct config *role_source; /* CONFIG_ASSUME_ROLE: owned */
	/* CONFIG_CONTAINER */
	char *container_url;        /* the whole URL, path included */
	char *container_token;      /* Authorization; wiped on clear */
	char *container_token_file; /* or read from here each time */
	char *warning; /* about the files, for the user; NULL: none */
};

/*
 * Resolves flags, environment (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
 * AWS_DEFAULT_REGION, AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE,
 * AWS_CONFIG_FILE, AWS_CA_BUNDLE) and the files into c.  Precedence:
 * flag > environment > profile in credentials file > profile in config
 * file > default (endpoint https://s3.REGION.amazonaws.com, region
 * us-east-1).  A profile named by flag or AWS_PROFILE that exists in
 * neither file is FERRY_EUSAGE; a malformed file is FERRY_EUSAGE naming
 * the file and line.  Path style is chosen when forced, when the profile's
 * s3.addressing_style is "path", or when the endpoint host is an IP
 * address or "localhost".  A profile named by flag or AWS_PROFILE whose
 * section in the config file is "[NAME]", which the AWS tools ignore
 * (they want "[profile NAME]"), is not read either: c->warning says so,
 * and so does the detail when the profile is then not found.  getenv_fn lets
 * tests supply an environment (NULL: getenv).
 *
 * Credentials, in the AWS CLI's order: the environment's keys (unless a
 * profile is named by flag), the profile's role_arn with source_profile
 * or credential_source (STS AssumeRole), web identity
 * (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, else the profile's
 * web_identity_token_file and role_arn), the credentials file's keys,
 * the profile's credential_process, the config file's keys, the
 * container endpoint (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI)
 * then the instance metadata service (AWS_EC2_METADATA_SERVICE_ENDPOINT,
 * unless AWS_EC2_METADATA_DISABLED is true).  STS is
 * AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, the profile's "sts =" block or
 * endpoint_url, else https://sts.REGION.amazonaws.com.  Only the source is
 * chosen here: nothing is run or asked.  With none at all,
 * FERRY_ENOTFOUND.
 */
ferry_err config_resolve(const struct config_flags *f,
    const char *(*getenv_fn)(const char *), struct config *c) FERRY_WUR;
void config_clear(struct config *c);

/*
 * Non-zero when s is a region name: 1 to 63 letters, digits, '-' or '_'
 * (it goes into host names and the signing scope).
 */
int region_valid(const char *s);

#endif
