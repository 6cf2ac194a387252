/* check_model.c — the capture model built from memory: classification into entities and metrics,
 * units, the derived active-world count, DQLEN change events, which esxtop groups are VMs,
 * perfmon's LogicalDisk over PhysicalDisk and disk numbers, one view of mount-point volumes and
 * letterless disks (and their disk maps), roles, failures recorded as failed captures, and the
 * inventory's listing order (objects, instances, counters sorted; equal to sorting every column). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "capmodel.h"
#include "inventory.h"
#include "json.h"
#include "json_out.h"
#include "maps.h"
#include "memcap.h"
#include "suites.h"
#include "text.h"

static struct common_opts quiet_opts(struct buf *msgs)
{
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = msgs};
	return co;
}

START_TEST(esxtop_entities_and_metrics)
{
	static const struct mcol c[] = {
		{"Physical Disk SCSI Device(naa.600a)\\Average Driver MilliSec/Command", mc_pulse, {2, 30, 10, 20}},
		{"Physical Disk SCSI Device(naa.600a)\\Device Q Depth", mc_pulse, {64, 32, 10, 12}},
		{"Physical Disk SCSI Device(naa.600a)\\Commands/sec", mc_konst, {500}},
		{"Physical Disk Per-Device-Per-World(naa.600a-1001)\\Commands/sec", mc_konst, {300}},
		{"Physical Disk Per-Device-Per-World(naa.600a-1002)\\Commands/sec", mc_pulse, {0, 200, 5, 30}},
		{"Virtual Disk(SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1)\\Average MilliSec/Read", mc_konst, {4}},
		{"Physical Disk Adapter(vmhba2)\\Active Commands", mc_konst, {12}},
		{"Group Cpu(1234:SQL01)\\% Ready", mc_konst, {1.5}},
		{"Group Cpu(1234:SQL01)\\% Used", mc_konst, {50}},
		{"Physical Cpu(0)\\% Util Time", mc_konst, {20}},
	};
	struct buf csv, msgs;
	buf_init(&csv);
	buf_init(&msgs);
	memcap(&csv, false, "esx01", c, (int)(sizeof c / sizeof c[0]), 40, 2);
	struct model m;
	model_init(&m);
	struct common_opts co = quiet_opts(&msgs);
	ck_assert_int_eq(model_add_capture_mem(&m, "mem.csv", csv.data, csv.len, &co), 0);
	const struct capture *cap = &m.caps[0];
	ck_assert_str_eq(cap->format, "esxtop");
	ck_assert_int_eq(cap->role, ROLE_HOST);
	ck_assert_str_eq(cap->host, "esx01");
	ck_assert_int_eq(cap->rows, 40);
	ck_assert(cap->interval_s == 2);
	struct entity *d = model_find(&m, LAYER_DEVICE, "naa.600a", NULL);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(entity_sk(d, M_DAVG)->n, 40);
	ck_assert(fabs(entity_sk(d, M_DAVG)->max - 30) < 1e-9);
	ck_assert(fabs(qs_quantile(entity_sk(d, M_DAVG), 0.5) - 2) < 0.05);
	/* two worlds drive the device while the second is active, one otherwise */
	ck_assert(d->series[M_WORLDS] >= 0);
	ck_assert(fabs(entity_sk(d, M_WORLDS)->max - 2) < 1e-9 && fabs(entity_sk(d, M_WORLDS)->min - 1) < 1e-9);
	/* DQLEN 64 → 32 at row 10, back to 64 at row 12: two exact change events */
	ck_assert_uint_eq(d->ndq, 2);
	ck_assert(d->dq[0].from == 64 && d->dq[0].to == 32 && d->dq[1].to == 64);
	ck_assert(d->dq_max == 64);
	/* the VM's UUID is not part of the virtual disk's name */
	ck_assert_ptr_nonnull(model_find(&m, LAYER_VSCSI, "SQL01:scsi0:1", NULL));
	ck_assert_ptr_nonnull(model_find(&m, LAYER_ADAPTER, "vmhba2", NULL));
	struct entity *vm = model_find(&m, LAYER_VM, "SQL01", NULL);
	ck_assert_ptr_nonnull(vm);
	ck_assert(vm->series[M_RDY] >= 0 && vm->series[M_USD] < 0); /* CPU %Used is not a storage %USD */
	ck_assert_ptr_null(model_find(&m, LAYER_WORLD, "naa.600a-1001", NULL)); /* worlds only feed the count */
	model_free(&m);
	buf_free(&csv);
	buf_free(&msgs);
}
END_TEST

