/* fmt_hyperv.c — a Hyper-V host's perfmon (relog CSV/TSV, the same PDH framing and local time as
 * a guest's): the layers below a VM as the host counts them (doc/hyperv.md):
 *   Hyper-V Virtual Storage Device(<VHDX path, '\' written '-'>)  → LAYER_VSCSI, the VHDX
 *   Cluster CSVFS / Cluster CSVFS Redirected IO / Cluster CSV File System(<VolumeN>),
 *   SMB Client Shares(<\server\share>)                              → LAYER_VOLUME
 *   PhysicalDisk(<"2", "0 C:">)                                     → LAYER_DEVICE, a host disk
 *   Hyper-V Hypervisor Virtual Processor(<VM>:Hv VP <n>)            → LAYER_VM, the VM
 *   Hyper-V Hypervisor Logical Processor(_Total)                    → the host's CPUs
 * A file is this format when its header has one of the Hyper-V objects; a guest's perfmon never
 * has them. Latencies are written in seconds by relog (PERF_AVERAGE_TIMER counters), CPU Wait Time
 * Per Dispatch in nanoseconds [doc/hyperv-domain.md §2; windows_exporter]. */
#include "guestdisk.h"
#include "pdh.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct counter_map hv_vsd[] = {
	{"Read Operations/Sec", M_READS, 1},
	{"Write Operations/Sec", M_WRITES, 1},
	{"Read Bytes/sec", M_MBR, 1.0 / 1048576},
	{"Write Bytes/sec", M_MBW, 1.0 / 1048576},
	{"Latency", M_HV_LAT, 1000},
	{"Queue Length", M_HV_QL, 1},
	{"Lower Latency", M_HV_LOWER_LAT, 1000},
	{"Lower Queue Length", M_HV_LOWER_QL, 1},
	{NULL, 0, 0},
};

/* Cluster CSVFS (Windows Server 2016 and later) and SMB Client Shares: the volume's own view */
static const struct counter_map hv_csvfs[] = {
	{"Reads/sec", M_READS, 1},
	{"Writes/sec", M_WRITES, 1},
	{"Read Bytes/sec", M_MBR, 1.0 / 1048576},
	{"Write Bytes/sec", M_MBW, 1.0 / 1048576},
	{"Avg. sec/Read", M_H_LAT_R, 1000},
	{"Avg. sec/Write", M_H_LAT_W, 1000},
	{"Avg. Read Queue Length", M_H_ADQL, 1},
	{"Avg. Write Queue Length", M_H_ADQL, 1},
	{NULL, 0, 0},
};
static const struct counter_map hv_csv_redirected[] = {
	{"Reads/sec", M_CSV_REDIR_R, 1},
	{"Writes/sec", M_CSV_REDIR_W, 1},
	{NULL, 0, 0},
};
/* Cluster CSV File System (Windows Server 2012 R2): totals and the redirected share; its latency
 * counters' unit is not documented, so they are not read */
static const struct counter_map hv_csv_legacy[] = {
	{"Reads/sec", M_READS, 1},
	{"Writes/sec", M_WRITES, 1},
	{"Redirected Reads/sec", M_CSV_REDIR_R, 1},
	{"Redirected Writes/sec", M_CSV_REDIR_W, 1},
	{NULL, 0, 0},
};
static const struct counter_map hv_smb[] = {
	{"Read Requests/sec", M_READS, 1},
	{"Write Requests/sec", M_WRITES, 1},
	{"Read Bytes/sec", M_MBR, 1.0 / 1048576},
	{"Write Bytes/sec", M_MBW, 1.0 / 1048576},
	{"Avg. sec/Read", M_H_LAT_R, 1000},
	{"Avg. sec/Write", M_H_LAT_W, 1000},
	{"Current Data Queue Length", M_H_CDQL, 1},
	{NULL, 0, 0},
};
static const struct counter_map hv_vp[] = {
	{"CPU Wait Time Per Dispatch", M_HV_CPU_WAIT, 0.001}, /* ns → µs */
	{"% Guest Run Time", M_HV_VP_RUN, 1},
	{NULL, 0, 0},
};
static const struct counter_map hv_disk_bytes[] = {
	{"Disk Read Bytes/sec", M_MBR, 1.0 / 1048576},
	{"Disk Write Bytes/sec", M_MBW, 1.0 / 1048576},
	{NULL, 0, 0},
};

#define OBJ_VSD "Hyper-V Virtual Storage Device"
#define OBJ_VP "Hyper-V Hypervisor Virtual Processor"
#define OBJ_LP "Hyper-V Hypervisor Logical Processor"

static int take(struct counter_class *c, enum layer l, const char *entity, const struct counter_map *t,
		const char *counter)
{
	int mt = counter_lookup(t, counter, true, &c->scale);
	if (mt < 0)
		return -1;
	c->layer = l;
	class_copy(c->entity, sizeof c->entity, entity, strlen(entity));
	return c->metric = mt;
}

