/* esxtop.c — the esxtop batch CSV writer (`esxtop -b [-a] -d N`), doc/domain.md §7: PDH-CSV 4.0 with
 * "(PDH-CSV 4.0) (UTC)(0)", every field quoted, LF, a trailing empty field on every line of default
 * captures, "MM/DD/YYYY HH:MM:SS" UTC stamps. Columns are laid out once: each is either a slot of
 * the per-sample snapshot the model fills (storage, the modelled VMs' CPU) or filler (idle VMs'
 * Vcpu worlds, interrupt cookies, network ports) generated cheaply to reach --width. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "out.h"
#include "util.h"

/* Storage metrics, one snapshot slot each per storage entity. */
enum sm {
	SM_DQLEN, SM_WQLEN, SM_ACTV, SM_QUED, SM_USD, SM_LOAD, SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW,
	SM_DAVG, SM_KAVG, SM_GAVG, SM_QAVG, SM_DAVG_R, SM_DAVG_W, SM_KAVG_R, SM_KAVG_W, SM_GAVG_R, SM_GAVG_W,
	SM_QAVG_R, SM_QAVG_W, SM_FAILED, SM_FAILED_R, SM_FAILED_W, SM_ABORTS, SM_RESETS, SM_RESV, SM_CONS,
	SM_SPLIT, SM_SPLITC, SM_PAE, SM_AQLEN, SM_LAT_R, SM_LAT_W, SM_FAILED_MBR, SM_FAILED_MBW, SM_FAILED_RESV, SM_NM
};

static const char *const sm_name[SM_NM] = {
	[SM_DQLEN] = "Device Q Depth", [SM_WQLEN] = "World Q Depth", [SM_ACTV] = "Active Commands",
	[SM_QUED] = "Queued Commands", [SM_USD] = "% Used", [SM_LOAD] = "Load", [SM_CMDS] = "Commands/sec",
	[SM_READS] = "Reads/sec", [SM_WRITES] = "Writes/sec", [SM_MBR] = "MBytes Read/sec",
	[SM_MBW] = "MBytes Written/sec", [SM_DAVG] = "Average Driver MilliSec/Command",
	[SM_KAVG] = "Average Kernel MilliSec/Command", [SM_GAVG] = "Average Guest MilliSec/Command",
	[SM_QAVG] = "Average Queue MilliSec/Command", [SM_DAVG_R] = "Average Driver MilliSec/Read",
	[SM_DAVG_W] = "Average Driver MilliSec/Write", [SM_KAVG_R] = "Average Kernel MilliSec/Read",
	[SM_KAVG_W] = "Average Kernel MilliSec/Write", [SM_GAVG_R] = "Average Guest MilliSec/Read",
	[SM_GAVG_W] = "Average Guest MilliSec/Write", [SM_QAVG_R] = "Average Queue MilliSec/Read",
	[SM_QAVG_W] = "Average Queue MilliSec/Write", [SM_FAILED] = "Failed Commands/sec",
	[SM_FAILED_R] = "Failed Reads/sec", [SM_FAILED_W] = "Failed Writes/sec", [SM_ABORTS] = "Aborts/sec",
	[SM_RESETS] = "Resets/sec", [SM_RESV] = "Reserves/sec", [SM_CONS] = "Conflicts/sec",
	[SM_SPLIT] = "Split Commands/sec", [SM_SPLITC] = "Split Copies/sec", [SM_PAE] = "PAE Commands/sec",
	[SM_AQLEN] = "Adapter Q Depth", [SM_LAT_R] = "Average MilliSec/Read", [SM_LAT_W] = "Average MilliSec/Write",
	[SM_FAILED_MBR] = "Failed MBytes Read/sec", [SM_FAILED_MBW] = "Failed MBytes Written/sec",
	[SM_FAILED_RESV] = "Failed Reserves/sec",
};

static bool sm_is_int(int k)
{
	return k == SM_DQLEN || k == SM_WQLEN || k == SM_ACTV || k == SM_QUED || k == SM_AQLEN;
}

/* Counter lists per object; -1 ends the default set, -2 ends the -a extras. */
static const int adapter_ctr[] = {SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW, SM_DAVG, SM_KAVG, SM_GAVG,
	SM_QAVG, SM_ACTV, SM_QUED, -1, SM_DAVG_R, SM_DAVG_W, SM_KAVG_R, SM_KAVG_W, SM_GAVG_R, SM_GAVG_W,
	SM_QAVG_R, SM_QAVG_W, SM_FAILED, SM_FAILED_R, SM_FAILED_W, SM_ABORTS, SM_RESETS, SM_RESV, SM_CONS,
	SM_SPLIT, SM_SPLITC, SM_PAE, -2};
static const int pdisk_hba_ctr[] = {-1, SM_AQLEN, SM_ACTV, SM_QUED, SM_CMDS, SM_READS, SM_WRITES, SM_SPLIT,
	SM_SPLITC, SM_FAILED, SM_ABORTS, SM_RESETS, -2};
static const int device_ctr[] = {SM_DQLEN, SM_WQLEN, SM_ACTV, SM_QUED, SM_USD, SM_LOAD, SM_CMDS, SM_READS,
	SM_WRITES, SM_MBR, SM_MBW, SM_DAVG, SM_KAVG, SM_GAVG, SM_QAVG, -1, SM_DAVG_R, SM_DAVG_W, SM_KAVG_R,
	SM_KAVG_W, SM_GAVG_R, SM_GAVG_W, SM_QAVG_R, SM_QAVG_W, SM_FAILED, SM_FAILED_R, SM_FAILED_W, SM_ABORTS,
	SM_RESETS, SM_RESV, SM_CONS, SM_SPLIT, SM_SPLITC, SM_PAE, -2};
static const int path_ctr[] = {SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW, SM_DAVG, SM_KAVG, SM_GAVG,
	SM_QAVG, -1, SM_FAILED, SM_ABORTS, SM_RESETS, -2};
static const int world_ctr[] = {SM_WQLEN, SM_ACTV, SM_QUED, SM_USD, SM_LOAD, SM_CMDS, SM_READS, SM_WRITES,
	SM_MBR, SM_MBW, SM_DAVG, SM_KAVG, SM_GAVG, SM_QAVG, -1, SM_FAILED, SM_ABORTS, SM_RESETS, -2};
static const int part_ctr[] = {SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW, SM_DAVG, SM_KAVG, SM_GAVG,
	SM_QAVG, -1, -2};
static const int vdisk_ctr[] = {SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW, SM_LAT_R, SM_LAT_W, -1, -2};
/* NFS volumes have guest-side latency only (no DAVG/KAVG): the counters of a published esxtop
 * batch capture of an NFS datastore, in its order; written in default and -a captures alike. */
