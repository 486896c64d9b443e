/*
 * md5mb.c: MD5 of up to eight buffers in the lanes of one vector register.
 *
 * Each lane keeps its own state; every block, the eight lanes' 64-byte
 * blocks are loaded and transposed, so that one register holds word g of
 * every lane, and the 64 steps of MD5 run once for all eight.  Lanes that
 * run out of whole blocks sit out (their state saved and put back) while
 * the others go on; each lane's last partial block and padding are then
 * done one at a time, which is at most two blocks.
 */
#include <pthread.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/md5mb.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MD5MB_X86 1
#endif

static const uint32_t K[64] = {0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
    0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af,
    0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453,
    0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681,
    0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5,
    0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
    0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0,
    0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static const uint32_t INIT[4] = {
    0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

static uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* One lane's blocks, one word at a time: the tails, and the reference. */
static void
blocks_scalar(uint32_t st[4], const uint8_t *p, size_t nblocks)
{
	uint32_t a, b, c, d, w[16];
	unsigned j;

#define FF(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define GG(b, c, d) ((c) ^ ((d) & ((b) ^ (c))))
#define HH(b, c, d) ((b) ^ (c) ^ (d))
#define II(b, c, d) ((c) ^ ((b) | ~(d)))
#define STEP(f, a, b, c, d, g, s, i)                                           \
	do {                                                                   \
		a += f(b, c, d) + w[g] + K[i];                                 \
		a = b + (a << s | a >> (32 - s));                              \
	} while (0)

	for (; nblocks > 0; nblocks--, p += 64) {
		for (j = 0; j < 16; j++)
			w[j] = load_le32(p + 4 * j);
		a = st[0];
		b = st[1];
		c = st[2];
		d = st[3];
#include "common/md5mb_steps.h"
		st[0] += a;
		st[1] += b;
		st[2] += c;
		st[3] += d;
	}
#undef FF
#undef GG
#undef HH
#undef II
#undef STEP
}

/* The rest of a lane after its whole blocks in lanes: len < 64 bytes. */
static void
finish(uint32_t st[4], const uint8_t *p, size_t len, uint64_t total,
    uint8_t out[16])
{
	uint8_t pad[128] = {0};
	size_t n = len + 9 <= 64 ? 64 : 128;
	unsigned i;

	memcpy(pad, p, len);
	pad[len] = 0x80;
	for (i = 0; i < 8; i++)
		pad[n - 8 + i] = (uint8_t)((total * 8) >> (8 * i));
	blocks_scalar(st, pad, n / 64);
	for (i = 0; i < 16; i++)
		out[i] = (uint8_t)(st[i / 4] >> (8 * (i % 4)));
}

#ifdef MD5MB_X86
/*
 * Eight rows of eight words in, eight columns out: out[j] holds word j of
 * each of the rows r[0..7].
 */
#define TRANSPOSE8(r, out)                                                     \
	do {                                                                   \
		__m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]);                \
		__m256i t1 = _mm256_unpackhi_epi32(r[0], r[1]);                \
		__m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]);                \
		__m256i t3 = _mm256_unpackhi_epi32(r[2], r[3]);                \
		__m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]);                \
		__m256i t5 = _mm256_unpackhi_epi32(r[4], r[5]);                \
		__m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]);                \
		__m256i t7 = _mm256_unpackhi_epi32(r[6], r[7]);                \
		__m256i u0 = _mm256_unpacklo_epi64(t0, t2);                    \
		__m256i u1 = _mm256_unpackhi_epi64(t0, t2);                    \
		__m256i u2 = _mm256_unpacklo_epi64(t1, t3);                    \
		__m256i u3 = _mm256_unpackhi_epi64(t1, t3);                    \
		__m256i u4 = _mm256_unpacklo_epi64(t4, t6);                    \
		__m256i u5 = _mm256_unpackhi_epi64(t4, t6);                    \
		__m256i u6 = _mm256_unpacklo_epi64(t5, t7);                    \
		__m256i u7 = _mm256_unpackhi_epi64(t5, t7);                    \
		(out)[0] = _mm256_permute2x128_si256(u0, u4, 0x20);            \
		(out)[1] = _mm256_permute2x128_si256(u1, u5, 0x20);            \
		(out)[2] = _mm256_permute2x128_si256(u2, u6, 0x20);            \
		(out)[3] = _mm256_permute2x128_si256(u3, u7, 0x20);            \
		(out)[4] = _mm256_permute2x128_si256(u0, u4, 0x31);            \
		(out)[5] = _mm256_permute2x128_si256(u1, u5, 0x31);            \
		(out)[6] = _mm256_permute2x128_si256(u2, u6, 0x31);            \
		(out)[7] = _mm256_permute2x128_si256(u3, u7, 0x31);            \
	} while (0)

