/*
 * creds.c: the keys a client signs with: their JSON forms, when they are
 * due for a refresh, and the refresh itself, under the client's lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "remote/creds.h"
#include "remote/remote.h"
#include "remote/sigv4.h"

/* The string field name of o, or NULL; *bad when present but unusable. */
static const char *
field(const cJSON *o, const char *name, size_t max, int *bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	if (v == NULL || cJSON_IsNull(v))
		return NULL;
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
	    strlen(v->valuestring) >= max) {
		*bad = 1;
		return NULL;
	}
	return v->valuestring;
}

/* Checks what sets the two formats apart: Version, or Code. */
static ferry_err
check_kind(const cJSON *o, enum creds_format f)
{
	const cJSON *v;

	if (f == CREDS_PROCESS) {
		v = cJSON_GetObjectItemCaseSensitive(o, "Version");
		if (!cJSON_IsNumber(v) || v->valuedouble != 1)
			return ferry_fail(FERRY_EPARSE, "\"Version\" is not 1");
		return FERRY_OK;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, "Code");
	if (v != NULL &&
	    (!cJSON_IsString(v) || strcmp(v->valuestring, "Success") != 0))
		return ferry_fail(FERRY_EPARSE, "\"Code\" is not \"Success\"");
	return FERRY_OK;
}

/* Copies the fields of o into out. */
static ferry_err
take_fields(const cJSON *o, enum creds_format f, struct config_keys *out)
{
	const char *tname = f == CREDS_PROCESS ? "SessionToken" : "Token";
	const char *ak, *sk, *tok, *exp;
	int bad_ak = 0, bad_sk = 0, bad_tok = 0, bad_exp = 0;
	int64_t expires = 0;
	ferry_err e;

	ak = field(o, "AccessKeyId", CREDS_MAX_KEY, &bad_ak);
	sk = field(o, "SecretAccessKey", CREDS_MAX_KEY, &bad_sk);
	tok = field(o, tname, CREDS_MAX_TOKEN, &bad_tok);
	exp = field(o, "Expiration", 64, &bad_exp);
	if (ak == NULL)
		return ferry_fail(FERRY_EPARSE, "%s \"AccessKeyId\"",
		    bad_ak ? "unusable" : "no");
	if (sk == NULL)
		return ferry_fail(FERRY_EPARSE, "%s \"SecretAccessKey\"",
		    bad_sk ? "unusable" : "no");
	if (bad_tok)
		return ferry_fail(FERRY_EPARSE, "unusable \"%s\"", tname);
	if (bad_exp ||
	    (exp != NULL && (expires = remote_parse_time_zoned(exp)) <= 0))
		return ferry_fail(
		    FERRY_EPARSE, "\"Expiration\" is not an ISO 8601 time");
	if ((e = config_keys_set(out, ak, sk, tok)) == FERRY_OK)
		out->expires = expires;
	return e;
}

/* cJSON keeps its own copies of the secrets: wiped before the free. */
static void
wipe_strings(cJSON *o)
{
	cJSON *i;

	for (i = o->child; i != NULL; i = i->next)
		if (cJSON_IsString(i))
			explicit_bzero(i->valuestring, strlen(i->valuestring));
}

ferry_err
creds_parse(
    const char *json, size_t len, enum creds_format f, struct config_keys *out)
{
	cJSON *o;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if (len > CREDS_MAX_OUTPUT)
		return ferry_fail(FERRY_EPARSE, "more than %u bytes",
		    (unsigned)CREDS_MAX_OUTPUT);
	o = cJSON_ParseWithLength(json, len);
	if (o == NULL || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return ferry_fail(FERRY_EPARSE, "not a JSON object");
	}
	if ((e = check_kind(o, f)) == FERRY_OK)
		e = take_fields(o, f, out);
	wipe_strings(o);
	cJSON_Delete(o);
	if (e != FERRY_OK)
		config_keys_clear(out);
	return e;
}

int
creds_due(int64_t expires, int64_t now, int64_t margin)
{
	return expires != 0 && expires - now <= margin;
}

int64_t
creds_retry_at(int64_t expires, int64_t now)
{
	int64_t t = now + CREDS_RETRY_SECONDS;

	return expires != 0 && expires < t ? expires : t;
}

static ferry_err fetch(const struct config *cfg, struct config_keys *v);

