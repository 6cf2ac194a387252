/* compare_out.h — text and JSON renderings of a before/after comparison (schema in
 * doc/compare-json.md). */
#ifndef IOPSY_COMPARE_OUT_H
#define IOPSY_COMPARE_OUT_H

#include "compare.h"
#include "json.h"

#define COMPARE_SCHEMA_VERSION 1

/* Appends the readable report: verdict paragraph, captures, the comparison table grouped by
 * entity (active entities only), latency at equal load, findings gone/new/still present, and
 * the entities present on one side only. */
void compare_text(const struct compare *c, struct buf *out);
/* Writes the whole comparison as one JSON object (schema_version 1). */
void compare_json(const struct compare *c, struct json *j);

#endif
