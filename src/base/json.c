/* json.c — the JSON writer (see json.h). */
#include "json.h"

#include <math.h>
#include <string.h>

void json_init(struct json *j, struct buf *out, bool pretty)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	if (j->flat[j->depth]) {
		buf_addc(j->out, ' ');
		return;
	}
	buf_addc(j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		buf_add(j->out, "  ", 2);
}

/* Separator before a value or key at the current depth. */
static void pre_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	bool first = j->first[j->depth];
	if (!first)
		buf_addc(j->out, ',');
	j->first[j->depth] = false;
	if (j->depth > 0 && !(first && j->flat[j->depth]))
		indent(j);
}

static void open(struct json *j, char c, bool flat)
{
	bool outer_flat = j->flat[j->depth];
	pre_value(j);
	buf_addc(j->out, c);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
	j->flat[j->depth] = flat || outer_flat;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth], flat = j->flat[j->depth];
	j->flat[j->depth] = false;
	if (j->depth > 0)
		j->depth--;
	if (!empty && !flat)
		indent(j);
	buf_addc(j->out, c);
}

void json_obj_begin(struct json *j) { open(j, '{', false); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j) { open(j, '[', false); }
void json_arr_end(struct json *j) { close_(j, ']'); }
void json_obj_begin_flat(struct json *j) { open(j, '{', true); }
void json_arr_begin_flat(struct json *j) { open(j, '[', true); }

void json_escape(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': buf_add(b, "\\n", 2); break;
			case '\r': buf_add(b, "\\r", 2); break;
			case '\t': buf_add(b, "\\t", 2); break;
			default: buf_printf(b, "\\u%04x", c); break;
			}
			i++;
		} else if (c < 0x80) {
			/* '<' '>' '&' escaped too, so JSON embedded in HTML <script> cannot close it. */
			if (c == '<' || c == '>' || c == '&')
				buf_printf(b, "\\u%04x", c);
			else
				buf_addc(b, (char)c);
			i++;
		} else {
			size_t k = 0;
			if (c >= 0xc2 && c <= 0xdf)
				k = 2;
			else if (c >= 0xe0 && c <= 0xef)
				k = 3;
			else if (c >= 0xf0 && c <= 0xf4)
				k = 4;
			if (k && i + k <= n && utf8_valid(s + i, k)) {
				buf_add(b, p + i, k);
				i += k;
			} else {
				buf_printf(b, "\\\\x%02X", c);
				i++;
			}
		}
	}
}

void json_key(struct json *j, const char *k)
{
	pre_value(j);
	buf_addc(j->out, '"');
	json_escape(j->out, k, strlen(k));
	buf_add(j->out, j->pretty ? "\": " : "\":", j->pretty ? 3 : 2);
	j->after_key = true;
}

void json_strn(struct json *j, const char *s, size_t n)
{
	pre_value(j);
	buf_addc(j->out, '"');
	json_escape(j->out, s, n);
	buf_addc(j->out, '"');
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_strn(j, s, strlen(s));
}

void json_num(struct json *j, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	pre_value(j);
	if (fabs(v) < 1e15 && v == (double)(long long)v) /* range first: the cast is UB past 2^63 */
		buf_printf(j->out, "%lld", (long long)v);
	else
		buf_printf(j->out, "%.10g", v);
}

void json_int(struct json *j, long long v)
{
	pre_value(j);
	buf_printf(j->out, "%lld", v);
}

void json_bool(struct json *j, bool v)
{
	pre_value(j);
	buf_adds(j->out, v ? "true" : "false");
}

void json_null(struct json *j)
{
	pre_value(j);
	buf_add(j->out, "null", 4);
}
