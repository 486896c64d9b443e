/*
 * creds.h: the credentials a client signs with, and fresh ones before
 * they expire, from a credential_process, STS (a role assumed with a web
 * identity token or a source profile's keys), the container credentials
 * endpoint or the EC2 instance metadata service (IMDSv2).  Private to
 * remote/.
 */
#ifndef FERRY_CREDS_H
#define FERRY_CREDS_H

#include <pthread.h>
#include <stdint.h>

#include "common/common.h"
#include "remote/config.h"

/* Bounds on what a process or the metadata service may send. */
#define CREDS_MAX_OUTPUT (64 * 1024)
#define CREDS_MAX_KEY 256
#define CREDS_MAX_TOKEN (16 * 1024)
/* After a refresh that failed, or gave keys already due: wait this long. */
#define CREDS_RETRY_SECONDS 10

/*
 * The two JSON documents: a credential_process's, and the IMDS's (which
 * the container endpoint answers too).
 */
enum creds_format { CREDS_PROCESS, CREDS_IMDS };

/*
 * Parses len bytes of JSON into *out.  FERRY_EPARSE naming what is wrong
 * (not JSON, Version not 1, a field missing or not a string, a bad
 * Expiration), never quoting a value.  *out is zeroed on failure.
 */
ferry_err creds_parse(const char *json, size_t len, enum creds_format f,
    struct config_keys *out) FERRY_WUR;

/*
 * Non-zero when keys expiring at expires (0: never) should be refreshed at
 * now, that is when at most margin seconds remain.
 */
int creds_due(int64_t expires, int64_t now, int64_t margin);

/*
 * When to try again after a refresh at now that failed or gave keys
 * already due: CREDS_RETRY_SECONDS later, but not after they expire.
 */
int64_t creds_retry_at(int64_t expires, int64_t now);

/*
 * Runs cmd with /bin/sh -c, stdin from /dev/null, stderr to ours, and
 * parses what it prints.  It must exit 0 within timeout seconds; the
 * failure (FERRY_ESYS, FERRY_EPARSE, FERRY_ECANCEL) names profile, never
 * the command or its output.
 */
ferry_err creds_process_run(const char *cmd, const char *profile, int timeout,
    struct config_keys *out) FERRY_WUR;

/*
 * Asks the instance metadata service at endpoint ("http://host[:port]")
 * for the keys of the instance's role, IMDSv2 (a session token first).
 * Each request waits at most timeout_ms to connect and is tried attempts
 * times.  FERRY_ENET, FERRY_EHTTP or FERRY_EPARSE with the reason.
 */
ferry_err creds_imds_fetch(const char *endpoint, long timeout_ms,
    unsigned attempts, struct config_keys *out) FERRY_WUR;

/*
 * Parses len bytes of an STS reply (AssumeRoleResponse or
 * AssumeRoleWithWebIdentityResponse) into *out, Expiration included.
 * FERRY_ES3 with "Code: Message" for an ErrorResponse; FERRY_EPARSE
 * naming what is wrong, never quoting a value.  *out is zeroed on failure.
 */
ferry_err creds_sts_parse(
    const char *xml, size_t len, struct config_keys *out) FERRY_WUR;

/*
 * Asks cfg's STS for the keys of cfg->role_arn: AssumeRole signed with
 * src, or with src NULL AssumeRoleWithWebIdentity with the token read from
 * cfg->token_file now.  The failure names the action, the role and the
 * endpoint, never a token or a key.
 */
ferry_err creds_sts_fetch(const struct config *cfg,
    const struct config_keys *src, struct config_keys *out) FERRY_WUR;

/*
 * Asks the container credentials endpoint cfg->container_url, with the
 * authorization token (its file read now).  The failure names the URL.
 */
ferry_err creds_container_fetch(
    const struct config *cfg, struct config_keys *out) FERRY_WUR;

/*
 * Non-zero when url may be asked for keys as the container endpoint, as
 * the AWS SDKs allow: https, or http to a loopback address, "localhost",
 * 169.254.170.2 (ECS) or 169.254.170.23 and fd00:ec2::23 (EKS Pod
 * Identity).
 */
int creds_container_url_ok(const char *url);

/*
 * The live credentials of one client.  Everything but cfg is guarded by
 * lock: requests are signed on the loop's thread today, and the lock keeps
 * a refresh and a signer apart should that change.
 */
struct creds {
	pthread_mutex_t lock;
	const struct config *cfg; /* where fresh keys come from */
	struct config_keys cur;
	int64_t next_try;        /* no refresh before (0: any time) */
	ferry_err why_err;       /* how the last refresh failed */
	char why[512];           /* and why */
	char key_date[9];        /* the day signing_key was derived for */
	char key_region[64];     /* and the region */
	uint8_t signing_key[32]; /* for key_date and key_region */
};

/*
 * Prepares c to take keys from cfg, which must outlive it.  Nothing is
 * run or asked until keys are first needed, so that a client that sends
 * nothing needs no credentials.  On failure c needs no creds_close().
 */
ferry_err creds_open(struct creds *c, const struct config *cfg) FERRY_WUR;
void creds_close(struct creds *c);

/*
 * What one request is signed with: copies, valid until creds_use_clear(),
 * which wipes them.
 */
struct creds_use {
	char access_key[CREDS_MAX_KEY];
	char *session_token; /* NULL: none */
	uint8_t signing_key[32];
};

/*
 * Fills *u for a request dated date ("YYYYMMDD...") and signed for region,
 * fetching the keys
 * the first time (static ones copied, the process run, the metadata
 * service asked) and refreshing them when they are due.  A refresh that fails
 * while the keys are still valid warns and keeps them; once they have expired
 * it is the failure (then tried again no sooner than CREDS_RETRY_SECONDS
 * later). Thread-safe.
 */
ferry_err creds_get(struct creds *c, const char *date, const char *region,
    struct creds_use *u) FERRY_WUR;
void creds_use_clear(struct creds_use *u);

/* Non-zero when a and b hold the same keys now.  Thread-safe. */
int creds_same(struct creds *a, struct creds *b);

#endif
