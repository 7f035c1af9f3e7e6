/*
 * explain_paste.h - private to explain: the readings of the pasted text
 * (an OOM message's figures, NCCL watchdog lines, an nvidia-smi table,
 * device-side assertions, a compute-sanitizer report) printed before the
 * best entry, and their JSON keys (docs/explain.md). Each reading is given
 * only when its parser finds what it reads; query may be NULL (text).
 */
#ifndef GPUSCOPE_EXPLAIN_PASTE_H
#define GPUSCOPE_EXPLAIN_PASTE_H

#include <stdio.h>

#include "health/explain.h"
#include "util/json_out.h"

void explain_paste_text(FILE *f, const struct explain_result *r, const char *query);
void explain_paste_json(struct json_out *j, const struct explain_result *r, const char *query);

/* The logs and tables among them (explain_logs.c), called by the two above. */
void explain_logs_text(FILE *f, const struct explain_result *r, const char *query);
void explain_logs_json(struct json_out *j, const struct explain_result *r, const char *query);

/* Pasted AMD and Intel tool output (explain_vendor_text.c), called by the two above. */
void explain_vtext_text(FILE *f, const char *query);
void explain_vtext_json(struct json_out *j, const char *query);

/* "2.34 GiB", "324 bytes": a byte count as the readings print it. */
const char *explain_size_str(double b, char *buf, size_t cap);

#endif
