/*
 * test_kineto_fast.c - the fast path (kineto_fast.c, kineto_lex.c) gives
 * the trace the yajl parse gives, row for row and string for string, on
 * every committed trace and on texts made to trip it (small chunks, a cut
 * pattern inside an element, no newlines, members after the events, a
 * top-level array, escapes, bad input with the same error message), with
 * and without the direct decoder (kineto_direct.c), and on elements made
 * for it: those it takes and those it must leave to the callbacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "import/kineto.h"
#include "import/kineto_int.h"
#include "util/error.h"

static const char *files[] = {
    FIXTURES_DIR "/pytorch/transformer_step.json.gz",
    FIXTURES_DIR "/pytorch/small_ops.json.gz",
    FIXTURES_DIR "/pytorch/bf16_gemm.json.gz",
    FIXTURES_DIR "/pytorch/healthy_train.json.gz",
    FIXTURES_DIR "/pytorch/dataloader_starved.json.gz",
    FIXTURES_DIR "/pytorch/item_every_step.json.gz",
    FIXTURES_DIR "/kineto-synthetic/small.json",
    FIXTURES_DIR "/kineto-synthetic/overlap.json",
    FIXTURES_DIR "/kineto-synthetic/profiler_ranges.json",
    FIXTURES_DIR "/kineto-synthetic/profiler_ranges_only.json",
    /* record_shapes: the embeddings' and attentions' input shapes kept */
    FIXTURES_DIR "/real/hf_bert_syncs.json.gz",
};

static const struct kineto_options variants[] = {
    {.threads = 2},
    {.threads = 1, .chunk_bytes = 4096},
    {.threads = 3, .chunk_bytes = 700},
};

static void files_match_yajl(void **state)
{
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct trace want, got;
		char err[GS_ERR_LEN];
		struct kineto_options y = {.yajl_only = 1};
		assert_int_equal(kineto_load_opt(&want, files[f], &y, err), 0);
		assert_true(want.n_kernels + want.n_ranges > 0);
		for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
			for (int nd = 0; nd < 2; nd++) {
				uint64_t direct = 0;
				struct kineto_options o = variants[v];
				o.no_direct = nd;
				o.direct_events = &direct;
				assert_int_equal(kineto_load_opt(&got, files[f], &o, err), 0);
				if (!kineto_same_trace(&want, &got))
					fail_msg("%s: variant %zu (direct decoder %s) differs "
						 "from yajl's trace",
						 files[f], v, nd ? "off" : "on");
				/* the direct decoder takes most real events (the rest:
				 * metadata, counters, ranges' metrics) */
				if (nd ? direct != 0 : direct * 2 < got.n_kernels + got.n_ranges)
					fail_msg("%s: variant %zu: %llu events decoded directly",
						 files[f], v, (unsigned long long)direct);
				trace_release(&got);
			}
		}
		trace_release(&want);
	}
}

/* The text of a .json.gz fixture written to a plain file (the workers
 * read plain files' chunks themselves, kineto_fast.c invariant 4; a .gz
 * is read by the splitter), keep bytes of it (all: 0). */
static void plain_copy(const char *gz, const char *path, size_t keep)
{
	gzFile in = gzopen(gz, "rb");
	FILE *out = fopen(path, "wb");
	assert_non_null(in);
	assert_non_null(out);
	char buf[65536];
	size_t total = 0;
	int n;
	while ((n = gzread(in, buf, sizeof(buf))) > 0) {
		size_t w = (size_t)n;
		if (keep && total + w > keep)
			w = keep - total;
		assert_int_equal(fwrite(buf, 1, w, out), w);
		total += w;
	}
	gzclose(in);
	assert_int_equal(fclose(out), 0);
}