START_TEST(perfmon_logical_over_physical)
{
	static const struct mcol c[] = {
		{"PhysicalDisk(1 D:)\\Avg. Disk sec/Read", mc_konst, {0.050}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.010}},
		{"PhysicalDisk(2 E:)\\Avg. Disk sec/Write", mc_konst, {0.004}},
		{"LogicalDisk(_Total)\\Avg. Disk sec/Read", mc_konst, {0.5}},
		{"LogicalDisk(d:)\\Disk Bytes/sec", mc_konst, {2097152}},
		{"Memory\\Available MBytes", mc_konst, {1000}},
	};
	struct buf csv, msgs;
	buf_init(&csv);
	buf_init(&msgs);
	memcap(&csv, true, "SQL01", c, (int)(sizeof c / sizeof c[0]), 20, 15);
	struct model m;
	model_init(&m);
	struct common_opts co = quiet_opts(&msgs);
	ck_assert_int_eq(model_add_capture_mem(&m, "pm.csv", csv.data, csv.len, &co), 0);
	ck_assert_int_eq(m.caps[0].role, ROLE_GUEST);
	struct entity *dd = model_find(&m, LAYER_GUEST, "D:", "SQL01");
	ck_assert_ptr_nonnull(dd);
	/* seconds became ms; LogicalDisk D: wins over PhysicalDisk "1 D:" */
	ck_assert(fabs(entity_sk(dd, M_G_LAT_R)->max - 10) < 1e-6);
	ck_assert(fabs(entity_sk(dd, M_G_MBPS)->max - 2) < 1e-4); /* bytes/s became MB/s, lower-case instance folded */
	struct entity *ee = model_find(&m, LAYER_GUEST, "E:", "SQL01");
	ck_assert_ptr_nonnull(ee);
	ck_assert(fabs(entity_sk(ee, M_G_LAT_W)->max - 4) < 1e-6);
	ck_assert_ptr_null(model_find(&m, LAYER_GUEST, "_TOTAL", NULL));
	/* wmic's "Disk #1" is drive D: on SQL01 */
	const struct guest_disk_no *dn = model_disk_no(&m, 1, "sql01");
	ck_assert_ptr_nonnull(dn);
	ck_assert_str_eq(dn->drive, "D:");
	ck_assert_ptr_null(model_disk_no(&m, 7, NULL));
	model_free(&m);
	buf_free(&csv);
	buf_free(&msgs);
}
END_TEST

static size_t count_vms(const struct model *m)
{
	size_t k = 0;
	for (size_t i = 0; i < m->nents; i++)
		k += m->ents[i].layer == LAYER_VM;
	return k;
}

/* Group Cpu exists for the host's own groups too: only a group the capture shows a VMX world in
 * (Vcpu columns, as ESXi 5+ and the simulator write them, or ESX 4's vmm0 worlds) is a VM; a group
 * without Vcpu columns is one unless its name is the host's own (system, helper, hostd.N, ...). */
