/*
 * fuzz_explain.c - libFuzzer entry point: arbitrary bytes pasted into
 * `gpuscope explain`: the readers of pasted text (vendor tools' output
 * included) on the raw bytes (not
 * NUL-terminated: they must stay inside the length they are given), then
 * explain's match and both renderings on the text: nothing a paste holds
 * may crash them or make them read out of bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/assert_text.h"
#include "health/explain.h"
#include "health/nccl_log.h"
#include "health/oom.h"
#include "health/sanitizer_text.h"
#include "health/smi_text.h"
#include "health/vendor_text.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nccl_log nl;
	static struct smi_text st;
	static struct xla_oom x;
	static struct assert_text a;
	static struct san_text sn;
	static struct vtext vt;
	static FILE *null;
	static struct explain_index *ix; /* made once: the fuzzer's runs are many */
	struct oom_numbers o;
	char err[GS_ERR_LEN];
	const char *s = (const char *)data;
	if (oom_parse(s, size, &o))
		oom_verdict(&o, NULL);
	if (xla_oom_parse(s, size, &x))
		xla_oom_verdict(&x);
	if (nccl_log_parse(s, size, &nl))
		nccl_log_verdict(&nl, NULL);
	smi_text_parse(s, size, &st);
	assert_text_parse(s, size, &a);
	san_text_parse(s, size, &sn);
	vendor_text_parse(s, size, &vt);
	char *q = malloc(size + 1);
	if (!q)
		return 0;
	memcpy(q, data, size);
	q[size] = '\0';
	struct explain_result r;
	if (!null)
		null = fopen("/dev/null", "w");
	if (!ix)
		ix = explain_index_new(err);
	if (null && ix && explain_match_in(ix, q, strlen(q), &r, err) == 0) {
		explain_print_text(null, &r, q);
		explain_print_json(null, &r, q);
	}
	free(q);
	return 0;
}
