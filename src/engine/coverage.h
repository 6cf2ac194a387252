/* coverage.h — what an analysis could assess, per layer of the IO stack and per entity, and why
 * not where it could not: no such capture, no latency or queue counter, only _Total, a capture
 * shorter than the sustain rule, or idle. The verdict and every output say it, so that an
 * all-clear is only ever given for what was assessed. */
#ifndef IOPSY_COVERAGE_H
#define IOPSY_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "capmodel.h"
#include "rules.h"

enum cov_status { COV_ASSESSED, COV_PARTIAL, COV_NOT_ASSESSED };
extern const char *const cov_status_names[3]; /* "assessed", "partial", "not_assessed" */
extern const char *const cov_status_words[3]; /* "assessed", "partly assessed", "not assessed" (prose) */

enum cov_reason {
	COVR_OK,
	COVR_NO_CAPTURE,      /* no capture of that side (no perfmon, no esxtop) */
	COVR_NO_COUNTER,      /* the capture has no latency / queue counter for the layer */
	COVR_TOTAL_ONLY,      /* perfmon has only LogicalDisk/PhysicalDisk(_Total) */
	COVR_TOO_SHORT,       /* fewer samples or a shorter span than the sustain rule needs */
	COVR_IDLE,            /* every entity of the layer was idle (latency of idle disks is not judged) */
	COVR_SOME,            /* some entities assessed, others not (see the entities) */
	COVR_NO_AQLEN,        /* adapters without Adapter Q Depth (esxtop -a): saturation not provable */
	COVR_NO_SCSI,         /* the disks are on NFS or vSAN: no SCSI device, adapter or LUN to judge */
	COVR_FILTERED,        /* --host/--vm/--disk left out every entity the layer is judged on */
	COVR_OVER_CAP,        /* entities of the layer past MODEL_MAX_ENTITIES were not read */
	COVR_COUNT
};
extern const char *const cov_reason_names[COVR_COUNT]; /* "", "no_capture", ... (JSON) */

/* The layers coverage speaks of, top to bottom: guest, vSCSI, world, device, adapter, array. */
#define COV_LAYERS 6
/* The layers' short words: [0] VMware ("guest", "vSCSI", "world", "device", "adapter", "array"),
 * [1] Hyper-V ("guest", "VHDX", "nodes", "disk" (the host disk), "HBA/MPIO", "array"). */
extern const char *const cov_layer_words_by[2][COV_LAYERS];
#define cov_layer_words cov_layer_words_by[0]
/* Their titles in a report: [0] VMware ("Virtual SCSI"), [1] Hyper-V ("VHDX (Hyper-V storage)"). */
extern const char *const cov_layer_titles[2][COV_LAYERS];

struct layer_cov {
	enum cov_status status;
	enum cov_reason reason;
	const char *why;        /* one sentence for the user (static or the coverage's arena); "" ok */
	size_t assessed, total; /* entities of the layer assessed / present */
};

struct ent_cov {
	size_t ent;             /* index in the model */
	enum cov_status status;
	enum cov_reason reason;
};

struct coverage {
	struct layer_cov layer[COV_LAYERS]; /* indexed by enum layer (LAYER_GUEST .. LAYER_ARRAY) */
	struct ent_cov *ents;   /* the disk-layer entities (guest, vSCSI, device, adapter), model order */
	size_t nents;
	bool complete;          /* every layer assessed, and the guest tied to the host below it when both
	                         * were captured */
	const char *link_why;   /* the guest<->host link not assessed: why (the analysis's, borrowed),
	                         * NULL when it was, or when there are not both a guest and a host */
	struct arena arena;
};

/* What coverage reads besides the model. */
struct cov_in {
	const struct model *m;
	const struct rules *r;
	bool have_vmklog, have_partitions;
	int array_queue_depth;
	/* The virtual disks the host layers are judged for (those mapped to guest disks, else every
	 * active one) and what backs them: a SCSI LUN, an NFS volume, nothing the capture shows. */
	int vd_n, vd_scsi, vd_nfs;
	int vd_unknown;         /* of those on no SCSI LUN: not tied to one, though nothing shows they
	                         * are elsewhere (their LUN is not identified) */
	const char *vd_other;   /* the first one not on a SCSI LUN, NULL when none */
	const struct ent_filter *filter; /* the selection the captures were read with, NULL = all */
};

/* Fills c (initialised here; free with coverage_free). */
void coverage_build(const struct cov_in *in, struct coverage *c);
void coverage_free(struct coverage *c);
/* Whether entity index i was assessed (true for entities coverage does not track). */
bool coverage_entity_assessed(const struct coverage *c, size_t i);

#endif
