/* suggest.h — "did you mean ...?": an edit distance and the closest names of a list, for the
 * messages about a mistyped command, option, zone, rule, manifest key or format. */
#ifndef IOPSY_SUGGEST_H
#define IOPSY_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The optimal-string-alignment distance between a and b (Levenshtein plus the swap of two
 * adjacent characters, each edit costing 1), ASCII letters compared case-insensitively. Strings
 * longer than 255 bytes are compared on their first 255. */
size_t suggest_distance(const char *a, const char *b);

/* The candidates closest to word: those within the distance a typo allows (1 for words of up to
 * 3 characters, else 2) and those word abbreviates (a prefix counts as distance 2 at most),
 * keeping only the smallest distance found (ties all kept; a candidate equal to word is
 * distance 0, as "from" for -from): --form suggests --from (one swap)
 * before --format (an abbreviation), --thr --threads. Writes up to nidx indices into cand[]
 * to idx, in the list's order, and returns how many were written (0: nothing is close). NULL
 * entries of cand are skipped. */
size_t suggest_closest(const char *word, const char *const *cand, size_t ncand, size_t *idx, size_t nidx);

/* Appends "; did you mean X?" (or "X or Y?", "X, Y or Z?", each with prefix before it, e.g. "--")
 * to b when suggest_closest finds something; true when it did. */
bool suggest_append(struct buf *b, const char *word, const char *prefix, const char *const *cand, size_t ncand);

#endif
