/*
 * md5mb_lanes.h: the block function over eight lanes, included by md5mb.c
 * once per instruction set.  The includer defines LANES_FN, LANES_TARGET,
 * ROTL and FF, GG, HH, II on __m256i; they are undefined here after use.
 *
 * st[k][l] is word k of lane l's state; p[l] is lane l's next block.
 */
__attribute__((target(LANES_TARGET))) static void
LANES_FN(uint32_t st[4][MD5MB_LANES], const uint8_t *const p[MD5MB_LANES],
    size_t nblocks)
{
	const __m256i ones = _mm256_set1_epi32(-1);
	__m256i a, b, c, d, aa, bb, cc, dd, w[16], r[8];
	size_t off;
	unsigned l;

	(void)ones;
	a = _mm256_loadu_si256((const __m256i *)st[0]);
	b = _mm256_loadu_si256((const __m256i *)st[1]);
	c = _mm256_loadu_si256((const __m256i *)st[2]);
	d = _mm256_loadu_si256((const __m256i *)st[3]);
	for (off = 0; nblocks > 0; nblocks--, off += 64) {
		for (l = 0; l < 8; l++)
			r[l] =
			    _mm256_loadu_si256((const __m256i *)(p[l] + off));
		TRANSPOSE8(r, w);
		for (l = 0; l < 8; l++)
			r[l] = _mm256_loadu_si256(
			    (const __m256i *)(p[l] + off + 32));
		TRANSPOSE8(r, w + 8);
		aa = a;
		bb = b;
		cc = c;
		dd = d;
#define STEP(f, a, b, c, d, g, s, i)                                           \
	do {                                                                   \
		a = _mm256_add_epi32(                                          \
		    a, _mm256_add_epi32(                                       \
		           f(b, c, d), _mm256_add_epi32(w[g],                  \
		                           _mm256_set1_epi32((int)K[i]))));    \
		a = _mm256_add_epi32(b, ROTL(a, s));                           \
	} while (0)
#include "common/md5mb_steps.h"
#undef STEP
		a = _mm256_add_epi32(a, aa);
		b = _mm256_add_epi32(b, bb);
		c = _mm256_add_epi32(c, cc);
		d = _mm256_add_epi32(d, dd);
	}
	_mm256_storeu_si256((__m256i *)st[0], a);
	_mm256_storeu_si256((__m256i *)st[1], b);
	_mm256_storeu_si256((__m256i *)st[2], c);
	_mm256_storeu_si256((__m256i *)st[3], d);
}

#undef LANES_FN
#undef LANES_TARGET
#undef ROTL
#undef FF
#undef GG
#undef HH
#undef II
