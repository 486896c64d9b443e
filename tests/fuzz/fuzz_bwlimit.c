/*
 * fuzz_bwlimit.c: --bwlimit on arbitrary text.  A timetable taken has its
 * times in ascending order within the day and rates of 1K at least (or
 * none); one refused leaves no slot behind.
 */
#include <stdint.h>
#include <stdlib.h>

#include "remote/remote.h"
#include "tests/fuzz/fuzz.h"

#define LIMIT 4096

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct remote_bwlimit b;
	unsigned i;
	char *text;
	int m;

	if (n > LIMIT)
		return 0;
	text = fuzz_cstr(data, n);
	if (remote_bwlimit_parse(text, &b) != FERRY_OK && b.n != 0)
		abort();
	if (b.n > REMOTE_BWLIMIT_SLOTS)
		abort();
	for (i = 0; i < b.n; i++) {
		if (b.slot[i].minute < 0 || b.slot[i].minute >= 24 * 60 ||
		    (i > 0 && b.slot[i].minute <= b.slot[i - 1].minute) ||
		    (b.slot[i].rate != 0 && b.slot[i].rate < 1024))
			abort();
	}
	for (m = 0; m < 24 * 60; m += 7)
		(void)remote_bwlimit_rate(&b, m);
	free(text);
	return 0;
}
