/* json.h — the one JSON writer: places commas, escapes strings (control characters, quotes,
 * backslashes; bytes that are not valid UTF-8 become the text \xNN), NaN/inf → null, C-locale
 * numbers, fixed key order decided by the caller. */
#ifndef IOPSY_JSON_H
#define IOPSY_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

#define JSON_MAX_DEPTH 64

struct json {
	struct buf *out;         /* output goes here (caller-owned) */
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool flat[JSON_MAX_DEPTH];  /* pretty output: this level on one line ("a": 1, "b": 2) */
	bool after_key;
	bool pretty;
};

void json_init(struct json *j, struct buf *out, bool pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
/* Pretty output: the object/array that begins next, and everything inside it, on one line
 * ({"kind": "x", "entity": "D:"}), e.g. the rows of a table. Compact output ignores it. */
void json_obj_begin_flat(struct json *j);
void json_arr_begin_flat(struct json *j);
void json_key(struct json *j, const char *k);
void json_str(struct json *j, const char *s);           /* NULL → null */
void json_strn(struct json *j, const char *s, size_t n);
void json_num(struct json *j, double v);                /* non-finite → null */
void json_int(struct json *j, long long v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Appends s escaped as JSON string content (no quotes) to b. */
void json_escape(struct buf *b, const char *s, size_t n);

#endif
