/* extras.c — the side files of a simulated capture set: vmkernel.log (doc/domain.md §3 line shapes),
 * partitions.txt (as `wmic partition get BlockSize, StartingOffset, Name, Index, SystemName` prints it),
 * disks.map (guest disk = virtual disk) and truth.json (what a correct analysis must report). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "json.h"
#include "kinds.h"
#include "out.h"
#include "util.h"

static void short_host(const char *name, char *out, size_t n)
{
	size_t k = 0;
	while (name[k] && name[k] != '.' && k + 1 < n) {
		out[k] = name[k];
		k++;
	}
	out[k] = 0;
}

/* One vmkernel.log line at time t (seconds since start). */
static void vmk_line(struct sim_out *o, const struct sim_config *c, const char *hostname, double t, int cpu,
		     int world, const char *text)
{
	char host[64], line[1024];
	short_host(hostname, host, sizeof host);
	struct sim_tm tm;
	sim_time_split(c->start_ms + (int64_t)floor(t * 1000.0), &tm);
	int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s vmkernel: cpu%d:%d)%s\n", tm.year,
			 tm.mon, tm.day, tm.hour, tm.min, tm.sec, tm.ms, host, cpu, world, text);
	if (n > 0)
		sim_out_write(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void sim_capture_name(const struct sim_config *c, int h, char *out, size_t n)
{
	char sh[64];
	short_host(sim_host_name(c, h), sh, sizeof sh);
	if (sim_nhosts(c) > 1)
		snprintf(out, n, "esxtop-%s.csv%s", sh, c->gzip ? ".gz" : "");
	else
		snprintf(out, n, "esxtop.csv%s", c->gzip ? ".gz" : "");
}

void sim_vmklog_name(const struct sim_config *c, int h, char *out, size_t n)
{
	char sh[64];
	short_host(sim_host_name(c, h), sh, sizeof sh);
	if (sim_nhosts(c) > 1)
		snprintf(out, n, "vmkernel-%s.log", sh);
	else
		snprintf(out, n, "vmkernel.log");
}

/* Event order for the log: the model appends events step by step; the newer event kinds (path
 * failover, a second host) can land slightly out of order within a step, so those logs are
 * sorted (stably) by time. */
struct ev_ord {
	const struct sim_event *e;
	size_t i;
};

static int ev_cmp(const void *a, const void *b)
{
	const struct ev_ord *x = a, *y = b;
	if (x->e->t != y->e->t)
		return x->e->t < y->e->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int sim_write_vmklog(const struct sim_config *c, const struct sim_model *m, int host, const char *path)
{
	struct ev_ord *ord = malloc((m->nev ? m->nev : 1) * sizeof *ord);
	if (!ord)
		return ERR_NOMEM;
	size_t nev = 0;
	for (size_t k = 0; k < m->nev; k++)
		if (c->dev[m->ev[k].dev].host == host)
			ord[nev++] = (struct ev_ord){&m->ev[k], k};
	if (c->ndevev > 0 || sim_nhosts(c) > 1)
		qsort(ord, nev, sizeof *ord, ev_cmp);
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc) {
		free(ord);
		return rc;
	}
	const char *hostname = sim_host_name(c, host);
	struct prng r;
	prng_seed(&r, c->seed, 11 + 16 * (uint64_t)c->part + 1000 * (uint64_t)host);
	/* Benign noise every few minutes: the ATA pass-through probe of the boot device fails with a
	 * CHECK CONDITION (D:0x2) — a line a QUEUE FULL parser must not count. */
	double next_benign = 20 + 200 * prng_uniform(&r);
	const char *boot = c->ndev ? c->dev[0].naa : "mpx.vmhba0:C0:T0:L0";
	for (int d = 0; host > 0 && d < c->ndev; d++)
		if (c->dev[d].local && c->dev[d].host == host) {
			boot = c->dev[d].naa;
			break;
		}
	char text[768];
	unsigned cmdsn = 0x8000006a;
	size_t i = 0;
	double last_nmp = -1e9;
	while (i < nev || next_benign < c->duration) {
		bool take_event = i < nev && (next_benign >= c->duration || ord[i].e->t <= next_benign);
		if (!take_event) {
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 4124: Cmd(0x45d98aee%04x) 0x85, CmdSN 0x%x from world 2098291 to dev \"%s\" "
				 "failed H:0x0 D:0x2 P:0x0 Valid sense data: 0x5 0x20 0x0.",
				 prng_below(&r, 0x10000), 0x2d4 + prng_below(&r, 4000), boot);
			vmk_line(&o, c, hostname, next_benign, (int)prng_below(&r, (uint32_t)c->pcpus), 2098291, text);
			snprintf(text, sizeof text,
				 "NMP: nmp_ResetDeviceLogThrottling:3776: last error status from device %s repeated 1 times",
				 boot);
			vmk_line(&o, c, hostname, next_benign + 0.4, (int)prng_below(&r, (uint32_t)c->pcpus), 2097594, text);
			next_benign += 120 + 480 * prng_uniform(&r);
			continue;
		}
		const struct sim_event *e = ord[i++].e;
		const struct sim_dev *d = &c->dev[e->dev];
		int world = e->vm >= 0 ? c->vm[e->vm].wid : 2097190;
		int cpu = (int)prng_below(&r, (uint32_t)c->pcpus);
		int op = e->rw ? 0x2a : 0x28;
		switch (e->kind) {
		case SIM_EV_QFULL:
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 4619: Cmd(0x45da%08x) 0x%02x, CmdSN 0x%x from world %d to dev \"%s\" failed "
				 "H:0x0 D:0x28 P:0x0",
				 (unsigned)prng_next(&r), op, cmdsn++, world, d->naa);
			vmk_line(&o, c, hostname, e->t, cpu, world, text);
			break;
		case SIM_EV_BUSY:
			/* NMP throttles its own logging: at most one line per device and second. */
			if (e->t - last_nmp < 1.0)
				break;
			last_nmp = e->t;
			snprintf(text, sizeof text,
				 "NMP: nmp_ThrottleLogForDevice:2321: Cmd 0x%02x (0x412fc2%06x, 0) to dev \"%s\" on path "
				 "\"%s:C0:T%d:L%d\" Failed: H:0x0 D:0x8 P:0x0 Valid sense data: 0x0 0x0 0x0. Act:NONE",
				 op, (unsigned)(prng_next(&r) & 0xffffff), d->naa, c->adapter[d->adapter].name,
				 d->path_target, d->lun);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_REDUCE:
			snprintf(text, sizeof text,
				 "ScsiSched: 2104: Reduced the queue depth for device %s to %d, due to queue full/busy "
				 "conditions. The queue depth could be reduced further if the condition persists.",
				 d->naa, (int)e->a);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_DETERIORATE:
			snprintf(text, sizeof text,
				 "WARNING: ScsiDeviceIO: 1779: Device %s performance has deteriorated. I/O latency increased "
				 "from average value of %.0f microseconds to %.0f microseconds.",
				 d->naa, e->a, e->b);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_IMPROVE:
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 1755: Device %s performance has improved. I/O latency reduced from %.0f "
				 "microseconds to %.0f microseconds.",
				 d->naa, e->a, e->b);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_PATH_DOWN:
			snprintf(text, sizeof text,
				 "WARNING: NMP: nmp_DeviceRequestFastDeviceProbe:237: NMP device \"%s\" state in doubt; "
				 "requested fast path state update...",
				 d->naa);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			snprintf(text, sizeof text,
				 "WARNING: NMP: nmp_DeviceRetryCommand:133: Device \"%s\": awaiting fast path state update "
				 "for failover with I/O blocked. No prior reservation exists on the device.",
				 d->naa);
			vmk_line(&o, c, hostname, e->t + 0.001, cpu, 2097594, text);
			break;
		case SIM_EV_ABORT:
			/* H:0x5 = the command was aborted (it hung on the dead path) */
			snprintf(text, sizeof text,
				 "NMP: nmp_ThrottleLogForDevice:3298: Cmd 0x%02x (0x45a2c%07x, %d) to dev \"%s\" on path "
				 "\"%s:C0:T%d:L%d\" Failed: H:0x5 D:0x0 P:0x0 Invalid sense data: 0x0 0x0 0x0. Act:EVAL",
				 op, (unsigned)(prng_next(&r) & 0xfffffff), world, d->naa, c->adapter[d->adapter].name,
				 d->path_target, d->lun);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_RESET:
			/* H:0x8 = the command was lost to a bus/LUN reset */
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 3463: Cmd(0x45a2%08x) 0x%02x, CmdSN 0x%x from world %d to dev \"%s\" failed "
				 "H:0x8 D:0x0 P:0x0",
				 (unsigned)prng_next(&r), op, cmdsn++, world, d->naa);
			vmk_line(&o, c, hostname, e->t, cpu, world, text);
			break;
		case SIM_EV_PATH_SWITCH:
			snprintf(text, sizeof text,
				 "vmw_psp_mru: psp_mruSelectPathToActivate:1097: Changing active path from %s:C0:T%d:L%d to "
				 "%s:C0:T%d:L%d for device \"%s\".",
				 c->adapter[d->adapter].name, d->path_target, d->lun, c->adapter[d->standby_adapter].name,
				 d->path_target + 1, d->lun, d->naa);
			vmk_line(&o, c, hostname, e->t, cpu, 2097594, text);
			if (d->standby_ano) {
				/* the SATP reports the new path's ALUA state (our shape of the satp_alua lines) */
				snprintf(text, sizeof text,
					 "vmw_satp_alua: satp_alua_updatePathStates:1153: Path \"%s:C0:T%d:L%d\" for device \"%s\": "
					 "target port group in ALUA ANO (non-optimized).",
					 c->adapter[d->standby_adapter].name, d->path_target + 1, d->lun, d->naa);
				vmk_line(&o, c, hostname, e->t + 0.001, cpu, 2097594, text);
			}
			break;
		}
	}
	free(ord);
	return sim_out_commit(&o);
}

