/* model.h — the simulated SQL Server on VMware IO stack: what a host looks like (VMs, vSCSI
 * controllers, virtual disks, LUNs, HBAs, the array behind them, other hosts on the same LUNs) and
 * its state per time step. Each step is solved quasi-statically (closed thread pools against
 * latency-dependent queues); queue-depth controllers (AQD, SIOC, DSNRO) act between steps. */
#ifndef IOPSY_SIM_MODEL_H
#define IOPSY_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prng.h"

enum {
	SIM_MAX_VM = 12,
	SIM_MAX_CTRL = 16,
	SIM_MAX_VDISK = 40,
	SIM_MAX_DEV = 24,
	SIM_MAX_ADAPTER = 8,
	SIM_MAX_PHASE = 6,
	SIM_MAX_WORLD = 48,
	SIM_MAX_EXPECT = 16,
	SIM_NAME = 96,
	SIM_MAX_HOST = 2,       /* ESXi hosts in one scenario (two share an array LU) */
	SIM_MAX_DEVEV = 4,      /* device events (stalls, path failovers) */
};

enum sim_ctrl_kind { SIM_CTRL_LSI, SIM_CTRL_PVSCSI, SIM_CTRL_NVME };
/* The name esxtop and the VMX give the controller's bus: "scsi" (LSI, PVSCSI), "nvme" (vNVMe). */
static inline const char *sim_ctrl_bus(enum sim_ctrl_kind k) { return k == SIM_CTRL_NVME ? "nvme" : "scsi"; }

/* What backs a datastore: a SCSI LUN (FC/iSCSI, esxtop SCSI Device/Path/World objects), an NFS
 * export (esxtop "Physical Disk NFS Volume", guest-side latency only) or vSAN (no device object
 * for the virtual disk at all). */
enum sim_dev_kind { SIM_DEV_SCSI, SIM_DEV_NFS, SIM_DEV_VSAN };

/* A time window, as fractions of the capture duration, during which a workload runs differently. */
struct sim_phase {
	double t0, t1;     /* fractions of the duration */
	double pop;        /* thread-pool population (max outstanding IOs of the workload) */
	double think_ms;   /* time a thread computes between two IOs */
	bool abs_s;        /* t0, t1 are seconds since the start, not fractions */
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
	int host;              /* index of the ESXi host running it */
	double ready_pct;      /* CPU ready per vCPU (%); 0 = the usual light contention */
	bool clock_fixed;      /* clock_offset_s set by the scenario, not drawn from the seed */
	/* memory (zero = none): the guest pages hard over [paging_t0, paging_t1] (fractions): its
	 * available memory ~150 MB, the page file on C: (the paging is C:'s IO, its workload's
	 * phase), perfmon's Memory and Paging File counters follow; the ESXi host swaps the VM over
	 * [swap_t0, swap_t1]: Group Cpu % Swap Wait swap_wait_pct per vCPU, Group Memory swap-in,
	 * the host's free memory low, and each guest IO waits swap_stall_ms more (the VM stalls) */
	double paging_t0, paging_t1;
	double swap_t0, swap_t1, swap_wait_pct, swap_stall_ms;
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
	/* ---- links that change inside the capture (zero = off) ---- */
	int move_dev;           /* > 0: a Storage vMotion moves the disk to device move_dev - 1 at move_at_s */
	double move_at_s;
	double amp;             /* > 1: from amp_t0_s to amp_t1_s a snapshot's redo log sends amp back-end
	                         * commands per IO to the device and adds amp_add_ms above it */
	double amp_t0_s, amp_t1_s, amp_add_ms;
	char vol[4];            /* "" or the volume over several disks it is a member of (sim_config.vol_drive) */
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
	/* ---- used by the newer scenarios only (zero = off) ---- */
	int host;               /* index of the ESXi host that sees this device */
	enum sim_dev_kind kind;
	int lu_group;           /* > 0: devices of several hosts that are one array LU */
	int lu_qdepth;          /* that LU's command queue (commands beyond it are bounced QUEUE FULL) */
	int standby_adapter;    /* adapter of the standby path (path failover) */
	bool standby_ano;       /* the standby path is ALUA active/non-optimised (the other controller) */
	int nsvc_phase;
	struct sim_phase svc_phase[SIM_MAX_PHASE]; /* pop = service-time, think_ms = parallelism multiplier */
	double spike_add_ms;    /* > 0: a train of latency spikes of spike_len_s, every gap_lo..gap_hi s */
	double spike_len_s, spike_gap_lo_s, spike_gap_hi_s;
	/* > 0: the LUN's IO goes round robin over channels C0 and C1 of its adapter (a software iSCSI
	 * port binding: one vmknic each), half each; C1's commands are chan1_add_ms slower over
	 * [chan1_t0, chan1_t1) (fractions of the duration) */
	double chan1_add_ms, chan1_t0, chan1_t1;
};