START_TEST(esxtop_only_vm_groups_are_vms)
{
	static const struct mcol c[] = {
		{"Group Cpu(1:system)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(2:vim)\\% Ready", mc_konst, {0.2}},
		{"Group Cpu(5:helper)\\% Ready", mc_konst, {0.3}},
		{"Group Cpu(6:drivers)\\% Ready", mc_konst, {0.3}},
		{"Group Cpu(1234:SQL01)\\% Ready", mc_konst, {1.5}},
		{"Group Cpu(1234:SQL01)\\% Used", mc_konst, {50}},
		{"Group Cpu(2345:WEB01)\\% Ready", mc_konst, {2.5}},
		{"Group Cpu(3456:app:1:b)\\% Ready", mc_konst, {3.5}},
		{"Group Cpu(8000:NEWVM)\\% Ready", mc_konst, {4.5}},
		{"Group Cpu(9000:vmk-agent)\\% Ready", mc_konst, {0.1}},
		{"Vcpu(1:system:2097152:idle1)\\% Used", mc_konst, {90}},
		{"Vcpu(2:vim:2099001:hostd)\\% Used", mc_konst, {1}},
		{"Vcpu(2:vim:2099311:vpxa)\\% Ready", mc_konst, {1}},
		{"Vcpu(1234:SQL01:5001:vmx)\\% Used", mc_konst, {1}},
		{"Vcpu(1234:SQL01:5007:vmx-vcpu-0:SQL01)\\% Used", mc_konst, {40}},
		{"Vcpu(2345:WEB01:6001:vmm0:WEB01)\\% Used", mc_konst, {30}},
		{"Vcpu(3456:app:1:b:7000:vmx)\\% Used", mc_konst, {1}},
		{"Vcpu(9000:vmk-agent:9001:vmk-agent)\\% Used", mc_konst, {1}},
		{"Physical Disk SCSI Device(naa.600a)\\Commands/sec", mc_konst, {500}},
	};
	struct buf csv, msgs;
	buf_init(&csv);
	buf_init(&msgs);
	memcap(&csv, false, "esx01", c, (int)(sizeof c / sizeof c[0]), 10, 5);
	struct model m;
	model_init(&m);
	struct common_opts co = quiet_opts(&msgs);
	ck_assert_int_eq(model_add_capture_mem(&m, "mem.csv", csv.data, csv.len, &co), 0);
	static const char *const vms[] = {"SQL01", "WEB01", "app:1:b", "NEWVM"};
	for (size_t i = 0; i < 4; i++) {
		struct entity *vm = model_find(&m, LAYER_VM, vms[i], NULL);
		ck_assert_msg(vm != NULL, "%s is a VM", vms[i]);
		ck_assert(vm->series[M_RDY] >= 0);
	}
	ck_assert(fabs(entity_sk(model_find(&m, LAYER_VM, "app:1:b", NULL), M_RDY)->max - 3.5) < 1e-9);
	ck_assert_uint_eq(count_vms(&m), 4); /* not system, vim, helper, drivers, vmk-agent */
	ck_assert_ptr_nonnull(model_find(&m, LAYER_DEVICE, "naa.600a", NULL));
	model_free(&m);

	/* no Vcpu columns at all: the host's own group names are not VMs */
	static const struct mcol c2[] = {
		{"Group Cpu(0:host)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(1:system)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(2:idle)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(4:ft)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(9:vmotion)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(2099001:hostd.2099001)\\% Ready", mc_konst, {0.1}},
		{"Group Cpu(1234:SQL01)\\% Ready", mc_konst, {1.5}},
		{"Group Cpu(1235:hostdb01)\\% Ready", mc_konst, {1.5}},
	};
	memcap(&csv, false, "esx01", c2, (int)(sizeof c2 / sizeof c2[0]), 10, 5);
	model_init(&m);
	ck_assert_int_eq(model_add_capture_mem(&m, "mem2.csv", csv.data, csv.len, &co), 0);
	ck_assert_ptr_nonnull(model_find(&m, LAYER_VM, "SQL01", NULL));
	ck_assert_ptr_nonnull(model_find(&m, LAYER_VM, "hostdb01", NULL));
	ck_assert_uint_eq(count_vms(&m), 2);
	model_free(&m);
	buf_free(&csv);
	buf_free(&msgs);
}
END_TEST

