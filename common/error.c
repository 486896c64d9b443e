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
	}
	return "unknown error";
}
