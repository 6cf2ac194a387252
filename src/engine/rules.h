/* rules.h — every threshold the detectors use, in one table with its unit and source; overridable
 * with --rules FILE (lines "name = value", '#' comments) and printed by `iopsy rules`. */
#ifndef IOPSY_RULES_H
#define IOPSY_RULES_H

#include <stdbool.h>

#include "util.h"

enum rule_id {
	R_SUSTAIN_SAMPLES,
	R_SUSTAIN_SECONDS,
	R_GAP_SAMPLES,
	R_GUEST_LAT_WARN,
	R_GUEST_LAT_CRIT,
	R_DAVG_WARN,
	R_DAVG_CRIT,
	R_KAVG_WARN,
	R_KAVG_CRIT,
	R_DAVG_RAISE_QD,
	R_DEV_SAT_USD,
	R_DEV_SAT_QUED,
	R_ADP_SAT_PCT,
	R_VSCSI_LSI,
	R_VSCSI_PVSCSI,
	R_VSCSI_PVSCSI_MAX,
	R_VSCSI_PINNED_SHARE,
	R_HIDDEN_RATIO,
	R_HIDDEN_MIN_MS,
	R_AQD_HALF_RATIO,
	R_AQD_MIN_STEPS,
	R_SIOC_THRESHOLD,
	R_SIOC_NEAR,
	R_SIOC_MIN_CHANGES,
	R_DSNRO,
	R_DSNRO_WORLDS,
	R_SPLIT_PER_S,
	R_SPLIT_RATIO,
	R_ERR_PER_S,
	R_QFULL_GAP_S,
	R_ALIGN_BYTES,
	R_ACTIVE_IOPS,
	R_COUNT
};

struct rule {
	const char *name;       /* key in --rules files */
	double value;
	const char *unit;
	const char *what;       /* one line */
	const char *source;     /* [seed] [vmw] [ms] [pal] [derived] as in DOMAIN.md */
};

/* The effective table (defaults until rules_load changes it). */
extern struct rule rules[R_COUNT];
static inline double rule(enum rule_id id) { return rules[id].value; }

/* Loads overrides; errors (file:line:col) are appended to err. Returns 0 or ERR_FORMAT/ERR_IO. */
int rules_load(const char *path, struct buf *err);
/* Loads overrides from text (for tests); name is used in messages. */
int rules_load_text(const char *name, const char *text, size_t len, struct buf *err);
void rules_reset(void);
void rules_print(struct buf *out);

#endif
