/*
 * fuzz_config.c: the INI parser of the AWS shared files (remote/ini.c) on
 * arbitrary bytes, then lookups of the keys config_resolve() reads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/config.h"

static const char *const sections[] = {
    "default", "profile default", "profile dev", "services svc", "a"};
static const char *const keys[] = {"region", "aws_access_key_id",
    "aws_secret_access_key", "endpoint_url", "s3.endpoint_url",
    "s3.addressing_style", "services", "s3"};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ini *ini;
	const char *v;
	size_t i, j;

	if (ini_parse((const char *)data, size, &ini) != FERRY_OK) {
		/* A failure leaves nothing behind and says where. */
		if (ini != NULL)
			abort();
		return 0;
	}
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		(void)ini_has_section(ini, sections[i]);
		for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
			v = ini_get(ini, sections[i], keys[j]);
			/* Values are trimmed, and no value is longer than the
			 * input. */
			if (v != NULL && strlen(v) > size)
				abort();
			if (v != NULL && *v != '\0' &&
			    (v[0] == ' ' || v[strlen(v) - 1] == ' '))
				abort();
		}
	}
	ini_free(ini);
	return 0;
}
