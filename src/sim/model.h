/* model.h — the simulated SQL Server on VMware IO stack: what a host looks like (VMs, vSCSI
 * controllers, virtual disks, LUNs, HBAs, the array behind them, other hosts on the same LUNs) and
 * its state per time step. Each step is solved quasi-statically (closed thread pools against
 * latency-dependent queues); queue-depth controllers (AQD, SIOC, DSNRO) act between steps. */
#ifndef IOPSY_SIM_MODEL_H
#define IOPSY_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

enum {
	SIM_MAX_VM = 12,
	SIM_MAX_CTRL = 16,
	SIM_MAX_VDISK = 40,
	SIM_MAX_DEV = 24,
	SIM_MAX_ADAPTER = 4,
	SIM_MAX_PHASE = 6,
	SIM_MAX_WORLD = 48,
	SIM_MAX_EXPECT = 16,
	SIM_NAME = 96,
};

enum sim_ctrl_kind { SIM_CTRL_LSI, SIM_CTRL_PVSCSI };

/* A time window, as fractions of the capture duration, during which a workload runs differently. */
struct sim_phase {
	double t0, t1;     /* fractions of the duration */
	double pop;        /* thread-pool population (max outstanding IOs of the workload) */
	double think_ms;   /* time a thread computes between two IOs */
};

/* A workload on one guest disk: a closed pool of IO-issuing threads (an ETL thread pool, SQL
 * Server read-ahead, the log writer). Population and think time change by phase. */
struct sim_load {
	double pop, think_ms;
	int nphase;
	struct sim_phase phase[SIM_MAX_PHASE];
	double read_frac, read_kib, write_kib;
	double wobble;     /* sigma of the log-normal modulation of think time (burstiness) */
};

struct sim_vm {
	char name[SIM_NAME];   /* VM name as esxtop shows it (may contain spaces and parentheses) */
	char guest[32];        /* Windows host name, perfmon's \\MACHINE; "" = no perfmon */
	int gid, wid, vcpus;   /* Group Cpu id, VMX world id (joins Per-Device-Per-World to Vcpu) */
	double clock_offset_s; /* guest clock minus host clock */
	double powered_off_at; /* fraction of the duration; > 1 = stays on */
};

struct sim_ctrl {
	int vm, bus;
	enum sim_ctrl_kind kind;
	int disk_limit, adapter_limit;  /* per-disk and per-adapter outstanding IOs (LSI 32/128) */
	double e0_ms, e_kib_ms;         /* emulation cost per IO (fixed + per KiB) */
	bool serial;                    /* one emulation server per adapter (LSI) */
};

struct sim_vdisk {
	int vm, ctrl, target, dev;
	char drive[4];          /* "D:" */
	int disk_no;            /* Windows disk number (PhysicalDisk "1 D:", wmic "Disk #1") */
	double size_gb, free_pct;
	struct sim_load load;
	double split_frac;      /* share of guest IOs Windows splits (Split IO/Sec) */
	double vsplit_frac;     /* share of commands the VMkernel splits (esxtop Split Commands/sec) */
	double misalign;        /* back-end IOs per guest IO (1 = aligned, 2 = crosses a stripe) */
	long long part_offset;  /* partition StartingOffset in bytes */
};

struct sim_dev {
	char naa[48];
	int adapter, lun, path_target;
	int dqlen;              /* HBA driver per-LUN depth */
	int dsnro;              /* Disk.SchedNumReqOutstanding; 0 = not applied */
	double s0_r, s0_w;      /* array service per 8 KiB read/write at no load (ms) */
	double t_kib;           /* extra service per KiB (ms) */
	double parallel;        /* array parallelism behind the LU (servers) */
	double k0;              /* VMkernel path cost per IO (ms): the KAVG floor */
	int array_qdepth;       /* LU command queue at the array; 0 = unlimited (no QFULL) */
	bool aqd;               /* adaptive queue depth (Disk.QFullSampleSize > 0) */
	int aqd_floor, aqd_sample;
	double aqd_batch;       /* good completions per +1 step */
	bool sioc;
	double sioc_ms, sioc_beta, sioc_bg_beta;
	double bg_iops, bg_kib, bg_read_frac; /* other hosts on the same LUN */
	int nbg_phase;
	struct sim_phase bg_phase[SIM_MAX_PHASE]; /* pop = IOPS multiplier */
	bool local;             /* local boot device: idle, owned by a system world */
};

struct sim_adapter {
	char name[16];
	int aqlen;
	bool local;
};

/* One expected finding in truth.json. */
struct sim_expect {
	const char *kind;
	char entity[SIM_NAME];
	char host[32];          /* guest host for guest entities, "" otherwise */
	double t0, t1;          /* fractions of the duration */
};

struct sim_config {
	char scenario[48];
	char host[64];          /* ESXi host name (esxtop \\host) */
	uint64_t seed;          /* the user's --seed (written to truth.json) */
	int part;               /* 0, or 1 for the second capture of a pair (migration "after") */
	char part_name[16];     /* "" or the subfolder name of a pair ("before", "after") */
	int64_t start_ms;       /* UTC */
	double duration, interval, dt;
	int width;              /* esxtop columns wanted incl. the timestamp; 0 = natural */
	bool all_counters, gzip, want_vmklog, want_partitions;
	int pcpus;
	int nvm, nctrl, nvdisk, ndev, nadapter;
	struct sim_vm vm[SIM_MAX_VM];
	struct sim_ctrl ctrl[SIM_MAX_CTRL];
	struct sim_vdisk vdisk[SIM_MAX_VDISK];
	struct sim_dev dev[SIM_MAX_DEV];
	struct sim_adapter adapter[SIM_MAX_ADAPTER];
	int nexpect;
	struct sim_expect expect[SIM_MAX_EXPECT];
	uint32_t absent;        /* bit i = sim_kinds[i] must not be reported */
};

