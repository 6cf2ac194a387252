/* fuzz_json.c — libFuzzer harness for the JSON writer and the terminal escaper. The input is a
 * little program (open/close object or array, key, string, number, int, bool, null) that the
 * harness keeps structurally legal; the document the writer produces must then pass a strict
 * RFC 8259 validator (below), contain only valid UTF-8, and never contain '<', '>' or '&' (so it
 * can sit inside an HTML <script>). buf_add_text_escaped's output must be valid UTF-8 without
 * control bytes. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "json.h"

/* ---- a tiny strict JSON validator ---- */

struct jv {
	const unsigned char *p, *e;
	int depth;
};

static void ws(struct jv *v)
{
	while (v->p < v->e && (*v->p == ' ' || *v->p == '\n' || *v->p == '\r' || *v->p == '\t'))
		v->p++;
}

static bool lit(struct jv *v, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(v->e - v->p) < n || memcmp(v->p, s, n) != 0)
		return false;
	v->p += n;
	return true;
}

static bool hex4(struct jv *v, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		if (v->p >= v->e)
			return false;
		unsigned char c = *v->p++;
		unsigned d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		*u = *u * 16 + d;
	}
	return true;
}

static bool jstring(struct jv *v)
{
	if (v->p >= v->e || *v->p != '"')
		return false;
	v->p++;
	while (v->p < v->e) {
		unsigned char c = *v->p;
		if (c == '"') {
			v->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			v->p++;
			if (v->p >= v->e)
				return false;
			c = *v->p++;
			if (c == 'u') {
				unsigned u;
				if (!hex4(v, &u))
					return false;
				if (u >= 0xd800 && u <= 0xdbff) { /* a high surrogate needs its low half */
					unsigned lo;
					if (!lit(v, "\\u") || !hex4(v, &lo) || lo < 0xdc00 || lo > 0xdfff)
						return false;
				} else if (u >= 0xdc00 && u <= 0xdfff) {
					return false;
				}
			} else if (!strchr("\"\\/bfnrt", c) || c == 0) {
				return false;
			}
			continue;
		}
		v->p++;
	}
	return false;
}

static bool jnumber(struct jv *v)
{
	const unsigned char *s = v->p;
	if (v->p < v->e && *v->p == '-')
		v->p++;
	if (v->p >= v->e)
		return false;
	if (*v->p == '0') {
		v->p++;
	} else if (*v->p >= '1' && *v->p <= '9') {
		while (v->p < v->e && *v->p >= '0' && *v->p <= '9')
			v->p++;
	} else {
		return false;
	}
	if (v->p < v->e && *v->p == '.') {
		v->p++;
		if (v->p >= v->e || *v->p < '0' || *v->p > '9')
			return false;
		while (v->p < v->e && *v->p >= '0' && *v->p <= '9')
			v->p++;
	}
	if (v->p < v->e && (*v->p == 'e' || *v->p == 'E')) {
		v->p++;
		if (v->p < v->e && (*v->p == '+' || *v->p == '-'))
			v->p++;
		if (v->p >= v->e || *v->p < '0' || *v->p > '9')
			return false;
		while (v->p < v->e && *v->p >= '0' && *v->p <= '9')
			v->p++;
	}
	return v->p > s;
}

static bool jvalue(struct jv *v);

static bool jcontainer(struct jv *v, char open, char close)
{
	if (++v->depth > 200)
		return false;
	v->p++; /* open */
	(void)open;
	ws(v);
	if (v->p < v->e && *v->p == close) {
		v->p++;
		v->depth--;
		return true;
	}
	for (;;) {
		ws(v);
		if (close == '}') {
			if (!jstring(v))
				return false;
			ws(v);
			if (v->p >= v->e || *v->p != ':')
				return false;
			v->p++;
			ws(v);
		}
		if (!jvalue(v))
			return false;
		ws(v);
		if (v->p >= v->e)
			return false;
		if (*v->p == ',') {
			v->p++;
			continue;
		}
		if (*v->p == close) {
			v->p++;
			v->depth--;
			return true;
		}
		return false;
	}
}

static bool jvalue(struct jv *v)
{
	ws(v);
	if (v->p >= v->e)
		return false;
	switch (*v->p) {
	case '{': return jcontainer(v, '{', '}');
	case '[': return jcontainer(v, '[', ']');
	case '"': return jstring(v);
	case 't': return lit(v, "true");
	case 'f': return lit(v, "false");
	case 'n': return lit(v, "null");
	default: return jnumber(v);
	}
}

static bool json_valid(const char *s, size_t n)
{
	struct jv v = {(const unsigned char *)s, (const unsigned char *)s + n, 0};
	if (!jvalue(&v))
		return false;
	ws(&v);
	return v.p == v.e;
}

