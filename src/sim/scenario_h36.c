/* scenario_h36.c — scenarios beyond FC and SCSI (issue 36): one software iSCSI adapter whose
 * second bound vmknic is slow. Each builds its truth like the others (build.h). */
#include "build.h"

#include <math.h>
#include <stdio.h>

/* A host whose SAN LUNs all go through one software iSCSI adapter (vmhba64) bound to two vmknics:
 * every LUN has a path on channel C0 and one on C1 (round robin), sw iSCSI's LUN queue of 128. */
static struct sc_host iscsi_host(struct sim_config *c)
{
	struct sc_host h;
	snprintf(c->host, sizeof c->host, "esx01.lab.local");
	c->pcpus = 16;
	h.hba0 = sc_add_adapter(c, "vmhba0", 31, true);
	h.hba2 = h.hba3 = sc_add_adapter(c, "vmhba64", 1024, false);
	sc_add_local_boot(c, h.hba0);
	return h;
}

/* Software iSCSI with port binding: the vmknic of channel C1 (its uplink, switch port or MTU)
 * adds ~30 ms to every command through it over 20-90 % of the capture, while C0 answers in ~1 ms
 * on the same LUNs: one finding on vmhba64:C1, not three slow LUNs for the array. */
void sc_build_iscsi_vmknic(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = iscsi_host(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_set_load(s.c, 4, 20, 0.5, 8, 8);
	sc_set_load(s.d, 12, 8, 0.7, 8, 8);
	sc_set_load(s.f, 4, 10, 0.5, 64, 64);
	sc_bystander(c, &h);
	for (int d = 0; d < c->ndev; d++) {
		if (c->dev[d].local)
			continue;
		c->dev[d].dqlen = 128;
		c->dev[d].chan1_add_ms = 30;
		c->dev[d].chan1_t0 = 0.2;
		c->dev[d].chan1_t1 = 0.9;
	}
	sc_expect(c, "latency.path", "vmhba64:C1", NULL, 0.2, 0.9);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.hba", "latency.datastore", "path.change", NULL);
	c->tx.note = "every LUN's C1 path (the second vmknic) answers ~30 ms slower than its C0 path: a network "
		     "path inside the adapter, not the LUNs or the array";
}

/* A nightly export reads D: with 512 KiB IOs through one 8 Gb FC HBA: over 20-87 % of the hour the
 * export keeps ~32 reads outstanding and vmhba2 moves ~780 MiB/s, flat (8GFC's 800 MB/s per
 * direction), while DAVG rises from ~0.7 ms to ~20 ms; QUED 0. The LU is modelled as one server
 * whose transfer time per KiB is the link's (0.64 ms per 512 KiB): the capture cannot tell the
 * link from anything else that moves bytes at that rate, so the finding is a guess by the rate. */
void sc_build_hba_line_rate(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->s0_r = d->s0_w = 0.1;
	d->t_kib = (1000.0 / (800e6 / 1048576 * 2) - 0.1) / 504; /* 8GFC: 1,526 reads of 512 KiB per second */
	d->parallel = 1;
	sc_set_load(s.d, 1, 5, 1.0, 512, 64);
	sc_add_phase(s.d, 0.2, 0.87, 32, 0.5);
	sc_set_load(s.c, 1, 80, 0.4, 16, 8);
	sc_bystander(c, &h);
	sc_expect(c, "bandwidth.ceiling", c->adapter[h.hba2].name, NULL, 0.2, 0.87);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.hba", "latency.path", "queue.device_saturated", "latency.kernel",
		  "latency.datastore", NULL);
	c->tx.note = "MB/s flat at the 8 Gb link's rate while the outstanding reads and DAVG rise: the bytes are the "
		     "limit; no queue is full (QUED 0) and deeper queues would not help";
}

/* The null shape: a busy, healthy OLTP on one 16 Gb HBA — ~60,000 IOPS of 8 KiB (~470 MiB/s) at
 * ~0.5 ms over the busy phase. Not a bandwidth problem (29 % of 1,600 MB/s, latency flat). */