static const int nfs_ctr[] = {SM_ACTV, SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW, SM_GAVG, SM_GAVG_R, SM_GAVG_W,
	SM_FAILED, SM_FAILED_R, SM_FAILED_W, SM_FAILED_MBR, SM_FAILED_MBW, SM_FAILED_RESV, SM_ABORTS, SM_RESETS, -1, -2};

static const char *const gcpu_ctr[] = {"Members", "% Used", "% Run", "% System", "% Wait", "% VmWait",
	"% Ready", "% Idle", "% Overlap", "% CoStop", "% Max Limited", "% Swap Wait"};
enum { NGCPU = 12, NVCPU = 11 };
static const char *const *const vcpu_ctr = gcpu_ctr + 1;

static const char *const mem_ctr[] = {"Memory Overcommit (1 Minute Avg)", "Memory Overcommit (5 Minute Avg)",
	"Memory Overcommit (15 Minute Avg)", "Machine MBytes", "Kernel Managed MBytes", "NonKernel MBytes",
	"Free MBytes", "Kernel Reserved MBytes", "Kernel Unreserved MBytes", "Memory State",
	"PShare Shared MBytes", "PShare Common MBytes", "PShare Savings MBytes", "Swap Used MBytes",
	"Swap Target MBytes", "Swap MBytes Read/sec", "Swap MBytes Write/sec", "Total Compressed MBytes",
	"Memctl Current MBytes", "Memctl Target MBytes"};
static const double mem_base[] = {0, 0, 0, 524197, 522110, 401880, 120230, 2910, 519200, 0, 61440, 9120,
	52320, 0, 0, 0, 0, 0, 0, 0};
static const char *const cookie_base_ctr[] = {"Interrupts/sec", "Average uSec/Interrupt"};
static const char *const net_ctr[] = {"Packets Transmitted/sec", "Packets Received/sec", "MBits Transmitted/sec",
	"MBits Received/sec", "% Outbound Packets Dropped", "% Received Packets Dropped",
	"Multicast Packets Transmitted/sec", "Multicast Packets Received/sec"};
enum { NNET = 8 };

/* How a column's value is produced. */
enum gen { GEN_SNAP, GEN_ZERO, GEN_NOISE, GEN_CONST };

struct col {
	uint32_t slot;  /* GEN_SNAP: snapshot index */
	uint8_t gen, is_int;
	float base;     /* GEN_NOISE / GEN_CONST */
};

/* A storage entity and where its metrics live in the snapshot. */
struct sent {
	uint32_t base;
};

struct sim_esx {
	const struct sim_config *c;
	struct sim_model *m;
	struct sim_out out;
	struct sim_line line;
	struct col *cols;
	size_t ncols, capcols;
	double *snap;
	size_t nsnap;
	struct prng frng;    /* filler values */
	bool trailing;
	uint32_t zero_slot;
	/* snapshot bases */
	uint32_t ad_base[SIM_MAX_ADAPTER], dev_base[SIM_MAX_DEV], vd_base[SIM_MAX_VDISK], vm_base[SIM_MAX_VM];
	uint32_t cpu_base[SIM_MAX_VM];      /* 12 group slots + NVCPU per world */
	int nworld;
	struct {
		int dev, vm;
		uint32_t base;
	} world[SIM_MAX_WORLD];
	struct sim_esx_dev_row last[SIM_MAX_DEV];
	const char *prefix;
	int host, stream;       /* the ESXi host this file is of, and its accumulator stream */
	const char *hostname;
	bool failover[SIM_MAX_DEV];             /* device with a path failover: paths get own slots */
	bool chan2[SIM_MAX_DEV];                /* device round robin over C0 and C1: paths get own slots */
	uint32_t pp_base[SIM_MAX_DEV], sb_base[SIM_MAX_DEV];
};

static bool vm_here(const struct sim_esx *w, int vm)
{
	return w->c->vm[vm].host == w->host;
}

static bool dev_here(const struct sim_esx *w, int d)
{
	return w->c->dev[d].host == w->host;
}

static bool adapter_here(const struct sim_esx *w, int a)
{
	return w->c->adapter[a].host == w->host;
}

static bool add_col(struct sim_esx *w, struct sim_line *hdr, const char *object, const char *inst,
		    const char *counter, uint8_t gen, uint32_t slot, bool is_int, double base)
{
	if (w->ncols == w->capcols) {
		size_t n = w->capcols ? w->capcols * 2 : 1024;
		struct col *p = realloc(w->cols, n * sizeof *p);
		if (!p)
			return false;
		w->cols = p;
		w->capcols = n;
	}
	w->cols[w->ncols++] = (struct col){.slot = slot, .gen = gen, .is_int = is_int, .base = (float)base};
	size_t lo = strlen(object), li = inst ? strlen(inst) : 0, lc = strlen(counter), lh = strlen(w->hostname);
	if (!sim_line_reserve(hdr, lo + li + lc + lh + 16))
		return false;
	char *p = hdr->p + hdr->len;
	*p++ = ',';
	*p++ = '"';
	*p++ = '\\';
	*p++ = '\\';
	memcpy(p, w->hostname, lh), p += lh;
	*p++ = '\\';
	memcpy(p, object, lo), p += lo;
	if (inst) {
		*p++ = '(';
		memcpy(p, inst, li), p += li;
		*p++ = ')';
	}
	*p++ = '\\';
	memcpy(p, counter, lc), p += lc;
	*p++ = '"';
	hdr->len = (size_t)(p - hdr->p);
	return true;
}

static bool add_storage(struct sim_esx *w, struct sim_line *hdr, const char *object, const char *inst,
			const int *ctr, uint32_t base)
{
	bool extra = false;
	for (const int *k = ctr; *k != -2; k++) {
		if (*k == -1) {
			extra = true;
			continue;
		}
		if (extra && !w->c->all_counters)
			continue;
		uint32_t slot = base == UINT32_MAX ? w->zero_slot : base + (uint32_t)*k;
		if (!add_col(w, hdr, object, inst, sm_name[*k], GEN_SNAP, slot, sm_is_int(*k), 0))
			return false;
	}
	return true;
}

static uint32_t alloc_slots(struct sim_esx *w, size_t n)
{
	uint32_t b = (uint32_t)w->nsnap;
	w->nsnap += n;
	return b;
}

/* Filler plan: how many idle VMs (each a Group Cpu block and some Vcpu worlds), interrupt
 * cookies and network ports, with the last unit possibly partial, to hit the wanted width. */
struct filler {
	long vms, vm_worlds, last_vm_cols;   /* last VM: columns it gets in total (0 = full) */
	long cookies, last_cookie_cols, cookie_cols;
	long ports, last_port_cols;
};

static void plan_units(long budget, long unit, long *n, long *last)
{
	*n = budget / unit;
	*last = budget % unit;
	if (*last)
		(*n)++;
}