static int hyperv_classify(const struct pdh_path *p, struct counter_class *c)
{
	class_init(c);
	if (!p->ok || !p->instance)
		return -1;
	const char *o = p->object, *in = p->instance;
	bool total = strcasecmp(in, "_Total") == 0;
	if (strcasecmp(o, OBJ_VSD) == 0)
		return total ? -1 : take(c, LAYER_VSCSI, in, hv_vsd, p->counter);
	if (strcasecmp(o, "Cluster CSVFS") == 0) {
		if (total)
			return -1;
		int mt = take(c, LAYER_VOLUME, in, hv_csvfs, p->counter);
		if (mt == M_H_ADQL)
			c->combine = COMBINE_SUM; /* read + write queue */
		return mt;
	}
	if (strcasecmp(o, "Cluster CSVFS Redirected IO") == 0)
		return total ? -1 : take(c, LAYER_VOLUME, in, hv_csv_redirected, p->counter);
	if (strcasecmp(o, "Cluster CSV File System") == 0)
		return total ? -1 : take(c, LAYER_VOLUME, in, hv_csv_legacy, p->counter);
	if (strcasecmp(o, "SMB Client Shares") == 0)
		return total ? -1 : take(c, LAYER_VOLUME, in, hv_smb, p->counter);
	if (strcasecmp(o, OBJ_VP) == 0) {
		/* "SQL01:Hv VP 0": the VM is what precedes the last ":Hv VP" */
		const char *vp = NULL;
		for (const char *q = in; (q = strcasestr(q, ":Hv VP")) != NULL; q++)
			vp = q;
		if (total || !vp || vp == in)
			return -1;
		char vm[256];
		class_copy(vm, sizeof vm, in, (size_t)(vp - in));
		int mt = take(c, LAYER_VM, vm, hv_vp, p->counter);
		c->combine = COMBINE_MEAN;
		return mt;
	}
	if (strcasecmp(o, OBJ_LP) == 0) {
		if (!total || strcasecmp(p->counter, "% Total Run Time") != 0)
			return -1;
		c->layer = LAYER_VM;
		c->scale = 1;
		class_copy(c->entity, sizeof c->entity, "_Total", 6); /* kept apart (capmodel.c), not a VM */
		return c->metric = M_HV_LP_RUN;
	}
	char t1[256], t2[256];
	if (!perfmon_in_list(pm_physical, perfmon_utf8(o, t1, sizeof t1)) || total)
		return -1;
	/* a host disk: a LUN ("2": a CSV's disk has no drive letter), or a local disk holding VHDX
	 * files ("1 D:") */
	c->layer = LAYER_DEVICE;
	perfmon_physical_name(in, c->entity, sizeof c->entity);
	const char *ctr = perfmon_utf8(p->counter, t2, sizeof t2);
	int mt = counter_lookup(hv_disk_bytes, ctr, true, &c->scale);
	if (mt < 0)
		mt = counter_lookup(pm_disk_map, ctr, true, &c->scale);
	/* rates in the device vocabulary, latency and queue as the host's (not the guest's) */
	static const struct { int g, h; } to_host[] = {
		{M_G_XFERS, M_CMDS}, {M_G_READS, M_READS}, {M_G_WRITES, M_WRITES}, {M_G_LAT_R, M_H_LAT_R},
		{M_G_LAT_W, M_H_LAT_W}, {M_G_LAT_T, M_H_LAT_T}, {M_G_CDQL, M_H_CDQL}, {M_G_ADQL, M_H_ADQL},
	};
	int h = -1;
	for (size_t i = 0; i < sizeof to_host / sizeof to_host[0]; i++)
		if (to_host[i].g == mt)
			h = to_host[i].h;
	if (mt != M_MBR && mt != M_MBW)
		mt = h; /* sizes, split IO and bytes in all are not read */
	return c->metric = mt;
}

/* A Hyper-V object anywhere in the header line (the whole line is given), in any case
 * (PowerShell's Export-Counter writes the paths in lower case). */
static int hyperv_probe(const char *head, size_t n)
{
	if (!pdh_head_line(head, n, &head, &n))
		return 0;
	size_t lim = n < 4096 ? n : 4096;
	if (!memmem(head, lim, "(PDH-", 5))
		return 0;
	static const char *const objs[] = {"\\" OBJ_VSD "(", "\\" OBJ_VP "(", "\\Cluster CSVFS", NULL};
	for (const char *p = head, *end = head + n; (p = memchr(p, '\\', (size_t)(end - p))) != NULL; p++)
		for (size_t i = 0; objs[i]; i++) {
			size_t k = strlen(objs[i]);
			if ((size_t)(end - p) >= k && strncasecmp(p, objs[i], k) == 0)
				return 80;
		}
	return 0;
}

const struct parser_ops parser_hyperv = {
	.name = "hyperv",
	.summary = "a Hyper-V host's perfmon CSV/TSV (virtual storage devices, CSVs, host disks, virtual processors)",
	.sample = "\"(PDH-CSV 4.0) (Pacific Standard Time)(480)\","
		  "\"\\\\HV01\\" OBJ_VSD "(d.vhdx)\\Read Operations/Sec\"\n",
	.role = ROLE_HOST,
	.probe = hyperv_probe,
	.header = perfmon_header, /* the header cell's bias, as a guest's */
	.local_time = true,
	.glitch_values = true,
	.classify = hyperv_classify,
	.host = pdh_head_host,
	PDH_READER,
};
