/*
 * test_creds.c: the credential JSON of a credential_process and of the
 * instance metadata service, the refresh arithmetic
 * (remote/creds.c), and running a credential_process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/creds.h"
#include "remote/creds_http.h"

#define AK "AKIAEXAMPLE"
#define SK "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define PROC_KEYS "\"AccessKeyId\": \"" AK "\", \"SecretAccessKey\": \"" SK "\""

struct parse_case {
	const char *name;
	enum creds_format f;
	const char *json;
	ferry_err want;
	const char *has; /* in the detail on failure */
	const char *token;
	int64_t expires;
};

static const struct parse_case parse_cases[] = {
    {"process, keys only", CREDS_PROCESS, "{\"Version\": 1, " PROC_KEYS "}",
        FERRY_OK, NULL, NULL, 0},
    {"process, token and expiration", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"SessionToken\": \"TOK\", "
        "\"Expiration\": \"2024-05-01T12:00:00Z\"}",
        FERRY_OK, NULL, "TOK", 1714564800},
    {"process, null token", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"SessionToken\": null}", FERRY_OK,
        NULL, NULL, 0},
    {"process, other fields ignored", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"AccountId\": \"123\", \"x\": [1]}",
        FERRY_OK, NULL, NULL, 0},
    {"imds", CREDS_IMDS,
        "{\"Code\": \"Success\", \"Type\": \"AWS-HMAC\", " PROC_KEYS
        ", \"Token\": \"ITOK\", \"Expiration\": \"2024-05-01T18:00:00Z\"}",
        FERRY_OK, NULL, "ITOK", 1714586400},
    {"imds without Code", CREDS_IMDS, "{" PROC_KEYS "}", FERRY_OK, NULL, NULL,
        0},
    {"imds needs no Version", CREDS_IMDS, "{\"Version\": 7, " PROC_KEYS "}",
        FERRY_OK, NULL, NULL, 0},
    {"not JSON", CREDS_PROCESS, "AccessKeyId=" AK, FERRY_EPARSE,
        "not a JSON object", NULL, 0},
    {"truncated", CREDS_PROCESS, "{\"Version\": 1, " PROC_KEYS, FERRY_EPARSE,
        "not a JSON object", NULL, 0},
    {"an array", CREDS_PROCESS, "[{\"Version\": 1, " PROC_KEYS "}]",
        FERRY_EPARSE, "not a JSON object", NULL, 0},
    {"empty", CREDS_PROCESS, "", FERRY_EPARSE, "not a JSON object", NULL, 0},
    {"no Version", CREDS_PROCESS, "{" PROC_KEYS "}", FERRY_EPARSE,
        "\"Version\" is not 1", NULL, 0},
    {"Version 2", CREDS_PROCESS, "{\"Version\": 2, " PROC_KEYS "}",
        FERRY_EPARSE, "\"Version\" is not 1", NULL, 0},
    {"Version as a string", CREDS_PROCESS,
        "{\"Version\": \"1\", " PROC_KEYS "}", FERRY_EPARSE,
        "\"Version\" is not 1", NULL, 0},
    {"no AccessKeyId", CREDS_PROCESS,
        "{\"Version\": 1, \"SecretAccessKey\": \"" SK "\"}", FERRY_EPARSE,
        "no \"AccessKeyId\"", NULL, 0},
    {"empty AccessKeyId", CREDS_PROCESS,
        "{\"Version\": 1, \"AccessKeyId\": \"\", \"SecretAccessKey\": \"" SK
        "\"}",
        FERRY_EPARSE, "unusable \"AccessKeyId\"", NULL, 0},
    {"no SecretAccessKey", CREDS_PROCESS,
        "{\"Version\": 1, \"AccessKeyId\": \"" AK "\"}", FERRY_EPARSE,
        "no \"SecretAccessKey\"", NULL, 0},
    {"numeric SecretAccessKey", CREDS_PROCESS,
        "{\"Version\": 1, \"AccessKeyId\": \"" AK
        "\", \"SecretAccessKey\": 12}",
        FERRY_EPARSE, "unusable \"SecretAccessKey\"", NULL, 0},
    {"process token named Token is ignored", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"Token\": \"T\"}", FERRY_OK, NULL,
        NULL, 0},
    {"numeric token", CREDS_IMDS, "{" PROC_KEYS ", \"Token\": 5}", FERRY_EPARSE,
        "unusable \"Token\"", NULL, 0},
    {"bad Expiration", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"Expiration\": \"tomorrow\"}",
        FERRY_EPARSE, "\"Expiration\" is not an ISO 8601 time", NULL, 0},
    {"numeric Expiration", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"Expiration\": 1714564800}",
        FERRY_EPARSE, "\"Expiration\"", NULL, 0},
    /* keys go on the wire as text: no line break, no control byte */
    {"AccessKeyId with CR LF", CREDS_PROCESS,
        "{\"Version\": 1, \"AccessKeyId\": \"AKID\\r\\nX-Injected: yes\", "
        "\"SecretAccessKey\": \"" SK "\"}",
        FERRY_EPARSE, "access key id holds a byte", NULL, 0},
    {"AccessKeyId with a blank", CREDS_PROCESS,
        "{\"Version\": 1, \"AccessKeyId\": \"AK ID\", "
        "\"SecretAccessKey\": \"" SK "\"}",
        FERRY_EPARSE, "access key id holds a byte", NULL, 0},
    {"AccessKeyId not ASCII", CREDS_IMDS,
        "{\"AccessKeyId\": \"AK\\u00e9\", \"SecretAccessKey\": \"" SK "\"}",
        FERRY_EPARSE, "access key id holds a byte", NULL, 0},
    {"SecretAccessKey with LF", CREDS_PROCESS,
        "{\"Version\": 1, \"AccessKeyId\": \"" AK "\", "
        "\"SecretAccessKey\": \"s\\nx\"}",
        FERRY_EPARSE, "secret access key holds a byte", NULL, 0},
    {"SessionToken with a control byte", CREDS_PROCESS,
        "{\"Version\": 1, " PROC_KEYS ", \"SessionToken\": \"T\\u0001\"}",
        FERRY_EPARSE, "session token holds a byte", NULL, 0},
    {"Token with CR", CREDS_IMDS, "{" PROC_KEYS ", \"Token\": \"T\\rX\"}",
        FERRY_EPARSE, "session token holds a byte", NULL, 0},
    {"imds failure code", CREDS_IMDS, "{\"Code\": \"Failure\", " PROC_KEYS "}",
        FERRY_EPARSE, "\"Code\" is not \"Success\"", NULL, 0},
};