void sc_build_oltp_470(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	c->dev[s.dev_d].parallel = 96;
	sc_set_load(s.d, 8, 1, 0.7, 8, 8);
	sc_add_phase(s.d, 0.2, 0.85, 48, 0.3);
	sc_bystander(c, &h);
	sc_absent_all(c);
	c->tx.note =
		"470 MB/s of 8 KiB IOs is a busy OLTP, not a ceiling: MB/s follows the load and latency stays flat";
}

/* esxtop -d 300 and 5-minute perfmon over four hours: D:'s LUN answers ~50 ms for ten minutes at
 * the half (a hybrid array's cache destaging): one whole row and parts of two. A rule that counted five rows would
 * need 25 minutes; one row far above the threshold is a finding that says the sampling cannot
 * tell how long within it. */
void sc_build_coarse_300(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_set_load(s.d, 6, 8, 0.8, 8, 8);
	double t0 = 0.5, t1 = 0.5 + 600.0 / c->duration;
	sc_add_svc_phase(d, t0, t1, 15, 1);
	sc_bystander(c, &h);
	c->sql_counters = true;
	sc_expect(c, "latency.device", d->naa, NULL, t0, t1);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", t0, t1);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.hba", "latency.path", "bandwidth.ceiling", "latency.datastore", NULL);
	c->tx.note = "ten minutes of ~50 ms in two or three 300 s rows: a finding, with the sampling's limit said; "
		     "not 'brief spikes'";
}

/* SQL01's disks on a vNVMe controller (VM:nvme0:T, as esxtop and the VMX name them); D:'s LUN slow
 * (a hybrid array busy, DAVG ~25 ms) over 30-80 %: the disks map (by --map and by IOPS alike) and the
 * finding goes down the stack to the LUN, not "give the host's capture". */
void sc_build_vnvme(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_NVME, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_set_load(s.d, 6, 8, 0.8, 8, 8);
	sc_add_svc_phase(d, 0.3, 0.8, 6, 1);
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_expect(c, "latency.device", d->naa, NULL, 0.3, 0.8);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.3, 0.8);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.hba", "latency.path", "bandwidth.ceiling", "latency.datastore", "queue.guest_vscsi_cap",
		  NULL);
	c->tx.note = "virtual disks on a vNVMe controller (SQL01:nvme0:1): mapped like SCSI ones; the LUN is slow";
}

/* A snapshot storm on a LUN without VAAI ATS: over 40-60 % the backup's snapshots on other hosts
 * reserve D:'s LUN (~36 reservations/s, ~30 conflicts/s in esxtop -a) and every command waits
 * ~20 ms longer while it is held: reservation contention, not the array. */
void sc_build_reservation_storm(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_set_load(s.d, 6, 8, 0.8, 8, 8);
	double t0 = floor(0.4 * c->duration) + 0.5, t1 = floor(0.6 * c->duration) + 0.5;
	int k = sc_add_devev(c, s.dev_d, SIM_DEVEV_RESV, t0, t1, 20);
	if (k >= 0)
		c->devev[k].rate = 30;
	sc_bystander(c, &h);
	c->all_counters = true;
	sc_expect_abs(c, "scsi.reservation_conflict", c->dev[s.dev_d].naa, NULL, t0, t1);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.hba", "latency.path", "bandwidth.ceiling", "latency.datastore", NULL);
	c->tx.note = "the LUN answers slowly only while other hosts hold its reservation: the locks, not the array";
}

/* SQL01 with C: and D: (one disk each) and a volume over four disks (disks 2-5), each on its own LUN
 * through its own LSI Logic SAS controller target: a dynamic striped volume G: (perfmon lists each
 * member "N G:") or, spaces, a Storage Spaces virtual disk F: over the pool's letterless disks (the
 * space is disk 6, "6 F:"). The volume's IO is spread evenly: each member has the same load, whose
 * population steps up and down in phases (the volume's busy and quiet stretches). slow >= 0: that
 * member's LUN answers ~100 times slower over 30-80 %. Returns the members' first device. */
