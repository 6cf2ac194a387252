/* finding.h — what an analysis concludes: findings (kind, severity, the entity and window, the
 * evidence, the rule and its source, advice) and the guest disk ↔ virtual disk links they rest
 * on. Plain data: detectors fill it, topology, the verdict and every reporter read it. */
#ifndef IOPSY_FINDING_H
#define IOPSY_FINDING_H

#include <stdbool.h>
#include <stdint.h>

#include "kinds.h"
#include "vocab.h"

enum severity { SEV_INFO, SEV_WARNING, SEV_CRITICAL };
extern const char *const severity_names[3];  /* "info", "warning", "critical" (JSON and prose) */
extern const char *const severity_upper[3];  /* "INFO", "WARNING", "CRITICAL" (the text report) */
extern const char *const severity_titles[3]; /* "Info", "Warning", "Critical" (headings, tags) */

/* The virtual controller a guest disk is on, as far as the captures tell (detect_guest.c): from the
 * virtual disk's bus ("nvme0:1", "sata0:2"), or from the IOs the host holds for it (more than 32:
 * not LSI Logic SAS; more than 64: PVSCSI with MaxQueueDepth raised; never more than 32 while the
 * guest holds more: a per-disk limit of 32, LSI Logic SAS's). VC_UNKNOWN when nothing tells. */
enum vctrl { VC_UNKNOWN, VC_LSI, VC_PVSCSI, VC_PVSCSI_RAISED, VC_NVME, VC_SATA };

#define MAX_EVIDENCE 5
#define SWIN_MAX_CTX 2
struct evidence {
	enum metric metric;              /* metric_info[metric]: key, label and unit */
	double min, median, p95, max;
	long samples, above;             /* samples in the window / above the threshold */
	double threshold;                /* NaN when not a threshold metric */
};

/* One window of an episode: the condition held from start to end (UTC ms, aligned). */
struct subwin {
	int64_t start, end;
};

/* A sustained condition found on the raw rows (stream.c): one episode of one detector on one
 * entity, in the capture's own clock; detectors turn it into a finding. */
struct swin_ev {
	enum metric metric;
	double min, median, p95, max, mean;
	long samples, above;             /* rows with a value in the episode's windows / above thr */
	double threshold;                /* NaN: context only */
};
struct swin {
	int det;                         /* row of the detector table */
	size_t ent;                      /* the entity (model index) */
	int64_t start, end;              /* first and last sample where the condition held */
	double held_s;                   /* time the condition held, summed over the windows */
	long rows, true_rows;            /* rows in the windows / where the condition held */
	double signal_mean;              /* mean of the rule's signal over the windows */
	struct swin_ev ev[MAX_EVIDENCE];
	int nev;
	double ctx_median[SWIN_MAX_CTX];  /* medians of the rule's context metrics (NaN: none) */
	struct subwin *sub;              /* the windows (analysis arena) */
	int nsub;
};

struct finding {
	enum kind kind;                  /* kinds[kind].name: e.g. "queue.device_saturated" */
	enum severity sev;
	enum layer layer;
	const char *entity, *host;       /* arena */
	long ent;                        /* the entity in the model, -1 for one only logs or partition
	                                  * tables name (a device in vmkernel.log, "Disk #1") */
	int64_t start, end;              /* UTC ms: the episode, first window's start to last one's end */
	double sustained_s;              /* time the condition held (the windows' durations summed) */
	const struct subwin *sub;        /* the episode's windows (arena); NULL: one, start..end */
	int nsub;
	struct evidence ev[MAX_EVIDENCE];
	int nev;
	const char *summary;             /* one line (arena) */
	const char *rule;                /* rule with its threshold (arena) */
	const char *source;              /* static */
	const char *advice;              /* arena */
	bool heuristic;                  /* [derived] rule: labelled as a heuristic */
	bool nondata;                    /* a device latency that came with non-read/write commands
	                                  * (UNMAP, ATS, ...): they, not the array's data path, are the cause */
	bool done;                       /* the capture shows its fix was made and worked (a queue depth
	                                  * raised inside the capture): no action to make it again */
	long capture;                    /* capture index, -1 for none */
	int explained_by;                /* a memory cause explains it (detect_mem.c): that finding's
	                                  * kind + 1, 0 for none; it then names no place in the verdict
	                                  * and joins its cause's action */
	const char *explained_machine;   /* the cause's machine: the guest that pages, the VM the host
	                                  * swaps (arena), NULL */
	/* a device's finding: who loads it over the finding's time (its worlds' IO, iopath.h) */
	const char *load;                /* "APP03 95% of its commands, SQL01 5%" (arena), NULL */
	const char *driver;              /* the VM that issues most of them while another VM on the LUN
	                                  * waits: the neighbour (arena), NULL when none */
	const char *victims;             /* those other VMs ("SQL01", arena), NULL */
	const char *victim_vdisk;        /* the first victim's virtual disk on the LUN (arena), NULL */
	double driver_share;             /* the driver's share of the commands (0..1), NaN */
	enum vctrl ctrl;                 /* queue.guest_vscsi_cap: the disk's controller (VC_UNKNOWN) */
};

/* guest disk ↔ virtual disk */
struct diskmap_entry {
	const char *guest_host, *guest_disk, *vdisk; /* arena */
	const char *file;                /* the --map file of a user's line (arena), NULL */
	long line;                       /* its line, 0 for automatic mappings */
	bool automatic;
	double correlation;              /* automatic mappings: Pearson r of the IOPS series */
};

#endif
