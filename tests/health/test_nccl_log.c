/*
 * test_nccl_log.c - pasted NCCL watchdog timeouts (src/health/nccl_log.h):
 * every real log of tests/fixtures/nccl/watchdog.txt gives its stated
 * verdict, the ranks that timed out, the ranks in no line and each named
 * rank's collective; a rank that reports several SeqNums keeps its lowest;
 * text with no whole watchdog line reads as nothing; explain prints the
 * reading above the nccl_timeout entry, and in JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/nccl_log.h"
#include "util/error.h"

#include "fixture_cases.h"

/* "0-10, 13" from the ranks in no line, as explain prints them */
static void missing_of(const struct nccl_log *l, char *buf, size_t cap)
{
	int m[NCCL_LOG_RANKS], n = 0;
	size_t k = 0;
	for (int r = 0; r <= l->max_rank; r++) {
		int in = l->excepted[r];
		for (int i = 0; i < l->n; i++)
			in |= l->w[i].rank == r;
		if (!in)
			m[n++] = r;
	}
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j + 1 < n && m[j + 1] == m[j] + 1)
			j++;
		if (j > i + 1) {
			k += (size_t)snprintf(buf + k, cap - k, "%s%d-%d", i ? ", " : "", m[i],
					      m[j]);
			i = j;
		} else {
			k += (size_t)snprintf(buf + k, cap - k, "%s%d", i ? ", " : "", m[i]);
		}
	}
	if (!n)
		snprintf(buf, cap, "-");
}

static void check(const struct fixture_case *k, void *ctx)
{
	static struct nccl_log l;
	int *seen = ctx;
	static const char *const all[] = {"same_collective", "different_collectives",
					  "different_seqnums"};
	const char *verdict = case_value(k, "verdict", NULL), *ranks = case_value(k, "ranks", NULL);
	const char *missing = case_value(k, "missing", NULL), *e;
	assert_non_null(verdict);
	assert_non_null(ranks);
	if (!nccl_log_parse(k->msg, k->len, &l))
		fail_msg("%s: not read", k->source);
	const char *got = nccl_verdict_id(nccl_log_verdict(&l, NULL));
	if (strcmp(got, verdict))
		fail_msg("%s: verdict %s, expected %s", k->source, got, verdict);
	for (int i = 0; i < 3; i++)
		seen[i] += !strcmp(verdict, all[i]);
	if (l.n != atoi(ranks))
		fail_msg("%s: %d ranks, expected %s", k->source, l.n, ranks);
	if (missing) {
		char m[512];
		missing_of(&l, m, sizeof(m));
		if (strcmp(m, missing))
			fail_msg("%s: in no line '%s', expected '%s'", k->source, m, missing);
	}
	for (int from = 0; (e = case_value(k, "rank", &from));) {
		int rank;
		long long seq, numel;
		char op[32];
		assert_int_equal(sscanf(e, "%d %lld %31s %lld", &rank, &seq, op, &numel), 4);
		const struct nccl_wait *w = NULL;
		for (int j = 0; j < l.n; j++)
			if (l.w[j].rank == rank)
				w = &l.w[j];
		if (!w)
			fail_msg("%s: rank %d not read", k->source, rank);
		if (w->seq != seq || strcmp(w->op, op) || w->numel_in != numel)
			fail_msg("%s: rank %d read as %lld %s %lld, expected %s", k->source, rank,
				 w->seq, w->op, w->numel_in, e);
	}
	for (int j = 1; j < l.n; j++)
		assert_true(l.w[j - 1].rank < l.w[j].rank);
}

static void real_logs(void **state)
{
	(void)state;
	int seen[3] = {0};
	assert_true(each_fixture_case(FIXTURES_DIR "/nccl/watchdog.txt", check, seen) >= 6);
	for (int i = 0; i < 3; i++)
		assert_true(seen[i] > 0);
}

/* A desync in sizes: the same collective, different NumelIn (no real log
 * at hand shows one; the lines' shape is PyTorch 2.4's). */
static void sizes_and_junk(void **state)
{
	(void)state;
	static struct nccl_log l;
	static const char m[] =
	    "[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
	    "timeout: WorkNCCL(SeqNum=9, OpType=ALLGATHER, NumelIn=100, NumelOut=200, "
	    "Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
	    "[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
	    "timeout: WorkNCCL(SeqNum=9, OpType=ALLGATHER, NumelIn=96, NumelOut=192, "
	    "Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n";
	int at;
	assert_int_equal(nccl_log_parse(m, sizeof(m) - 1, &l), 1);
	assert_string_equal(nccl_verdict_id(nccl_log_verdict(&l, &at)), "different_sizes");
	assert_int_equal(l.w[at].rank, 1);
	assert_int_equal(l.w[0].timeout_ms, 600000);
	assert_int_equal(l.w[0].ran_ms, 600010);
	static const char *const junk[] = {
	    "WorkNCCL(SeqNum=5, OpType=ALLREDUCE",
	    "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(OpType=X)",
	    "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 1 ms",
	    "[Rank 99999] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
	    "OpType=ALLREDUCE, Timeout(ms)=600000)",
	    "",
	};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(nccl_log_parse(junk[i], strlen(junk[i]), &l), 0);
}

static void explain_prints(void **state)
{
	(void)state;
	static const char q[] =
	    "[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, "
	    "NumelOut=5056, Timeout(ms)=600000) ran for 600026 milliseconds before timing out.\n"
	    "[rank3]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught "
	    "collective operation timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, "
	    "NumelIn=2106881, NumelOut=2106881, Timeout(ms)=600000) ran for 600013 milliseconds "
	    "before timing out.\n";
	struct explain_result r;
	char err[GS_ERR_LEN];
	assert_int_equal(explain_match(q, strlen(q), &r, err), 0);
	assert_string_equal(r.m[0].entry->id, "nccl_timeout");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q);
	explain_print_json(f, &r, q);
	fclose(f);
	assert_non_null(strstr(buf, "rank 3 is in ALLREDUCE and rank 7 in BROADCAST"));
	assert_non_null(strstr(buf, "ranks 0-2, 4-6"));
	assert_non_null(strstr(buf, "\"verdict\": \"different_collectives\""));
	assert_true(strstr(buf, "desync") < strstr(buf, "nccl_timeout:"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_logs),
	    cmocka_unit_test(sizes_and_junk),
	    cmocka_unit_test(explain_prints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
