/* gen_esxtop.c — deterministic generator of an esxtop-batch-shaped CSV capture for bench/.
 *
 *   gen_esxtop COLUMNS ROWS [SEED] [-a | -p] [-o FILE]
 *
 * Writes a PDH-CSV 4.0 capture as `esxtop -b -d 5` (default, non -a) would: one header line, ROWS data
 * lines, every field quoted, LF line ends, one empty trailing field on every line, "MM/DD/YYYY HH:MM:SS"
 * UTC timestamps with interval jitter. COLUMNS counter columns follow the timestamp column (so each line
 * has COLUMNS + 2 fields). Column mix follows doc/domain.md §7: Vcpu ~56%, Interrupt Cookie ~20%, storage
 * ~7.5% (SCSI devices, paths, adapters, per-device-per-world, partitions, virtual disks, NFS), the rest
 * Group Cpu, Network Port, Physical Cpu, Physical Cpu Load and Memory. Instance names contain spaces,
 * nested parentheses and colons; counter names contain parentheses. One VM powers off at 2/3 of the
 * capture: its cells are empty ("") from then on, as esxtop writes them.
 *
 * -a adds the `PCPU Power State` block of an `esxtop -a` capture from ESXi 6.x (doc/domain.md §7): per
 * PCPU %C-State C0-C2, %P-State P0-P7, %T-State T0-T7, and between two PCPUs an unquoted
 * space-padded field glued to the next quoted one without a comma (header `   -"\\h\PCPU Power
 * State(PCPU 1)\%C-State C0"`, data `    73.1"8.93"`). -p writes the same capture (same columns,
 * same values) with that field quoted and followed by a comma, to measure what the glue costs.
 * The block replaces Vcpu columns, so COLUMNS stays the total.
 *
 * Same arguments => byte-identical output (own PRNG, no rand(), no locale, no time()).
 * Standalone: cc -O2 -o gen_esxtop gen_esxtop.c
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- PRNG (splitmix64) */
static uint64_t rng_s;
static uint64_t rnd(void)
{
	uint64_t z = (rng_s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static uint32_t rnd_below(uint32_t n) { return n ? (uint32_t)((rnd() >> 32) % n) : 0; }

/* ---------------------------------------------------------------- output */
static FILE *out;
static void die(const char *msg)
{
	fprintf(stderr, "gen_esxtop: %s%s%s\n", msg, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}
static void put(const char *s, size_t n)
{
	if (fwrite(s, 1, n, out) != n)
		die("write error");
}
static void puts_(const char *s) { put(s, strlen(s)); }

/* ---------------------------------------------------------------- columns */
/* Value model of one column, in hundredths. Each row: 0 with probability pz/65536, else uniform in
 * [lo, hi], times 10 with probability pspike/65536. Kind SUM: value = col[ref1] + col[ref2] of the same
 * row (GAVG = DAVG + KAVG, Commands/sec = Reads/sec + Writes/sec). */
enum { K_RAND = 0, K_SUM = 1 };
struct col {
	uint32_t lo, hi;
	uint16_t pz, pspike;
	uint8_t kind, integral, glue;
	int32_t ref1, ref2;
	int32_t vanish; /* first row with an empty cell (INT32_MAX: never) */
};
static struct col *cols;
static long ncols, maxcols;
static const char *host = "esx01.lab.local";
static int32_t cur_vanish = INT32_MAX; /* applied to columns added while set */
static int power_mode;                   /* 0: no PCPU Power State block; 'a': glued; 'p': quoted */

struct prof { uint32_t lo, hi; uint16_t pz, pspike; uint8_t integral; };
#define PCT(p) ((uint16_t)((p) * 655.36)) /* percent -> 1/65536 */

static void add_col(const char *obj, const char *inst, const char *ctr, struct prof p)
{
	if (ncols >= maxcols)
		return;
	if (ncols == 0)
		puts_("\"(PDH-CSV 4.0) (UTC)(0)\",");
	puts_("\"\\\\");
	puts_(host);
	puts_("\\");
	puts_(obj);
	if (inst) {
		puts_("(");
		puts_(inst);
		puts_(")");
	}
	puts_("\\");
	puts_(ctr);
	puts_("\",");
	struct col *c = &cols[ncols++];
	c->lo = p.lo;
	c->hi = p.hi < p.lo ? p.lo : p.hi;
	c->pz = p.pz;
	c->pspike = p.pspike;
	c->integral = p.integral;
	c->kind = K_RAND;
	c->ref1 = c->ref2 = -1;
	c->vanish = cur_vanish;
}
/* The -a glue column: `   -` glued to the next header cell (-a), or a plain `"-",` cell (-p). */
static void add_glue_col(struct prof p)
{
	if (ncols >= maxcols)
		return;
	puts_(power_mode == 'a' ? "   -" : "\"-\",");
	struct col *c = &cols[ncols++];
	memset(c, 0, sizeof *c);
	c->lo = p.lo;
	c->hi = p.hi < p.lo ? p.lo : p.hi;
	c->pz = p.pz;
	c->pspike = p.pspike;
	c->kind = K_RAND;
	c->ref1 = c->ref2 = -1;
	c->vanish = INT32_MAX;
	c->glue = 1;
}

/* Mark the column just added as the sum of the columns at offsets a and b from it (within one instance). */
static void make_sum(long off_a, long off_b)
{
	struct col *c = &cols[ncols - 1];
	c->kind = K_SUM;
	c->ref1 = (int32_t)(ncols - 1 + off_a);
	c->ref2 = (int32_t)(ncols - 1 + off_b);
}

/* Commands/sec (3rd last column) = Reads/sec + Writes/sec (the two just added). */
static void sum_prev3(void)
{
	struct col *c = &cols[ncols - 3];
	c->kind = K_SUM;
	c->ref1 = (int32_t)(ncols - 2);
	c->ref2 = (int32_t)(ncols - 1);
}

static struct prof P(double lo, double hi, double pz_pct, double spike_pct)
{
	struct prof p = {(uint32_t)(lo * 100 + 0.5), (uint32_t)(hi * 100 + 0.5), PCT(pz_pct), PCT(spike_pct), 0};
	return p;
}
static struct prof PI(double lo, double hi, double pz_pct) /* integral values ("3.00") */
{
	struct prof p = P(lo, hi, pz_pct, 0);
	p.integral = 1;
	return p;
}
static const struct prof ZERO = {0, 0, 65535, 0, 0};

/* ---------------------------------------------------------------- naming */
static const char *vm_base[] = {
	"SQL01", "EXCH01", "DC01", "Web Front 02", "FS01", "APP (old)", "vCenter", "Backup-Proxy", "SQL02",
	"CITRIX-XA07", "sap_prd_db", "Jump Host", "ORA-RAC-N1", "ORA-RAC-N2", "print01", "k8s-worker-3",
};
#define NVMBASE (sizeof vm_base / sizeof vm_base[0])
static const char *sysgrp_base[] = {
	"system", "helper", "drivers", "ft", "vmotion", "vmkapimod", "vimsvc", "hostd", "vpxa", "sfcb",
	"vmsyslogd", "net-lacp", "rhttpproxy", "sh", "dcui", "busybox", "vobd", "nscd", "storageRM", "sdrsInjector",
};
#define NSYSBASE (sizeof sysgrp_base / sizeof sysgrp_base[0])

struct vm {
	char name[96];
	uint32_t gid, vmx_wid;
	int vcpus;
};
static struct vm *vms;
static int nvm;
static int off_vm = -1; /* VM that powers off at 2/3 of the capture */

static void hex(char *dst, int n)
{
	static const char d[] = "0123456789abcdef";
	for (int i = 0; i < n; i++)
		dst[i] = d[rnd() & 15];
	dst[n] = 0;
}

/* ---------------------------------------------------------------- main */
static long parse_long(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "gen_esxtop: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fputs("usage: gen_esxtop COLUMNS ROWS [SEED] [-a | -p] [-o FILE]\n"
	      "  COLUMNS counter columns (>= 500), ROWS data rows, SEED (default 1); output to stdout or FILE.\n"
	      "  -a: esxtop -a's PCPU Power State block with its glued unquoted field; -p: the same, quoted.\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *outpath = NULL;
	const char *pos[3];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			outpath = argv[++i];
		else if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "-p"))
			power_mode = argv[i][1];
		else if (argv[i][0] == '-' && argv[i][1])
			usage();
		else if (npos < 3)
			pos[npos++] = argv[i];
		else
			usage();
	}
	if (npos < 2)
		usage();
	long C = parse_long(pos[0], "COLUMNS");
	long R = parse_long(pos[1], "ROWS");
	uint64_t seed = npos > 2 ? (uint64_t)parse_long(pos[2], "SEED") : 1;
	if (C < 500) {
		fputs("gen_esxtop: COLUMNS must be >= 500\n", stderr);
		return 2;
	}
	rng_s = seed * 0xD1B54A32D192ED03ull + 12345;

	out = stdout;
	if (outpath && strcmp(outpath, "-")) {
		out = fopen(outpath, "w");
		if (!out)
			die(outpath);
	}
	static char obuf[1 << 20];
	setvbuf(out, obuf, _IOFBF, sizeof obuf);

	maxcols = C;
	cols = calloc((size_t)C, sizeof *cols);
	if (!cols)
		die("out of memory");

	/* ---- budgets (whole instances; Vcpu absorbs the remainder) */
	int ncpu = C < 2000 ? 4 : C < 8000 ? 16 : C < 30000 ? 32 : 64;
	nvm = (int)(C / 300);
	if (nvm < 4)
		nvm = 4;
	if (nvm > 400)
		nvm = 400;
	long storage_q = (long)(C * 0.075 + 0.5);
	long intr_q = (long)(C * 0.20 + 0.5);
	long other_q = (long)(C * 0.165 + 0.5);

	/* storage composition */
	enum { ADP_N = 12, DEV_N = 15, PATH_N = 11, PART_N = 5, PDW_N = 14, VD_N = 7, NFS_N = 6 };
	long rem = storage_q;
	int nhba = rem >= 300 ? 4 : rem >= 100 ? 2 : 1;
	rem -= (long)nhba * ADP_N;
	int nnfs = rem >= 200 ? 2 : 0;
	rem -= (long)nnfs * NFS_N;
	int ndev = 0, npdw = 0, nvd = 0;
	for (;;) {
		int progress = 0;
		if (rem >= DEV_N + 2 * PATH_N + PART_N)
			ndev++, rem -= DEV_N + 2 * PATH_N + PART_N, progress = 1;
		if (rem >= PDW_N)
			npdw++, rem -= PDW_N, progress = 1;
		for (int k = 0; k < 2; k++)
			if (rem >= VD_N)
				nvd++, rem -= VD_N, progress = 1;
		if (!progress)
			break;
	}
	if (ndev == 0)
		ndev = 1;
	/* other */
	enum { GRP_N = 12, NET_N = 6, MEM_N = 20, PCL_N = 3, PCPU_N = 3, VCPU_N = 11 };
	long orem = other_q - PCL_N - (long)(ncpu + 1) * PCPU_N - MEM_N;
	int nports = nvm + 3 + 4 + 2;
	if ((long)nports * NET_N > orem / 3)
		nports = (int)(orem / 3 / NET_N);
	orem -= (long)nports * NET_N;
	int ngrp = orem > 0 ? (int)(orem / GRP_N) : 0;
	int nsysgrp = ngrp - nvm;
	if (nsysgrp < 2)
		nsysgrp = 2;
	/* interrupt cookies */
	int intr_n = 2 + 2 * ncpu;
	int ncookie = (int)(intr_q / intr_n);
	/* Vcpu gets everything not used by the other blocks */
	long used = PCL_N + (long)(ncpu + 1) * PCPU_N + MEM_N + (long)nports * NET_N + (long)(nvm + nsysgrp) * GRP_N +
		    (long)ncookie * intr_n + (long)nhba * ADP_N + (long)nnfs * NFS_N +
		    (long)ndev * (DEV_N + 2 * PATH_N + PART_N) + (long)npdw * PDW_N + (long)nvd * VD_N;
	enum { PWR_N = 3 + 8 + 8 };
	if (power_mode)
		used += (long)ncpu * PWR_N + (ncpu - 1);
	long vcpu_q = C - used;
	if (vcpu_q < VCPU_N) {
		fputs("gen_esxtop: COLUMNS too small for the column mix\n", stderr);
		return 2;
	}

	/* ---- VMs */
	vms = calloc((size_t)nvm, sizeof *vms);
	if (!vms)
		die("out of memory");
	uint32_t next_wid = 2097600;
	for (int i = 0; i < nvm; i++) {
		struct vm *v = &vms[i];
		const char *b = vm_base[i % NVMBASE];
		int round = (int)(i / NVMBASE);
		if (i % 7 == 5) { /* restored clone: VM name with a UUID in parentheses */
			char u[40];
			hex(u, 32);
			snprintf(v->name, sizeof v->name, "%s%.0d (%.8s-%.4s-%.4s-%.4s-%.12s)", b, round, u, u + 8,
				 u + 12, u + 16, u + 20);
		} else if (round) {
			snprintf(v->name, sizeof v->name, "%s-%d", b, round + 1);
		} else {
			snprintf(v->name, sizeof v->name, "%s", b);
		}
		v->gid = 2100000u + (uint32_t)i * 5413u + rnd_below(500);
		v->vcpus = (i % 5 == 0) ? 8 : (i % 3 == 0) ? 4 : 2;
	}
	off_vm = npdw > 3 && nvm > 3 ? 3 : 0; /* a VM with per-world storage columns, so latency cells go missing */
	int32_t off_row = (int32_t)(R * 2 / 3);
#define VM_SCOPE(i) (cur_vanish = ((i) == off_vm) ? off_row : INT32_MAX)

	char inst[512], ctr[128];

	/* ---- Physical Cpu Load, Physical Cpu, Memory */
	add_col("Physical Cpu Load", NULL, "Cpu Load (1 Minute Avg)", P(0.20, 0.60, 0, 0));
	add_col("Physical Cpu Load", NULL, "Cpu Load (5 Minute Avg)", P(0.25, 0.55, 0, 0));
	add_col("Physical Cpu Load", NULL, "Cpu Load (15 Minute Avg)", P(0.30, 0.50, 0, 0));
	for (int i = 0; i <= ncpu; i++) {
		if (i < ncpu)
			snprintf(inst, sizeof inst, "%d", i);
		else
			snprintf(inst, sizeof inst, "_Total");
		add_col("Physical Cpu", inst, "% Processor Time", P(3, 65, 0, 0.5));
		add_col("Physical Cpu", inst, "% Util Time", P(3, 60, 0, 0.5));
		add_col("Physical Cpu", inst, "% Core Util Time", P(5, 80, 0, 0.5));
	}
	static const char *memc[MEM_N] = {
		"Memory Overcommit (1 Minute Avg)", "Memory Overcommit (5 Minute Avg)", "Memory Overcommit (15 Minute Avg)",
		"Machine MBytes", "Kernel Managed MBytes", "Kernel MinFree MBytes", "Kernel Reserved MBytes",
		"Kernel Unreserved MBytes", "Kernel State", "NonKernel MBytes", "Free MBytes", "PShare Shared MBytes",
		"PShare Common MBytes", "PShare Savings MBytes", "Swap Used MBytes", "Swap Target MBytes",
		"Swap MBytes Read/sec", "Swap MBytes Write/sec", "Memctl Current MBytes", "Memctl Target MBytes",
	};
	for (int i = 0; i < MEM_N; i++) {
		struct prof p = (i < 3) ? P(0, 0.05, 80, 0) : (i == 8) ? PI(1, 1, 0) : (i >= 14) ? P(0, 12, 95, 0)
			       : PI(1000, 524288, 0);
		if (i >= 3 && i != 8 && i < 14) /* near-constant large values */
			p.hi = p.lo + (uint32_t)rnd_below(3000) * 100 + (uint32_t)rnd_below(40000) * 100, p.lo = p.hi - 500;
		add_col("Memory", NULL, memc[i], p);
	}

	/* ---- PCPU Power State (-a / -p) */
	if (power_mode) {
		for (int i = 0; i < ncpu; i++) {
			if (i > 0)
				add_glue_col(P(40, 99, 0, 0));
			snprintf(inst, sizeof inst, "PCPU %d", i);
			for (int k = 0; k < 3; k++) {
				snprintf(ctr, sizeof ctr, "%%C-State C%d", k);
				add_col("PCPU Power State", inst, ctr, k == 0 ? P(5, 60, 0, 0) : P(0, 90, 10, 0));
			}
			for (int k = 0; k < 8; k++) {
				snprintf(ctr, sizeof ctr, "%%P-State P%d", k);
				add_col("PCPU Power State", inst, ctr, k == 0 ? P(50, 100, 0, 0) : P(0, 10, 80, 0));
			}
			for (int k = 0; k < 8; k++) {
				snprintf(ctr, sizeof ctr, "%%T-State T%d", k);
				add_col("PCPU Power State", inst, ctr, k == 0 ? P(100, 100, 0, 0) : ZERO);
			}
		}
	}

	/* ---- Group Cpu */
	static const char *grpc[GRP_N] = {"Members", "% Used", "% Run", "% System", "% Wait", "% VmWait",
					  "% Ready", "% Idle", "% Overlap", "% CoStop", "% Max Limited", "% Swap Wait"};
	uint32_t *sys_gid = calloc((size_t)nsysgrp, sizeof *sys_gid);
	char (*sys_name)[64] = calloc((size_t)nsysgrp, sizeof *sys_name);
	if (!sys_gid || !sys_name)
		die("out of memory");
	for (int g = 0; g < nsysgrp; g++) {
		sys_gid[g] = g < (int)NSYSBASE ? (uint32_t)g + 1 : 1000u + (uint32_t)g * 37u;
		if (g == 0)
			snprintf(sys_name[g], sizeof sys_name[g], "idle");
		else if (g < (int)NSYSBASE + 1 && g - 1 < 7)
			snprintf(sys_name[g], sizeof sys_name[g], "%s", sysgrp_base[g - 1]);
		else
			snprintf(sys_name[g], sizeof sys_name[g], "%s.%u", sysgrp_base[(g - 1) % NSYSBASE],
				 2098000u + (uint32_t)g * 131u);
	}
	for (int g = 0; g < nsysgrp + nvm; g++) {
		int isvm = g >= nsysgrp;
		int vi = g - nsysgrp;
		if (isvm) {
			VM_SCOPE(vi);
			snprintf(inst, sizeof inst, "%u:%s", vms[vi].gid, vms[vi].name);
		} else {
			cur_vanish = INT32_MAX;
			snprintf(inst, sizeof inst, "%u:%s", sys_gid[g], sys_name[g]);
		}
		int busy = isvm ? (vi % 4 != 3) : (g % 5 == 1);
		for (int k = 0; k < GRP_N; k++) {
			struct prof p;
			switch (k) {
			case 0: p = PI(isvm ? vms[vi].vcpus + 3 : 1, isvm ? vms[vi].vcpus + 3 : 1 + g % 9, 0); p.lo = p.hi; break;
			case 1: case 2: p = busy ? P(2, 180, 2, 1) : P(0, 0.5, 85, 0); break;
			case 3: p = busy ? P(0, 3, 30, 0) : ZERO; break;
			case 4: p = isvm ? P(200, 800, 0, 0) : P(99.9, 100, 0, 0); break;
			case 5: p = isvm ? P(0, 5, 40, 0) : ZERO; break;
			case 6: p = busy ? P(0.1, 8, 5, 1) : P(0, 0.2, 80, 0); break;
			case 7: p = isvm ? P(150, 700, 0, 0) : ZERO; break;
			case 8: p = busy ? P(0, 0.9, 40, 0) : ZERO; break;
			case 9: p = isvm && busy ? P(0, 1.5, 70, 1) : ZERO; break;
			default: p = ZERO; break;
			}
			add_col("Group Cpu", inst, grpc[k], p);
		}
	}

	/* ---- Vcpu: idle worlds, VM worlds, then system worlds spread over system groups */
	static const char *vcpuc[VCPU_N] = {"% Used", "% Run", "% System", "% Wait", "% VmWait", "% Ready",
					    "% Idle", "% Overlap", "% CoStop", "% Max Limited", "% Swap Wait"};
	static const char *sysworld[] = {"helper", "vmklinux", "NetWorld", "vmkeventd", "tlbflushcount", "BCFlush",
					 "PageRetire", "OCFlush", "hbr-filter", "CmdCompl", "DeviceTaskmgmtWatchdog",
					 "SVM", "VSCSI Poll", "storageDeviceIO", "ntpd", "net-cdp", "nfsgssd"};
	long vcols = 0;
	uint32_t wid = 1;
	long world = 0;
	for (int i = 0; vcols < vcpu_q; i++, world++) {
		struct prof p[VCPU_N];
		int isvmw = 0, vi = -1;
		cur_vanish = INT32_MAX;
		if (i < ncpu) { /* idle worlds */
			snprintf(inst, sizeof inst, "%u:idle:%u:idle%d", sys_gid[0], wid++, i);
		} else if (i < ncpu + nvm * 12) {
			/* VM worlds: vmx, vmast, vmx-vthread, vmx-mks, vmx-svga, vmx-vcpu-N (up to 12 slots/VM) */
			int k = i - ncpu;
			vi = k / 12;
			int slot = k % 12;
			struct vm *v = &vms[vi];
			int nslots = 5 + v->vcpus;
			if (slot >= nslots) {
				world--;
				continue;
			}
			VM_SCOPE(vi);
			if (slot == 0)
				v->vmx_wid = next_wid;
			const char *wn = slot == 0 ? "vmx" : slot == 1 ? "vmast" : slot == 2 ? "vmx-vthread-6"
					 : slot == 3 ? "vmx-mks" : slot == 4 ? "vmx-svga" : NULL;
			if (wn && slot == 0)
				snprintf(inst, sizeof inst, "%u:%s:%u:%s", v->gid, v->name, next_wid, wn);
			else if (wn)
				snprintf(inst, sizeof inst, "%u:%s:%u:%s:%s", v->gid, v->name, next_wid, wn, v->name);
			else
				snprintf(inst, sizeof inst, "%u:%s:%u:vmx-vcpu-%d:%s", v->gid, v->name, next_wid, slot - 5,
					 v->name);
			next_wid += 1 + rnd_below(3);
			isvmw = slot >= 5 ? 2 : 1;
		} else {
			int g = 1 + (int)((i - ncpu - nvm * 12) % (nsysgrp > 1 ? nsysgrp - 1 : 1));
			snprintf(inst, sizeof inst, "%u:%s:%u:%s%ld", sys_gid[g], sys_name[g], next_wid,
				 sysworld[(i + g) % (sizeof sysworld / sizeof sysworld[0])], world % 97);
			next_wid += 1 + rnd_below(5);
		}
		int busy = isvmw == 2 ? (vi % 4 != 3) : (i % 11 == 0);
		p[0] = p[1] = busy ? P(1, 95, 3, 1) : P(0, 0.3, 90, 0);
		p[2] = busy ? P(0, 2, 40, 0) : ZERO;
		p[3] = busy ? P(5, 99, 0, 0) : P(100, 100, 0, 0);
		p[4] = isvmw == 2 ? P(0, 3, 50, 0) : ZERO;
		p[5] = busy ? P(0.1, 6, 10, 1) : P(0, 0.05, 95, 0);
		p[6] = isvmw == 2 ? P(2, 97, 1, 0) : ZERO;
		p[7] = busy ? P(0, 0.6, 50, 0) : ZERO;
		p[8] = isvmw == 2 && busy ? P(0, 1.2, 75, 1) : ZERO;
		p[9] = ZERO;
		p[10] = ZERO;
		if (i < ncpu) { /* idle worlds: % Run high */
			p[0] = p[1] = P(40, 99, 0, 0);
			p[3] = ZERO;
		}
		for (int k = 0; k < VCPU_N && vcols < vcpu_q; k++, vcols++)
			add_col("Vcpu", inst, vcpuc[k], p[k]);
	}
	cur_vanish = INT32_MAX;

	/* ---- Interrupt Cookie */
	for (int c = 0; c < ncookie; c++) {
		snprintf(inst, sizeof inst, "0x%08x", 0x20 + c);
		int hot = c % 6 == 0;
		int home = c % ncpu;
		add_col("Interrupt Cookie", inst, "Interrupts/sec", hot ? P(200, 9000, 0, 1) : P(0, 40, 70, 0));
		add_col("Interrupt Cookie", inst, "Average processing time (usec)", hot ? P(1, 25, 0, 0) : P(0, 3, 70, 0));
		for (int k = 0; k < ncpu; k++) {
			int on = k == home;
			snprintf(ctr, sizeof ctr, "Interrupts/sec on Cpu %d", k);
			add_col("Interrupt Cookie", inst, ctr, on ? (hot ? P(200, 9000, 0, 1) : P(0, 40, 70, 0)) : P(0, 1, 98, 0));
			snprintf(ctr, sizeof ctr, "Average processing time on Cpu %d (usec)", k);
			add_col("Interrupt Cookie", inst, ctr, on ? (hot ? P(1, 25, 0, 0) : P(0, 3, 70, 0)) : P(0, 2, 98, 0));
		}
	}

	/* ---- Network Port */
	static const char *netc[NET_N] = {"Packets Transmitted/sec", "MBits Transmitted/sec", "Packets Received/sec",
					  "MBits Received/sec", "% Outbound Packets Dropped", "% Received Packets Dropped"};
	for (int n = 0; n < nports; n++) {
		cur_vanish = INT32_MAX;
		int port = 33554433 + n;
		if (n < 4)
			snprintf(inst, sizeof inst, "vSwitch0:%d:vmnic%d", port, n);
		else if (n < 7)
			snprintf(inst, sizeof inst, "vSwitch0:%d:vmk%d", port, n - 4);
		else if (n < 9)
			snprintf(inst, sizeof inst, "DvsPortset-0:%d:%s", 50331650 + n, n == 7 ? "Management" : "shadow of vmnic1");
		else {
			int vi = (n - 9) % nvm;
			VM_SCOPE(vi);
			snprintf(inst, sizeof inst, "DvsPortset-0:%d:%s.eth0", 50331650 + n, vms[vi].name);
		}
		int busy = n < 4 || n % 3 != 0;
		for (int k = 0; k < NET_N; k++) {
			struct prof p = k >= 4 ? P(0, 0.5, 97, 0)
				      : (k & 1) ? (busy ? P(0.01, 350, 5, 1) : P(0, 0.05, 90, 0))
						: (busy ? P(5, 45000, 5, 1) : P(0, 3, 80, 0));
			add_col("Network Port", inst, netc[k], p);
		}
	}
	cur_vanish = INT32_MAX;

	/* ---- storage */
	char (*dev)[64] = calloc((size_t)ndev, sizeof *dev);
	if (!dev)
		die("out of memory");
	for (int d = 0; d < ndev; d++) {
		if (d == ndev - 1 && ndev > 2)
			snprintf(dev[d], sizeof dev[d], "mpx.vmhba32:C0:T0:L0");
		else if (d == ndev - 2 && ndev > 3)
			snprintf(dev[d], sizeof dev[d], "t10.ATA_____Samsung_SSD_860_EVO_1TB_______S3Z9NB0K%06u", rnd_below(1000000));
		else {
			char h[40];
			hex(h, 29);
			snprintf(dev[d], sizeof dev[d], "naa.600%s", h);
		}
	}
	/* latency-related profiles; busy devices have real latency, idle ones mostly zeros */
#define LAT(busy) ((busy) ? P(0.30, 12.0, 3, 1.0) : P(0, 2.0, 85, 0))
#define KLAT(busy) ((busy) ? P(0.00, 0.06, 20, 0.5) : P(0, 0.02, 92, 0))
#define QLAT(busy) ((busy) ? P(0.00, 0.02, 70, 0.3) : ZERO)
#define RD(busy) ((busy) ? P(5, 2200, 2, 0.5) : P(0, 2, 85, 0))
#define WR(busy) ((busy) ? P(5, 1500, 2, 0.5) : P(0, 2, 85, 0))
#define MBR(busy) ((busy) ? P(0.05, 85, 2, 0.5) : P(0, 0.02, 90, 0))
	/* adapters */
	for (int h = 0; h < nhba; h++) {
		snprintf(inst, sizeof inst, "vmhba%d", h == 3 ? 32 : h);
		int busy = h != 3;
		add_col("Physical Disk Adapter", inst, "Paths", PI(2, 2 + ndev * 2 / nhba, 0));
		cols[ncols - 1].lo = cols[ncols - 1].hi;
		add_col("Physical Disk Adapter", inst, "Active Commands", busy ? PI(0, 40, 20) : ZERO);
		add_col("Physical Disk Adapter", inst, "Queued Commands", busy ? PI(0, 4, 90) : ZERO);
		add_col("Physical Disk Adapter", inst, "Commands/sec", ZERO);
		add_col("Physical Disk Adapter", inst, "Reads/sec", RD(busy));
		add_col("Physical Disk Adapter", inst, "Writes/sec", WR(busy));
		sum_prev3();
		add_col("Physical Disk Adapter", inst, "MBytes Read/sec", MBR(busy));
		add_col("Physical Disk Adapter", inst, "MBytes Written/sec", MBR(busy));
		add_col("Physical Disk Adapter", inst, "Average Driver MilliSec/Command", LAT(busy));
		add_col("Physical Disk Adapter", inst, "Average Kernel MilliSec/Command", KLAT(busy));
		add_col("Physical Disk Adapter", inst, "Average Guest MilliSec/Command", ZERO);
		make_sum(-2, -1);
		add_col("Physical Disk Adapter", inst, "Average Queue MilliSec/Command", QLAT(busy));
	}
	/* SCSI devices */
	for (int d = 0; d < ndev; d++) {
		int busy = d % 4 != 2;
		uint32_t dq = d == ndev - 1 && ndev > 2 ? 1 : (d % 3 == 0 ? 64 : 32);
		add_col("Physical Disk SCSI Device", dev[d], "Device Q Depth", PI(dq, dq, 0));
		add_col("Physical Disk SCSI Device", dev[d], "World Q Depth", PI(dq, dq, 0));
		add_col("Physical Disk SCSI Device", dev[d], "Active Commands", busy ? PI(0, dq / 2, 30) : ZERO);
		add_col("Physical Disk SCSI Device", dev[d], "Queued Commands", busy ? PI(0, 3, 92) : ZERO);
		add_col("Physical Disk SCSI Device", dev[d], "% Used", busy ? P(0, 45, 20, 0) : ZERO);
		add_col("Physical Disk SCSI Device", dev[d], "Load", busy ? P(0, 0.5, 20, 0) : ZERO);
		add_col("Physical Disk SCSI Device", dev[d], "Commands/sec", ZERO);
		add_col("Physical Disk SCSI Device", dev[d], "Reads/sec", RD(busy));
		add_col("Physical Disk SCSI Device", dev[d], "Writes/sec", WR(busy));
		sum_prev3();
		add_col("Physical Disk SCSI Device", dev[d], "MBytes Read/sec", MBR(busy));
		add_col("Physical Disk SCSI Device", dev[d], "MBytes Written/sec", MBR(busy));
		add_col("Physical Disk SCSI Device", dev[d], "Average Driver MilliSec/Command", LAT(busy));
		add_col("Physical Disk SCSI Device", dev[d], "Average Kernel MilliSec/Command", KLAT(busy));
		add_col("Physical Disk SCSI Device", dev[d], "Average Guest MilliSec/Command", ZERO);
		make_sum(-2, -1);
		add_col("Physical Disk SCSI Device", dev[d], "Average Queue MilliSec/Command", QLAT(busy));
	}
	/* paths (2 per device) */
	for (int d = 0; d < ndev; d++) {
		for (int pth = 0; pth < 2; pth++) {
			snprintf(inst, sizeof inst, "vmhba%d:C0:T%d:L%d", pth + (nhba > 1 ? 1 : 0), pth, d);
			int busy = d % 4 != 2 && pth == 0;
			add_col("Physical Disk Path", inst, "Active Commands", busy ? PI(0, 16, 30) : ZERO);
			add_col("Physical Disk Path", inst, "Queued Commands", busy ? PI(0, 3, 92) : ZERO);
			add_col("Physical Disk Path", inst, "Commands/sec", ZERO);
			add_col("Physical Disk Path", inst, "Reads/sec", RD(busy));
			add_col("Physical Disk Path", inst, "Writes/sec", WR(busy));
			sum_prev3();
			add_col("Physical Disk Path", inst, "MBytes Read/sec", MBR(busy));
			add_col("Physical Disk Path", inst, "MBytes Written/sec", MBR(busy));
			add_col("Physical Disk Path", inst, "Average Driver MilliSec/Command", LAT(busy));
			add_col("Physical Disk Path", inst, "Average Kernel MilliSec/Command", KLAT(busy));
			add_col("Physical Disk Path", inst, "Average Guest MilliSec/Command", ZERO);
			make_sum(-2, -1);
			add_col("Physical Disk Path", inst, "Average Queue MilliSec/Command", QLAT(busy));
		}
	}
	/* per-device-per-world: world IDs are the VMs' vmx worlds (joins to Vcpu) */
	for (int w = 0; w < npdw; w++) {
		int vi = w % nvm;
		VM_SCOPE(vi);
		snprintf(inst, sizeof inst, "%s-%u", dev[(w / nvm + vi) % ndev], vms[vi].vmx_wid ? vms[vi].vmx_wid : 2097152u + (uint32_t)w);
		int busy = vi % 4 != 3;
		add_col("Physical Disk Per-Device-Per-World", inst, "World Q Depth", PI(32, 32, 0));
		add_col("Physical Disk Per-Device-Per-World", inst, "Active Commands", busy ? PI(0, 8, 40) : ZERO);
		add_col("Physical Disk Per-Device-Per-World", inst, "Queued Commands", busy ? PI(0, 2, 95) : ZERO);
		add_col("Physical Disk Per-Device-Per-World", inst, "% Used", busy ? P(0, 25, 30, 0) : ZERO);
		add_col("Physical Disk Per-Device-Per-World", inst, "Load", busy ? P(0, 0.3, 30, 0) : ZERO);
		add_col("Physical Disk Per-Device-Per-World", inst, "Commands/sec", ZERO);
		add_col("Physical Disk Per-Device-Per-World", inst, "Reads/sec", RD(busy));
		add_col("Physical Disk Per-Device-Per-World", inst, "Writes/sec", WR(busy));
		sum_prev3();
		add_col("Physical Disk Per-Device-Per-World", inst, "MBytes Read/sec", MBR(busy));
		add_col("Physical Disk Per-Device-Per-World", inst, "MBytes Written/sec", MBR(busy));
		add_col("Physical Disk Per-Device-Per-World", inst, "Average Driver MilliSec/Command", LAT(busy));
		add_col("Physical Disk Per-Device-Per-World", inst, "Average Kernel MilliSec/Command", KLAT(busy));
		add_col("Physical Disk Per-Device-Per-World", inst, "Average Guest MilliSec/Command", ZERO);
		make_sum(-2, -1);
		add_col("Physical Disk Per-Device-Per-World", inst, "Average Queue MilliSec/Command", QLAT(busy));
	}
	cur_vanish = INT32_MAX;
	/* partitions */
	for (int d = 0; d < ndev; d++) {
		snprintf(inst, sizeof inst, "%s-%d", dev[d], d == ndev - 1 && ndev > 2 ? 7 : 1);
		int busy = d % 4 != 2;
		add_col("Physical Disk Partition", inst, "Commands/sec", ZERO);
		add_col("Physical Disk Partition", inst, "Reads/sec", RD(busy));
		add_col("Physical Disk Partition", inst, "Writes/sec", WR(busy));
		sum_prev3();
		add_col("Physical Disk Partition", inst, "MBytes Read/sec", MBR(busy));
		add_col("Physical Disk Partition", inst, "MBytes Written/sec", MBR(busy));
	}
	/* NFS volumes: no DAVG/KAVG, only GAVG */
	for (int n = 0; n < nnfs; n++) {
		snprintf(inst, sizeof inst, "%s", n == 0 ? "nfs-backup01" : "ISO library");
		add_col("Physical Disk NFS Volume", inst, "Commands/sec", ZERO);
		add_col("Physical Disk NFS Volume", inst, "Reads/sec", RD(1));
		add_col("Physical Disk NFS Volume", inst, "Writes/sec", WR(1));
		sum_prev3();
		add_col("Physical Disk NFS Volume", inst, "MBytes Read/sec", MBR(1));
		add_col("Physical Disk NFS Volume", inst, "MBytes Written/sec", MBR(1));
		add_col("Physical Disk NFS Volume", inst, "Average Guest MilliSec/Command", P(0.8, 25, 5, 1));
	}
	/* virtual disks: per VM, the VM-level instance then its scsiC:T disks */
	{
		int per_vm = (nvd + nvm - 1) / nvm; /* VM-level instance + scsi0:0, scsi0:1 at least */
		if (per_vm < 3)
			per_vm = 3;
		int done = 0;
		for (int vi = 0; vi < nvm && done < nvd; vi++) {
			VM_SCOPE(vi);
			int busy = vi % 4 != 3;
			for (int k = 0; k < per_vm && done < nvd; k++, done++) {
				if (k == 0)
					snprintf(inst, sizeof inst, "%s", vms[vi].name);
				else
					snprintf(inst, sizeof inst, "%s:scsi%d:%d", vms[vi].name, (k - 1) / 15, (k - 1) % 15);
				/* e.g. "Virtual Disk(SQL01 (104c07ff-...):scsi0:1)" for VMs named with a UUID */
				add_col("Virtual Disk", inst, "Commands/sec", ZERO);
				add_col("Virtual Disk", inst, "Reads/sec", RD(busy));
				add_col("Virtual Disk", inst, "Writes/sec", WR(busy));
				sum_prev3();
				add_col("Virtual Disk", inst, "MBytes Read/sec", MBR(busy));
				add_col("Virtual Disk", inst, "MBytes Written/sec", MBR(busy));
				add_col("Virtual Disk", inst, "Average MilliSec/Read", LAT(busy));
				add_col("Virtual Disk", inst, "Average MilliSec/Write", LAT(busy));
			}
		}
	}
	cur_vanish = INT32_MAX;
	if (ncols != C) {
		fprintf(stderr, "gen_esxtop: internal error: %ld columns instead of %ld\n", ncols, C);
		return 1;
	}
	put("\n", 1);

	/* ---- data rows */
	uint64_t *val = calloc((size_t)C, sizeof *val);
	size_t lcap = (size_t)C * 24 + 64;
	char *line = malloc(lcap);
	if (!val || !line)
		die("out of memory");
	/* 03/26/2015 22:42:04 UTC, -d 5 with jitter (mostly 5 s, sometimes 4 or 6, rarely 2) */
	int64_t t = 1427409724;
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	for (long r = 0; r < R; r++) {
		uint32_t j = rnd_below(1000);
		t += j < 900 ? 5 : j < 960 ? 6 : j < 998 ? 4 : 2;
		/* civil time from t (UTC) */
		int64_t days = t / 86400, sod = t % 86400;
		int y = 1970, mo = 0;
		for (;;) {
			int ly = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
			if (days < 365 + ly)
				break;
			days -= 365 + ly;
			y++;
		}
		for (;;) {
			int ml = mdays[mo] + (mo == 1 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
			if (days < ml)
				break;
			days -= ml;
			mo++;
		}
		char *p = line;
		p += snprintf(p, 64, "\"%02d/%02d/%04d %02d:%02d:%02d\",", mo + 1, (int)days + 1, y, (int)(sod / 3600),
			      (int)(sod / 60 % 60), (int)(sod % 60));
		for (long i = 0; i < C; i++) {
			const struct col *c = &cols[i];
			if (c->kind != K_RAND)
				continue;
			uint64_t x = rnd();
			uint64_t v;
			if ((x & 0xffff) < c->pz)
				v = 0;
			else {
				uint32_t span = c->hi - c->lo + 1;
				v = c->lo + ((x >> 16) & 0xffffffffu) % span;
				if (c->integral)
					v -= v % 100;
				if (((x >> 48) & 0xffff) < c->pspike)
					v *= 10;
			}
			val[i] = v;
		}
		for (long i = 0; i < C; i++) {
			const struct col *c = &cols[i];
			if (c->glue && power_mode == 'a') { /* `    73.1` right before the next quote */
				uint64_t v = val[i];
				p += snprintf(p, 24, "%8.1f", (double)(v / 10) / 10.0);
				continue;
			}
			if (c->glue) {
				uint64_t v = val[i];
				p += snprintf(p, 24, "\"%.1f\",", (double)(v / 10) / 10.0);
				continue;
			}
			*p++ = '"';
			if (r < c->vanish) {
				uint64_t v = c->kind == K_SUM ? val[c->ref1] + val[c->ref2] : val[i];
				if (c->kind == K_SUM)
					val[i] = v;
				char tmp[24];
				int n = 0;
				uint64_t ip = v / 100;
				unsigned fr = (unsigned)(v % 100);
				do
					tmp[n++] = (char)('0' + ip % 10), ip /= 10;
				while (ip);
				while (n)
					*p++ = tmp[--n];
				*p++ = '.';
				*p++ = (char)('0' + fr / 10);
				*p++ = (char)('0' + fr % 10);
			}
			*p++ = '"';
			*p++ = ',';
		}
		*p++ = '\n';
		put(line, (size_t)(p - line));
	}
	if (fflush(out) || (out != stdout && fclose(out)))
		die("write error");
	free(line);
	free(val);
	free(dev);
	free(sys_name);
	free(sys_gid);
	free(vms);
	free(cols);
	return 0;
}
