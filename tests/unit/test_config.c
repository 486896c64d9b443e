/*
 * test_config.c: the INI parser of remote/ini.c and config_resolve() of
 * remote/config.c, with an injected environment and files in a temporary
 * HOME.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/config.h"
#include "tests/unit/config_fixture.h"

/* ---- INI parsing ---- */

struct lookup {
	const char *section, *key, *value; /* value NULL: must be absent */
};

struct ini_case {
	const char *name;
	const char *text;
	size_t len; /* 0: strlen(text) */
	ferry_err want;
	const char *has; /* in the detail on failure */
	const char *hasnt;
	struct lookup get[4];
};

static const struct ini_case ini_cases[] = {
    {"sections", "[default]\nregion = us-west-2\n[profile x]\nregion=eu-1\n", 0,
        FERRY_OK, NULL, NULL,
        {{"default", "region", "us-west-2"}, {"profile x", "region", "eu-1"},
            {"x", "region", NULL}}},
    {"comments and blanks",
        "# top\n; semi\n\n[a]\n\t# indented comment\n\nk = v\n  ; more\n", 0,
        FERRY_OK, NULL, NULL, {{"a", "k", "v"}, {"a", "# top", NULL}}},
    {"nested s3 block",
        "[profile p]\ns3 =\n  addressing_style = path\n\n"
        "  endpoint_url = http://h:1\nregion = r\n",
        0, FERRY_OK, NULL, NULL,
        {{"profile p", "s3.addressing_style", "path"},
            {"profile p", "s3.endpoint_url", "http://h:1"},
            {"profile p", "region", "r"}, {"profile p", "s3", ""}}},
    {"nested block ends at unindented line",
        "[a]\ns3 =\n\taddressing_style=path\nx = 1\n  y = 2\n", 0, FERRY_OK,
        NULL, NULL,
        {{"a", "s3.addressing_style", "path"}, {"a", "x", "1\ny = 2"},
            {"a", "y", NULL}}},
    {"spaces around =", "[a]\n  key   =   two words  \n\t k2\t=\tv2\n", 0,
        FERRY_OK, NULL, NULL, {{"a", "key", "two words"}, {"a", "k2", "v2"}}},
    {"crlf", "[a]\r\nk = v\r\ns3 =\r\n  x = y\r\n", 0, FERRY_OK, NULL, NULL,
        {{"a", "k", "v"}, {"a", "s3.x", "y"}}},
    {"value with =", "[a]\nk = a=b==\nurl=http://h/?x=1\n", 0, FERRY_OK, NULL,
        NULL, {{"a", "k", "a=b=="}, {"a", "url", "http://h/?x=1"}}},
    {"keys lowercased", "[a]\nAWS_Access_Key_ID = AKID\nS3 =\n  X = Y\n", 0,
        FERRY_OK, NULL, NULL,
        {{"a", "aws_access_key_id", "AKID"}, {"a", "s3.x", "Y"},
            {"A", "aws_access_key_id", NULL}}},
    {"last value wins, sections merge", "[a]\nk=1\nk=2\n[b]\n[a]\nk2=3\n", 0,
        FERRY_OK, NULL, NULL,
        {{"a", "k", "2"}, {"a", "k2", "3"}, {"b", "k", NULL}}},
    {"continuation", "[a]\nk = one\n    two\n", 0, FERRY_OK, NULL, NULL,
        {{"a", "k", "one\ntwo"}}},
    {"section name blanks", "[  profile \t  x ]\nk=v\n", 0, FERRY_OK, NULL,
        NULL, {{"profile x", "k", "v"}}},
    {"header comment", "[a] # note\nk=v\n[b];x\n", 0, FERRY_OK, NULL, NULL,
        {{"a", "k", "v"}}},
    {"bom", "\xef\xbb\xbf[a]\nk=v", 0, FERRY_OK, NULL, NULL, {{"a", "k", "v"}}},
    {"empty value", "[a]\nk =\n", 0, FERRY_OK, NULL, NULL, {{"a", "k", ""}}},
    {"empty text", "", 0, FERRY_OK, NULL, NULL, {{"a", "k", NULL}}},
    {"key before section", "\nk = v\n", 0, FERRY_EPARSE, "line 2", NULL, {{0}}},
    {"junk line", "[a]\nk = v\njunk\n", 0, FERRY_EPARSE, "line 3", "junk",
        {{0}}},
    {"unclosed header", "[a\n", 0, FERRY_EPARSE, "line 1", NULL, {{0}}},
    {"empty header", "[a]\n[ ]\n", 0, FERRY_EPARSE, "line 2", NULL, {{0}}},
    {"text after header", "[a] x\n", 0, FERRY_EPARSE, "line 1", NULL, {{0}}},
    {"empty key", "[a]\n = v\n", 0, FERRY_EPARSE, "line 2", NULL, {{0}}},
    {"nested line without =", "[a]\ns3 =\n  novalue\n", 0, FERRY_EPARSE,
        "line 3", NULL, {{0}}},
    {"nul byte", "[a]\nk=v\0x\n", 10, FERRY_EPARSE, "line 2", NULL, {{0}}},
    {"crlf line numbers", "[a]\r\n\r\nbad\r\n", 0, FERRY_EPARSE, "line 3", NULL,
        {{0}}},
    {"secret not echoed", "[a]\naws_secret_access_key wJalrXUtnFEMI\n", 0,
        FERRY_EPARSE, "line 2", "wJalrXUtnFEMI", {{0}}},
};

