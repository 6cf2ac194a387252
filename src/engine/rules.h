/* rules.h — every threshold the detectors use: one table of rule names, units, defaults and sources
 * (rule_table), and the rules in force as a value (struct rules) that an analysis is given —
 * defaults, or overridden by --rules FILE (lines "name = value", '#' comments). No global state:
 * two analyses (the sides of a compare) can run with different rules. */
#ifndef IOPSY_RULES_H
#define IOPSY_RULES_H

#include <stdbool.h>

#include "util.h"

enum rule_id {
	R_SUSTAIN_SAMPLES,
	R_SUSTAIN_SECONDS,
	R_GAP_SAMPLES,
	R_EPISODE_GAP_S,
	R_GUEST_LAT_WARN,
	R_GUEST_LAT_CRIT,
	R_GUEST_LARGE_KIB,
	R_GUEST_LARGE_WARN,
	R_LOG_WRITE_WARN,
	R_LOG_WRITE_CRIT,
	R_LOG_WRITE_SHARE,
	R_LOG_MAX_KIB,
	R_DAVG_WARN,
	R_DAVG_CRIT,
	R_DS_LAT_WARN,
	R_DS_LAT_CRIT,
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
	R_SIOC_BASE_RATIO,
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
	double value;           /* the default */
	const char *unit;
	const char *what;       /* one line */
	const char *source;     /* [seed] [vmw] [ms] [pal] [derived] as in DOMAIN.md */
};

/* The table: names, defaults, units and sources (static). */
extern const struct rule rule_table[R_COUNT];

/* The rules in force. */
struct rules {
	double v[R_COUNT];
	bool overridden[R_COUNT];
};
static inline double rule_value(const struct rules *r, enum rule_id id) { return r->v[id]; }

/* The defaults. */
void rules_init(struct rules *r);
/* Loads overrides from a file into r; errors (file:line:col) go through d. Returns 0 or
 * ERR_FORMAT/ERR_IO. */
int rules_load(struct rules *r, const char *path, struct diag *d);
/* The same from text (d->file names it in messages). */
int rules_load_text(struct rules *r, const char *text, size_t len, struct diag *d);
/* Appends the table with r's values ('iopsy rules'; itself a valid rules file). */
void rules_print(const struct rules *r, struct buf *out);

#endif
