/* text.h — the text writer (see text.c): plain, escaped, 100-column text for terminals and files. */
#ifndef IOPSY_TEXT_H
#define IOPSY_TEXT_H

#include "analysis.h"
#include "compare.h"
#include "inventory.h"
#include "util.h"

/* Each appends to out (caller-owned). */
void analysis_text(const struct analysis *a, struct buf *out);
void compare_text(const struct compare *c, struct buf *out);
void inventory_text(const struct inventory *inv, struct buf *out);

#endif