static void make_plan(struct filler *f, long budget, int pcpus)
{
	memset(f, 0, sizeof *f);
	f->vm_worlds = 8;   /* vmx, vmast, 2 vthreads, mks, svga, 2 vcpus */
	f->cookie_cols = 2 + 2L * pcpus;
	if (budget <= 0)
		return;
	long vm_unit = NGCPU + f->vm_worlds * NVCPU;
	long b_vm = budget * 70 / 100, b_ck = budget * 22 / 100;
	long b_net = budget - b_vm - b_ck;
	plan_units(b_vm, vm_unit, &f->vms, &f->last_vm_cols);
	plan_units(b_ck, f->cookie_cols, &f->cookies, &f->last_cookie_cols);
	plan_units(b_net, NNET, &f->ports, &f->last_port_cols);
}

static double noise_base(struct sim_esx *w, const char *counter)
{
	double u = prng_uniform(&w->frng);
	if (strstr(counter, "Ready"))
		return 0.05 + u * 0.8;
	if (strstr(counter, "Swap Wait"))
		return 0; /* no host swaps an idle filler VM (the draw is kept: the other columns stay as they were) */
	if (strstr(counter, "Idle") || strstr(counter, "Wait"))
		return 90 + u * 9;
	if (strstr(counter, "Used") || strstr(counter, "Run"))
		return u < 0.3 ? 0 : u * 6;
	return u < 0.6 ? 0 : u * 2;
}

/* The host's Memory counter i: the usual plenty, or a host short of memory (host_free_mb): little
 * free, the state hard, swap in use. */
static double mem_value(const struct sim_config *c, size_t i)
{
	if (c->host_free_mb <= 0)
		return mem_base[i];
	if (strcmp(mem_ctr[i], "Free MBytes") == 0)
		return c->host_free_mb;
	if (strcmp(mem_ctr[i], "Memory State") == 0)
		return 2;
	return strcmp(mem_ctr[i], "Swap Used MBytes") == 0 ? 6144 : mem_base[i];
}

/* Devices round robin over two channels (chan1_add_ms): their paths get own slots. */
static void alloc_channels(struct sim_esx *w)
{
	for (int d = 0; d < w->c->ndev; d++)
		if (w->c->dev[d].chan1_add_ms > 0 && !w->failover[d]) {
			w->chan2[d] = true;
			w->pp_base[d] = alloc_slots(w, SM_NM);
			w->sb_base[d] = alloc_slots(w, SM_NM);
		}
}

/* The path of device d on channel C1 of its adapter (the second bound vmknic, same target). */
static bool add_channel1(struct sim_esx *w, struct sim_line *hdr, int d)
{
	const struct sim_dev *dv = &w->c->dev[d];
	char inst[96];
	snprintf(inst, sizeof inst, "%s:C1:T%d:L%d", w->c->adapter[dv->adapter].name, dv->path_target, dv->lun);
	return add_storage(w, hdr, "Physical Disk Path", inst, path_ctr, w->sb_base[d]);
}

