/* capmodel.h — the neutral capture model the engine works on: entities (guest disk, virtual disk,
 * world, device, adapter, VM) with metrics in common units (ms, IO/s, MB/s, commands), each with a
 * quantile sketch and an aligned downsampled series. Built in one streaming pass per capture; the
 * rows themselves are not kept. */
#ifndef IOPSY_CAPMODEL_H
#define IOPSY_CAPMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "entfilter.h"
#include "input.h"
#include "stats.h"
#include "util.h"
#include "vocab.h"

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
	const char *device;      /* world entities: their device; path entities: the device their name
	                          * gives ("<device>-vmhba2:C0:T1:L3"), NULL when it names none */
	long wid;                /* world entities: the world id (Per-Device-Per-World(DEVICE-WID)) */
	const char *volume;      /* guest disks: the volume over several disks this disk is a member of, as the
	                          * capture names it (perfmon PhysicalDisk "2 G:" .. "5 G:": each "Disk N" of
	                          * volume "G:"), NULL when none is named */
	bool aggregate;          /* perfmon _Total: the whole guest, kept when no disk of its own is there */
	bool nfs;                /* a device that is an NFS datastore: latency is GAVG only, no queue */
	signed char disk_match;  /* --disk on a host capture's virtual disk or device: the pattern names
	                          * it (1) or not (0) — kept while the captures are read, then left
	                          * out unless it is on a selected disk's path (analysis.c); -1 */
	bool outside;            /* outside the selection (--disk), decided after the disks are
	                          * mapped: read, but no finding, table or coverage counts it */
	size_t capture;          /* index of the capture it came from */
	int series[M_COUNT];     /* index in the capture's dstore, -1 when absent */
	/* every value of each metric it has (read with entity_sk): skv[skx[m] - 1] is metric m's
	 * sketch, skx[m] == 0 when it has none (an entity has 5-20 of the M_COUNT metrics) */
	unsigned char skx[M_COUNT];
	unsigned char nsk;
	struct qsketch *skv;
	/* devices: DQLEN history as change events (exact, never downsampled) */
	struct dq_event *dq;
	size_t ndq, dq_dropped;
	double dq_first, dq_max;  /* first and largest DQLEN seen */
	double dq_last;
};

/* One file of a capture continued by more files of the same host and format (model_add_capture
 * merges them): what each gave. */
struct capture_part {
	const char *path;        /* as given (borrowed) */
	int64_t start, end;      /* UTC ms of the rows used; start > end when none */
	long rows, columns, warnings, skipped_rows, outside_rows;
	long overlap_rows;       /* rows at times the capture already had: skipped, not counted twice */
	long overlap_line0, overlap_line1;
	int64_t overlap_t0, overlap_t1;
	int64_t gap_ms;          /* from the previous file's last row to this file's first (0: first part) */
	bool gap;                /* more than the gap rule: marked as a discontinuity */
	bool gzip;
};

struct capture {
	const char *path;        /* as given (borrowed from argv) */
	const char *format;      /* the parser's name: "esxtop", "perfmon" (static) */
	enum parser_role role;   /* host or guest capture */
	const char *host;
	int64_t start, end;      /* UTC ms */
	double interval_s;
	long rows, columns, warnings, skipped_rows;
	long outside_rows;       /* rows outside the time window (--from/--to), not read */
	bool windowed;           /* read with a time window */
	bool gzip;
	const char *vm_hint;     /* a guest capture's own sign of being a VM: the first object only a VM's
	                          * Windows has ("VM Processor", "VM Memory": VMware Tools; "Hyper-V
	                          * Dynamic Memory Integration Service"), static; NULL none */
	bool local_time;         /* the format writes local time (perfmon) */
	bool bias_known;         /* ... and the header said its bias: UTC = local + bias_min */
	int bias_min;
	int ndst;                /* DST changes the file's local clock made (reader_stats): from dst_at[k]
	                          * (UTC ms, unaligned) on, local time = UTC + dst_off_min[k] */
	int64_t dst_at[8];
	int dst_off_min[8];
	const char *zone;        /* the header's zone name ("Pacific Daylight Time"), NULL */
	int64_t clock_offset_ms; /* added to this capture's times to align it (perfmon: guest − host) */
	bool offset_estimated;
	double offset_confidence;
	struct dstore ds;
	size_t first_entity, nentities;
	size_t first_aux, naux;  /* its io-path entities (model.aux) */
	int failed;              /* ERR_* when the capture could not be read */
	/* columns past MODEL_MAX_ENTITIES not read, by the layer of their entity (0: none); a layer
	 * with any is not assessed and no conclusion is drawn from it (capmodel_over_cap) */
	long over_cap[LAYER_COUNT];
	long impossible;         /* values outside their counter's range (metric_plausible): missing */
	long dup_columns;        /* columns whose name an earlier column of the header has: not read */
	long dup_first_col;      /* the first of them (1-based field), its header's line, its name (arena) */
	long dup_line;
	const char *dup_first;
	int ambiguous_vms;       /* VM names two groups (VMs) share: told apart by group id */
	const char *ambiguous_first; /* the first such name (arena) */
	struct capture_part *parts; /* nparts >= 2 when files were merged into it (parts[0] is path) */
	size_t nparts;
	/* while it is read: the current row's values by series (NaN = missing), for the row hook */
	const double *cur;
	double interval_so_far;  /* median interval of the rows read so far (s), 0 before two rows */
};