START_TEST(failures_are_recorded)
{
	struct buf msgs;
	buf_init(&msgs);
	struct common_opts co = quiet_opts(&msgs);
	struct model m;
	model_init(&m);
	static const char junk[] = "this is not a capture\nat all\n";
	ck_assert_int_lt(model_add_capture_mem(&m, "junk.txt", junk, sizeof junk - 1, &co), 0);
	static const char header_only[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Physical Disk SCSI Device(naa.1)\\Commands/sec\",\n";
	ck_assert_int_eq(model_add_capture_mem(&m, "hdr.csv", header_only, sizeof header_only - 1, &co), ERR_FORMAT);
	ck_assert_uint_eq(m.ncaps, 2);
	ck_assert(m.caps[0].failed < 0 && m.caps[1].failed == ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(msgs.data, "junk.txt"));
	ck_assert_ptr_nonnull(strstr(msgs.data, "hdr.csv: error: no complete data row"));
	model_free(&m);
	buf_free(&msgs);
}
END_TEST

/* A column of the listing: object, instance, counter. */
struct lref {
	const char *obj, *inst, *ctr;
};

static int lref_cmp(const void *a, const void *b)
{
	const struct lref *x = a, *y = b;
	int c = strcmp(x->obj, y->obj);
	if (!c)
		c = (!x->inst || !y->inst) ? (x->inst != NULL) - (y->inst != NULL) : strcmp(x->inst, y->inst);
	if (!c)
		c = strcmp(x->ctr, y->ctr);
	return c;
}

/* The inventory lists objects, instances and counters in sorted order however the header mixes
 * them (an instance's columns apart, duplicates, instances with the same or other counters): the
 * order and counts of sorting every column at once. */
START_TEST(inventory_order)
{
	static const char *const objs[] = {"Vcpu", "Memory", "Group Cpu", "Physical Cpu", "Vcpu"};
	static const char *const insts[] = {"1:a", "2:b", "10:c", "1:a b", NULL};
	static const char *const ctrs[] = {"% Used", "% Run", "% Wait", "% Ready", "Members", "% Used"};
	uint64_t x = 12345;
	for (int round = 0; round < 40; round++) {
		int n = 1 + round * 3;
		struct mcol *c = calloc((size_t)n, sizeof *c);
		struct lref *ref = calloc((size_t)n, sizeof *ref);
		char (*paths)[96] = calloc((size_t)n, sizeof *paths);
		ck_assert(c && ref && paths);
		for (int i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			/* mostly runs of one object and instance, sometimes a jump back */
			size_t o = (size_t)(x >> 60) % 5, k = (size_t)(x >> 50) % 5, t = (size_t)(x >> 40) % 6;
			if (i > 0 && (x >> 33) % 4 != 0) {
				o = (size_t)(i / 7) % 5;
				k = (size_t)(i / 3) % 5;
			}
			ref[i] = (struct lref){objs[o], insts[k], ctrs[t]};
			if (insts[k])
				snprintf(paths[i], sizeof paths[i], "%s(%s)\\%s", objs[o], insts[k], ctrs[t]);
			else
				snprintf(paths[i], sizeof paths[i], "%s\\%s", objs[o], ctrs[t]);
			c[i] = (struct mcol){paths[i], mc_konst, {1}};
		}
		struct buf csv, msgs;
		buf_init(&csv);
		buf_init(&msgs);
		memcap(&csv, false, "esx01", c, n, 3, 2);
		struct common_opts co = quiet_opts(&msgs);
		struct input in;
		ck_assert_int_eq(input_open_mem(&in, "t.csv", csv.data, csv.len, &co), 0);
		struct inventory inv;
		ck_assert_int_eq(inventory_build(&inv, &in, NULL, &in.diag), 0);
		qsort(ref, (size_t)n, sizeof *ref, lref_cmp);
		/* walk the sorted reference alongside the listing */
		size_t i = 0;
		for (size_t ob = 0; ob < inv.nobjs; ob++) {
			const struct inv_object *io = &inv.objs[ob];
			size_t first = i, distinct = 0;
			for (size_t ii = 0; ii < io->ninst; ii++) {
				const struct inv_instance *is = &io->inst[ii];
				for (size_t ci = 0; ci < is->ncounters; ci++, i++) {
					ck_assert_uint_lt(i, (size_t)n);
					ck_assert_str_eq(io->name, ref[i].obj);
					ck_assert(is->name ? ref[i].inst && strcmp(is->name, ref[i].inst) == 0 : !ref[i].inst);
					ck_assert_str_eq(is->counters[ci], ref[i].ctr);
				}
			}
			ck_assert_uint_eq(io->ncols, i - first);
			for (size_t q = first; q < i; q++) {
				bool seen = false;
				for (size_t r = first; r < q && !seen; r++)
					seen = strcmp(ref[r].ctr, ref[q].ctr) == 0;
				distinct += !seen;
			}
			ck_assert_uint_eq(io->ncounters, distinct);
		}
		ck_assert_uint_eq(i, (size_t)n);
		inventory_free(&inv);
		input_close(&in);
		buf_free(&csv);
		buf_free(&msgs);
		free(c);
		free(ref);
		free(paths);
	}
}
END_TEST

/* The guest disks of host (NULL: any) in the model, "|"-joined in entity order (aggregates left
 * out), e.g. "C:|E:\SQLDATA". */
static const char *guest_names(const struct model *m, const char *host)
{
	static char out[512];
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->layer != LAYER_GUEST || e->aggregate || (host && strcmp(e->host, host) != 0))
			continue;
		int k = snprintf(out + o, sizeof out - o, "%s%s", o ? "|" : "", e->name);
		if (k > 0 && (size_t)k < sizeof out - o)
			o += (size_t)k;
	}
	return out;
}

