/* vocab.h — the neutral vocabulary every layer speaks: the layers of the IO stack, the metrics the
 * capture model keeps and their units (perfmon seconds are converted to ms). Parsers classify
 * counters into it, the engine computes on it, reporters name it. */
#ifndef IOPSY_VOCAB_H
#define IOPSY_VOCAB_H

/* LAYER_SQL: SQL Server's own counters in a guest's perfmon (not a layer of the IO stack: what
 * the database did while the storage waited). LAYER_PATH: a multipath path of a device through an
 * adapter (esxtop Physical Disk Path, "vmhba2:C0:T1:L3"); worlds and paths are kept apart from
 * the other entities (the model's io-path entities, capmodel.h). LAYER_VOLUME: a Hyper-V host's
 * volume that holds virtual hard disks, between the VHDX and the host disk (a Cluster Shared
 * Volume, "Volume1", doc/hyperv.md). On a Hyper-V host the other layers read: LAYER_VSCSI a virtual
 * hard disk (Hyper-V Virtual Storage Device), LAYER_DEVICE a host disk (PhysicalDisk), LAYER_VM a
 * VM's virtual processors. */
enum layer { LAYER_GUEST, LAYER_VSCSI, LAYER_WORLD, LAYER_DEVICE, LAYER_ADAPTER, LAYER_ARRAY, LAYER_VM, LAYER_SQL, LAYER_PATH,
	     LAYER_VOLUME, LAYER_COUNT };
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
	M_G_XFERS, M_G_READS, M_G_WRITES, M_G_MBPS, M_G_SPLIT, M_G_BPT, M_G_BPR, M_G_BPW,
	M_RDY,                                       /* Group Cpu % Ready (summed over the VM's worlds) */
	M_CSTP, M_MLMTD, M_SWPWT,                    /* Group Cpu % CoStop, % Max Limited, % Swap Wait */
	/* SQL Server (perfmon SQLServer: / MSSQL$NAME: objects), on LAYER_SQL entities: an instance
	 * ("SQLServer", "MSSQL$PROD") and its databases ("SQLServer:ETLDB") */
	M_SQL_PLE, M_SQL_BATCH, M_SQL_PAGE_READS,    /* Page life expectancy (s), Batch Requests/sec, Page reads/sec */
	M_SQL_FLUSH_WAIT_MS, M_SQL_FLUSH_WAITS,      /* Log Flush Wait Time (ms waited per second), Log Flush Waits/sec */
	M_SQL_FLUSHES, M_SQL_LOG_MBPS,               /* Log Flushes/sec, Log Bytes Flushed/sec (MB/s) */
	M_SQL_PIO_AVG, M_SQL_PIO_PROG, M_SQL_PIO_CUM, M_SQL_PIO_START, /* Wait Statistics: Page IO latch waits */
	M_SQL_LW_AVG, M_SQL_LW_PROG, M_SQL_LW_CUM, M_SQL_LW_START,     /* ... Log write waits */
	/* Hyper-V hosts (doc/hyperv.md): a virtual hard disk's Latency and Queue Length at the storage
	 * VSP, and the same below it (Lower Latency, Lower Queue Length), its normalized IOPS (each IO
	 * counts ceil(size / 8 KiB), the unit of Storage QoS); a volume's IOs redirected over the
	 * network (Cluster CSVFS Redirected IO); a VM's virtual processors: CPU Wait Time Per Dispatch
	 * (µs, mean over its VPs) and % Guest Run Time (mean); the host's logical processors' % Total
	 * Run Time (_Total) */
	M_HV_LAT, M_HV_QL, M_HV_LOWER_LAT, M_HV_LOWER_QL, M_HV_NIOPS,
	M_CSV_REDIR_R, M_CSV_REDIR_W,
	M_HV_CPU_WAIT, M_HV_VP_RUN, M_HV_LP_RUN,
	/* a Hyper-V host's disks and volumes: Windows's latency and queue counters, kept apart from
	 * the guest's (PhysicalDisk Avg. Disk sec/Read|Write|Transfer, Current / Avg. Disk Queue
	 * Length; Cluster CSVFS Avg. sec/Read|Write and queue lengths) */
	M_H_LAT_R, M_H_LAT_W, M_H_LAT_T, M_H_CDQL, M_H_ADQL,
	/* memory (doc/rules-sources.md, memory.*): a Windows machine's (perfmon Memory, Paging File, on
	 * an io-path entity "_Total" of the machine; a Paging File instance is named by its drive, "C:"),
	 * SQL Server's Memory Grants Pending (on the instance), an ESXi host's (esxtop Memory, on an
	 * io-path entity "_Total" of the host: Free MBytes, the memory state (0 high, then clear on ESXi
	 * 6+, soft, hard, low), swap MB/s, balloon MB) and a VM's (Group Memory: swap-in/out MB/s, swapped MB, balloon MCTLSZ MB) */
	M_MEM_AVAIL_MB, M_MEM_PAGES, M_MEM_PAGES_IN, M_MEM_PF_USAGE, M_SQL_GRANTS_PENDING,
	M_HMEM_FREE_MB, M_HMEM_STATE, M_HMEM_SWAP_R, M_HMEM_SWAP_W, M_HMEM_BALLOON,
	M_VM_SWAP_R, M_VM_SWAP_W, M_VM_SWAPPED, M_VM_BALLOON,
	/* a device's SCSI-2 reservations and their conflicts (esxtop -a: Reserves/sec, Conflicts/sec) */
	M_RESV, M_CONS,
	M_COUNT
};
struct metric_info {
	const char *name;   /* JSON/text key, e.g. "davg_ms" */
	const char *label;  /* human label, e.g. "DAVG (device latency)" */
	const char *unit;   /* "ms", "IO/s", ... */
};
extern const struct metric_info metric_info[M_COUNT];

/* The controller part that ends a virtual disk's name — ":scsiC:T" (LSI Logic, PVSCSI, BusLogic),
 * ":nvmeC:T" (vNVMe), ":sataC:T" (AHCI) or ":ideC:T" — or NULL when the name has none: the VM is
 * what comes before it ("SQL01:nvme0:1" -> ":nvme0:1"). */
const char *vdisk_ctrl(const char *name);
/* The controller bus of that part: "scsi", "nvme", "sata", "ide"; NULL when none. */
const char *vdisk_bus(const char *name);

#endif
