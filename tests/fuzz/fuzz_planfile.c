/*
 * fuzz_planfile.c: parses the input as one plan-file line, and as a whole
 * plan file (written to a temporary file, opened, read to its end).
 * Whatever parses must hold what the parser promises.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/plan/planfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_line(const uint8_t *data, size_t size)
{
	static struct planfile_line l;

	if (planfile_parse_line((const char *)data, size, &l) != FERRY_OK)
		return;
	if (l.kind == PLANFILE_ACTION &&
	    (l.keylen == 0 || l.keylen > MANIFEST_KEY_MAX ||
	        strlen(l.key) != l.keylen || l.action > PLANFILE_DELETE))
		abort();
	/* a version, when named, is a string of 1 to 255 bytes */
	if (l.kind == PLANFILE_ACTION &&
	    (memchr(l.src.version_id, '\0', sizeof(l.src.version_id)) == NULL ||
	        memchr(l.dst.version_id, '\0', sizeof(l.dst.version_id)) ==
	            NULL))
		abort();
	if (l.kind == PLANFILE_HEADER &&
	    ((l.hdr.version != PLANFILE_VERSION &&
	         l.hdr.version != PLANFILE_VERSION_AT) ||
	        memchr(l.hdr.part, '\0', sizeof(l.hdr.part)) == NULL ||
	        (l.hdr.part[0] != '\0' && strchr(l.hdr.part, '/') == NULL)))
		abort();
}

static void
check_file(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz-planfile.XXXXXX";
	const struct planfile_line *l;
	struct planfile *pf;
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size &&
	    planfile_open(path, &pf) == FERRY_OK) {
		/* versions are read only from plans of version 2, and
		 * only of sources */
		while (planfile_next(pf, &l) == FERRY_OK)
			if (l->kind != PLANFILE_ACTION ||
			    l->dst.version_id[0] != '\0' ||
			    (l->src.version_id[0] != '\0' &&
			        planfile_header(pf)->version !=
			            PLANFILE_VERSION_AT))
				abort();
		planfile_close(pf);
	}
	close(fd);
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_line(data, size);
	check_file(data, size);
	return 0;
}
