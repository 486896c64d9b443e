/*
 * fuzz_creds.c: the credential JSON of a credential_process and of the
 * instance metadata service (remote/creds.c) on arbitrary bytes, the first
 * byte choosing which; then the expiration parser on the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/creds.h"
#include "remote/remote.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_keys v;
	enum creds_format f;
	char *s;

	if (size == 0)
		return 0;
	f = data[0] & 1 ? CREDS_IMDS : CREDS_PROCESS;
	if (creds_parse((const char *)data + 1, size - 1, f, &v) != FERRY_OK) {
		/* A failure leaves nothing behind. */
		if (v.access_key || v.secret_key || v.session_token)
			abort();
	} else {
		/* Keys are non-empty and within their bounds, text that
		 * may go into a header: no control byte, no blank in the
		 * key id. */
		if (v.access_key == NULL || v.secret_key == NULL ||
		    *v.access_key == '\0' ||
		    strlen(v.access_key) >= CREDS_MAX_KEY ||
		    strlen(v.secret_key) >= CREDS_MAX_KEY ||
		    (v.session_token &&
		        strlen(v.session_token) >= CREDS_MAX_TOKEN) ||
		    v.expires < 0 ||
		    config_keys_check(v.access_key, v.secret_key,
		        v.session_token) != FERRY_OK ||
		    strchr(v.access_key, ' ') ||
		    ctl_find(v.secret_key, strlen(v.secret_key)) >= 0 ||
		    (v.session_token && ctl_find(v.session_token,
		                            strlen(v.session_token)) >= 0))
			abort();
		config_keys_clear(&v);
	}
	if ((s = malloc(size)) == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	(void)remote_parse_time_zoned(s);
	free(s);
	return 0;
}
