/* check_rules.c — customer thresholds (rules.c): a rules file is checked (names, numbers, units
 * and their ranges, warning <= critical in every scope) with file:line:col messages, sections
 * scope lines to a host, VM, disk or device with the most specific winning, the printed table
 * reads back to the same rules, and the reports name what a file changed. */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "compare.h"
#include "html.h"
#include "json_out.h"
#include "memcap.h"
#include "reporter.h"
#include "suites.h"
#include "text.h"

/* Loads text as the file "site.rules" into r (defaults first); the messages go to td. */
static int load(struct rules *r, struct tdiag *td, const char *text)
{
	rules_init(r);
	return rules_load_text(r, text, strlen(text), tdiag_init(td, "site.rules"));
}

/* text fails with msg (the whole "file:line:col: error: ..." prefix included). */
static void rejects(const char *text, const char *msg)
{
	struct rules r;
	struct tdiag td;
	ck_assert_int_eq(load(&r, &td, text), ERR_FORMAT);
	ck_assert_msg(td.msgs.data && strstr(td.msgs.data, msg), "for:\n%s\nwanted: %s\ngot: %s", text, msg,
		      td.msgs.data ? td.msgs.data : "(nothing)");
	tdiag_free(&td);
}

/* text loads without a message and sets rule id to v. */
static void accepts(const char *text, enum rule_id id, double v)
{
	struct rules r;
	struct tdiag td;
	ck_assert_msg(load(&r, &td, text) == 0, "rejected:\n%s\n%s", text, td.msgs.data ? td.msgs.data : "");
	ck_assert_msg(!td.msgs.len, "messages for:\n%s\n%s", text, td.msgs.data);
	ck_assert_msg(rule_value(&r, id) == v, "%s = %g, not %g", rule_table[id].name, rule_value(&r, id), v);
	tdiag_free(&td);
}

START_TEST(values_are_checked)
{
	/* names and syntax */
	accepts("device.davg.warning_ms = 10\n", R_DAVG_WARN, 10);
	rejects("device.davg.warnign_ms = 10\n", "site.rules:1:1: error: unknown rule 'device.davg.warnign_ms'; did you "
		"mean device.davg.warning_ms? (see 'iopsy rules')");
	rejects("guest.latency.warnng_ms = 10\n", "unknown rule 'guest.latency.warnng_ms'; did you mean "
		"guest.latency.warning_ms? (see 'iopsy rules')");
	rejects("no.such.rule = 1\n", "unknown rule 'no.such.rule' (see 'iopsy rules')");
	rejects("\n  device.davg.warning_ms 10\n", "site.rules:2:26: error: expected 'name = value'");
	/* numbers */
	accepts("device.davg.warning_ms = 1.5e1\n", R_DAVG_WARN, 15);
	rejects("device.davg.warning_ms = fast\n", "site.rules:1:26: error: 'device.davg.warning_ms' needs a number, not 'fast'");
	rejects("device.davg.warning_ms =\n", "site.rules:1:25: error: 'device.davg.warning_ms' needs a number, not ''");
	rejects("device.davg.warning_ms = nan\n", "needs a number, not 'nan'");
	rejects("device.davg.warning_ms = 0x10\n", "site.rules:1:27: error: 'device.davg.warning_ms' is in ms: 'x10' is not its unit");
	/* ranges by unit: amounts, percentages, fractions, counts */
	accepts("device.davg.warning_ms = 0\n", R_DAVG_WARN, 0);
	rejects("device.davg.warning_ms = -5\n", "site.rules:1:26: error: 'device.davg.warning_ms' cannot be negative (-5 ms)");
	rejects("sustain.seconds = 1e12\n", "site.rules:1:19: error: 'sustain.seconds' is out of range: at most 1000000000 s, not 1e+12");
	accepts("device.saturated.usd_pct = 100\n", R_DEV_SAT_USD, 100);
	rejects("device.saturated.usd_pct = 150\n",
		"site.rules:1:28: error: 'device.saturated.usd_pct' is a percentage: 0 to 100, not 150");
	rejects("adapter.saturated.pct = -1\n", "'adapter.saturated.pct' is a percentage: 0 to 100, not -1");
	accepts("guest.log.write_share = 1\n", R_LOG_WRITE_SHARE, 1);
	rejects("guest.log.write_share = 1.5\n", "site.rules:1:25: error: 'guest.log.write_share' is a fraction: 0 to 1, not 1.5");
	accepts("sustain.samples = 1\n", R_SUSTAIN_SAMPLES, 1);
	rejects("sustain.samples = 0\n", "site.rules:1:19: error: 'sustain.samples' counts samples: a whole number from 1 to 1000000, not 0");
	rejects("dsnro.value = 2.5\n", "site.rules:1:15: error: 'dsnro.value' counts commands: a whole number from 1 to 1000000, not 2.5");
	rejects("vscsi.lsi.disk_limit = 0\n", "'vscsi.lsi.disk_limit' counts IOs: a whole number from 1");
	accepts("sustain.gap_samples = 0\n", R_GAP_SAMPLES, 0); /* no gap tolerated is a count too */
	accepts("align.bytes = 4096\n", R_ALIGN_BYTES, 4096);
	rejects("align.bytes = 4096.5\n", "'align.bytes' counts bytes: a whole number from 0 to 1000000000000, not 4096.5");
	/* every message, not only the first */
	rejects("sustain.samples = 0\ndsnro.value = x\n", "site.rules:2:15: error: 'dsnro.value' needs a number, not 'x'");
	/* names from the file are shown escaped */
	rejects("bad\033[2Jname = 1\n", "unknown rule 'bad\\x1B[2Jname'");
}
END_TEST

