/* capmodel.h — the neutral capture model the engine works on: entities (guest disk, virtual disk,
 * world, device, adapter, VM) with metrics in common units (ms, IO/s, MB/s, commands), each with a
 * quantile sketch and an aligned downsampled series. Built in one streaming pass per capture; the
 * rows themselves are not kept. */
#ifndef IOPSY_CAPMODEL_H
#define IOPSY_CAPMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "stats.h"
#include "util.h"

enum layer { LAYER_GUEST, LAYER_VSCSI, LAYER_WORLD, LAYER_DEVICE, LAYER_ADAPTER, LAYER_ARRAY, LAYER_VM, LAYER_COUNT };
extern const char *const layer_names[LAYER_COUNT];

/* Metrics, in the units shown (perfmon seconds are converted to ms). */
enum metric {
	M_DAVG, M_KAVG, M_GAVG, M_QAVG,              /* ms per command */
	M_DAVG_R, M_DAVG_W, M_KAVG_R, M_KAVG_W, M_GAVG_R, M_GAVG_W,
	M_ACTV, M_QUED, M_DQLEN, M_USD, M_LOAD, M_AQLEN, M_WQLEN,
	M_CMDS, M_READS, M_WRITES, M_MBR, M_MBW,     /* per second */
	M_ABRTS, M_RESETS, M_FAILED, M_SPLIT,
	M_WORLDS,                                    /* derived: active worlds on a device */
	M_VD_LAT_R, M_VD_LAT_W,                      /* Virtual Disk Average MilliSec/Read|Write */
	M_G_LAT_R, M_G_LAT_W, M_G_LAT_T,             /* guest Avg. Disk sec/Read|Write|Transfer, in ms */
	M_G_CDQL, M_G_ADQL,                          /* Current / Avg. Disk Queue Length */
	M_G_XFERS, M_G_READS, M_G_WRITES, M_G_MBPS, M_G_SPLIT, M_G_BPT,
	M_RDY,                                       /* Group Cpu % Ready */
	M_COUNT
};
struct metric_info {
	const char *name;   /* JSON/text key, e.g. "davg_ms" */
	const char *label;  /* human label, e.g. "DAVG (device latency)" */
	const char *unit;   /* "ms", "IO/s", ... */
};
extern const struct metric_info metric_info[M_COUNT];

/* A change of a device's queue depth (DQLEN) between two consecutive samples. */
struct dq_event {
	int64_t t;
	float from, to;
	float davg;              /* DAVG in the sample of the change (ms) */
};
#define DQ_MAX_EVENTS 8192

struct entity {
	enum layer layer;
	const char *name;        /* naa id, vmhba2, "SQL01:scsi0:1", "D:", VM name (arena) */
	const char *host;        /* ESXi host or Windows machine (arena) */
	const char *device;      /* world entities: their device */
	size_t capture;          /* index of the capture it came from */
	int series[M_COUNT];     /* index in the capture's dstore, -1 when absent */
	struct qsketch sk[M_COUNT];
	/* devices: DQLEN history as change events (exact, never downsampled) */
	struct dq_event *dq;
	size_t ndq, dq_dropped;
	double dq_first, dq_max;  /* first and largest DQLEN seen */
	double dq_last;
};

struct capture {
	const char *path;        /* as given (borrowed from argv) */
	const char *format;      /* "esxtop" | "perfmon" */
	const char *host;
	int64_t start, end;      /* UTC ms */
	double interval_s;
	long rows, columns, warnings, skipped_rows;
	bool gzip;
	int64_t clock_offset_ms; /* added to this capture's times to align it (perfmon: guest − host) */
	bool offset_estimated;
	double offset_confidence;
	struct dstore ds;
	size_t first_entity, nentities;
	int failed;              /* ERR_* when the capture could not be read */
};

/* perfmon PhysicalDisk instances ("1 D: E:"): Windows disk number → first drive letter. */
struct guest_disk_no {
	const char *host, *drive;
	int disk;
};

/* Storage entities analysed per capture; more (only in crafted or absurd headers) are ignored
 * with a warning, which bounds memory (about 10 KB each). */
#define MODEL_MAX_ENTITIES 20000

struct model {
	size_t *hidx;            /* entity hash: index + 1, 0 = empty (capmodel.c) */
	size_t hcap;
	struct guest_disk_no *disks;
	size_t ndisks;
	struct capture *caps;
	size_t ncaps;
	struct entity *ents;
	size_t nents, cap_ents;
	struct arena arena;
};

void model_init(struct model *m);
void model_free(struct model *m);
/* Reads one capture into the model (one streaming pass). Returns 0 or a negative ERR_*; a failed
 * capture is still recorded (failed != 0) so reports can list it. */
int model_add_capture(struct model *m, const char *path, const struct common_opts *co);
/* Entity lookup by layer and name (and host when not NULL); NULL when absent. */
struct entity *model_find(struct model *m, enum layer l, const char *name, const char *host);
/* The drive of Windows disk number n ("Disk #1" in wmic) on host (NULL = any host), or NULL. */
const struct guest_disk_no *model_disk_no(const struct model *m, int n, const char *host);
/* Time of bucket k of capture c, aligned (clock offset applied): middle of the bucket. */
int64_t model_time(const struct model *m, const struct capture *c, size_t k);

/* Classifies a counter path; exposed for tests. Returns the metric or -1; fills layer and
 * entity name (written into out, cap bytes). */
int model_classify(const struct pdh_path *p, bool perfmon, enum layer *layer, char *out, size_t cap, double *scale);

#endif