#define LANES_FN blocks_avx2
#define LANES_TARGET "avx2"
#define ROTL(x, s)                                                             \
	_mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))
#define FF(b, c, d)                                                            \
	_mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)))
#define GG(b, c, d)                                                            \
	_mm256_xor_si256(c, _mm256_and_si256(d, _mm256_xor_si256(b, c)))
#define HH(b, c, d) _mm256_xor_si256(_mm256_xor_si256(b, c), d)
#define II(b, c, d)                                                            \
	_mm256_xor_si256(c, _mm256_or_si256(b, _mm256_xor_si256(d, ones)))
#include "common/md5mb_lanes.h"

/* The same with AVX-512VL: one instruction per rotate and per function. */
#define LANES_FN blocks_avx512
#define LANES_TARGET "avx2,avx512f,avx512vl"
#define ROTL(x, s) _mm256_rol_epi32(x, s)
#define FF(b, c, d) _mm256_ternarylogic_epi32(b, c, d, 0xca)
#define GG(b, c, d) _mm256_ternarylogic_epi32(b, c, d, 0xe4)
#define HH(b, c, d) _mm256_ternarylogic_epi32(b, c, d, 0x96)
#define II(b, c, d) _mm256_ternarylogic_epi32(b, c, d, 0x39)
#include "common/md5mb_lanes.h"
#endif

static enum md5mb_impl impl = MD5MB_AUTO;
static pthread_once_t impl_once = PTHREAD_ONCE_INIT;

static int
cpu_has(enum md5mb_impl want)
{
	switch (want) {
	case MD5MB_AUTO:
	case MD5MB_SCALAR:
		return 1;
#ifdef MD5MB_X86
	case MD5MB_AVX2:
		return __builtin_cpu_supports("avx2");
	case MD5MB_AVX512:
		return __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl");
#else
	case MD5MB_AVX2:
	case MD5MB_AVX512:
		return 0;
#endif
	}
	return 0;
}

static void
impl_pick(void)
{
	if (impl != MD5MB_AUTO)
		return;
	impl = cpu_has(MD5MB_AVX512) ? MD5MB_AVX512
	       : cpu_has(MD5MB_AVX2) ? MD5MB_AVX2
	                             : MD5MB_SCALAR;
}

int
md5mb_use(enum md5mb_impl want)
{
	if (!cpu_has(want))
		return 0;
	impl = want;
	impl_pick();
	return 1;
}

