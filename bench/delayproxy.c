/*
 * delayproxy.c: a far-away path, simulated for bench/far.sh.  A TCP relay
 * on loopback that holds every chunk of bytes MS milliseconds before it
 * passes it on, each way, as a path of MS one way (2 x MS a round trip)
 * would; bandwidth is not limited.  The TCP handshake is the kernel's,
 * on loopback: with --handshake a new connection's first bytes wait one
 * round trip more, as a real path's handshake would make them, but in
 * the client's eyes that round trip is then part of its first exchange,
 * not of its connect (which a client such as curl times apart).  One
 * thread, epoll, no parsing, and no copying: the bytes held are spliced
 * from one socket into a pipe and later from the pipe into the other, so
 * that they never cross into this process.  A real path costs the
 * client's machine no CPU; on two cores shared with the client and the
 * gateway, the relay's own should be as small as it can be (read() and
 * write() through a buffer here cost 0.42-0.49 s of CPU a 512 MiB push
 * or pull at 10 ms each way, splice() 0.15-0.30 s).
 *
 *   delayproxy --upstream 127.0.0.1:PORT --delay MS [--port-file F]
 *              [--handshake]
 *
 * Listens on 127.0.0.1 on a port of the kernel's choosing, written to F
 * (or printed).  The upstream must be a loopback address.  Built by
 * bench/far.sh with the system's cc; not part of ferry.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256 * 1024)   /* a pipe's size: what one chunk holds */
#define QUEUE_CAP (8u << 20) /* bytes held one way before reading stops */
#define SPARE_MAX 1024       /* empty pipes kept for reuse */

/* Bytes read at one time, held in a pipe: spliced in from one socket and
 * out to the other, so that they never cross into this process. */
struct chunk {
	struct chunk *next;
	int64_t due; /* ns, CLOCK_MONOTONIC */
	size_t len, off;
	int fin;     /* the sender closed: shut the receiver's write side */
	int pipe[2]; /* what is held: len - off bytes */
};

/* One way of a connection: bytes read from fd[from], due at fd[to]. */
struct way {
	struct chunk *head, *tail;
	size_t bytes;
	int eof;     /* the reading side has ended */
	int done;    /* and its end was passed on */
	int blocked; /* the receiver's socket is full: wait for EPOLLOUT */
};

struct conn {
	struct conn *next, *prev;
	int fd[2];          /* 0: the client, 1: the upstream */
	int connected;      /* the upstream's connect() completed */
	int first;          /* no byte read from the client yet */
	struct way way[2];  /* 0: client to upstream, 1: back */
	uint32_t events[2]; /* what epoll watches on fd[i] */
};

static int64_t delay_ns;
static int handshake;
static struct sockaddr_in upstream;
static int ep;
static struct conn *conns;

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
watch(struct conn *c, int i, uint32_t ev)
{
	struct epoll_event e = {.events = ev};

	if (c->events[i] == ev)
		return;
	e.data.u64 = (uint64_t)(uintptr_t)c << 1 | (uint64_t)i;
	if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd[i], &e) != 0)
		perror("delayproxy: epoll_ctl");
	c->events[i] = ev;
}

/* Chunks passed on whole keep their pipe, empty, on a free list. */
static struct chunk *spare;
static unsigned nspare;

