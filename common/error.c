/* error.c: the per-thread failure detail and error names. */
#include <stdio.h>

#include "common.h"

static _Thread_local char detail[1024];

ferry_err
ferry_fail(ferry_err code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	return code;
}

const char *
ferry_errmsg(void)
{
	return detail;
}

const char *
ferry_err_name(ferry_err code)
{
	switch (code) {
	case FERRY_OK:
		return "success";
	case FERRY_ENOMEM:
		return "out of memory";
	case FERRY_ESYS:
		return "system error";
	case FERRY_ENET:
		return "network error";
	case FERRY_EHTTP:
		return "HTTP error";
	case FERRY_ES3:
		return "S3 error";
	case FERRY_EPARSE:
		return "parse error";
	case FERRY_EDB:
		return "manifest database error";
	case FERRY_EUSAGE:
		return "usage error";
	case FERRY_ECANCEL:
		return "cancelled";
	case FERRY_ECHANGED:
		return "file changed while read";
	case FERRY_ENOTFOUND:
		return "not found";
	case FERRY_ECREDS:
		return "no credentials";
	case FERRY_EBUSY:
		return "manifest busy";
	}
	return "unknown error";
}

const char *
ferry_err_token(ferry_err code)
{
	static const char *const tokens[] = {
	    [FERRY_OK] = "ok",
	    [FERRY_ENOMEM] = "no-memory",
	    [FERRY_ESYS] = "system",
	    [FERRY_ENET] = "network",
	    [FERRY_EHTTP] = "http",
	    [FERRY_ES3] = "s3",
	    /* malformed bytes: a reply that breaks the protocol or lies */
	    [FERRY_EPARSE] = "server-fault",
	    [FERRY_EDB] = "manifest",
	    [FERRY_EUSAGE] = "usage",
	    [FERRY_ECANCEL] = "cancelled",
	    [FERRY_ECHANGED] = "changed",
	    [FERRY_ENOTFOUND] = "not-found",
	    [FERRY_ECREDS] = "credentials",
	    [FERRY_EBUSY] = "busy",
	};

	if ((unsigned)code >= sizeof(tokens) / sizeof(tokens[0]) ||
	    tokens[code] == NULL)
		return "unknown";
	return tokens[code];
}