/* Runs the lanes while at least one of them has a whole block left. */
static void
run_lanes(unsigned n, const uint8_t *const data[], const size_t len[],
    uint32_t st[4][MD5MB_LANES], size_t done[MD5MB_LANES])
{
	const uint8_t *p[MD5MB_LANES];
	uint32_t saved[4][MD5MB_LANES];
	size_t step, left;
	unsigned i, k, live;

	for (;;) {
		/* the fewest whole blocks any lane still has */
		step = 0;
		live = 0;
		for (i = 0; i < n; i++) {
			left = len[i] / 64 - done[i];
			if (left > 0 && (step == 0 || left < step))
				step = left;
			if (left > 0)
				live = i;
		}
		if (step == 0)
			return;
		memcpy(saved, st, sizeof(saved));
		for (i = 0; i < MD5MB_LANES; i++) {
			/* a lane out of blocks reads a live one's, then is put
			 * back */
			if (i < n && len[i] / 64 > done[i])
				p[i] = data[i] + done[i] * 64;
			else
				p[i] = data[live] + done[live] * 64;
		}
#ifdef MD5MB_X86
		if (impl == MD5MB_AVX512)
			blocks_avx512(st, p, step);
		else
			blocks_avx2(st, p, step);
#endif
		for (i = 0; i < n; i++) {
			if (len[i] / 64 > done[i]) {
				done[i] += step;
				continue;
			}
			for (k = 0; k < 4; k++)
				st[k][i] = saved[k][i];
		}
	}
}

/* The lanes' whole blocks: side by side, or one lane after another. */
static void
lanes(struct md5mb_ctx *c, const uint8_t *const data[], const size_t len[])
{
	uint32_t one[4];
	size_t done[MD5MB_LANES] = {0};
	unsigned i, k;

	if (c->n >= 2 && impl != MD5MB_SCALAR) {
		run_lanes(c->n, data, len, c->st, done);
		return;
	}
	for (i = 0; i < c->n; i++) {
		if (len[i] < 64)
			continue;
		for (k = 0; k < 4; k++)
			one[k] = c->st[k][i];
		blocks_scalar(one, data[i], len[i] / 64);
		for (k = 0; k < 4; k++)
			c->st[k][i] = one[k];
	}
}

void
md5mb_init(struct md5mb_ctx *c, unsigned n)
{
	unsigned i, k;

	pthread_once(&impl_once, impl_pick);
	c->n = n > MD5MB_LANES ? MD5MB_LANES : n;
	for (i = 0; i < MD5MB_LANES; i++) {
		c->total[i] = 0;
		for (k = 0; k < 4; k++)
			c->st[k][i] = INIT[k];
	}
}

void
md5mb_update(
    struct md5mb_ctx *c, const uint8_t *const data[], const size_t len[])
{
	unsigned i;

	lanes(c, data, len);
	for (i = 0; i < c->n; i++)
		c->total[i] += len[i] / 64 * 64;
}

void
md5mb_final(struct md5mb_ctx *c, unsigned i, const uint8_t *data, size_t len,
    uint8_t out[16])
{
	size_t whole = len / 64 * 64;
	uint32_t one[4];
	unsigned k;

	for (k = 0; k < 4; k++)
		one[k] = c->st[k][i];
	if (whole > 0)
		blocks_scalar(one, data, whole / 64);
	finish(one, data + whole, len - whole, c->total[i] + len, out);
}

void
md5mb(unsigned n, const uint8_t *const data[], const size_t len[],
    uint8_t out[][16])
{
	uint32_t st[4][MD5MB_LANES], one[4];
	size_t done[MD5MB_LANES] = {0};
	unsigned i, k;

	pthread_once(&impl_once, impl_pick);
	if (n > MD5MB_LANES)
		n = MD5MB_LANES;
	if (n < 2 || impl == MD5MB_SCALAR) {
		/* OpenSSL's own MD5 is the fastest for one buffer */
		for (i = 0; i < n; i++)
			EVP_Digest(
			    data[i], len[i], out[i], NULL, EVP_md5(), NULL);
		return;
	}
	for (k = 0; k < 4; k++)
		for (i = 0; i < MD5MB_LANES; i++)
			st[k][i] = INIT[k];
	run_lanes(n, data, len, st, done);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 4; k++)
			one[k] = st[k][i];
		finish(one, data[i] + done[i] * 64, len[i] - done[i] * 64,
		    len[i], out[i]);
	}
}