static void
test_parse(void **state)
{
	const struct parse_case *c;
	struct config_keys v;
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		c = &parse_cases[i];
		e = creds_parse(c->json, strlen(c->json), c->f, &v);
		if (e != c->want)
			fail_msg("%s: got %s (%s)", c->name, ferry_err_name(e),
			    ferry_errmsg());
		if (e != FERRY_OK) {
			if (strstr(ferry_errmsg(), c->has) == NULL)
				fail_msg("%s: detail '%s' lacks '%s'", c->name,
				    ferry_errmsg(), c->has);
			/* A failure never quotes what it was given. */
			if (strstr(ferry_errmsg(), SK) ||
			    strstr(ferry_errmsg(), AK))
				fail_msg("%s: detail quotes a key", c->name);
			assert_null(v.access_key);
			assert_null(v.secret_key);
			continue;
		}
		assert_string_equal(v.access_key, AK);
		assert_string_equal(v.secret_key, SK);
		if (c->token == NULL)
			assert_null(v.session_token);
		else
			assert_string_equal(v.session_token, c->token);
		if (v.expires != c->expires)
			fail_msg(
			    "%s: expires %lld", c->name, (long long)v.expires);
		config_keys_clear(&v);
		assert_null(v.access_key);
	}
}

/* What config_keys_check() lets through, whatever source gave them. */
static void
test_keys_check(void **state)
{
	static const struct {
		const char *ak, *sk, *tok;
		const char *has; /* NULL: accepted */
	} rows[] = {
	    {AK, SK, NULL, NULL},
	    {AK, SK, "FwoGZXIvYXdzE+/=", NULL},
	    {"!~", "a b", "t o k", NULL}, /* blanks in the secrets only */
	    {"AK\r\nX-Injected: yes", SK, NULL, "access key id"},
	    {"AK ID", SK, NULL, "access key id"},
	    {"AK\tID", SK, NULL, "access key id"},
	    {"AK\x7f", SK, NULL, "access key id"},
	    {"AK\xc3\xa9", SK, NULL, "access key id"},
	    {AK, "s\nx", NULL, "secret access key"},
	    {AK, "s\x80", NULL, "secret access key"},
	    {AK, SK, "tok\r\nA: b", "session token"},
	    {AK, SK, "\x1b[2J", "session token"},
	};
	size_t i;
	ferry_err e;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = config_keys_check(rows[i].ak, rows[i].sk, rows[i].tok);
		if ((e == FERRY_OK) != (rows[i].has == NULL))
			fail_msg("row %zu: got %s", i, ferry_err_name(e));
		if (e == FERRY_OK)
			continue;
		assert_int_equal(e, FERRY_EPARSE);
		if (strstr(ferry_errmsg(), rows[i].has) == NULL)
			fail_msg("row %zu: '%s'", i, ferry_errmsg());
		/* never the value */
		if (strstr(ferry_errmsg(), "AK") || strstr(ferry_errmsg(), SK))
			fail_msg(
			    "row %zu: quotes a key: '%s'", i, ferry_errmsg());
	}
}