struct sim_adapter {
	char name[16];
	int aqlen;
	bool local;
	int host;
};

/* A device event at absolute times: a stall (every command waits add_ms longer) or a path
 * failover (the active path dies: commands hang add_ms, are aborted and retried about once a
 * second, then the standby path takes over at t1_s), or a queue depth change (the administrator
 * sets the HBA LUN queue depth to add_ms commands at t0_s; t1_s unused), or an UNMAP storm
 * (rate non-data commands per second on top of the IO, every command add_ms slower). */
enum sim_devev_kind { SIM_DEVEV_STALL, SIM_DEVEV_FAILOVER, SIM_DEVEV_DQLEN, SIM_DEVEV_UNMAP,
	SIM_DEVEV_RESV /* SCSI-2 reservations from other hosts (no VAAI ATS): rate conflicts per second,
	                * every command add_ms slower while the LUN is held */ };
struct sim_dev_event {
	int dev;
	enum sim_devev_kind kind;
	double t0_s, t1_s, add_ms;
	double rate;            /* SIM_DEVEV_UNMAP: non-data commands per second (UNMAP, space
	                         * reclamation) the device is sent besides the reads and writes, which
	                         * wait add_ms longer meanwhile */
};

/* One expected finding in truth.json. */
struct sim_expect {
	const char *kind;
	char entity[SIM_NAME];
	char host[32];          /* guest host for guest entities (or the ESXi host), "" otherwise */
	double t0, t1;          /* fractions of the duration (seconds when abs_s) */
	bool abs_s;
	char neighbour[SIM_NAME]; /* "" or the entity truth says drives the load (Hyper-V noisy neighbour) */
};

/* Layers whose coverage truth.json states (SIM_LAYER_* order = the JSON key order). */
enum { SIM_LAYER_GUEST, SIM_LAYER_VSCSI, SIM_LAYER_WORLD, SIM_LAYER_DEVICE, SIM_LAYER_ADAPTER, SIM_LAYER_ARRAY,
       SIM_NLAYER };
extern const char *const sim_layer_names[SIM_NLAYER];

/* Which captures are written (the others are still simulated, so what is written is the same
 * bytes as in the full set). */
enum sim_only { SIM_ONLY_ALL, SIM_ONLY_ESXTOP, SIM_ONLY_PERFMON };
/* Which disk counters the perfmon carries. */
enum sim_pdisks { SIM_PDISKS_ALL, SIM_PDISKS_TOTAL, SIM_PDISKS_PCT_TIME, SIM_PDISKS_NONE };

