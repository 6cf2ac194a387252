/* fmt_esxtop.c — the esxtop/resxtop batch-mode format (`esxtop -b [-a]`): probe, header, the
 * storage counters of the hypervisor layers (devices, adapters, worlds, virtual disks, VM CPU) and
 * the header pass that tells VM groups from the host's own (prepare). */
#include "pdh.h"

#include <stdlib.h>
#include <string.h>

/* esxtop storage counters (devices, adapters); names as esxtop -b writes them. */
static const struct counter_map esx_disk[] = {
	{"Average Driver MilliSec/Command", M_DAVG, 1},
	{"Average Kernel MilliSec/Command", M_KAVG, 1},
	{"Average Guest MilliSec/Command", M_GAVG, 1},
	{"Average Queue MilliSec/Command", M_QAVG, 1},
	{"Average Driver MilliSec/Read", M_DAVG_R, 1},
	{"Average Driver MilliSec/Write", M_DAVG_W, 1},
	{"Average Kernel MilliSec/Read", M_KAVG_R, 1},
	{"Average Kernel MilliSec/Write", M_KAVG_W, 1},
	{"Average Guest MilliSec/Read", M_GAVG_R, 1},
	{"Average Guest MilliSec/Write", M_GAVG_W, 1},
	{"Active Commands", M_ACTV, 1},
	{"Queued Commands", M_QUED, 1},
	{"Device Q Depth", M_DQLEN, 1},
	{"% Used", M_USD, 1},
	{"Load", M_LOAD, 1},
	{"Adapter Q Depth", M_AQLEN, 1},
	{"World Q Depth", M_WQLEN, 1},
	{"Commands/sec", M_CMDS, 1},
	{"Reads/sec", M_READS, 1},
	{"Writes/sec", M_WRITES, 1},
	{"MBytes Read/sec", M_MBR, 1},
	{"MBytes Written/sec", M_MBW, 1},
	{"Aborts/sec", M_ABRTS, 1},
	{"Resets/sec", M_RESETS, 1},
	{"Failed Commands/sec", M_FAILED, 1},
	{"Split Commands/sec", M_SPLIT, 1},
	{"Reserves/sec", M_RESV, 1},
	{"Conflicts/sec", M_CONS, 1},
	{NULL, 0, 0},
};

static const struct counter_map esx_vdisk[] = {
	{"Commands/sec", M_CMDS, 1},
	{"Reads/sec", M_READS, 1},
	{"Writes/sec", M_WRITES, 1},
	{"MBytes Read/sec", M_MBR, 1},
	{"MBytes Written/sec", M_MBW, 1},
	{"Average MilliSec/Read", M_VD_LAT_R, 1},
	{"Average MilliSec/Write", M_VD_LAT_W, 1},
	{NULL, 0, 0},
};

/* "SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1" → "SQL01:scsi0:1" (and ":nvme0:1",
 * ":sata0:1": vdisk_ctrl) */
static void vdisk_name(const char *inst, char *out, size_t cap)
{
	const char *sc = vdisk_ctrl(inst);
	const char *uu = NULL;
	/* " (" + 36-character UUID + ")" right before the controller */
	if (sc && sc - inst > 39 && sc[-1] == ')' && sc[-38] == '(' && sc[-39] == ' ')
		uu = sc - 39;
	if (uu) {
		size_t a = (size_t)(uu - inst);
		class_copy(out, cap, inst, a);
		size_t o = strlen(out);
		class_copy(out + o, cap - o, sc, strlen(sc));
	} else {
		class_copy(out, cap, inst, strlen(inst));
	}
}

/* The Group Cpu counters kept of a VM: its CPU waits (esxtop's CPU view, summed over its worlds). */
static int group_metric(const char *counter)
{
	static const struct {
		const char *name;
		int metric;
	} g[] = {{"% Ready", M_RDY}, {"% CoStop", M_CSTP}, {"% Max Limited", M_MLMTD}, {"% Swap Wait", M_SWPWT}};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		if (strcmp(counter, g[i].name) == 0)
			return g[i].metric;
	return -1;
}

/* The host's memory (Memory, no instance) and a VM's (Group Memory(GID:VM)) [vmw "Interpreting
 * esxtop Statistics" §3]: free memory and the memory state (0 high, 1 soft, 2 hard, 3 low; 4
 * low on ESXi 6+ where clear is 1), the host's swap and balloon; a VM's swap-in (SWR/s) and
 * swap-out (SWW/s) rates, memory swapped (SWCUR) and its balloon (MCTLSZ). Names as esxtop -b
 * writes them, and the spellings seen in published batch captures. */