START_TEST(units_are_checked)
{
	accepts("device.davg.warning_ms = 5 ms\n", R_DAVG_WARN, 5);
	accepts("device.davg.warning_ms = 5ms   # tight\n", R_DAVG_WARN, 5);
	accepts("device.davg.warning_ms = 5 MS\n", R_DAVG_WARN, 5);
	accepts("device.saturated.usd_pct = 90 %\n", R_DEV_SAT_USD, 90);
	accepts("device.saturated.usd_pct = 95%\n", R_DEV_SAT_USD, 95);
	accepts("sustain.seconds = 30 s\n", R_SUSTAIN_SECONDS, 30);
	accepts("guest.large_io.kib = 128 KiB\n", R_GUEST_LARGE_KIB, 128);
	accepts("dsnro.value = 64 commands\n", R_DSNRO, 64);
	accepts("dsnro.min_worlds = 1 world\n", R_DSNRO_WORLDS, 1); /* the singular of a count */
	accepts("active.min_iops = 10 IO/s\n", R_ACTIVE_IOPS, 10);
	accepts("guest.hidden.ratio = 3 x\n", R_HIDDEN_RATIO, 3);
	rejects("device.davg.warning_ms = 5 s\n",
		"site.rules:1:28: error: 'device.davg.warning_ms' is in ms: 's' is not its unit (write '= 5' or '= 5 ms')");
	rejects("sustain.seconds = 20 ms\n", "site.rules:1:22: error: 'sustain.seconds' is in s: 'ms' is not its unit");
	rejects("device.davg.warning_ms = 5 ms ms\n", "'device.davg.warning_ms' is in ms: 'ms ms' is not its unit");
	rejects("guest.log.write_share = 90 %\n",
		"site.rules:1:28: error: 'guest.log.write_share' is a fraction from 0 to 1, not a percentage: write 0.9 for 90 %");
	rejects("device.saturated.usd_pct = 0.9 fraction\n", "'device.saturated.usd_pct' is in %: 'fraction' is not its unit");
}
END_TEST

START_TEST(warning_not_above_critical)
{
	/* checked after the whole file: the critical value may come later */
	accepts("device.davg.warning_ms = 40\ndevice.davg.critical_ms = 60\n", R_DAVG_WARN, 40);
	accepts("device.davg.warning_ms = 25\n", R_DAVG_WARN, 25); /* equal to the critical default */
	rejects("device.davg.warning_ms = 30\ndevice.davg.critical_ms = 20\n",
		"site.rules:2:27: error: device.davg.warning_ms (30, line 1) is above device.davg.critical_ms (20, line 2): a "
		"warning threshold cannot exceed its critical one");
	rejects("device.davg.warning_ms = 30\n",
		"site.rules:1:26: error: device.davg.warning_ms (30, line 1) is above device.davg.critical_ms (25, the default)");
	rejects("kernel.kavg.critical_ms = 0.05\n", "kernel.kavg.warning_ms (0.1, the default) is above kernel.kavg.critical_ms (0.05, line 1)");
	rejects("guest.latency.warning_ms = 60\n", "guest.latency.warning_ms (60, line 1) is above guest.latency.critical_ms (50, the default)");
	rejects("datastore.latency.warning_ms = 30\n", "datastore.latency.warning_ms (30, line 1) is above datastore.latency.critical_ms (25, the default)");
	rejects("guest.log.write.critical_ms = 4\n", "guest.log.write.warning_ms (5, the default) is above guest.log.write.critical_ms (4, line 1)");
	rejects("vscsi.pvscsi.disk_limit = 300\n", "vscsi.pvscsi.disk_limit (300, line 1) is above vscsi.pvscsi.disk_limit_max (254, the "
						   "default): the default limit cannot exceed the maximum");
	/* per scope, with the values in force there: the section's own, a wider section's, the global ones */
	accepts("[disk SQL01 L:]\nguest.latency.warning_ms = 5\n", R_GUEST_LAT_WARN, 20);
	rejects("guest.latency.critical_ms = 30\n[disk SQL01 L:]\nguest.latency.warning_ms = 40\n",
		"site.rules:3:28: error: guest.latency.warning_ms (40, line 3) is above guest.latency.critical_ms (30, line 1) in "
		"[disk SQL01 L:]");
	rejects("[vm SQL01]\nguest.latency.critical_ms = 10\n[disk SQL01 L:]\nguest.latency.warning_ms = 15\n",
		"site.rules:4:28: error: guest.latency.warning_ms (15, line 4) is above guest.latency.critical_ms (10, line 2 in [vm "
		"SQL01]) in [disk SQL01 L:]");
	/* a section that raises both is fine though the global critical is lower */
	accepts("guest.latency.critical_ms = 30\n[disk L:]\nguest.latency.warning_ms = 40\nguest.latency.critical_ms = 80\n",
		R_GUEST_LAT_CRIT, 30);
	/* the global line that a section overrides is still checked globally */
	rejects("device.davg.warning_ms = 30\n[device naa.1]\ndevice.davg.critical_ms = 40\n",
		"site.rules:1:26: error: device.davg.warning_ms (30, line 1) is above device.davg.critical_ms (25, the default)");
}
END_TEST

