/*
 * test_vhash.c: the digests verify computes of bytes it re-reads
 * (sync/cmd/verify.c): the ETag of a single-part object (the MD5) and of
 * a multipart one (the MD5 of the parts' MD5s, "-N"), however the bytes
 * are cut into the pieces fed, against the digests computed here whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "sync/cmd/verify.h"

#define LEN (5 * 1024 + 17)

static unsigned char data[LEN];

/* The ETag S3 gives len bytes of data uploaded in parts of ps (0: one). */
static void
want_etag(size_t len, size_t ps, char *out, size_t n)
{
	unsigned char d[16], all[16 * 16];
	unsigned int dl;
	size_t off, np = 0;
	char hex[33];

	if (ps == 0) {
		EVP_Digest(data, len, d, &dl, EVP_md5(), NULL);
		remote_etag_format(d, 0, out, n);
		return;
	}
	for (off = 0; off < len || np == 0; off += ps, np++)
		EVP_Digest(data + off, len - off < ps ? len - off : ps,
		    all + 16 * np, &dl, EVP_md5(), NULL);
	EVP_Digest(all, 16 * np, d, &dl, EVP_md5(), NULL);
	hex_encode(d, 16, hex);
	snprintf(out, n, "\"%s-%zu\"", hex, np);
}

/* The ETag vhash gives the same, fed in pieces of step bytes. */
static void
got_etag(size_t len, size_t ps, size_t step, char *out, size_t n)
{
	struct vhash h;
	uint8_t xxh[16];
	size_t off;

	assert_int_equal(vhash_init(&h, ps), FERRY_OK);
	for (off = 0; off < len; off += step)
		vhash_update(
		    &h, data + off, len - off < step ? len - off : step);
	vhash_final(&h, xxh, out, n);
	vhash_free(&h);
}

static void
test_etags(void **state)
{
	static const size_t lens[] = {0, 1, 1024, 4096, LEN};
	static const size_t parts[] = {0, 1024, 1000, 4096};
	static const size_t steps[] = {1, 7, 1024, 65536};
	char want[96], got[96];
	size_t i, j, k;

	(void)state;
	for (i = 0; i < LEN; i++)
		data[i] = (unsigned char)(i * 131 + 7);
	for (i = 0; i < sizeof(lens) / sizeof(*lens); i++)
		for (j = 0; j < sizeof(parts) / sizeof(*parts); j++)
			for (k = 0; k < sizeof(steps) / sizeof(*steps); k++) {
				want_etag(
				    lens[i], parts[j], want, sizeof(want));
				got_etag(lens[i], parts[j], steps[k], got,
				    sizeof(got));
				if (strcmp(want, got) != 0)
					fail_msg(
					    "%zu bytes, parts of %zu, "
					    "fed %zu at a time: %s, not %s",
					    lens[i], parts[j], steps[k], got,
					    want);
			}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_etags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