/* perfmon PhysicalDisk instances ("1 D: E:"): Windows disk number → first drive letter. */
struct guest_disk_no {
	const char *host, *drive;
	int disk;
};

/* Storage entities analysed per capture (and as many io-path entities: worlds, paths); more (only
 * in very large or crafted headers) are not read, which bounds memory (about 10 KB each). The
 * entities conclusions need come first whatever the header order: devices, virtual disks, guest
 * disks, adapters and per-world IO before paths. The layers whose entities were dropped are named
 * (capture.over_cap) and not assessed. */
#define MODEL_MAX_ENTITIES 20000

struct model;
/* Called while a capture streams (the analysis detects on the raw rows): begin after the header,
 * row after each row (t_ms: its UTC time in the capture's own clock; dt_ms: since the row before,
 * 0 for the first or after a discontinuity), end after the last row of each file, resume before
 * the first row of a file that continues the capture. */
struct model_hooks {
	void *ctx;
	void (*begin)(void *ctx, struct model *m, size_t capture);
	void (*row)(void *ctx, struct model *m, size_t capture, int64_t t_ms, int64_t dt_ms);
	void (*end)(void *ctx, struct model *m, size_t capture);
	/* a capture continued by another file (model_add_capture), before its first row: after a
	 * gap (the state so far should close) or contiguous; entities may have been added */
	void (*resume)(void *ctx, struct model *m, size_t capture, bool gap);
};

/* A world of a VM, from the capture's own identifiers: esxtop's Vcpu(GID:VM:WID:WORLD) columns name
 * the VM of world WID (the same id as in Per-Device-Per-World(DEVICE-WID)). */
struct world_vm {
	size_t capture;
	long wid;
	const char *vm;          /* the VM's name without esxtop's " (UUID)" (arena); "NAME (group GID)"
	                          * when the capture shows two VMs of that name (two group ids) */
	bool vcpu;               /* a vCPU world (vmx-vcpu-N, vmmN) */
	long gid;                /* its group id (Vcpu(GID:...)), -1 unknown */
};

struct model {
	struct model_hooks hooks; /* NULL functions: none */
	/* The io-path entities: worlds' IO to each device (LAYER_WORLD, "naa...-WID") and the
	 * devices' paths (LAYER_PATH, "vmhba2:C0:T1:L3"), kept apart from ents so that only the IO
	 * path graph (iopath.h) reads them; their series are in their capture's dstore. */
	struct entity *aux;
	size_t naux, cap_aux;
	size_t *ahidx, ahcap;
	struct world_vm *wvm;    /* the worlds the captures name a VM of */
	size_t nwvm;
	size_t *hidx;            /* entity hash: index + 1, 0 = empty (capmodel.c) */
	size_t hcap;
	struct guest_disk_no *disks;
	size_t ndisks;
	struct capture *caps;
	size_t ncaps;
	struct entity *ents;
	size_t nents, cap_ents;
	const struct tz *tz;     /* --tz (borrowed from the options), NULL: not given */
	struct ent_filter *filter; /* --host/--vm/--disk (borrowed; NULL = every entity): applied as each
	                          * header is read, so a left-out entity's columns are never read */
	bool no_merge;           /* keep every file a capture of its own (tests) */
	struct arena arena;
};

