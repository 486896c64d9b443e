/*
 * notify.h: a watcher's word to its service manager, systemd's readiness
 * protocol (sd_notify(3)) spoken without libsystemd: datagrams to the
 * socket named by $NOTIFY_SOCKET (READY=1, STATUS=..., STOPPING=1) and
 * the pings $WATCHDOG_USEC asks for.  Private to sync/watch/.
 */
#ifndef FERRY_WATCH_NOTIFY_H
#define FERRY_WATCH_NOTIFY_H

#include <stdint.h>

struct watch_notify;

/*
 * Reads $NOTIFY_SOCKET and $WATCHDOG_USEC (and $WATCHDOG_PID, which
 * must be this process when set) and opens a datagram socket to the
 * first.  Returns the caller's handle, freed by watch_notify_close(), or
 * NULL when there is no service manager to tell, or none that can be
 * told (that said as a warning): every call then does nothing.
 */
struct watch_notify *watch_notify_open(void);
/*
 * Tells the service manager lines ("READY=1", "STOPPING=1", or NULL) and
 * status (the STATUS= value: what the watcher does, or NULL), in one
 * datagram; a status alone that is the one sent last is not sent again.
 * Then, from every call, a WATCHDOG=1 ping when half of $WATCHDOG_USEC
 * has gone since the last (now: now_mono_ns()).  Returns when the next
 * ping is due (INT64_MAX: never), for the caller's wait.  n may be NULL.
 */
int64_t watch_notify_send(
    struct watch_notify *n, const char *lines, const char *status, int64_t now);
/* Closes the socket and frees n; n may be NULL. */
void watch_notify_close(struct watch_notify *n);

#endif
