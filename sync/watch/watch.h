/*
 * watch.h: the face of sync/watch/, which owns a sync that goes on
 * (sync --watch): after a push's run, inotify watches on the tree
 * (tree.h), their events coalesced over a settle time and run through
 * the same push, a full run where events may have been lost, signals
 * that end it cleanly, the holds that keep a lost source from deleting
 * the destination, and what it tells a service manager (notify.h).
 * Includes sync/up/ and the wings below it.
 */
#ifndef FERRY_WATCH_H
#define FERRY_WATCH_H

#include "sync/up/up.h"

/* Runs a push, then keeps the bucket in step with the folder until a
 * signal.  Returns the exit status. */
int sync_watch(const struct sync_opts *o);

#endif