static void plain_files_match_yajl(void **state)
{
	(void)state;
	char path[] = "/tmp/gs-kineto-fast-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	for (size_t f = 0; f < 6; f++) {
		/* whole, then cut inside the events (a truncated file: the same
		 * message both ways) */
		for (int cut = 0; cut < 2; cut++) {
			plain_copy(files[f], path, cut ? 30000 : 0);
			struct trace want, got;
			char ew[GS_ERR_LEN] = "", eg[GS_ERR_LEN] = "";
			struct kineto_options y = {.progress = 0, .yajl_only = 1};
			int rw = kineto_load_opt(&want, path, &y, ew);
			assert_int_equal(rw, cut ? -1 : 0);
			for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
				uint64_t direct = 0;
				struct kineto_options o = variants[v];
				o.direct_events = &direct;
				int rg = kineto_load_opt(&got, path, &o, eg);
				assert_int_equal(rg, rw);
				if (rw < 0) {
					assert_string_equal(eg, ew);
					continue;
				}
				if (!kineto_same_trace(&want, &got))
					fail_msg(
					    "%s as a plain file: variant %zu differs from yajl's "
					    "trace",
					    files[f], v);
				/* by the fast path, not yajl's parse after it gave up */
				if (direct * 2 < got.n_kernels + got.n_ranges)
					fail_msg("%s as a plain file: variant %zu: %llu events "
						 "decoded directly",
						 files[f], v, (unsigned long long)direct);
				trace_release(&got);
			}
			if (rw == 0)
				trace_release(&want);
		}
	}
	unlink(path);
}

/* both parses of text: the same outcome, the same trace or message;
 * direct: 1 with the direct decoder, 0 without */
static void same_as(const char *text, size_t chunk, int direct)
{
	struct trace a, b;
	char ea[GS_ERR_LEN] = "", eb[GS_ERR_LEN] = "";
	struct kineto_options y = {.yajl_only = 1},
			      f = {.threads = 0, .chunk_bytes = chunk, .no_direct = !direct},
			      g = {.threads = 2, .chunk_bytes = chunk, .no_direct = !direct};
	int ra = kineto_load_mem_opt(&a, text, strlen(text), &y, ea);
	int rb = kineto_load_mem_opt(&b, text, strlen(text), &f, eb);
	if (ra != rb || strcmp(ea, eb) != 0)
		fail_msg("outcome differs (%d '%s' vs %d '%s') on: %.80s", ra, ea, rb, eb, text);
	if (ra == 0 && !kineto_same_trace(&a, &b))
		fail_msg("trace differs on: %.80s", text);
	if (rb == 0)
		trace_release(&b);
	rb = kineto_load_mem_opt(&b, text, strlen(text), &g, eb);
	if (ra != rb || strcmp(ea, eb) != 0)
		fail_msg("threaded outcome differs (%d '%s' vs %d '%s')", ra, ea, rb, eb);
	if (ra == 0 && !kineto_same_trace(&a, &b))
		fail_msg("threaded trace differs on: %.80s", text);
	if (ra == 0)
		trace_release(&a);
	if (rb == 0)
		trace_release(&b);
}

static void same(const char *text, size_t chunk)
{
	same_as(text, chunk, 1);
	same_as(text, chunk, 0);
}

/* How many of text's events the direct decoder took (one thread, one chunk). */
static uint64_t direct_count(const char *text)
{
	struct trace t;
	char err[GS_ERR_LEN];
	uint64_t n = 0;
	struct kineto_options o = {.threads = 1, .direct_events = &n};
	if (kineto_load_mem_opt(&t, text, strlen(text), &o, err) == 0)
		trace_release(&t);
	return n;
}

#define EV(ts, name)                                                                               \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": 7, "    \
	"\"ts\": " #ts ".250, \"dur\": 3.5, \"args\": {\"correlation\": " #ts                      \
	", \"grid\": [1, 2, 3], \"block\": [32, 1, 1]}}"

