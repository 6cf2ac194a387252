/* sqlimpact.h — what SQL Server did while the storage waited, when a guest's perfmon holds SQL
 * Server's own counters (SQLServer: or MSSQL$NAME: objects; LAYER_SQL entities, vocab.h).
 *
 * Per SQL Server instance (one machine, one instance):
 * - Where its files are, only from evidence: a --map line ("database ETLDB log = SQL01\E:"), or
 *   the capture itself — a database's log is on a guest disk when its Log Bytes Flushed/sec
 *   follows the disk's write bytes (r >= 0.8) and makes up 2/3 to 5/4 of them; the instance's data
 *   when Page reads/sec x 8 KiB follows a disk's read bytes the same way. Anything else is "not
 *   mapped", and said so.
 * - Each storage episode (warning or critical findings on a log or data disk's stack, joined per
 *   disk) with SQL Server's figures during it and outside it: log flush wait per wait (Log Flush
 *   Wait Time / Log Flush Waits/sec) and Log write waits (Wait Statistics, average wait time) for a
 *   log disk; Page IO latch waits and Page life expectancy for a data disk; Batch Requests/sec as
 *   the workload; and whether the storage wait explains the SQL symptom (the disk's latency is at
 *   least half of SQL Server's wait) [derived].
 * - SQL symptoms without a storage cause: Log write waits above the log target
 *   (guest.log.write.warning_ms) or Page IO latch waits above guest.latency.warning_ms, sustained,
 *   while the disk's latency is less than half of it — "look elsewhere" (the VM's CPU %Ready from
 *   esxtop when the capture has it).
 * Sentences are made here, once, for every writer. */
#ifndef IOPSY_SQLIMPACT_H
#define IOPSY_SQLIMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capmodel.h"
#include "finding.h"
#include "maps.h"
#include "rules.h"
#include "topology.h"

enum sql_role { SQLR_LOG, SQLR_DATA };
enum sql_how { SQLH_NONE, SQLH_MAP, SQLH_EVIDENCE };
extern const char *const sql_role_names[2]; /* "log", "data" */
extern const char *const sql_how_names[3];  /* "not_mapped", "map", "evidence" */

/* A database's log, or the instance's data, and the guest disk it is on. */
struct sql_place {
	enum sql_role role;
	const char *db;                  /* "ETLDB" (borrowed from the model), NULL: the instance's data */
	const struct entity *disk;       /* NULL: not mapped */
	enum sql_how how;
	double r, share;                 /* evidence: correlation, SQL's bytes / the disk's bytes */
	long map_line;                   /* --map line, 0 */
	const char *text;                /* one sentence (arena) */
};

/* SQL Server's figures over a span (NaN where the capture has no value). */
struct sql_figs {
	double batch;                    /* Batch Requests/sec, mean */
	double flush_wait_ms;            /* log flush wait per wait: Log Flush Wait Time / Log Flush Waits/sec */
	double log_write_ms;             /* Log write waits, average wait time */
	double pageio_ms;                /* Page IO latch waits, average wait time */
	double ple_min, ple_median;      /* Page life expectancy */
	double disk_ms;                  /* the disk's write (log) or read (data) latency */
	long buckets;
};

/* A storage episode on a disk holding the instance's log or data. */
struct sql_episode {
	const struct entity *disk;
	enum sql_role role;
	int64_t start, end;              /* UTC ms, aligned */
	enum severity sev;
	const char *kinds;               /* the findings' kinds, "latency.guest_write, ..." (arena) */
	struct sql_figs during, outside;
	int explains;                    /* 1 the storage wait explains the SQL wait, 0 it does not, -1 no
	                                  * SQL wait to explain (SQL Server waited below its target) */
	double share;                    /* the disk's latency / SQL Server's wait, during */
	const char *text;                /* the sentence (arena) */
};

/* A SQL Server wait without a storage cause. */
struct sql_symptom {
	enum sql_role role;              /* log write waits or page IO latch waits */
	int64_t start, end;              /* first and last sample where it held (aligned) */
	double held_s;
	double sql_ms, disk_ms;          /* medians over the samples where it held; disk NaN: no disk */
	double ready_pct;                /* the VM's Group Cpu % Ready then (NaN: no esxtop of it) */
	int vcpus;                       /* its vCPUs (the capture's vCPU worlds), 0 unknown */
	double ready_vcpu, costop_vcpu;  /* % Ready and % CoStop per vCPU then, NaN unknown */
	bool cpu_cause;                  /* either above its rule (cpu.ready.warning_pct, cpu.costop.*), or
	                                  * on Hyper-V the wait per dispatch (hyperv.cpu_wait.warning_us) */
	double cpu_wait_us;              /* a Hyper-V VM's CPU Wait Time Per Dispatch then (µs), NaN none */
	const struct entity *disk;       /* the disk compared with, NULL: none mapped */
	const char *text;
};

#define SQL_MAX_PLACES 40
#define SQL_MAX_EPISODES 24
#define SQL_MAX_SYMPTOMS 4
struct sql_instance {
	const char *host;                /* the machine (borrowed) */
	const char *name;                /* "SQLServer", "MSSQL$PROD" (borrowed) */
	const char *label;               /* "default instance", "named instance PROD" (arena) */
	const struct entity *inst;       /* its Buffer Manager/SQL Statistics/Wait Statistics entity, NULL */
	struct sql_place place[SQL_MAX_PLACES];
	size_t nplace;
	struct sql_figs all;             /* over the whole capture */
	struct sql_episode ep[SQL_MAX_EPISODES];
	size_t nep;
	struct sql_symptom sym[SQL_MAX_SYMPTOMS];
	size_t nsym;
	const char *summary;             /* one sentence: the instance's figures (arena) */
};

#define SQL_MAX_INSTANCES 8
struct sql_report {
	struct sql_instance in[SQL_MAX_INSTANCES];
	size_t n;
};

/* What the SQL impact reads (borrowed from an analysis). */
struct sql_in {
	const struct model *m;
	struct topo_in ti;               /* findings and disk map */
	const struct rules *r;
	const struct dbmap_line *db;     /* --map database lines */
	size_t ndb;
};

/* Fills out (strings in ar). An analysis without SQL Server counters gets n = 0. */
void sql_build(const struct sql_in *in, struct sql_report *out, struct arena *ar);
/* The database whose transaction log SQL Server's own counters put on guest disk g: its
 * Databases(DB)\Log Bytes Flushed/sec follows g's write bytes and is most of them (the evidence
 * sql_build places logs by); its name (the model's), NULL when none does. For the detectors, which
 * run before sql_build. */
const char *sql_log_on_disk(const struct model *m, const struct entity *g);

#endif