static void
test_ini_parse(void **state)
{
	const struct ini_case *c;
	struct ini *ini;
	size_t i, j;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(ini_cases) / sizeof(ini_cases[0]); i++) {
		c = &ini_cases[i];
		e = ini_parse(c->text, c->len ? c->len : strlen(c->text), &ini);
		check_err(c->name, e, c->want, c->has, c->hasnt);
		if (e != FERRY_OK) {
			assert_null(ini);
			continue;
		}
		for (j = 0; j < 4 && c->get[j].section; j++)
			check_str(c->name, c->get[j].key,
			    ini_get(ini, c->get[j].section, c->get[j].key),
			    c->get[j].value);
		ini_free(ini);
	}
}

static void
test_ini_sections(void **state)
{
	const char *text = "[a]\n[profile b]\nk=v\n";
	struct ini *ini;

	(void)state;
	assert_int_equal(ini_parse(text, strlen(text), &ini), FERRY_OK);
	assert_true(ini_has_section(ini, "a"));
	assert_true(ini_has_section(ini, "profile b"));
	assert_false(ini_has_section(ini, "b"));
	assert_null(ini_get(ini, "nope", "k"));
	assert_null(ini_get(NULL, "a", "k"));
	assert_false(ini_has_section(NULL, "a"));
	ini_free(ini);
	ini_free(NULL);
}

/* Parses a generated text of n sections with k keys each. */
static ferry_err
parse_generated(size_t n, size_t k)
{
	struct ini *ini;
	char *text, *t;
	size_t i, j;
	ferry_err e;

	assert_non_null(text = t = malloc(n * (16 + k * 16) + 1));
	for (i = 0; i < n; i++) {
		t += sprintf(t, "[s%zu]\n", i);
		for (j = 0; j < k; j++)
			t += sprintf(t, "k%zu = v\n", j);
	}
	e = ini_parse(text, (size_t)(t - text), &ini);
	if (e == FERRY_OK) {
		assert_string_equal(ini_get(ini, "s0", "K0"), "v");
		ini_free(ini);
	}
	free(text);
	return e;
}

static void
test_ini_limits(void **state)
{
	(void)state;
	assert_int_equal(parse_generated(1, 1000), FERRY_OK);
	assert_int_equal(parse_generated(1, 1001), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "line 1002: more than 1000"));
	assert_int_equal(parse_generated(10000, 1), FERRY_OK);
	assert_int_equal(parse_generated(10001, 0), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "line 10001: more than 10000"));
}

/* ---- config_resolve with files in a temporary HOME ---- */

/* Writes a valid file of exactly n bytes: a section and comment lines. */
static void
put_big_file(const char *path, size_t n)
{
	char *text;

	assert_non_null(text = malloc(n + 1));
	memset(text, '#', n);
	memcpy(text, "[a]\n", 4);
	text[n] = '\0';
	put_file(path, text);
	free(text);
}

struct want {
	const char *endpoint, *region, *ak, *sk, *token, *ca;
	int path_style;
};

struct resolve_case {
	const char *name;
	const char *cred, *conf, *other; /* file texts, NULL: no file */
	const char *env[8];
	struct config_flags flags;
	ferry_err want_err;
	const char *has, *hasnt;
	struct want w;
};

#define AWS_E "https://s3.us-east-1.amazonaws.com"
#define CONF_DEV                                                               \
	"[profile dev]\nregion = eu-west-3\n"                                  \
	"aws_access_key_id = AKDEV\naws_secret_access_key = SKDEV\n"