/* ---- the harness ---- */

struct in {
	const uint8_t *p, *e;
};

static uint8_t take(struct in *in)
{
	return in->p < in->e ? *in->p++ : 0;
}

/* A string of up to 255 bytes straight from the input (any bytes, NULs included). */
static const char *take_str(struct in *in, size_t *n)
{
	size_t k = take(in);
	if (k > (size_t)(in->e - in->p))
		k = (size_t)(in->e - in->p);
	const char *s = (const char *)in->p;
	in->p += k;
	*n = k;
	return s;
}

static void check_escaped_text(const char *s, size_t n)
{
	struct buf b;
	buf_init(&b);
	buf_add_text_escaped(&b, s, n);
	FUZZ_CHECK(utf8_valid(b.data ? b.data : "", b.len));
	for (size_t i = 0; i < b.len; i++)
		FUZZ_CHECK((unsigned char)b.data[i] >= 0x20 && b.data[i] != 0x7f);
	buf_free(&b);
}

static void check_document(const struct buf *out)
{
	const char *s = out->data ? out->data : "";
	FUZZ_CHECK(json_valid(s, out->len));
	FUZZ_CHECK(utf8_valid(s, out->len));
	FUZZ_CHECK(memchr(s, '<', out->len) == NULL && memchr(s, '>', out->len) == NULL &&
		   memchr(s, '&', out->len) == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* 1. the whole input as one string value and as one key */
	{
		struct buf out;
		buf_init(&out);
		struct json j;
		json_init(&j, &out, data[0] & 1);
		json_obj_begin(&j);
		json_key(&j, "k");
		json_strn(&j, (const char *)data, size);
		json_arr_begin(&j);
		json_arr_end(&j);
		json_obj_end(&j);
		FUZZ_CHECK(!json_valid(out.data, out.len)); /* a value without a key: the harness's own canary */
		buf_reset(&out);
		json_init(&j, &out, data[0] & 1);
		char *key = malloc(size + 1);
		FUZZ_CHECK(key);
		memcpy(key, data, size);
		key[size] = '\0';
		json_obj_begin(&j);
		json_key(&j, key);
		json_strn(&j, (const char *)data, size);
		json_obj_end(&j);
		check_document(&out);
		free(key);
		buf_free(&out);
		check_escaped_text((const char *)data, size);
	}
	/* 2. a structured document driven by the input */
	struct in in = {data + 1, data + size};
	struct buf out;
	buf_init(&out);
	struct json j;
	json_init(&j, &out, data[0] & 2);
	char stack[JSON_MAX_DEPTH];
	int depth = 0;
	json_arr_begin(&j);
	stack[depth++] = ']';
	while (in.p < in.e && depth > 0) {
		uint8_t op = take(&in);
		bool in_obj = stack[depth - 1] == '}';
		if (in_obj) {
			size_t kn;
			const char *ks = take_str(&in, &kn);
			char key[256];
			memcpy(key, ks, kn);
			key[kn] = '\0';
			json_key(&j, key);
		}
		switch (op % 9) {
		case 0:
		case 1:
			if (depth < JSON_MAX_DEPTH - 2) {
				if (op % 9 == 0)
					json_obj_begin(&j);
				else
					json_arr_begin(&j);
				stack[depth++] = op % 9 == 0 ? '}' : ']';
			} else {
				json_null(&j);
			}
			break;
		case 2: {
			size_t n;
			const char *s = take_str(&in, &n);
			json_strn(&j, s, n);
			break;
		}
		case 3: {
			double v = 0;
			size_t avail = (size_t)(in.e - in.p);
			memcpy(&v, in.p, avail < sizeof v ? avail : sizeof v);
			in.p += avail < sizeof v ? avail : sizeof v;
			json_num(&j, v);
			break;
		}
		case 4: {
			long long v = 0;
			size_t avail = (size_t)(in.e - in.p);
			memcpy(&v, in.p, avail < sizeof v ? avail : sizeof v);
			in.p += avail < sizeof v ? avail : sizeof v;
			json_int(&j, v);
			break;
		}
		case 5: json_bool(&j, op & 0x80); break;
		case 6: json_null(&j); break;
		case 7: json_str(&j, NULL); break;
		case 8:
			if (in_obj)
				json_null(&j); /* a key needs a value */
			if (depth > 1) {
				if (stack[--depth] == '}')
					json_obj_end(&j);
				else
					json_arr_end(&j);
			}
			break;
		}
	}
	while (depth > 0) {
		if (stack[--depth] == '}')
			json_obj_end(&j);
		else
			json_arr_end(&j);
	}
	check_document(&out);
	buf_free(&out);
	return 0;
}
