/*
 * reload.h: what SIGHUP asks of a watcher: its filter files read again
 * (--exclude-from, --include-from, --files-from) before its next run.
 * Private to sync/watch/.
 */
#ifndef FERRY_WATCH_RELOAD_H
#define FERRY_WATCH_RELOAD_H

#include <stddef.h>

#include "sync/up/up.h"

/*
 * Makes the filters afresh from their files into *cur (the filters in
 * use, the caller's: freed here when replaced; NULL stands for o's), and
 * says how in why (n bytes).  Returns 1 when *cur was replaced, 0 when
 * there was no file to read, -1 when a file cannot be read or holds a
 * bad line: the filters in use are kept, since a run with none (or
 * fewer) would send, and with --delete delete, what they leave out.
 */
int watch_reload(
    const struct sync_opts *o, struct filter **cur, char *why, size_t n);

#endif
