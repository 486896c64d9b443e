/*
 * workq.h: a few worker threads for work that would hold up the network
 * loop (reading and hashing file bytes).  A job runs on a worker; its done
 * function runs later on the thread that calls workq_collect(), in the
 * order the jobs finished.  The owner of a job keeps it alive until done.
 */
#ifndef FERRY_WORKQ_H
#define FERRY_WORKQ_H

#include "common/common.h"

struct workq_job {
	void (*run)(struct workq_job *j);  /* on a worker */
	void (*done)(struct workq_job *j); /* in workq_collect() */
	struct workq_job *next;
};

struct workq;

/*
 * How many workers to start for reading and hashing: the CPUs online, at
 * least 1 and at most WORKQ_CPU_THREADS_MAX.
 */
#define WORKQ_CPU_THREADS_MAX 4
unsigned workq_threads(void);

/*
 * Starts threads workers (at least one).  wake(arg), if not NULL, is called
 * from a worker each time a job finishes, to rouse the collecting thread.
 */
ferry_err workq_new(unsigned threads, void (*wake)(void *arg), void *arg,
    struct workq **out) FERRY_WUR;

/* Queues j; j->run and j->done must be set. */
void workq_submit(struct workq *w, struct workq_job *j);

/* Calls done for every job finished so far; returns how many. */
unsigned workq_collect(struct workq *w);

/*
 * Waits until a job has finished, unless none is pending, then calls done
 * for every job finished so far; returns how many (0: none was pending).
 */
unsigned workq_wait(struct workq *w);

/* Jobs submitted whose done has not been called yet. */
unsigned workq_pending(const struct workq *w);

/* Waits for every job submitted, calls their done, and frees w. */
void workq_free(struct workq *w);

#endif
