/* perfmon.c — the guest's perfmon log as `relog -f csv` writes it (doc/domain.md §8): header cell
 * "(PDH-CSV 4.0) (Pacific Daylight Time)(420)" with the bias of the start date, local timestamps
 * "MM/dd/yyyy HH:mm:ss.fff", every field quoted, CRLF, " " for the first sample of rate and
 * average counters, latencies in seconds, Current Disk Queue Length as an instant sample. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "out.h"
#include "util.h"

enum pm {
	PM_FREE_PCT, PM_FREE_MB, PM_CDQL, PM_DISK_TIME, PM_AVG_QL, PM_READ_TIME, PM_AVG_RQL, PM_WRITE_TIME,
	PM_AVG_WQL, PM_SEC_T, PM_SEC_R, PM_SEC_W, PM_XFER, PM_READS, PM_WRITES, PM_BYTES, PM_RBYTES, PM_WBYTES,
	PM_BPT, PM_BPR, PM_BPW, PM_IDLE, PM_SPLIT, PM_NDISK,
	/* host-wide */
	PM_CPU = 100, PM_CPU_N, PM_AVAIL_MB, PM_PAGES, PM_PLE, PM_CKPT, PM_LAZY, PM_STALLS, PM_PAGE_READS,
	PM_LOG_WAIT_TIME, PM_LOG_WAITS, PM_LOG_BYTES, PM_TEMP_LOG_BYTES, PM_WAIT_PAGEIO, PM_WAIT_LOG, PM_STOLEN,
	PM_BALLOON, PM_PAGES_IN, PM_PF_USAGE, PM_PF_TOTAL,
	/* --sql-counters: the model-driven SQL Server set */
	PM_SQ_PLE = 200, PM_SQ_PAGE_READS, PM_SQ_PAGE_WRITES, PM_SQ_CKPT, PM_SQ_LAZY, PM_SQ_STALLS, PM_SQ_LOG_FLUSHES,
	PM_SQ_LOG_WAITS, PM_SQ_LOG_WAIT_TIME, PM_SQ_LOG_BYTES, PM_SQ_TEMP_LOG_BYTES, PM_SQ_BATCH, PM_SQ_WAIT_PAGEIO,
	PM_SQ_WAIT_LOG, PM_SQ_STARTED_PAGEIO, PM_SQ_STARTED_LOG,
};

const char *const sim_pm_disk_counters[SIM_PM_NDISK] = {
	"% Free Space", "Free Megabytes", "Current Disk Queue Length", "% Disk Time", "Avg. Disk Queue Length",
	"% Disk Read Time", "Avg. Disk Read Queue Length", "% Disk Write Time", "Avg. Disk Write Queue Length",
	"Avg. Disk sec/Transfer", "Avg. Disk sec/Read", "Avg. Disk sec/Write", "Disk Transfers/sec",
	"Disk Reads/sec", "Disk Writes/sec", "Disk Bytes/sec", "Disk Read Bytes/sec", "Disk Write Bytes/sec",
	"Avg. Disk Bytes/Transfer", "Avg. Disk Bytes/Read", "Avg. Disk Bytes/Write", "% Idle Time",
	"Split IO/Sec",
};
#define disk_ctr sim_pm_disk_counters
_Static_assert((int)PM_NDISK == SIM_PM_NDISK && (int)PM_FREE_PCT == SIM_PM_FREE_PCT &&
		       (int)PM_FREE_MB == SIM_PM_FREE_MB && (int)PM_CDQL == SIM_PM_CDQL && (int)PM_XFER == SIM_PM_XFER &&
		       (int)PM_SEC_T == SIM_PM_SEC_T && (int)PM_SPLIT == SIM_PM_SPLIT,
	       "capture.h's disk counter indexes follow enum pm");

struct pcol {
	int metric;
	int disk;     /* index into the guest's disks, -1 = _Total */
	int arg;      /* CPU number, ... */
};

