/*
 * fuzz_xattr.c: what a reply's metadata says of a file's extended
 * attributes and ACL (sync/engine/xattr.c, acl.c).  The input is read as
 * a metadata value, an ACL's text and an ACL's binary xattr.  A value
 * that decodes must come out within its bounds and encode to a value that
 * decodes to the same bytes; an ACL's text that parses must be the text
 * its binary form gives back, and a binary form that reads must parse to
 * the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sync/engine/xattr.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
value(const uint8_t *data, size_t size)
{
	uint8_t out[XATTR_VALUE_MAX], again[XATTR_VALUE_MAX];
	size_t len, len2;
	struct buf b;

	if (xattr_value_decode(
	        (const char *)data, size, out, sizeof(out), &len) != 0) {
		if (len != 0)
			abort();
		return;
	}
	if (len > sizeof(out))
		abort();
	buf_init(&b, 4 * XATTR_VALUE_MAX);
	if (xattr_value_encode(out, len, &b) != FERRY_OK)
		abort();
	if (xattr_value_decode(b.data, b.len, again, sizeof(again), &len2) !=
	        0 ||
	    len2 != len || memcmp(out, again, len) != 0)
		abort();
	buf_free(&b);
}

static void
acl(const uint8_t *data, size_t size)
{
	uint8_t bin[XATTR_ACL_MAX], bin2[XATTR_ACL_MAX];
	char text[XATTR_ACL_MAX];
	size_t len, len2;

	if (acl_from_text((const char *)data, size, bin, sizeof(bin), &len) ==
	    0) {
		if (acl_to_text(bin, len, text, sizeof(text)) != 0 ||
		    strlen(text) != size || memcmp(text, data, size) != 0)
			abort();
	}
	if (acl_to_text(data, size, text, sizeof(text)) == 0) {
		if (acl_from_text(
		        text, strlen(text), bin2, sizeof(bin2), &len2) != 0 ||
		    len2 != size)
			abort();
		/* the ids of entries without one read as none */
		if (acl_to_text(bin2, len2, text, sizeof(text)) != 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	value(data, size);
	acl(data, size);
	(void)xattr_name_refused(s);
	free(s);
	return 0;
}
