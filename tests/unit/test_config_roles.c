/*
 * test_config_roles.c: config_resolve() of remote/config.c for the
 * sources that assume a role (web identity, role_arn with source_profile
 * or credential_source) and the container credentials endpoint: their
 * order, their settings, and the configurations refused.
 */
#include "tests/unit/config_fixture.h"

struct role_case {
	const char *name;
	const char *cred, *conf;
	const char *env[8];
	struct config_flags flags;
	ferry_err want_err;
	const char *has;
	enum config_source source;
	const char *arn, *session, *token_file, *sts, *sts_region;
	enum config_source inner; /* CONFIG_ASSUME_ROLE: role_source's */
	const char *inner_ak;
	const char *url, *auth, *auth_file; /* CONFIG_CONTAINER */
};

#define ARN "arn:aws:iam::1:role/r"
#define STS_E "https://sts.us-east-1.amazonaws.com"
#define WI_ENV "AWS_WEB_IDENTITY_TOKEN_FILE=/t", "AWS_ROLE_ARN=" ARN
#define SRC "[src]\naws_access_key_id = AKSRC\naws_secret_access_key = S\n"
#define ROLE_P "[profile r]\nrole_arn = " ARN "\n"
#define FULL "AWS_CONTAINER_CREDENTIALS_FULL_URI="