static struct chunk *
chunk_new(void)
{
	struct chunk *k = spare;

	if (k) {
		spare = k->next;
		nspare--;
	} else {
		if (!(k = malloc(sizeof(*k))))
			return NULL;
		if (pipe2(k->pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
			perror("delayproxy: pipe");
			free(k);
			return NULL;
		}
		/* fewer than a full pipe's worth is fine: it holds less */
		fcntl(k->pipe[0], F_SETPIPE_SZ, CHUNK);
	}
	k->next = NULL;
	k->len = k->off = 0;
	k->fin = 0;
	return k;
}

/* Keeps an emptied chunk for reuse; one that still holds bytes (its
 * connection ended first) is closed, so that none reach another. */
static void
chunk_free(struct chunk *k)
{
	if (k->off == k->len && nspare < SPARE_MAX) {
		k->next = spare;
		spare = k;
		nspare++;
		return;
	}
	close(k->pipe[0]);
	close(k->pipe[1]);
	free(k);
}

static void
conn_free(struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		struct chunk *k = c->way[i].head;

		while (k) {
			struct chunk *n = k->next;

			chunk_free(k);
			k = n;
		}
		close(c->fd[i]);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

/* What fd[i] should be watched for: input while its way has room and has
 * not ended, output while bytes due to it are held back by a full socket. */
static uint32_t
wanted(const struct conn *c, int i, int blocked)
{
	uint32_t ev = 0;
	const struct way *in = &c->way[i];

	if (!in->eof && in->bytes < QUEUE_CAP && (i == 0 || c->connected))
		ev |= EPOLLIN;
	if (blocked || (i == 1 && !c->connected))
		ev |= EPOLLOUT;
	return ev;
}

static void
push_chunk(struct way *w, struct chunk *k, int64_t due)
{
	k->due = due;
	if (w->tail)
		w->tail->next = k;
	else
		w->head = k;
	w->tail = k;
	w->bytes += k->len;
}

/* Reads what fd[i] has into its way.  -1: the connection is over. */
static int
take(struct conn *c, int i)
{
	struct way *w = &c->way[i];
	int64_t due = now_ns() + delay_ns;
	struct chunk *k;
	int reads = 0;

	if (w->eof || w->bytes >= QUEUE_CAP)
		return 0;
	if (i == 0 && c->first && handshake)
		due += 2 * delay_ns;
	if (!(k = chunk_new()))
		return -1;
	/* a few reads at a time, so that passing on keeps pace */
	while (k->len < CHUNK && w->bytes + k->len < QUEUE_CAP && reads++ < 4) {
		ssize_t n = splice(c->fd[i], NULL, k->pipe[1], NULL,
		    CHUNK - k->len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			chunk_free(k);
			return -1;
		}
		if (n == 0) {
			w->eof = 1;
			break;
		}
		k->len += (size_t)n;
		if (i == 0)
			c->first = 0;
	}
	if (k->len)
		push_chunk(w, k, due);
	else
		chunk_free(k);
	if (w->eof) {
		if (!(k = chunk_new()))
			return -1;
		k->fin = 1;
		push_chunk(w, k, due);
	}
	return 0;
}

/* Passes on what is due of way i (to fd[!i]).  *blocked: the receiver's
 * socket is full.  -1: the connection is over. */
static int
give(struct conn *c, int i, int64_t now, int *blocked)
{
	struct way *w = &c->way[i];
	int to = !i;

	*blocked = w->blocked = 0;
	if (to == 1 && !c->connected)
		return 0;
	while (w->head && w->head->due <= now) {
		struct chunk *k = w->head;

		if (k->fin) {
			shutdown(c->fd[to], SHUT_WR);
			w->done = 1;
		} else {
			ssize_t n = splice(k->pipe[0], NULL, c->fd[to], NULL,
			    k->len - k->off, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (n < 0 &&
			    (errno == EAGAIN || errno == EWOULDBLOCK)) {
				*blocked = w->blocked = 1;
				return 0;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -1;
			k->off += (size_t)n;
			w->bytes -= (size_t)n;
			if (k->off < k->len)
				continue;
		}
		w->head = k->next;
		if (!w->head)
			w->tail = NULL;
		chunk_free(k);
	}
	return 0;
}

/* Moves what is due on c and sets what its sockets are watched for;
 * frees c when both ways have ended. */
static void
service(struct conn *c, int64_t now)
{
	int blocked[2] = {0, 0};

	for (int i = 0; i < 2; i++)
		if (give(c, i, now, &blocked[!i]) != 0) {
			conn_free(c);
			return;
		}
	if (c->way[0].done && c->way[1].done) {
		conn_free(c);
		return;
	}
	for (int i = 0; i < 2; i++)
		watch(c, i, wanted(c, i, blocked[i]));
}

static int
nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void
accept_one(int lfd)
{
	int one = 1;
	int cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	int ufd;
	struct conn *c;

	if (cfd < 0)
		return;
	ufd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	c = calloc(1, sizeof(*c));
	if (ufd < 0 || !c) {
		close(cfd);
		if (ufd >= 0)
			close(ufd);
		free(c);
		return;
	}
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(ufd, (struct sockaddr *)&upstream, sizeof(upstream)) == 0)
		c->connected = 1;
	else if (errno != EINPROGRESS) {
		close(cfd);
		close(ufd);
		free(c);
		return;
	}
	c->fd[0] = cfd;
	c->fd[1] = ufd;
	c->first = 1;
	c->next = conns;
	if (conns)
		conns->prev = c;
	conns = c;
	for (int i = 0; i < 2; i++) {
		struct epoll_event e = {.events = 0};

		e.data.u64 = (uint64_t)(uintptr_t)c << 1 | (uint64_t)i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd[i], &e) != 0)
			perror("delayproxy: epoll_ctl");
	}
	watch(c, 0, wanted(c, 0, 0));
	watch(c, 1, wanted(c, 1, 0));
}

static int
usage(void)
{
	fprintf(stderr, "usage: delayproxy --upstream 127.0.0.1:PORT "
	                "--delay MS [--port-file F] [--handshake]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	const char *up = NULL, *port_file = NULL;
	double ms = -1;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	int lfd, one = 1;
	struct epoll_event le = {.events = EPOLLIN};

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--upstream") && i + 1 < argc)
			up = argv[++i];
		else if (!strcmp(argv[i], "--delay") && i + 1 < argc)
			ms = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--port-file") && i + 1 < argc)
			port_file = argv[++i];
		else if (!strcmp(argv[i], "--handshake"))
			handshake = 1;
		else
			return usage();
	}
	if (!up || ms < 0 || ms > 10000)
		return usage();
	{
		char host[64];
		const char *colon = strrchr(up, ':');
		long port = colon ? strtol(colon + 1, NULL, 10) : 0;

		if (!colon || (size_t)(colon - up) >= sizeof(host) ||
		    port < 1 || port > 65535)
			return usage();
		memcpy(host, up, (size_t)(colon - up));
		host[colon - up] = '\0';
		upstream.sin_family = AF_INET;
		upstream.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &upstream.sin_addr) != 1 ||
		    (ntohl(upstream.sin_addr.s_addr) >> 24) != 127) {
			fprintf(stderr,
			    "delayproxy: the upstream must be "
			    "127.x.x.x:PORT, not %s\n",
			    up);
			return 2;
		}
	}
	delay_ns = (int64_t)(ms * 1e6);
	signal(SIGPIPE, SIG_IGN);
	{
		/* a pipe (two descriptors) per chunk held */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(lfd, 1024) != 0 || nonblock(lfd) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
		perror("delayproxy: listen");
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	le.data.u64 = UINT64_MAX;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &le) != 0) {
		perror("delayproxy: epoll");
		return 1;
	}
	if (port_file) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 ||
		    fclose(f) != 0 || rename(tmp, port_file) != 0) {
			perror("delayproxy: port file");
			return 1;
		}
	} else {
		printf("%u\n", ntohs(a.sin_port));
		fflush(stdout);
	}

	for (;;) {
		struct epoll_event evs[256];
		int64_t now = now_ns(), next = -1;
		int timeout, n;

		for (struct conn *c = conns; c; c = c->next)
			for (int i = 0; i < 2; i++) {
				const struct chunk *k = c->way[i].head;

				if (k && !c->way[i].blocked &&
				    (i == 1 || c->connected) &&
				    (next < 0 || k->due < next))
					next = k->due;
			}
		timeout = next < 0 ? -1
		          : next <= now
		              ? 0
		              : (int)((next - now + 999999) / 1000000);
		n = epoll_wait(ep, evs, 256, timeout);
		if (n < 0 && errno != EINTR) {
			perror("delayproxy: epoll_wait");
			return 1;
		}
		for (int j = 0; j < n; j++) {
			struct conn *c;
			int i;

			if (evs[j].data.u64 == UINT64_MAX) {
				for (int k = 0; k < 64; k++)
					accept_one(lfd);
				continue;
			}
			c = (struct conn *)(uintptr_t)(evs[j].data.u64 >> 1);
			i = (int)(evs[j].data.u64 & 1);
			if (i == 1 && !c->connected &&
			    (evs[j].events &
			        (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(
				    c->fd[1], SOL_SOCKET, SO_ERROR, &err, &el);
				if (err) {
					conn_free(c);
					/* a freed conn may have later events in
					 * this batch: start the batch over */
					break;
				}
				c->connected = 1;
			}
			if ((evs[j].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
			    take(c, i) != 0) {
				conn_free(c);
				break;
			}
		}
		now = now_ns();
		for (struct conn *c = conns, *nx; c; c = nx) {
			nx = c->next;
			service(c, now);
		}
	}
}