void model_init(struct model *m);
void model_free(struct model *m);
/* Reads one capture into the model (one streaming pass). Returns 0 or a negative ERR_*; a failed
 * capture is still recorded (failed != 0) so reports can list it.
 * Several files of one host: a file of the same format and host as the capture read just before
 * (not failed) continues it — a capture restarted, or split per day — instead of becoming a
 * capture of its own: its columns map onto the same entities (new ones are added), its rows follow
 * in time order. Rows at times the capture already has (an overlap, or the same file twice) are
 * skipped and reported with file:line, never counted twice; a time gap between the files longer
 * than the episode gap is marked as a discontinuity and reported. The detectors' windows close at
 * the end of each file. Give the files of one host one after the other (capture_order sorts a
 * command line so). The capture keeps the first file's path and lists every file in parts. */
int model_add_capture(struct model *m, const char *path, const struct common_opts *co);
/* The same from len bytes in memory (borrowed for the call), named name (borrowed: must outlive
 * the model, like path). */
int model_add_capture_mem(struct model *m, const char *name, const void *data, size_t len, const struct common_opts *co);
/* Entity lookup by layer and name (and host when not NULL); NULL when absent. */
struct entity *model_find(struct model *m, enum layer l, const char *name, const char *host);
/* The drive of Windows disk number n ("Disk #1" in wmic) on host (NULL = any host), or NULL. */
const struct guest_disk_no *model_disk_no(const struct model *m, int n, const char *host);
/* The current row's value of metric m of e (NaN when missing): inside a row hook only. */
static inline double entity_cur(const struct model *m, const struct entity *e, int metric)
{
	const double *cur = m->caps[e->capture].cur;
	return e->series[metric] < 0 || !cur ? (double)NAN : cur[e->series[metric]];
}
/* The physical range of a counter (issue 38): no counter of the vocabulary is negative, and none
 * exceeds the ceiling of its unit: a latency of an hour per IO (SCSI commands are aborted after
 * seconds to minutes), 100 million IOs per second (ten times the fastest arrays), 10 TB/s, 10
 * million commands in a queue, 100,000 % (a VM's CPU percentages summed over its worlds), 10^15
 * for the rest. A value outside is a glitch, warned at file:line:col and read as missing. */
#define METRIC_MAX_MS 3.6e6
#define METRIC_MAX_RATE 1e8
#define METRIC_MAX_MBPS 1e7
#define METRIC_MAX_QUEUE 1e7
#define METRIC_MAX_PCT 1e5
#define METRIC_MAX_OTHER 1e15
bool metric_plausible(int metric, double v);
double metric_ceiling(int metric);
/* Whether capture ci (SIZE_MAX: any capture) dropped entities of layer l past the cap. */
bool model_over_cap(const struct model *m, size_t ci, enum layer l);
/* The layers m's captures dropped entities of past the cap, as "paths, per-world IO" (into out,
 * "" when none); returns the columns not read. */
long model_over_cap_text(const struct model *m, size_t ci, char *out, size_t cap);
/* The vCPUs of VM vm in capture ci: its vCPU worlds the Vcpu columns name (vmx-vcpu-N, vmmN);
 * 0 when the capture names none. */
int model_vm_vcpus(const struct model *m, size_t ci, const char *vm);
/* Whether capture ci is a Hyper-V host's perfmon (parsers/fmt_hyperv.c): its LAYER_VSCSI entities
 * are VHDX files, its devices host disks, its VMs virtual processors (doc/hyperv.md). */
static inline bool model_hyperv(const struct model *m, size_t ci)
{
	return ci < m->ncaps && m->caps[ci].format && strcmp(m->caps[ci].format, "hyperv") == 0;
}
/* Whether guest capture ci is known to be a VM's: it shows a VM's counters (vm_hint), or the model
 * has a hypervisor host's capture it is judged with. A perfmon alone without them is a Windows
 * host, physical as far as it shows. */
bool model_guest_is_vm(const struct model *m, size_t ci);
/* The sketch of every value of metric m of e (borrowed: valid while the model is); an empty
 * sketch (n == 0) when e has no value of it. */
const struct qsketch *entity_sk(const struct entity *e, int m);
/* Mean of metric m over every row of e; NaN when e is NULL or has no value. */
double entity_mean(const struct entity *e, int m);
/* The order to read paths[n] in (order[n] receives indexes into paths): the files of one host and
 * format next to each other, in the time order of their first rows, at the place of the first of
 * them; everything else keeps its place. Reads each file's head (and the first row of those that
 * share a host), silently; '-' and unreadable files keep their place. */
void capture_order(char *const *paths, size_t n, const struct common_opts *co, size_t *order);
/* Time of bucket k of capture c, aligned (clock offset applied): middle of the bucket. */
int64_t model_time(const struct model *m, const struct capture *c, size_t k);

#endif