static const struct counter_map esx_host_mem[] = {
	{"Free MBytes", M_HMEM_FREE_MB, 1},
	{"Memory State", M_HMEM_STATE, 1},
	{"Swap MBytes Read/sec", M_HMEM_SWAP_R, 1},
	{"Swap MBytes Write/sec", M_HMEM_SWAP_W, 1},
	{"Memctl Current MBytes", M_HMEM_BALLOON, 1},
	{NULL, 0, 0},
};
static const struct counter_map esx_vm_mem[] = {
	{"Swap Read MBytes/sec", M_VM_SWAP_R, 1},
	{"Swap Written MBytes/sec", M_VM_SWAP_W, 1},
	{"Swapped MBytes", M_VM_SWAPPED, 1},
	{"Memctl MBytes", M_VM_BALLOON, 1},
	{NULL, 0, 0},
};

static int esxtop_classify(const struct pdh_path *p, struct counter_class *c)
{
	class_init(c);
	if (!p->ok)
		return -1;
	const char *o = p->object, *in = p->instance;
	if (!in && o[0] == 'M' && strcmp(o, "Memory") == 0) {
		c->layer = LAYER_VM; /* the host's: an io-path entity of the capture, no VM (capmodel.c) */
		class_copy(c->entity, sizeof c->entity, "_Total", 6);
		return c->metric = counter_lookup(esx_host_mem, p->counter, false, &c->scale);
	}
	if (!in)
		return -1;
	/* the first letter picks the group before any strcmp: a Vcpu column (half of a big host's)
	 * costs one strcmp, an Interrupt Cookie or Network Port column none, instead of six each */
	if (o[0] == 'P') {
		if (strcmp(o, "Physical Disk SCSI Device") == 0) {
			c->layer = LAYER_DEVICE;
			class_copy(c->entity, sizeof c->entity, in, strlen(in));
			return c->metric = counter_lookup(esx_disk, p->counter, false, &c->scale);
		}
		if (strcmp(o, "Physical Disk NFS Volume") == 0) {
			c->layer = LAYER_DEVICE;
			c->nfs = true;
			class_copy(c->entity, sizeof c->entity, in, strlen(in));
			return c->metric = counter_lookup(esx_disk, p->counter, false, &c->scale);
		}
		if (strcmp(o, "Physical Disk Adapter") == 0 || (strcmp(o, "Physical Disk") == 0 && !strchr(in, ':'))) {
			c->layer = LAYER_ADAPTER;
			class_copy(c->entity, sizeof c->entity, in, strlen(in));
			return c->metric = counter_lookup(esx_disk, p->counter, false, &c->scale);
		}
		if (strcmp(o, "Physical Disk Path") == 0) {
			/* "vmhba2:C0:T1:L3", or "<device>-vmhba2:C0:T1:L3": the device is then named */
			c->layer = LAYER_PATH;
			class_copy(c->entity, sizeof c->entity, in, strlen(in));
			const char *v = strstr(in, "-vmhba");
			if (v && v > in)
				class_copy(c->parent, sizeof c->parent, in, (size_t)(v - in));
			return c->metric = counter_lookup(esx_disk, p->counter, false, &c->scale);
		}
		if (strcmp(o, "Physical Disk Per-Device-Per-World") == 0) {
			/* "<device>-<world id>" */
			c->layer = LAYER_WORLD;
			class_copy(c->entity, sizeof c->entity, in, strlen(in));
			const char *dash = strrchr(in, '-');
			if (dash)
				class_copy(c->parent, sizeof c->parent, in, (size_t)(dash - in));
			return c->metric = counter_lookup(esx_disk, p->counter, false, &c->scale);
		}
	} else if (o[0] == 'V') {
		if (strcmp(o, "Virtual Disk") == 0 && vdisk_ctrl(in)) {
			c->layer = LAYER_VSCSI;
			vdisk_name(in, c->entity, sizeof c->entity);
			return c->metric = counter_lookup(esx_vdisk, p->counter, false, &c->scale);
		}
	} else if (o[0] == 'G') {
		int gm = strcmp(o, "Group Cpu") == 0 ? group_metric(p->counter) : -1;
		if (gm >= 0) {
			const char *colon = strchr(in, ':');
			if (!colon)
				return -1;
			c->layer = LAYER_VM;
			class_copy(c->entity, sizeof c->entity, colon + 1, vm_name_core(colon + 1, strlen(colon + 1)));
			return c->metric = gm;
		}
		const char *colon = strchr(in, ':');
		if (colon && strcmp(o, "Group Memory") == 0) {
			int mm = counter_lookup(esx_vm_mem, p->counter, false, &c->scale);
			if (mm < 0)
				return -1;
			c->layer = LAYER_VM;
			class_copy(c->entity, sizeof c->entity, colon + 1, vm_name_core(colon + 1, strlen(colon + 1)));
			return c->metric = mm;
		}
	}
	return -1;
}

