/* analysis_out.h — text and JSON renderings of an analysis (schema in doc/analyze-json.md). */
#ifndef IOPSY_ANALYSIS_OUT_H
#define IOPSY_ANALYSIS_OUT_H

#include "analysis.h"
#include "json.h"

#define ANALYSIS_SCHEMA_VERSION 1

void analysis_text(const struct analysis *a, struct buf *out);
void analysis_json(const struct analysis *a, struct json *j);
/* The same object with extra top-level keys written by extra(ctx, j) before it closes. */
void analysis_json_ex(const struct analysis *a, struct json *j, void (*extra)(void *ctx, struct json *j), void *ctx);
/* Pieces reused by other reports. */
void finding_json(const struct finding *f, struct json *j);
void captures_json(const struct model *m, struct json *j);
void entities_json(const struct model *m, struct json *j);

#endif