static void load_pm(struct model *m, const struct mcol *c, int n, struct buf *msgs)
{
	struct buf csv;
	buf_init(&csv);
	memcap(&csv, true, "SQL01", c, n, 20, 15);
	struct common_opts co = quiet_opts(msgs);
	ck_assert_int_eq(model_add_capture_mem(m, "pm.csv", csv.data, csv.len, &co), 0);
	buf_free(&csv);
}

/* A volume mounted in a folder is one guest disk: LogicalDisk(E:\SQLDATA), not again as the
 * letterless PhysicalDisk(1) the same IOs are counted on; without LogicalDisk, PhysicalDisk is the
 * only view and every disk stays. */
START_TEST(perfmon_mount_point_once)
{
	static const struct mcol c[] = {
		{"LogicalDisk(C:)\\Avg. Disk sec/Read", mc_konst, {0.002}},
		{"LogicalDisk(C:)\\Disk Transfers/sec", mc_konst, {50}},
		{"LogicalDisk(E:\\SQLDATA)\\Avg. Disk sec/Read", mc_konst, {0.020}},
		{"LogicalDisk(E:\\SQLDATA)\\Disk Transfers/sec", mc_konst, {800}},
		{"LogicalDisk(_Total)\\Disk Transfers/sec", mc_konst, {850}},
		{"PhysicalDisk(0 C:)\\Avg. Disk sec/Read", mc_konst, {0.003}},
		{"PhysicalDisk(0 C:)\\Current Disk Queue Length", mc_konst, {1}},
		{"PhysicalDisk(1)\\Avg. Disk sec/Read", mc_konst, {0.020}},
		{"PhysicalDisk(1)\\Disk Transfers/sec", mc_konst, {800}},
		{"PhysicalDisk(1)\\Current Disk Queue Length", mc_konst, {12}},
		{"PhysicalDisk(_Total)\\Disk Transfers/sec", mc_konst, {850}},
	};
	struct buf msgs;
	buf_init(&msgs);
	struct model m;
	model_init(&m);
	load_pm(&m, c, (int)(sizeof c / sizeof c[0]), &msgs);
	ck_assert_str_eq(guest_names(&m, NULL), "C:|E:\\SQLDATA");
	struct entity *e = model_find(&m, LAYER_GUEST, "E:\\SQLDATA", "SQL01");
	ck_assert_ptr_nonnull(e);
	ck_assert(fabs(entity_sk(e, M_G_LAT_R)->max - 20) < 1e-6 && fabs(entity_sk(e, M_G_XFERS)->max - 800) < 1e-6);
	ck_assert(e->series[M_G_CDQL] < 0); /* the letterless disk's queue is not the volume's */
	struct entity *cc = model_find(&m, LAYER_GUEST, "C:", "SQL01");
	ck_assert(fabs(entity_sk(cc, M_G_LAT_R)->max - 2) < 1e-6); /* LogicalDisk C: wins ... */
	ck_assert(fabs(entity_sk(cc, M_G_CDQL)->max - 1) < 1e-6); /* ... PhysicalDisk "0 C:" fills what it lacks */
	/* the disk-number → drive table still has disk 0 (for wmic's "Disk #0") */
	const struct guest_disk_no *dn = model_disk_no(&m, 0, "SQL01");
	ck_assert_ptr_nonnull(dn);
	ck_assert_str_eq(dn->drive, "C:");
	ck_assert_ptr_null(model_disk_no(&m, 1, NULL));
	model_free(&m);

	/* the same capture without LogicalDisk: "0 C:" and "1" are the only views, both kept */
	model_init(&m);
	load_pm(&m, c + 5, 6, &msgs);
	ck_assert_str_eq(guest_names(&m, NULL), "C:|Disk 1");
	e = model_find(&m, LAYER_GUEST, "Disk 1", "SQL01");
	ck_assert(fabs(entity_sk(e, M_G_CDQL)->max - 12) < 1e-6);
	ck_assert_str_eq(model_disk_no(&m, 0, NULL)->drive, "C:");
	model_free(&m);
	buf_free(&msgs);
}
END_TEST

