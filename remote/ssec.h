/*
 * ssec.h: a customer-provided encryption key (SSE-C): read once from a
 * file or an environment variable, kept base64-encoded with its MD5, sent
 * with each request on an object and never shown.  Private to remote/.
 */
#ifndef FERRY_REMOTE_SSEC_H
#define FERRY_REMOTE_SSEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct remote_req;

/* The key as S3's headers carry it; on == 0: none.  Wiped on clear. */
struct ssec {
	int on;
	char key_b64[48]; /* base64 of the 32-byte key */
	char md5_b64[32]; /* base64 of its MD5 */
};

/*
 * Reads a key from text (len bytes): 32 bytes as they are, or their
 * base64 (44 characters), with trailing blanks and line ends ignored.
 * FERRY_EUSAGE for anything else, the key never quoted; key is wiped
 * then.
 */
ferry_err ssec_key_parse(
    const char *text, size_t len, uint8_t key[32]) FERRY_WUR;
/*
 * Loads the key named by spec: "env:NAME" reads the environment variable
 * NAME, anything else is a file's path.  FERRY_EUSAGE, naming the
 * variable or the file but never the key.
 */
ferry_err ssec_load(const char *spec, struct ssec *out) FERRY_WUR;
/* Wipes the key. */
void ssec_clear(struct ssec *s);
/*
 * Adds the key's three headers to q: for the object q reads or writes,
 * or with copy_source for the source of a copy.  Nothing when s is off.
 */
ferry_err ssec_headers(
    const struct ssec *s, struct remote_req *q, int copy_source) FERRY_WUR;

#endif
