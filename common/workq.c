/*
 * workq.c: worker threads with one queue in and one queue out, both under
 * one mutex.  Jobs are few and long (a part of several MiB each), so one
 * lock is no contention.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/workq.h"

#define WORKQ_MAX_THREADS 16

struct workq {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a job queued, or stopping */
	pthread_cond_t idle; /* a job finished */
	struct workq_job *in, **in_tail;
	struct workq_job *out, **out_tail;
	unsigned pending; /* submitted, done not yet called */
	unsigned running; /* taken by a worker, not yet in out */
	int stopping;
	void (*wake)(void *arg);
	void *arg;
	pthread_t threads[WORKQ_MAX_THREADS];
	unsigned nthreads;
};

static void *
worker(void *arg)
{
	struct workq *w = arg;
	struct workq_job *j;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->in == NULL && !w->stopping)
			pthread_cond_wait(&w->work, &w->lock);
		if (w->in == NULL)
			break;
		j = w->in;
		if ((w->in = j->next) == NULL)
			w->in_tail = &w->in;
		w->running++;
		pthread_mutex_unlock(&w->lock);
		j->run(j);
		pthread_mutex_lock(&w->lock);
		w->running--;
		j->next = NULL;
		*w->out_tail = j;
		w->out_tail = &j->next;
		pthread_cond_broadcast(&w->idle);
		if (w->wake)
			w->wake(w->arg);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void
stop_threads(struct workq *w)
{
	unsigned i;

	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->nthreads; i++)
		pthread_join(w->threads[i], NULL);
	w->nthreads = 0;
}

/* One worker a core, up to a few: the work is reads and hashing. */
unsigned
workq_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > WORKQ_CPU_THREADS_MAX ? WORKQ_CPU_THREADS_MAX : (unsigned)n;
}

ferry_err
workq_new(
    unsigned threads, void (*wake)(void *arg), void *arg, struct workq **out)
{
	struct workq *w;

	*out = NULL;
	if (threads == 0)
		threads = 1;
	if (threads > WORKQ_MAX_THREADS)
		threads = WORKQ_MAX_THREADS;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->idle, NULL);
	w->in_tail = &w->in;
	w->out_tail = &w->out;
	w->wake = wake;
	w->arg = arg;
	while (w->nthreads < threads &&
	       pthread_create(&w->threads[w->nthreads], NULL, worker, w) == 0)
		w->nthreads++;
	if (w->nthreads == 0) {
		workq_free(w);
		return ferry_fail(FERRY_ESYS, "cannot start a worker thread");
	}
	*out = w;
	return FERRY_OK;
}

void
workq_submit(struct workq *w, struct workq_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	*w->in_tail = j;
	w->in_tail = &j->next;
	w->pending++;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
}

unsigned
workq_collect(struct workq *w)
{
	struct workq_job *j, *next;
	unsigned n = 0;

	pthread_mutex_lock(&w->lock);
	j = w->out;
	w->out = NULL;
	w->out_tail = &w->out;
	pthread_mutex_unlock(&w->lock);
	/* done may submit again: it runs with the lock released */
	for (; j; j = next, n++) {
		next = j->next;
		pthread_mutex_lock(&w->lock);
		w->pending--;
		pthread_mutex_unlock(&w->lock);
		j->done(j);
	}
	return n;
}

unsigned
workq_wait(struct workq *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->out == NULL && w->pending > 0)
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return workq_collect(w);
}

unsigned
workq_pending(const struct workq *w)
{
	unsigned n;

	pthread_mutex_lock((pthread_mutex_t *)&w->lock);
	n = w->pending;
	pthread_mutex_unlock((pthread_mutex_t *)&w->lock);
	return n;
}

void
workq_free(struct workq *w)
{
	if (w == NULL)
		return;
	/* done may submit again: wait until nothing is pending */
	while (workq_wait(w) > 0)
		;
	stop_threads(w);
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