static int volume_vm(struct sim_config *c, struct sc_host *h, bool spaces, int slow)
{
	int vm = sc_add_vm(c, "SQL01", "SQL01", 8);
	int k0 = sc_add_ctrl(c, vm, 0, SIM_CTRL_PVSCSI), k1 = sc_add_ctrl(c, vm, 1, SIM_CTRL_LSI);
	struct sim_vdisk *cd = sc_add_vdisk(c, vm, k0, 0, sc_add_dev(c, h->hba2, 1, SC_ARRAY_FLASH), "C:", 0, 100);
	struct sim_vdisk *dd = sc_add_vdisk(c, vm, k0, 1, sc_add_dev(c, h->hba2, 2, SC_ARRAY_FLASH), "D:", 1, 1024);
	sc_set_load(cd, 1, 80, 0.4, 16, 8);
	sc_set_load(dd, 3, 10, 0.7, 8, 8);
	const char *drive = spaces ? "F:" : "G:";
	snprintf(c->vol_drive, sizeof c->vol_drive, "%s", drive);
	c->vol_spaces = spaces;
	c->vol_disk_no = 6;
	int dev0 = -1;
	for (int i = 0; i < 4; i++) {
		int d = sc_add_dev(c, i % 2 ? h->hba3 : h->hba2, 3 + i, SC_ARRAY_FLASH);
		dev0 = dev0 < 0 ? d : dev0;
		struct sim_vdisk *m = sc_add_vdisk(c, vm, k1, i, d, drive, 2 + i, 512);
		snprintf(m->vol, sizeof m->vol, "%s", drive);
		sc_set_load(m, 4, 30, 0.7, 8, 8);
		sc_add_phase(m, 0.1, 0.2, 12, 30);
		sc_add_phase(m, 0.25, 0.35, 1, 30);
		sc_add_phase(m, 0.45, 0.55, 12, 30);
		sc_add_phase(m, 0.6, 0.7, 1, 30);
		sc_add_phase(m, 0.85, 0.95, 12, 30);
		if (i == slow)
			sc_add_svc_phase(&c->dev[d], 0.3, 0.8, 100, 1);
	}
	sc_bystander(c, h);
	return dev0;
}

/* A volume over four member disks 2-5 whose disk 4's LUN answers ~38 ms over 30-80 % while the other
 * three answer in ~1 ms: the volume (vol) is slow because of one member, named as its cause. */
static void slow_member(struct sim_config *c, bool spaces, const char *vol, const char *note)
{
	struct sc_host h = sc_host_base(c);
	int dev0 = volume_vm(c, &h, spaces, 2);
	sc_expect(c, "latency.volume_member", vol, "SQL01", 0.3, 0.8);
	sc_expect(c, "latency.device", c->dev[dev0 + 2].naa, NULL, 0.3, 0.8);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.hba", "latency.path", "bandwidth.ceiling", "latency.datastore", "queue.guest_vscsi_cap",
		  NULL);
	c->tx.note = note;
}

/* A dynamic striped volume G: over disks 2-5 (perfmon '2 G:' .. '5 G:'). */
void sc_build_striped_slow_member(struct sim_config *c, int part)
{
	(void)part;
	slow_member(c, false, "G:",
		    "G: is striped over disks 2-5 (perfmon '2 G:' .. '5 G:'); only disk 4's LUN is slow: the member, "
		    "not the volume or the guest");
}

/* A Storage Spaces virtual disk F: (disk 6, "6 F:") over four letterless pool disks 2-5: tied to F: by
 * IOPS correlation (a guess). */
void sc_build_spaces_slow_member(struct sim_config *c, int part)
{
	(void)part;
	slow_member(c, true, "F:",
		    "F: is a Storage Spaces virtual disk over four pool disks without letters; only disk 4's LUN is "
		    "slow: tied by IOPS (a guess), the member named");
}

/* The null shape: the striped volume G: with its four members evenly loaded and healthy. */
void sc_build_striped_healthy(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	volume_vm(c, &h, false, -1);
	sc_absent_all(c);
	c->tx.note = "a striped volume whose members share its IO evenly and answer fast: nothing to report";
}
