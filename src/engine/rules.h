/* rules.h — every threshold the detectors use: one table of rule names, units, defaults and sources
 * (rule_table), and the rules in force as a value (struct rules) that an analysis is given —
 * defaults, or overridden by --rules FILE: lines "name = value [unit]", '#' comments, and sections
 * ([host NAME], [vm NAME], [disk [HOST] NAME], [device NAME], [global]) whose lines apply only to
 * the entities they name. No global state and no pointers to free: two analyses (the sides of a
 * compare) can run with different rules, and a struct rules is copied by assignment. */
#ifndef IOPSY_RULES_H
#define IOPSY_RULES_H

#include <stdbool.h>

#include "util.h"
#include "vocab.h"

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
	R_NONDATA_SHARE,
	R_NONDATA_RISE,
	R_DS_LAT_WARN,
	R_DS_LAT_CRIT,
	R_KAVG_WARN,
	R_KAVG_CRIT,
	R_DAVG_RAISE_QD,
	R_DEV_SAT_USD,
	R_DEV_SAT_QUED,
	R_ADP_SAT_PCT,
	R_ADP_BEYOND_SHARE,
	R_VSCSI_LSI,
	R_VSCSI_PVSCSI,
	R_VSCSI_PVSCSI_MAX,
	R_VSCSI_PINNED_SHARE,
	R_HIDDEN_RATIO,
	R_HIDDEN_MIN_MS,
	R_AQD_HALF_RATIO,
	R_AQD_MIN_STEPS,
	R_QD_STEP_HOLD_S,
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
	R_ALIGN_MIN_BYTES,
	R_ACTIVE_IOPS,
	R_CPU_RDY_WARN,
	R_CPU_RDY_CRIT,
	R_CPU_CSTP_WARN,
	R_CPU_HOST_FAST_MS,
	R_HV_DISK_WARN,
	R_HV_DISK_CRIT,
	R_HV_VHDX_WARN,
	R_HV_QOS_FLAT,
	R_HV_REDIR_SHARE,
	R_HV_CPU_WAIT_WARN,
	R_HV_CPU_WAIT_CRIT,
	R_CMP_MIN_IO_SHARE,
	R_CMP_MIN_BUSY_HELD,
	R_MEM_AVAIL_MB,
	R_MEM_PAGES_IN_WARN,
	R_MEM_PAGES_IN_CRIT,
	R_MEM_SWPWT_WARN,
	R_MEM_SWPWT_CRIT,
	R_MEM_SWAP_IN_MBPS,
	R_ADP_LINK_MBPS,
	R_BW_CEILING_PCT,
	R_BW_LAT_RISE,
	R_SUSTAIN_MIN_SAMPLES,
	R_COARSE_FACTOR,
	R_RSV_CONFLICTS,
	R_COUNT
};

struct rule {
	const char *name;       /* key in --rules files */
	double value;           /* the default */
	const char *unit;
	const char *what;       /* one line */
	const char *source;     /* [seed] [vmw] [ms] [pal] [derived] as in doc/domain.md */
};

/* The table: names, defaults, units and sources (static). */
extern const struct rule rule_table[R_COUNT];

/* A section of a rules file: its lines apply only to the entities it names. */
enum rule_scope { SCOPE_GLOBAL, SCOPE_HOST, SCOPE_VM, SCOPE_DISK, SCOPE_DEVICE, SCOPE_COUNT };
extern const char *const rule_scope_names[SCOPE_COUNT]; /* "global", "host", "vm", "disk", "device" */

#define RULES_MAX_SECTIONS 32
#define RULES_MAX_SCOPED 128     /* lines inside sections, over all sections */
#define RULES_NAME_MAX 256       /* bytes of a name in a section header, with its NUL */

struct rule_section {
	enum rule_scope kind;
	char host[RULES_NAME_MAX];   /* disk: the guest (or ESXi) host, "" = any host */
	char name[RULES_NAME_MAX];   /* the host, VM, disk (drive, mount point, virtual disk) or device */
};

