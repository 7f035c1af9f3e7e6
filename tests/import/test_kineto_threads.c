/*
 * test_kineto_threads.c - the importer is reentrant (issue #15 item 5: no
 * static mutable state in kineto.c): two threads import the same traces
 * concurrently, with different progress options, and each result equals
 * the one imported alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "import/kineto.h"
#include "util/error.h"

static const char *files[] = {
    FIXTURES_DIR "/pytorch/transformer_step.json.gz",
    FIXTURES_DIR "/pytorch/small_ops.json.gz",
    FIXTURES_DIR "/kineto-synthetic/overlap.json",
};

/* a digest of what a wrong parse would change: counts, times, names, depths */
static uint64_t digest(const struct trace *t)
{
	uint64_t h = t->n_kernels * 31 + t->n_apis * 7 + t->n_ranges * 3 + t->n_syncs;
	for (size_t i = 0; i < t->n_kernels; i++)
		h = h * 1000003 ^ (uint64_t)t->kernels[i].start_ns ^ t->kernels[i].correlation ^
		    strlen(trace_str(t, t->kernels[i].name_id));
	for (size_t i = 0; i < t->n_ranges; i++)
		h = h * 1000003 ^ t->ranges[i].depth ^ (uint64_t)t->ranges[i].end_ns;
	for (size_t i = 0; i < t->n_syncs; i++)
		h = h * 1000003 ^ t->syncs[i].correlation;
	return h;
}

struct job {
	int progress;
	uint64_t calls; /* the progress callback's, with this job as its ctx */
	uint64_t got[3];
	int rc;
};

static void count(void *ctx, const struct kineto_progress *p)
{
	(void)p;
	((struct job *)ctx)->calls++;
}

static void *run(void *arg)
{
	struct job *j = arg;
	struct kineto_options o = {.progress = j->progress ? count : NULL, .progress_ctx = j};
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3; i++) {
			struct trace t;
			char err[GS_ERR_LEN];
			if (kineto_load_opt(&t, files[i], &o, err) < 0) {
				j->rc = -1;
				return NULL;
			}
			j->got[i] = digest(&t);
			trace_release(&t);
		}
	return NULL;
}

static void two_threads_agree(void **state)
{
	uint64_t want[3];
	for (int i = 0; i < 3; i++) {
		struct trace t;
		char err[GS_ERR_LEN];
		assert_int_equal(kineto_load(&t, files[i], err), 0);
		assert_true(t.n_kernels + t.n_ranges > 0);
		want[i] = digest(&t);
		trace_release(&t);
	}
	struct job a = {.progress = 1}, b = {.progress = 0};
	pthread_t ta, tb;
	assert_int_equal(pthread_create(&ta, NULL, run, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, run, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	assert_int_equal(a.rc, 0);
	assert_int_equal(b.rc, 0);
	assert_int_equal(b.calls, 0);
	for (int i = 0; i < 3; i++) {
		assert_true(a.got[i] == want[i]);
		assert_true(b.got[i] == want[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(two_threads_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
