/* signal.c: SIGINT and SIGTERM end a run cleanly at the next step. */
#include <signal.h>
#include <string.h>

#include "common.h"

/* Written only by the handler; the one mutable global besides log_level. */
volatile sig_atomic_t ferry_interrupted;

static void
on_signal(int sig)
{
	ferry_interrupted = sig;
}

void
ferry_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* a second signal kills at once: the default is restored */
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