START_TEST(sections_are_checked)
{
	rejects("[disk SQL01 L:\n", "site.rules:1:1: error: the section header '[disk SQL01 L:' is not closed with ']'");
	rejects("[disks L:]\n", "site.rules:1:2: error: unknown section 'disks': [global], [host NAME], [vm NAME], [disk [HOST] NAME] or [device NAME]");
	rejects("[]\n", "site.rules:1:1: error: an empty section header");
	rejects("[host]\n", "site.rules:1:2: error: [host] takes one name");
	rejects("[vm a b]\n", "site.rules:1:7: error: [vm] takes one name");
	rejects("[global x]\n", "site.rules:1:9: error: [global] takes no name");
	rejects("[disk a b c]\n", "site.rules:1:11: error: too many names in the section header");
	rejects("[disk L:] x\n", "site.rules:1:11: error: text after the section header: 'x'");
	rejects("[disk \"E:\\SQL DATA]\n", "site.rules:1:7: error: a quoted name needs its closing '\"'");
	rejects("[disk a\"b]\n", "site.rules:1:8: error: a '\"' inside a name");
	rejects("[disk \"\"]\n", "site.rules:1:7: error: an empty name in the section header");
	rejects("[host esx01]\nsustain.samples = 3\n",
		"site.rules:2:1: error: 'sustain.samples' applies to the whole analysis: it cannot be set in [host esx01]");
	/* the lines after a bad header are still checked */
	rejects("[bogus]\ndevice.davg.warning_ms = x\n", "site.rules:2:26: error: 'device.davg.warning_ms' needs a number");
	/* a comment after a header; [global] goes back to the global lines; headers ignore case */
	struct rules r;
	struct tdiag td;
	ck_assert_int_eq(load(&r, &td, "[DISK l:]  # the log disk\ndevice.davg.warning_ms = 3\n[global]\ndevice.davg.warning_ms = 4\n"), 0);
	ck_assert(rule_value(&r, R_DAVG_WARN) == 4);
	ck_assert_int_eq(r.nsec, 1);
	ck_assert_int_eq(r.sec[0].kind, SCOPE_DISK);
	ck_assert_str_eq(r.sec[0].name, "l:");
	tdiag_free(&td);
	/* too many sections */
	struct buf b;
	buf_init(&b);
	for (int i = 0; i <= RULES_MAX_SECTIONS; i++)
		buf_printf(&b, "[disk D%d:]\n", i);
	rejects(b.data, "site.rules:33:1: error: too many sections (at most 32)");
	buf_free(&b);
}
END_TEST

/* A line set twice: a warning, the later value. */
START_TEST(set_twice_warns)
{
	struct rules r;
	struct tdiag td;
	ck_assert_int_eq(load(&r, &td, "device.davg.warning_ms = 10\n[disk L:]\ndevice.davg.warning_ms = 1\n"
				       "[global]\ndevice.davg.warning_ms = 12\n[disk L:]\ndevice.davg.warning_ms = 2\n"), 0);
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "site.rules:5:1: warning: 'device.davg.warning_ms' is set again (line 1 too): this value is used"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "site.rules:7:1: warning: 'device.davg.warning_ms' is set again in this section (line 3 too)"));
	ck_assert(rule_value(&r, R_DAVG_WARN) == 12);
	ck_assert_int_eq(r.nsec, 1); /* the same header twice is one section */
	ck_assert_int_eq(r.nset, 1);
	ck_assert(r.set[0].v == 2 && r.set[0].at.line == 7);
	tdiag_free(&td);
}
END_TEST