/* truth.json fields beyond expect/absent, written only when set (newer scenarios, options). */
struct sim_truth_x {
	bool coverage;                          /* write "coverage" (sim_coverage, then overrides) */
	const char *cov_override[SIM_NLAYER];
	int clean;                              /* -1 = not written; 1 = no warning/critical may appear */
	int one_episode;                        /* -1 / 1: each expected (kind, entity) is one finding */
	const char *cmp_outcome, *cmp_why;      /* "compare" (after part of a pair) */
	int capacity_gain;                      /* -1 = not written */
	int moved_down;                         /* -1 = not written; 0/1: "the bottleneck moved down a
	                                         * layer" must not / must be said */
	const char *sql_symptom, *sql_cause, *sql_disk, *sql_why;
	int sql_storage;                        /* -1 = no "sql"; else storage explains the symptom */
	bool busy;                              /* "busy": the side's busy phase */
	double busy_t0, busy_t1;                /* fractions */
	int array_lu_qdepth;                    /* > 0: "array": the LU queue and the hosts sharing it */
	bool clock;                             /* "clock_offset_s": the guest clock's true offset */
	const char *where;                      /* "where": what the verdict should conclude (below_hba,
	                                         * untold, ...), NULL = not written */
	const char *link;                       /* "link": "not_assessed" when the guest capture does not
	                                         * belong with the host's (another day or VM), NULL = not
	                                         * written */
	const char *note;
	bool links;                             /* "links": each moved or amplified disk's devices over
	                                         * time, and the paths of devices with a failover */
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
	bool want_vscsistats;   /* vscsistats.csv beside the captures (src/sim/vscsi.c) */
	int pcpus;
	/* ---- newer options and scenarios ---- */
	int nhost;                        /* 0 or 1: one host (c->host); 2: host_extra[0] too */
	char host_extra[SIM_MAX_HOST - 1][64];
	double perf_interval;             /* perfmon sample interval (s) */
	double host_free_mb;              /* > 0: the ESXi host's Memory Free MBytes (a host short of
	                                   * memory: state hard, swap in use); 0 = the usual plenty */
	enum sim_only only;
	enum sim_pdisks perf_disks;
	bool sql_counters;                /* the model-driven SQL Server counter set */
	char sql_instance[32];            /* "" = default instance (SQLServer:), else MSSQL$NAME: */
	double busy_share;                /* peak scenarios: share of the capture that is busy */
	int ndevev;
	struct sim_dev_event devev[SIM_MAX_DEVEV];
	struct sim_truth_x tx;
	int nvm, nctrl, nvdisk, ndev, nadapter;
	struct sim_vm vm[SIM_MAX_VM];
	struct sim_ctrl ctrl[SIM_MAX_CTRL];
	struct sim_vdisk vdisk[SIM_MAX_VDISK];
	struct sim_dev dev[SIM_MAX_DEV];
	struct sim_adapter adapter[SIM_MAX_ADAPTER];
	int nexpect;
	struct sim_expect expect[SIM_MAX_EXPECT];
	uint64_t absent;        /* bit k = kinds[k] (enum kind) must not be reported (K_COUNT <= 64) */
	/* ---- Hyper-V scenarios (hyperv.c) ---- */
	int hyperv;             /* 0 = the ESXi model; else which Hyper-V host the scenario runs (enum sim_hv) */
	int nabsent_names;      /* absent kinds the engine's kind table does not have (yet), by name */
	const char *absent_names[SIM_MAX_EXPECT];
	/* ---- a volume over several disks (vdisk.vol): a dynamic striped volume (perfmon lists each member
	 * "N G:") or a Storage Spaces virtual disk (its pool's disks by number alone, the space "N F:") ---- */
	char vol_drive[4];
	bool vol_spaces;
	int vol_disk_no;        /* the space's Windows disk number */
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
	double bk;                      /* back-end commands (a snapshot's amplification), 0 = rd + wr */
	double above_r, above_w;        /* count x ms added above the device (a snapshot's redo log) */
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
	double add_ms;          /* extra latency every command pays this step (stall, spike, failover) */
	double par_mult;        /* parallelism multiplier of a service phase (0 = none) */
	double w_cur;           /* array work this device brings (ms of service per second) */
	double spike_t0, spike_t1, spike_next;
	int path_now;           /* 0 = primary path, 1 = standby (after a failover) */
	bool failing;           /* a failover is in progress */
};

struct sim_ctrl_state {
	double e_ms, rho, scale;
};

struct sim_adapter_state {
	double qa_ms, act, qued;
};

