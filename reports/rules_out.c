/* rules_out.c — the overridden rules in the reports (see rules_out.h). */
#include "rules_out.h"

size_t rules_out_lines(const struct rules *r, struct buf *out, const char *head, const char *pre, const char *post,
		       const char *tail, void (*esc)(struct buf *, const char *))
{
	struct rule_override o[RULES_MAX_OVERRIDES];
	size_t n = rules_overrides(r, o, RULES_MAX_OVERRIDES);
	if (!n)
		return 0;
	buf_adds(out, head);
	struct buf line;
	buf_init(&line);
	for (size_t i = 0; i < n && i < RULES_MAX_OVERRIDES; i++) {
		buf_reset(&line);
		rules_override_text(r, &o[i], &line);
		buf_adds(out, pre);
		esc(out, line.data);
		buf_adds(out, post);
	}
	buf_free(&line);
	buf_adds(out, tail);
	return n;
}

void rules_out_json(const struct rules *r, const char *key, struct json *j)
{
	struct rule_override o[RULES_MAX_OVERRIDES];
	size_t n = rules_overrides(r, o, RULES_MAX_OVERRIDES);
	if (!n)
		return;
	json_key(j, key);
	json_arr_begin(j);
	struct buf scope;
	buf_init(&scope);
	for (size_t i = 0; i < n && i < RULES_MAX_OVERRIDES; i++) {
		const struct rule *t = &rule_table[o[i].id];
		json_obj_begin_flat(j);
		json_key(j, "name");
		json_str(j, t->name);
		json_key(j, "value");
		json_num(j, o[i].value);
		json_key(j, "default");
		json_num(j, t->value);
		json_key(j, "unit");
		json_str(j, t->unit);
		json_key(j, "file");
		json_str(j, o[i].file);
		json_key(j, "line");
		json_int(j, o[i].line);
		json_key(j, "scope");
		buf_reset(&scope);
		rules_scope_text(r, o[i].section, &scope);
		json_str(j, scope.data);
		json_obj_end(j);
	}
	buf_free(&scope);
	json_arr_end(j);
}