static const struct role_case role_cases[] = {
    {"web identity from the environment", NULL, NULL,
        {WI_ENV, "AWS_ROLE_SESSION_NAME=s"}, {0}, FERRY_OK, NULL,
        CONFIG_WEB_IDENTITY, ARN, "s", "/t", STS_E, "us-east-1", 0, NULL, NULL,
        NULL, NULL},
    {"web identity from a profile, STS from its sts block", NULL,
        "[default]\nweb_identity_token_file = /p\nrole_arn = " ARN
        "\nrole_session_name = n\nsts =\n  endpoint_url = "
        "http://127.0.0.1:9\n",
        {NULL}, {0}, FERRY_OK, NULL, CONFIG_WEB_IDENTITY, ARN, "n", "/p",
        "http://127.0.0.1:9", "us-east-1", 0, NULL, NULL, NULL, NULL},
    {"web identity without a role", NULL, NULL,
        {"AWS_WEB_IDENTITY_TOKEN_FILE=/t"}, {0}, FERRY_EUSAGE,
        "set AWS_ROLE_ARN", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL,
        NULL, NULL},
    {"environment keys before web identity", NULL, NULL, {WI_ENV, ENV_KEYS},
        {0}, FERRY_OK, NULL, CONFIG_STATIC, NULL, NULL, NULL, NULL, NULL, 0,
        NULL, NULL, NULL, NULL},
    {"web identity before the credentials file", CRED_DEF, NULL, {WI_ENV}, {0},
        FERRY_OK, NULL, CONFIG_WEB_IDENTITY, ARN, NULL, "/t", STS_E,
        "us-east-1", 0, NULL, NULL, NULL, NULL},
    {"STS: AWS_ENDPOINT_URL_STS, region eu-west-1", NULL, NULL,
        {WI_ENV, "AWS_ENDPOINT_URL_STS=http://localhost:7",
            "AWS_REGION=eu-west-1"},
        {0}, FERRY_OK, NULL, CONFIG_WEB_IDENTITY, ARN, NULL, "/t",
        "http://localhost:7", "eu-west-1", 0, NULL, NULL, NULL, NULL},
    {"STS: legacy global endpoint", NULL, NULL,
        {WI_ENV, "AWS_STS_REGIONAL_ENDPOINTS=legacy", "AWS_REGION=eu-west-1"},
        {0}, FERRY_OK, NULL, CONFIG_WEB_IDENTITY, ARN, NULL, "/t",
        "https://sts.amazonaws.com", "us-east-1", 0, NULL, NULL, NULL, NULL},
    {"role_arn with source_profile", SRC,
        ROLE_P "source_profile = src\nrole_session_name = x\n",
        {"AWS_PROFILE=r", WI_ENV}, {0}, FERRY_OK, NULL, CONFIG_ASSUME_ROLE, ARN,
        "x", NULL, STS_E, "us-east-1", CONFIG_STATIC, "AKSRC", NULL, NULL,
        NULL},
    {"a chain of roles", SRC,
        ROLE_P "source_profile = src\n[profile c]\nrole_arn = arn:c\n"
               "source_profile = r\n",
        {NULL}, {.profile = "c"}, FERRY_OK, NULL, CONFIG_ASSUME_ROLE, "arn:c",
        NULL, NULL, STS_E, "us-east-1", CONFIG_ASSUME_ROLE, NULL, NULL, NULL,
        NULL},
    {"a loop of roles", NULL,
        ROLE_P "source_profile = c\n[profile c]\nrole_arn = arn:c\n"
               "source_profile = r\n",
        {NULL}, {.profile = "c"}, FERRY_EUSAGE, "a loop?", 0, NULL, NULL, NULL,
        NULL, NULL, 0, NULL, NULL, NULL, NULL},
    {"a role whose source is itself", NULL,
        ROLE_P "source_profile = r\naws_access_key_id = AKSELF\n"
               "aws_secret_access_key = S\n",
        {NULL}, {.profile = "r"}, FERRY_OK, NULL, CONFIG_ASSUME_ROLE, ARN, NULL,
        NULL, STS_E, "us-east-1", CONFIG_STATIC, "AKSELF", NULL, NULL, NULL},
    {"source_profile missing", NULL, ROLE_P "source_profile = nope\n", {NULL},
        {.profile = "r"}, FERRY_EUSAGE, "source_profile 'nope'", 0, NULL, NULL,
        NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},
    {"source_profile without keys", NULL,
        ROLE_P "source_profile = e\n[profile e]\nregion = x\n", {NULL},
        {.profile = "r"}, FERRY_EUSAGE, "has no credentials", 0, NULL, NULL,
        NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},
    {"role_arn alone", NULL, ROLE_P, {NULL}, {.profile = "r"}, FERRY_EUSAGE,
        "source_profile or credential_source", 0, NULL, NULL, NULL, NULL, NULL,
        0, NULL, NULL, NULL, NULL},
    {"credential_source Environment", NULL,
        ROLE_P "credential_source = Environment\n", {ENV_KEYS},
        {.profile = "r"}, FERRY_OK, NULL, CONFIG_ASSUME_ROLE, ARN, NULL, NULL,
        STS_E, "us-east-1", CONFIG_STATIC, "AKENV", NULL, NULL, NULL},
    {"credential_source Ec2InstanceMetadata", NULL,
        ROLE_P "credential_source = Ec2InstanceMetadata\n", {NULL},
        {.profile = "r"}, FERRY_OK, NULL, CONFIG_ASSUME_ROLE, ARN, NULL, NULL,
        STS_E, "us-east-1", CONFIG_IMDS, NULL, NULL, NULL, NULL},
    {"credential_source unknown", NULL, ROLE_P "credential_source = Moon\n",
        {NULL}, {.profile = "r"}, FERRY_EUSAGE, "unknown credential_source", 0,
        NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},
    {"container, relative URI", NULL, NULL,
        {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=/v2/creds/x",
            FULL "http://127.0.0.1/ignored",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN=tok"},
        {0}, FERRY_OK, NULL, CONFIG_CONTAINER, NULL, NULL, NULL, NULL, NULL, 0,
        NULL, "http://169.254.170.2/v2/creds/x", "tok", NULL},
    {"container, full URI and a token file", NULL, NULL,
        {FULL "http://169.254.170.23/v1/credentials",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=/f",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN=tok"},
        {0}, FERRY_OK, NULL, CONFIG_CONTAINER, NULL, NULL, NULL, NULL, NULL, 0,
        NULL, "http://169.254.170.23/v1/credentials", NULL, "/f"},
    {"container after the config file's keys", NULL,
        "[default]\naws_access_key_id = AKC\naws_secret_access_key = S\n",
        {FULL "http://127.0.0.1/c"}, {0}, FERRY_OK, NULL, CONFIG_STATIC, NULL,
        NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},
    {"container on http to another host", NULL, NULL,
        {FULL "http://10.0.0.1/c"}, {0}, FERRY_EUSAGE, "neither https", 0, NULL,
        NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL},
    {"container relative URI without '/'", NULL, NULL,
        {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=v2"}, {0}, FERRY_EUSAGE,
        "start with '/'", 0, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL,
        NULL},
    {"container token with a line break", NULL, NULL,
        {FULL "http://127.0.0.1/c", "AWS_CONTAINER_AUTHORIZATION_TOKEN=a\nb"},
        {0}, FERRY_EUSAGE, "one printable line", 0, NULL, NULL, NULL, NULL,
        NULL, 0, NULL, NULL, NULL, NULL},
};

/* Checks what a role_case expects of the resolved cfg. */
static void
check_role(const struct role_case *c, const struct config *cfg)
{
	if (cfg->source != c->source)
		fail_msg("%s: source %d", c->name, (int)cfg->source);
	check_str(c->name, "role", cfg->role_arn, c->arn);
	check_str(c->name, "session", cfg->role_session_name, c->session);
	check_str(c->name, "token file", cfg->token_file, c->token_file);
	check_str(c->name, "sts", cfg->sts_endpoint, c->sts);
	check_str(c->name, "sts region", cfg->sts_region, c->sts_region);
	check_str(c->name, "url", cfg->container_url, c->url);
	check_str(c->name, "auth", cfg->container_token, c->auth);
	check_str(
	    c->name, "auth file", cfg->container_token_file, c->auth_file);
	if (c->source != CONFIG_ASSUME_ROLE)
		return;
	if (cfg->role_source == NULL || cfg->role_source->source != c->inner)
		fail_msg(
		    "%s: no role source of kind %d", c->name, (int)c->inner);
	check_str(c->name, "source key", cfg->role_source->keys.access_key,
	    c->inner_ak);
}

static void
test_role_sources(void **state)
{
	const struct role_case *c;
	struct config cfg;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(role_cases) / sizeof(role_cases[0]); i++) {
		c = &role_cases[i];
		put_file(tmppath[0], c->cred);
		put_file(tmppath[1], c->conf);
		case_env = c->env;
		e = config_resolve(&c->flags, fake_getenv, &cfg);
		case_env = NULL;
		check_err(c->name, e, c->want_err, c->has, NULL);
		if (e != FERRY_OK)
			continue;
		check_role(c, &cfg);
		config_clear(&cfg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_role_sources),
	};

	return cmocka_run_group_tests(tests, setup_home, teardown_home);
}
