/* rules.c — the threshold table (see rules.h). Sources are DOMAIN.md's tags. */
#include "rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULES_INIT { \
	[R_SUSTAIN_SAMPLES] = {"sustain.samples", 5, "samples", "a condition must hold this many samples in a row to be a finding (spikes are not)", "[seed] brief spikes are fine; sustained averages are the signal"}, \
	[R_SUSTAIN_SECONDS] = {"sustain.seconds", 20, "s", "... and last at least this long", "[seed]"}, \
	[R_GAP_SAMPLES] = {"sustain.gap_samples", 2, "samples", "samples below threshold tolerated inside one window", "[derived]"}, \
	[R_EPISODE_GAP_S] = {"sustain.episode_gap_s", 120, "s", "windows of one condition on one entity closer than this (or 5 intervals) are one episode, one finding", "[derived]"}, \
	[R_GUEST_LAT_WARN] = {"guest.latency.warning_ms", 20, "ms", "guest Avg. Disk sec/Read|Write above this: slow", "[ms] SQL bands: <10 very good, 10-20 ok, 20-50 slow, >50 serious"}, \
	[R_GUEST_LAT_CRIT] = {"guest.latency.critical_ms", 50, "ms", "guest Avg. Disk sec/Read|Write above this: serious", "[ms] SQL bands"}, \
	[R_GUEST_LARGE_KIB] = {"guest.large_io.kib", 64, "KiB", "IOs larger than this are judged by the large-IO band", "[pal] sec/Transfer > 35 ms when IO > 64 KiB"}, \
	[R_GUEST_LARGE_WARN] = {"guest.large_io.warning_ms", 35, "ms", "guest latency of large IOs above this: slow (a backup's 1 MiB reads at 30 ms are not)", "[pal] > 35 ms (IO > 64 KiB)"}, \
	[R_LOG_WRITE_WARN] = {"guest.log.write.warning_ms", 5, "ms", "write latency of a log disk above this: slow", "[seed] log writes: target 5 ms"}, \
	[R_LOG_WRITE_CRIT] = {"guest.log.write.critical_ms", 10, "ms", "write latency of a log disk above this: serious", "[seed] log writes: tolerable 10 ms"}, \
	[R_LOG_WRITE_SHARE] = {"guest.log.write_share", 0.9, "fraction", "a disk whose IOs are at least this share writes ...", "[derived] a transaction log is written, rarely read"}, \
	[R_LOG_MAX_KIB] = {"guest.log.max_write_kib", 64, "KiB", "... of at most this size (on average) is taken for a log disk", "[derived] log writes are 512 B-60 KiB"}, \
	[R_DAVG_WARN] = {"device.davg.warning_ms", 15, "ms", "DAVG above this: the array/fabric is slow", "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms"}, \
	[R_DAVG_CRIT] = {"device.davg.critical_ms", 25, "ms", "DAVG above this", "[vmw-derived practitioner tables] DAVG > 25 ms"}, \
	[R_DS_LAT_WARN] = {"datastore.latency.warning_ms", 15, "ms", "a virtual disk with no SCSI device (NFS, vSAN): its host-side latency above this", "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms: the storage is slow"}, \
	[R_DS_LAT_CRIT] = {"datastore.latency.critical_ms", 25, "ms", "... and above this", "[vmw-derived practitioner tables] GAVG > 25 ms"}, \
	[R_KAVG_WARN] = {"kernel.kavg.warning_ms", 0.1, "ms", "KAVG/QAVG constantly above this: the VMkernel is queuing", "[seed] KAVG constantly above 0.1 ms"}, \
	[R_KAVG_CRIT] = {"kernel.kavg.critical_ms", 2, "ms", "KAVG/QAVG above this", "[vmw-derived practitioner tables] KAVG > 2 ms"}, \
	[R_DAVG_RAISE_QD] = {"advice.davg_max_to_raise_qd_ms", 10, "ms", "raise a queue depth only while DAVG stays below this", "[seed] raise the device queue depth only if DAVG < 10 ms"}, \
	[R_DEV_SAT_USD] = {"device.saturated.usd_pct", 90, "%", "ACTV at or above this share of DQLEN ...", "[vmw] %USD = ACTV/DQLEN"}, \
	[R_DEV_SAT_QUED] = {"device.saturated.qued", 1, "commands", "... with at least this many commands queued in the VMkernel (LOAD > 1)", "[vmw] LOAD > 1 or QUED > 0 means IOs wait in the kernel"}, \
	[R_ADP_SAT_PCT] = {"adapter.saturated.pct", 90, "%", "sum of ACTV on an adapter at or above this share of AQLEN", "[vmw]"}, \
	[R_VSCSI_LSI] = {"vscsi.lsi.disk_limit", 32, "IOs", "LSI Logic SAS per-disk queue limit", "[seed] adapter 128, per disk 32; [pal] warns at >= 32"}, \
	[R_VSCSI_PVSCSI] = {"vscsi.pvscsi.disk_limit", 64, "IOs", "PVSCSI default per-disk queue limit", "[seed][vmw KB 2053145]"}, \
	[R_VSCSI_PVSCSI_MAX] = {"vscsi.pvscsi.disk_limit_max", 254, "IOs", "PVSCSI maximum per-disk queue limit (MaxQueueDepth)", "[seed][vmw KB 2053145]"}, \
	[R_VSCSI_PINNED_SHARE] = {"vscsi.pinned_share", 0.5, "fraction", "share of a window's samples at the limit (within 1) for 'pinned'", "[derived]"}, \
	[R_HIDDEN_RATIO] = {"guest.hidden.ratio", 2, "x", "guest latency at least this many times the host's (GAVG) for the same disk", "[derived] Little's law (outstanding IO = IOPS x latency)"}, \
	[R_HIDDEN_MIN_MS] = {"guest.hidden.min_gap_ms", 5, "ms", "... and at least this much larger", "[derived]"}, \
	[R_AQD_HALF_RATIO] = {"aqd.halving_ratio", 0.6, "x", "a DQLEN drop to at most this share of the previous value counts as a halving", "[vmw KB 1008113] halve on QUEUE FULL/BUSY"}, \
	[R_AQD_MIN_STEPS] = {"aqd.min_steps", 3, "steps", "+1 recovery steps after a halving needed for the AQD signature", "[vmw KB 1008113] +1 per batch of good completions"}, \
	[R_SIOC_THRESHOLD] = {"sioc.threshold_ms", 30, "ms", "SIOC congestion threshold (manual default)", "[vmw] PARDA FAST'09"}, \
	[R_SIOC_NEAR] = {"sioc.near_share", 0.7, "x", "DAVG at least this share of the threshold while DQLEN moves", "[derived]"}, \
	[R_SIOC_MIN_CHANGES] = {"sioc.min_changes", 3, "changes", "gradual DQLEN changes (not halvings, not +1 only) needed", "[derived] smooth proportional steps"}, \
	[R_SIOC_BASE_RATIO] = {"sioc.baseline_ratio", 1.5, "x", "... or DAVG at least this multiple of the device's own DAVG at full queue depth (automatic threshold)", "[vmw] since vSphere 5.1 the default threshold is the latency at 90% of peak throughput; [derived] the ratio"}, \
	[R_DSNRO] = {"dsnro.value", 32, "commands", "Disk.SchedNumReqOutstanding default", "[vmw] DSNRO default 32, applied when more than one VM is active"}, \
	[R_DSNRO_WORLDS] = {"dsnro.min_worlds", 2, "worlds", "active worlds on the device for DSNRO to apply", "[vmw]"}, \
	[R_SPLIT_PER_S] = {"split.per_s", 5, "/s", "split IO per second", "[ms] diagnostic rule flags >= 5/s"}, \
	[R_SPLIT_RATIO] = {"split.ratio", 0.1, "fraction", "split IO as a share of transfers", "[derived]"}, \
	[R_ERR_PER_S] = {"errors.per_s", 1, "/s", "aborts, resets or failed commands per second", "[vmw-derived practitioner tables] ABRTS/s > 1, RESETS/s > 1"}, \
	[R_QFULL_GAP_S] = {"qfull.window_gap_s", 120, "s", "QUEUE FULL/BUSY events closer than this form one window", "[derived]"}, \
	[R_ALIGN_BYTES] = {"align.bytes", 1048576, "bytes", "partition offsets must be a multiple of this", "[seed][vmw] Windows 2008+ and VMFS5 align at 1 MiB"}, \
	[R_ACTIVE_IOPS] = {"active.min_iops", 5, "IO/s", "below this a disk is idle and its latency is not judged", "[derived]"}, \
}