static double for_ent(const struct rules *r, enum rule_id id, enum layer l, const char *host, const char *name)
{
	struct entity_ref w = {.layer = l, .host = host, .name = name};
	if (l == LAYER_GUEST) {
		w.vm = host;
	} else if (l == LAYER_VSCSI) {
		w.vm = name;
		w.vm_len = strcspn(name, ":");
	}
	return rules_for(r, id, &w);
}

START_TEST(most_specific_wins)
{
	static const char text[] = "guest.latency.warning_ms = 25\n"
				   "[host esx01]\ndevice.davg.warning_ms = 12\nguest.latency.warning_ms = 24\n"
				   "[vm SQL01]\nguest.latency.warning_ms = 15\ndevice.davg.warning_ms = 11\n"
				   "[disk L:]\nguest.latency.warning_ms = 8\n"
				   "[disk SQL01 L:]\nguest.latency.warning_ms = 5\n"
				   "[device naa.600A]\ndevice.davg.warning_ms = 9\n"
				   "[host SQL02]\nguest.latency.warning_ms = 30\n"
				   "[disk \"E:\\SQL DATA\"]\nguest.latency.warning_ms = 7\n";
	struct rules r;
	struct tdiag td;
	ck_assert_int_eq(load(&r, &td, text), 0);
	ck_assert_msg(!td.msgs.len, "%s", td.msgs.data);
	/* disk on its host > disk anywhere > vm > host > global */
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "SQL01", "L:") == 5);
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "sql01", "l:") == 5); /* names ignore case */
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "SQL02", "L:") == 8);
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "SQL01", "D:") == 15);
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "SQL02", "D:") == 30);
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "SQL03", "D:") == 25);
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_GUEST, "SQL03", "E:\\SQL DATA") == 7);
	ck_assert(rules_for(&r, R_GUEST_LAT_WARN, NULL) == 25);
	ck_assert(rule_value(&r, R_GUEST_LAT_WARN) == 25);
	/* a VM's virtual disks are the VM's; a host's short name matches its FQDN */
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_VSCSI, "esx01.lab.local", "SQL01:scsi0:1") == 11);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_VSCSI, "esx01.lab.local", "SQL011:scsi0:1") == 12);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_DEVICE, "esx01.lab.local", "naa.600a") == 9);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_DEVICE, "ESX01", "naa.600b") == 12);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_DEVICE, "esx02.lab.local", "naa.600b") == 15);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_DEVICE, "esx011.lab.local", "naa.600b") == 15);
	/* a disk section is not a device's, nor a device section a disk's */
	ck_assert(for_ent(&r, R_GUEST_LAT_WARN, LAYER_DEVICE, "x", "L:") == 25);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_GUEST, "SQL09", "naa.600a") == 15);
	tdiag_free(&td);
	/* two sections equally specific: the later wins */
	ck_assert_int_eq(load(&r, &td, "[host esx01]\ndevice.davg.warning_ms = 3\n[host esx01.lab.local]\ndevice.davg.warning_ms = 4\n"), 0);
	ck_assert(for_ent(&r, R_DAVG_WARN, LAYER_DEVICE, "esx01.lab.local", "naa.1") == 4);
	tdiag_free(&td);
}
END_TEST