static void texts_match_yajl(void **state)
{
	static const char *texts[] = {
	    /* pretty, many small chunks */
	    "{\n  \"traceEvents\": [\n  " EV(1, "a") ",\n  " EV(2, "b") ",\n  " EV(
		3,
		"a") ",\n  " EV(4,
				"c") "\n  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
				     "\"H200\", \"numSms\": "
				     "132}],\n  \"baseTimeNanoseconds\": 1700000000000000000\n}\n",
	    /* the cut pattern inside an element: a list of objects at the same indentation */
	    "{\n  \"traceEvents\": [\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"x\", "
	    "\"pid\": "
	    "1, \"tid\": 1, \"ts\": 1, \"dur\": 9, \"args\": {\"l\": [{\"a\": 1},\n  {\"b\": "
	    "2},\n  {\"c\": 3}]}},\n  " EV(5, "k") "\n  ]\n}",
	    /* no newlines at all */
	    "{\"traceEvents\":[" EV(1, "a") "," EV(2, "b") "],\"x\":1}",
	    /* a top-level array, escapes and UTF-8 in names */
	    "[\n" EV(1, "q\\\"uote\\\\back\\/slash\\n\\u00e9\\u4e2d") ",\n" EV(
		2, "\xc3\xa9\xe4\xb8\xad") "\n]",
	    /* members before and after the events, empty arrays, nested values */
	    "{\"schemaVersion\": 1, \"deviceProperties\": [], \"distributedInfo\": {\"rank\": 3, "
	    "\"world_size\": 8}, \"traceEvents\": [\n" EV(1, "a") "\n], \"after\": [1, [2, {\"x\": "
								  "[]}]], \"traceName\": \"t\"}",
	    "{\"traceEvents\": []}",
	    /* bad input: the messages must be yajl's */
	    "{\"traceEvents\": [\n" EV(1, "a") ",\n" EV(2, "b"),
	    "{\"traceEvents\": [\n" EV(1, "a") ",\n" EV(2, "b") ",\n]}",
	    "{\"traceEvents\": [\n" EV(1, "\xff") "]}",
	    "{\"traceEvents\": [\n" EV(1, "\\ud800") "]}",
	    "{\"traceEvents\": [\n" EV(1, "a") "]} trailing",
	    "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": "
	    "1e20, "
	    "\"ts\": 1, \"dur\": 1}\n]}",
	    "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": "
	    "1, "
	    "\"ts\": 01, \"dur\": 1}\n]}",
	    "{\"nothing\": 1}",
	    "",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (size_t chunk = 16; chunk <= 4096; chunk *= 4)
			same(texts[i], chunk);
}

/* Arrays after the events array that have its cut pattern: the workers
 * parse the chunks past the one holding its ']' too, and drain gives their
 * text back to the top level: those with a ']' of their own (the worker
 * kept a copy of their text) and those without (read again). The fast path
 * must keep them (a wrong text there only sends the parse back to yajl,
 * which the direct count shows), at every chunk size. */
static void members_after_events(void **state)
{
	(void)state;
	static const char text[] =
	    "{\n  \"traceEvents\": [\n  " EV(1, "a") ",\n  " EV(2, "b") ",\n  " EV(
		3, "c") "\n  ],\n  \"after\": [\n  {\"a\": 1},\n  {\"b\": [2]},\n  {\"c\": "
			"3},\n  {\"d\": 4},\n  {\"e\": 5},\n  {\"f\": 6},\n  {\"g\": 7}\n  "
			"],\n  \"more\": [\n  {\"h\": 8},\n  {\"i\": 9},\n  {\"j\": "
			"10}],\n  \"traceName\": \"t\"\n}\n";
	struct trace want, got;
	char err[GS_ERR_LEN];
	struct kineto_options y = {.yajl_only = 1};
	assert_int_equal(kineto_load_mem_opt(&want, text, strlen(text), &y, err), 0);
	for (size_t chunk = 16; chunk <= 512; chunk += 8) {
		uint64_t direct = 0;
		struct kineto_options o = {
		    .threads = 2, .chunk_bytes = chunk, .direct_events = &direct};
		assert_int_equal(kineto_load_mem_opt(&got, text, strlen(text), &o, err), 0);
		if (!kineto_same_trace(&want, &got))
			fail_msg("chunks of %zu: the trace differs from yajl's", chunk);
		if (direct != 3)
			fail_msg("chunks of %zu: %llu events decoded directly, want 3", chunk,
				 (unsigned long long)direct);
		trace_release(&got);
	}
	trace_release(&want);
}

/* kineto_intern_name gives trace_intern_n's ids, in the same order: names
 * that share a cache slot (the same length and first and last eight
 * bytes, differing between), short and long ones, repeats far apart, an
 * empty one, a name cut at a NUL. */
static void intern_name_cache(void **state)
{
	(void)state;
	struct trace a, b;
	trace_init(&a);
	trace_init(&b);
	struct ksink *k = calloc(1, sizeof(*k));
	assert_non_null(k);
	k->t = &a;
	char name[64];
	uint64_t x = 12345;
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t len;
		switch ((x >> 33) % 5) {
		case 0: /* slot mates: only the middle byte differs */
			len = (size_t)snprintf(name, sizeof(name), "aaaaaaaa%cbbbbbbbb",
					       'A' + (int)((x >> 40) % 26));
			break;
		case 1:
			len = (size_t)snprintf(name, sizeof(name), "aten::op%u",
					       (unsigned)((x >> 40) % 700));
			break;
		case 2: /* short, many lengths */
			len = (size_t)((x >> 40) % 9);
			memset(name, 'a' + (int)((x >> 50) % 3), len);
			name[len] = '\0';
			break;
		case 3: /* between 9 and 15 bytes: the last eight overlap the first */
			len = 9 + (size_t)((x >> 40) % 7);
			for (size_t j = 0; j < len; j++)
				name[j] = (char)('a' + (int)((x >> (j + 20)) & 1));
			name[len] = '\0';
			break;
		default:
			len = (size_t)snprintf(name, sizeof(name),
					       "autograd::engine::evaluate_function: B%uBackward0",
					       (unsigned)((x >> 40) % 50));
		}
		uint32_t got = kineto_intern_name(k, name, len);
		uint32_t want = trace_intern_n(&b, name, len);
		if (got != want)
			fail_msg("name %d ('%s'): id %u, trace_intern_n's %u", i, name, got, want);
	}
	/* a NUL inside: interned as written, never cached (its stored
	 * string is shorter than its length) */
	for (int r = 0; r < 3; r++)
		assert_int_equal(kineto_intern_name(k, "ab\0cd", 5),
				 trace_intern_n(&b, "ab\0cd", 5));
	assert_int_equal(a.n_strings, b.n_strings);
	free(k);
	trace_release(&a);
	trace_release(&b);
}

