/* summary.h — the executive summary every report starts with: three to five plain sentences a
 * manager understands (what the captures cover, what was found and where IO waits, what was fine,
 * what the captures could not show), then the recommended actions in order (decided in the engine,
 * actions.h), each with its expected effect and the findings that justify it. Derived from the verdict, the coverage and the findings
 * (their kind, entity, evidence and advice); the text, Markdown and HTML writers all print it. The
 * text is plain and raw: names from captures are in it, every writer escapes it. */
#ifndef IOPSY_SUMMARY_H
#define IOPSY_SUMMARY_H

#include <stddef.h>

#include "actions.h"
#include "analysis.h"
#include "compare.h"
#include "ltime.h"

#define SUMMARY_MAX_SENTENCES 5
#define SUMMARY_MAX_ACTIONS ACTIONS_MAX
#define SUMMARY_MAX_WHY ACTION_MAX_WHY

struct exec_summary {
	char *headline;          /* one line: "IO waits inside the VM, at its virtual disk controller" */
	char *sentence[SUMMARY_MAX_SENTENCES];
	int nsentences;
	struct action act[SUMMARY_MAX_ACTIONS];
	int nactions;
	int tone;                /* -1 none found, else the worst severity (reports colour it) */
};

/* The summary of an analysis; times in lt's local time beside UTC. Free with summary_free. */
void summary_of_analysis(const struct analysis *a, const struct ltime *lt, struct exec_summary *s);
/* The summary of a comparison: its outcome, both periods, the findings gone and new, and what to
 * do next (the after side's findings, or a capture that can show the fix). */
void summary_of_compare(const struct compare *c, const struct ltime *lt, struct exec_summary *s);
void summary_free(struct exec_summary *s);

#endif
