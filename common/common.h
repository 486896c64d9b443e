/*
 * common.h: the error type, logging, bounded buffers and small helpers
 * shared by every module of ferry.  Includes nothing of ours.
 */
#ifndef FERRY_COMMON_H
#define FERRY_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define FERRY_VERSION "0.1.0"

#define FERRY_WUR __attribute__((warn_unused_result))
#define FERRY_PRINTF(a, b) __attribute__((format(printf, a, b)))

/*
 * The one error type of the program.  Every function that can fail returns
 * one of these; the detail (errno, LMDB code, CURLcode, HTTP status, S3 code
 * and message, the key) is recorded once, where the failure is seen, with
 * ferry_fail().
 */
typedef enum ferry_err {
	FERRY_OK = 0,
	FERRY_ENOMEM,    /* allocation failed */
	FERRY_ESYS,      /* a system call failed (errno in the detail) */
	FERRY_ENET,      /* transport: connect, TLS, reset, timeout */
	FERRY_EHTTP,     /* an HTTP status with no S3 error code */
	FERRY_ES3,       /* an S3 <Error> reply */
	FERRY_EPARSE,    /* malformed bytes from outside */
	FERRY_EDB,       /* the LMDB manifest */
	FERRY_EUSAGE,    /* bad command line or configuration */
	FERRY_ECANCEL,   /* interrupted by a signal */
	FERRY_ECHANGED,  /* a local file changed while it was read */
	FERRY_ENOTFOUND, /* the object, bucket or file does not exist */
	FERRY_ECREDS,    /* no credentials found, or fetching them failed */
	FERRY_EBUSY      /* another run holds the manifest's lock */
} ferry_err;

/*
 * Records a formatted detail for the failure being returned and returns
 * code, so that callers write "return ferry_fail(FERRY_ESYS, ...)".  The
 * detail is per thread; it stays valid until the next ferry_fail() on the
 * same thread.
 */
ferry_err ferry_fail(ferry_err code, const char *fmt, ...) FERRY_PRINTF(2, 3);

/* Returns the detail of the last failure on this thread ("" if none). */
const char *ferry_errmsg(void);

/* Returns a static name for code, e.g. "network error". */
const char *ferry_err_name(ferry_err code);

/*
 * Returns the static word that names code in ferry's JSON output, e.g.
 * "network" or "server-fault": one per kind, stable across versions (see
 * ferry(1), JSON OUTPUT).
 */
const char *ferry_err_token(ferry_err code);

/* Logging to stderr.  log_level is read-only after option parsing. */
enum log_level { LOG_QUIET, LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };
extern int log_level;
void log_msg(int level, const char *fmt, ...) FERRY_PRINTF(2, 3);
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/*
 * A dynamic buffer that refuses to grow past the limit given at init.
 * data is always NUL-terminated when non-NULL (the NUL is not counted in
 * len).  buf_free() accepts a buffer that was only initialised.
 */
struct buf {
	char *data;
	size_t len;
	size_t cap;
	size_t limit;
};

void buf_init(struct buf *b, size_t limit);
/* Appends n bytes; FERRY_ENOMEM, or FERRY_EPARSE past the limit. */
ferry_err buf_append(struct buf *b, const void *p, size_t n) FERRY_WUR;
ferry_err buf_puts(struct buf *b, const char *s) FERRY_WUR;
ferry_err buf_printf(struct buf *b, const char *fmt, ...) FERRY_WUR
    FERRY_PRINTF(2, 3);
/* Keeps the allocation, forgets the contents. */
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* Wipes the contents (for secrets) before freeing. */
void buf_free_secret(struct buf *b);

/*
 * Parses a size with an optional K, M, G or T suffix (powers of 1024,
 * optionally followed by "i" and/or "B"), e.g. "8M", "5GiB", "4096".
 * FERRY_EUSAGE on anything else or on overflow.
 */
ferry_err parse_size(const char *s, uint64_t *out) FERRY_WUR;