/* HarddiskVolume5 (no letter, no mount path) and a volume GUID are letterless volumes as well;
 * LogicalDisk with drive letters only says nothing about a letterless disk (offline, raw), nor
 * does a LogicalDisk mount point with no IO counter (% Free Space only): then it stays. */
START_TEST(perfmon_letterless_volumes)
{
	struct buf msgs;
	buf_init(&msgs);
	struct model m;
	static const struct mcol hv[] = {
		{"LogicalDisk(C:)\\Disk Transfers/sec", mc_konst, {50}},
		{"LogicalDisk(HarddiskVolume5)\\Disk Transfers/sec", mc_konst, {300}},
		{"PhysicalDisk(0 C:)\\Disk Transfers/sec", mc_konst, {50}},
		{"PhysicalDisk(1)\\Disk Transfers/sec", mc_konst, {300}},
	};
	model_init(&m);
	load_pm(&m, hv, 4, &msgs);
	ck_assert_str_eq(guest_names(&m, NULL), "C:|HarddiskVolume5");
	model_free(&m);

	static const struct mcol guid[] = {
		{"LogicalDisk(\\\\?\\Volume{6a1e3c2b-0000-0000-0000-100000000000}\\)\\Disk Transfers/sec", mc_konst, {300}},
		{"PhysicalDisk(3)\\Disk Transfers/sec", mc_konst, {300}},
	};
	model_init(&m);
	load_pm(&m, guid, 2, &msgs);
	ck_assert_str_eq(guest_names(&m, NULL), "\\\\?\\Volume{6a1e3c2b-0000-0000-0000-100000000000}");
	model_free(&m);

	static const struct mcol letters[] = {
		{"LogicalDisk(C:)\\Disk Transfers/sec", mc_konst, {50}},
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_konst, {300}},
		{"LogicalDisk(E:\\SQLDATA)\\% Free Space", mc_konst, {40}},
		{"PhysicalDisk(0 C:)\\Disk Transfers/sec", mc_konst, {50}},
		{"PhysicalDisk(1 D:)\\Disk Transfers/sec", mc_konst, {300}},
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_konst, {90}},
	};
	model_init(&m);
	load_pm(&m, letters, 6, &msgs);
	ck_assert_str_eq(guest_names(&m, NULL), "C:|D:|Disk 2");
	ck_assert_str_eq(model_disk_no(&m, 1, "SQL01")->drive, "D:");
	model_free(&m);
	buf_free(&msgs);
}
END_TEST

