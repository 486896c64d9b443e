/*
 * creds_sts.c: keys from STS, the AWS Security Token Service:
 * AssumeRoleWithWebIdentity (a token read from a file, the request
 * unsigned) and AssumeRole (signed with a source profile's keys), and the
 * XML STS answers with.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "remote/creds.h"
#include "remote/remote.h"
#include "remote/creds_http.h"
#include "remote/sigv4.h"
#include "remote/url.h"
#include "remote/xml_sax.h"

#define STS_VERSION "2011-06-15"
#define STS_TIMEOUT_MS 10000
#define STS_ATTEMPTS 3

enum { S_AK, S_SK, S_TOK, S_EXP, S_CODE, S_MSG, S_NFIELDS = 4 };

#define STS_FIELDS(res)                                                        \
	{res "/Credentials/AccessKeyId", S_AK, CREDS_MAX_KEY - 1, 0},          \
	    {res "/Credentials/SecretAccessKey", S_SK, CREDS_MAX_KEY - 1, 0},  \
	    {res "/Credentials/SessionToken", S_TOK, CREDS_MAX_TOKEN - 1, 0},  \
	{                                                                      \
		res "/Credentials/Expiration", S_EXP, 63, 0                    \
	}

static const struct xml_rule sts_rules[] = {
    STS_FIELDS("AssumeRoleResult"),
    STS_FIELDS("AssumeRoleWithWebIdentityResult"),
    {"Error/Code", S_CODE, 64, 1},
    {"Error/Message", S_MSG, 256, 1},
};

static const char *const sts_roots[] = {"AssumeRoleResponse",
    "AssumeRoleWithWebIdentityResponse", "ErrorResponse", NULL};

static const struct xml_sax_spec sts_spec = {
    .roots = sts_roots,
    .rules = sts_rules,
    .nrules = XML_NELEM(sts_rules),
};

/* The keys in the slots of a parsed reply, or the error it carries. */
static ferry_err
take(struct xml_sax *s, struct config_keys *out)
{
	static const char *const names[S_NFIELDS] = {
	    "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration"};
	int64_t expires;
	int i;
	ferry_err e;

	if (s->is_error)
		return xml_sax_error_reply(s, NULL);
	if (xml_sax_has(s, S_CODE))
		return ferry_fail(FERRY_ES3, "%s: %s", xml_sax_str(s, S_CODE),
		    xml_sax_str(s, S_MSG));
	for (i = 0; i < S_NFIELDS; i++)
		if (xml_sax_str(s, i)[0] == '\0')
			return ferry_fail(
			    FERRY_EPARSE, "no <%s> in the reply", names[i]);
	if ((expires = remote_parse_time_zoned(xml_sax_str(s, S_EXP))) <= 0)
		return ferry_fail(
		    FERRY_EPARSE, "<Expiration> is not an ISO 8601 time");
	e = config_keys_set(out, xml_sax_str(s, S_AK), xml_sax_str(s, S_SK),
	    xml_sax_str(s, S_TOK));
	if (e == FERRY_OK)
		out->expires = expires;
	return e;
}

ferry_err
creds_sts_parse(const char *xml, size_t len, struct config_keys *out)
{
	struct xml_sax s;
	int i;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (len > CREDS_MAX_OUTPUT)
		return ferry_fail(FERRY_EPARSE, "more than %u bytes",
		    (unsigned)CREDS_MAX_OUTPUT);
	e = xml_sax_init(&s, &sts_spec, NULL);
	/* A session token may be longer than the slots' default bound. */
	buf_init(&s.slot[S_TOK], CREDS_MAX_TOKEN);
	if (e == FERRY_OK && (e = xml_sax_feed(&s, xml, len, 1)) == FERRY_OK)
		e = take(&s, out);
	/* The slots held the secret and the token. */
	for (i = 0; i < XML_SAX_SLOTS; i++)
		buf_free_secret(&s.slot[i]);
	xml_sax_free(&s);
	if (e != FERRY_OK)
		config_keys_clear(out);
	return e;
}

/* Appends "&name=value" (no '&' first) to b, the value URI-encoded. */
static ferry_err
form_add(struct buf *b, const char *name, const char *value)
{
	ferry_err e;

	if ((e = buf_printf(b, "%s%s=", b->len ? "&" : "", name)) != FERRY_OK)
		return e;
	return uri_encode(b, value, strlen(value), 0);
}

/* The form STS is POSTed: the action, the role, the token if any. */
static ferry_err
sts_form(const struct config *cfg, const char *action, const char *token,
    struct buf *b)
{
	char name[64];
	ferry_err e;