struct sim_perf {
	const struct sim_config *c;
	struct sim_model *m;
	int vm;
	struct sim_out out;
	struct pcol *cols;
	size_t ncols;
	int disks[SIM_MAX_VDISK], ndisk;
	int nmember;                /* disks of the volume over several disks (sim_config.vol_drive) */
	int bias_min;
	int d_data, d_log, d_temp;  /* vdisk indexes of D:, E:, F: or -1 */
	struct prng rng;
	double t_clock_ms;
	double cpu_delay_ms;        /* SQL Server's extra wait per hand-off on a CPU-starved VM */
};

/* US daylight saving time (since 2007): second Sunday of March 10:00 UTC (02:00 PST) to the first
 * Sunday of November 09:00 UTC (02:00 PDT). */
static bool us_dst(int64_t utc_ms)
{
	struct sim_tm tm;
	sim_time_split(utc_ms, &tm);
	int64_t y = tm.year;
	int64_t mar1 = days_from_civil(y, 3, 1), nov1 = days_from_civil(y, 11, 1);
	/* 1970-01-01 was a Thursday: weekday = (days + 4) mod 7, Sunday = 0 */
	int64_t wd_mar1 = ((mar1 + 4) % 7 + 7) % 7, wd_nov1 = ((nov1 + 4) % 7 + 7) % 7;
	int64_t start = mar1 + (7 - wd_mar1) % 7 + 7, end = nov1 + (7 - wd_nov1) % 7;
	int64_t start_ms = start * 86400000LL + 10 * 3600000LL, end_ms = end * 86400000LL + 9 * 3600000LL;
	return utc_ms >= start_ms && utc_ms < end_ms;
}

bool sim_us_dst(int64_t utc_ms)
{
	return us_dst(utc_ms);
}

static bool pcol_add(struct sim_perf *w, struct sim_line *h, size_t *cap, const char *path, int metric, int disk,
		     int arg)
{
	if (w->ncols == *cap) {
		size_t n = *cap ? *cap * 2 : 128;
		struct pcol *p = realloc(w->cols, n * sizeof *p);
		if (!p)
			return false;
		w->cols = p;
		*cap = n;
	}
	w->cols[w->ncols++] = (struct pcol){metric, disk, arg};
	size_t lp = strlen(path), lg = strlen(w->c->vm[w->vm].guest);
	if (!sim_line_reserve(h, lp + lg + 8))
		return false;
	char *p = h->p + h->len;
	memcpy(p, ",\"\\\\", 4), p += 4;
	memcpy(p, w->c->vm[w->vm].guest, lg), p += lg;
	*p++ = '\\';
	memcpy(p, path, lp), p += lp;
	*p++ = '"';
	h->len = (size_t)(p - h->p);
	return true;
}

/* The guest's volume over several disks (sim_config.vol_drive), its columns' disk index. */
#define PCOL_VOLUME (-2)

/* LogicalDisk: each disk's volume, the volume over several disks once (its members have no volume of
 * their own), _Total. --perfmon-disks narrows them: only _Total, only % Disk Time, or none. */
static bool logical_cols(struct sim_perf *w, struct sim_line *h, size_t *cap)
{
	const struct sim_config *c = w->c;
	enum sim_pdisks pd = c->perf_disks;
	char buf[256];
	bool ok = true;
	for (int i = 0; ok && pd != SIM_PDISKS_NONE && i <= w->ndisk + 1; i++) {
		bool vol = i == w->ndisk + 1, tot = i == w->ndisk;
		if ((pd == SIM_PDISKS_TOTAL && !tot) || (vol && !w->nmember) ||
		    (!vol && !tot && c->vdisk[w->disks[i]].vol[0]))
			continue;
		const char *inst = vol ? c->vol_drive : tot ? "_Total" : c->vdisk[w->disks[i]].drive;
		for (int k = 0; ok && k < PM_NDISK; k++) {
			if (pd == SIM_PDISKS_PCT_TIME && k != PM_DISK_TIME)
				continue;
			snprintf(buf, sizeof buf, "LogicalDisk(%s)\\%s", inst, disk_ctr[k]);
			ok = pcol_add(w, h, cap, buf, k, vol ? PCOL_VOLUME : tot ? -1 : i, 1);
		}
	}
	return ok;
}