/* 'iopsy rules' output is a rules file that reads back to the same rules, sections included. */
START_TEST(printed_rules_read_back)
{
	static const char text[] = "device.davg.warning_ms = 10 ms\n[disk SQL01 L:]\nguest.latency.warning_ms = 5\n"
				   "guest.log.write.warning_ms = 2.5\n[disk esx01 \"E:\\SQL DATA\"]\nguest.latency.critical_ms = 60\n"
				   "[device naa.600a]\ndsnro.value = 64\n[vm SQL01]\n[host esx01.lab.local]\nkernel.kavg.warning_ms = 0.5\n";
	struct rules r, back;
	struct tdiag td;
	ck_assert_int_eq(load(&r, &td, text), 0);
	tdiag_free(&td);
	struct buf p1, p2;
	buf_init(&p1);
	buf_init(&p2);
	rules_print(&r, &p1);
	ck_assert_ptr_nonnull(strstr(p1.data, "\n[disk SQL01 L:]\nguest.latency.warning_ms           = 5        # (ms) default 20\n"));
	ck_assert_ptr_nonnull(strstr(p1.data, "\n[disk esx01 \"E:\\SQL DATA\"]\n"));
	ck_assert_ptr_null(strstr(p1.data, "[vm SQL01]")); /* a section without lines sets nothing */
	ck_assert_ptr_nonnull(strstr(p1.data, "sustain.samples                    = 5        # (samples, global only)"));
	rules_init(&back);
	ck_assert_int_eq(rules_load_text(&back, p1.data, p1.len, tdiag_init(&td, "printed")), 0);
	ck_assert_msg(!td.msgs.len, "%s", td.msgs.data);
	rules_print(&back, &p2);
	ck_assert_str_eq(p1.data, p2.data);
	for (int i = 0; i < R_COUNT; i++)
		ck_assert(back.v[i] == r.v[i]);
	ck_assert_int_eq(back.nset, r.nset);
	for (int i = 0; i < r.nset; i++) {
		ck_assert(back.set[i].v == r.set[i].v && back.set[i].id == r.set[i].id);
		ck_assert_int_eq(back.sec[back.set[i].section].kind, r.sec[r.set[i].section].kind);
		ck_assert_str_eq(back.sec[back.set[i].section].name, r.sec[r.set[i].section].name);
		ck_assert_str_eq(back.sec[back.set[i].section].host, r.sec[r.set[i].section].host);
	}
	/* the printed table of a table changes nothing: no rule is reported as overridden */
	ck_assert_uint_eq(rules_overrides(&back, NULL, 0), (size_t)r.nset + 1);
	buf_free(&p1);
	buf_free(&p2);
	tdiag_free(&td);
}
END_TEST

/* What a report says of each override: the rules that changed, with file and line; a line that
 * repeats the default is not one. */
START_TEST(overrides_listed)
{
	struct rules r;
	struct tdiag td;
	ck_assert_int_eq(load(&r, &td, "align.bytes = 65536\nsustain.samples = 5\n[vm SQL01]\nguest.hidden.ratio = 3\n"), 0);
	struct rule_override o[RULES_MAX_OVERRIDES];
	ck_assert_uint_eq(rules_overrides(&r, o, RULES_MAX_OVERRIDES), 2);
	struct buf b;
	buf_init(&b);
	rules_override_text(&r, &o[0], &b);
	ck_assert_str_eq(b.data, "align.bytes = 65536 (default 1048576) from site.rules:1");
	buf_reset(&b);
	rules_override_text(&r, &o[1], &b);
	ck_assert_str_eq(b.data, "guest.hidden.ratio = 3 (default 2) from site.rules:4, for [vm SQL01]");
	ck_assert_uint_eq(rules_overrides(&r, NULL, 0), 2);
	ck_assert_uint_eq(rules_overrides(&r, o, 1), 2); /* counts past max, writes one */
	buf_free(&b);
	tdiag_free(&td);
	rules_init(&r);
	ck_assert_uint_eq(rules_overrides(&r, o, RULES_MAX_OVERRIDES), 0);
}
END_TEST

/* ---- scoped rules in the analysis ---- */

/* SQL01's D: and L:, both written at 8 ms (reads at 2 ms, half the IOs: not a log disk), and
 * esx01's LUNs naa.1 and naa.2, both at DAVG 8 ms, read into model m. */
static void load_captures(struct model *m)
{
	static const struct mcol guest[] = {
#define DISK(d) {"LogicalDisk(" d ")\\Avg. Disk sec/Write", mc_konst, {0.008}}, \
		{"LogicalDisk(" d ")\\Avg. Disk sec/Read", mc_konst, {0.002}}, \
		{"LogicalDisk(" d ")\\Disk Writes/sec", mc_wave, {200, 50, 5}}, \
		{"LogicalDisk(" d ")\\Disk Reads/sec", mc_wave, {200, 50, 5}}, \
		{"LogicalDisk(" d ")\\Avg. Disk Bytes/Write", mc_konst, {8192}}
		DISK("D:"), DISK("L:"),
#undef DISK
	};
	static const struct mcol host[] = {
		{"Physical Disk SCSI Device(naa.1)\\Commands/sec", mc_konst, {300}},
		{"Physical Disk SCSI Device(naa.1)\\Average Driver MilliSec/Command", mc_konst, {8}},
		{"Physical Disk SCSI Device(naa.2)\\Commands/sec", mc_konst, {300}},
		{"Physical Disk SCSI Device(naa.2)\\Average Driver MilliSec/Command", mc_konst, {8}},
	};
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	struct buf g, h;
	buf_init(&g);
	buf_init(&h);
	memcap(&g, true, "SQL01", guest, 10, 120, 5);
	memcap(&h, false, "esx01.lab.local", host, 4, 120, 5);
	ck_assert_int_eq(model_add_capture_mem(m, "pm.csv", g.data, g.len, &co), 0);
	ck_assert_int_eq(model_add_capture_mem(m, "esx.csv", h.data, h.len, &co), 0);
	buf_free(&g);
	buf_free(&h);
}

