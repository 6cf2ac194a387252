/* json_out.h — the JSON writer (see json_out.c). Schemas: doc/analyze-json.md, doc/compare-json.md. */
#ifndef IOPSY_JSON_OUT_H
#define IOPSY_JSON_OUT_H

#include "analysis.h"
#include "compare.h"
#include "inventory.h"
#include "json.h"

#define ANALYSIS_SCHEMA_VERSION 3
#define COMPARE_SCHEMA_VERSION 2

/* Each writes one JSON value into j. extra (NULL = none) adds top-level keys at the end (a batch
 * set adds its trend). */
/* Opens a document's object with its schema_version and the tool's name and version (every JSON
 * iopsy writes starts so: the analysis, the comparison, the batch summary). */
void json_head(struct json *j, int schema_version);
void analysis_json(const struct analysis *a, struct json *j);
void analysis_json_ex(const struct analysis *a, struct json *j, void (*extra)(void *ctx, struct json *j), void *ctx);
void compare_json(const struct compare *c, struct json *j);
void inventory_json(const struct inventory *inv, struct json *j);
/* Pieces the batch summary reuses. */
void finding_json(const struct finding *f, struct json *j);
void captures_json(const struct model *m, struct json *j);
void entities_json(const struct model *m, struct json *j);
/* The "window" and "selection" keys of an analysis (none when neither was given). */
void workflow_json(const struct analysis *a, struct json *j);
/* The "sql" key of an analysis (none without SQL Server counters). */
void sql_json(const struct sql_report *r, struct json *j);

#endif