/* The headers of the credential requests are checked as S3's are. */
static void
test_http_header(void **state)
{
	struct curl_slist *h = NULL;

	(void)state;
	assert_int_equal(
	    creds_http_header_add(&h, "Authorization", "tok"), FERRY_OK);
	assert_non_null(h);
	assert_string_equal(h->data, "Authorization: tok");
	assert_int_equal(
	    creds_http_header_add(&h, "Authorization", "tok\r\nX-Injected: y"),
	    FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "header Authorization"));
	assert_null(strstr(ferry_errmsg(), "tok"));
	assert_null(h->next);
	assert_int_equal(
	    creds_http_header_add(&h, "X-Amz-Date", "2024\x01"), FERRY_EPARSE);
	assert_null(h->next);
	creds_http_headers_free(h);
}

/* Parses process JSON whose SessionToken is n bytes long. */
static ferry_err
parse_token_of(size_t n, struct config_keys *v)
{
	char *json;
	size_t len;
	ferry_err e;

	assert_non_null(json = malloc(n + 256));
	len = (size_t)sprintf(
	    json, "{\"Version\": 1, %s, \"SessionToken\": \"", PROC_KEYS);
	memset(json + len, 'T', n);
	len += n;
	len += (size_t)sprintf(json + len, "\"}");
	e = creds_parse(json, len, CREDS_PROCESS, v);
	free(json);
	return e;
}

static void
test_parse_limits(void **state)
{
	struct config_keys v;

	(void)state;
	assert_int_equal(parse_token_of(CREDS_MAX_TOKEN - 1, &v), FERRY_OK);
	assert_int_equal(strlen(v.session_token), CREDS_MAX_TOKEN - 1);
	config_keys_clear(&v);
	assert_int_equal(parse_token_of(CREDS_MAX_TOKEN, &v), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "unusable \"SessionToken\""));
	assert_null(v.access_key);
	assert_int_equal(parse_token_of(CREDS_MAX_OUTPUT, &v), FERRY_EPARSE);
	assert_non_null(strstr(ferry_errmsg(), "more than"));
	config_keys_clear(NULL);
}

struct due_case {
	int64_t expires, now, margin;
	int due;
	int64_t retry_at;
};

static const struct due_case due_cases[] = {
    /* never expires: never due, retries every CREDS_RETRY_SECONDS */
    {0, 1000, 300, 0, 1000 + CREDS_RETRY_SECONDS},
    {0, 1000, 0, 0, 1000 + CREDS_RETRY_SECONDS},
    /* the margin's edge */
    {2000, 1699, 300, 0, 1699 + CREDS_RETRY_SECONDS},
    {2000, 1700, 300, 1, 1700 + CREDS_RETRY_SECONDS},
    {2000, 1701, 300, 1, 1701 + CREDS_RETRY_SECONDS},
    /* no margin: due when expired */
    {2000, 1999, 0, 0, 2000},
    {2000, 2000, 0, 1, 2000},
    /* the retry never waits past the expiry */
    {2000, 1995, 300, 1, 2000},
    {2000, 1990, 300, 1, 2000},
    {2000, 1989, 300, 1, 1999},
    /* expired long ago */
    {2000, 5000, 300, 1, 2000},
    /* a margin longer than the keys live: always due */
    {2000, 1000, 3600, 1, 1000 + CREDS_RETRY_SECONDS},
};

