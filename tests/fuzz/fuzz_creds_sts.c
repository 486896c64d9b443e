/*
 * fuzz_creds_sts.c: STS's XML replies (remote/creds_sts.c) on arbitrary
 * bytes; then the same bytes as a container endpoint URL
 * (remote/creds_container.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/creds.h"
#include "tests/fuzz/fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_keys v;
	char *s;

	if (creds_sts_parse((const char *)data, size, &v) != FERRY_OK) {
		/* A failure leaves nothing behind. */
		if (v.access_key || v.secret_key || v.session_token)
			abort();
	} else {
		/* Keys, token and expiry are all there, within bounds. */
		if (v.access_key == NULL || v.secret_key == NULL ||
		    v.session_token == NULL || *v.access_key == '\0' ||
		    strlen(v.access_key) >= CREDS_MAX_KEY ||
		    strlen(v.secret_key) >= CREDS_MAX_KEY ||
		    strlen(v.session_token) >= CREDS_MAX_TOKEN ||
		    v.expires <= 0)
			abort();
		config_keys_clear(&v);
	}
	s = fuzz_cstr(data, size);
	(void)creds_container_url_ok(s);
	free(s);
	return 0;
}