int sim_write_partitions(const struct sim_config *c, int vm, const char *path)
{
	struct row {
		char name[40];
		int index;
		long long offset;
	} rows[SIM_MAX_VDISK + 1];
	int n = 0;
	/* Windows lists disks in disk-number order. */
	for (int no = 0; no < SIM_MAX_VDISK; no++) {
		for (int v = 0; v < c->nvdisk; v++) {
			const struct sim_vdisk *vd = &c->vdisk[v];
			if (vd->vm != vm || vd->disk_no != no)
				continue;
			int idx = 0;
			if (no == 0) {
				/* System Reserved precedes C: on the boot disk. */
				snprintf(rows[n].name, sizeof rows[n].name, "Disk #%d, Partition #0", no);
				rows[n].index = 0;
				rows[n].offset = 1048576;
				n++;
				idx = 1;
			}
			snprintf(rows[n].name, sizeof rows[n].name, "Disk #%d, Partition #%d", no, idx);
			rows[n].index = idx;
			rows[n].offset = vd->part_offset;
			n++;
		}
	}
	size_t wname = strlen("Name");
	for (int i = 0; i < n; i++)
		if (strlen(rows[i].name) > wname)
			wname = strlen(rows[i].name);
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc)
		return rc;
	/* wmic sorts the columns by name and pads every one, the last included, with two spaces;
	 * SystemName asked for too ('get BlockSize, StartingOffset, Name, Index, SystemName'), so the
	 * listing says which machine it is from. */
	const char *sys = c->vm[vm].guest[0] ? c->vm[vm].guest : c->vm[vm].name;
	int wsys = (int)strlen(sys) > 10 ? (int)strlen(sys) : 10;
	char line[320];
	int len = snprintf(line, sizeof line, "%-11s%-7s%-*s%-16s%-*s\r\n", "BlockSize", "Index", (int)wname + 2, "Name",
			   "StartingOffset", wsys + 2, "SystemName");
	if (len > 0)
		sim_out_write(&o, line, (size_t)len);
	for (int i = 0; i < n; i++) {
		char off[32];
		snprintf(off, sizeof off, "%lld", rows[i].offset);
		len = snprintf(line, sizeof line, "%-11s%-7d%-*s%-16s%-*s\r\n", "512", rows[i].index, (int)wname + 2,
			       rows[i].name, off, wsys + 2, sys);
		if (len > 0)
			sim_out_write(&o, line, (size_t)len);
	}
	sim_out_write(&o, "\r\n", 2);
	return sim_out_commit(&o);
}

