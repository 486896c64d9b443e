/*
 * ssec.c: the customer-provided key of SSE-C, read from a file or the
 * environment and sent as S3 asks: the algorithm, the key in base64 and
 * the base64 of its MD5, for the object and for a copy's source.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "remote/internal.h"
#include "remote/ssec.h"

#define KEY_TEXT_MAX 128

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

ferry_err
ssec_key_parse(const char *text, size_t len, uint8_t key[32])
{
	uint8_t out[48];
	int n;

	if (len == 32) {
		memcpy(key, text, 32);
		return FERRY_OK;
	}
	while (len > 0 && is_blank(text[len - 1]))
		len--;
	/* base64 of 32 bytes: 44 characters, one '=' of padding */
	if (len != 44 || text[43] != '=' || text[42] == '=' ||
	    (n = EVP_DecodeBlock(out, (const unsigned char *)text, 44)) != 33) {
		explicit_bzero(key, 32);
		return ferry_fail(FERRY_EUSAGE,
		    "--sse-c-key: the key must be 32 bytes, or their base64 "
		    "(44 characters)");
	}
	memcpy(key, out, 32);
	explicit_bzero(out, sizeof(out));
	return FERRY_OK;
}

/* Reads up to KEY_TEXT_MAX bytes of the file path into text. */
static ferry_err
read_key_file(const char *path, char *text, size_t *len)
{
	char why[256];
	ferry_err e;
	int fd;

	*len = 0;
	if ((e = infile_open(path, &fd)) == FERRY_OK) {
		e = infile_read(fd, text, KEY_TEXT_MAX, len);
		close(fd);
	}
	if (e == FERRY_OK)
		return FERRY_OK;
	snprintf(why, sizeof(why), "%s", ferry_errmsg());
	return ferry_fail(FERRY_EUSAGE, "--sse-c-key %s: %s", path, why);
}

/* The key's text from spec into text (KEY_TEXT_MAX bytes). */
static ferry_err
key_text(const char *spec, char *text, size_t *len)
{
	const char *v;

	if (strncmp(spec, "env:", 4) != 0)
		return read_key_file(spec, text, len);
	if ((v = getenv(spec + 4)) == NULL || v[0] == '\0')
		return ferry_fail(FERRY_EUSAGE,
		    "--sse-c-key: the environment variable %.64s is not set",
		    spec + 4);
	*len = strlen(v);
	if (*len > KEY_TEXT_MAX)
		*len = KEY_TEXT_MAX;
	memcpy(text, v, *len);
	return FERRY_OK;
}

ferry_err
ssec_load(const char *spec, struct ssec *out)
{
	char text[KEY_TEXT_MAX];
	uint8_t key[32], md5[16];
	size_t len;
	ferry_err e;

	memset(out, 0, sizeof(*out));
	if ((e = key_text(spec, text, &len)) == FERRY_OK &&
	    (e = ssec_key_parse(text, len, key)) == FERRY_OK) {
		EVP_Digest(key, 32, md5, NULL, EVP_md5(), NULL);
		EVP_EncodeBlock((unsigned char *)out->key_b64, key, 32);
		EVP_EncodeBlock((unsigned char *)out->md5_b64, md5, 16);
		out->on = 1;
	}
	explicit_bzero(text, sizeof(text));
	explicit_bzero(key, sizeof(key));
	return e;
}

void
ssec_clear(struct ssec *s)
{
	if (s != NULL)
		explicit_bzero(s, sizeof(*s));
}

ferry_err
ssec_headers(const struct ssec *s, struct remote_req *q, int copy_source)
{
	const char *pre = copy_source ? "x-amz-copy-source-" : "x-amz-";
	char name[96];
	ferry_err e;

	if (!s->on)
		return FERRY_OK;
	snprintf(name, sizeof(name),
	    "%sserver-side-encryption-customer-algorithm", pre);
	if ((e = remote_req_header(q, name, "AES256")) != FERRY_OK)
		return e;
	snprintf(
	    name, sizeof(name), "%sserver-side-encryption-customer-key", pre);
	if ((e = remote_req_header(q, name, s->key_b64)) != FERRY_OK)
		return e;
	snprintf(name, sizeof(name),
	    "%sserver-side-encryption-customer-key-MD5", pre);
	return remote_req_header(q, name, s->md5_b64);
}
