/*
 * config_fixture.h: what the tests of config_resolve() share: an injected
 * environment, the shared files in a temporary HOME, and checks that name
 * the table row on failure.  Included by tests/unit/test_config*.c only.
 */
#ifndef FERRY_CONFIG_FIXTURE_H
#define FERRY_CONFIG_FIXTURE_H

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

/* Keys in the credentials file's default profile, and in the environment. */
#define CRED_DEF                                                               \
	"[default]\naws_access_key_id = AKCRED\n"                              \
	"aws_secret_access_key = SKCRED\n"
#define ENV_KEYS "AWS_ACCESS_KEY_ID=AKENV", "AWS_SECRET_ACCESS_KEY=SKENV"

/* Compares strings that may be NULL, naming the table row on failure. */
static void
check_str(const char *row, const char *what, const char *got, const char *want)
{
	if (got == NULL && want == NULL)
		return;
	if (got == NULL || want == NULL || strcmp(got, want) != 0)
		fail_msg("%s: %s is '%s', want '%s'", row, what,
		    got ? got : "(null)", want ? want : "(null)");
}

/* Checks the code and, on failure, what the detail must and must not say. */
static void
check_err(const char *row, ferry_err got, ferry_err want, const char *has,
    const char *hasnt)
{
	if (got != want)
		fail_msg("%s: got %s (%s), want %s", row, ferry_err_name(got),
		    ferry_errmsg(), ferry_err_name(want));
	if (want != FERRY_OK && has && strstr(ferry_errmsg(), has) == NULL)
		fail_msg(
		    "%s: detail '%s' lacks '%s'", row, ferry_errmsg(), has);
	if (want != FERRY_OK && hasnt && strstr(ferry_errmsg(), hasnt))
		fail_msg(
		    "%s: detail '%s' shows '%s'", row, ferry_errmsg(), hasnt);
}

static char tmpdir[64];
static char tmppath[3][128]; /* .aws/credentials, .aws/config, other */
static const char *const *case_env;

/*
 * The environment of the current row: "NAME=value" entries, a value
 * starting with '@' has the temporary directory put in its place.  HOME
 * is the temporary directory unless the row sets it ("HOME=" unsets).
 */
static const char *
fake_getenv(const char *name)
{
	static char val[256];
	size_t n = strlen(name), i;
	const char *v;

	for (i = 0; case_env && case_env[i]; i++) {
		if (strncmp(case_env[i], name, n) != 0 || case_env[i][n] != '=')
			continue;
		v = case_env[i] + n + 1;
		if (v[0] != '@')
			return v;
		snprintf(val, sizeof(val), "%s%s", tmpdir, v + 1);
		return val;
	}
	return strcmp(name, "HOME") == 0 ? tmpdir : NULL;
}

static void
put_file(const char *path, const char *text)
{
	FILE *f;

	if (text == NULL) {
		unlink(path);
		return;
	}
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static int
setup_home(void **state)
{
	char aws[96];

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ferry-config-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(aws, sizeof(aws), "%s/.aws", tmpdir);
	snprintf(tmppath[0], sizeof(tmppath[0]), "%s/credentials", aws);
	snprintf(tmppath[1], sizeof(tmppath[1]), "%s/config", aws);
	snprintf(tmppath[2], sizeof(tmppath[2]), "%s/other", tmpdir);
	return mkdir(aws, 0700);
}

static int
teardown_home(void **state)
{
	char aws[96];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		unlink(tmppath[i]);
	snprintf(aws, sizeof(aws), "%s/.aws", tmpdir);
	rmdir(aws);
	rmdir(tmpdir);
	return 0;
}

#endif
