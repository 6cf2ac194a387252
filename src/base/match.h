/* match.h — user regular expressions (PCRE2, case-insensitive, JIT when available) with match
 * and depth limits so a catastrophic pattern becomes a clear error instead of a hang. */
#ifndef IOPSY_MATCH_H
#define IOPSY_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct matcher;

/* Compiles pattern; returns NULL and writes "regex error at offset N: ..." into err (caller's
 * buffer) on failure. Caller frees with matcher_free. */
struct matcher *matcher_new(const char *pattern, bool caseless, struct buf *err);
/* 1 = match, 0 = no match, ERR_LIMIT when the match/depth limit was hit (error text in err). */
int matcher_match(struct matcher *m, const char *s, size_t n, struct buf *err);
void matcher_free(struct matcher *m);

#endif