/* PhysicalDisk: "N D:" per disk; a striped volume's members each "N G:" (its letter on every disk it
 * spans), a Storage Spaces pool's disks their number alone and the space "N F:" [ms: AskCore 2012]. */
static bool physical_cols(struct sim_perf *w, struct sim_line *h, size_t *cap)
{
	const struct sim_config *c = w->c;
	char buf[256], inst[64];
	bool ok = true;
	for (int i = 0; ok && c->perf_disks == SIM_PDISKS_ALL && i <= w->ndisk + 1; i++) {
		bool vol = i == w->ndisk + 1, tot = i == w->ndisk;
		const struct sim_vdisk *vd = vol || tot ? NULL : &c->vdisk[w->disks[i]];
		if (vol && !(w->nmember && c->vol_spaces))
			continue;
		if (vol)
			snprintf(inst, sizeof inst, "%d %s", c->vol_disk_no, c->vol_drive);
		else if (tot)
			snprintf(inst, sizeof inst, "_Total");
		else if (vd->vol[0] && c->vol_spaces)
			snprintf(inst, sizeof inst, "%d", vd->disk_no);
		else
			snprintf(inst, sizeof inst, "%d %s", vd->disk_no, vd->vol[0] ? vd->vol : vd->drive);
		for (int k = PM_CDQL; ok && k < PM_NDISK; k++) {
			snprintf(buf, sizeof buf, "PhysicalDisk(%s)\\%s", inst, disk_ctr[k]);
			ok = pcol_add(w, h, cap, buf, k, vol ? PCOL_VOLUME : tot ? -1 : i, 0);
		}
	}
	return ok;
}

