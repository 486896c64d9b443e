/*
 * watch.h: the face of sync/watch/, which owns a sync that goes on
 * (sync --watch): after a push's run, inotify watches on the tree
 * (tree.h), their events coalesced over a settle time and run through
 * the same push, a full run where events may have been lost; after a
 * pull's or a mirror's, the source's listing polled (source.h); signals
 * that end it cleanly or have it read its filter files again
 * (reload.h), the holds that keep a lost source from deleting the
 * destination, and what it tells a service manager (notify.h).
 * Includes sync/up/, sync/down/ and the wings below them.
 */
#ifndef FERRY_WATCH_H
#define FERRY_WATCH_H

#include "sync/up/up.h"

/* Runs a push, a pull or a mirror, then keeps the destination in step
 * with the source until a signal.  Returns the exit status. */
int sync_watch(const struct sync_opts *o);

#endif