enum sim_event_kind { SIM_EV_QFULL, SIM_EV_BUSY, SIM_EV_REDUCE, SIM_EV_DETERIORATE, SIM_EV_IMPROVE,
		      SIM_EV_PATH_DOWN, SIM_EV_ABORT, SIM_EV_RESET, SIM_EV_PATH_SWITCH };

struct sim_event {
	double t;               /* seconds since start */
	int dev, vm;
	enum sim_event_kind kind;
	double a, b;            /* REDUCE: new depth; DETERIORATE/IMPROVE: from/to microseconds */
	int rw;                 /* 0 read, 1 write (command opcode) */
};

/* Accumulator streams: one per sampling clock (host 0's esxtop, the guest's perfmon, host 1's
 * esxtop). Single-host runs use the first two only. */
enum { SIM_STREAM_ESX, SIM_STREAM_PERF, SIM_STREAM_ESX2, SIM_NSTREAM };

struct sim_model {
	const struct sim_config *cfg;
	struct prng rng;     /* workload and IO randomness */
	struct prng srng;    /* point-sample noise */
	double t;               /* seconds since start (end of the last step) */
	long step;
	int nserial;
	struct sim_vdisk_state vs[SIM_MAX_VDISK];
	struct sim_dev_state ds[SIM_MAX_DEV];
	struct sim_ctrl_state cs[SIM_MAX_CTRL];
	struct sim_adapter_state as[SIM_MAX_ADAPTER];
	struct prng xrng;    /* events of the newer scenarios (spikes, aborts): own stream */
	int nstream;            /* accumulator streams in use */
	struct sim_acc acc[SIM_NSTREAM][SIM_MAX_VDISK];
	double dev_failed[SIM_NSTREAM][SIM_MAX_DEV];
	double dev_aborts[SIM_NSTREAM][SIM_MAX_DEV], dev_resets[SIM_NSTREAM][SIM_MAX_DEV];
	double lu_b_ms[SIM_MAX_DEV];    /* per LU group: time bounced commands spend retrying */
	/* index lists built once */
	int dev_nv[SIM_MAX_DEV], dev_v[SIM_MAX_DEV][SIM_MAX_VDISK];
	int ctrl_nv[SIM_MAX_CTRL], ctrl_v[SIM_MAX_CTRL][SIM_MAX_VDISK];
	struct sim_event *ev;
	size_t nev, cap_ev;
	int vdev[SIM_MAX_VDISK];        /* the device each disk is on now (a Storage vMotion moves it) */
	/* test hook: maximum vSCSI outstanding seen per disk over the run */
	double max_vscsi[SIM_MAX_VDISK];
};

/* Finding kinds (issue 4), in a fixed order; sim_config.absent is a bit set over this table. */
/* Finding kinds come from the engine's kind table (kinds.h; the only engine header the simulator
 * sees): sim_config.absent is a bit set over enum kind. */

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
/* The back-end commands per IO of disk v at time t (a snapshot's amplification; 1 = none), and the
 * ms its redo log adds above the device then (*add_ms, may be NULL). */
double sim_vdisk_amp(const struct sim_vdisk *v, double t, double *add_ms);
/* True when the VM is powered off at time t (its esxtop cells go empty). */
bool sim_vm_off(const struct sim_config *c, int vm, double t);
/* Name of ESXi host h (borrowed). */
const char *sim_host_name(const struct sim_config *c, int h);
/* Number of ESXi hosts (at least 1). */
int sim_nhosts(const struct sim_config *c);
/* The accumulator stream of host h's esxtop. */
int sim_esx_stream(int h);
/* The adapter a device's IO goes through now (the standby one after a failover). */
int sim_dev_adapter(const struct sim_model *m, int dev);
/* Extra delay (ms) a SQL Server wait pays for CPU scheduling on a VM with the given ready %. */
double sim_cpu_delay_ms(const struct sim_vm *vm);
/* Extra wait (ms) of a VM's IO completions at time t while the ESXi host swaps it (0 outside). */
double sim_swap_stall_ms(const struct sim_config *c, int vm, double t);

#endif