const struct rule rule_table[R_COUNT] = RULES_INIT;

void rules_init(struct rules *r)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < R_COUNT; i++)
		r->v[i] = rule_table[i].value;
}

int rules_load_text(struct rules *r, const char *text, size_t len, struct diag *d)
{
	long line = 0;
	size_t i = 0;
	int rc = 0;
	while (i < len) {
		line++;
		size_t s = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t e = i;
		i++;
		if (e > s && text[e - 1] == '\r')
			e--;
		size_t p = s;
		while (p < e && (text[p] == ' ' || text[p] == '\t'))
			p++;
		if (p == e || text[p] == '#')
			continue;
		size_t k = p;
		while (k < e && text[k] != '=' && text[k] != ' ' && text[k] != '\t')
			k++;
		char key[96];
		size_t kl = k - p < sizeof key - 1 ? k - p : sizeof key - 1;
		memcpy(key, text + p, kl);
		key[kl] = '\0';
		size_t q = k;
		while (q < e && (text[q] == ' ' || text[q] == '\t'))
			q++;
		if (q == e || text[q] != '=') {
			diag_emit(d, DIAG_ERROR, line, (long)(q - s + 1), "expected 'name = value'");
			rc = ERR_FORMAT;
			continue;
		}
		q++;
		while (q < e && (text[q] == ' ' || text[q] == '\t'))
			q++;
		int id = -1;
		for (int k2 = 0; k2 < R_COUNT; k2++)
			if (strcmp(rule_table[k2].name, key) == 0)
				id = k2;
		if (id < 0) {
			diag_emit(d, DIAG_ERROR, line, (long)(p - s + 1), "unknown rule '%s' (see 'iopsy rules')", key);
			rc = ERR_FORMAT;
			continue;
		}
		size_t ve = e;
		while (ve > q && (text[ve - 1] == ' ' || text[ve - 1] == '\t'))
			ve--;
		size_t hash = q;
		while (hash < ve && text[hash] != '#')
			hash++;
		ve = hash;
		while (ve > q && (text[ve - 1] == ' ' || text[ve - 1] == '\t'))
			ve--;
		double v;
		if (!parse_number(text + q, ve - q, &v) || v < 0) {
			diag_emit(d, DIAG_ERROR, line, (long)(q - s + 1), "'%s' needs a non-negative number", key);
			rc = ERR_FORMAT;
			continue;
		}
		r->v[id] = v;
		r->overridden[id] = true;
	}
	return rc;
}

int rules_load(struct rules *r, const char *path, struct diag *d)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		diag_emit(d, DIAG_ERROR, 0, 0, "cannot open: %s", strerror(errno));
		return ERR_IO;
	}
	struct buf b;
	buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		buf_add(&b, chunk, n);
		if (b.len > (1u << 20)) {
			diag_emit(d, DIAG_ERROR, 0, 0, "rules file larger than 1 MiB");
			fclose(fp);
			buf_free(&b);
			return ERR_FORMAT;
		}
	}
	fclose(fp);
	int rc = rules_load_text(r, b.data ? b.data : "", b.len, d);
	buf_free(&b);
	return rc;
}

void rules_print(const struct rules *r, struct buf *out)
{
	buf_adds(out, "# iopsy rules: name = value   (unit) what — source\n");
	for (int i = 0; i < R_COUNT; i++) {
		char v[64];
		/* round-trips: 'iopsy rules' output is itself a valid rules file */
		snprintf(v, sizeof v, "%.15g", r->v[i]);
		buf_printf(out, "%-34s = %-8s # (%s) %s — %s\n", rule_table[i].name, v, rule_table[i].unit,
			   rule_table[i].what, rule_table[i].source);
	}
}
