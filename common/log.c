/*
 * log.c: leveled messages on stderr.  A message quotes keys, paths and
 * servers' words, so it is escaped (text_escape) before it is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int log_level = LOG_WARN;

/* Writes "ferry: ", the escaped text and a newline in one write. */
static void
write_line(const char *text, size_t n)
{
	static const char pre[] = "ferry: ";
	char small[2048], *line = small;
	size_t need = sizeof(pre) + TEXT_ESCAPE_SIZE(n), len;

	if (need > sizeof(small) && (line = malloc(need)) == NULL)
		return;
	memcpy(line, pre, sizeof(pre) - 1);
	len = sizeof(pre) - 1;
	len += text_escape(line + len, text, n);
	line[len++] = '\n';
	fwrite(line, 1, len, stderr);
	if (line != small)
		free(line);
}

void
log_msg(int level, const char *fmt, ...)
{
	char small[1024], *text = small;
	va_list ap;
	int n;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small) && (text = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(text, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (text == NULL) {
		text = small;
		n = sizeof(small) - 1;
	}
	write_line(text, (size_t)n);
	if (text != small)
		free(text);
}