/* One event in a traceEvents array, for the direct decoder's cases. */
#define ONE(ev) "{\"traceEvents\": [\n" ev "\n]}"
#define KFIELDS "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7"

/* Elements the direct decoder takes (direct: 1) or leaves to the lexer and
 * callbacks (0): both ways the trace or the error must be yajl's. */
static void direct_cases(void **state)
{
	static const struct {
		const char *text;
		int direct;
	} cases[] = {
	    /* the usual shape, and members in another order */
	    {ONE(EV(1, "a")), 1},
	    {ONE("{\"args\": {\"correlation\": 9, \"stream\": 7, \"device\": 0}, \"dur\": "
		 "2, \"ts\": 1.5, \"tid\": 7, \"pid\": 0, \"name\": \"k\", \"cat\": "
		 "\"kernel\", \"ph\": \"X\"}"),
	     1},
	    /* "ph" after the args; a repeated key; an empty object and args */
	    {ONE("{\"cat\": \"cpu_op\", \"name\": \"op\", \"ts\": 1, \"dur\": 1, "
		 "\"args\": {\"Ev Idx\": 1}, \"ph\": \"X\", \"name\": \"op2\"}"),
	     1},
	    {ONE("{}"), 1},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {}}"), 1},
	    /* escapes and UTF-8 in names and keys */
	    {ONE("{" KFIELDS ", \"name\": \"q\\\"\\u00e9\\n\xc3\xa9\", \"ts\": 1, "
		 "\"dur\": 1, \"n\\u0061me\": \"x\"}"),
	     1},
	    /* nested args, unknown members of every kind */
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"bp\": \"e\", \"x\": [1, {\"y\": "
		 "[true, false, null, -1.5e3, \"s\"]}], \"args\": {\"Input Dims\": [[1, 2], "
		 "[]], \"o\": {\"a\": {}}, \"grid\": [], \"block\": [1, 2, 3], \"n\": "
		 "null, \"cuda_sync_kind\": \"event\"}}"),
	     1},
	    /* numbers: exponents, -0, huge integers, fractions where integers go */
	    {ONE("{" KFIELDS ", \"ts\": 1e3, \"dur\": -0, \"id\": 1.5e300}"), 1},
	    {ONE("{" KFIELDS ", \"ts\": 1.23456789, \"dur\": 0.0005, \"args\": "
		 "{\"correlation\": 99999999999, \"bytes\": 1e12, \"stream\": -1}}"),
	     1},
	    {ONE("{\"ph\": \"i\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": "
		 "123456789012345678901234567890, \"tid\": -0, \"ts\": 1, \"dur\": 1}"),
	     1},
	    {ONE("{" KFIELDS ", \"pid\": 4294967295, \"ts\": 1, \"dur\": 1}"), 1},
	    {ONE("{" KFIELDS ", \"pid\": 4294967296, \"ts\": 1, \"dur\": 1}"), 0},
	    /* left to the callbacks: values of types they treat apart, numbers
	     * they refuse, counters, ranges' metrics, deep nesting, bad text */
	    {ONE("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": \"Traces\", "
		 "\"tid\": 0, \"args\": {\"name\": \"x\"}}"),
	     0},
	    {ONE("{" KFIELDS ", \"ts\": null, \"dur\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1e300, \"dur\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {\"device\": "
		 "99999999999}}"),
	     0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {\"grid\": [-1]}}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {\"grid\": [[1]]}}"), 0},
	    {ONE("{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 1, \"args\": "
		 "{\"a\": 1, \"b\": 2}}"),
	     0},
	    {ONE("{\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"k\", "
		 "\"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1, \"args\": "
		 "{\"dram__bytes_read.sum\": 5}}"),
	     0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"x\": "
		 "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}"),
	     0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {\"x\": tru}}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 01, \"dur\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1,}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1 \"dur\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"name\": \"\\ud800\", \"ts\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"name\": \"\xff\", \"ts\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1"), 0},
	    /* event mapping's own errors come the same way through both (a
	     * failed fast path counts none: yajl parsed it again) */
	    {ONE("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\"}"), 0},
	    {ONE("{" KFIELDS ", \"tid\": 99999999999, \"ts\": 1}"), 0},
	    {ONE("{" KFIELDS ", \"pid\": 1e30, \"ts\": 1}"), 0},
	    /* no launch configuration (probe W9): four dimensions, a fraction */
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {\"grid\": [1, 2, 3, 4]}}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": 1, \"args\": {\"block\": [1.5]}}"), 0},
	    {ONE("{" KFIELDS ", \"ts\": 1, \"dur\": -1}"), 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t chunk = 16; chunk <= 4096; chunk *= 16)
			same(cases[i].text, chunk);
		uint64_t n = direct_count(cases[i].text);
		if (cases[i].direct ? n != 1 : n != 0)
			fail_msg("case %zu: %llu events decoded directly, want %d: %s", i,
				 (unsigned long long)n, cases[i].direct, cases[i].text);
	}
}