int sim_perf_open(struct sim_perf **out, const struct sim_config *c, struct sim_model *m, int vm, const char *path)
{
	struct sim_perf *w = calloc(1, sizeof *w);
	if (!w)
		return ERR_NOMEM;
	w->c = c;
	w->m = m;
	w->vm = vm;
	w->d_data = w->d_log = w->d_temp = -1;
	prng_seed(&w->rng, c->seed, 9 + 16 * (uint64_t)c->part);
	for (int v = 0; v < c->nvdisk; v++) {
		if (c->vdisk[v].vm != vm)
			continue;
		w->nmember += c->vdisk[v].vol[0] != 0;
		w->disks[w->ndisk++] = v;
		if (strcmp(c->vdisk[v].drive, "D:") == 0)
			w->d_data = v;
		else if (strcmp(c->vdisk[v].drive, "E:") == 0)
			w->d_log = v;
		else if (strcmp(c->vdisk[v].drive, "F:") == 0)
			w->d_temp = v;
	}
	bool dst = us_dst(c->start_ms);
	w->bias_min = dst ? 420 : 480;
	struct sim_line h = {0};
	size_t cap = 0;
	char buf[256];
	int n = snprintf(buf, sizeof buf, "\"(PDH-CSV 4.0) (%s)(%d)\"", dst ? "Pacific Daylight Time" : "Pacific Standard Time",
			 w->bias_min);
	bool ok = n > 0 && sim_line_reserve(&h, (size_t)n);
	if (ok) {
		memcpy(h.p, buf, (size_t)n);
		h.len = (size_t)n;
	}
	w->cpu_delay_ms = sim_cpu_delay_ms(&c->vm[vm]);
	/* LogicalDisk, Memory, PhysicalDisk, Processor, SQL Server, VMware Tools: relog's order of a
	 * collector set built object by object. --perfmon-disks narrows the disk objects: only the
	 * _Total instance, only % Disk Time, or none at all (a collector set without disk counters). */
	ok = ok && logical_cols(w, &h, &cap);
	ok = ok && pcol_add(w, &h, &cap, "Memory\\Available MBytes", PM_AVAIL_MB, 0, 0) &&
	     pcol_add(w, &h, &cap, "Memory\\Pages/sec", PM_PAGES, 0, 0);
	/* a guest that pages (sim_vm.paging_*): the hard faults and the page file on C: */
	if (c->vm[vm].paging_t1 > c->vm[vm].paging_t0)
		ok = ok && pcol_add(w, &h, &cap, "Memory\\Pages Input/sec", PM_PAGES_IN, 0, 0) &&
		     pcol_add(w, &h, &cap, "Paging File(\\??\\C:\\pagefile.sys)\\% Usage", PM_PF_USAGE, 0, 0) &&
		     pcol_add(w, &h, &cap, "Paging File(_Total)\\% Usage", PM_PF_TOTAL, 0, 0);
	ok = ok && physical_cols(w, &h, &cap);
	for (int p = 0; ok && p <= c->vm[vm].vcpus; p++) {
		if (p < c->vm[vm].vcpus)
			snprintf(buf, sizeof buf, "Processor(%d)\\%% Processor Time", p);
		else
			snprintf(buf, sizeof buf, "Processor(_Total)\\%% Processor Time");
		ok = pcol_add(w, &h, &cap, buf, p < c->vm[vm].vcpus ? PM_CPU_N : PM_CPU, 0, p);
	}
	static const struct {
		const char *path;
		int metric;
	} other[] = {
		{"SQLServer:Buffer Manager\\Page life expectancy", PM_PLE},
		{"SQLServer:Buffer Manager\\Checkpoint pages/sec", PM_CKPT},
		{"SQLServer:Buffer Manager\\Lazy writes/sec", PM_LAZY},
		{"SQLServer:Buffer Manager\\Free list stalls/sec", PM_STALLS},
		{"SQLServer:Buffer Manager\\Page reads/sec", PM_PAGE_READS},
		{"SQLServer:Databases(ETLDB)\\Log Flush Wait Time", PM_LOG_WAIT_TIME},
		{"SQLServer:Databases(ETLDB)\\Log Flush Waits/sec", PM_LOG_WAITS},
		{"SQLServer:Databases(ETLDB)\\Log Bytes Flushed/sec", PM_LOG_BYTES},
		{"SQLServer:Databases(tempdb)\\Log Bytes Flushed/sec", PM_TEMP_LOG_BYTES},
		{"SQLServer:Wait Statistics(Average wait time (ms))\\Page IO latch waits", PM_WAIT_PAGEIO},
		{"SQLServer:Wait Statistics(Average wait time (ms))\\Log write waits", PM_WAIT_LOG},
		{"VM Memory\\Memory Ballooned in MB", PM_BALLOON},
		{"VM Processor(_Total)\\CPU stolen time", PM_STOLEN},
	};
	/* The model-driven set (--sql-counters): SQLServer: or MSSQL$NAME: for a named instance. */
	static const struct {
		const char *path;
		int metric;
	} sql[] = {
		{"Buffer Manager\\Page life expectancy", PM_SQ_PLE},
		{"Buffer Manager\\Page reads/sec", PM_SQ_PAGE_READS},
		{"Buffer Manager\\Page writes/sec", PM_SQ_PAGE_WRITES},
		{"Buffer Manager\\Checkpoint pages/sec", PM_SQ_CKPT},
		{"Buffer Manager\\Lazy writes/sec", PM_SQ_LAZY},
		{"Buffer Manager\\Free list stalls/sec", PM_SQ_STALLS},
		{"Databases(ETLDB)\\Log Flushes/sec", PM_SQ_LOG_FLUSHES},
		{"Databases(ETLDB)\\Log Flush Waits/sec", PM_SQ_LOG_WAITS},
		{"Databases(ETLDB)\\Log Flush Wait Time", PM_SQ_LOG_WAIT_TIME},
		{"Databases(ETLDB)\\Log Bytes Flushed/sec", PM_SQ_LOG_BYTES},
		{"Databases(tempdb)\\Log Bytes Flushed/sec", PM_SQ_TEMP_LOG_BYTES},
		{"SQL Statistics\\Batch Requests/sec", PM_SQ_BATCH},
		{"Wait Statistics(Average wait time (ms))\\Page IO latch waits", PM_SQ_WAIT_PAGEIO},
		{"Wait Statistics(Average wait time (ms))\\Log write waits", PM_SQ_WAIT_LOG},
		{"Wait Statistics(Waits started per second)\\Page IO latch waits", PM_SQ_STARTED_PAGEIO},
		{"Wait Statistics(Waits started per second)\\Log write waits", PM_SQ_STARTED_LOG},
	};
	char prefix[48];
	if (c->sql_instance[0])
		snprintf(prefix, sizeof prefix, "MSSQL$%s:", c->sql_instance);
	else
		snprintf(prefix, sizeof prefix, "SQLServer:");
	/* relog's object order: the SQL Server objects, then VMware Tools' */
	for (size_t i = 0; ok && c->sql_counters && i < sizeof sql / sizeof sql[0]; i++) {
		snprintf(buf, sizeof buf, "%s%s", prefix, sql[i].path);
		ok = pcol_add(w, &h, &cap, buf, sql[i].metric, 0, 0);
	}
	for (size_t i = 0; ok && i < sizeof other / sizeof other[0]; i++)
		if (!c->sql_counters || strncmp(other[i].path, "SQLServer:", 10) != 0)
			ok = pcol_add(w, &h, &cap, other[i].path, other[i].metric, 0, 0);
	ok = ok && sim_line_reserve(&h, 2);
	if (ok) {
		h.p[h.len++] = '\r';
		h.p[h.len++] = '\n';
	}
	int rc = ok ? sim_out_open(&w->out, path, c->gzip) : ERR_NOMEM;
	if (rc == 0)
		sim_out_write(&w->out, h.p, h.len);
	sim_line_free(&h);
	if (rc) {
		free(w->cols);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

static bool is_instant(int metric)
{
	return metric == PM_FREE_PCT || metric == PM_FREE_MB || metric == PM_CDQL || metric == PM_AVAIL_MB ||
	       metric == PM_PLE || metric == PM_BALLOON || metric == PM_SQ_PLE || metric == PM_PF_USAGE ||
	       metric == PM_PF_TOTAL;
}

/* Per-disk perfmon values from the perfmon-clock accumulators. */
static void disk_values(const struct sim_acc *a, double secs, double *o)
{
	double n = a->rd + a->wr;
	o[PM_XFER] = n / secs;
	o[PM_READS] = a->rd / secs;
	o[PM_WRITES] = a->wr / secs;
	o[PM_BYTES] = (a->brd + a->bwr) / secs;
	o[PM_RBYTES] = a->brd / secs;
	o[PM_WBYTES] = a->bwr / secs;
	o[PM_BPT] = n > 0 ? (a->brd + a->bwr) / n : 0;
	o[PM_BPR] = a->rd > 0 ? a->brd / a->rd : 0;
	o[PM_BPW] = a->wr > 0 ? a->bwr / a->wr : 0;
	o[PM_SEC_T] = n > 0 ? (a->glat_r + a->glat_w) / n / 1000.0 : 0;
	o[PM_SEC_R] = a->rd > 0 ? a->glat_r / a->rd / 1000.0 : 0;
	o[PM_SEC_W] = a->wr > 0 ? a->glat_w / a->wr / 1000.0 : 0;
	/* Avg. Disk Queue Length is, by definition, transfers/sec x sec/transfer. */
	o[PM_AVG_QL] = (a->glat_r + a->glat_w) / 1000.0 / secs;
	o[PM_AVG_RQL] = a->glat_r / 1000.0 / secs;
	o[PM_AVG_WQL] = a->glat_w / 1000.0 / secs;
	o[PM_DISK_TIME] = 100 * o[PM_AVG_QL];
	o[PM_READ_TIME] = 100 * o[PM_AVG_RQL];
	o[PM_WRITE_TIME] = 100 * o[PM_AVG_WQL];
	o[PM_IDLE] = 100 * a->idle_s / secs;
	o[PM_SPLIT] = a->split / secs;
}

void sim_pm_disk_values(const struct sim_acc *a, double secs, double *o)
{
	disk_values(a, secs, o);
}

static bool memory_metric(int m)
{
	return m == PM_AVAIL_MB || m == PM_PAGES || m == PM_PAGES_IN || m == PM_PF_USAGE || m == PM_PF_TOTAL;
}

/* The guest's memory at time t: plenty, or, while it pages hard (sim_vm.paging_*), little available
 * and C: (the page file's disk) carrying the paging, its bytes in 4 KiB pages. */
static double memory_value(struct sim_perf *w, int metric, double t, const double (*vals)[PM_NDISK])
{
	const struct sim_config *c = w->c;
	const struct sim_vm *gv = &c->vm[w->vm];
	double frac = c->duration > 0 ? t / c->duration : 0;
	bool paging = gv->paging_t1 > gv->paging_t0 && frac >= gv->paging_t0 && frac < gv->paging_t1;
	const double *P = vals[w->ndisk];
	for (int i = 0; i < w->ndisk; i++)
		if (strcmp(c->vdisk[w->disks[i]].drive, "C:") == 0)
			P = vals[i];
	switch (metric) {
	case PM_AVAIL_MB:
		return paging ? floor(120 + 60 * prng_uniform(&w->rng)) : floor(2900 + 200 * prng_uniform(&w->rng));
	case PM_PAGES: /* pages read and written to resolve faults */
		return paging ? (P[PM_RBYTES] + P[PM_WBYTES]) / 4096.0 : 5 * prng_uniform(&w->rng);
	case PM_PAGES_IN:
		return paging ? P[PM_RBYTES] / 4096.0 : 3 * prng_uniform(&w->rng);
	default: /* the page file's % Usage */
		return paging ? 60 + 10 * prng_uniform(&w->rng) : 8;
	}
}

/* Sums disks' accumulators into a (the total, or a volume over several disks: its IOs are its
 * disks' IOs) with their queue, size and free space. */
struct disk_sum {
	struct sim_acc a;
	int n, cdql;
	double size, free;
};

static void sum_add(struct disk_sum *s, const struct sim_acc *a, int q, const struct sim_vdisk *vd, int of)
{
	s->a.rd += a->rd, s->a.wr += a->wr, s->a.brd += a->brd, s->a.bwr += a->bwr;
	s->a.glat_r += a->glat_r, s->a.glat_w += a->glat_w, s->a.split += a->split;
	s->a.idle_s += a->idle_s / (of ? of : 1);
	s->n++;
	s->cdql += q;
	s->size += vd->size_gb * 1024;
	s->free += vd->size_gb * 1024 * vd->free_pct / 100;
}

static void sum_values(struct disk_sum *s, double secs, double *o)
{
	disk_values(&s->a, secs, o);
	o[PM_CDQL] = s->cdql;
	o[PM_FREE_MB] = floor(s->free);
	o[PM_FREE_PCT] = s->size > 0 ? 100 * s->free / s->size : 0;
}

/* vals[i]: disk i; vals[ndisk]: _Total; vals[ndisk + 1]: the volume over several disks. */
static void fill_disks(struct sim_perf *w, const struct sim_acc *acc, double (*vals)[PM_NDISK])
{
	const struct sim_config *c = w->c;
	struct disk_sum tot = {0}, vol = {0};
	double secs = 1;
	for (int i = 0; i < w->ndisk; i++) {
		int v = w->disks[i];
		const struct sim_acc *a = &acc[v];
		secs = a->time_s > 0 ? a->time_s : c->interval;
		disk_values(a, secs, vals[i]);
		int q = sim_model_sample_guest(w->m, v);
		const struct sim_vdisk *vd = &c->vdisk[v];
		vals[i][PM_CDQL] = q;
		vals[i][PM_FREE_MB] = floor(vd->size_gb * 1024 * vd->free_pct / 100);
		vals[i][PM_FREE_PCT] = vd->free_pct;
		sum_add(&tot, a, q, vd, w->ndisk);
		if (vd->vol[0])
			sum_add(&vol, a, q, vd, w->nmember);
	}
	sum_values(&tot, secs, vals[w->ndisk]);
	sum_values(&vol, secs, vals[w->ndisk + 1]);
}

int sim_perf_row(struct sim_perf *w, double t, bool first)
{
	const struct sim_config *c = w->c;
	struct sim_model *m = w->m;
	const struct sim_acc *acc = m->acc[SIM_STREAM_PERF];
	double vals[SIM_MAX_VDISK + 2][PM_NDISK];
	fill_disks(w, acc, vals);
	double *T = vals[w->ndisk];

	double iops = 0;
	for (int i = 0; i < w->ndisk; i++)
		iops += m->vs[w->disks[i]].x;
	int vcpus = c->vm[w->vm].vcpus;
	double cpu = 6 + iops * 0.0012 + 2 * prng_normal(&w->rng);
	cpu = cpu < 0.5 ? 0.5 : cpu > 100 ? 100 : cpu;
	const double *D = w->d_data >= 0 ? vals[0] : T;
	for (int i = 0; i < w->ndisk; i++)
		if (w->disks[i] == w->d_data)
			D = vals[i];
	const double *L = D, *F = D;
	for (int i = 0; i < w->ndisk; i++) {
		if (w->disks[i] == w->d_log)
			L = vals[i];
		if (w->disks[i] == w->d_temp)
			F = vals[i];
	}

	/* SQL Server's view (--sql-counters): a log flush is one write to the log disk; each has about
	 * 1.25 commits waiting on it (group commit); a commit's wait is the log write plus the CPU
	 * hand-offs; a page IO latch wait is a data-file read. */
	double log_wait_ms = L[PM_WRITES] > 0 ? L[PM_SEC_W] * 1000.0 + w->cpu_delay_ms : 0;
	double pageio_ms = D[PM_READS] > 0 ? D[PM_SEC_R] * 1000.0 + w->cpu_delay_ms / 3 : 0;
	double commits = L[PM_WRITES] * 1.25;

	/* perfmon writes the wall clock: across an autumn DST change an hour repeats, while the
	 * header keeps the bias the log started with. */
	struct sim_tm tm;
	int64_t utc = c->start_ms + (int64_t)floor(t * 1000.0) + (int64_t)(c->vm[w->vm].clock_offset_s * 1000);
	int64_t local_ms = utc - (int64_t)(us_dst(utc) ? 420 : 480) * 60000;
	sim_time_split(local_ms, &tm);
	char cell[64];
	int n = snprintf(cell, sizeof cell, "\"%02d/%02d/%04d %02d:%02d:%02d.%03d\"", tm.mon, tm.day, tm.year, tm.hour,
			 tm.min, tm.sec, tm.ms);
	if (n > 0)
		sim_out_write(&w->out, cell, (size_t)n);
	for (size_t i = 0; i < w->ncols; i++) {
		const struct pcol *k = &w->cols[i];
		double v = 0;
		if (k->metric < PM_NDISK) {
			v = vals[k->disk < 0 ? w->ndisk + (k->disk == PCOL_VOLUME) : k->disk][k->metric];
		} else if (memory_metric(k->metric)) {
			v = memory_value(w, k->metric, t, vals);
		} else {
			switch (k->metric) {
			case PM_CPU:
				v = cpu;
				break;
			case PM_CPU_N:
				v = cpu * (0.7 + 0.6 * prng_uniform(&w->rng));
				v = v > 100 ? 100 : v;
				break;
			case PM_PLE:
				v = floor(300 + 4200 * exp(-D[PM_READS] / 1500.0));
				break;
			case PM_CKPT:
				v = D[PM_WRITES] * 0.8;
				break;
			case PM_LAZY:
				v = D[PM_WRITES] * 0.2;
				break;
			case PM_STALLS:
				v = D[PM_SEC_R] > 0.05 ? (D[PM_SEC_R] - 0.05) * 200 : 0;
				break;
			case PM_PAGE_READS:
				v = D[PM_RBYTES] / 8192.0;
				break;
			case PM_LOG_WAIT_TIME:
				v = L[PM_WRITES] * 0.3 * L[PM_SEC_W] * 1000.0;
				break;
			case PM_LOG_WAITS:
				v = L[PM_WRITES] * 0.3;
				break;
			case PM_LOG_BYTES:
				v = L[PM_WBYTES];
				break;
			case PM_TEMP_LOG_BYTES:
				v = F[PM_WBYTES] * 0.1;
				break;
			case PM_WAIT_PAGEIO:
				v = D[PM_SEC_R] * 1000.0;
				break;
			case PM_WAIT_LOG:
				v = L[PM_SEC_W] * 1000.0;
				break;
			case PM_STOLEN:
				v = vcpus * (c->vm[w->vm].ready_pct > 0 ? c->vm[w->vm].ready_pct : 0.4) *
				    prng_uniform(&w->rng);
				break;
			case PM_SQ_PLE:
				v = floor(300 + 4200 * exp(-D[PM_READS] / 1500.0));
				break;
			case PM_SQ_PAGE_READS:
				v = D[PM_RBYTES] / 8192.0;
				break;
			case PM_SQ_PAGE_WRITES:
				v = D[PM_WBYTES] / 8192.0;
				break;
			case PM_SQ_CKPT:
				v = D[PM_WBYTES] / 8192.0 * 0.8;
				break;
			case PM_SQ_LAZY:
				v = D[PM_WBYTES] / 8192.0 * 0.2;
				break;
			case PM_SQ_STALLS:
				v = D[PM_SEC_R] > 0.05 ? (D[PM_SEC_R] - 0.05) * 200 : 0;
				break;
			case PM_SQ_LOG_FLUSHES:
				v = L[PM_WRITES];
				break;
			case PM_SQ_LOG_WAITS:
			case PM_SQ_STARTED_LOG:
				v = commits;
				break;
			case PM_SQ_LOG_WAIT_TIME:
				/* ms waited per second (a bulk-count counter: perfmon shows it as a rate) */
				v = commits * log_wait_ms;
				break;
			case PM_SQ_LOG_BYTES:
				v = L[PM_WBYTES];
				break;
			case PM_SQ_TEMP_LOG_BYTES:
				v = F[PM_WBYTES] * 0.1;
				break;
			case PM_SQ_BATCH:
				v = commits + D[PM_READS] * 0.1;
				break;
			case PM_SQ_WAIT_PAGEIO:
				v = pageio_ms;
				break;
			case PM_SQ_WAIT_LOG:
				v = log_wait_ms;
				break;
			case PM_SQ_STARTED_PAGEIO:
				v = D[PM_READS] * 0.6;
				break;
			case PM_BALLOON:
				v = 0;
				break;
			default:
				break;
			}
		}
		if (first && !is_instant(k->metric)) {
			sim_out_write(&w->out, ",\" \"", 4);
			continue;
		}
		char num[48];
		size_t len = sim_fmt_pdh(num, sizeof num, v);
		sim_out_write(&w->out, ",\"", 2);
		sim_out_write(&w->out, num, len);
		sim_out_write(&w->out, "\"", 1);
	}
	sim_out_write(&w->out, "\r\n", 2);
	return w->out.err;
}

int sim_perf_close(struct sim_perf *w, bool commit)
{
	int rc = 0;
	if (commit)
		rc = sim_out_commit(&w->out);
	else
		sim_out_abort(&w->out);
	free(w->cols);
	free(w);
	return rc;
}
