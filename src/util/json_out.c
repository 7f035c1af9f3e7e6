/* json_out.c - streaming JSON writer, see json_out.h. */
#include "util/json_out.h"
#include "util/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>

void json_out_init(struct json_out *j, FILE *f, int pretty)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
	j->after_key = 0;
	j->pretty = pretty;
}

static void indent(struct json_out *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Called before any value or key. */
static void sep(struct json_out *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0 && j->count[j->depth]++ > 0)
		fputc(',', j->f);
	if (j->depth > 0)
		indent(j);
}

static void open(struct json_out *j, char c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth < JSON_OUT_MAX_DEPTH - 1)
		j->depth++;
	j->count[j->depth] = 0;
}

static void close_(struct json_out *j, char c)
{
	int had = j->count[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
	if (j->depth == 0 && j->pretty)
		fputc('\n', j->f);
}

void json_begin_object(struct json_out *j)
{
	open(j, '{');
}
void json_end_object(struct json_out *j)
{
	close_(j, '}');
}
void json_begin_array(struct json_out *j)
{
	open(j, '[');
}
void json_end_array(struct json_out *j)
{
	close_(j, ']');
}

/* issue #21 item 9: bytes that are not UTF-8 become U+FFFD, so that strict
 * parsers accept every JSON document gpuscope writes */
void json_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else {
				int n = utf8_seq(p, SIZE_MAX);
				if (n == 0) {
					fputs("\\ufffd", f);
				} else {
					fwrite(p, 1, (size_t)n, f);
					p += n - 1;
				}
			}
		}
	}
}

void json_key(struct json_out *j, const char *key)
{
	sep(j);
	fputc('"', j->f);
	json_escape(j->f, key);
	fputs(j->pretty ? "\": " : "\":", j->f);
	j->after_key = 1;
}

void json_string(struct json_out *j, const char *s)
{
	sep(j);
	fputc('"', j->f);
	json_escape(j->f, s ? s : "");
	fputc('"', j->f);
}

void json_int(struct json_out *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_uint(struct json_out *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_double(struct json_out *j, double v)
{
	sep(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (v == (double)(int64_t)v && fabs(v) < 1e15)
		fprintf(j->f, "%" PRId64, (int64_t)v);
	else
		fprintf(j->f, "%.6g", v);
}

void json_bool(struct json_out *j, int v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j)
{
	sep(j);
	fputs("null", j->f);
}

void json_kv_string(struct json_out *j, const char *k, const char *v)
{
	json_key(j, k);
	json_string(j, v);
}
void json_kv_int(struct json_out *j, const char *k, int64_t v)
{
	json_key(j, k);
	json_int(j, v);
}
void json_kv_double(struct json_out *j, const char *k, double v)
{
	json_key(j, k);
	json_double(j, v);
}
void json_kv_bool(struct json_out *j, const char *k, int v)
{
	json_key(j, k);
	json_bool(j, v);
}
