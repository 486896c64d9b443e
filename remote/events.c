/*
 * events.c: the sockets of the multi loop, watched with epoll.
 *
 * libcurl says through its socket callback which sockets it waits on and
 * for what, and through its timer callback when it next wants to run; the
 * loop hands it each ready socket with curl_multi_socket_action().  Only
 * the transfers of a ready socket are visited, and curl need not poll
 * each socket again to find out what it may do, as curl_multi_perform()
 * does for every transfer on every call.  An eventfd in the same set
 * wakes the loop from other threads (remote_wakeup()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote/internal.h"

#define EVENTS_MAX 64

/*
 * What the epoll set holds for each descriptor (l->fds[fd]).  A socket
 * whose transfer has ended stays in the set, so that the next request on
 * the same connection costs no epoll_ctl() (curl drops the socket at the
 * end of every transfer and asks for it again at the next).  Only the
 * sockets ferry opens and closes for curl (FD_OURS) are kept so: a closed
 * descriptor leaves the set on its own, and only a close ferry makes can
 * clear the record before the number is used again.
 */
enum {
	FD_IN = 1,     /* in the set for reading */
	FD_OUT = 2,    /* in the set for writing */
	FD_HELD = 4,   /* in the set */
	FD_WANTED = 8, /* curl waits on it now */
	FD_OURS = 16   /* opened and closed by on_open() and on_close() */
};

/* Makes l->fds[fd] exist: 0, or -1 (out of memory). */
static int
fd_slot(struct remote_loop *l, int fd)
{
	size_t n = l->nfds ? l->nfds : 64;
	uint8_t *p;

	if (fd < 0)
		return -1;
	if ((size_t)fd < l->nfds)
		return 0;
	while (n <= (size_t)fd)
		n *= 2;
	if ((p = realloc(l->fds, n)) == NULL)
		return -1;
	memset(p + l->nfds, 0, n - l->nfds);
	l->fds = p;
	l->nfds = n;
	return 0;
}

/* CURLOPT_OPENSOCKETFUNCTION: a socket for a connection. */
static curl_socket_t
on_open(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct remote_loop *l = clientp;
	int s;

	(void)purpose;
	s = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	if (s < 0)
		return CURL_SOCKET_BAD;
	if (fd_slot(l, s) != 0) {
		close(s);
		return CURL_SOCKET_BAD;
	}
	l->fds[s] = FD_OURS;
	return s;
}

/* CURLOPT_CLOSESOCKETFUNCTION: closing takes s out of the set too. */
static int
on_close(void *clientp, curl_socket_t s)
{
	struct remote_loop *l = clientp;

	if (s >= 0 && (size_t)s < l->nfds)
		l->fds[s] = 0;
	return close(s);
}

void
loop_socket_options(struct remote_loop *l, CURL *c)
{
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, l);
	curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, on_close);
	curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, l);
}

/* Takes fd out of the set. */
static void
fd_drop(struct remote_loop *l, int fd)
{
	/* curl may have closed it already, which took it out */
	(void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	l->fds[fd] &= FD_OURS;
}

/* CURLMOPT_SOCKETFUNCTION: s is to be watched for what, or no longer. */
static int
on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct remote_loop *l = userp;
	struct epoll_event ev;
	unsigned want;
	int op;

	(void)easy;
	(void)socketp;
	if (fd_slot(l, s) != 0) {
		l->events_errno = ENOMEM;
		return -1;
	}
	if (what == CURL_POLL_REMOVE) {
		l->fds[s] &= ~FD_WANTED;
		if (!(l->fds[s] & FD_OURS))
			fd_drop(l, s);
		return 0;
	}
	want = ((what & CURL_POLL_IN) ? FD_IN : 0) |
	       ((what & CURL_POLL_OUT) ? FD_OUT : 0);
	if ((l->fds[s] & FD_HELD) && (l->fds[s] & (FD_IN | FD_OUT)) == want) {
		l->fds[s] |= FD_WANTED;
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events =
	    ((want & FD_IN) ? EPOLLIN : 0) | ((want & FD_OUT) ? EPOLLOUT : 0);
	ev.data.fd = s;
	op = (l->fds[s] & FD_HELD) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(l->epfd, op, s, &ev) != 0) {
		/* a number used again after a close ferry did not see */
		op = errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
		if (epoll_ctl(l->epfd, op, s, &ev) != 0) {
			l->events_errno = errno;
			return -1;
		}
	}
	l->fds[s] = (l->fds[s] & FD_OURS) | FD_HELD | FD_WANTED | want;
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: curl wants to run in ms, or not (-1). */
static int
on_timer(CURLM *multi, long ms, void *userp)
{
	struct remote_loop *l = userp;

	(void)multi;
	l->timer_ns = ms < 0 ? -1 : now_mono_ns() + (int64_t)ms * 1000000;
	return 0;
}

ferry_err
loop_events_init(struct remote_loop *l)
{
	struct epoll_event ev;

	l->timer_ns = -1;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->epfd < 0 || l->wakefd < 0)
		return ferry_fail(FERRY_ESYS, "cannot create an epoll set: %s",
		    strerror(errno));
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = l->wakefd;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) != 0)
		return ferry_fail(
		    FERRY_ESYS, "cannot watch an eventfd: %s", strerror(errno));
	curl_multi_setopt(l->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(l->multi, CURLMOPT_SOCKETDATA, l);
	curl_multi_setopt(l->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(l->multi, CURLMOPT_TIMERDATA, l);
	return FERRY_OK;
}

/* After curl_multi_cleanup(), which may still call on_socket(). */
void
loop_events_clear(struct remote_loop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->wakefd >= 0)
		close(l->wakefd);
	l->epfd = l->wakefd = -1;
	free(l->fds);
	l->fds = NULL;
	l->nfds = 0;
}