/* Where a value was set: file (as given; borrowed from the diag that read it), line, column of
 * the value. */
struct rule_origin {
	const char *file;            /* NULL = none */
	long line, col;
};

/* One line of a rules file inside a section. */
struct rule_setting {
	double v;
	struct rule_origin at;
	int section;                 /* index in sec[] */
	enum rule_id id;
};

/* The rules in force: the global values, where they came from, and the scoped lines. */
struct rules {
	double v[R_COUNT];
	bool overridden[R_COUNT];    /* set by a global line of a rules file ... */
	struct rule_origin at[R_COUNT]; /* ... there */
	bool scoped[R_COUNT];        /* some section sets it: rules_for looks at the sections */
	struct rule_section sec[RULES_MAX_SECTIONS];
	int nsec;
	struct rule_setting set[RULES_MAX_SCOPED];
	int nset;
};
/* The global value (rules that apply to the whole analysis: sustain, episode gap, activity). */
static inline double rule_value(const struct rules *r, enum rule_id id) { return r->v[id]; }
/* The rows in a row a condition must hold at one row every iv_s seconds: sustain.samples, fewer
 * when fewer rows already last longer than sustain.seconds, never under sustain.min_samples — a rule holds for
 * a duration, not a count of rows (at 300 s, 5 rows would be 25 minutes). */
long rules_sustain_samples(const struct rules *r, double iv_s);

/* Who a value is for: a neutral view of an entity, so that rules need not know the model. */
struct entity_ref {
	enum layer layer;
	const char *host;            /* ESXi host or guest machine, NULL = unknown */
	const char *name;            /* "L:", "SQL01:scsi0:1", "naa.600a...", "vmhba2", a VM */
	const char *vm;              /* the VM it belongs to, NULL = none ... */
	size_t vm_len;               /* ... the first vm_len bytes of vm ("SQL01" of "SQL01:scsi0:1") */
};
/* The value of rule id for entity who (NULL: the global value): the line of the most specific
 * section that matches it — disk or device, then vm, then host — else the global value. Of two
 * sections equally specific the later wins. */
double rules_for(const struct rules *r, enum rule_id id, const struct entity_ref *who);
/* Whether the rule can be set in a section (false: it applies to the whole analysis). */
bool rule_scopable(enum rule_id id);

/* The defaults. */
void rules_init(struct rules *r);
/* Loads overrides from a file into r; errors (file:line:col) go through d, d->file must outlive
 * r (the reports name it). Returns 0 or ERR_FORMAT (r is then not to be used) / ERR_IO. */
int rules_load(struct rules *r, const char *path, struct diag *d);
/* The same from text (d->file names it in messages and in r). */
int rules_load_text(struct rules *r, const char *text, size_t len, struct diag *d);
/* Appends the table with r's values, then its sections ('iopsy rules'; itself a valid rules
 * file that loads to the same rules). */
void rules_print(const struct rules *r, struct buf *out);

/* ---- provenance: what a rules file changed, for the reports ---- */

/* A rule a rules file changed: a global line with a value other than the default, or any line
 * of a section. */
struct rule_override {
	enum rule_id id;
	double value;
	int section;                 /* -1: global */
	const char *file;            /* borrowed, NULL = none */
	long line;
};
#define RULES_MAX_OVERRIDES (R_COUNT + RULES_MAX_SCOPED)
/* The overrides: global ones in table order, then the scoped lines in file order. Writes at most
 * max to out (NULL with max 0 counts) and returns how many there are. */
size_t rules_overrides(const struct rules *r, struct rule_override *out, size_t max);
/* Appends a section's header text without brackets ("disk SQL01 L:"; names with spaces quoted);
 * section -1 is "global". */
void rules_scope_text(const struct rules *r, int section, struct buf *out);
/* Appends one override as a line of plain, unescaped text (the writers escape it): "name = value
 * (default D) from FILE:LINE" and ", for [SCOPE]" when scoped. */
void rules_override_text(const struct rules *r, const struct rule_override *o, struct buf *out);

#endif
