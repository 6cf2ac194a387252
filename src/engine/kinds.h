/* kinds.h — the one table of finding kinds: each kind's name (the stable id in JSON, history and
 * truth.json), title, the layer it names, where the IO-stack picture draws it, its rank as a cause
 * its place in the verdict and its step in the recommended actions. Detectors, the verdict, compare, the trend, every reporter, the
 * docs and the simulator read this table; nothing else spells a kind. */
#ifndef IOPSY_KINDS_H
#define IOPSY_KINDS_H

#include <stdbool.h>

#include "vocab.h"

enum kind {
	K_LAT_GUEST_READ,
	K_LAT_GUEST_WRITE,
	K_LAT_DEVICE,
	K_LAT_KERNEL,
	K_Q_DEVICE_SATURATED,
	K_Q_ADAPTER_SATURATED,
	K_Q_GUEST_VSCSI_CAP,
	K_Q_GUEST_HIDDEN,
	K_Q_ARRAY_OVERCOMMIT,
	K_T_AQD,
	K_T_SIOC,
	K_T_DSNRO,
	K_IO_SPLIT,
	K_ALIGN_MISALIGNED,
	K_ERR_ABORTS_RESETS,
	K_SCSI_QUEUE_FULL,
	K_LAT_DATASTORE,
	K_LAT_HBA,
	K_PATH_CHANGE,
	K_CPU_CONTENTION,
	K_LAT_VD_ABOVE,
	K_CFG_QDEPTH,
	K_T_STORAGE_QOS,
	K_CSV_REDIRECTED,
	K_LAT_HOST_DISK,
	K_MEM_GUEST_PAGING,
	K_MEM_HOST_SWAP,
	K_LAT_PATH,
	K_BW_CEILING,
	K_RSV_CONFLICT,
	K_LAT_VOL_MEMBER,
	K_COUNT
};

/* The boxes of the IO-stack picture, top to bottom. BOX_BY_LAYER: the finding's own layer decides. */
enum stack_box { BOX_GUEST, BOX_VSCSI, BOX_KERNEL, BOX_ADAPTER, BOX_ARRAY, BOX_COUNT, BOX_BY_LAYER };
/* The boxes' names: [0] VMware ("Virtual SCSI"), [1] Hyper-V ("VHDX"). */
extern const char *const stack_box_names[2][BOX_COUNT];

/* Where the verdict speaks of a kind ("IO waits in the guest, above the virtual SCSI controller",
 * "behind throttling of the LUN queue", ...). VP_NONE: only as "see the remaining findings". */
enum verdict_place { VP_NONE, VP_GUEST, VP_THROTTLE, VP_KERNEL, VP_ADAPTER, VP_ARRAY, VP_GUEST_LATENCY,
		     VP_DATASTORE, VP_CPU, VP_MEMORY };

/* The step of a kind's findings in the recommended actions (actions.h; actions.c words each).
 * ACT_UNSET is no kind's (a unit test walks the table). ACT_SYMPTOM says explicitly "no step of
 * its own": its findings join the step of their cause, or else the one that finds where the IO
 * waits. */
enum action_key {
	ACT_UNSET, ACT_SYMPTOM, ACT_PVSCSI, ACT_GUEST_PATH, ACT_DEVICE_QUEUE, ACT_ADAPTER, ACT_ARRAY, ACT_QFULL,
	ACT_SIOC, ACT_DSNRO, ACT_SPLIT, ACT_ALIGN, ACT_PATHS, ACT_DATASTORE, ACT_HBA, ACT_PATH_RESTORE, ACT_CPU,
	ACT_VD_ABOVE, ACT_QOS, ACT_CSV_REDIRECTED, ACT_HOST_DISK, ACT_MEMORY, ACT_PATH_GROUP, ACT_BANDWIDTH,
	ACT_RESERVATION, ACT_VOL_MEMBER, ACT_COUNT
};

struct kind_info {
	const char *name;            /* "queue.device_saturated" */
	const char *title;           /* "device queue saturated" */
	enum layer layer;            /* the layer its findings usually name */
	enum stack_box box;
	bool waits;                  /* the box says "IO waits here" */
	int cause_rank;              /* ordering at equal severity, causes first: 0 root causes
	                              * (throttling, the vSCSI limit, over-commit, misalignment,
	                              * aborts), 1 queues full because of them, 2 IO-pattern
	                              * symptoms, 3 latency, the symptom everything else explains */
	enum verdict_place place;
	int place_order;             /* which kind names its place first (lower first) */
	enum action_key action;      /* its step (actions.c may refine it from the other findings:
	                              * queue.guest_hidden joins a move to PVSCSI on a machine at the
	                              * vSCSI limit, an informational path.change is a symptom) */
};

/* Indexed by enum kind (static). */
extern const struct kind_info kinds[K_COUNT];
/* The kind called name, or -1. */
int kind_find(const char *name);

#endif
