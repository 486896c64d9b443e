/*
 * reload.c: filter files read again on SIGHUP (reload.h).  The signal
 * only marks the wish (watch.c); the files are read between runs, never
 * during one, so that a run decides every key by one set of filters.
 */
#include <stdio.h>

#include "sync/watch/reload.h"

int
watch_reload(
    const struct sync_opts *o, struct filter **cur, char *why, size_t n)
{
	const struct filter *in_use = *cur ? *cur : o->filter;
	struct filter *fresh;
	size_t files = filter_files(in_use);

	if (files == 0) {
		snprintf(why, n, "SIGHUP: no filter file to read again");
		return 0;
	}
	if (filter_reload(in_use, &fresh) != FERRY_OK) {
		snprintf(why, n, "SIGHUP: %s: the filters in use are kept",
		    ferry_errmsg());
		return -1;
	}
	filter_free(*cur);
	*cur = fresh;
	snprintf(why, n, "SIGHUP: the filters were read again (%zu file%s)",
	    files, files == 1 ? "" : "s");
	return 1;
}