/* Loads a rules text (NULL: none) as "site.rules" into r. */
static void rules_text_into(struct rules *r, const char *name, const char *text)
{
	if (!text)
		return;
	struct tdiag td;
	ck_assert_int_eq(rules_load_text(r, text, strlen(text), tdiag_init(&td, name)), 0);
	tdiag_free(&td);
}

/* The analysis of those captures with the rules text (NULL: none). */
static void analyse(struct analysis *a, const char *rules)
{
	analysis_init(a);
	rules_text_into(&a->rules, "site.rules", rules);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_set_opts(a, &o);
	load_captures(&a->m);
	analysis_run(a, &o);
}

/* The finding of kind on entity name, NULL when there is none. */
static const struct finding *finding_on(const struct analysis *a, enum kind kind, const char *name)
{
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].kind == kind && strcmp(a->f[i].entity, name) == 0)
			return &a->f[i];
	return NULL;
}

START_TEST(scoped_rule_applies_to_its_disk_only)
{
	struct analysis a;
	analyse(&a, NULL);
	ck_assert_uint_eq(a.nf, 0); /* 8 ms is fine by the defaults */
	analysis_free(&a);

	analyse(&a, "[disk SQL01 L:]  # the log disk\nguest.latency.warning_ms = 5 ms\nguest.latency.critical_ms = 7\n");
	const struct finding *f = finding_on(&a, K_LAT_GUEST_WRITE, "L:");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, SEV_CRITICAL);
	/* the rule and the bands cite the values applied to this disk */
	ck_assert_ptr_nonnull(strstr(f->rule, "Avg. Disk sec/Write > 5 ms (warning) / > 7 ms (critical)"));
	ck_assert_ptr_nonnull(strstr(f->summary, "bands in force: <= 5 ms ok, 5-7 slow, > 7 serious"));
	ck_assert(f->ev[0].threshold == 5);
	ck_assert_ptr_null(finding_on(&a, K_LAT_GUEST_WRITE, "D:"));
	ck_assert_ptr_null(finding_on(&a, K_LAT_GUEST_READ, "L:")); /* reads at 2 ms */
	ck_assert_uint_eq(a.nf, 1);
	analysis_free(&a);

	/* [disk L:] is that drive on any guest; another drive is not */
	analyse(&a, "[disk l:]\nguest.latency.warning_ms = 5\n[disk SQL02 D:]\nguest.latency.warning_ms = 5\n");
	ck_assert_ptr_nonnull(finding_on(&a, K_LAT_GUEST_WRITE, "L:"));
	ck_assert_ptr_null(finding_on(&a, K_LAT_GUEST_WRITE, "D:"));
	analysis_free(&a);
}
END_TEST

START_TEST(scoped_most_specific_in_the_analysis)
{
	struct analysis a;
	/* the VM's value for both disks, the disk's own for L: */
	analyse(&a, "guest.latency.warning_ms = 30\n[vm SQL01]\nguest.latency.warning_ms = 6\n[disk SQL01 L:]\n"
		    "guest.latency.warning_ms = 10\n");
	const struct finding *d = finding_on(&a, K_LAT_GUEST_WRITE, "D:");
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(strstr(d->rule, "> 6 ms (warning)"));
	ck_assert_ptr_null(finding_on(&a, K_LAT_GUEST_WRITE, "L:"));
	analysis_free(&a);
	/* devices: by name, and a host section for the host's other devices */
	analyse(&a, "[device naa.1]\ndevice.davg.warning_ms = 5\n");
	const struct finding *n1 = finding_on(&a, K_LAT_DEVICE, "naa.1");
	ck_assert_ptr_nonnull(n1);
	ck_assert_ptr_nonnull(strstr(n1->rule, "DAVG > 5 ms (warning) / > 25 ms (critical)"));
	ck_assert_ptr_null(finding_on(&a, K_LAT_DEVICE, "naa.2"));
	analysis_free(&a);
	analyse(&a, "[host esx01]\ndevice.davg.warning_ms = 5\n[device naa.1]\ndevice.davg.warning_ms = 9\n");
	ck_assert_ptr_null(finding_on(&a, K_LAT_DEVICE, "naa.1"));
	ck_assert_ptr_nonnull(finding_on(&a, K_LAT_DEVICE, "naa.2"));
	ck_assert_ptr_null(finding_on(&a, K_LAT_GUEST_WRITE, "D:")); /* SQL01 is not on a host section */
	analysis_free(&a);
	/* a host section applies to a guest machine's disks too */
	analyse(&a, "[host sql01]\nguest.latency.warning_ms = 5\n");
	ck_assert_ptr_nonnull(finding_on(&a, K_LAT_GUEST_WRITE, "D:"));
	ck_assert_ptr_nonnull(finding_on(&a, K_LAT_GUEST_WRITE, "L:"));
	ck_assert_ptr_null(finding_on(&a, K_LAT_DEVICE, "naa.1"));
	analysis_free(&a);
}
END_TEST

