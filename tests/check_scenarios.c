/* check_scenarios.c — the detectors against ground truth: every simulator scenario, several seeds,
 * simulated to a temporary directory and analysed in-process; each expected finding must be found
 * on its entity with overlapping time (and as one finding where truth says one episode), no
 * 'absent' kind may appear, a 'clean' scenario has no warning, the coverage never claims a layer
 * truth says the captures cannot show (nor denies one they can), and no all-clear is printed
 * for what was not assessed. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <check.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "analysis.h"
#include "commands.h"
#include "ltime.h"
#include "suites.h"
#include "summary.h"

/* Each: the scenario and extra simulate options (space-separated), and whether every seed runs
 * (long captures: seed 1 only). */
static const struct {
	const char *name, *args;
	bool all_seeds;
} scenarios[] = {
	{"healthy", "", true},
	{"lsi-guest-queue-cap", "", true},
	{"pvscsi-after", "", true},
	{"device-queue-overcommit", "", true},
	{"backend-saturated", "", true},
	{"adaptive-queue-depth", "", true},
	{"sioc-throttle", "", true},
	{"dsnro-cap", "", true},
	{"adapter-overcommit", "", true},
	{"split-io", "", true},
	{"misaligned-partition", "", true},
	{"migration", "", true},
	{"lsi-guest-queue-cap", "--only esxtop", true},
	{"lsi-guest-queue-cap", "--only perfmon", true},
	{"too-short", "", true},
	{"flicker", "", true},
	{"perfmon-total-only", "", true},
	{"perfmon-no-disk", "", true},
	{"perfmon-no-disk", "--perfmon-disks pct-time", true},
	{"incident-20min", "", true},
	{"incident-20min-x10", "", false},
	{"day-stall", "", false},
	{"day-incident", "", false},
	{"mixed-intervals", "", true},
	{"path-failover", "", true},
	{"backup-large-io", "", true},
	{"queue-depth-raised", "", true},
	{"unmap-storm", "", true},
	{"log-disk-slow", "", true},
	{"nfs-datastore", "", true},
	{"vsan-datastore", "", true},
	{"nfs-mixed", "", true},
	{"two-host-lu", "", true},
	{"sioc-flash", "", true},
	{"sql-log-wait-cpu", "", true},
	{"sql-log-wait-storage", "", true},
	{"sql-log-wait-storage", "--sql-instance PROD", false},
	{"sql-log-wait-cpu", "--sql-instance PROD", false},
	{"hyperv-healthy", "", true},
	{"hyperv-qos", "", true},
	{"hyperv-csv-redirected", "", true},
	{"hyperv-noisy-neighbour", "", true},
	{"hyperv-guest-queueing", "", true},
	{"hyperv-vcpu-wait", "", true},
	{"hyperv-host-only", "", true},
	{"hyperv-move-csv", "", true},
	{"storage-vmotion", "", true},
	{"snapshot-amplification", "", true},
	{"alua-failover-guessed", "", true},
	{"pvscsi-host-queue", "", true},
	{"guest-paging", "", true},
	{"host-swap", "", true},
	{"perfmon-other-day", "", true},
	{"iscsi-vmknic", "", true},
	{"hba-line-rate", "", false},
	{"oltp-470", "", true},
	{"coarse-300", "", false},
	{"vnvme", "", true},
	{"reservation-storm", "", true},
	{"striped-slow-member", "", true},
	{"spaces-slow-member", "", true},
	{"striped-healthy", "", true},
};
#define NSCEN (int)(sizeof scenarios / sizeof scenarios[0])
static const char *const seeds[] = {"1", "2", "3"};
#define NSEED 3

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	fclose(fp);
	*len = b.len;
	return b.data ? b.data : xstrdup("");
}

static bool exists(const char *dir, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", dir, name);
	return access(out, R_OK) == 0;
}

