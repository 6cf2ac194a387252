/* fmt_esxtop.c — the esxtop/resxtop batch-mode format (`esxtop -b [-a]`): probe, header and the
 * storage counters of the hypervisor layers (devices, adapters, worlds, virtual disks, VM CPU). */
#include "pdh.h"

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

/* "SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1" → "SQL01:scsi0:1" */
static void vdisk_name(const char *inst, char *out, size_t cap)
{
	const char *sc = strstr(inst, ":scsi");
	const char *uu = NULL;
	/* " (" + 36-character UUID + ")" right before ":scsi" */
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

static int esxtop_classify(const struct pdh_path *p, struct counter_class *c)
{
	class_init(c);
	if (!p->ok)
		return -1;
	const char *o = p->object, *in = p->instance;
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
		if (strcmp(o, "Physical Disk Adapter") == 0 || (strcmp(o, "Physical Disk") == 0 && !strchr(in, ':'))) {
			c->layer = LAYER_ADAPTER;
			class_copy(c->entity, sizeof c->entity, in, strlen(in));
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
		if (strcmp(o, "Virtual Disk") == 0 && strstr(in, ":scsi")) {
			c->layer = LAYER_VSCSI;
			vdisk_name(in, c->entity, sizeof c->entity);
			return c->metric = counter_lookup(esx_vdisk, p->counter, false, &c->scale);
		}
	} else if (o[0] == 'G') {
		if (strcmp(o, "Group Cpu") == 0 && strcmp(p->counter, "% Ready") == 0) {
			const char *colon = strchr(in, ':');
			if (!colon)
				return -1;
			c->layer = LAYER_VM;
			class_copy(c->entity, sizeof c->entity, colon + 1, strlen(colon + 1));
			return c->metric = M_RDY;
		}
	}
	return -1;
}

static int esxtop_probe(const char *head, size_t n)
{
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
	.role = ROLE_HOST,
	.probe = esxtop_probe,
	.header = esxtop_header,
	.local_time = false,
	.glitch_values = false,
	.classify = esxtop_classify,
	.open = pdh_open,
	.next = pdh_next,
	.value = pdh_value,
	.text = pdh_text,
	.close = pdh_close,
};