static const struct resolve_case endpoint_cases[] = {
    {"defaults", NULL, NULL, NULL, {NULL}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", NULL, NULL, NULL, NULL, 0}},
    {"region flag picks the endpoint", NULL, NULL, NULL, {NULL},
        {.region = "eu-west-1"}, FERRY_OK, NULL, NULL,
        {"https://s3.eu-west-1.amazonaws.com", "eu-west-1", 0, 0, 0, 0, 0}},
    {"china region", NULL, NULL, NULL, {NULL}, {.region = "cn-north-1"},
        FERRY_OK, NULL, NULL,
        {"https://s3.cn-north-1.amazonaws.com.cn", "cn-north-1", 0, 0, 0, 0,
            0}},
    {"flag beats env", NULL, NULL, NULL, {"AWS_ENDPOINT_URL_S3=http://a:1"},
        {.endpoint_url = "http://127.0.0.1:7480/"}, FERRY_OK, NULL, NULL,
        {"http://127.0.0.1:7480", "us-east-1", 0, 0, 0, 0, 1}},
    {"s3 env beats global env", NULL, NULL, NULL,
        {"AWS_ENDPOINT_URL=http://global:1", "AWS_ENDPOINT_URL_S3=http://s3:2"},
        {0}, FERRY_OK, NULL, NULL, {"http://s3:2", "us-east-1", 0, 0, 0, 0, 0}},
    {"empty s3 env is unset", NULL, NULL, NULL,
        {"AWS_ENDPOINT_URL=http://global:1", "AWS_ENDPOINT_URL_S3="}, {0},
        FERRY_OK, NULL, NULL, {"http://global:1", "us-east-1", 0, 0, 0, 0, 0}},
    {"global env beats services section", NULL,
        "[default]\nservices = svc\n[services svc]\ns3 =\n"
        "  endpoint_url = http://svc:3\n",
        NULL, {"AWS_ENDPOINT_URL=http://global:1"}, {0}, FERRY_OK, NULL, NULL,
        {"http://global:1", "us-east-1", 0, 0, 0, 0, 0}},
    {"profile endpoint_url", NULL,
        "[default]\nendpoint_url = https://minio.example.com:9000/\n", NULL,
        {NULL}, {0}, FERRY_OK, NULL, NULL,
        {"https://minio.example.com:9000", "us-east-1", 0, 0, 0, 0, 0}},
    {"nested s3 endpoint beats profile endpoint", NULL,
        "[default]\nendpoint_url = http://global:1\ns3 =\n"
        "  endpoint_url = http://nested:2\n",
        NULL, {NULL}, {0}, FERRY_OK, NULL, NULL,
        {"http://nested:2", "us-east-1", 0, 0, 0, 0, 0}},
    {"services section beats nested", NULL,
        "[default]\nservices = svc\nendpoint_url = http://global:1\ns3 =\n"
        "  endpoint_url = http://nested:2\n[services svc]\ns3 =\n"
        "  endpoint_url = http://svc:3\n",
        NULL, {NULL}, {0}, FERRY_OK, NULL, NULL,
        {"http://svc:3", "us-east-1", 0, 0, 0, 0, 0}},
    {"services section missing", NULL, "[default]\nservices = gone\n", NULL,
        {NULL}, {0}, FERRY_EUSAGE, "services section 'gone'", NULL, {0}},
    {"ignore configured endpoints", NULL,
        "[default]\nendpoint_url = http://global:1\n", NULL,
        {"AWS_ENDPOINT_URL_S3=http://s3:2",
            "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=TRUE"},
        {0}, FERRY_OK, NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, 0, 0}},
    {"ignore in profile, flag still counts", NULL,
        "[default]\nignore_configured_endpoint_urls = true\n"
        "endpoint_url = http://global:1\n",
        NULL, {NULL}, {.endpoint_url = "http://flag:4"}, FERRY_OK, NULL, NULL,
        {"http://flag:4", "us-east-1", 0, 0, 0, 0, 0}},
    {"default port dropped", NULL, NULL, NULL,
        {"AWS_ENDPOINT_URL=HTTPS://S3.Example.COM:443/"}, {0}, FERRY_OK, NULL,
        NULL, {"https://s3.example.com", "us-east-1", 0, 0, 0, 0, 0}},
    {"bad endpoint names its source", NULL, NULL, NULL,
        {"AWS_ENDPOINT_URL=ftp://h"}, {0}, FERRY_EUSAGE,
        "set by AWS_ENDPOINT_URL", NULL, {0}},
    {"bad profile endpoint", NULL, "[default]\nendpoint_url = http://h/x\n",
        NULL, {NULL}, {0}, FERRY_EUSAGE, "set by the profile", NULL, {0}},
    {"userinfo not echoed", NULL, NULL, NULL, {NULL},
        {.endpoint_url = "http://user:p4ssw0rd@h"}, FERRY_EUSAGE,
        "user information", "p4ssw0rd", {0}},
};