struct expect {
	char kind[64], entity[128], host[64];
	int64_t start, end;
	char neighbour[160];     /* the VHDX (Hyper-V) or VM that drives the entity's load, "" */
};

static size_t parse_truth(const char *text, struct expect *ex, size_t max, char absent[][64], size_t *nabsent)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR) "\\{\"kind\": \"([^\"]+)\", \"entity\": \"([^\"]+)\"(?:, \"host\": "
						    "\"([^\"]*)\")?, \"start\": \"([^\"]+)\", \"end\": \"([^\"]+)\"(?:, \"neighbour\": \"([^\"]*)\")?\\}",
				       PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	ck_assert_ptr_nonnull(re);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	const char *abs = strstr(text, "\"absent\"");
	ck_assert_msg(abs != NULL, "truth.json has no absent list");
	size_t n = 0, off = 0, lim = (size_t)(abs - text);
	while (n < max && pcre2_match(re, (PCRE2_SPTR)text, lim, off, 0, md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		char *dst[6] = {ex[n].kind, ex[n].entity, ex[n].host, NULL, NULL, ex[n].neighbour};
		size_t caps[6] = {sizeof ex[n].kind, sizeof ex[n].entity, sizeof ex[n].host, 0, 0, sizeof ex[n].neighbour};
		for (int g = 1; g <= 6; g++) {
			char tmp[160] = "";
			if (ov[2 * g] != PCRE2_UNSET) {
				size_t l = ov[2 * g + 1] - ov[2 * g];
				if (l >= sizeof tmp)
					l = sizeof tmp - 1;
				memcpy(tmp, text + ov[2 * g], l);
				tmp[l] = '\0';
			}
			if (g <= 3 || g == 6)
				snprintf(dst[g - 1], caps[g - 1], "%s", tmp);
			else
				ck_assert_int_eq(time_parse_iso(tmp, g == 4 ? &ex[n].start : &ex[n].end), 0);
		}
		off = ov[1];
		n++;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	*nabsent = 0;
	const char *p = strchr(abs, '['), *e = p ? strchr(p, ']') : NULL;
	ck_assert(p && e);
	while ((p = memchr(p, '"', (size_t)(e - p))) != NULL && p < e) {
		const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
		ck_assert_ptr_nonnull(q);
		snprintf(absent[(*nabsent)++], 64, "%.*s", (int)(q - p - 1), p + 1);
		p = q + 1;
	}
	return n;
}

/* A truth.json field, as text: the value after "key": up to the end of its line (NULL when absent). */
static const char *truth_field(const char *text, const char *key, char *out, size_t cap)
{
	char k[64];
	snprintf(k, sizeof k, "\"%s\": ", key);
	const char *p = strstr(text, k);
	if (!p)
		return NULL;
	p += strlen(k);
	size_t n = strcspn(p, "\n");
	snprintf(out, cap, "%.*s", (int)n, p);
	return out;
}

static const char *const cov_keys[COV_LAYERS] = {"guest", "vscsi", "world", "device", "adapter", "array"};

static void check_coverage(const struct analysis *a, const char *cov, const char *what)
{
	for (int l = 0; l < COV_LAYERS; l++) {
		char k[32];
		snprintf(k, sizeof k, "\"%s\": \"", cov_keys[l]);
		const char *p = strstr(cov, k);
		ck_assert_msg(p, "%s: truth coverage has no %s", what, cov_keys[l]);
		p += strlen(k);
		enum cov_status st = a->cov.layer[l].status;
		if (strncmp(p, "not_assessed", 12) == 0)
			ck_assert_msg(st == COV_NOT_ASSESSED, "%s: %s is not assessable from these captures, said %s", what, cov_keys[l],
				      cov_status_names[st]);
		else if (strncmp(p, "assessed", 8) == 0)
			ck_assert_msg(st != COV_NOT_ASSESSED, "%s: %s is assessable, said not assessed (%s)", what, cov_keys[l],
				      a->cov.layer[l].why);
	}
}

/* truth's "sql": whether the storage explains SQL Server's log waits, on which disk. */
static void check_sql(const struct analysis *a, const char *sql, const char *what)
{
	bool explains = strstr(sql, "\"storage_explains\": true") != NULL;
	const char *dk = strstr(sql, "\"disk\": \"");
	char disk[32] = "";
	if (dk)
		snprintf(disk, sizeof disk, "%.*s", (int)strcspn(dk + 9, "\""), dk + 9);
	ck_assert_msg(a->sql && a->sql->n == 1, "%s: %zu SQL Server instances, expected one", what, a->sql ? a->sql->n : 0);
	const struct sql_instance *si = &a->sql->in[0];
	bool log_placed = false;
	for (size_t i = 0; i < si->nplace; i++)
		log_placed |= si->place[i].role == SQLR_LOG && si->place[i].disk && strcmp(si->place[i].disk->name, disk) == 0;
	ck_assert_msg(log_placed, "%s: the log was not placed on %s by the capture's evidence", what, disk);
	int explained = 0, not_explained = 0;
	for (size_t i = 0; i < si->nep; i++) {
		const struct sql_episode *e = &si->ep[i];
		if (e->role != SQLR_LOG || strcmp(e->disk->name, disk) != 0)
			continue;
		explained += e->explains == 1;
		not_explained += e->explains == 0;
	}
	size_t log_sym = 0;
	for (size_t i = 0; i < si->nsym; i++)
		log_sym += si->sym[i].role == SQLR_LOG;
	if (explains) {
		ck_assert_msg(explained > 0 && !not_explained, "%s: no storage episode on %s explains the log waits", what, disk);
		ck_assert_msg(!log_sym, "%s: a log wait without a storage cause: %s", what, si->sym[0].text);
	} else {
		ck_assert_msg(!explained, "%s: a storage episode on %s is said to explain the log waits", what, disk);
		ck_assert_msg(log_sym == 1, "%s: the log waits without a storage cause were not flagged", what);
		if (strstr(sql, "\"cause\": \"cpu_ready\""))
			ck_assert_msg(strstr(si->sym[0].text, "physical CPU") != NULL, "%s: CPU ready not named: %s", what,
				      si->sym[0].text);
		ck_assert_msg(strstr(a->verdict, "look elsewhere") != NULL, "%s: the verdict does not say so: %s", what, a->verdict);
	}
}

/* truth.json's "links" (a virtual disk on a device from start to end, at amp back-end commands per
 * command) and "paths" (a path of a device): the IO path graph ties each as truth says, over its own
 * time, and says a link found by correlation is a guess. */
static void check_links(struct analysis *a, const char *text, const char *scenario)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR) "\\{\"vdisk\": \"([^\"]+)\", \"device\": \"([^\"]+)\", \"start\": \"([^\"]+)\", "
				       "\"end\": \"([^\"]+)\", \"amp\": ([0-9.]+)\\}",
			  PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	pcre2_code *rp = pcre2_compile((PCRE2_SPTR) "\\{\"path\": \"([^\"]+)\", \"device\": \"([^\"]+)\"\\}",
				       PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	ck_assert(re && rp);
	pcre2_match_data *md = pcre2_match_data_create(8, NULL);
	char f[5][128];
	for (size_t off = 0; pcre2_match(re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, off, 0, md, NULL) >= 0;) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		for (int g = 1; g <= 5; g++)
			snprintf(f[g - 1], sizeof f[0], "%.*s", (int)(ov[2 * g + 1] - ov[2 * g]), text + ov[2 * g]);
		off = ov[1];
		int64_t t0, t1;
		ck_assert_int_eq(time_parse_iso(f[2], &t0), 0);
		ck_assert_int_eq(time_parse_iso(f[3], &t1), 0);
		double amp = strtod(f[4], NULL);
		const struct entity *v = model_find(&a->m, LAYER_VSCSI, f[0], NULL);
		ck_assert_msg(v != NULL, "%s: no virtual disk %s", scenario, f[0]);
		const struct iop_vdisk *d = iopath_vdisk(&a->iop, v);
		ck_assert_msg(d && d->link.how == LINK_CORR, "%s: %s is not tied by correlation (a guess)", scenario,
			      f[0]);
		/* the middle of the stretch: its edges may fall into a ramp or a shared bucket */
		int64_t m0 = t0 + (t1 - t0) / 5, m1 = t1 - (t1 - t0) / 5;
		const struct iop_span *sp = NULL;
		const struct entity *dev = iopath_vdisk_dev_in(d, m0, m1, &sp);
		ck_assert_msg(dev && strcmp(dev->name, f[1]) == 0, "%s: %s over %s..%s is on %s, truth %s", scenario,
			      f[0], f[2], f[3], dev ? dev->name : "nothing", f[1]);
		if (amp >= IOP_AMP_EVIDENCE)
			ck_assert_msg(sp && fabs(sp->amp - amp) <= 0.15 * amp,
				      "%s: %s over %s..%s: amplification %.2f, truth %.2f", scenario, f[0], f[2], f[3],
				      sp ? sp->amp : NAN, amp);
	}
	for (size_t off = 0; pcre2_match(rp, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, off, 0, md, NULL) >= 0;) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		for (int g = 1; g <= 2; g++)
			snprintf(f[g - 1], sizeof f[0], "%.*s", (int)(ov[2 * g + 1] - ov[2 * g]), text + ov[2 * g]);
		off = ov[1];
		const struct iop_path *p = NULL;
		for (size_t i = 0; i < a->iop.np && !p; i++)
			if (strcmp(a->iop.p[i].p->name, f[0]) == 0)
				p = &a->iop.p[i];
		ck_assert_msg(p && p->dev && strcmp(p->dev->name, f[1]) == 0, "%s: path %s is tied to %s, truth %s",
			      scenario, f[0], p && p->dev ? p->dev->name : "nothing", f[1]);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	pcre2_code_free(rp);
}

