/* log.c: leveled messages on stderr. */
#include <stdio.h>

#include "common.h"

int log_level = LOG_WARN;

void
log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	fputs("ferry: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