static const struct resolve_case region_cases[] = {
    {"flag beats all", NULL, "[default]\nregion = r-conf\n", NULL,
        {"AWS_REGION=r-env", "AWS_DEFAULT_REGION=r-def"}, {.region = "r-flag"},
        FERRY_OK, NULL, NULL,
        {"https://s3.r-flag.amazonaws.com", "r-flag", 0, 0, 0, 0, 0}},
    {"AWS_REGION beats AWS_DEFAULT_REGION", NULL,
        "[default]\nregion = r-conf\n", NULL,
        {"AWS_REGION=r-env", "AWS_DEFAULT_REGION=r-def"}, {0}, FERRY_OK, NULL,
        NULL, {"https://s3.r-env.amazonaws.com", "r-env", 0, 0, 0, 0, 0}},
    {"AWS_DEFAULT_REGION beats profile", NULL, "[default]\nregion = r-conf\n",
        NULL, {"AWS_DEFAULT_REGION=r-def"}, {0}, FERRY_OK, NULL, NULL,
        {"https://s3.r-def.amazonaws.com", "r-def", 0, 0, 0, 0, 0}},
    {"profile region", NULL, "[default]\nregion = r-conf\n", NULL, {NULL}, {0},
        FERRY_OK, NULL, NULL,
        {"https://s3.r-conf.amazonaws.com", "r-conf", 0, 0, 0, 0, 0}},
    {"credentials file beats config file", "[default]\nregion = r-cred\n",
        "[default]\nregion = r-conf\n", NULL, {NULL}, {0}, FERRY_OK, NULL, NULL,
        {"https://s3.r-cred.amazonaws.com", "r-cred", 0, 0, 0, 0, 0}},
    {"empty region falls through", NULL, "[default]\nregion =\n", NULL,
        {"AWS_REGION="}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", 0, 0, 0, 0, 0}},
    {"invalid region", NULL, NULL, NULL, {"AWS_REGION=us/east"}, {0},
        FERRY_EUSAGE, "invalid region 'us/east'", NULL, {0}},
};

static const struct resolve_case profile_cases[] = {
    {"AWS_PROFILE selects",
        "[dev]\naws_access_key_id = AKD\n"
        "aws_secret_access_key = SKD\n",
        "[profile dev]\nregion = eu-west-3\n", NULL, {"AWS_PROFILE=dev"}, {0},
        FERRY_OK, NULL, NULL,
        {"https://s3.eu-west-3.amazonaws.com", "eu-west-3", "AKD", "SKD", 0, 0,
            0}},
    {"flag beats AWS_PROFILE", NULL,
        CONF_DEV "[profile prod]\nregion = us-west-2\n", NULL,
        {"AWS_PROFILE=dev"}, {.profile = "prod"}, FERRY_OK, NULL, NULL,
        {"https://s3.us-west-2.amazonaws.com", "us-west-2", 0, 0, 0, 0, 0}},
    {"flag profile missing", CRED_DEF, CONF_DEV, NULL, {NULL},
        {.profile = "nope"}, FERRY_EUSAGE, "profile 'nope' not found", NULL,
        {0}},
    {"AWS_PROFILE missing", CRED_DEF, CONF_DEV, NULL, {"AWS_PROFILE=nope"}, {0},
        FERRY_EUSAGE, "profile 'nope' not found", NULL, {0}},
    {"explicit default missing", NULL, NULL, NULL, {NULL},
        {.profile = "default"}, FERRY_EUSAGE, "profile 'default' not found",
        NULL, {0}},
    {"config needs the profile prefix", NULL, "[dev]\nregion = x\n", NULL,
        {"AWS_PROFILE=dev"}, {0}, FERRY_EUSAGE, "profile 'dev' not found", NULL,
        {0}},
    {"credentials file takes no prefix", "[profile dev]\nregion = x\n", NULL,
        NULL, {"AWS_PROFILE=dev"}, {0}, FERRY_EUSAGE, "profile 'dev' not found",
        NULL, {0}},
    {"profile default in config", NULL, "[profile default]\nregion = pd\n",
        NULL, {NULL}, {.profile = "default"}, FERRY_OK, NULL, NULL,
        {"https://s3.pd.amazonaws.com", "pd", 0, 0, 0, 0, 0}},
    {"implicit default missing is fine", NULL, CONF_DEV, NULL, {NULL}, {0},
        FERRY_OK, NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, 0, 0}},
    {"empty profile flag", NULL, NULL, NULL, {NULL}, {.profile = ""},
        FERRY_EUSAGE, "empty --profile", NULL, {0}},
};

