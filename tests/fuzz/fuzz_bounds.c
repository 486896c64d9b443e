/*
 * fuzz_bounds.c: the readers of the numbers in reply headers (bounds.c)
 * on any bytes: what they accept stays within its bounds, a Content-Range
 * accepted prints back as the same numbers, and a ranged reply is judged
 * whole only when it names exactly the range asked for.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"
#include "tests/fuzz/fuzz.h"

static void
check_range(const char *s)
{
	struct remote_range r;
	struct remote_resp resp;
	char again[96];

	if (remote_parse_content_range(s, &r) != 0) {
		if (r.first || r.last || r.total || r.has_bytes)
			abort();
		return;
	}
	if (r.total > REMOTE_MAX_OBJECT)
		abort();
	if (!r.has_bytes)
		return;
	if (r.first > r.last || r.last >= r.total)
		abort();
	snprintf(again, sizeof(again), "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64,
	    r.first, r.last, r.total);
	if (remote_parse_content_range(again, &r) != 0)
		abort();
	memset(&resp, 0, sizeof(resp));
	resp.status = 206;
	resp.range = r;
	if (remote_resp_check_range(
	        &resp, r.first, r.last - r.first + 1, r.total) != FERRY_OK)
		abort();
	if (remote_resp_check_range(
	        &resp, r.first, r.last - r.first + 1, r.total + 1) == FERRY_OK)
		abort();
}

static void
check_numbers(const char *s)
{
	uint64_t v;
	int64_t t;

	if (remote_parse_size(s, REMOTE_MAX_OBJECT, &v) == 0 &&
	    v > REMOTE_MAX_OBJECT)
		abort();
	if (remote_parse_size(s, REMOTE_MAX_OBJECT, &v) != 0 && v != 0)
		abort();
	if (remote_parse_mtime_ns(s, &t) != 0 && t != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size > 256)
		return 0;
	s = fuzz_cstr(data, size);
	check_range(s);
	check_numbers(s);
	free(s);
	return 0;
}