/* Interval accumulator for one guest disk (one per output stream: esxtop and perfmon sample on
 * different clocks). Latency sums are count × milliseconds. */
struct sim_acc {
	double time_s;
	double rd, wr, brd, bwr;        /* completions and bytes */
	double davg_r, davg_w, kavg_r, kavg_w, qavg_r, qavg_w; /* host side */
	double glat_r, glat_w;          /* guest side (incl. guest wait and emulation) */
	double split, vsplit, idle_s;
	double failed;                  /* QUEUE FULL / BUSY completions (device level) */
};

struct sim_vdisk_state {
	double pop, think_ms, wob;
	double x;               /* completions per second */
	double rslot_ms;        /* time an IO holds a vSCSI slot: emulation + host */
	double host_r_ms, host_w_ms, davg_r_ms, davg_w_ms;
	double wait_ms;         /* guest wait above the vSCSI per-disk limit */
	double vscsi_out;       /* IOs inside the vSCSI limit */
	double guest_out;       /* IOs outstanding in the guest disk stack (perfmon's view) */
	double act, qued;       /* this disk's share of device ACTV/QUED (fluid) */
	bool capped;
	double ucost, ur, uw;   /* array service per command (ms, no load) */
	double ecost;           /* emulation cost per IO (ms) */
	double ewma_x;
};

struct sim_dev_state {
	int dqlen;              /* effective queue depth (esxtop DQLEN) */
	int cap;                /* active limit this step: min(dqlen, array accept) */
	int aqd_depth;
	double aqd_good, aqd_qfull;
	double sioc_w, sioc_bg_w, sioc_lat, sioc_sum, sioc_n, sioc_next;
	int active_worlds;
	double r_ms, davg_ms, qwait_ms, util, x, act, qued;
	double x_bg, bg_out, bg_wob, bg_lim;
	double svc_wob, svc_mult; /* array service-time modulation (cache hits, back-end contention) */
	double qfull;           /* QUEUE FULL responses this step */
	double lat_slow;        /* smoothed DAVG for the "performance has deteriorated" log */
	bool deteriorated;
};

struct sim_ctrl_state {
	double e_ms, rho, scale;
};

struct sim_adapter_state {
	double qa_ms, act, qued;
};

enum sim_event_kind { SIM_EV_QFULL, SIM_EV_BUSY, SIM_EV_REDUCE, SIM_EV_DETERIORATE, SIM_EV_IMPROVE };

struct sim_event {
	double t;               /* seconds since start */
	int dev, vm;
	enum sim_event_kind kind;
	double a, b;            /* REDUCE: new depth; DETERIORATE/IMPROVE: from/to microseconds */
	int rw;                 /* 0 read, 1 write (command opcode) */
};

enum { SIM_STREAM_ESX, SIM_STREAM_PERF, SIM_NSTREAM };

struct sim_model {
	const struct sim_config *cfg;
	struct sim_rng rng;     /* workload and IO randomness */
	struct sim_rng srng;    /* point-sample noise */
	double t;               /* seconds since start (end of the last step) */
	long step;
	int nserial;
	struct sim_vdisk_state vs[SIM_MAX_VDISK];
	struct sim_dev_state ds[SIM_MAX_DEV];
	struct sim_ctrl_state cs[SIM_MAX_CTRL];
	struct sim_adapter_state as[SIM_MAX_ADAPTER];
	struct sim_acc acc[SIM_NSTREAM][SIM_MAX_VDISK];
	double dev_failed[SIM_NSTREAM][SIM_MAX_DEV];
	/* index lists built once */
	int dev_nv[SIM_MAX_DEV], dev_v[SIM_MAX_DEV][SIM_MAX_VDISK];
	int ctrl_nv[SIM_MAX_CTRL], ctrl_v[SIM_MAX_CTRL][SIM_MAX_VDISK];
	struct sim_event *ev;
	size_t nev, cap_ev;
	/* test hook: maximum vSCSI outstanding seen per disk over the run */
	double max_vscsi[SIM_MAX_VDISK];
};

/* Finding kinds (issue 4), in a fixed order; sim_config.absent is a bit set over this table. */
extern const char *const sim_kinds[];
extern const int sim_nkinds;
int sim_kind_index(const char *kind);

/* Workload population and think time at time t (seconds) for a duration; ramps phase edges. */
void sim_load_at(const struct sim_load *l, double t, double duration, double *pop, double *think_ms);

/* Prepares the model for cfg (borrowed; must outlive m). Returns 0 or ERR_NOMEM. */
int sim_model_init(struct sim_model *m, const struct sim_config *cfg);
/* Advances one step of cfg->dt seconds. Returns 0 or ERR_NOMEM (event list growth). */
int sim_model_step(struct sim_model *m);
void sim_model_reset_acc(struct sim_model *m, int stream);
void sim_model_free(struct sim_model *m);

/* Instantaneous device queue sample (ACTV, QUED) with counting noise; ACTV <= DQLEN always. */
void sim_model_sample_dev(struct sim_model *m, int dev, int *actv, int *qued);
/* Instantaneous guest Current Disk Queue Length for a disk. */
int sim_model_sample_guest(struct sim_model *m, int vdisk);
/* True when the VM is powered off at time t (its esxtop cells go empty). */
bool sim_vm_off(const struct sim_config *c, int vm, double t);

#endif
