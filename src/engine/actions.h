/* actions.h — the recommended actions, decided here and only formatted by reports/: each finding
 * kind names its step in the kind table (kinds[k].action, kinds.h); actions_of turns an analysis's
 * findings into at most ACTIONS_MAX steps, one per cause and scope (a VM's disks on LSI Logic SAS
 * are one move to PVSCSI, an LU seen from two hosts is one), a symptom joining the step of its
 * cause, in the order of their worst finding. The text is plain and raw: names from captures are
 * in it, every writer escapes it. */
#ifndef IOPSY_ACTIONS_H
#define IOPSY_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "compare.h"
#include "util.h"

#define ACTIONS_MAX 5
#define ACTION_MAX_WHY 12

struct action {
	char *what;              /* "Move SQL01's busy disks (D:) from LSI Logic SAS to PVSCSI ..." */
	char *effect;            /* "IOs stop waiting in the guest; ..." */
	size_t why[ACTION_MAX_WHY]; /* 1-based findings that justify it (analysis reports) */
	int nwhy;
	char *because;           /* "guest queue at the vSCSI per-disk limit on SQL01 D:" (the first) */
};

struct action_list {
	struct action act[ACTIONS_MAX];
	int n;
};

/* The steps for analysis a, worst first (caller frees with actions_free). */
void actions_of(const struct analysis *a, struct action_list *l);
/* The steps after comparison c: a capture that can show the fix, the after side's own steps, or
 * what the outcome advises (caller frees with actions_free). */
void compare_actions_of(const struct compare *c, struct action_list *l);
void actions_free(struct action_list *l);

/* SQL Server's first wait without a storage cause (sqlimpact.h); with measured, the first whose
 * disk the captures time, so that the storage is cleared (a wait on a disk the captures do not tie
 * or time clears nothing). NULL when none (borrowed from a). */
const struct sql_symptom *actions_sql_symptom(const struct analysis *a, bool measured);
/* "esx01 naa.600..." or "SQL01 D:": f's host, then its entity. */
void finding_entity_words(struct buf *b, const struct finding *f);

#endif
