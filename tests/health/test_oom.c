/*
 * test_oom.c - the numbers of pasted "CUDA out of memory" messages
 * (src/health/oom.h): every real message of tests/fixtures/oom/messages.txt
 * gets its stated verdict and figures; a container's message (this process
 * among the listed) takes the smallest listed use that holds PyTorch's
 * reserve for this process; text that is not an OOM message, or has no
 * figure beside the request, reads as nothing; explain prints the figures
 * and the verdict above the cuda_oom entry, and in JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/explain.h"
#include "health/oom.h"
#include "util/error.h"

#define MESSAGES FIXTURES_DIR "/oom/messages.txt"

static double field(const struct oom_numbers *o, const char *name, unsigned *bit)
{
	static const struct {
		const char *name;
		unsigned bit;
		size_t off;
	} f[] = {
	    {"request", OOM_REQ, offsetof(struct oom_numbers, request)},
	    {"total", OOM_TOTAL, offsetof(struct oom_numbers, total)},
	    {"free", OOM_FREE, offsetof(struct oom_numbers, free)},
	    {"process", OOM_PROC, offsetof(struct oom_numbers, process)},
	    {"alloc", OOM_ALLOC, offsetof(struct oom_numbers, alloc)},
	    {"unalloc", OOM_UNALLOC, offsetof(struct oom_numbers, unalloc)},
	    {"others", OOM_OTHERS, offsetof(struct oom_numbers, others)},
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(f[i].name, name)) {
			*bit = f[i].bit;
			return *(const double *)((const char *)o + f[i].off);
		}
	fail_msg("unknown field %s", name);
	return 0;
}

static double unit(const char *u)
{
	if (!strcmp(u, "GiB"))
		return 1073741824.0;
	if (!strcmp(u, "MiB"))
		return 1048576.0;
	fail_msg("unknown unit %s", u);
	return 0;
}

/* One case: its expectations and message, checked. */
struct kase {
	char source[512], verdict[64], expect[8][128], msg[8192];
	int n_expect;
	size_t len;
};

static void check(const struct kase *k)
{
	struct oom_numbers o;
	int ok = oom_parse(k->msg, k->len, &o);
	if (!ok)
		fail_msg("%s: not read", k->source);
	const char *got = oom_verdict_id(oom_verdict(&o, NULL));
	if (strcmp(got, k->verdict))
		fail_msg("%s: verdict %s, expected %s", k->source, got, k->verdict);
	for (int i = 0; i < k->n_expect; i++) {
		char name[32], u[16];
		double want;
		unsigned bit = 0;
		assert_int_equal(sscanf(k->expect[i], "%31s %lf %15s", name, &want, u), 3);
		double v = field(&o, name, &bit);
		if (!(o.have & bit))
			fail_msg("%s: %s not read", k->source, name);
		/* the message's figures have 3-4 significant digits */
		if (fabs(v - want * unit(u)) > 0.006 * unit(u))
			fail_msg("%s: %s %.4f %s, expected %s", k->source, name, v / unit(u), u,
				 k->expect[i]);
	}
}

static void real_messages(void **state)
{
	(void)state;
	FILE *f = fopen(MESSAGES, "r");
	assert_non_null(f);
	char line[8192];
	struct kase k;
	int n = 0, in = 0;
	static const char *const all[] = {"free_enough", "fragmented",	    "other_processes",
					  "non_pytorch", "outside_pytorch", "one_tensor",
					  "full",	 "larger_than_gpu"};
	int seen[8] = {0};
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "# source: ", 10)) {
			memset(&k, 0, sizeof(k));
			snprintf(k.source, sizeof(k.source), "%s", line + 10);
			k.source[strcspn(k.source, "\n")] = '\0';
			in = 1;
		} else if (!in) {
			continue;
		} else if (!strncmp(line, "# verdict: ", 11)) {
			snprintf(k.verdict, sizeof(k.verdict), "%s", line + 11);
			k.verdict[strcspn(k.verdict, "\n")] = '\0';
		} else if (!strncmp(line, "# expect: ", 10) && k.n_expect < 8) {
			snprintf(k.expect[k.n_expect++], 128, "%s", line + 10);
		} else if (!strcmp(line, "%%\n")) {
			check(&k);
			for (int i = 0; i < 8; i++)
				seen[i] += !strcmp(k.verdict, all[i]);
			n++;
			in = 0;
		} else {
			size_t l = strlen(line);
			assert_true(k.len + l < sizeof(k.msg));
			memcpy(k.msg + k.len, line, l);
			k.len += l;
		}
	}
	fclose(f);
	assert_int_equal(in, 0);
	assert_true(n >= 20);
	/* the fixture keeps at least one real message for each verdict */
	for (int i = 0; i < 8; i++)
		if (!seen[i])
			fail_msg("no real message with verdict %s", all[i]);
}

