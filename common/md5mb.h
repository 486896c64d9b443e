/*
 * md5mb.h: the MD5 of several buffers at once.  MD5 is one long chain of
 * dependent steps, so a single buffer cannot go faster than the chain; but
 * the chains of eight buffers side by side fill the lanes of one AVX2
 * register, for several times the bytes per second of hashing them one
 * after the other.  Used for the Content-MD5 of multipart parts.
 */
#ifndef FERRY_MD5MB_H
#define FERRY_MD5MB_H

#include <stddef.h>
#include <stdint.h>

#define MD5MB_LANES 8

/*
 * Writes the MD5 of data[i] (len[i] bytes) to out[i], for i below n (at
 * most MD5MB_LANES).  Buffers of one length go fastest: the lanes run
 * together for as many blocks as the shortest buffer has.
 */
void md5mb(unsigned n, const uint8_t *const data[], const size_t len[],
    uint8_t out[][16]);

/*
 * The same, fed a piece at a time: for parts streamed from a file through
 * a small buffer.  Each lane is a running MD5.
 */
struct md5mb_ctx {
	uint32_t st[4][MD5MB_LANES];
	uint64_t total[MD5MB_LANES];
	unsigned n;
};

/* Starts n lanes (at most MD5MB_LANES). */
void md5mb_init(struct md5mb_ctx *c, unsigned n);

/*
 * Adds len[i] bytes of data[i] to lane i, for i below the lanes' count:
 * whole 64-byte blocks only (len[i] a multiple of 64; 0 leaves the lane
 * as it is).
 */
void md5mb_update(
    struct md5mb_ctx *c, const uint8_t *const data[], const size_t len[]);

/* Ends lane i with its last len bytes (any number) and writes its MD5. */
void md5mb_final(struct md5mb_ctx *c, unsigned i, const uint8_t *data,
    size_t len, uint8_t out[16]);

/* The ways md5mb() can run, for tests and benchmarks. */
enum md5mb_impl {
	MD5MB_AUTO,   /* the fastest this CPU has (the default) */
	MD5MB_SCALAR, /* one buffer after another */
	MD5MB_AVX2,
	MD5MB_AVX512, /* AVX2 lanes with AVX-512VL rotates and ternary logic */
};

/* Chooses how md5mb() runs; 0 if this CPU cannot run it that way. */
int md5mb_use(enum md5mb_impl impl);

#endif