/* Formats n bytes as "12.3 MiB" into out (at least 16 bytes). */
void format_size(uint64_t n, char *out, size_t outlen);

/* Writes 2*n lowercase hex digits and a NUL into out. */
void hex_encode(const uint8_t *in, size_t n, char *out);
/*
 * Makes room in the array *a, *cap elements of sz bytes of which n are
 * used, for one more: doubled (64 at first) when full.  0, or -1 when
 * out of memory (*a and *cap as they were).  Not thread-safe on one
 * array.
 */
int array_grow(void **a, size_t *cap, size_t n, size_t sz) FERRY_WUR;

/* The value of the hex digit c (either case), or -1 if it is not one. */
int hex_value(int c);

/*
 * Reads the 2*n hex digits at s (either case) into n bytes at out; 0, or
 * -1 at the first byte that is not a hex digit (a NUL stops it), with out
 * partly written.
 */
int hex_decode(const char *s, uint8_t *out, size_t n);

/*
 * Returns the code point of the UTF-8 sequence at u (n > 0 bytes left) and
 * its length in *len, or -1 for bytes that are not well-formed UTF-8
 * (overlong forms, surrogates and values past U+10FFFF included).
 */
long utf8_next(const unsigned char *u, size_t n, size_t *len);

/*
 * Text output of bytes from outside (keys, paths, a server's messages):
 * valid UTF-8 that prints shows as is; a backslash is doubled; tab, line
 * feed and carriage return show as \t, \n and \r; every other control
 * (C0, DEL, and C1 as its two bytes), every bidi control that reorders
 * text (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069, as
 * their three bytes) and every byte that is not part of valid UTF-8
 * shows as \xNN.  The text so made has no control byte and
 * reads back to the exact bytes.
 *
 * text_escape() writes the text of s[0..n) and a NUL into out, which has
 * room for TEXT_ESCAPE_SIZE(n) bytes, and returns its length.
 * text_print() writes it to f; returns 0, or -1 when a write failed.
 */
#define TEXT_ESCAPE_SIZE(n) (4 * (n) + 1)
size_t text_escape(char *out, const char *s, size_t n);
int text_print(FILE *f, const char *s, size_t n);

/*
 * The name of a temporary file of ferry's: a pull writes a file under
 * FERRY_TMP_PREFIX and twelve lowercase hex digits, then renames it.
 */
#define FERRY_TMP_PREFIX ".ferry-tmp-"
#define FERRY_TMP_DIGITS 12
/* Whether the n bytes at name are such a name. */
int ferry_tmp_name(const char *name, size_t n);

/*
 * The offset of the first control byte in s[0..n) that may not stand in
 * an HTTP header value (C0 but tab, and DEL; a NUL included), or -1 when
 * there is none.  Pure.
 */
long ctl_find(const char *s, size_t n);

/*
 * Opens the file a user named at path for reading, into *fd (the caller
 * closes it): without blocking, so that a fifo cannot hold the run, and
 * only when it is a regular file.  FERRY_ESYS (the errno's text) when it
 * cannot be opened, FERRY_EUSAGE saying what it is when it is not a
 * regular file; the caller adds the path.  *fd is -1 on failure.
 */
ferry_err infile_open(const char *path, int *fd) FERRY_WUR;
/*
 * Reads up to cap bytes of fd into p, again when a signal cut in; *got is
 * 0 at the end.  FERRY_ESYS (the errno's text) when the read failed.
 */
ferry_err infile_read(int fd, void *p, size_t cap, size_t *got) FERRY_WUR;

/* strdup that returns NULL for NULL. */
char *xstrdup(const char *s);

/* Frees a string after wiping it; accepts NULL. */
void free_secret(char *s);

/*
 * Set (to the signal number) by SIGINT or SIGTERM once
 * ferry_catch_signals() has run; a run stops at its next step.
 */
#include <signal.h>
extern volatile sig_atomic_t ferry_interrupted;
void ferry_catch_signals(void);

/* Monotonic clock in nanoseconds. */
int64_t now_mono_ns(void);

#endif