static ferry_err
act(struct remote_loop *l, curl_socket_t s, int bits)
{
	int running;

	if (curl_multi_socket_action(l->multi, s, bits, &running) != CURLM_OK)
		return ferry_fail(
		    FERRY_ENET, "curl_multi_socket_action failed");
	if (l->events_errno != 0) {
		errno = l->events_errno;
		l->events_errno = 0;
		return ferry_fail(
		    FERRY_ESYS, "cannot watch a socket: %s", strerror(errno));
	}
	return FERRY_OK;
}

ferry_err
loop_timer(struct remote_loop *l)
{
	if (l->timer_ns < 0 || l->timer_ns > now_mono_ns())
		return FERRY_OK;
	/* curl sets the next one from inside */
	l->timer_ns = -1;
	return act(l, CURL_SOCKET_TIMEOUT, 0);
}

/* What curl may do on a socket epoll reported with revents. */
static int
select_bits(uint32_t revents)
{
	int bits = 0;

	/* as curl's own poll check: an error or hang-up wakes either side */
	if (revents & (EPOLLIN | EPOLLERR | EPOLLHUP))
		bits |= CURL_CSELECT_IN;
	if (revents & (EPOLLOUT | EPOLLERR | EPOLLHUP))
		bits |= CURL_CSELECT_OUT;
	if (revents & EPOLLERR)
		bits |= CURL_CSELECT_ERR;
	return bits;
}

ferry_err
loop_wait(struct remote_loop *l, int timeout_ms)
{
	struct epoll_event ev[EVENTS_MAX];
	uint64_t count;
	int64_t left;
	ferry_err e;
	int i, n, fd;

	if (l->timer_ns >= 0) {
		left = (l->timer_ns - now_mono_ns() + 999999) / 1000000;
		if (left < timeout_ms)
			timeout_ms = left < 0 ? 0 : (int)left;
	}
	n = epoll_wait(l->epfd, ev, EVENTS_MAX, timeout_ms);
	if (n < 0 && errno != EINTR)
		return ferry_fail(
		    FERRY_ESYS, "epoll_wait failed: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (ev[i].data.fd == l->wakefd) {
			if (read(l->wakefd, &count, sizeof(count)) < 0 &&
			    errno != EAGAIN)
				return ferry_fail(FERRY_ESYS,
				    "cannot read an eventfd: %s",
				    strerror(errno));
			continue;
		}
		fd = ev[i].data.fd;
		/* a kept socket between transfers: the server closed it or
		 * spoke out of turn, which curl finds out when it reuses it */
		if (!(l->fds[fd] & FD_WANTED)) {
			fd_drop(l, fd);
			continue;
		}
		e = act(l, fd, select_bits(ev[i].events));
		if (e != FERRY_OK)
			return e;
	}
	return loop_timer(l);
}

void
loop_wake(struct remote_loop *l)
{
	uint64_t one = 1;

	/* a full counter (EAGAIN) has woken the loop already */
	(void)!write(l->wakefd, &one, sizeof(one));
}