	if (cfg->role_session_name == NULL)
		snprintf(
		    name, sizeof(name), "ferry-%lld", (long long)time(NULL));
	if ((e = form_add(b, "Action", action)) != FERRY_OK ||
	    (e = form_add(b, "Version", STS_VERSION)) != FERRY_OK ||
	    (e = form_add(b, "RoleArn", cfg->role_arn)) != FERRY_OK ||
	    (e = form_add(b, "RoleSessionName",
	         cfg->role_session_name ? cfg->role_session_name : name)) !=
	        FERRY_OK)
		return e;
	if (token != NULL)
		e = form_add(b, "WebIdentityToken", token);
	return e;
}

/* Signs the POST of body to cfg's STS with src: the headers into *h. */
static ferry_err
sts_sign(const struct config *cfg, const struct config_keys *src,
    const char *body, struct curl_slist **h)
{
	const char *host = strstr(cfg->sts_endpoint, "://") + 3;
	struct sigv4_pair hd[3] = {{"host", host}, {"x-amz-date", NULL},
	    {"x-amz-security-token", src->session_token}};
	struct sigv4_request r = {.method = "POST",
	    .path = "/",
	    .headers = hd,
	    .nheaders = src->session_token ? 3 : 2,
	    .region = cfg->sts_region,
	    .service = "sts"};
	char date[32], hash[65];
	uint8_t key[32];
	time_t now = time(NULL);
	struct tm tm;
	struct buf auth;
	ferry_err e;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y%m%dT%H%M%SZ", &tm);
	hd[1].value = r.amz_date = date;
	sigv4_sha256_hex(body, strlen(body), hash);
	r.payload_hash = hash;
	buf_init(&auth, 4096);
	date[8] = '\0';
	e = sigv4_signing_key(src->secret_key, date, r.region, "sts", key);
	date[8] = 'T';
	if (e == FERRY_OK &&
	    (e = sigv4_authorization(&r, src->access_key, key, &auth)) ==
	        FERRY_OK &&
	    (e = creds_http_header_add(h, "X-Amz-Date", date)) == FERRY_OK &&
	    (e = creds_http_header_add(h, "Authorization", auth.data)) ==
	        FERRY_OK &&
	    src->session_token != NULL)
		e = creds_http_header_add(
		    h, "X-Amz-Security-Token", src->session_token);
	explicit_bzero(key, sizeof(key));
	buf_free(&auth);
	return e;
}

/* POSTs body to STS with h; the keys of its answer into out. */
static ferry_err
sts_post(const struct config *cfg, const char *body, struct curl_slist *h,
    struct config_keys *out)
{
	struct creds_http q = {.post = body,
	    .headers = h,
	    .timeout_ms = STS_TIMEOUT_MS,
	    .attempts = STS_ATTEMPTS,
	    .ca_bundle = cfg->ca_bundle,
	    .proxy = 1};
	struct buf url, reply;
	long status = 0;
	CURL *c;
	ferry_err e;

	if ((c = curl_easy_init()) == NULL)
		return ferry_fail(FERRY_ENOMEM, "cannot create a curl handle");
	buf_init(&url, 4096);
	buf_init(&reply, CREDS_MAX_OUTPUT);
	if ((e = buf_printf(&url, "%s/", cfg->sts_endpoint)) != FERRY_OK)
		goto out;
	q.url = url.data;
	if ((e = creds_http_call(c, &q, "no answer", &reply, &status)) !=
	    FERRY_OK)
		goto out;
	e = creds_sts_parse(reply.data, reply.len, out);
	/* A refusal says why in its XML; anything else by its status. */
	if (status != 200 && e != FERRY_ES3) {
		config_keys_clear(out);
		e = ferry_fail(FERRY_EHTTP, "HTTP status %ld", status);
	}
out:
	curl_easy_cleanup(c);
	buf_free(&url);
	buf_free_secret(&reply);
	return e;
}

ferry_err
creds_sts_fetch(const struct config *cfg, const struct config_keys *src,
    struct config_keys *out)
{
	const char *action = src ? "AssumeRole" : "AssumeRoleWithWebIdentity";
	struct curl_slist *h = NULL;
	struct buf tok, body;
	char why[768];
	ferry_err e = FERRY_OK;

	memset(out, 0, sizeof(*out));
	buf_init(&tok, CREDS_MAX_TOKEN);
	buf_init(&body, 2 * CREDS_MAX_OUTPUT);
	if (src == NULL)
		e = creds_token_read(cfg->token_file, "web identity token file",
		    CREDS_MAX_TOKEN, &tok);
	if (e == FERRY_OK)
		e = sts_form(cfg, action, src ? NULL : tok.data, &body);
	if (e == FERRY_OK && src != NULL)
		e = sts_sign(cfg, src, body.data, &h);
	if (e == FERRY_OK)
		e = sts_post(cfg, body.data, h, out);
	if (e != FERRY_OK && e != FERRY_ENOMEM) {
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		e = ferry_fail(e, "STS %s of role %s at %s: %s", action,
		    cfg->role_arn, cfg->sts_endpoint, why);
	}
	creds_http_headers_free(h);
	buf_free_secret(&tok);
	buf_free_secret(&body);
	return e;
}