int sim_write_disks_map(const struct sim_config *c, const char *path)
{
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc)
		return rc;
	sim_out_puts(&o, "# guest disk = virtual disk (GUESTHOST\\DRIVE = VM:scsiC:T), written by iopsy simulate\n");
	char line[512];
	for (int v = 0; v < c->nvdisk; v++) {
		const struct sim_vdisk *vd = &c->vdisk[v];
		const struct sim_vm *vm = &c->vm[vd->vm];
		if (!vm->guest[0])
			continue;
		char disk[16];
		/* a member of a volume over several disks is its own disk, named by its number */
		if (vd->vol[0])
			snprintf(disk, sizeof disk, "Disk %d", vd->disk_no);
		int n = snprintf(line, sizeof line, "%s\\%s = %s:%s%d:%d\n", vm->guest, vd->vol[0] ? disk : vd->drive,
				 vm->name,
				 sim_ctrl_bus(c->ctrl[vd->ctrl].kind), c->ctrl[vd->ctrl].bus, vd->target);
		if (n > 0)
			sim_out_write(&o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	return sim_out_commit(&o);
}

static void truth_extra(struct json *j, const struct sim_config *c);

/* truth.json through the project's JSON writer: the top level one key a line, each expected
 * finding and each small object on a line of its own. */
int sim_write_truth(const struct sim_config *c, const char *path)
{
	struct buf b;
	buf_init(&b);
	struct json j;
	json_init(&j, &b, true);
	json_obj_begin(&j);
	json_key(&j, "scenario");
	json_str(&j, c->scenario);
	json_key(&j, "seed");
	json_int(&j, (long long)c->seed);
	if (c->part_name[0]) {
		json_key(&j, "part");
		json_str(&j, c->part_name);
	}
	json_key(&j, "expect");
	json_arr_begin(&j);
	for (int i = 0; i < c->nexpect; i++) {
		const struct sim_expect *e = &c->expect[i];
		char t0[32], t1[32];
		int64_t a = c->start_ms + (int64_t)floor(e->abs_s ? e->t0 : e->t0 * c->duration) * 1000;
		int64_t b2 = c->start_ms + (int64_t)floor(e->abs_s ? e->t1 : e->t1 * c->duration) * 1000;
		time_format_iso(a, false, t0);
		time_format_iso(b2, false, t1);
		json_obj_begin_flat(&j);
		json_key(&j, "kind");
		json_str(&j, e->kind);
		json_key(&j, "entity");
		json_str(&j, e->entity);
		if (e->host[0]) {
			json_key(&j, "host");
			json_str(&j, e->host);
		}
		json_key(&j, "start");
		json_str(&j, t0);
		json_key(&j, "end");
		json_str(&j, t1);
		if (e->neighbour[0]) {
			json_key(&j, "neighbour");
			json_str(&j, e->neighbour);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "absent");
	json_arr_begin_flat(&j);
	for (int k = 0; k < K_COUNT; k++)
		if (c->absent & (UINT64_C(1) << k))
			json_str(&j, kinds[k].name);
	for (int i = 0; i < c->nabsent_names; i++) {
		int k = kind_find(c->absent_names[i]);
		if (k < 0 || !(c->absent & (UINT64_C(1) << k)))
			json_str(&j, c->absent_names[i]);
	}
	json_arr_end(&j);
	truth_extra(&j, c);
	json_obj_end(&j);
	buf_addc(&b, '\n');
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (!rc) {
		sim_out_write(&o, b.data, b.len);
		rc = sim_out_commit(&o);
	}
	buf_free(&b);
	return rc;
}

static void layer_cov(const struct sim_config *c, int v, bool *scsi, bool *nfs, bool *vsan)
{
	const struct sim_dev *d = &c->dev[c->vdisk[v].dev];
	*scsi = d->kind == SIM_DEV_SCSI;
	*nfs = d->kind == SIM_DEV_NFS;
	*vsan = d->kind == SIM_DEV_VSAN;
}

static const char *share(int have, int n)
{
	return have == 0 ? "not_assessed" : have == n ? "assessed" : "partial";
}

void sim_coverage(const struct sim_config *c, const char *out[SIM_NLAYER])
{
	int guest = -1;
	for (int i = 0; i < c->nvm && guest < 0; i++)
		if (c->vm[i].guest[0])
			guest = i;
	bool esx = c->only != SIM_ONLY_PERFMON;
	bool perf = c->only != SIM_ONLY_ESXTOP && guest >= 0;
	out[SIM_LAYER_GUEST] = !perf ? "not_assessed"
			       : c->perf_disks == SIM_PDISKS_ALL ? "assessed"
			       : c->perf_disks == SIM_PDISKS_TOTAL ? "partial" : "not_assessed";
	/* the guest queue at the vSCSI limit needs each disk's Current Disk Queue Length */
	out[SIM_LAYER_VSCSI] = perf && c->perf_disks == SIM_PDISKS_ALL ? "assessed" : "not_assessed";
	/* host layers, for the guest's disks: a SCSI LUN shows worlds, device and adapter; NFS only
	 * a guest-side latency of the volume (array and network together); vSAN nothing per disk */
	int n = 0, scsi = 0, arr2 = 0;
	for (int v = 0; v < c->nvdisk; v++) {
		if (c->vdisk[v].vm != guest)
			continue;
		bool s, nf, vs;
		layer_cov(c, v, &s, &nf, &vs);
		n++;
		scsi += s;
		arr2 += s ? 2 : nf ? 1 : 0;
	}
	const char *dev = esx ? share(scsi, n) : "not_assessed";
	out[SIM_LAYER_WORLD] = dev;
	out[SIM_LAYER_DEVICE] = dev;
	/* without -a there is no Adapter Q Depth: adapter queueing shows, saturation cannot be proven */
	out[SIM_LAYER_ADAPTER] = !esx || scsi == 0 ? "not_assessed" : c->all_counters ? dev : "partial";
	out[SIM_LAYER_ARRAY] = esx ? share(arr2, 2 * n) : "not_assessed";
	if (n == 0)
		for (int k = SIM_LAYER_WORLD; k < SIM_NLAYER; k++)
			out[k] = "not_assessed";
}

static void put_time(struct json *j, const struct sim_config *c, double frac)
{
	char t[32];
	time_format_iso(c->start_ms + (int64_t)floor(frac * c->duration + 1e-6) * 1000, false, t);
	json_str(j, t);
}

/* One "links" entry: virtual disk v on device d from t0 to t1 (seconds) at amp commands per IO. */
static void put_link(struct json *j, const struct sim_config *c, int v, int d, double t0, double t1, double amp)
{
	char name[SIM_NAME * 2];
	const struct sim_vdisk *vd = &c->vdisk[v];
	snprintf(name, sizeof name, "%s:scsi%d:%d", c->vm[vd->vm].name, c->ctrl[vd->ctrl].bus, vd->target);
	json_obj_begin_flat(j);
	json_key(j, "vdisk");
	json_str(j, name);
	json_key(j, "device");
	json_str(j, c->dev[d].naa);
	json_key(j, "start");
	put_time(j, c, t0 / c->duration);
	json_key(j, "end");
	put_time(j, c, t1 / c->duration);
	json_key(j, "amp");
	json_num(j, amp);
	json_obj_end(j);
}

/* "links": the devices a moved (Storage vMotion) or amplified (snapshot) disk is on over time, and
 * "paths": the paths of each device with a failover, by name — what the analysis must tie. */
static void truth_links(struct json *j, const struct sim_config *c)
{
	json_key(j, "links");
	json_arr_begin(j);
	for (int v = 0; v < c->nvdisk; v++) {
		const struct sim_vdisk *vd = &c->vdisk[v];
		if (vd->move_dev > 0) {
			put_link(j, c, v, vd->dev, 0, vd->move_at_s, 1);
			put_link(j, c, v, vd->move_dev - 1, vd->move_at_s, c->duration, 1);
		} else if (vd->amp > 1) {
			put_link(j, c, v, vd->dev, 0, vd->amp_t0_s, 1);
			put_link(j, c, v, vd->dev, vd->amp_t0_s, vd->amp_t1_s, vd->amp);
			put_link(j, c, v, vd->dev, vd->amp_t1_s, c->duration, 1);
		}
	}
	json_arr_end(j);
	json_key(j, "paths");
	json_arr_begin(j);
	for (int i = 0; i < c->ndevev; i++) {
		const struct sim_dev *d = &c->dev[c->devev[i].dev];
		if (c->devev[i].kind != SIM_DEVEV_FAILOVER)
			continue;
		char p[64];
		for (int k = 0; k < 2; k++) {
			snprintf(p, sizeof p, "%s:C0:T%d:L%d", c->adapter[k ? d->standby_adapter : d->adapter].name,
				 d->path_target + k, d->lun);
			json_obj_begin_flat(j);
			json_key(j, "path");
			json_str(j, p);
			json_key(j, "device");
			json_str(j, d->naa);
			json_obj_end(j);
		}
	}
	json_arr_end(j);
}

/* The truth fields beyond expect/absent (see doc/simulate.md); each only when set. */
static void truth_extra(struct json *j, const struct sim_config *c)
{
	const struct sim_truth_x *x = &c->tx;
	if (x->links)
		truth_links(j, c);
	if (x->coverage) {
		const char *cov[SIM_NLAYER];
		sim_coverage(c, cov);
		json_key(j, "coverage");
		json_obj_begin_flat(j);
		for (int k = 0; k < SIM_NLAYER; k++) {
			json_key(j, sim_layer_names[k]);
			json_str(j, x->cov_override[k] ? x->cov_override[k] : cov[k]);
		}
		json_obj_end(j);
	}
	if (x->clean >= 0) {
		json_key(j, "clean");
		json_bool(j, x->clean);
	}
	if (x->one_episode > 0) {
		json_key(j, "one_episode");
		json_bool(j, true);
	}
	if (x->busy) {
		json_key(j, "busy");
		json_obj_begin_flat(j);
		json_key(j, "start");
		put_time(j, c, x->busy_t0);
		json_key(j, "end");
		put_time(j, c, x->busy_t1);
		json_key(j, "share");
		json_num(j, x->busy_t1 - x->busy_t0);
		json_obj_end(j);
	}
	if (x->cmp_outcome) {
		json_key(j, "compare");
		json_obj_begin_flat(j);
		json_key(j, "outcome");
		json_str(j, x->cmp_outcome);
		if (x->capacity_gain >= 0) {
			json_key(j, "capacity_gain");
			json_bool(j, x->capacity_gain);
		}
		if (x->moved_down >= 0) {
			json_key(j, "moved_down");
			json_bool(j, x->moved_down);
		}
		json_key(j, "why");
		json_str(j, x->cmp_why ? x->cmp_why : "");
		json_obj_end(j);
	}
	if (x->sql_storage >= 0) {
		json_key(j, "sql");
		json_obj_begin_flat(j);
		json_key(j, "symptom");
		json_str(j, x->sql_symptom ? x->sql_symptom : "");
		json_key(j, "storage_explains");
		json_bool(j, x->sql_storage);
		json_key(j, "cause");
		json_str(j, x->sql_cause ? x->sql_cause : "");
		if (x->sql_disk) {
			json_key(j, "disk");
			json_str(j, x->sql_disk);
		}
		json_key(j, "why");
		json_str(j, x->sql_why ? x->sql_why : "");
		json_obj_end(j);
	}
	if (x->array_lu_qdepth > 0) {
		json_key(j, "array");
		json_obj_begin_flat(j);
		json_key(j, "lu_queue_depth");
		json_num(j, x->array_lu_qdepth);
		json_key(j, "hosts");
		json_arr_begin(j);
		for (int h = 0; h < sim_nhosts(c); h++)
			json_str(j, sim_host_name(c, h));
		json_arr_end(j);
		json_obj_end(j);
	}
	if (x->clock) {
		for (int i = 0; i < c->nvm; i++)
			if (c->vm[i].guest[0]) {
				json_key(j, "clock_offset_s");
				json_num(j, c->vm[i].clock_offset_s);
				break;
			}
	}
	if (c->perf_interval != c->interval && c->perf_interval > 0) {
		json_key(j, "intervals");
		json_obj_begin_flat(j);
		json_key(j, "esxtop");
		json_num(j, c->interval);
		json_key(j, "perfmon");
		json_num(j, c->perf_interval);
		json_obj_end(j);
	}
	if (sim_nhosts(c) > 1 || c->only != SIM_ONLY_ALL) {
		json_key(j, "captures");
		json_arr_begin_flat(j);
		char name[96];
		for (int h = 0; c->only != SIM_ONLY_PERFMON && h < sim_nhosts(c); h++) {
			sim_capture_name(c, h, name, sizeof name);
			json_str(j, name);
		}
		if (c->only != SIM_ONLY_ESXTOP)
			json_str(j, c->gzip ? "perfmon.csv.gz" : "perfmon.csv");
		json_arr_end(j);
	}
	if (x->where) {
		json_key(j, "where");
		json_str(j, x->where);
	}
	if (x->link) {
		json_key(j, "link");
		json_str(j, x->link);
	}
	if (x->note) {
		json_key(j, "note");
		json_str(j, x->note);
	}
}
