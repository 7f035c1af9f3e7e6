/*
 * json_out.h - a small streaming JSON writer to a FILE.
 *
 * It tracks nesting so commas are placed for the caller; keys and strings
 * are escaped (control bytes as \u00XX, invalid UTF-8 passed through as
 * bytes). Numbers that are not finite are written as null, never as "nan".
 */
#ifndef GPUSCOPE_JSON_OUT_H
#define GPUSCOPE_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>

#define JSON_OUT_MAX_DEPTH 64

struct json_out {
	FILE *f;
	int depth;
	int count[JSON_OUT_MAX_DEPTH]; /* items written at each level */
	int after_key;
	int pretty;
};

void json_out_init(struct json_out *j, FILE *f, int pretty);
void json_begin_object(struct json_out *j);
void json_end_object(struct json_out *j);
void json_begin_array(struct json_out *j);
void json_end_array(struct json_out *j);
void json_key(struct json_out *j, const char *key);
void json_string(struct json_out *j, const char *s);
void json_int(struct json_out *j, int64_t v);
void json_uint(struct json_out *j, uint64_t v);
void json_double(struct json_out *j, double v);
void json_bool(struct json_out *j, int v);
void json_null(struct json_out *j);
/* Writes a JSON-escaped copy of s (without quotes) to f. */
void json_escape(FILE *f, const char *s);

/* key + value shorthands */
void json_kv_string(struct json_out *j, const char *k, const char *v);
void json_kv_int(struct json_out *j, const char *k, int64_t v);
void json_kv_double(struct json_out *j, const char *k, double v);
void json_kv_bool(struct json_out *j, const char *k, int v);

#endif
