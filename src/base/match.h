/* match.h — user regular expressions (PCRE2, case-insensitive, JIT when available) with match
 * and depth limits so a catastrophic pattern becomes a clear error instead of a hang. */
#ifndef IOPSY_MATCH_H
#define IOPSY_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct matcher;

/* Compiles pattern; returns NULL on failure with "regex error at offset N: ..." through d (its
 * file names the option, e.g. "--match"). Caller frees with matcher_free. */
struct matcher *matcher_new(const char *pattern, bool caseless, struct diag *d);
/* 1 = match, 0 = no match, ERR_LIMIT when the match/depth limit was hit (said through d). */
int matcher_match(struct matcher *m, const char *s, size_t n, struct diag *d);
void matcher_free(struct matcher *m);

#endif