static void
test_due(void **state)
{
	const struct due_case *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(due_cases) / sizeof(due_cases[0]); i++) {
		c = &due_cases[i];
		if (creds_due(c->expires, c->now, c->margin) != c->due)
			fail_msg("row %zu: due is %d", i, !c->due);
		if (creds_retry_at(c->expires, c->now) != c->retry_at)
			fail_msg("row %zu: retry at %lld", i,
			    (long long)creds_retry_at(c->expires, c->now));
	}
}

struct process_case {
	const char *name;
	const char *cmd;
	int timeout;
	ferry_err want;
	const char *has;
};

static const struct process_case process_cases[] = {
    {"prints keys", "echo '{\"Version\": 1, " PROC_KEYS "}'", 5, FERRY_OK,
        NULL},
    {"stderr is not read",
        "echo noise >&2; echo '{\"Version\": 1, " PROC_KEYS "}'", 5, FERRY_OK,
        NULL},
    {"stdin is empty", "read x || echo '{\"Version\": 1, " PROC_KEYS "}'", 5,
        FERRY_OK, NULL},
    {"exits 3", "echo '{\"Version\": 1, " PROC_KEYS "}'; exit 3", 5, FERRY_ESYS,
        "profile 'p' exited with status 3"},
    {"killed", "kill -9 $$", 5, FERRY_ESYS, "killed by signal 9"},
    {"not found", "/no/such/helper", 5, FERRY_ESYS, "exited with status 127"},
    {"prints garbage", "echo '" SK "'", 5, FERRY_EPARSE,
        "printed unusable JSON: not a JSON object"},
    {"prints nothing", "true", 5, FERRY_EPARSE, "not a JSON object"},
    {"too slow", "sleep 3; echo '{}'", 1, FERRY_ESYS, "did not finish in time"},
    {"closes stdout, lingers",
        "echo '{\"Version\": 1, " PROC_KEYS "}'; exec >&-; sleep 3", 1,
        FERRY_ESYS, "did not finish in time"},
    {"prints too much", "yes '" SK "' | head -c 70000", 5, FERRY_EPARSE,
        "printed more than 65536 bytes"},
};

static void
test_process(void **state)
{
	const struct process_case *c;
	struct config_keys v;
	int64_t t0, ms;
	int p[2], saved;
	size_t i;
	ferry_err e;

	(void)state;
	/* Our stdin has a line to give: the process must not get it. */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "line\n", 5), 5);
	close(p[1]);
	assert_true((saved = dup(0)) >= 0);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	for (i = 0; i < sizeof(process_cases) / sizeof(process_cases[0]); i++) {
		c = &process_cases[i];
		t0 = now_mono_ns();
		e = creds_process_run(c->cmd, "p", c->timeout, &v);
		ms = (now_mono_ns() - t0) / 1000000;
		if (e != c->want)
			fail_msg("%s: got %s (%s)", c->name, ferry_err_name(e),
			    ferry_errmsg());
		if (ms > c->timeout * 1000 + 1500)
			fail_msg("%s: took %lld ms", c->name, (long long)ms);
		if (e != FERRY_OK) {
			if (strstr(ferry_errmsg(), c->has) == NULL)
				fail_msg("%s: detail '%s' lacks '%s'", c->name,
				    ferry_errmsg(), c->has);
			if (strstr(ferry_errmsg(), SK) ||
			    strstr(ferry_errmsg(), "echo"))
				fail_msg("%s: detail '%s' shows the command or "
				         "its output",
				    c->name, ferry_errmsg());
			assert_null(v.access_key);
			continue;
		}
		assert_string_equal(v.access_key, AK);
		assert_string_equal(v.secret_key, SK);
		config_keys_clear(&v);
	}
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_keys_check),
	    cmocka_unit_test(test_http_header),
	    cmocka_unit_test(test_parse_limits),
	    cmocka_unit_test(test_due),
	    cmocka_unit_test(test_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