/* ndigits digits from a pattern that moves with seed (every digit value at
 * every position over the seeds) */
static void put_digits(char **o, int ndigits, int seed)
{
	for (int i = 0; i < ndigits; i++)
		*(*o)++ = (char)('0' + (i == 0 ? 1 + (seed + i) % 9 : (seed * 7 + i * 3) % 10));
}

/* Numbers of every length the direct decoder reads in parts (and longer):
 * ts and dur with 1-15 integer and 0-7 fraction digits, copies' bytes with
 * 1-18 digits, negative ones (ts, bytes); the same trace as yajl's. */
static void direct_numbers(void **state)
{
	size_t cap = 1 << 20;
	char *text = malloc(cap), *o = text;
	assert_non_null(text);
	o += sprintf(o, "{\"traceEvents\": [\n");
	int n = 0;
	for (int seed = 0; seed < 3; seed++)
		for (int ni = 1; ni <= 18; ni++)
			for (int nf = 0; nf <= 7; nf++) {
				o += sprintf(o,
					     "%s{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", "
					     "\"name\": \"Memcpy HtoD\", \"pid\": %d, \"tid\": "
					     "-%d, \"ts\": %s",
					     n++ ? ",\n" : "", seed, ni, nf == 5 ? "-" : "");
				put_digits(&o, ni > 15 ? 15 : ni, seed + nf);
				if (nf) {
					*o++ = '.';
					put_digits(&o, nf, seed + ni);
				}
				o += sprintf(o, ", \"dur\": "); /* a negative dur is an error */
				put_digits(&o, ni > 6 ? 6 : ni, seed * 5 + nf);
				if (nf) {
					*o++ = '.';
					put_digits(&o, nf, ni);
				}
				o += sprintf(o, ", \"args\": {\"bytes\": %s", nf == 3 ? "-" : "");
				put_digits(&o, ni, seed + nf + 1);
				o += sprintf(o, ", \"stream\": %d}}", nf - 3);
			}
	o += sprintf(o, "\n]}");
	assert_true((size_t)(o - text) < cap);
	same(text, 4096);
	same(text, 1 << 20);
	uint64_t direct = direct_count(text);
	if (direct != (uint64_t)n)
		fail_msg("%llu of %d events decoded directly", (unsigned long long)direct, n);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(files_match_yajl),	 cmocka_unit_test(plain_files_match_yajl),
	    cmocka_unit_test(texts_match_yajl),	 cmocka_unit_test(direct_cases),
	    cmocka_unit_test(direct_numbers),	 cmocka_unit_test(members_after_events),
	    cmocka_unit_test(intern_name_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