/* ---- which Group Cpu groups are VMs ---- */

/* A world only a VM's group has: the VMX world and its helpers, "vmx", "vmx-vcpu-0:NAME",
 * "vmx-mks:NAME", "vmx-svga:NAME", "vmx-vthread-N" (ESXi 5 and later; the simulator also writes
 * "vmx:NAME"), "vmware-vmx" and the vCPUs' "vmm0:NAME" (ESX 3.5 and 4). */
static bool is_vmx_world(const char *w)
{
	if (strncmp(w, "vmx", 3) == 0 && (w[3] == '\0' || w[3] == '-' || w[3] == ':'))
		return true;
	if (strncmp(w, "vmware-vmx", 10) == 0 && (w[10] == '\0' || w[10] == ':'))
		return true;
	if (strncmp(w, "vmm", 3) == 0 && w[3] >= '0' && w[3] <= '9') {
		const char *q = w + 3;
		while (*q >= '0' && *q <= '9')
			q++;
		return *q == ':' || *q == '\0';
	}
	return false;
}

/* Groups of the host itself, by the names esxtop shows them under (ESXi 5-8), and the user-world
 * daemons' groups ("hostd" or "hostd.2099001"): the fallback for a capture that shows no world of
 * a group. */
static const char *const system_groups[] = {
	"host", "system", "idle", "helper", "drivers", "vmotion", "ft", "vim", "user", "iofilters", "opt",
	"hostd", "vpxa", "vpxa-worker", "fdm", "sfcb", "sfcbd", "slpd", "dcui", "sh", "ssh", "sshd",
	"busybox", "init", "vobd", "vmsyslogd", "rhttpproxy", "lwsmd", "ntpd", "snmpd", "nscd", "smartd",
	"storageRM", "sdrsInjector", "vmkiscsid", "net-lbt", "hostdCgiServer", "vsanvpd", "vsanmgmtd",
	"swapobjd", "openwsmand", "sensord", "lacpd", "vmfstraced", "settingsd", "envoy", "vsfwd", "nfcd",
	NULL,
};

static bool is_system_group(const char *name)
{
	for (size_t i = 0; system_groups[i]; i++) {
		size_t k = strlen(system_groups[i]);
		if (strncmp(name, system_groups[i], k) != 0)
			continue;
		const char *q = name + k;
		if (*q == '\0')
			return true;
		if (*q == '.' && q[1] >= '0' && q[1] <= '9') {
			while (*++q >= '0' && *q <= '9')
				;
			if (*q == '\0')
				return true;
		}
	}
	return false;
}

struct group {
	const char *inst;        /* "GID:NAME" (the column's, borrowed) */
	bool worlds, vmx;        /* the capture shows worlds of it; one of them is a VMX world */
};

static int group_cmp(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->inst, ((const struct group *)b)->inst);
}

/* The group of a Vcpu instance "GID:NAME:WID:WORLD" (NAME and WORLD may hold colons): each
 * split where ":WID:" could start is tried against the groups g[ng] (sorted). Sets *world. */
static struct group *vcpu_group(const char *in, struct group *g, size_t ng, const char **world)
{
	const char *c = strchr(in, ':');
	if (!c || c == in || !c[1])
		return NULL;
	for (const char *q = strchr(c + 2, ':'); q; q = strchr(q + 1, ':')) {
		const char *w = q + 1;
		while (*w >= '0' && *w <= '9')
			w++;
		size_t k = (size_t)(q - in);
		if (w == q + 1 || *w != ':' || k >= 256)
			continue;
		char key[256];
		memcpy(key, in, k);
		key[k] = '\0';
		struct group *hit = bsearch(&(struct group){.inst = key}, g, ng, sizeof *g, group_cmp);
		if (hit) {
			*world = w + 1;
			return hit;
		}
	}
	return NULL;
}

/* A group is a VM when the capture shows a VMX world in it (Vcpu columns); when it shows no world
 * of the group at all (no Vcpu columns, or an entity-filtered capture), unless its name is one of
 * the host's own groups. The % Ready of the others is skipped. */
