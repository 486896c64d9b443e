/*
 * test_md5mb.c: MD5 of several buffers side by side, against RFC 1321's
 * own test suite and against OpenSSL's MD5 of each buffer alone, for every
 * way this CPU can run it.
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

#include "common/md5mb.h"

static const enum md5mb_impl impls[] = {MD5MB_SCALAR, MD5MB_AVX2, MD5MB_AVX512};
static const char *const impl_names[] = {"scalar", "avx2", "avx512"};

static void
hex(const uint8_t d[16], char out[33])
{
	unsigned i;

	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* RFC 1321, appendix A.5, all eight lanes at once, each lane a vector. */
static void
test_rfc1321(void **state)
{
	static const struct {
		const char *in, *md5;
	} v[] = {
	    {"", "d41d8cd98f00b204e9800998ecf8427e"},
	    {"a", "0cc175b9c0f1b6a831c399e269772661"},
	    {"abc", "900150983cd24fb0d6963f7d28e17f72"},
	    {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
	    {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
	    {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	        "d174ab98d277d9f5a5611c2c9f419d9f"},
	    {"1234567890123456789012345678901234567890123456789012345678901234"
	     "5678901234567890",
	        "57edf4a22be3c955ac49da2e2107b67a"},
	};
	const size_t nv = sizeof(v) / sizeof(v[0]);
	const uint8_t *data[MD5MB_LANES];
	size_t len[MD5MB_LANES];
	uint8_t out[MD5MB_LANES][16];
	char got[33];
	unsigned i, k, ran = 0;

	(void)state;
	for (k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (!md5mb_use(impls[k]))
			continue;
		ran++;
		for (i = 0; i < MD5MB_LANES; i++) {
			data[i] = (const uint8_t *)v[i % nv].in;
			len[i] = strlen(v[i % nv].in);
		}
		md5mb(MD5MB_LANES, data, len, out);
		for (i = 0; i < MD5MB_LANES; i++) {
			hex(out[i], got);
			if (strcmp(got, v[i % nv].md5) != 0)
				fail_msg("%s lane %u: %s, not %s",
				    impl_names[k], i, got, v[i % nv].md5);
		}
	}
	assert_true(ran >= 1);
	assert_true(md5mb_use(MD5MB_AUTO));
}

/* Fills a buffer of max random bytes for each lane, from seed. */
static void
random_lanes(uint8_t *buf[MD5MB_LANES], size_t max, unsigned seed)
{
	unsigned i;
	size_t k;

	srand(seed);
	for (i = 0; i < MD5MB_LANES; i++) {
		assert_non_null(buf[i] = malloc(max));
		for (k = 0; k < max; k++)
			buf[i][k] = (uint8_t)rand();
	}
}

/*
 * Lanes of every length around the block and padding edges, of one length
 * and of many, and fewer lanes than there are: each lane's digest is the
 * one OpenSSL gives for that buffer alone.
 */
static void
test_against_openssl(void **state)
{
	static const size_t edges[] = {0, 1, 55, 56, 57, 63, 64, 65, 119, 120,
	    127, 128, 129, 1000, 4096, 65536 + 7};
	const size_t nedges = sizeof(edges) / sizeof(edges[0]);
	const size_t max = 65536 + 7 + 300;
	uint8_t *buf[MD5MB_LANES], out[MD5MB_LANES][16], want[16];
	const uint8_t *data[MD5MB_LANES];
	size_t len[MD5MB_LANES];
	unsigned i, k, trial, n, checked = 0;

	(void)state;
	random_lanes(buf, max, 1321);
	for (i = 0; i < MD5MB_LANES; i++)
		data[i] = buf[i];
	for (k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (!md5mb_use(impls[k]))
			continue;
		print_message("md5mb: %s\n", impl_names[k]);
		for (trial = 0; trial < 600; trial++) {
			n = 1 + (unsigned)rand() % MD5MB_LANES;
			for (i = 0; i < n; i++) {
				len[i] = edges[(unsigned)rand() % nedges];
				if (trial % 3 == 0)
					len[i] = edges[trial % nedges];
				else if (trial % 3 == 1)
					len[i] += (unsigned)rand() % 300;
			}
			md5mb(n, data, len, out);
			for (i = 0; i < n; i++) {
				EVP_Digest(data[i], len[i], want, NULL,
				    EVP_md5(), NULL);
				if (memcmp(want, out[i], 16) != 0)
					fail_msg("%s: trial %u lane %u of %u, "
					         "%zu bytes",
					    impl_names[k], trial, i, n, len[i]);
				checked++;
			}
		}
	}
	assert_true(checked > 1000);
	for (i = 0; i < MD5MB_LANES; i++)
		free(buf[i]);
	assert_true(md5mb_use(MD5MB_AUTO));
}

/*
 * Fed piece by piece, as parts streamed from a file are: lanes of their
 * own lengths, each in pieces of whole blocks of varying size, ending one
 * by one with a tail of any length, agree with OpenSSL over the whole.
 */
static void
test_pieces(void **state)
{
	const size_t max = 20000;
	uint8_t *buf[MD5MB_LANES], out[16], want[16];
	const uint8_t *data[MD5MB_LANES];
	size_t len[MD5MB_LANES], off[MD5MB_LANES], step[MD5MB_LANES];
	struct md5mb_ctx c;
	unsigned i, k, trial, n, live, checked = 0;

	(void)state;
	random_lanes(buf, max, 4096);
	for (k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (!md5mb_use(impls[k]))
			continue;
		for (trial = 0; trial < 300; trial++) {
			n = 1 + (unsigned)rand() % MD5MB_LANES;
			md5mb_init(&c, n);
			for (i = 0; i < n; i++) {
				len[i] = (size_t)rand() % max;
				off[i] = 0;
			}
			for (live = n; live > 0;) {
				for (i = 0; i < n; i++) {
					/* whole blocks, or none at all */
					step[i] = (size_t)(rand() % 40) * 64;
					if (off[i] > len[i] ||
					    step[i] > len[i] - off[i])
						step[i] = 0;
					data[i] = buf[i] + off[i];
				}
				md5mb_update(&c, data, step);
				for (i = 0; i < n; i++) {
					off[i] += step[i];
					if (off[i] > len[i] ||
					    len[i] - off[i] >= 64 * 40 ||
					    rand() % 3 != 0)
						continue;
					/* the rest, blocks and tail */
					md5mb_final(&c, i, buf[i] + off[i],
					    len[i] - off[i], out);
					off[i] = len[i] + 1;
					live--;
					EVP_Digest(buf[i], len[i], want, NULL,
					    EVP_md5(), NULL);
					if (memcmp(want, out, 16) != 0)
						fail_msg("%s: trial %u lane %u "
						         "of %u, %zu bytes",
						    impl_names[k], trial, i, n,
						    len[i]);
					checked++;
				}
			}
		}
	}
	assert_true(checked > 500);
	for (i = 0; i < MD5MB_LANES; i++)
		free(buf[i]);
	assert_true(md5mb_use(MD5MB_AUTO));
}

/* A lane reads only its own len bytes: the buffers end at a page's edge. */
static void
test_reads_in_bounds(void **state)
{
	uint8_t *pages[MD5MB_LANES], out[MD5MB_LANES][16], want[16];
	const uint8_t *data[MD5MB_LANES];
	size_t len[MD5MB_LANES];
	unsigned i, k;

	(void)state;
	for (k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (!md5mb_use(impls[k]))
			continue;
		for (i = 0; i < MD5MB_LANES; i++) {
			len[i] = 64 * (i + 1) + i;
			/* a heap block of exactly len: ASan sees any overrun */
			assert_non_null(pages[i] = malloc(len[i]));
			memset(pages[i], (int)(i * 37 + 1), len[i]);
			data[i] = pages[i];
		}
		md5mb(MD5MB_LANES, data, len, out);
		for (i = 0; i < MD5MB_LANES; i++) {
			EVP_Digest(
			    data[i], len[i], want, NULL, EVP_md5(), NULL);
			assert_memory_equal(want, out[i], 16);
			free(pages[i]);
		}
	}
	assert_true(md5mb_use(MD5MB_AUTO));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc1321),
	    cmocka_unit_test(test_against_openssl),
	    cmocka_unit_test(test_pieces),
	    cmocka_unit_test(test_reads_in_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