/* A container lists this process under its host pid; the others are what
 * is left of the GPU beside the smallest listed use that holds PyTorch's
 * reserve (the numbers of a message pasted without its source). */
static void container_listing(void **state)
{
	(void)state;
	static const char m[] =
	    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 90.00 MiB. GPU 0 has a "
	    "total capacity of 23.52 GiB of which 32.06 MiB is free. Process 323138 has 2.16 GiB "
	    "memory in use. Process 2514068 has 21.30 GiB memory in use. Of the allocated memory "
	    "1.52 GiB is allocated by PyTorch, and 85.39 MiB is reserved by PyTorch but "
	    "unallocated.";
	struct oom_numbers o;
	assert_int_equal(oom_parse(m, sizeof(m) - 1, &o), 1);
	assert_true(o.have & OOM_GUESSED);
	assert_true(fabs(o.process - 2.16 * 1073741824.0) < 1e6);
	assert_true(fabs(o.others - (23.52 - 2.16) * 1073741824.0 + 32.06 * 1048576.0) < 2e7);
	assert_string_equal(oom_verdict_id(oom_verdict(&o, NULL)), "other_processes");
	/* with the "this process" line, the listed are the others, none guessed */
	static const char m2[] =
	    "CUDA out of memory. Tried to allocate 19.36 GiB. GPU 0 has a total capacity of 47.40 "
	    "GiB of which 11.47 GiB is free. Including non-PyTorch memory, this process has 1.49 "
	    "GiB memory in use. Process 58488 has 11.00 GiB memory in use. Process 58482 has "
	    "12.66 GiB memory in use. Process 58486 has 10.76 GiB memory in use. Of the allocated "
	    "memory 1.02 GiB is allocated by PyTorch, and 164.03 MiB is reserved by PyTorch but "
	    "unallocated.";
	assert_int_equal(oom_parse(m2, sizeof(m2) - 1, &o), 1);
	assert_false(o.have & OOM_GUESSED);
	assert_true(fabs(o.others - 34.44 * 1073741824.0) < 0.02 * 1073741824.0);
	assert_string_equal(oom_verdict_id(oom_verdict(&o, NULL)), "other_processes");
}

static void not_numbers(void **state)
{
	(void)state;
	struct oom_numbers o;
	static const char *const t[] = {
	    "RuntimeError: CUDA error: out of memory",
	    "CUDA out of memory. Tried to allocate 2.00 GiB.",
	    "Tried to allocate lots (GPU 0; 6.00 GiB total capacity)",
	    "Tried to allocate 2.00 XiB (GPU 0; 6.00 GiB total capacity)",
	    "Tried to allocate 1",
	    "",
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(oom_parse(t[i], strlen(t[i]), &o), 0);
	/* the length bounds the text: nothing past it is read */
	static const char cut[] = "Tried to allocate 2.00 GiB (GPU 0; 6.00 GiB total capacity)";
	assert_int_equal(oom_parse(cut, 26, &o), 0);
}

/* explain says the figures and the verdict, text and JSON */
static void explain_prints(void **state)
{
	(void)state;
	static const char q[] =
	    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 "
	    "has a total capacty of 23.65 GiB of which 1.66 GiB is free. Including non-PyTorch "
	    "memory, this process has 20.81 GiB memory in use. Of the allocated memory 12.09 GiB "
	    "is allocated by PyTorch, and 4.84 GiB is reserved by PyTorch but unallocated.";
	struct explain_result r;
	char err[GS_ERR_LEN];
	assert_int_equal(explain_match(q, strlen(q), &r, err), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q);
	explain_print_json(f, &r, q);
	fclose(f);
	assert_non_null(strstr(buf, "GPU 0 (23.65 GiB)"));
	assert_non_null(strstr(buf, "4.84 GiB"));
	assert_non_null(strstr(buf, "expandable_segments:True"));
	assert_non_null(strstr(buf, "\"verdict\": \"fragmented\""));
	assert_non_null(strstr(buf, "\"request_bytes\": 3221225472"));
	/* the figures come before the catalogue's entry */
	assert_true(strstr(buf, "4.84 GiB") < strstr(buf, "cuda_oom"));
	free(buf);
	/* a PyTorch before 2.1 (its message's shape) has no expandable segments */
	static const char q2[] =
	    "RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU "
	    "0; 15.90 GiB total capacity; 13.13 GiB already allocated; 415.88 "
	    "MiB free; 14.80 GiB reserved in total by PyTorch)";
	assert_int_equal(explain_match(q2, strlen(q2), &r, err), 0);
	f = open_memstream(&buf, &len);
	explain_print_text(f, &r, q2);
	fclose(f);
	assert_non_null(strstr(buf, "max_split_size_mb"));
	assert_non_null(strstr(buf, "1.67 GiB"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_messages),
	    cmocka_unit_test(container_listing),
	    cmocka_unit_test(not_numbers),
	    cmocka_unit_test(explain_prints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