static const struct resolve_case cred_cases[] = {
    {"env beats files", CRED_DEF, NULL, NULL, {ENV_KEYS}, {0}, FERRY_OK, NULL,
        NULL, {AWS_E, "us-east-1", "AKENV", "SKENV", NULL, 0, 0}},
    {"env beats AWS_PROFILE", CRED_DEF, CONF_DEV, NULL,
        {ENV_KEYS, "AWS_PROFILE=dev"}, {0}, FERRY_OK, NULL, NULL,
        {"https://s3.eu-west-3.amazonaws.com", "eu-west-3", "AKENV", "SKENV",
            NULL, 0, 0}},
    {"--profile beats env", CRED_DEF, CONF_DEV, NULL, {ENV_KEYS},
        {.profile = "dev"}, FERRY_OK, NULL, NULL,
        {"https://s3.eu-west-3.amazonaws.com", "eu-west-3", "AKDEV", "SKDEV",
            NULL, 0, 0}},
    {"env session token", NULL, NULL, NULL, {ENV_KEYS, "AWS_SESSION_TOKEN=TOK"},
        {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKENV", "SKENV", "TOK", 0, 0}},
    {"legacy security token", NULL, NULL, NULL,
        {ENV_KEYS, "AWS_SECURITY_TOKEN=OLD"}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKENV", "SKENV", "OLD", 0, 0}},
    {"env key id without secret", CRED_DEF, NULL, NULL,
        {"AWS_ACCESS_KEY_ID=AKENV"}, {0}, FERRY_EUSAGE,
        "AWS_SECRET_ACCESS_KEY is not", NULL, {0}},
    {"env secret alone is ignored", CRED_DEF, NULL, NULL,
        {"AWS_SECRET_ACCESS_KEY=SKENV"}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKCRED", "SKCRED", NULL, 0, 0}},
    {"credentials file beats config file",
        CRED_DEF "aws_session_token = TOKC\n",
        "[default]\naws_access_key_id = AKCONF\n"
        "aws_secret_access_key = SKCONF\n",
        NULL, {NULL}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKCRED", "SKCRED", "TOKC", 0, 0}},
    {"config file keys", "[other]\naws_access_key_id = X\n", CONF_DEV, NULL,
        {"AWS_PROFILE=dev"}, {0}, FERRY_OK, NULL, NULL,
        {"https://s3.eu-west-3.amazonaws.com", "eu-west-3", "AKDEV", "SKDEV",
            NULL, 0, 0}},
    {"file key id without secret", "[default]\naws_access_key_id = AK\n", NULL,
        NULL, {NULL}, {0}, FERRY_EUSAGE, "no aws_secret_access_key", NULL, {0}},
    {"file secret without key id",
        "[default]\naws_secret_access_key = S3CR3TVALUE\n", NULL, NULL, {NULL},
        {0}, FERRY_EUSAGE, "no aws_access_key_id", "S3CR3TVALUE", {0}},
    {"credentials file beats credential_process",
        "[p]\n"
        "aws_access_key_id = AKP\n"
        "aws_secret_access_key = SKP\n",
        "[profile p]\ncredential_process = /bin/creds\n", NULL,
        {"AWS_PROFILE=p"}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKP", "SKP", NULL, 0, 0}},
    {"role_arn without a source", CRED_DEF,
        "[default]\nrole_arn = arn:aws:iam::1:role/r\n", NULL, {NULL}, {0},
        FERRY_EUSAGE, "role_arn", NULL, {0}},
    {"sso unsupported", NULL, "[default]\nsso_session = corp\n", NULL, {NULL},
        {0}, FERRY_EUSAGE, "sso_session", NULL, {0}},
    {"env beats role_arn", NULL, "[default]\nrole_arn = arn\n", NULL,
        {ENV_KEYS}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKENV", "SKENV", NULL, 0, 0}},
};

static const struct resolve_case misc_cases[] = {
    {"forced path style", NULL, NULL, NULL, {NULL}, {.path_style = 1}, FERRY_OK,
        NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, 0, 1}},
    {"addressing_style path", NULL,
        "[default]\ns3 =\n  addressing_style = path\n", NULL, {NULL}, {0},
        FERRY_OK, NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, 0, 1}},
    {"addressing_style virtual", NULL,
        "[default]\ns3 =\n  addressing_style = virtual\n", NULL, {NULL}, {0},
        FERRY_OK, NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, 0, 0}},
    {"localhost is path style", NULL, NULL, NULL, {NULL},
        {.endpoint_url = "http://LocalHost:9000"}, FERRY_OK, NULL, NULL,
        {"http://localhost:9000", "us-east-1", 0, 0, 0, 0, 1}},
    {"addressing_style virtual wins for localhost", NULL,
        "[default]\ns3 =\n  addressing_style = virtual\n", NULL, {NULL},
        {.endpoint_url = "http://localhost:9000"}, FERRY_OK, NULL, NULL,
        {"http://localhost:9000", "us-east-1", 0, 0, 0, 0, 0}},
    {"--path-style beats addressing_style virtual", NULL,
        "[default]\ns3 =\n  addressing_style = virtual\n", NULL, {NULL},
        {.endpoint_url = "http://localhost:9000", .path_style = 1}, FERRY_OK,
        NULL, NULL, {"http://localhost:9000", "us-east-1", 0, 0, 0, 0, 1}},
    {"an IP address stays path style", NULL,
        "[default]\ns3 =\n  addressing_style = virtual\n", NULL, {NULL},
        {.endpoint_url = "http://127.0.0.1:9000"}, FERRY_OK, NULL, NULL,
        {"http://127.0.0.1:9000", "us-east-1", 0, 0, 0, 0, 1}},
    {"ipv6 is path style", NULL, NULL, NULL, {NULL},
        {.endpoint_url = "http://[::1]:9000"}, FERRY_OK, NULL, NULL,
        {"http://[::1]:9000", "us-east-1", 0, 0, 0, 0, 1}},
    {"AWS_CA_BUNDLE beats profile", NULL, "[default]\nca_bundle = /p.pem\n",
        NULL, {"AWS_CA_BUNDLE=/e.pem"}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", 0, 0, 0, "/e.pem", 0}},
    {"profile ca_bundle", NULL, "[default]\nca_bundle = /p.pem\n", NULL, {NULL},
        {0}, FERRY_OK, NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, "/p.pem", 0}},
    {"malformed config names file and line", NULL,
        "[default]\nregion = x\noops\n", NULL, {NULL}, {0}, FERRY_EUSAGE,
        "/.aws/config: line 3", NULL, {0}},
    {"malformed credentials", "[default]\r\nAKIA\r\n", NULL, NULL, {NULL}, {0},
        FERRY_EUSAGE, "/.aws/credentials: line 2", "AKIA", {0}},
    {"unreadable config", NULL, NULL, NULL, {"AWS_CONFIG_FILE=@/.aws"}, {0},
        FERRY_EUSAGE, "/.aws", NULL, {0}},
    {"AWS_CONFIG_FILE elsewhere", NULL, "[default]\nregion = home\n",
        "[default]\nregion = other\n", {"AWS_CONFIG_FILE=@/other"}, {0},
        FERRY_OK, NULL, NULL,
        {"https://s3.other.amazonaws.com", "other", 0, 0, 0, 0, 0}},
    {"tilde in AWS_SHARED_CREDENTIALS_FILE", NULL, NULL, CRED_DEF,
        {"AWS_SHARED_CREDENTIALS_FILE=~/other"}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", "AKCRED", "SKCRED", NULL, 0, 0}},
    {"missing named file is fine", NULL, NULL, NULL,
        {"AWS_CONFIG_FILE=@/none", "AWS_SHARED_CREDENTIALS_FILE=@/none2"}, {0},
        FERRY_OK, NULL, NULL, {AWS_E, "us-east-1", 0, 0, 0, 0, 0}},
    {"no HOME", CRED_DEF, NULL, NULL, {"HOME="}, {0}, FERRY_OK, NULL, NULL,
        {AWS_E, "us-east-1", NULL, NULL, NULL, 0, 0}},
};

/* Where the keys come from when no static ones are found first. */
struct source_case {
	const char *name;
	const char *cred, *conf;
	const char *env[8];
	struct config_flags flags;
	ferry_err want_err;
	const char *has, *hasnt;
	enum config_source source;
	const char *ak, *process, *imds;
	long imds_timeout_ms;
	unsigned imds_attempts;
	int64_t margin;
	int process_timeout;
};

#define PROC "[profile p]\ncredential_process = /bin/creds --x 'a b'\n"
#define IMDS_E CONFIG_IMDS_ENDPOINT

static const struct source_case source_cases[] = {
    {"credential_process in the config file", NULL, PROC, {"AWS_PROFILE=p"},
        {0}, FERRY_OK, NULL, NULL, CONFIG_PROCESS, NULL, "/bin/creds --x 'a b'",
        NULL, 0, 0, 300, 60},
    {"credential_process in the credentials file",
        "[p]\ncredential_process = cred-helper\n", NULL, {NULL},
        {.profile = "p"}, FERRY_OK, NULL, NULL, CONFIG_PROCESS, NULL,
        "cred-helper", NULL, 0, 0, 300, 60},
    {"credential_process before the config file's keys", NULL,
        PROC "aws_access_key_id = AKCONF\naws_secret_access_key = SK\n",
        {"AWS_PROFILE=p"}, {0}, FERRY_OK, NULL, NULL, CONFIG_PROCESS, NULL,
        "/bin/creds --x 'a b'", NULL, 0, 0, 300, 60},
    {"credentials file keys before credential_process",
        "[p]\naws_access_key_id = AKP\naws_secret_access_key = SKP\n", PROC,
        {"AWS_PROFILE=p"}, {0}, FERRY_OK, NULL, NULL, CONFIG_STATIC, "AKP",
        NULL, NULL, 0, 0, 300, 0},
    {"environment keys before credential_process", NULL, PROC,
        {ENV_KEYS, "AWS_PROFILE=p"}, {0}, FERRY_OK, NULL, NULL, CONFIG_STATIC,
        "AKENV", NULL, NULL, 0, 0, 300, 0},
    {"--profile: its credential_process, not the environment's keys", NULL,
        PROC, {ENV_KEYS}, {.profile = "p"}, FERRY_OK, NULL, NULL,
        CONFIG_PROCESS, NULL, "/bin/creds --x 'a b'", NULL, 0, 0, 300, 60},
    {"process timeout", NULL, PROC,
        {"AWS_PROFILE=p", "FERRY_CREDENTIAL_PROCESS_TIMEOUT=5"}, {0}, FERRY_OK,
        NULL, NULL, CONFIG_PROCESS, NULL, "/bin/creds --x 'a b'", NULL, 0, 0,
        300, 5},
    {"bad process timeout", NULL, PROC,
        {"AWS_PROFILE=p", "FERRY_CREDENTIAL_PROCESS_TIMEOUT=0"}, {0},
        FERRY_EUSAGE, "FERRY_CREDENTIAL_PROCESS_TIMEOUT", NULL, 0, NULL, NULL,
        NULL, 0, 0, 0, 0},
    {"nothing: the metadata service", NULL, NULL, {NULL}, {0}, FERRY_OK, NULL,
        NULL, CONFIG_IMDS, NULL, NULL, IMDS_E, 1000, 2, 300, 0},
    {"--profile without keys: the metadata service", NULL,
        "[profile bare]\nregion = r\n", {ENV_KEYS}, {.profile = "bare"},
        FERRY_OK, NULL, NULL, CONFIG_IMDS, NULL, NULL, IMDS_E, 1000, 2, 300, 0},
    {"metadata endpoint from the environment", NULL,
        "[default]\nec2_metadata_service_endpoint = http://prof:1\n",
        {"AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:8111/"}, {0},
        FERRY_OK, NULL, NULL, CONFIG_IMDS, NULL, NULL, "http://127.0.0.1:8111",
        1000, 2, 300, 0},
    {"metadata endpoint from the profile", NULL,
        "[default]\nec2_metadata_service_endpoint = http://[fd00:ec2::254]\n"
        "metadata_service_timeout = 3\nmetadata_service_num_attempts = 1\n",
        {NULL}, {0}, FERRY_OK, NULL, NULL, CONFIG_IMDS, NULL, NULL,
        "http://[fd00:ec2::254]", 3000, 1, 300, 0},
    {"metadata settings from the environment", NULL,
        "[default]\nmetadata_service_timeout = 3\n",
        {"AWS_METADATA_SERVICE_TIMEOUT=2",
            "AWS_METADATA_SERVICE_NUM_ATTEMPTS=4",
            "FERRY_CREDENTIAL_REFRESH_MARGIN=0"},
        {0}, FERRY_OK, NULL, NULL, CONFIG_IMDS, NULL, NULL, IMDS_E, 2000, 4, 0,
        0},
    {"bad metadata endpoint", NULL, NULL,
        {"AWS_EC2_METADATA_SERVICE_ENDPOINT=ftp://h"}, {0}, FERRY_EUSAGE,
        "metadata service endpoint", NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0},
    {"bad metadata timeout", NULL, NULL, {"AWS_METADATA_SERVICE_TIMEOUT=1s"},
        {0}, FERRY_EUSAGE, "AWS_METADATA_SERVICE_TIMEOUT '1s'", NULL, 0, NULL,
        NULL, NULL, 0, 0, 0, 0},
    {"metadata service disabled", NULL, NULL,
        {"AWS_EC2_METADATA_DISABLED=TRUE"}, {0}, FERRY_ECREDS,
        "no credentials found", NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0},
    {"disabled, but keys in the environment", NULL, NULL,
        {"AWS_EC2_METADATA_DISABLED=true", ENV_KEYS}, {0}, FERRY_OK, NULL, NULL,
        CONFIG_STATIC, "AKENV", NULL, NULL, 0, 0, 300, 0},
    {"disabled false", NULL, NULL, {"AWS_EC2_METADATA_DISABLED=false"}, {0},
        FERRY_OK, NULL, NULL, CONFIG_IMDS, NULL, NULL, IMDS_E, 1000, 2, 300, 0},
    {"refresh margin", NULL, NULL,
        {ENV_KEYS, "FERRY_CREDENTIAL_REFRESH_MARGIN=42"}, {0}, FERRY_OK, NULL,
        NULL, CONFIG_STATIC, "AKENV", NULL, NULL, 0, 0, 42, 0},
    {"bad refresh margin", NULL, NULL,
        {ENV_KEYS, "FERRY_CREDENTIAL_REFRESH_MARGIN=-1"}, {0}, FERRY_EUSAGE,
        "FERRY_CREDENTIAL_REFRESH_MARGIN '-1'", NULL, 0, NULL, NULL, NULL, 0, 0,
        0, 0},
};

static void
test_credential_sources(void **state)
{
	const struct source_case *c;
	struct config cfg;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(source_cases) / sizeof(source_cases[0]); i++) {
		c = &source_cases[i];
		put_file(tmppath[0], c->cred);
		put_file(tmppath[1], c->conf);
		case_env = c->env;
		e = config_resolve(&c->flags, fake_getenv, &cfg);
		case_env = NULL;
		check_err(c->name, e, c->want_err, c->has, c->hasnt);
		if (e != FERRY_OK)
			continue;
		if (cfg.source != c->source)
			fail_msg("%s: source %d", c->name, (int)cfg.source);
		check_str(c->name, "access key", cfg.keys.access_key, c->ak);
		check_str(
		    c->name, "process", cfg.credential_process, c->process);
		check_str(c->name, "imds", cfg.imds_endpoint, c->imds);
		if (c->source == CONFIG_IMDS &&
		    (cfg.imds_timeout_ms != c->imds_timeout_ms ||
		        cfg.imds_attempts != c->imds_attempts))
			fail_msg("%s: imds %ld ms, %u attempts", c->name,
			    cfg.imds_timeout_ms, cfg.imds_attempts);
		if (cfg.refresh_margin != c->margin)
			fail_msg("%s: margin %lld", c->name,
			    (long long)cfg.refresh_margin);
		if (c->source == CONFIG_PROCESS &&
		    cfg.process_timeout != c->process_timeout)
			fail_msg("%s: process timeout %d", c->name,
			    cfg.process_timeout);
		config_clear(&cfg);
	}
}

static void
run_resolve(const struct resolve_case *cases, size_t n)
{
	const struct resolve_case *c;
	struct config cfg;
	size_t i;
	ferry_err e;

	for (i = 0; i < n; i++) {
		c = &cases[i];
		put_file(tmppath[0], c->cred);
		put_file(tmppath[1], c->conf);
		put_file(tmppath[2], c->other);
		case_env = c->env;
		e = config_resolve(&c->flags, fake_getenv, &cfg);
		case_env = NULL;
		check_err(c->name, e, c->want_err, c->has, c->hasnt);
		if (e != FERRY_OK) {
			assert_null(cfg.endpoint);
			assert_null(cfg.region);
			assert_null(cfg.keys.access_key);
			continue;
		}
		check_str(c->name, "endpoint", cfg.endpoint, c->w.endpoint);
		check_str(c->name, "region", cfg.region, c->w.region);
		check_str(c->name, "access key", cfg.keys.access_key, c->w.ak);
		check_str(c->name, "secret key", cfg.keys.secret_key, c->w.sk);
		check_str(c->name, "token", cfg.keys.session_token, c->w.token);
		check_str(c->name, "ca bundle", cfg.ca_bundle, c->w.ca);
		if (cfg.path_style != c->w.path_style)
			fail_msg("%s: path_style %d", c->name, cfg.path_style);
		config_clear(&cfg);
	}
}

#define RUN(t) run_resolve(t, sizeof(t) / sizeof(t[0]))

static void
test_endpoint_precedence(void **state)
{
	(void)state;
	RUN(endpoint_cases);
}

static void
test_region_precedence(void **state)
{
	(void)state;
	RUN(region_cases);
}

static void
test_profile_choice(void **state)
{
	(void)state;
	RUN(profile_cases);
}

static void
test_credential_precedence(void **state)
{
	(void)state;
	RUN(cred_cases);
}

static void
test_path_style_files_ca(void **state)
{
	(void)state;
	RUN(misc_cases);
}

static void
test_ini_load(void **state)
{
	struct ini *ini;
	char path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/absent", tmpdir);
	assert_int_equal(ini_load(path, &ini), FERRY_ENOTFOUND);
	assert_null(ini);
	snprintf(path, sizeof(path), "%s/.aws", tmpdir);
	assert_int_equal(ini_load(path, &ini), FERRY_ESYS);
	assert_non_null(strstr(ferry_errmsg(), path));
	put_file(tmppath[2], "[a]\nk = v\n\n[b\n");
	assert_int_equal(ini_load(tmppath[2], &ini), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), tmppath[2]));
	assert_non_null(strstr(ferry_errmsg(), "line 4"));
	put_big_file(tmppath[2], 1024 * 1024 + 1);
	assert_int_equal(ini_load(tmppath[2], &ini), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "larger than"));
	put_big_file(tmppath[2], 1024 * 1024);
	assert_int_equal(ini_load(tmppath[2], &ini), FERRY_OK);
	ini_free(ini);
	put_file(tmppath[2], "[a]\nk = v\n");
	assert_int_equal(ini_load(tmppath[2], &ini), FERRY_OK);
	assert_string_equal(ini_get(ini, "a", "k"), "v");
	ini_free(ini);
	unlink(tmppath[2]);
}

/* A [NAME] section the AWS tools ignore, for a profile asked for by name. */
struct ignored_case {
	const char *name;
	const char *cred, *conf;
	const char *env[4];
	struct config_flags flags;
	ferry_err want_err;
	const char *said; /* in the warning or the detail; NULL: no warning */
	const char *endpoint;
};

#define CEPH_CONF "[ceph]\nendpoint_url = http://10.0.0.1:7480\n"
#define CEPH_CRED "[ceph]\naws_access_key_id = AK\naws_secret_access_key = SK\n"
#define SAID                                                                   \
	"section [ceph], which the AWS tools ignore; did you mean "            \
	"[profile ceph]?"

static const struct ignored_case ignored_cases[] = {
    {"named by flag, keys in credentials", CEPH_CRED, CEPH_CONF, {NULL},
        {.profile = "ceph"}, FERRY_OK, SAID,
        "https://s3.us-east-1.amazonaws.com"},
    {"named by AWS_PROFILE", CEPH_CRED, CEPH_CONF, {"AWS_PROFILE=ceph"}, {0},
        FERRY_OK, SAID, "https://s3.us-east-1.amazonaws.com"},
    {"in no file but that section", NULL, CEPH_CONF, {ENV_KEYS},
        {.profile = "ceph"}, FERRY_EUSAGE, SAID, NULL},
    {"[profile ceph] beside it", CEPH_CRED,
        CEPH_CONF "[profile ceph]\nendpoint_url = http://10.0.0.2:7480\n",
        {NULL}, {.profile = "ceph"}, FERRY_OK, NULL, "http://10.0.0.2:7480"},
    {"a source_profile only in such a section", NULL,
        "[profile ceph]\nrole_arn = arn:aws:iam::1:role/r\n"
        "source_profile = src\n[src]\naws_access_key_id = AK\n",
        {NULL}, {.profile = "ceph"}, FERRY_EUSAGE,
        "section [src], which the AWS tools ignore; did you mean "
        "[profile src]?",
        NULL},
    {"not asked for", NULL, CEPH_CONF, {ENV_KEYS}, {0}, FERRY_OK, NULL,
        "https://s3.us-east-1.amazonaws.com"},
    {"[default] is read", NULL, "[default]\nregion = eu-west-1\n",
        {ENV_KEYS, "AWS_PROFILE=default"}, {0}, FERRY_OK, NULL,
        "https://s3.eu-west-1.amazonaws.com"},
};

static void
test_ignored_section(void **state)
{
	const struct ignored_case *c;
	struct config cfg;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(ignored_cases) / sizeof(ignored_cases[0]); i++) {
		c = &ignored_cases[i];
		put_file(tmppath[0], c->cred);
		put_file(tmppath[1], c->conf);
		case_env = c->env;
		e = config_resolve(&c->flags, fake_getenv, &cfg);
		case_env = NULL;
		check_err(c->name, e, c->want_err, c->said, NULL);
		if (e != FERRY_OK)
			continue;
		if (c->said == NULL)
			check_str(c->name, "warning", cfg.warning, NULL);
		else if (cfg.warning == NULL || !strstr(cfg.warning, c->said) ||
		         !strstr(cfg.warning, tmppath[1]))
			fail_msg("%s: warning '%s'", c->name,
			    cfg.warning ? cfg.warning : "(null)");
		check_str(c->name, "endpoint", cfg.endpoint, c->endpoint);
		config_clear(&cfg);
	}
}

static void
test_clear_null(void **state)
{
	struct config c = {0};

	(void)state;
	config_clear(NULL);
	config_clear(&c);
	assert_null(c.region);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ini_parse),
	    cmocka_unit_test(test_ini_sections),
	    cmocka_unit_test(test_ini_limits),
	    cmocka_unit_test(test_ini_load),
	    cmocka_unit_test(test_endpoint_precedence),
	    cmocka_unit_test(test_region_precedence),
	    cmocka_unit_test(test_profile_choice),
	    cmocka_unit_test(test_credential_precedence),
	    cmocka_unit_test(test_credential_sources),
	    cmocka_unit_test(test_path_style_files_ca),
	    cmocka_unit_test(test_ignored_section),
	    cmocka_unit_test(test_clear_null),
	};

	return cmocka_run_group_tests(tests, setup_home, teardown_home);
}