/* Builds the column table and the header line. */
static int layout(struct sim_esx *w, struct sim_line *hdr, long budget)
{
	const struct sim_config *c = w->c;
	char inst[SIM_NAME * 2 + 64];
	w->zero_slot = alloc_slots(w, 1);
	for (int a = 0; a < c->nadapter; a++)
		w->ad_base[a] = alloc_slots(w, SM_NM);
	for (int d = 0; d < c->ndev; d++)
		w->dev_base[d] = alloc_slots(w, SM_NM);
	for (int i = 0; i < c->ndevev; i++) {
		int d = c->devev[i].dev;
		if (c->devev[i].kind == SIM_DEVEV_FAILOVER && !w->failover[d]) {
			w->failover[d] = true;
			w->pp_base[d] = alloc_slots(w, SM_NM);
			w->sb_base[d] = alloc_slots(w, SM_NM);
		}
	}
	alloc_channels(w);
	for (int v = 0; v < c->nvdisk; v++)
		w->vd_base[v] = alloc_slots(w, SM_NM);
	for (int vm = 0; vm < c->nvm; vm++) {
		w->vm_base[vm] = alloc_slots(w, SM_NM);
		w->cpu_base[vm] = alloc_slots(w, NGCPU + (size_t)(c->vm[vm].vcpus + 6) * NVCPU);
	}
	/* worlds: (device, VM) pairs with IO, plus the system world on the boot device */
	for (int d = 0; d < c->ndev; d++) {
		if (!dev_here(w, d) || c->dev[d].kind != SIM_DEV_SCSI)
			continue;
		for (int vm = 0; vm < c->nvm; vm++) {
			bool uses = false;
			for (int v = 0; v < c->nvdisk; v++)
				if ((c->vdisk[v].dev == d || c->vdisk[v].move_dev - 1 == d) && c->vdisk[v].vm == vm)
					uses = true;
			if (uses && w->nworld < SIM_MAX_WORLD) {
				w->world[w->nworld].dev = d;
				w->world[w->nworld].vm = vm;
				w->world[w->nworld].base = alloc_slots(w, SM_NM);
				w->nworld++;
			}
		}
	}
	w->snap = calloc(w->nsnap, sizeof *w->snap);
	if (!w->snap)
		return ERR_NOMEM;

	const char *first = "\"(PDH-CSV 4.0) (UTC)(0)\"";
	if (!sim_line_reserve(hdr, strlen(first) + 1))
		return ERR_NOMEM;
	memcpy(hdr->p, first, strlen(first));
	hdr->len = strlen(first);

	struct filler f;
	make_plan(&f, budget, c->pcpus);

	/* Memory, Physical Cpu Load, Physical Cpu */
	for (size_t i = 0; i < sizeof mem_ctr / sizeof mem_ctr[0]; i++)
		if (!add_col(w, hdr, "Memory", NULL, mem_ctr[i], GEN_CONST, 0, false, mem_value(c, i)))
			return ERR_NOMEM;
	static const char *const load_ctr[] = {"Cpu Load (1 Minute Avg)", "Cpu Load (5 Minute Avg)",
		"Cpu Load (15 Minute Avg)"};
	for (int i = 0; i < 3; i++)
		if (!add_col(w, hdr, "Physical Cpu Load", NULL, load_ctr[i], GEN_NOISE, 0, false, 0.18))
			return ERR_NOMEM;
	static const char *const pcpu_ctr[] = {"% Processor Time", "% Util Time", "% Core Util Time"};
	for (int p = 0; p <= c->pcpus; p++) {
		if (p < c->pcpus)
			snprintf(inst, sizeof inst, "%d", p);
		else
			snprintf(inst, sizeof inst, "_Total");
		for (int i = 0; i < 3; i++)
			if (!add_col(w, hdr, "Physical Cpu", inst, pcpu_ctr[i], GEN_NOISE, 0, false,
				     12 + 10 * prng_uniform(&w->frng)))
				return ERR_NOMEM;
	}
	/* Group Cpu: system groups, modelled VMs, idle filler VMs */
	static const char *const sys_groups[] = {"1:system", "2:vim", "3:iofilters", "4:ft", "5:helper"};
	for (int g = 0; g < 5; g++)
		for (int i = 0; i < NGCPU; i++)
			if (!add_col(w, hdr, "Group Cpu", sys_groups[g], gcpu_ctr[i], i == 0 ? GEN_CONST : GEN_NOISE, 0,
				     i == 0, i == 0 ? 40 + g * 7 : noise_base(w, gcpu_ctr[i])))
				return ERR_NOMEM;
	for (int vm = 0; vm < c->nvm; vm++) {
		if (!vm_here(w, vm))
			continue;
		snprintf(inst, sizeof inst, "%d:%s", c->vm[vm].gid, c->vm[vm].name);
		for (int i = 0; i < NGCPU; i++)
			if (!add_col(w, hdr, "Group Cpu", inst, gcpu_ctr[i], GEN_SNAP, w->cpu_base[vm] + (uint32_t)i,
				     i == 0, 0))
				return ERR_NOMEM;
	}
	for (long k = 0; k < f.vms; k++) {
		snprintf(inst, sizeof inst, "%ld:VM%03ld", 70000 + k * 1213 % 9000 + k, k + 3);
		long cols = (k == f.vms - 1 && f.last_vm_cols) ? f.last_vm_cols : NGCPU + f.vm_worlds * NVCPU;
		for (int i = 0; i < NGCPU && cols > 0; i++, cols--)
			if (!add_col(w, hdr, "Group Cpu", inst, gcpu_ctr[i], i == 0 ? GEN_CONST : GEN_NOISE, 0, i == 0,
				     i == 0 ? (double)f.vm_worlds : noise_base(w, gcpu_ctr[i])))
				return ERR_NOMEM;
	}
	/* Vcpu worlds */
	static const char *const sys_worlds[] = {"1:system:2097152:idle1", "1:system:2097153:idle2",
		"2:vim:2099001:hostd", "2:vim:2099311:vpxa", "4:ft:2098102:ftcpt", "5:helper:2097500:tlbflushcount"};
	for (int i = 0; i < 6; i++)
		for (int k = 0; k < NVCPU; k++)
			if (!add_col(w, hdr, "Vcpu", sys_worlds[i], vcpu_ctr[k], GEN_NOISE, 0, false,
				     noise_base(w, vcpu_ctr[k])))
				return ERR_NOMEM;
	for (int vm = 0; vm < c->nvm; vm++) {
		const struct sim_vm *v = &c->vm[vm];
		if (!vm_here(w, vm))
			continue;
		for (int wi = 0; wi < v->vcpus + 6; wi++) {
			char world[SIM_NAME + 32];
			if (wi == 0)
				snprintf(world, sizeof world, "vmx");
			else if (wi == 1)
				snprintf(world, sizeof world, "vmast.%d", v->wid);
			else if (wi < 4)
				snprintf(world, sizeof world, "vmx-vthread-%d", wi - 2);
			else if (wi == 4)
				snprintf(world, sizeof world, "vmx-mks:%s", v->name);
			else if (wi == 5)
				snprintf(world, sizeof world, "vmx-svga:%s", v->name);
			else
				snprintf(world, sizeof world, "vmx-vcpu-%d:%s", wi - 6, v->name);
			snprintf(inst, sizeof inst, "%d:%s:%d:%s", v->gid, v->name, v->wid + wi, world);
			for (int k = 0; k < NVCPU; k++)
				if (!add_col(w, hdr, "Vcpu", inst, vcpu_ctr[k], GEN_SNAP,
					     w->cpu_base[vm] + NGCPU + (uint32_t)(wi * NVCPU + k), false, 0))
					return ERR_NOMEM;
		}
	}
	for (long k = 0; k < f.vms; k++) {
		long cols = (k == f.vms - 1 && f.last_vm_cols) ? f.last_vm_cols : NGCPU + f.vm_worlds * NVCPU;
		cols -= NGCPU;
		long gid = 70000 + k * 1213 % 9000 + k;
		for (long wi = 0; wi < f.vm_worlds && cols > 0; wi++) {
			static const char *const wn[] = {"vmx", "vmast", "vmx-vthread-0", "vmx-vthread-1", "vmx-mks",
				"vmx-svga", "vmx-vcpu-0", "vmx-vcpu-1"};
			snprintf(inst, sizeof inst, "%ld:VM%03ld:%ld:%s:VM%03ld", gid, k + 3, 3000000 + k * 20 + wi,
				 wn[wi % 8], k + 3);
			for (int i = 0; i < NVCPU && cols > 0; i++, cols--)
				if (!add_col(w, hdr, "Vcpu", inst, vcpu_ctr[i], GEN_NOISE, 0, false,
					     noise_base(w, vcpu_ctr[i])))
					return ERR_NOMEM;
		}
	}
	/* Storage */
	for (int a = 0; a < c->nadapter; a++)
		if (adapter_here(w, a) &&
		    !add_storage(w, hdr, "Physical Disk Adapter", c->adapter[a].name, adapter_ctr, w->ad_base[a]))
			return ERR_NOMEM;
	if (c->all_counters)
		for (int a = 0; a < c->nadapter; a++)
			if (adapter_here(w, a) &&
			    !add_storage(w, hdr, "Physical Disk", c->adapter[a].name, pdisk_hba_ctr, w->ad_base[a]))
				return ERR_NOMEM;
	for (int d = 0; d < c->ndev; d++)
		if (dev_here(w, d) && c->dev[d].kind == SIM_DEV_SCSI &&
		    !add_storage(w, hdr, "Physical Disk SCSI Device", c->dev[d].naa, device_ctr, w->dev_base[d]))
			return ERR_NOMEM;
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dv = &c->dev[d];
		if (!dev_here(w, d) || dv->kind != SIM_DEV_SCSI)
			continue;
		const char *an = c->adapter[dv->adapter].name;
		snprintf(inst, sizeof inst, "%s:C0:T%d:L%d", an, dv->path_target, dv->lun);
		bool own = w->failover[d] || w->chan2[d];
		if (!add_storage(w, hdr, "Physical Disk Path", inst, path_ctr, own ? w->pp_base[d] : w->dev_base[d]))
			return ERR_NOMEM;
		if (w->chan2[d]) {
			if (!add_channel1(w, hdr, d))
				return ERR_NOMEM;
		} else if (!c->adapter[dv->adapter].local) {
			/* the standby path through the other FC HBA carries nothing (until a failover) */
			const char *other = "vmhba3";
			if (w->failover[d]) {
				other = c->adapter[dv->standby_adapter].name;
			} else {
				for (int a = 0; a < c->nadapter; a++)
					if (a != dv->adapter && !c->adapter[a].local && adapter_here(w, a))
						other = c->adapter[a].name;
			}
			snprintf(inst, sizeof inst, "%s:C0:T%d:L%d", other, dv->path_target + 1, dv->lun);
			if (!add_storage(w, hdr, "Physical Disk Path", inst, path_ctr, w->failover[d] ? w->sb_base[d] : UINT32_MAX))
				return ERR_NOMEM;
		}
	}
	for (int d = 0; d < c->ndev; d++) {
		if (!dev_here(w, d) || c->dev[d].kind != SIM_DEV_SCSI)
			continue;
		if (c->dev[d].local) {
			snprintf(inst, sizeof inst, "%s-%d", c->dev[d].naa, 2097190);
			if (!add_storage(w, hdr, "Physical Disk Per-Device-Per-World", inst, world_ctr, UINT32_MAX))
				return ERR_NOMEM;
		}
		for (int i = 0; i < w->nworld; i++) {
			if (w->world[i].dev != d)
				continue;
			snprintf(inst, sizeof inst, "%s-%d", c->dev[d].naa, c->vm[w->world[i].vm].wid);
			if (!add_storage(w, hdr, "Physical Disk Per-Device-Per-World", inst, world_ctr, w->world[i].base))
				return ERR_NOMEM;
		}
	}
	for (int d = 0; d < c->ndev; d++) {
		if (!dev_here(w, d) || c->dev[d].kind != SIM_DEV_SCSI)
			continue;
		snprintf(inst, sizeof inst, "%s-%d", c->dev[d].naa, c->dev[d].local ? 5 : 1);
		if (!add_storage(w, hdr, "Physical Disk Partition", inst, part_ctr, w->dev_base[d]))
			return ERR_NOMEM;
	}
	for (int d = 0; d < c->ndev; d++)
		if (dev_here(w, d) && c->dev[d].kind == SIM_DEV_NFS &&
		    !add_storage(w, hdr, "Physical Disk NFS Volume", c->dev[d].naa, nfs_ctr, w->dev_base[d]))
			return ERR_NOMEM;
	for (int vm = 0; vm < c->nvm; vm++) {
		if (!vm_here(w, vm))
			continue;
		if (!add_storage(w, hdr, "Virtual Disk", c->vm[vm].name, vdisk_ctr, w->vm_base[vm]))
			return ERR_NOMEM;
		for (int v = 0; v < c->nvdisk; v++) {
			if (c->vdisk[v].vm != vm)
				continue;
			snprintf(inst, sizeof inst, "%s:%s%d:%d", c->vm[vm].name, sim_ctrl_bus(c->ctrl[c->vdisk[v].ctrl].kind),
				 c->ctrl[c->vdisk[v].ctrl].bus,
				 c->vdisk[v].target);
			if (!add_storage(w, hdr, "Virtual Disk", inst, vdisk_ctr, w->vd_base[v]))
				return ERR_NOMEM;
		}
	}
	/* Network ports and interrupt cookies (filler) */
	for (long k = 0; k < f.ports; k++) {
		snprintf(inst, sizeof inst, "DvsPortset-0:%ld:%s", 50331650 + k, k < 4 ? "vmnic" : "vmk-or-VM");
		if (k < 4)
			snprintf(inst, sizeof inst, "DvsPortset-0:%ld:vmnic%ld", 50331650 + k, k);
		long cols = (k == f.ports - 1 && f.last_port_cols) ? f.last_port_cols : NNET;
		for (int i = 0; i < NNET && cols > 0; i++, cols--)
			if (!add_col(w, hdr, "Network Port", inst, net_ctr[i], GEN_NOISE, 0, false,
				     i < 4 ? 50 * prng_uniform(&w->frng) : 0))
				return ERR_NOMEM;
	}
	for (long k = 0; k < f.cookies; k++) {
		snprintf(inst, sizeof inst, "0x%lx:%s", 0x30 + k, k % 3 == 0 ? "qlnativefc" : k % 3 == 1 ? "nvme" : "ixgben");
		long cols = (k == f.cookies - 1 && f.last_cookie_cols) ? f.last_cookie_cols : f.cookie_cols;
		for (int i = 0; i < 2 && cols > 0; i++, cols--)
			if (!add_col(w, hdr, "Interrupt Cookie", inst, cookie_base_ctr[i], GEN_NOISE, 0, false,
				     i == 0 ? 200 * prng_uniform(&w->frng) : 3 + 4 * prng_uniform(&w->frng)))
				return ERR_NOMEM;
		for (int p = 0; p < c->pcpus && cols > 0; p++) {
			for (int i = 0; i < 2 && cols > 0; i++, cols--) {
				char ctr[64];
				snprintf(ctr, sizeof ctr, "%s on CPU %d", cookie_base_ctr[i], p);
				bool active = (p + k) % 4 == 0;
				if (!add_col(w, hdr, "Interrupt Cookie", inst, ctr, active ? GEN_NOISE : GEN_ZERO, 0, false,
					     active ? (i == 0 ? 40 : 4) * prng_uniform(&w->frng) : 0))
					return ERR_NOMEM;
			}
		}
	}
	if (!sim_line_reserve(hdr, 2))
		return ERR_NOMEM;
	if (w->trailing)
		hdr->p[hdr->len++] = ',';
	hdr->p[hdr->len++] = '\n';
	return 0;
}

