/*
 * fuzz_shardranges.c: a --shard-ranges file (bytes from outside) on
 * arbitrary bytes, read for shard I of N with I and N from its first two
 * bytes.  Besides running clean under the sanitizers, a file taken must
 * give a range that is one: its start not after its end, and the keys it
 * holds matched, those before and after it not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/plan/shard.h"
#include "tests/fuzz/fuzz.h"

#define LIMIT (1 << 16)

static void
check_range(const struct shard *s)
{
	if (s->after && s->upto && strcmp(s->after, s->upto) > 0)
		abort();
	if (s->upto && s->upto[0] != '\0' &&
	    !shard_match(s, s->upto, strlen(s->upto)) &&
	    !(s->after && strcmp(s->after, s->upto) == 0))
		abort();
	if (s->after && shard_match(s, s->after, strlen(s->after)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shard s = {0};
	char *buf;

	if (size < 2 || size > LIMIT)
		return 0;
	s.count = 1 + data[1] % 16;
	s.index = data[0] % s.count;
	buf = fuzz_cstr(data + 2, size - 2);
	if (shard_ranges_parse(&s, buf, size - 2) == FERRY_OK) {
		if (!s.by_range)
			abort();
		check_range(&s);
	} else if (s.by_range || s.after || s.upto) {
		abort();
	}
	shard_clear(&s);
	free(buf);
	return 0;
}
