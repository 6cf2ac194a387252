/* inventory_out.h — text and JSON renderings of a capture inventory (`iopsy counters`). */
#ifndef IOPSY_INVENTORY_OUT_H
#define IOPSY_INVENTORY_OUT_H

#include "inventory.h"
#include "json.h"

void inventory_text(const struct inventory *inv, struct buf *out);
void inventory_json(const struct inventory *inv, struct json *j);

#endif
