/* test_workq.c: the worker threads that read and hash off the loop. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/workq.h"

#define NJOBS 200

struct job {
	struct workq_job j;
	unsigned n;
	pthread_t ran_on, done_on;
	int ran, done;
	unsigned *order; /* where done writes its n */
	unsigned *ndone;
	struct workq *requeue; /* done submits the job once more */
};

static unsigned wakes;
static pthread_mutex_t wakes_lock = PTHREAD_MUTEX_INITIALIZER;

static void
on_wake(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wakes_lock);
	wakes++;
	pthread_mutex_unlock(&wakes_lock);
}

static void
run(struct workq_job *wj)
{
	struct job *j = (struct job *)wj;

	j->ran_on = pthread_self();
	j->ran++;
	if (j->n % 7 == 0)
		usleep(1000);
}

static void
done(struct workq_job *wj)
{
	struct job *j = (struct job *)wj;

	j->done_on = pthread_self();
	j->done++;
	j->order[(*j->ndone)++] = j->n;
	if (j->requeue && j->done == 1)
		workq_submit(j->requeue, &j->j);
}

static void
jobs_init(struct job *jobs, unsigned *order, unsigned *ndone)
{
	unsigned i;

	memset(jobs, 0, NJOBS * sizeof(*jobs));
	*ndone = 0;
	for (i = 0; i < NJOBS; i++) {
		jobs[i].n = i;
		jobs[i].j.run = run;
		jobs[i].j.done = done;
		jobs[i].order = order;
		jobs[i].ndone = ndone;
	}
}

/* Every job runs once on a worker and is done once on the caller. */
static void
test_each_job_once(void **state)
{
	static struct job jobs[NJOBS];
	static unsigned order[NJOBS];
	unsigned i, ndone, seen[NJOBS] = {0};
	struct workq *w;

	(void)state;
	wakes = 0;
	jobs_init(jobs, order, &ndone);
	assert_int_equal(workq_new(3, on_wake, NULL, &w), FERRY_OK);
	for (i = 0; i < NJOBS; i++)
		workq_submit(w, &jobs[i].j);
	assert_true(workq_pending(w) <= NJOBS);
	while (ndone < NJOBS) {
		workq_collect(w);
		usleep(100);
	}
	assert_int_equal(workq_pending(w), 0);
	for (i = 0; i < NJOBS; i++) {
		assert_int_equal(jobs[i].ran, 1);
		assert_int_equal(jobs[i].done, 1);
		assert_false(pthread_equal(jobs[i].ran_on, pthread_self()));
		assert_true(pthread_equal(jobs[i].done_on, pthread_self()));
		seen[order[i]]++;
	}
	for (i = 0; i < NJOBS; i++)
		assert_int_equal(seen[i], 1);
	pthread_mutex_lock(&wakes_lock);
	assert_int_equal(wakes, NJOBS);
	pthread_mutex_unlock(&wakes_lock);
	workq_free(w);
}

/* workq_free waits for the jobs queued and calls their done, also for a
 * job submitted again from done. */
static void
test_free_finishes(void **state)
{
	static struct job jobs[NJOBS];
	static unsigned order[2 * NJOBS];
	unsigned i, ndone;
	struct workq *w;

	(void)state;
	jobs_init(jobs, order, &ndone);
	assert_int_equal(workq_new(2, NULL, NULL, &w), FERRY_OK);
	for (i = 0; i < NJOBS; i++) {
		jobs[i].requeue = i % 2 ? w : NULL;
		workq_submit(w, &jobs[i].j);
	}
	workq_free(w);
	assert_int_equal(ndone, NJOBS + NJOBS / 2);
	for (i = 0; i < NJOBS; i++) {
		assert_int_equal(jobs[i].ran, i % 2 ? 2 : 1);
		assert_int_equal(jobs[i].done, i % 2 ? 2 : 1);
	}
}

/* workq_wait returns once a job is done, and 0 when none is pending. */
static void
test_wait(void **state)
{
	static struct job jobs[NJOBS];
	static unsigned order[NJOBS];
	unsigned i, n, ndone, calls = 0;
	struct workq *w;

	(void)state;
	jobs_init(jobs, order, &ndone);
	assert_int_equal(workq_new(2, NULL, NULL, &w), FERRY_OK);
	assert_int_equal(workq_wait(w), 0);
	for (i = 0; i < NJOBS; i++)
		workq_submit(w, &jobs[i].j);
	while ((n = workq_wait(w)) > 0) {
		assert_true(n <= NJOBS);
		calls++;
	}
	assert_true(calls >= 1);
	assert_int_equal(ndone, NJOBS);
	assert_int_equal(workq_pending(w), 0);
	for (i = 0; i < NJOBS; i++)
		assert_int_equal(jobs[i].done, 1);
	workq_free(w);
	n = workq_threads();
	assert_true(n >= 1 && n <= WORKQ_CPU_THREADS_MAX);
}

/* Asking for no thread still gives one; free of NULL does nothing. */
static void
test_edges(void **state)
{
	static struct job jobs[NJOBS];
	static unsigned order[NJOBS];
	unsigned ndone;
	struct workq *w;

	(void)state;
	jobs_init(jobs, order, &ndone);
	assert_int_equal(workq_new(0, NULL, NULL, &w), FERRY_OK);
	workq_submit(w, &jobs[0].j);
	workq_free(w);
	assert_int_equal(jobs[0].done, 1);
	workq_free(NULL);
	assert_int_equal(workq_new(1000, NULL, NULL, &w), FERRY_OK);
	assert_int_equal(workq_collect(w), 0);
	workq_free(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_job_once),
	    cmocka_unit_test(test_free_finishes),
	    cmocka_unit_test(test_wait),
	    cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