static void check_set(const char *dir, const char *scenario)
{
	char path[1024], truth[1024];
	ck_assert_msg(exists(dir, "truth.json", truth, sizeof truth), "%s: no truth.json", dir);
	size_t tl;
	char *text = slurp(truth, &tl);
	(void)tl;
	struct expect ex[32];
	char absent[32][64];
	size_t nabsent;
	size_t nex = parse_truth(text, ex, 32, absent, &nabsent);
	char *links = strstr(text, "\"links\"") ? xstrdup(text) : NULL;
	char cov[512], clean[32], one[32], sql[1024];
	bool have_cov = truth_field(text, "coverage", cov, sizeof cov) != NULL;
	bool have_sql = truth_field(text, "sql", sql, sizeof sql) != NULL;
	bool is_clean = truth_field(text, "clean", clean, sizeof clean) && strncmp(clean, "true", 4) == 0;
	bool one_episode = truth_field(text, "one_episode", one, sizeof one) && strncmp(one, "true", 4) == 0;
	char where[32] = "", link[32] = "";
	truth_field(text, "link", link, sizeof link); /* "not_assessed": the guest does not belong with the host */
	if (truth_field(text, "where", where, sizeof where)) { /* "below_hba", -> below_hba */
		size_t n = strspn(where, "\"");
		memmove(where, where + n, strlen(where + n) + 1);
		where[strcspn(where, "\",")] = '\0';
	}
	free(text);

	struct analysis a;
	analysis_init(&a);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	/* every capture the set has: esxtop.csv, esxtop-HOST.csv (several hosts), perfmon.csv, .gz */
	int ncap = 0;
	DIR *dd = opendir(dir);
	ck_assert_ptr_nonnull(dd);
	char names[16][128], logs[8][128];
	int nn = 0, nl = 0;
	struct dirent *de;
	while ((de = readdir(dd)) != NULL && nn < 16) {
		const char *nm = de->d_name;
		size_t l = strlen(nm);
		bool csv = (l > 4 && strcmp(nm + l - 4, ".csv") == 0) || (l > 7 && strcmp(nm + l - 7, ".csv.gz") == 0);
		if (csv && (strncmp(nm, "esxtop", 6) == 0 || strncmp(nm, "perfmon", 7) == 0 || strncmp(nm, "hyperv", 6) == 0))
			snprintf(names[nn++], sizeof names[0], "%s", nm);
		/* vmkernel.log, or vmkernel-HOST.log for each host */
		if (strncmp(nm, "vmkernel", 8) == 0 && l > 4 && strcmp(nm + l - 4, ".log") == 0 && nl < 8)
			snprintf(logs[nl++], sizeof logs[0], "%s", nm);
	}
	closedir(dd);
	qsort(names, (size_t)nn, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < nn; i++) {
		if (snprintf(path, sizeof path, "%s/%.127s", dir, names[i]) >= (int)sizeof path)
			ck_abort_msg("path too long");
		ck_assert_int_eq(model_add_capture(&a.m, xstrdup(path), &co), 0);
		ncap++;
	}
	ck_assert_int_ge(ncap, 1);
	for (size_t i = 0; i < a.m.ncaps; i++)
		ck_assert_int_eq(a.m.caps[i].warnings, 0); /* the simulator's files parse without warnings */
	struct diag d;
	diag_init(&d, "sim", 0);
	qsort(logs, (size_t)nl, sizeof logs[0], (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < nl; i++) {
		snprintf(path, sizeof path, "%s/%.127s", dir, logs[i]);
		ck_assert_int_eq(a.have_vmk ? vmklog_append(&a.vmk, path, &d) : vmklog_read(&a.vmk, path, &d), 0);
		a.have_vmk = true;
	}
	if (exists(dir, "partitions.txt", path, sizeof path)) {
		ck_assert_int_eq(partitions_read(&a.parts, path, &d), 0);
		a.have_parts = true;
	}
	analysis_run(&a, &ao);
	for (size_t i = 0; i < nex; i++) {
		int found = 0;
		for (size_t k = 0; k < a.nf; k++) {
			const struct finding *f = &a.f[k];
			found += strcmp(kinds[f->kind].name, ex[i].kind) == 0 && strcmp(f->entity, ex[i].entity) == 0 &&
				 (!ex[i].host[0] || (f->host && strcmp(f->host, ex[i].host) == 0)) &&
				 f->start <= ex[i].end && f->end >= ex[i].start;
		}
		ck_assert_msg(found, "%s (%s): expected %s on %s not found", scenario, dir, ex[i].kind, ex[i].entity);
		/* the neighbour truth names is the one the finding says drives it (a VHDX by its file name) */
		for (size_t k = 0; ex[i].neighbour[0] && k < a.nf; k++) {
			const struct finding *f = &a.f[k];
			if (strcmp(kinds[f->kind].name, ex[i].kind) != 0 || strcmp(f->entity, ex[i].entity) != 0)
				continue;
			const char *file = iop_vhdx_file(ex[i].neighbour);
			ck_assert_msg(f->driver && (strstr(f->driver, file) || strcmp(f->driver, ex[i].neighbour) == 0),
				      "%s (%s): %s on %s: the neighbour is %s, the finding says %s", scenario, dir, ex[i].kind,
				      ex[i].entity, ex[i].neighbour, f->driver ? f->driver : "none");
		}
		/* one problem, one finding: the episode's windows are one finding */
		ck_assert_msg(found == 1 || !one_episode, "%s (%s): %d findings of %s on %s for one episode", scenario, dir, found,
			      ex[i].kind, ex[i].entity);
	}
	if (have_cov)
		check_coverage(&a, cov, scenario);
	if (links) {
		check_links(&a, links, scenario);
		free(links);
	}
	if (have_sql)
		check_sql(&a, sql, scenario);
	/* never an all-clear for what was not assessed */
	if (!a.cov.complete)
		ck_assert_msg(!strstr(a.verdict, "does not wait anywhere"), "%s: all-clear with a layer not assessed: %s", scenario,
			      a.verdict);
	/* what the verdict concludes, where truth.json says it */
	{
		static const char *const vw[] = {"nothing_read", "no_wait", "places", "below_guest", "untold", "below_hba"};
		if (where[0])
			ck_assert_msg((size_t)a.verdict_where < sizeof vw / sizeof vw[0] && strcmp(vw[a.verdict_where], where) == 0,
				      "%s: the verdict concludes %s, truth.json %s: %s", scenario,
				      (size_t)a.verdict_where < sizeof vw / sizeof vw[0] ? vw[a.verdict_where] : "?", where, a.verdict);
	}
	/* the summary's headline (page one of the PDF) says what the verdict says */
	{
		struct ltime lt;
		ltime_init(&lt, &a.m, NULL);
		struct exec_summary es;
		summary_of_analysis(&a, &lt, &es);
		const char *h = es.headline ? es.headline : "";
		/* a place of the stack, or the VM's CPU (it waits for a vCPU, not for storage) */
		bool claims_place = strncmp(h, "Storage IO waits ", 17) == 0 ||
				    strstr(h, "waits for CPU, not for storage") ||
				    strstr(h, "waits for memory, not for storage");
		/* memory as the cause: the verdict names it first, the headline says it, and no storage
		 * step comes before its action */
		if (a.verdict_where == VW_PLACES && (a.verdict_places & (1u << VP_MEMORY)))
			ck_assert_msg(strstr(h, "waits for memory") &&
					  strncmp(a.verdict, "IO waits for memory, not storage", 32) == 0 &&
					  es.nactions && strstr(es.act[0].what, "memory"),
				      "%s: memory is the verdict's first place, headline '%s', first action '%s'",
				      scenario, h, es.nactions ? es.act[0].what : "");
		/* a guest not tied to the host: said, and never "every layer" */
		for (int i = 0; a.link_note && i < es.nsentences; i++)
			ck_assert_msg(!strstr(es.sentence[i], "every layer"), "%s: '%s' though %s", scenario,
				      es.sentence[i], a.link_note);
		ck_assert_msg(!strstr(link, "not_assessed") == !a.link_note,
			      "%s: truth says the link is %s, the analysis %s", scenario, link[0] ? link : "assessed",
			      a.link_note ? a.link_note : "established it");
		ck_assert_msg(!a.link_note || (strstr(a.verdict, "link is not assessed") && !a.cov.complete),
			      "%s: %s not in the "
			      "verdict: %s",
			      scenario, a.link_note ? a.link_note : "", a.verdict);
		if (a.verdict_where == VW_PLACES && (a.verdict_places & (1u << VP_CPU)))
			ck_assert_msg(strstr(h, "waits for CPU") && strstr(a.verdict, "for CPU, not storage"),
				      "%s: the CPU is the verdict's first place, headline '%s'", scenario, h);
		ck_assert_msg(claims_place == (a.verdict_where == VW_PLACES), "%s: headline '%s' against the verdict '%s'",
			      scenario, h, a.verdict);
		if (a.verdict_where != VW_PLACES || !(a.verdict_places & (1u << VP_GUEST)))
			for (int i = 0; i < es.nsentences; i++)
				ck_assert_msg(!strstr(es.sentence[i], "the fix is inside the VM"), "%s: '%s' though the verdict says '%s'",
					      scenario, es.sentence[i], a.verdict);
		/* no all-clear when nothing was judged */
		int assessed = 0;
		for (int l = 0; l < COV_LAYERS; l++)
			assessed += a.cov.layer[l].status != COV_NOT_ASSESSED;
		if (!assessed)
			ck_assert_msg(!strstr(h, "No storage bottleneck"), "%s: '%s' with no layer assessed", scenario, h);
		/* what sets the LUN's depth (SIOC, DSNRO, the array's QUEUE FULL) is the action, never a
		 * deeper queue */
		bool throttled = false;
		for (size_t k = 0; k < a.nf; k++)
			throttled |= a.f[k].sev >= SEV_WARNING && (a.f[k].kind == K_T_SIOC || a.f[k].kind == K_T_DSNRO ||
								   a.f[k].kind == K_SCSI_QUEUE_FULL || a.f[k].kind == K_T_AQD);
		for (int i = 0; throttled && i < es.nactions; i++)
			ck_assert_msg(!strstr(es.act[i].what, "Raise the queue depth of LUN"), "%s: action '%s' while the depth is set "
				      "from outside", scenario, es.act[i].what);
		/* an action is said once (two hosts seeing one LU's QUEUE FULL is one action) */
		for (int i = 0; i < es.nactions; i++)
			for (int j = 0; j < i; j++)
				ck_assert_msg(strcmp(es.act[i].what, es.act[j].what) != 0, "%s: action %d repeats action %d: %s",
					      scenario, i + 1, j + 1, es.act[i].what);
		summary_free(&es);
	}
	/* an advice sentence agrees with the figures it speaks of: the host shows "no queueing or
	 * latency" on a virtual disk only when that disk answers in under half the guest's latency */
	for (size_t k = 0; k < a.nf; k++) {
		const struct finding *f = &a.f[k];
		const char *q =
		    f->advice ? strstr(f->advice, "no queueing or latency on this disk's virtual disk (") : NULL;
		if (!q || !f->nev)
			continue;
		char name[160];
		q += strlen("no queueing or latency on this disk's virtual disk (");
		snprintf(name, sizeof name, "%.*s", (int)strcspn(q, ",)"), q);
		const struct entity *v = model_find(&a.m, LAYER_VSCSI, name, NULL);
		ck_assert_msg(v != NULL, "%s: advice names virtual disk %s, not in the captures", scenario, name);
		double r = iop_window_mean(&a.m, v, M_VD_LAT_R, f->start, f->end);
		double w = iop_window_mean(&a.m, v, M_VD_LAT_W, f->start, f->end);
		double vl = isnan(r) ? w : isnan(w) ? r : fmax(r, w);
		ck_assert_msg(isnan(vl) || vl < 0.5 * f->ev[0].median,
			      "%s: '%s' while %s answers in %.1f ms (guest %.1f ms)", scenario, f->advice, name, vl,
			      f->ev[0].median);
	}
	for (size_t k = 0; k < a.nf; k++) {
		for (size_t i = 0; i < nabsent; i++)
			ck_assert_msg(strcmp(kinds[a.f[k].kind].name, absent[i]) != 0, "%s (%s): %s on %s must be absent (%s)",
				      scenario, dir, kinds[a.f[k].kind].name, a.f[k].entity, a.f[k].summary);
		if (strcmp(scenario, "healthy") == 0 || is_clean)
			ck_assert_msg(a.f[k].sev < SEV_WARNING, "%s (clean): %s on %s: %s", scenario, kinds[a.f[k].kind].name,
				      a.f[k].entity, a.f[k].summary);
	}
	for (size_t i = 0; i < a.m.ncaps; i++)
		free((char *)(uintptr_t)a.m.caps[i].path);
	analysis_free(&a);
}

START_TEST(scenario_truth)
{
	int s = _i / NSEED, seed = _i % NSEED;
	/* a long capture runs seed 1 only: in the tier that runs the scenario's one seed */
	if (scenarios[s].all_seeds ? test_seed_skipped(s, seed, NSEED) : seed > 0 || test_one_seed < 0)
		return;
	char dir[] = "/tmp/iopsy-scen-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600];
	snprintf(out, sizeof out, "%s/set", dir);
	char *argv[16] = {"simulate", "--scenario", (char *)(uintptr_t)scenarios[s].name, "--out", out, "--seed",
			  (char *)(uintptr_t)seeds[seed]};
	int argc = 7;
	char extra[128];
	snprintf(extra, sizeof extra, "%s", scenarios[s].args);
	for (char *tok = extra, *save; argc < 15 && (tok = strtok_r(tok, " ", &save)) != NULL; tok = NULL)
		argv[argc++] = tok;
	argv[argc] = NULL;
	ck_assert_int_eq(sim_main(argc, argv), 0);
	char sub[700];
	snprintf(sub, sizeof sub, "%s/before", out);
	struct stat st;
	if (stat(sub, &st) == 0) {
		check_set(sub, scenarios[s].name);
		snprintf(sub, sizeof sub, "%s/after", out);
		check_set(sub, scenarios[s].name);
	} else {
		check_set(out, scenarios[s].name);
	}
	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Findings do not depend on how long the capture is: the same 20 minutes in 1 h and in a 10 h
 * capture (whose first hour is byte-identical) give the same findings, windows and evidence. */
static void analyse_dir(struct analysis *a, const char *dir)
{
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	static char paths[2][700];
	snprintf(paths[0], sizeof paths[0], "%s/esxtop.csv", dir);
	snprintf(paths[1], sizeof paths[1], "%s/perfmon.csv", dir);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(model_add_capture(&a->m, xstrdup(paths[i]), &co), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(a, &ao);
}

START_TEST(longer_capture_same_findings)
{
	char dir[] = "/tmp/iopsy-x10-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char one[600], ten[600];
	snprintf(one, sizeof one, "%s/one", dir);
	snprintf(ten, sizeof ten, "%s/ten", dir);
	char *a1[] = {"simulate", "--scenario", "incident-20min", "--out", one, NULL};
	char *a2[] = {"simulate", "--scenario", "incident-20min-x10", "--out", ten, NULL};
	ck_assert_int_eq(sim_main(5, a1), 0);
	ck_assert_int_eq(sim_main(5, a2), 0);
	struct analysis x, y;
	analysis_init(&x);
	analysis_init(&y);
	analyse_dir(&x, one);
	analyse_dir(&y, ten);
	ck_assert_uint_ge(x.nf, 1);
	ck_assert_uint_eq(x.nf, y.nf);
	for (size_t i = 0; i < x.nf; i++) {
		const struct finding *f = &x.f[i], *g = &y.f[i];
		ck_assert_int_eq(f->kind, g->kind);
		ck_assert_str_eq(f->entity, g->entity);
		ck_assert_int_eq(f->sev, g->sev);
		ck_assert(f->start == g->start && f->end == g->end);
		ck_assert_int_eq(f->nev, g->nev);
		for (int k = 0; k < f->nev; k++) {
			ck_assert_int_eq(f->ev[k].samples, g->ev[k].samples);
			ck_assert_int_eq(f->ev[k].above, g->ev[k].above);
			ck_assert(f->ev[k].median == g->ev[k].median && f->ev[k].max == g->ev[k].max);
		}
	}
	for (size_t i = 0; i < 2; i++) {
		free((char *)(uintptr_t)x.m.caps[i].path);
		free((char *)(uintptr_t)y.m.caps[i].path);
	}
	analysis_free(&x);
	analysis_free(&y);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *scenarios_suite(void)
{
	Suite *s = suite_create("scenarios");
	TCase *tc = tcase_create("truth");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test_sharded(tc, scenario_truth, 0, NSCEN * NSEED);
	tcase_add_test_sharded(tc, longer_capture_same_findings);
	suite_add_tcase(s, tc);
	return s;
}