/* relog merges machines into one file: a mount point on SQL01 says nothing about SQL02's disks. */
START_TEST(perfmon_mount_point_per_host)
{
	static const char csv[] =
		"\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\","
		"\"\\\\SQL01\\LogicalDisk(E:\\SQLDATA)\\Disk Transfers/sec\",\"\\\\SQL01\\PhysicalDisk(1)\\Disk Transfers/sec\","
		"\"\\\\SQL02\\LogicalDisk(D:)\\Disk Transfers/sec\",\"\\\\SQL02\\PhysicalDisk(1)\\Disk Transfers/sec\"\r\n"
		"\"07/27/2026 13:00:00.000\",\"100\",\"100\",\"200\",\"50\"\r\n"
		"\"07/27/2026 13:00:15.000\",\"110\",\"110\",\"210\",\"55\"\r\n";
	struct buf msgs;
	buf_init(&msgs);
	struct common_opts co = quiet_opts(&msgs);
	struct model m;
	model_init(&m);
	ck_assert_int_eq(model_add_capture_mem(&m, "two.csv", csv, sizeof csv - 1, &co), 0);
	ck_assert_str_eq(guest_names(&m, "SQL01"), "E:\\SQLDATA");
	ck_assert_str_eq(guest_names(&m, "SQL02"), "D:|Disk 1");
	model_free(&m);
	buf_free(&msgs);
}
END_TEST

/* Mount-point disks are mapped like drive letters: by IOPS correlation (auto_map) and by --map
 * lines "SQL01\E:\SQLDATA = ..."; the letterless PhysicalDisk under them is never mapped, and the
 * outputs carry the name as it is (JSON-escaped). */
static void load_mounts(struct analysis *a, const char *map_text, struct buf *msgs)
{
	static const struct mcol host[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:2)\\Commands/sec", mc_wave, {300, 200, 2.3}},
		{"Virtual Disk(SQL01:scsi0:2)\\Average MilliSec/Read", mc_konst, {2}},
	};
	static const struct mcol guest[] = {
		{"LogicalDisk(E:)\\Disk Transfers/sec", mc_konst, {0}},
		{"LogicalDisk(E:\\SQLDATA)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(E:\\SQLDATA)\\Avg. Disk sec/Read", mc_konst, {0.060}},
		{"LogicalDisk(E:\\SQLLOG)\\Disk Transfers/sec", mc_wave, {300, 200, 2.3}},
		{"PhysicalDisk(1)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"PhysicalDisk(1)\\Avg. Disk sec/Read", mc_konst, {0.060}},
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_wave, {300, 200, 2.3}},
		{"PhysicalDisk(3 E:)\\Disk Transfers/sec", mc_konst, {0}},
	};
	struct buf h, g;
	buf_init(&h);
	buf_init(&g);
	struct common_opts co = quiet_opts(msgs);
	memcap(&h, false, "esx01", host, 3, 200, 2);
	memcap(&g, true, "SQL01", guest, 8, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx.csv", h.data, h.len, &co), 0);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "pm.csv", g.data, g.len, &co), 0);
	if (map_text) {
		char p[64] = "/tmp/iopsy-mnt-XXXXXX";
		int fd = mkstemp(p);
		ck_assert_int_ge(fd, 0);
		ck_assert(write(fd, map_text, strlen(map_text)) == (ssize_t)strlen(map_text));
		close(fd);
		struct diskmap dm;
		ck_assert_int_eq(diskmap_read(&dm, p, DIAG_INTO(msgs)), 0);
		analysis_use_diskmap(a, &dm, "m.map");
		diskmap_free(&dm);
		unlink(p);
	}
	a->sink = co.sink;
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&h);
	buf_free(&g);
}

static const struct diskmap_entry *map_of(const struct analysis *a, const char *disk)
{
	for (size_t i = 0; i < a->nmap; i++)
		if (strcmp(a->map[i].guest_disk, disk) == 0)
			return &a->map[i];
	return NULL;
}

