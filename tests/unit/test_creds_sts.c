/*
 * test_creds_sts.c: STS's XML replies (remote/creds_sts.c) and the URLs
 * the container credentials endpoint may have (remote/creds_container.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "remote/creds.h"

#define NS " xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\""
#define CREDS(ak, sk, tok, exp)                                                \
	"<Credentials><AccessKeyId>" ak "</AccessKeyId><SecretAccessKey>" sk   \
	"</SecretAccessKey><SessionToken>" tok                                 \
	"</SessionToken><Expiration>" exp "</Expiration></Credentials>"
#define GOOD                                                                   \
	CREDS("ASIAEXAMPLE", "secret/KEY", "TOKEN==", "2024-05-01T12:00:00Z")
#define WEB(body)                                                              \
	"<AssumeRoleWithWebIdentityResponse" NS                                \
	"><AssumeRoleWithWebIdentityResult>" body                              \
	"<SubjectFromWebIdentityToken>sub</SubjectFromWebIdentityToken>"       \
	"</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>1"     \
	"</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>"
#define ROLE(body)                                                             \
	"<AssumeRoleResponse" NS "><AssumeRoleResult>" body                    \
	"<AssumedRoleUser><Arn>arn</Arn></AssumedRoleUser>"                    \
	"</AssumeRoleResult></AssumeRoleResponse>"

struct sts_case {
	const char *name;
	const char *xml;
	ferry_err want;
	const char *has; /* in the detail on failure */
};

static const struct sts_case sts_cases[] = {
    {"web identity", WEB(GOOD), FERRY_OK, NULL},
    {"assume role", ROLE(GOOD), FERRY_OK, NULL},
    {"fractional seconds and a zone",
        ROLE(CREDS("A", "S", "T", "2024-05-01T14:00:00.000+02:00")), FERRY_OK,
        NULL},
    {"error response",
        "<ErrorResponse" NS "><Error><Type>Sender</Type><Code>AccessDenied"
        "</Code><Message>Not authorized</Message></Error></ErrorResponse>",
        FERRY_ES3, "AccessDenied: Not authorized"},
    {"an S3-style error", "<Error><Code>InvalidToken</Code></Error>", FERRY_ES3,
        "InvalidToken"},
    {"no session token", ROLE(CREDS("A", "S", "", "2024-05-01T12:00:00Z")),
        FERRY_EPARSE, "no <SessionToken>"},
    {"no credentials", ROLE(""), FERRY_EPARSE, "no <AccessKeyId>"},
    {"bad expiration", WEB(CREDS("A", "S", "T", "tomorrow")), FERRY_EPARSE,
        "<Expiration> is not"},
    {"credentials given twice", ROLE(GOOD GOOD), FERRY_EPARSE, "given twice"},
    {"fields at the wrong depth",
        "<AssumeRoleResponse><Credentials><AccessKeyId>A</AccessKeyId>"
        "</Credentials></AssumeRoleResponse>",
        FERRY_EPARSE, "no <AccessKeyId>"},
    {"another root", "<ListBucketResult/>", FERRY_EPARSE, "unexpected"},
    {"a doctype", "<!DOCTYPE x [<!ENTITY a \"b\">]>" ROLE(GOOD), FERRY_EPARSE,
        NULL},
    {"not XML", "{\"AccessKeyId\": \"A\"}", FERRY_EPARSE, NULL},
    {"empty", "", FERRY_EPARSE, NULL},
    {"truncated", "<AssumeRoleResponse><AssumeRoleResult><Credentials>",
        FERRY_EPARSE, NULL},
};

static void
test_sts_parse(void **state)
{
	struct config_keys k;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(sts_cases) / sizeof(sts_cases[0]); i++) {
		const struct sts_case *c = &sts_cases[i];

		e = creds_sts_parse(c->xml, strlen(c->xml), &k);
		if (e != c->want)
			fail_msg("%s: got %d (%s), want %d", c->name, e,
			    ferry_errmsg(), c->want);
		if (e != FERRY_OK) {
			assert_null(k.access_key);
			assert_null(k.session_token);
			if (c->has && strstr(ferry_errmsg(), c->has) == NULL)
				fail_msg("%s: '%s' lacks '%s'", c->name,
				    ferry_errmsg(), c->has);
			continue;
		}
		assert_non_null(k.access_key);
		assert_non_null(k.secret_key);
		assert_non_null(k.session_token);
		assert_int_equal(k.expires, 1714564800);
		config_keys_clear(&k);
	}
}

static void
test_sts_parse_fields(void **state)
{
	const char *xml = WEB(GOOD);
	struct config_keys k;

	(void)state;
	assert_int_equal(creds_sts_parse(xml, strlen(xml), &k), FERRY_OK);
	assert_string_equal(k.access_key, "ASIAEXAMPLE");
	assert_string_equal(k.secret_key, "secret/KEY");
	assert_string_equal(k.session_token, "TOKEN==");
	config_keys_clear(&k);
}

static void
test_sts_parse_limits(void **state)
{
	static char xml[CREDS_MAX_TOKEN + 512];
	char tok[CREDS_MAX_TOKEN + 1];
	struct config_keys k;

	(void)state;
	memset(tok, 'T', sizeof(tok) - 1);
	tok[CREDS_MAX_TOKEN - 1] = '\0';
	snprintf(xml, sizeof(xml),
	    ROLE(CREDS("A", "S", "%s", "2024-05-01T12:00:00Z")), tok);
	assert_int_equal(creds_sts_parse(xml, strlen(xml), &k), FERRY_OK);
	assert_int_equal(strlen(k.session_token), CREDS_MAX_TOKEN - 1);
	config_keys_clear(&k);
	tok[CREDS_MAX_TOKEN - 1] = 'T';
	tok[CREDS_MAX_TOKEN] = '\0';
	snprintf(xml, sizeof(xml),
	    ROLE(CREDS("A", "S", "%s", "2024-05-01T12:00:00Z")), tok);
	assert_int_equal(creds_sts_parse(xml, strlen(xml), &k), FERRY_EPARSE);
	assert_null(k.session_token);
}

struct url_case {
	const char *url;
	int ok;
};

static const struct url_case url_cases[] = {
    {"https://creds.example.com/v1/credentials", 1},
    {"http://127.0.0.1:8080/creds", 1},
    {"http://127.9.9.9/creds", 1},
    {"http://localhost/creds", 1},
    {"http://[::1]:80/creds", 1},
    {"http://169.254.170.2/v2/credentials/abc", 1},
    {"http://169.254.170.23/v1/credentials", 1},
    {"http://[fd00:ec2::23]/v1/credentials", 1},
    {"http://[fd00:ec2:0:0:0:0:0:23]/v1/credentials", 1},
    {"http://169.254.170.3/creds", 0},
    {"http://169.254.169.254/latest", 0},
    {"http://example.com/creds", 0},
    {"http://128.0.0.1/creds", 0},
    {"http://[fd00:ec2::24]/creds", 0},
    {"ftp://127.0.0.1/creds", 0},
    {"file:///etc/passwd", 0},
    {"not a url", 0},
    {"", 0},
};

static void
test_container_url(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(url_cases) / sizeof(url_cases[0]); i++)
		if (creds_container_url_ok(url_cases[i].url) != url_cases[i].ok)
			fail_msg(
			    "%s: want %d", url_cases[i].url, url_cases[i].ok);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sts_parse),
	    cmocka_unit_test(test_sts_parse_fields),
	    cmocka_unit_test(test_sts_parse_limits),
	    cmocka_unit_test(test_container_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