static void esxtop_prepare(const struct reader *r, bool *skip)
{
	size_t n = reader_ncols(r), ng = 0;
	struct group *g = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		if (p->ok && p->instance && strcmp(p->object, "Group Cpu") == 0 && strcmp(p->counter, "% Ready") == 0) {
			if (!g)
				g = xmalloc(n * sizeof *g);
			g[ng++] = (struct group){.inst = p->instance};
		}
	}
	if (!ng)
		return;
	qsort(g, ng, sizeof *g, group_cmp);
	const char *prev = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		if (!p->ok || !p->instance || strcmp(p->object, "Vcpu") != 0)
			continue;
		if (prev && strcmp(prev, p->instance) == 0)
			continue; /* the next counter of the same world */
		prev = p->instance;
		const char *world;
		struct group *hit = vcpu_group(p->instance, g, ng, &world);
		if (hit) {
			hit->worlds = true;
			hit->vmx = hit->vmx || is_vmx_world(world);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		bool gmem = p->ok && p->instance && strcmp(p->object, "Group Memory") == 0;
		if (!p->ok || !p->instance ||
		    (!gmem && (strcmp(p->object, "Group Cpu") != 0 || group_metric(p->counter) < 0)))
			continue;
		const struct group *hit = bsearch(&(struct group){.inst = p->instance}, g, ng, sizeof *g, group_cmp);
		const char *colon = strchr(p->instance, ':');
		const char *name = colon ? colon + 1 : p->instance;
		skip[i] = hit && hit->worlds ? !hit->vmx : is_system_group(name);
	}
	free(g);
}

/* Vcpu(GID:VM:WID:WORLD): the VM and the world id (the first ":digits:" after the group id; a VM
 * name with such a run in it is not told apart); Per-Device-Per-World(DEVICE-WID): the id. */
static bool esxtop_world_of(const struct pdh_path *p, long *wid, char *vm, size_t vmcap)
{
	if (!p->ok || !p->instance)
		return false;
	const char *in = p->instance;
	if (strcmp(p->object, "Physical Disk Per-Device-Per-World") == 0) {
		const char *dash = strrchr(in, '-');
		char *end;
		if (!dash || !dash[1])
			return false;
		long w = strtol(dash + 1, &end, 10);
		if (*end)
			return false;
		*wid = w;
		vm[0] = '\0';
		return true;
	}
	if (strcmp(p->object, "Vcpu") != 0)
		return false;
	const char *c = strchr(in, ':');
	if (!c || c == in || !c[1])
		return false;
	for (const char *q = strchr(c + 2, ':'); q; q = strchr(q + 1, ':')) {
		const char *w = q + 1;
		while (*w >= '0' && *w <= '9')
			w++;
		if (w == q + 1 || *w != ':')
			continue;
		*wid = strtol(q + 1, NULL, 10);
		class_copy(vm, vmcap, c + 1, vm_name_core(c + 1, (size_t)(q - c - 1)));
		return true;
	}
	return false;
}

static bool esxtop_group_of(const struct pdh_path *p, long *gid, char *vm, size_t vmcap)
{
	if (!p->ok || !p->instance || strcmp(p->object, "Group Cpu") != 0)
		return false;
	char *end;
	long g = strtol(p->instance, &end, 10);
	if (end == p->instance || *end != ':' || !end[1])
		return false;
	*gid = g;
	class_copy(vm, vmcap, end + 1, vm_name_core(end + 1, strlen(end + 1)));
	return true;
}

static int esxtop_probe(const char *head, size_t n)
{
	if (!pdh_head_line(head, n, &head, &n))
		return 0;
	static const char sig[] = "(PDH-CSV 4.0) (UTC)(0)";
	const char *p = memmem(head, n < 4096 ? n : 4096, sig, sizeof sig - 1);
	if (!p)
		return 0;
	/* Objects only esxtop writes make it certain. */
	static const char *const objs[] = {"\\Physical Cpu(", "\\Memory\\", "\\Group Cpu(", "\\Vcpu(",
					   "\\Physical Disk", "\\Virtual Disk(", "\\Interrupt Cookie(", NULL};
	size_t lim = n < (1u << 20) ? n : (1u << 20);
	for (size_t i = 0; objs[i]; i++)
		if (memmem(head, lim, objs[i], strlen(objs[i])))
			return 95;
	return 70;
}

static int esxtop_header(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
			 struct diag *d)
{
	(void)o;
	(void)d;
	pdh_header_parse_bias(cell, len, hi);
	if (!hi->bias_known) {
		/* esxtop always writes UTC */
		hi->bias_known = true;
		hi->bias_min = 0;
		memcpy(hi->zone, "UTC", 4);
	}
	return 0;
}

const struct parser_ops parser_esxtop = {
	.name = "esxtop",
	.summary = "VMware esxtop/resxtop batch CSV (esxtop -b [-a]), UTC time stamps",
	.sample = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01\\Physical Disk SCSI Device(naa.6000)\\Commands/sec\"\n",
	.role = ROLE_HOST,
	.probe = esxtop_probe,
	.header = esxtop_header,
	.local_time = false,
	.glitch_values = false,
	.classify = esxtop_classify,
	.prepare = esxtop_prepare,
	.world_of = esxtop_world_of,
	.group_of = esxtop_group_of,
	.host = pdh_head_host,
	PDH_READER,
};
