/*
 * test_msgfmt.c - util/msgfmt.h: a captured printf call formats again as
 * vsnprintf did (invariant 1), with every conversion the findings use and
 * the length modifiers and stars printf has; a translation that reorders
 * the arguments (%2$s ... %1$llu) gets each one where it names it; a copy
 * formats as the original (invariant 2); what cannot be kept says so
 * (invariant 3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "util/msgfmt.h"

static void capture(struct msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void capture(struct msg *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	msg_capture(m, fmt, ap);
	va_end(ap);
}

static const char *direct(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static const char *direct(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return buf;
}

/* the same call through msg_capture + msg_format and through vsnprintf */
#define SAME(F, ...)                                                                               \
	do {                                                                                       \
		struct msg m;                                                                      \
		char a[1024], b[1024];                                                             \
		capture(&m, F, __VA_ARGS__);                                                       \
		assert_true(m.ok);                                                                 \
		assert_string_equal(msg_format(a, sizeof(a), m.fmt, &m, NULL),                     \
				    direct(b, sizeof(b), F, __VA_ARGS__));                         \
	} while (0)

static void formats_as_printf(void **state)
{
	(void)state;
	SAME("%s is memory-bound: %s at %.0f%% of its peak (memory %.0f%%, SM %.0f%%)%s",
	     "sgemm_kernel", "DRAM", 91.4, 88.26, 12.5, ": at the roof");
	SAME("rank %d is the straggler: it arrived last in %llu of %llu collectives", 3,
	     (unsigned long long)17, (unsigned long long)20);
	SAME("%zu kernels, %u SMs, %ld ns, %lld bytes, %.2f GB/s, %.17g, %.4g", (size_t)12, 132u,
	     -5L, -123456789012LL, 1.005, 0.1, 12345.678);
	SAME("%.40s|%-8s|%8s|%c|%5.1f|%+d|%x|%#o|%e", "a very long kernel name cut at forty chars",
	     "left", "right", 'x', 3.14159, 7, 255u, 8u, 6.02e23);
	SAME("width %*d and precision %.*f and %-*s|", 6, 42, 3, 2.71828, -7, "neg");
	SAME("%hhd %hd %jd %td %zd %hu", (signed char)-3, (short)-300, (intmax_t)9, (ptrdiff_t)-4,
	     (ssize_t)-11, (unsigned short)65000);
	SAME("100%% of %s", "nothing");
	SAME("no conversion at all%s", "");
}

static void translation_reorders(void **state)
{
	(void)state;
	struct msg m;
	char buf[256];
	capture(&m, "the %llu launches of %s then cost one launch", (unsigned long long)20000,
		"tiny_add");
	assert_true(m.ok);
	assert_string_equal(msg_format(buf, sizeof(buf), "%2$s 的 %1$llu 次启动只需一次", &m, NULL),
			    "tiny_add 的 20000 次启动只需一次");
	/* a copy formats as the original: nothing points into it */
	struct msg c = m;
	memset(&m, 0, sizeof(m));
	assert_string_equal(msg_format(buf, sizeof(buf), c.fmt, &c, NULL),
			    "the 20000 launches of tiny_add then cost one launch");
	/* cut at the buffer, always terminated */
	assert_string_equal(msg_format(buf, 9, c.fmt, &c, NULL), "the 2000");
	/* a conversion without an argument of its kind stands as it is */
	assert_string_equal(msg_format(buf, sizeof(buf), "%d and %3$s", &c, NULL), "%d and %3$s");
}

static const char *upper(const char *s)
{
	return strcmp(s, "free") == 0 ? "FREE" : s;
}

static void marked_words(void **state)
{
	(void)state;
	struct msg m;
	char buf[128];
	capture(&m, "%s (%s, %d calls) %s", "cudaFree", "free", 5, "free");
	msg_mark(&m, "free");
	assert_string_equal(msg_format(buf, sizeof(buf), m.fmt, &m, upper),
			    "cudaFree (FREE, 5 calls) FREE");
	assert_string_equal(msg_format(buf, sizeof(buf), m.fmt, &m, NULL),
			    "cudaFree (free, 5 calls) free");
}

static void what_cannot_be_kept(void **state)
{
	(void)state;
	struct msg m;
	char big[MSG_POOL + 10];
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	capture(&m, "%s", big);
	assert_false(m.ok); /* past the pool */
	capture(&m, "%d %d %d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
	assert_false(m.ok); /* past MSG_MAX_ARGS */
	capture(&m, "%2$s %1$s", "a", "b");
	assert_false(m.ok); /* positional in the message id itself */
	capture(&m, "%Lf", (long double)1.5);
	assert_false(m.ok);
	capture(&m, "%d %d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
	assert_true(m.ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(formats_as_printf),
	    cmocka_unit_test(translation_reorders),
	    cmocka_unit_test(marked_words),
	    cmocka_unit_test(what_cannot_be_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