START_TEST(mount_point_maps)
{
	struct buf msgs;
	buf_init(&msgs);
	struct analysis a;
	analysis_init(&a);
	load_mounts(&a, NULL, &msgs);
	ck_assert_str_eq(guest_names(&a.m, NULL), "E:|E:\\SQLDATA|E:\\SQLLOG");
	const struct diskmap_entry *d = map_of(&a, "E:\\SQLDATA"), *l = map_of(&a, "E:\\SQLLOG");
	ck_assert_ptr_nonnull(d);
	ck_assert(d->automatic && d->correlation >= 0.7);
	ck_assert_str_eq(d->vdisk, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->vdisk, "SQL01:scsi0:2");
	ck_assert_ptr_null(map_of(&a, "Disk 1"));
	struct topo_in ti = analysis_topo(&a);
	struct stack s;
	topology_stack(&ti, model_find(&a.m, LAYER_GUEST, "E:\\SQLDATA", "SQL01"), &s);
	ck_assert_ptr_nonnull(s.vdisk);
	ck_assert_str_eq(s.vdisk->name, "SQL01:scsi0:1");
	/* the 60 ms reads are a finding on SQL01 E:\SQLDATA, once */
	size_t on = 0;
	for (size_t i = 0; i < a.nf; i++)
		if (strcmp(kinds[a.f[i].kind].name, "latency.guest_read") == 0) {
			ck_assert_str_eq(a.f[i].entity, "E:\\SQLDATA");
			ck_assert_str_eq(a.f[i].host, "SQL01");
			on++;
		}
	ck_assert_uint_eq(on, 1);
	struct buf out;
	buf_init(&out);
	analysis_text(&a, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "SQL01 E:\\SQLDATA"));
	ck_assert_ptr_nonnull(strstr(out.data, "SQL01\\E:\\SQLDATA = SQL01:scsi0:1"));
	buf_reset(&out);
	struct json j;
	json_init(&j, &out, false);
	analysis_json(&a, &j);
	ck_assert_ptr_nonnull(strstr(out.data, "\"E:\\\\SQLDATA\""));
	buf_free(&out);
	analysis_free(&a);

	/* --map: the file's line wins over the correlation, and names no disk "not in the captures" */
	buf_reset(&msgs);
	analysis_init(&a);
	load_mounts(&a, "SQL01\\e:\\sqldata\\ = SQL01:scsi0:1\nE:\\SQLLOG = SQL01:scsi0:2\n", &msgs);
	d = map_of(&a, "E:\\SQLDATA");
	l = map_of(&a, "E:\\SQLLOG");
	ck_assert_ptr_nonnull(d);
	ck_assert(!d->automatic);
	ck_assert_str_eq(d->guest_host, "SQL01");
	ck_assert_ptr_nonnull(l);
	ck_assert(!l->automatic && !l->guest_host);
	ck_assert_uint_eq(a.nmap, 2); /* nothing left to correlate */
	ti = analysis_topo(&a);
	topology_stack(&ti, model_find(&a.m, LAYER_GUEST, "E:\\SQLLOG", "SQL01"), &s);
	ck_assert_ptr_eq(s.map, l);
	ck_assert_ptr_null(msgs.data ? strstr(msgs.data, "not in the captures") : NULL);
	analysis_free(&a);
	buf_free(&msgs);
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *t = tcase_create("memory");
	tcase_add_test(t, esxtop_entities_and_metrics);
	tcase_add_test(t, perfmon_logical_over_physical);
	tcase_add_test(t, perfmon_mount_point_once);
	tcase_add_test(t, perfmon_letterless_volumes);
	tcase_add_test(t, perfmon_mount_point_per_host);
	tcase_add_test(t, mount_point_maps);
	tcase_add_test(t, esxtop_only_vm_groups_are_vms);
	tcase_add_test(t, failures_are_recorded);
	tcase_add_test(t, inventory_order);
	suite_add_tcase(s, t);
	return s;
}
