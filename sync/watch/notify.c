/*
 * notify.c: systemd's readiness protocol without libsystemd (notify.h).
 * A message is one datagram of NAME=value lines to the AF_UNIX socket
 * $NOTIFY_SOCKET names: a path, or an abstract socket when it begins with
 * '@' (sd_notify(3)).  A socket that cannot be used costs the watcher no
 * run: it is said once, and the watcher goes on untold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/common.h"
#include "sync/watch/notify.h"

#define STATUS_MAX 256

struct watch_notify {
	int fd;
	struct sockaddr_un addr;
	socklen_t addrlen;
	int64_t ping_ns; /* half of $WATCHDOG_USEC, or 0: no pings */
	int64_t next_ping_ns;
	int failed;              /* a send failed: said once */
	char status[STATUS_MAX]; /* the last STATUS= value sent */
};

/*
 * The watchdog's half period in ns from $WATCHDOG_USEC, 0 when unset,
 * not a number, or meant for another process ($WATCHDOG_PID).
 */
static int64_t
ping_period(void)
{
	const char *u = getenv("WATCHDOG_USEC"), *p = getenv("WATCHDOG_PID");
	unsigned long long usec;
	char *end;

	if (u == NULL || *u == '\0')
		return 0;
	if (p != NULL && *p != '\0' &&
	    strtoll(p, NULL, 10) != (long long)getpid())
		return 0;
	errno = 0;
	usec = strtoull(u, &end, 10);
	if (errno || *end != '\0' || usec == 0 || usec > INT64_MAX / 1000) {
		log_warn("WATCHDOG_USEC='%s' is not a number of microseconds: "
		         "no watchdog pings",
		    u);
		return 0;
	}
	return (int64_t)usec * 1000 / 2;
}

/* Fills n's address from path; -1 when it cannot be one. */
static int
set_addr(struct watch_notify *n, const char *path)
{
	size_t len = strlen(path);

	if (len < 2 || len >= sizeof(n->addr.sun_path) ||
	    (path[0] != '/' && path[0] != '@'))
		return -1;
	n->addr.sun_family = AF_UNIX;
	memcpy(n->addr.sun_path, path, len);
	/* abstract: a NUL first, and the length says where it ends */
	if (path[0] == '@')
		n->addr.sun_path[0] = '\0';
	n->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
	                         (path[0] == '@' ? 0 : 1));
	return 0;
}

struct watch_notify *
watch_notify_open(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct watch_notify *n;

	if (path == NULL || *path == '\0')
		return NULL;
	if ((n = calloc(1, sizeof(*n))) == NULL) {
		log_warn("NOTIFY_SOCKET: out of memory: the service manager "
		         "is not told");
		return NULL;
	}
	if (set_addr(n, path) != 0) {
		log_warn("NOTIFY_SOCKET='%s' is not an absolute path or '@' "
		         "and a name: the service manager is not told",
		    path);
		free(n);
		return NULL;
	}
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n->fd < 0) {
		log_warn("NOTIFY_SOCKET: socket: %s: the service manager is "
		         "not told",
		    strerror(errno));
		free(n);
		return NULL;
	}
	n->ping_ns = ping_period();
	return n;
}

/* Sends the datagram buf[0..len); a failure is said once. */
static void
send_msg(struct watch_notify *n, const char *buf, size_t len)
{
	ssize_t s;

	do
		s = sendto(n->fd, buf, len, MSG_NOSIGNAL,
		    (const struct sockaddr *)&n->addr, n->addrlen);
	while (s < 0 && errno == EINTR);
	if (s >= 0) {
		n->failed = 0;
		return;
	}
	if (!n->failed)
		log_warn("NOTIFY_SOCKET: %s: the service manager was not told",
		    strerror(errno));
	n->failed = 1;
}

/* Whether status is the one sent last; if not, it is noted as sent. */
static int
status_same(struct watch_notify *n, const char *status)
{
	if (strcmp(n->status, status) == 0)
		return 1;
	snprintf(n->status, sizeof(n->status), "%s", status);
	return 0;
}

int64_t
watch_notify_send(
    struct watch_notify *n, const char *lines, const char *status, int64_t now)
{
	char msg[64 + STATUS_MAX];
	int len;

	if (n == NULL)
		return INT64_MAX;
	if (status != NULL && status_same(n, status) && lines == NULL)
		status = NULL;
	if (lines != NULL || status != NULL) {
		len = snprintf(msg, sizeof(msg), "%s%s%s%s", lines ? lines : "",
		    lines && status ? "\n" : "", status ? "STATUS=" : "",
		    status ? status : "");
		send_msg(n, msg,
		    len < (int)sizeof(msg) ? (size_t)len : sizeof(msg) - 1);
	}
	if (n->ping_ns == 0)
		return INT64_MAX;
	if (now >= n->next_ping_ns) {
		send_msg(n, "WATCHDOG=1", 10);
		n->next_ping_ns = now + n->ping_ns;
	}
	return n->next_ping_ns;
}

void
watch_notify_close(struct watch_notify *n)
{
	if (n == NULL)
		return;
	close(n->fd);
	free(n);
}
