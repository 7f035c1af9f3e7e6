/*
 * test_explain.c - the explain catalogue in both languages: every XID of the
 * catalogue (1-172) and every error-text entry is found by its number or id and
 * renders in English and Chinese with no message untranslated (#22 item 3);
 * matching is by words (#21 item 11); a query past the limit is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "health/explain.h"
#include "util/error.h"
#include "util/i18n.h"

static void match_one(const char *q, struct explain_result *r)
{
	char err[GS_ERR_LEN];
	assert_int_equal(explain_match(q, strlen(q), r, err), 0);
}

static void render(FILE *sink, const struct explain_result *r, const char *q)
{
	explain_print_text(sink, r, q);
	explain_print_json(sink, r, q);
}

static void whole_catalogue_both_languages(void **state)
{
	static const char *const langs[] = {"en", "zh"};
	FILE *sink = fopen("/dev/null", "w");
	size_t n = explain_n_entries();
	int nx;
	const struct xid_info *x = xid_table(&nx);
	struct explain_result r;
	char q[32];

	assert_int_equal(nx, 172); /* the catalogue's edition: XIDs 1-172 */
	for (int i = 0; i < nx; i++)
		assert_int_equal(x[i].code, i + 1);
	assert_true(n >= 40);
	for (int l = 0; l < 2; l++) {
		assert_int_equal(i18n_set_lang(langs[l]), 0);
		assert_int_equal(i18n_zh(), l);
		i18n_missing_reset();
		for (int i = 0; i < nx; i++) {
			snprintf(q, sizeof(q), "%d", x[i].code);
			match_one(q, &r);
			assert_true(r.n >= 1);
			assert_null(r.m[0].entry);
			assert_int_equal(r.m[0].xid, x[i].code);
			render(sink, &r, q);
		}
		for (size_t i = 0; i < n; i++) {
			const struct explain_entry *e = explain_entry(i);
			match_one(e->id, &r);
			assert_true(r.n >= 1);
			assert_ptr_equal(r.m[0].entry, e);
			render(sink, &r, e->id);
			/* every signature finds its own entry among the candidates */
			for (int k = 0; k < EXPLAIN_MAX_SIGS && e->sigs[k]; k++) {
				int found = 0;
				match_one(e->sigs[k], &r);
				for (int m = 0; m < r.n; m++)
					found |= r.m[m].entry == e;
				if (!found)
					fail_msg("signature '%s' does not find %s", e->sigs[k],
						 e->id);
			}
		}
		explain_print_list(sink, 0);
		explain_print_list(sink, 1);
		if (i18n_missing())
			fail_msg("%ld untranslated message(s), e.g. \"%s\"", i18n_missing(),
				 i18n_last_missing());
	}
	i18n_set_lang("en");
	fclose(sink);
}

static void words_not_substrings(void **state)
{
	static const char *const miss[] = {"bathroom", "zoom", "bloom filter",
					   "migrating the database", "the weather is nice"};
	struct explain_result r;
	for (size_t i = 0; i < sizeof(miss) / sizeof(miss[0]); i++) {
		match_one(miss[i], &r);
		assert_int_equal(r.n, 0);
	}
	match_one("OOM", &r);
	assert_string_equal(r.m[0].entry->id, "cuda_oom");
	match_one("MIG", &r);
	assert_string_equal(r.m[0].entry->id, "mig_enabled");
	/* an XID named anywhere, several in order */
	match_one("first Xid 13 then XID: 48 and xid79 at the end", &r);
	assert_true(r.n >= 3);
	assert_int_equal(r.m[0].xid, 13);
	assert_int_equal(r.m[1].xid, 48);
	assert_int_equal(r.m[2].xid, 79);
	/* "code 43" is Windows, not XID 43; "xid 4gb" is no XID */
	match_one("error code 43", &r);
	assert_string_equal(r.m[0].entry->id, "windows_code_43");
	match_one("xid 4gb", &r);
	assert_int_equal(r.xid_mentions, 0);
	/* Chinese finds the same entries in either output language */
	match_one("显存不足", &r);
	assert_string_equal(r.m[0].entry->id, "cuda_oom");
}

static void limits(void **state)
{
	struct explain_result r;
	char err[GS_ERR_LEN];
	size_t big = EXPLAIN_MAX_QUERY + 1;
	char *q = malloc(big);
	memset(q, 'a', big);
	assert_int_equal(explain_match(q, big, &r, err), -1);
	assert_non_null(strstr(err, "at most"));
	/* just under the limit, the signature at the very end still counts */
	size_t n = EXPLAIN_MAX_QUERY;
	memset(q, ' ', n);
	memcpy(q + n - 20, "CUDA out of memory", 18);
	assert_int_equal(explain_match(q, n, &r, err), 0);
	assert_string_equal(r.m[0].entry->id, "cuda_oom");
	assert_int_equal(explain_match("  ", 2, &r, err), -1);
	free(q);
}

/* One index, read by four threads at once, matches as explain_match does
 * on its own (no state outside the index and the call). */
static const char *const shared_queries[] = {
    "Xid 79: GPU has fallen off the bus",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "NCCL WARN Watchdog caught collective operation timeout",
    "CUDA driver version is insufficient for CUDA runtime version",
    "no CUDA-capable device is detected",
};
#define N_SHARED (sizeof(shared_queries) / sizeof(shared_queries[0]))

struct shared_job {
	const struct explain_index *x;
	struct explain_result r[N_SHARED];
	int rc;
};

static void *match_all(void *arg)
{
	struct shared_job *j = arg;
	char err[GS_ERR_LEN];
	for (int round = 0; round < 20; round++)
		for (size_t i = 0; i < N_SHARED; i++)
			j->rc |= explain_match_in(j->x, shared_queries[i],
						  strlen(shared_queries[i]), &j->r[i], err);
	return NULL;
}

static void index_shared_by_threads(void **state)
{
	(void)state;
	char err[GS_ERR_LEN];
	struct explain_index *x = explain_index_new(err);
	assert_non_null(x);
	struct shared_job jobs[4];
	pthread_t th[4];
	for (int k = 0; k < 4; k++) {
		memset(&jobs[k], 0, sizeof(jobs[k]));
		jobs[k].x = x;
		assert_int_equal(pthread_create(&th[k], NULL, match_all, &jobs[k]), 0);
	}
	for (int k = 0; k < 4; k++)
		pthread_join(th[k], NULL);
	for (size_t i = 0; i < N_SHARED; i++) {
		struct explain_result one;
		match_one(shared_queries[i], &one);
		assert_true(one.n > 0);
		for (int k = 0; k < 4; k++) {
			assert_int_equal(jobs[k].rc, 0);
			assert_int_equal(jobs[k].r[i].n, one.n);
			for (int m = 0; m < one.n; m++) {
				assert_ptr_equal(jobs[k].r[i].m[m].entry, one.m[m].entry);
				assert_int_equal(jobs[k].r[i].m[m].xid, one.m[m].xid);
				assert_true(jobs[k].r[i].m[m].score == one.m[m].score);
			}
		}
	}
	explain_index_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(whole_catalogue_both_languages),
	    cmocka_unit_test(words_not_substrings),
	    cmocka_unit_test(limits),
	    cmocka_unit_test(index_shared_by_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
