/*
 * fuzz_listparts.c: a ListParts reply as a resumed upload reads it.  The
 * first four bytes choose the upload (its size and part size), the rest is
 * the reply; every part kept must fit the upload and carry an MD5 ETag.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/xml.h"
#include "sync/up/resume.h"
#include "sync/up/xfer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
on_part(const struct xml_part *p, void *arg)
{
	struct xfer *x = arg;
	int kept = resume_note_part(x, p->number, p->size, p->etag);

	if (kept && (p->number == 0 || p->number > x->t.nparts ||
	                p->size != part_len(x, p->number) ||
	                strcmp(x->part_etag[p->number - 1], p->etag) != 0 ||
	                !remote_etag_is_md5(x->part_etag[p->number - 1])))
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xfer x;
	uint32_t next;
	int trunc;

	if (size < 4)
		return 0;
	memset(&x, 0, sizeof(x));
	x.t.part_size = (uint64_t)(data[0] % 8 + 1) << 20;
	x.t.local.size = ((uint64_t)data[1] << 20) + data[2] * 4096 + data[3];
	x.t.nparts =
	    (uint32_t)((x.t.local.size + x.t.part_size - 1) / x.t.part_size);
	if (x.t.nparts == 0)
		x.t.nparts = 1;
	if ((x.part_etag = calloc(x.t.nparts, sizeof(*x.part_etag))) == NULL)
		return 0;
	(void)xml_list_parts_parse(
	    (const char *)data + 4, size - 4, on_part, &x, &trunc, &next);
	free(x.part_etag);
	return 0;
}