int sim_esx_open(struct sim_esx **out, const struct sim_config *c, struct sim_model *m, int host, const char *path)
{
	struct sim_esx *w = calloc(1, sizeof *w);
	if (!w)
		return ERR_NOMEM;
	w->c = c;
	w->m = m;
	w->host = host;
	w->stream = sim_esx_stream(host);
	w->hostname = sim_host_name(c, host);
	/* Default captures end every line with a comma; -a captures (all counters) do not. */
	w->trailing = !c->all_counters;
	/* host 0 keeps the stream it always had; a second host's filler differs */
	uint64_t fstream = 7 + 16 * (uint64_t)c->part + 1000 * (uint64_t)host;
	prng_seed(&w->frng, c->seed, fstream);
	struct sim_line hdr = {0};
	/* Lay out once without filler to count the essential columns, then again with exactly the
	 * filler that brings the total to --width. */
	int rc = layout(w, &hdr, 0);
	if (rc == 0) {
		long essential = (long)w->ncols + 1;
		long budget = c->width > 0 ? c->width - essential
					   : 12L * (NGCPU + 8 * NVCPU) + 24L * (2 + 2L * c->pcpus) + 16L * NNET;
		free(w->snap);
		w->snap = NULL;
		w->nsnap = 0;
		w->ncols = 0;
		w->nworld = 0;
		memset(w->failover, 0, sizeof w->failover);
		hdr.len = 0;
		prng_seed(&w->frng, c->seed, fstream);
		rc = layout(w, &hdr, budget);
	}
	if (rc == 0)
		rc = sim_out_open(&w->out, path, c->gzip);
	if (rc == 0) {
		sim_out_write(&w->out, hdr.p, hdr.len);
	}
	sim_line_free(&hdr);
	if (rc) {
		free(w->cols);
		free(w->snap);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int sim_esx_host(const struct sim_esx *w)
{
	return w->host;
}

long sim_esx_columns(const struct sim_esx *w)
{
	return (long)w->ncols + 1;
}

const struct sim_esx_dev_row *sim_esx_last_dev(const struct sim_esx *w, int dev)
{
	return &w->last[dev];
}

/* Fills the rate and latency metrics of one storage entity from summed accumulators. */
/* Reservations and their conflicts of device d over the interval ending at t (esxtop -a RESV/s,
 * CONS/s): a SIM_DEVEV_RESV's rate of conflicts, on 1.2 times as many reservations. */
static void add_reservations(const struct sim_config *c, int d, double *s, double t, double secs)
{
	for (int i = 0; i < c->ndevev; i++) {
		const struct sim_dev_event *ev = &c->devev[i];
		double lo = fmax(ev->t0_s, t - secs), hi = fmin(ev->t1_s, t);
		if (ev->dev == d && ev->kind == SIM_DEVEV_RESV && hi > lo) {
			s[SM_CONS] += ev->rate * (hi - lo) / secs;
			s[SM_RESV] += 1.2 * ev->rate * (hi - lo) / secs;
		}
	}
}

/* A LUN round robin over two channels: half the commands each; the slow channel's commands take
 * chan1_add_ms longer over its window (the device's DAVG is their mean: the model added half). */
static void split_channels(const struct sim_config *c, const struct sim_dev *dc, double *c0, double *c1,
			   const double *s, double t, double secs)
{
	memcpy(c0, s, SM_NM * sizeof *s);
	static const int rates[] = {SM_CMDS, SM_READS, SM_WRITES, SM_MBR, SM_MBW, SM_FAILED, SM_ABORTS, SM_RESETS};
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
		c0[rates[i]] = s[rates[i]] / 2;
	memcpy(c1, c0, SM_NM * sizeof *s);
	double lo = fmax(dc->chan1_t0 * c->duration, t - secs), hi = fmin(dc->chan1_t1 * c->duration, t);
	double half = hi > lo ? dc->chan1_add_ms / 2 * (hi - lo) / secs : 0;
	c0[SM_DAVG] = floor(fmax(0.05, s[SM_DAVG] - half) * 100 + 0.5) / 100;
	c1[SM_DAVG] = floor((s[SM_DAVG] + half) * 100 + 0.5) / 100;
	c0[SM_GAVG] = c0[SM_DAVG] + c0[SM_KAVG];
	c1[SM_GAVG] = c1[SM_DAVG] + c1[SM_KAVG];
}

static void fill_rates(double *s, const struct sim_acc *a, double secs)
{
	double n = a->rd + a->wr;
	s[SM_CMDS] = n / secs;
	s[SM_READS] = a->rd / secs;
	s[SM_WRITES] = a->wr / secs;
	s[SM_MBR] = a->brd / secs / 1048576.0;
	s[SM_MBW] = a->bwr / secs / 1048576.0;
	s[SM_DAVG] = n > 0 ? (a->davg_r + a->davg_w) / n : 0;
	s[SM_KAVG] = n > 0 ? (a->kavg_r + a->kavg_w) / n : 0;
	s[SM_QAVG] = n > 0 ? (a->qavg_r + a->qavg_w) / n : 0;
	s[SM_DAVG_R] = a->rd > 0 ? a->davg_r / a->rd : 0;
	s[SM_DAVG_W] = a->wr > 0 ? a->davg_w / a->wr : 0;
	s[SM_KAVG_R] = a->rd > 0 ? a->kavg_r / a->rd : 0;
	s[SM_KAVG_W] = a->wr > 0 ? a->kavg_w / a->wr : 0;
	s[SM_QAVG_R] = a->rd > 0 ? a->qavg_r / a->rd : 0;
	s[SM_QAVG_W] = a->wr > 0 ? a->qavg_w / a->wr : 0;
	/* Rounded as esxtop shows them, so that GAVG = DAVG + KAVG holds to the printed digit. */
	for (int k = SM_DAVG; k <= SM_QAVG_W; k++)
		s[k] = floor(s[k] * 100 + 0.5) / 100;
	s[SM_GAVG] = s[SM_DAVG] + s[SM_KAVG];
	s[SM_GAVG_R] = s[SM_DAVG_R] + s[SM_KAVG_R];
	s[SM_GAVG_W] = s[SM_DAVG_W] + s[SM_KAVG_W];
	s[SM_LAT_R] = s[SM_GAVG_R];
	s[SM_LAT_W] = s[SM_GAVG_W];
	s[SM_SPLIT] = a->vsplit / secs;
	s[SM_SPLITC] = a->vsplit * 0.02 / secs;
}

static void acc_add(struct sim_acc *t, const struct sim_acc *a)
{
	t->rd += a->rd, t->wr += a->wr, t->brd += a->brd, t->bwr += a->bwr;
	t->davg_r += a->davg_r, t->davg_w += a->davg_w, t->kavg_r += a->kavg_r, t->kavg_w += a->kavg_w;
	t->qavg_r += a->qavg_r, t->qavg_w += a->qavg_w, t->split += a->split, t->vsplit += a->vsplit;
	t->above_r += a->above_r, t->above_w += a->above_w;
}

/* fill_rates of a virtual disk (or a VM's disks): its latency includes what a snapshot's redo log
 * adds above the device. */
static void fill_vdisk_rates(double *s, const struct sim_acc *a, double secs)
{
	fill_rates(s, a, secs);
	if (a->rd > 0)
		s[SM_LAT_R] += floor(a->above_r / a->rd * 100 + 0.5) / 100;
	if (a->wr > 0)
		s[SM_LAT_W] += floor(a->above_w / a->wr * 100 + 0.5) / 100;
}

/* acc_add of what the device sees of a disk's IO: its commands times a snapshot's amplification
 * (bk back-end commands for rd + wr IOs), each back-end command as slow as the disk's. */
static void acc_add_backend(struct sim_acc *t, const struct sim_acc *a)
{
	double n = a->rd + a->wr, f = a->bk > 0 && n > 0 ? a->bk / n : 1;
	struct sim_acc b = *a;
	b.rd *= f, b.wr *= f, b.brd *= f, b.bwr *= f;
	b.davg_r *= f, b.davg_w *= f, b.kavg_r *= f, b.kavg_w *= f, b.qavg_r *= f, b.qavg_w *= f;
	acc_add(t, &b);
}

/* A VM's Group Cpu % Swap Wait at t: its vCPUs times the scenario's per-vCPU share while the host
 * swaps it (sim_swap_stall_ms), else 0. */
static double swap_wait_pct(struct sim_esx *w, int vm, double t)
{
	const struct sim_config *c = w->c;
	const struct sim_vm *v = &c->vm[vm];
	if (sim_swap_stall_ms(c, vm, t) <= 0)
		return 0;
	return v->vcpus * v->swap_wait_pct * (0.9 + 0.2 * prng_uniform(&w->frng));
}

/* Largest-remainder split of an integer total in proportion to weights. */
static void apportion(int total, const double *wgt, int n, int *out)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += wgt[i];
	int given = 0;
	double rem[SIM_MAX_VM];
	for (int i = 0; i < n; i++) {
		double q = sum > 0 ? total * wgt[i] / sum : (i == 0 ? total : 0);
		out[i] = (int)floor(q);
		rem[i] = q - out[i];
		given += out[i];
	}
	while (given < total) {
		int best = 0;
		for (int i = 1; i < n; i++)
			if (rem[i] > rem[best])
				best = i;
		out[best]++;
		rem[best] = -1;
		given++;
	}
}

static void fill_snapshot(struct sim_esx *w, double t)
{
	const struct sim_config *c = w->c;
	struct sim_model *m = w->m;
	double *S = w->snap;
	const struct sim_acc *acc = m->acc[w->stream];
	double secs = c->nvdisk ? acc[0].time_s : c->interval;
	if (secs <= 0)
		secs = c->interval;
	for (size_t i = 0; i < w->nsnap; i++)
		S[i] = 0;
	/* virtual disks and their VM totals */
	for (int vm = 0; vm < c->nvm; vm++) {
		if (!vm_here(w, vm))
			continue;
		struct sim_acc tot = {0};
		for (int v = 0; v < c->nvdisk; v++) {
			if (c->vdisk[v].vm != vm)
				continue;
			fill_vdisk_rates(S + w->vd_base[v], &acc[v], secs);
			acc_add(&tot, &acc[v]);
		}
		fill_vdisk_rates(S + w->vm_base[vm], &tot, secs);
	}
	/* devices, their worlds; adapters as sums */
	int ad_actv[SIM_MAX_ADAPTER] = {0};
	struct sim_acc ad_acc[SIM_MAX_ADAPTER];
	memset(ad_acc, 0, sizeof ad_acc);
	double ad_failed[SIM_MAX_ADAPTER] = {0}, ad_aborts[SIM_MAX_ADAPTER] = {0}, ad_resets[SIM_MAX_ADAPTER] = {0};
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dc = &c->dev[d];
		const struct sim_dev_state *ds = &m->ds[d];
		if (!dev_here(w, d) || dc->kind == SIM_DEV_VSAN)
			continue;
		double *s = S + w->dev_base[d];
		struct sim_acc tot = {0};
		for (int i = 0; i < m->dev_nv[d]; i++)
			acc_add_backend(&tot, &acc[m->dev_v[d][i]]);
		fill_rates(s, &tot, secs);
		/* non-data commands (an UNMAP storm): in Commands/sec, not in Reads/sec or Writes/sec;
		 * they occupy device queue slots for as long as the others (Little: rate x DAVG) */
		double nd_rate = 0;
		for (int i = 0; i < c->ndevev; i++) {
			const struct sim_dev_event *ev = &c->devev[i];
			if (ev->dev != d || ev->kind != SIM_DEVEV_UNMAP)
				continue;
			double lo = fmax(ev->t0_s, t - secs), hi = fmin(ev->t1_s, t);
			if (hi > lo)
				nd_rate += ev->rate * (hi - lo) / secs;
		}
		s[SM_CMDS] += nd_rate;
		add_reservations(c, d, s, t, secs);
		int adp = sim_dev_adapter(m, d);
		if (dc->kind == SIM_DEV_SCSI)
			acc_add(&ad_acc[adp], &tot);
		int actv = 0, qued = 0;
		sim_model_sample_dev(m, d, &actv, &qued);
		s[SM_DQLEN] = ds->dqlen;
		s[SM_WQLEN] = dc->dsnro > 0 ? dc->dsnro : dc->dqlen;
		if (nd_rate > 0) /* the non-data commands in flight, a whole number as esxtop samples them */
			actv += (int)floor(nd_rate * s[SM_DAVG] / 1000.0 + prng_uniform(&m->srng));
		s[SM_ACTV] = actv;
		s[SM_QUED] = qued;
		s[SM_USD] = 100.0 * actv / ds->dqlen;
		s[SM_LOAD] = (double)(actv + qued) / ds->dqlen;
		double failed = m->dev_failed[w->stream][d] / secs;
		s[SM_FAILED] = failed;
		s[SM_FAILED_R] = failed * 0.6;
		s[SM_FAILED_W] = failed * 0.4;
		s[SM_ABORTS] = m->dev_aborts[w->stream][d] / secs;
		s[SM_RESETS] = m->dev_resets[w->stream][d] / secs;
		if (dc->kind != SIM_DEV_SCSI)
			continue;
		ad_failed[adp] += failed;
		ad_actv[adp] += actv;
		ad_aborts[dc->adapter] += s[SM_ABORTS];
		ad_resets[dc->adapter] += s[SM_RESETS];
		if (w->failover[d]) {
			/* IO goes down the active path; aborts and resets belong to the one that failed */
			double *pp = S + w->pp_base[d], *sb = S + w->sb_base[d];
			memset(pp, 0, SM_NM * sizeof *pp);
			memset(sb, 0, SM_NM * sizeof *sb);
			memcpy(ds->path_now ? sb : pp, s, SM_NM * sizeof *s);
			pp[SM_ABORTS] = s[SM_ABORTS];
			pp[SM_RESETS] = s[SM_RESETS];
			if (ds->path_now) {
				sb[SM_ABORTS] = sb[SM_RESETS] = 0;
			}
		}
		if (w->chan2[d])
			split_channels(c, dc, S + w->pp_base[d], S + w->sb_base[d], s, t, secs);
		struct sim_esx_dev_row *L = &w->last[d];
		L->dqlen = s[SM_DQLEN], L->actv = actv, L->qued = qued, L->cmds = s[SM_CMDS];
		L->davg = s[SM_DAVG], L->kavg = s[SM_KAVG], L->gavg = s[SM_GAVG], L->qavg = s[SM_QAVG];
		L->usd = s[SM_USD], L->load = s[SM_LOAD];
		/* worlds of this device */
		int idx[SIM_MAX_VM], nw = 0;
		double wa[SIM_MAX_VM], wq[SIM_MAX_VM];
		for (int i = 0; i < w->nworld; i++) {
			if (w->world[i].dev != d)
				continue;
			int vm = w->world[i].vm;
			struct sim_acc wt = {0};
			double fa = 0;
			for (int j = 0; j < m->dev_nv[d]; j++) {
				int v = m->dev_v[d][j];
				if (c->vdisk[v].vm == vm) {
					acc_add_backend(&wt, &acc[v]);
					fa += m->vs[v].act + m->vs[v].qued;
				}
			}
			double *ws = S + w->world[i].base;
			fill_rates(ws, &wt, secs);
			idx[nw] = i;
			wa[nw] = fa;
			wq[nw] = fa;
			nw++;
		}
		if (nw) {
			int oa[SIM_MAX_VM], oq[SIM_MAX_VM];
			apportion(actv, wa, nw, oa);
			apportion(qued, wq, nw, oq);
			for (int k = 0; k < nw; k++) {
				double *ws = S + w->world[idx[k]].base;
				ws[SM_WQLEN] = s[SM_WQLEN];
				ws[SM_ACTV] = oa[k];
				ws[SM_QUED] = oq[k];
				ws[SM_USD] = 100.0 * oa[k] / ds->dqlen;
				ws[SM_LOAD] = (double)(oa[k] + oq[k]) / ds->dqlen;
			}
		}
	}
	for (int a = 0; a < c->nadapter; a++) {
		if (!adapter_here(w, a))
			continue;
		double *s = S + w->ad_base[a];
		fill_rates(s, &ad_acc[a], secs);
		s[SM_ACTV] = ad_actv[a];
		double q = m->as[a].qued;
		s[SM_QUED] = q > 0.5 ? floor(q + sqrt(q) * 0.5 * prng_normal(&m->srng) + 0.5) : 0;
		if (s[SM_QUED] < 0)
			s[SM_QUED] = 0;
		s[SM_AQLEN] = c->adapter[a].aqlen;
		s[SM_FAILED] = ad_failed[a];
		s[SM_FAILED_R] = ad_failed[a] * 0.6;
		s[SM_FAILED_W] = ad_failed[a] * 0.4;
		s[SM_ABORTS] = ad_aborts[a];
		s[SM_RESETS] = ad_resets[a];
	}
	/* modelled VMs' CPU: more IO costs more CPU, and LSI costs more per IO than PVSCSI */
	for (int vm = 0; vm < c->nvm; vm++) {
		const struct sim_vm *v = &c->vm[vm];
		if (!vm_here(w, vm))
			continue;
		double *g = S + w->cpu_base[vm];
		int nwld = v->vcpus + 6;
		if (sim_vm_off(c, vm, t)) {
			for (int i = 0; i < NGCPU + nwld * NVCPU; i++)
				g[i] = NAN;
			for (int i = 0; i < SM_NM; i++)
				S[w->vm_base[vm] + i] = NAN;
			for (int k = 0; k < c->nvdisk; k++)
				if (c->vdisk[k].vm == vm)
					for (int i = 0; i < SM_NM; i++)
						S[w->vd_base[k] + i] = NAN;
			continue;
		}
		double iops = 0, per_io = 0.010;
		for (int k = 0; k < c->nvdisk; k++) {
			if (c->vdisk[k].vm != vm)
				continue;
			iops += m->vs[k].x;
			if (c->ctrl[c->vdisk[k].ctrl].kind == SIM_CTRL_LSI)
				per_io = 0.013;
		}
		double cap = 100.0 * v->vcpus;
		double used = 8 + 4 * v->vcpus + iops * per_io + 3 * prng_normal(&w->frng);
		used = used < 1 ? 1 : used > cap ? cap : used;
		double ready = v->ready_pct > 0 ? v->vcpus * v->ready_pct * (0.9 + 0.2 * prng_uniform(&w->frng))
						 : v->vcpus * (0.3 + 0.2 * prng_uniform(&w->frng));
		/* co-stop grows with ready time on a wide VM (its vCPUs are scheduled together) */
		double costop = v->ready_pct > 0 ? 0.2 * ready * (0.8 + 0.4 * prng_uniform(&w->frng))
						  : 0.05 * v->vcpus * prng_uniform(&w->frng);
		double total = 100.0 * nwld;
		g[0] = nwld;
		g[1] = used;
		g[2] = used * 0.96;
		g[3] = used * 0.04;
		g[4] = total - used * 0.96 - ready;
		g[5] = 0.2 * prng_uniform(&w->frng);
		g[6] = ready;
		g[7] = cap - used - ready > 0 ? cap - used - ready : 0;
		g[8] = used * 0.01;
		g[9] = costop;
		g[10] = 0;
		g[11] = swap_wait_pct(w, vm, t);
		for (int wi = 0; wi < nwld; wi++) {
			double *x = g + NGCPU + wi * NVCPU;
			double u = wi >= 6 ? used / v->vcpus : 0.2 * prng_uniform(&w->frng);
			double r = wi >= 6 ? ready / v->vcpus : 0.01;
			x[0] = u;
			x[1] = u * 0.96;
			x[2] = u * 0.04;
			x[3] = 100 - u - r;
			x[4] = wi >= 6 ? 0.02 : 0;
			x[5] = r;
			x[6] = wi >= 6 ? 100 - u - r : 0;
			x[7] = u * 0.01;
			x[8] = wi >= 6 ? costop / v->vcpus : 0;
			x[9] = 0;
			x[10] = 0;
		}
	}
}