/* The source profile's keys, then the role's for them. */
static ferry_err
assume_role(const struct config *cfg, struct config_keys *v)
{
	struct config_keys src;
	char why[768];
	ferry_err e;

	if ((e = fetch(cfg->role_source, &src)) != FERRY_OK) {
		if (e == FERRY_ENOMEM)
			return e;
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(e, "source of role %s (profile '%s'): %s",
		    cfg->role_arn, cfg->role_source->profile, why);
	}
	e = creds_sts_fetch(cfg, &src, v);
	config_keys_clear(&src);
	return e;
}

/* Fresh keys from where cfg says, with the reason on failure. */
static ferry_err
fetch(const struct config *cfg, struct config_keys *v)
{
	char why[768];
	ferry_err e;

	memset(v, 0, sizeof(*v));
	switch (cfg->source) {
	case CONFIG_STATIC:
		return config_keys_set(v, cfg->keys.access_key,
		    cfg->keys.secret_key, cfg->keys.session_token);
	case CONFIG_PROCESS:
		return creds_process_run(cfg->credential_process, cfg->profile,
		    cfg->process_timeout, v);
	case CONFIG_WEB_IDENTITY:
		return creds_sts_fetch(cfg, NULL, v);
	case CONFIG_ASSUME_ROLE:
		return assume_role(cfg, v);
	case CONFIG_CONTAINER:
		return creds_container_fetch(cfg, v);
	case CONFIG_IMDS:
		e = creds_imds_fetch(cfg->imds_endpoint, cfg->imds_timeout_ms,
		    cfg->imds_attempts, v);
		if (e == FERRY_OK || e == FERRY_ENOMEM)
			return e;
		snprintf(why, sizeof(why), "%s", ferry_errmsg());
		return ferry_fail(e, "the instance metadata service at %s: %s",
		    cfg->imds_endpoint, why);
	}
	return ferry_fail(FERRY_EUSAGE, "no credential source");
}

/* After a refresh at now: when the next may be tried. */
static void
schedule_locked(struct creds *c, int64_t now, int failed)
{
	if (failed || creds_due(c->cur.expires, now, c->cfg->refresh_margin))
		c->next_try = creds_retry_at(c->cur.expires, now);
	else
		c->next_try = 0;
}

ferry_err
creds_open(struct creds *c, const struct config *cfg)
{
	memset(c, 0, sizeof(*c));
	if (pthread_mutex_init(&c->lock, NULL) != 0)
		return ferry_fail(FERRY_ESYS, "cannot create a mutex");
	c->cfg = cfg;
	return FERRY_OK;
}

/*
 * The kind a failure to fetch keys is reported as: FERRY_ECREDS, whatever
 * the source said (a refused connection to the metadata service, a
 * process that failed), but for memory and a signal, which are no fault
 * of the credentials.
 */
static ferry_err
fetch_failure(ferry_err e)
{
	return e == FERRY_ENOMEM || e == FERRY_ECANCEL ? e : FERRY_ECREDS;
}

/*
 * The first keys, fetched when first needed.  A failure is kept and
 * returned again until CREDS_RETRY_SECONDS have passed.
 */
static ferry_err
first_locked(struct creds *c, int64_t now)
{
	ferry_err e;

	if (c->next_try != 0 && now < c->next_try)
		return ferry_fail(c->why_err, "%s", c->why);
	if ((e = fetch(c->cfg, &c->cur)) == FERRY_OK) {
		schedule_locked(c, now, 0);
		return FERRY_OK;
	}
	c->why_err = e = fetch_failure(e);
	c->next_try = now + CREDS_RETRY_SECONDS;
	/* The metadata service is the last place looked in. */
	if (c->cfg->source == CONFIG_IMDS && e != FERRY_ENOMEM)
		snprintf(c->why, sizeof(c->why), "%s (profile '%s'); %s",
		    CONFIG_NO_CREDS, c->cfg->profile, ferry_errmsg());
	else
		snprintf(c->why, sizeof(c->why), "%s", ferry_errmsg());
	return ferry_fail(e, "%s", c->why);
}

void
creds_close(struct creds *c)
{
	if (c == NULL || c->cfg == NULL)
		return;
	config_keys_clear(&c->cur);
	explicit_bzero(c->signing_key, sizeof(c->signing_key));
	pthread_mutex_destroy(&c->lock);
	c->cfg = NULL;
}

