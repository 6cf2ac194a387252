/* extras.c — the side files of a simulated capture set: vmkernel.log (DOMAIN.md §3 line shapes),
 * partitions.txt (as `wmic partition get BlockSize, StartingOffset, Name, Index` prints it),
 * disks.map (guest disk = virtual disk) and truth.json (what a correct analysis must report). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "out.h"
#include "util.h"

static void short_host(const struct sim_config *c, char *out, size_t n)
{
	size_t k = 0;
	while (c->host[k] && c->host[k] != '.' && k + 1 < n) {
		out[k] = c->host[k];
		k++;
	}
	out[k] = 0;
}

/* One vmkernel.log line at time t (seconds since start). */
static void vmk_line(struct sim_out *o, const struct sim_config *c, double t, int cpu, int world, const char *text)
{
	char host[64], line[1024];
	short_host(c, host, sizeof host);
	struct sim_tm tm;
	sim_time_split(c->start_ms + (int64_t)floor(t * 1000.0), &tm);
	int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %s vmkernel: cpu%d:%d)%s\n", tm.year,
			 tm.mon, tm.day, tm.hour, tm.min, tm.sec, tm.ms, host, cpu, world, text);
	if (n > 0)
		sim_out_write(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

int sim_write_vmklog(const struct sim_config *c, const struct sim_model *m, const char *path)
{
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc)
		return rc;
	struct sim_rng r;
	sim_rng_seed(&r, c->seed, 11 + 16 * (uint64_t)c->part);
	/* Benign noise every few minutes: the ATA pass-through probe of the boot device fails with a
	 * CHECK CONDITION (D:0x2) — a line a QUEUE FULL parser must not count. */
	double next_benign = 20 + 200 * sim_rng_uniform(&r);
	const char *boot = c->ndev ? c->dev[0].naa : "mpx.vmhba0:C0:T0:L0";
	char text[768];
	unsigned cmdsn = 0x8000006a;
	size_t i = 0;
	double last_nmp = -1e9;
	while (i < m->nev || next_benign < c->duration) {
		bool take_event = i < m->nev && (next_benign >= c->duration || m->ev[i].t <= next_benign);
		if (!take_event) {
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 4124: Cmd(0x45d98aee%04x) 0x85, CmdSN 0x%x from world 2098291 to dev \"%s\" "
				 "failed H:0x0 D:0x2 P:0x0 Valid sense data: 0x5 0x20 0x0.",
				 sim_rng_below(&r, 0x10000), 0x2d4 + sim_rng_below(&r, 4000), boot);
			vmk_line(&o, c, next_benign, (int)sim_rng_below(&r, (uint32_t)c->pcpus), 2098291, text);
			snprintf(text, sizeof text,
				 "NMP: nmp_ResetDeviceLogThrottling:3776: last error status from device %s repeated 1 times",
				 boot);
			vmk_line(&o, c, next_benign + 0.4, (int)sim_rng_below(&r, (uint32_t)c->pcpus), 2097594, text);
			next_benign += 120 + 480 * sim_rng_uniform(&r);
			continue;
		}
		const struct sim_event *e = &m->ev[i++];
		const struct sim_dev *d = &c->dev[e->dev];
		int world = e->vm >= 0 ? c->vm[e->vm].wid : 2097190;
		int cpu = (int)sim_rng_below(&r, (uint32_t)c->pcpus);
		int op = e->rw ? 0x2a : 0x28;
		switch (e->kind) {
		case SIM_EV_QFULL:
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 4619: Cmd(0x45da%08x) 0x%02x, CmdSN 0x%x from world %d to dev \"%s\" failed "
				 "H:0x0 D:0x28 P:0x0",
				 (unsigned)sim_rng_next(&r), op, cmdsn++, world, d->naa);
			vmk_line(&o, c, e->t, cpu, world, text);
			break;
		case SIM_EV_BUSY:
			/* NMP throttles its own logging: at most one line per device and second. */
			if (e->t - last_nmp < 1.0)
				break;
			last_nmp = e->t;
			snprintf(text, sizeof text,
				 "NMP: nmp_ThrottleLogForDevice:2321: Cmd 0x%02x (0x412fc2%06x, 0) to dev \"%s\" on path "
				 "\"%s:C0:T%d:L%d\" Failed: H:0x0 D:0x8 P:0x0 Valid sense data: 0x0 0x0 0x0. Act:NONE",
				 op, (unsigned)(sim_rng_next(&r) & 0xffffff), d->naa, c->adapter[d->adapter].name,
				 d->path_target, d->lun);
			vmk_line(&o, c, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_REDUCE:
			snprintf(text, sizeof text,
				 "ScsiSched: 2104: Reduced the queue depth for device %s to %d, due to queue full/busy "
				 "conditions. The queue depth could be reduced further if the condition persists.",
				 d->naa, (int)e->a);
			vmk_line(&o, c, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_DETERIORATE:
			snprintf(text, sizeof text,
				 "WARNING: ScsiDeviceIO: 1779: Device %s performance has deteriorated. I/O latency increased "
				 "from average value of %.0f microseconds to %.0f microseconds.",
				 d->naa, e->a, e->b);
			vmk_line(&o, c, e->t, cpu, 2097594, text);
			break;
		case SIM_EV_IMPROVE:
			snprintf(text, sizeof text,
				 "ScsiDeviceIO: 1755: Device %s performance has improved. I/O latency reduced from %.0f "
				 "microseconds to %.0f microseconds.",
				 d->naa, e->a, e->b);
			vmk_line(&o, c, e->t, cpu, 2097594, text);
			break;
		}
	}
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
	/* wmic sorts the columns by name and pads every one, the last included, with two spaces. */
	char line[256];
	int len = snprintf(line, sizeof line, "%-11s%-7s%-*s%-16s\r\n", "BlockSize", "Index", (int)wname + 2, "Name",
			   "StartingOffset");
	if (len > 0)
		sim_out_write(&o, line, (size_t)len);
	for (int i = 0; i < n; i++) {
		char off[32];
		snprintf(off, sizeof off, "%lld", rows[i].offset);
		len = snprintf(line, sizeof line, "%-11s%-7d%-*s%-16s\r\n", "512", rows[i].index, (int)wname + 2,
			       rows[i].name, off);
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
		int n = snprintf(line, sizeof line, "%s\\%s = %s:scsi%d:%d\n", vm->guest, vd->drive, vm->name,
				 c->ctrl[vd->ctrl].bus, vd->target);
		if (n > 0)
			sim_out_write(&o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	return sim_out_commit(&o);
}

static void json_str(struct sim_out *o, const char *s)
{
	sim_out_write(o, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			sim_out_write(o, esc, 2);
		} else if (*p < 0x20) {
			int n = snprintf(esc, sizeof esc, "\\u%04x", *p);
			if (n > 0)
				sim_out_write(o, esc, (size_t)n);
		} else {
			sim_out_write(o, p, 1);
		}
	}
	sim_out_write(o, "\"", 1);
}

int sim_write_truth(const struct sim_config *c, const char *path)
{
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc)
		return rc;
	char buf[128];
	sim_out_puts(&o, "{\n  \"scenario\": ");
	json_str(&o, c->scenario);
	snprintf(buf, sizeof buf, ",\n  \"seed\": %llu", (unsigned long long)c->seed);
	sim_out_puts(&o, buf);
	if (c->part_name[0]) {
		sim_out_puts(&o, ",\n  \"part\": ");
		json_str(&o, c->part_name);
	}
	sim_out_puts(&o, ",\n  \"expect\": [");
	for (int i = 0; i < c->nexpect; i++) {
		const struct sim_expect *e = &c->expect[i];
		char t0[32], t1[32];
		int64_t a = c->start_ms + (int64_t)floor(e->t0 * c->duration) * 1000;
		int64_t b = c->start_ms + (int64_t)floor(e->t1 * c->duration) * 1000;
		time_format_iso(a, false, t0);
		time_format_iso(b, false, t1);
		sim_out_puts(&o, i ? ",\n    {\"kind\": " : "\n    {\"kind\": ");
		json_str(&o, e->kind);
		sim_out_puts(&o, ", \"entity\": ");
		json_str(&o, e->entity);
		if (e->host[0]) {
			sim_out_puts(&o, ", \"host\": ");
			json_str(&o, e->host);
		}
		sim_out_puts(&o, ", \"start\": ");
		json_str(&o, t0);
		sim_out_puts(&o, ", \"end\": ");
		json_str(&o, t1);
		sim_out_puts(&o, "}");
	}
	sim_out_puts(&o, c->nexpect ? "\n  ],\n  \"absent\": [" : "],\n  \"absent\": [");
	int k = 0;
	for (int i = 0; i < sim_nkinds; i++) {
		if (!(c->absent & (1u << i)))
			continue;
		sim_out_puts(&o, k++ ? ", " : "");
		json_str(&o, sim_kinds[i]);
	}
	sim_out_puts(&o, "]\n}\n");
	return sim_out_commit(&o);
}