int sim_esx_row(struct sim_esx *w, double t)
{
	fill_snapshot(w, t);
	struct sim_line *l = &w->line;
	if (!sim_line_reserve(l, w->ncols * 40 + 64))
		return ERR_NOMEM;
	l->len = 0;
	struct sim_tm tm;
	sim_time_split(w->c->start_ms + (int64_t)floor(t) * 1000, &tm);
	int n = snprintf(l->p, 40, "\"%02d/%02d/%04d %02d:%02d:%02d\"", tm.mon, tm.day, tm.year, tm.hour, tm.min,
			 tm.sec);
	l->len = n > 0 ? (size_t)n : 0;
	char *p = l->p + l->len;
	const double *S = w->snap;
	struct prng *r = &w->frng;
	for (size_t i = 0; i < w->ncols; i++) {
		const struct col *k = &w->cols[i];
		double v;
		switch (k->gen) {
		case GEN_SNAP:
			v = S[k->slot];
			break;
		case GEN_ZERO:
			v = 0;
			break;
		case GEN_CONST:
			v = k->base;
			break;
		default:
			v = k->base > 0 ? k->base * (0.8 + 0.4 * prng_uniform(r)) : 0;
			break;
		}
		*p++ = ',';
		*p++ = '"';
		p += k->is_int ? sim_fmt_int(p, v) : sim_fmt_fixed2(p, v);
		*p++ = '"';
	}
	if (w->trailing)
		*p++ = ',';
	*p++ = '\n';
	l->len = (size_t)(p - l->p);
	sim_out_write(&w->out, l->p, l->len);
	return w->out.err;
}

int sim_esx_close(struct sim_esx *w, bool commit)
{
	int rc = 0;
	if (commit)
		rc = sim_out_commit(&w->out);
	else
		sim_out_abort(&w->out);
	sim_line_free(&w->line);
	free(w->cols);
	free(w->snap);
	free(w);
	return rc;
}
