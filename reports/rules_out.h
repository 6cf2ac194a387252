/* rules_out.h — what a rules file changed, in every writer: one line per overridden rule
 * ("name = value (default D) from FILE:LINE, for [SCOPE]"), escaped by the writer's own escaper,
 * or the JSON array rules_overridden. Nothing at all is written when no rule is overridden, so
 * the output of a run without a rules file does not change. */
#ifndef IOPSY_RULES_OUT_H
#define IOPSY_RULES_OUT_H

#include <stddef.h>

#include "json.h"
#include "rules.h"
#include "util.h"

/* Appends head, then pre + the escaped line + post for each override, then tail; nothing when
 * there is none. Returns how many lines. */
size_t rules_out_lines(const struct rules *r, struct buf *out, const char *head, const char *pre, const char *post,
		       const char *tail, void (*esc)(struct buf *, const char *));
/* Writes key and the array [{name, value, default, unit, file, line, scope}] into the open object;
 * nothing when there is no override. */
void rules_out_json(const struct rules *r, const char *key, struct json *j);

#endif