/* Formats t as an ISO 8601 time into out (at least 32 bytes). */
static void
format_time(int64_t t, char *out, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * Replaces the keys with fresh ones.  A failure is returned only when the
 * keys in hand have expired; otherwise it is a warning.
 */
static ferry_err
refresh_locked(struct creds *c, int64_t now)
{
	struct config_keys v;
	char until[32];
	ferry_err e = c->why_err != FERRY_OK ? c->why_err : FERRY_ESYS;

	memset(&v, 0, sizeof(v));
	if (now >= c->next_try && (e = fetch(c->cfg, &v)) != FERRY_OK) {
		c->why_err = e = fetch_failure(e);
		snprintf(c->why, sizeof(c->why), "%s", ferry_errmsg());
	}
	format_time(
	    e == FERRY_OK ? v.expires : c->cur.expires, until, sizeof(until));
	if (e == FERRY_OK) {
		config_keys_clear(&c->cur);
		c->cur = v;
		c->key_date[0] = '\0';
		schedule_locked(c, now, 0);
		log_info("credentials refreshed%s%s",
		    v.expires ? ", valid until " : "", v.expires ? until : "");
		return FERRY_OK;
	}
	if (now >= c->cur.expires) {
		/* Requests fail at once until the next try. */
		if (now >= c->next_try)
			c->next_try = now + CREDS_RETRY_SECONDS;
		return ferry_fail(c->why_err,
		    "credentials expired at %s and could not be refreshed: %s",
		    until, c->why);
	}
	schedule_locked(c, now, 1);
	log_warn("could not refresh credentials (keeping those valid until "
	         "%s): %s",
	    until, c->why);
	return FERRY_OK;
}

/* Fills u from the current keys, deriving the day's key when needed. */
static ferry_err
use_locked(
    struct creds *c, const char *date, const char *region, struct creds_use *u)
{
	ferry_err e;

	if (strncmp(c->key_date, date, 8) != 0 ||
	    strcmp(c->key_region, region) != 0) {
		memcpy(c->key_date, date, 8);
		c->key_date[8] = '\0';
		snprintf(c->key_region, sizeof(c->key_region), "%s", region);
		e = sigv4_signing_key(c->cur.secret_key, c->key_date,
		    c->key_region, "s3", c->signing_key);
		if (e != FERRY_OK) {
			c->key_date[0] = '\0';
			return e;
		}
	}
	snprintf(u->access_key, sizeof(u->access_key), "%s", c->cur.access_key);
	memcpy(u->signing_key, c->signing_key, sizeof(u->signing_key));
	if (c->cur.session_token != NULL &&
	    (u->session_token = strdup(c->cur.session_token)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	return FERRY_OK;
}

ferry_err
creds_get(
    struct creds *c, const char *date, const char *region, struct creds_use *u)
{
	int64_t now = (int64_t)time(NULL);
	ferry_err e = FERRY_OK;

	memset(u, 0, sizeof(*u));
	pthread_mutex_lock(&c->lock);
	if (c->cur.access_key == NULL)
		e = first_locked(c, now);
	else if (creds_due(c->cur.expires, now, c->cfg->refresh_margin) &&
	         (now >= c->next_try || now >= c->cur.expires))
		e = refresh_locked(c, now);
	if (e == FERRY_OK)
		e = use_locked(c, date, region, u);
	pthread_mutex_unlock(&c->lock);
	if (e != FERRY_OK)
		creds_use_clear(u);
	return e;
}

void
creds_use_clear(struct creds_use *u)
{
	if (u == NULL)
		return;
	free_secret(u->session_token);
	explicit_bzero(u, sizeof(*u));
}

static int
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

int
creds_same(struct creds *a, struct creds *b)
{
	struct creds *first = a < b ? a : b, *second = a < b ? b : a;
	int64_t now = (int64_t)time(NULL);
	int same;

	if (a == b)
		return 1;
	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock);
	/* Keys not fetched yet are fetched now (a failure shows later). */
	if (a->cur.access_key == NULL)
		(void)first_locked(a, now);
	if (b->cur.access_key == NULL)
		(void)first_locked(b, now);
	same = a->cur.access_key != NULL &&
	       same_str(a->cur.access_key, b->cur.access_key) &&
	       same_str(a->cur.secret_key, b->cur.secret_key) &&
	       same_str(a->cur.session_token, b->cur.session_token);
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
	return same;
}