/* ---- provenance: every output names what the rules file changed, and only then ---- */

START_TEST(provenance_in_every_output)
{
	static const char rules[] = "device.davg.warning_ms = 10\nguest.latency.warning_ms = 20   # the default\n"
				    "[disk SQL01 \"L:\"]\nguest.latency.warning_ms = 5\n[device \"naa.<i>1\"]\n"
				    "device.davg.critical_ms = 30\n";
	for (int with = 0; with < 2; with++) {
		struct analysis a;
		analyse(&a, with ? rules : NULL);
		struct buf out;
		buf_init(&out);
		analysis_text(&a, &out);
		if (with)
			ck_assert_ptr_nonnull(strstr(out.data, "\nRULES (overridden)\n"
							       "  device.davg.warning_ms = 10 (default 15) from site.rules:1\n"
							       "  guest.latency.warning_ms = 5 (default 20) from site.rules:4, for [disk SQL01 L:]\n"
							       "  device.davg.critical_ms = 30 (default 25) from site.rules:6, for [device naa.<i>1]\n\n"));
		else
			ck_assert_ptr_null(strstr(out.data, "RULES"));
		ck_assert_ptr_null(strstr(out.data, "guest.latency.warning_ms = 20")); /* the default again is no change */
		buf_reset(&out);
		struct json j;
		json_init(&j, &out, true);
		analysis_json(&a, &j);
		if (with) {
			ck_assert_ptr_nonnull(strstr(out.data, "\"rules_overridden\": [\n"));
			ck_assert_ptr_nonnull(strstr(out.data, "{\"name\": \"guest.latency.warning_ms\", \"value\": 5, \"default\": 20, "
							       "\"unit\": \"ms\", \"file\": \"site.rules\", \"line\": 4, \"scope\": "
							       "\"disk SQL01 L:\"}"));
			ck_assert_ptr_nonnull(strstr(out.data, "\"line\": 1, \"scope\": \"global\"}"));
			ck_assert_ptr_nonnull(strstr(out.data, "\"scope\": \"device naa.\\u003ci\\u003e1\"}"));
		} else {
			ck_assert_ptr_null(strstr(out.data, "rules_overridden"));
		}
		buf_reset(&out);
		struct report_opts ro;
		report_opts_init(&ro);
		ck_assert_int_eq(reporter_find("md")->analysis(&a, &ro, &out), 0);
		if (with) {
			ck_assert_ptr_nonnull(strstr(out.data, "\n#### Rules overridden\n\n- device.davg.warning\\_ms = 10 (default 15) from "
							       "site.rules:1\n"));
			ck_assert_ptr_nonnull(strstr(out.data, "for \\[device naa.\\<i>1\\]\n"));
		} else {
			ck_assert_ptr_null(strstr(out.data, "Rules"));
		}
		buf_reset(&out);
		struct html_opts ho = {.gnuplot = "/nonexistent/gnuplot"};
		struct html_result res;
		struct buf msg;
		buf_init(&msg);
		ck_assert_int_eq(report_html_analysis(&a, &ho, &out, &res, DIAG_INTO(&msg)), 0);
		if (with) {
			ck_assert_ptr_nonnull(strstr(out.data, "<h4>Rules overridden</h4>\n<ul class=\"rules\">\n<li>device.davg.warning_ms = "
							       "10 (default 15) from site.rules:1</li>\n"));
			ck_assert_ptr_nonnull(strstr(out.data, "for [device naa.&lt;i&gt;1]</li>"));
			ck_assert_ptr_null(strstr(out.data, "<i>1"));
		} else {
			ck_assert_ptr_null(strstr(out.data, "Rules overridden"));
		}
		buf_free(&msg);
		buf_free(&out);
		analysis_free(&a);
	}
}
END_TEST

/* Each side of a comparison has its own rules; the report names both. */
START_TEST(compare_sides_have_their_rules)
{
	struct compare c;
	compare_init(&c);
	rules_text_into(&c.side[0].rules, "before.rules", "[disk SQL01 L:]\nguest.latency.warning_ms = 5\n");
	rules_text_into(&c.side[1].rules, "after.rules", "device.davg.warning_ms = 7\n");
	for (int s = 0; s < 2; s++) {
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_set_opts(&c.side[s], &o);
		load_captures(&c.side[s].m);
	}
	struct compare_opts o;
	compare_opts_init(&o);
	o.resamples = 100;
	struct buf warn;
	buf_init(&warn);
	compare_run(&c, &o, DIAG_INTO(&warn));
	buf_free(&warn);
	/* the same captures, judged by each side's rules */
	ck_assert_ptr_nonnull(finding_on(&c.side[0], K_LAT_GUEST_WRITE, "L:"));
	ck_assert_ptr_null(finding_on(&c.side[0], K_LAT_DEVICE, "naa.1"));
	ck_assert_ptr_null(finding_on(&c.side[1], K_LAT_GUEST_WRITE, "L:"));
	ck_assert_ptr_nonnull(finding_on(&c.side[1], K_LAT_DEVICE, "naa.1"));
	ck_assert_ptr_nonnull(finding_on(&c.side[1], K_LAT_DEVICE, "naa.2"));
	/* the comparison's own bands are the defaults: --rules was not given */
	ck_assert(rule_value(&c.rules, R_DAVG_WARN) == 15);
	struct buf out;
	buf_init(&out);
	compare_text(&c, &out);
	ck_assert_ptr_nonnull(strstr(out.data, "\nRULES before (overridden)\n"
					       "  guest.latency.warning_ms = 5 (default 20) from before.rules:2, for [disk SQL01 L:]\n"
					       "\nRULES after (overridden)\n"
					       "  device.davg.warning_ms = 7 (default 15) from after.rules:1\n"));
	buf_reset(&out);
	struct json j;
	json_init(&j, &out, true);
	compare_json(&c, &j);
	ck_assert_ptr_nonnull(strstr(out.data, "\"rules_overridden_before\": [\n    {\"name\": \"guest.latency.warning_ms\", "
					       "\"value\": 5, \"default\": 20, \"unit\": \"ms\", \"file\": \"before.rules\", \"line\": 2, "
					       "\"scope\": \"disk SQL01 L:\"}\n  ],"));
	ck_assert_ptr_nonnull(strstr(out.data, "\"rules_overridden_after\": [\n    {\"name\": \"device.davg.warning_ms\", "
					       "\"value\": 7, \"default\": 15, \"unit\": \"ms\", \"file\": \"after.rules\", \"line\": 1, "
					       "\"scope\": \"global\"}\n  ],"));
	buf_reset(&out);
	struct report_opts ro;
	report_opts_init(&ro);
	ck_assert_int_eq(reporter_find("md")->compare(&c, &ro, &out), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "\n#### Rules overridden before\n\n- guest.latency.warning\\_ms = 5 (default 20) "
					       "from before.rules:2, for \\[disk SQL01 L:\\]\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "\n#### Rules overridden after\n\n- device.davg.warning\\_ms = 7"));
	compare_free(&c);
	/* without rules files: no RULES section, no key */
	compare_init(&c);
	for (int s = 0; s < 2; s++) {
		struct analyze_opts ao;
		memset(&ao, 0, sizeof ao);
		analysis_set_opts(&c.side[s], &ao);
		load_captures(&c.side[s].m);
	}
	buf_init(&warn);
	compare_run(&c, &o, DIAG_INTO(&warn));
	buf_free(&warn);
	buf_reset(&out);
	compare_text(&c, &out);
	ck_assert_ptr_null(strstr(out.data, "RULES"));
	buf_reset(&out);
	json_init(&j, &out, true);
	compare_json(&c, &j);
	ck_assert_ptr_null(strstr(out.data, "rules_overridden"));
	buf_free(&out);
	compare_free(&c);
}
END_TEST

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *t = tcase_create("rules");
	tcase_add_test(t, values_are_checked);
	tcase_add_test(t, units_are_checked);
	tcase_add_test(t, warning_not_above_critical);
	tcase_add_test(t, sections_are_checked);
	tcase_add_test(t, set_twice_warns);
	tcase_add_test(t, most_specific_wins);
	tcase_add_test(t, printed_rules_read_back);
	tcase_add_test(t, overrides_listed);
	tcase_add_test(t, scoped_rule_applies_to_its_disk_only);
	tcase_add_test(t, scoped_most_specific_in_the_analysis);
	tcase_add_test(t, provenance_in_every_output);
	tcase_add_test(t, compare_sides_have_their_rules);
	suite_add_tcase(s, t);
	return s;
}
