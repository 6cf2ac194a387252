/* cmd_simulate.c — the command line of `iopsy simulate`: option parsing, --list, --help, and one
 * output folder per capture set (two, before/ and after/, for a pair). */
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "sim/run.h"
#include "suggest.h"
#include "util.h"

static const char sim_help_text[] =
	"usage: iopsy simulate --list\n"
	"       iopsy simulate --scenario NAME --out DIR [--seed N] [--duration SEC] [--interval SEC]\n"
	"                      [--width N] [--start ISO] [--gzip] [--all-counters]\n"
	"                      [--perfmon-interval SEC] [--only esxtop|perfmon]\n"
	"                      [--perfmon-disks all|total|pct-time|none] [--sql-counters]\n"
	"                      [--sql-instance NAME] [--busy-share F]\n"
	"\n"
	"Writes the files a consultant receives after a storage incident on a SQL Server VM, from a\n"
	"queueing model of the IO stack: esxtop.csv (host, esxtop -b), perfmon.csv (guest, relog),\n"
	"vmkernel.log and partitions.txt where the scenario involves them, disks.map (guest disk =\n"
	"virtual disk) and truth.json (the findings a correct analysis reports, and those it must not).\n"
	"The hyperv-* scenarios simulate a Hyper-V cluster node instead: hyperv.csv (the node's\n"
	"perfmon: VHDX, CSVFS, LUNs, hypervisor CPU), perfmon.csv (the SQL01 guest) and truth.json.\n"
	"\n"
	"  --list            one line per scenario\n"
	"  --scenario NAME   what to simulate (see --list); a pair writes DIR/before and DIR/after\n"
	"  --out DIR         output folder (created if missing; files are replaced atomically)\n"
	"  --seed N          random seed (default 1); same seed, same bytes\n"
	"  --duration SEC    capture length (default 1200, or the scenario's)\n"
	"  --interval SEC    esxtop -d and perfmon sample interval (default 2, or the scenario's)\n"
	"  --perfmon-interval SEC  perfmon's own sample interval (default: the scenario's, else --interval)\n"
	"  --width N         esxtop columns incl. the timestamp (default: a small host); filler\n"
	"                    CPU, interrupt and network columns are added to reach N\n"
	"  --start ISO       capture start, UTC (default 2026-07-27T13:00:00Z)\n"
	"  --gzip            write esxtop.csv.gz and perfmon.csv.gz\n"
	"  --all-counters    esxtop -a: /Read /Write latencies, errors, splits, Adapter Q Depth\n"
	"  --only WHICH      write only the esxtop or only the perfmon capture (the set is still\n"
	"                    simulated whole; truth.json keeps what the written half can show)\n"
	"  --perfmon-disks SET  disk counters in the perfmon: all (default), total (LogicalDisk\n"
	"                    _Total only), pct-time (% Disk Time only), none\n"
	"  --sql-counters    the SQL Server counter set driven by the model (log flushes and waits\n"
	"                    from the log disk, page IO latch waits from the data disk, batches)\n"
	"  --sql-instance NAME  a named instance: MSSQL$NAME: objects (implies --sql-counters)\n"
	"  --busy-share F    peak scenarios: share of the capture the busy phase covers (0.02-0.9)\n"
	"\n"
	"Exit status: 0 ok, 2 usage error, 4 system error.\n";

void sim_help(struct buf *out)
{
	buf_adds(out, sim_help_text);
}

static int list(void)
{
	for (const struct sim_scenario *s = sim_scenarios; s->name; s++)
		printf("%-24s %s\n", s->name, s->summary);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_SYSTEM;
}

static bool parse_double(const char *s, double lo, double hi, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || !(x >= lo && x <= hi))
		return false;
	*v = x;
	return true;
}

static bool parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

static int run_part(const struct sim_scenario *sc, int part, const struct sim_opts *o, const char *out)
{
	char dir[4096];
	int n = sc->nparts > 1 ? snprintf(dir, sizeof dir, "%s/%s", out, sc->part_dir[part])
			       : snprintf(dir, sizeof dir, "%s", out);
	if (n <= 0 || (size_t)n >= sizeof dir) {
		fprintf(stderr, "iopsy: simulate: output path too long\n");
		return EXIT_USAGE;
	}
	if (dir_make(dir) != 0) {
		fprintf(stderr, "iopsy: simulate: cannot create %s: %s\n", dir, strerror(errno));
		return EXIT_SYSTEM;
	}
	struct sim_config *c = calloc(1, sizeof *c);
	if (!c) {
		fprintf(stderr, "iopsy: simulate: out of memory\n");
		return EXIT_SYSTEM;
	}
	sim_config_build(c, sc, part, o);
	struct sim_result res;
	errno = 0;
	int rc = sim_run(c, dir, NULL, &res);
	int e = errno;
	const char *file = res.failed_file ? res.failed_file : "";
	if (!rc && o->width > 0 && res.esx_columns != o->width)
		fprintf(stderr, "iopsy: simulate: warning: --width %d is below the %ld columns scenario %s needs; "
				"wrote %ld\n", o->width, res.esx_columns, sc->name, res.esx_columns);
	free(c);
	if (rc == ERR_NOMEM) {
		fprintf(stderr, "iopsy: simulate: out of memory\n");
		return EXIT_SYSTEM;
	}
	if (rc) {
		fprintf(stderr, "iopsy: simulate: cannot write %s/%s: %s\n", dir, file, e ? strerror(e) : "write error");
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

int sim_main(int argc, char **argv)
{
	struct sim_opts o;
	sim_opts_default(&o);
	const char *scenario = NULL, *out = NULL;
	bool do_list = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		char name[32];
		/* --opt=value and --opt value */
		const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
		size_t nl = eq ? (size_t)(eq - a) : strlen(a);
		if (nl >= sizeof name) {
			fprintf(stderr, "iopsy: simulate: unknown option '%s'\n", a);
			return EXIT_USAGE;
		}
		memcpy(name, a, nl);
		name[nl] = 0;
		bool flag = !strcmp(name, "--list") || !strcmp(name, "--gzip") || !strcmp(name, "--all-counters") ||
			    !strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "--sql-counters");
		static const char *const valued[] = {"--scenario", "--out", "--seed", "--duration", "--interval",
			"--width", "--start", "--perfmon-interval", "--only", "--perfmon-disks", "--sql-instance",
			"--busy-share"};
		bool known = flag;
		for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
			known = known || !strcmp(name, valued[k]);
		if (!known) {
			static const char *const all[] = {"--list", "--gzip", "--all-counters", "--help", "--sql-counters",
				"--scenario", "--out", "--seed", "--duration", "--interval", "--width", "--start",
				"--perfmon-interval", "--only", "--perfmon-disks", "--sql-instance", "--busy-share"};
			struct buf b;
			buf_init(&b);
			buf_printf(&b, "iopsy: simulate: unknown option '%s'", a);
			suggest_append(&b, name, NULL, all, sizeof all / sizeof all[0]);
			fprintf(stderr, "%s (see iopsy simulate --help)\n", b.data);
			buf_free(&b);
			return EXIT_USAGE;
		}
		if (!flag) {
			if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				fprintf(stderr, "iopsy: simulate: option '%s' needs a value\n", name);
				return EXIT_USAGE;
			}
		} else if (eq) {
			fprintf(stderr, "iopsy: simulate: option '%s' takes no value\n", name);
			return EXIT_USAGE;
		}
		long lv;
		if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
			cli_print_help(sim_help);
			return fflush(stdout) == 0 ? EXIT_OK : EXIT_SYSTEM;
		} else if (!strcmp(name, "--list")) {
			do_list = true;
		} else if (!strcmp(name, "--gzip")) {
			o.gzip = true;
		} else if (!strcmp(name, "--all-counters")) {
			o.all_counters = true;
		} else if (!strcmp(name, "--sql-counters")) {
			o.sql_counters = true;
		} else if (!strcmp(name, "--sql-instance")) {
			size_t n = strlen(val);
			bool ok = n > 0 && n < sizeof o.sql_instance;
			for (size_t k = 0; ok && k < n; k++)
				ok = (val[k] >= 'A' && val[k] <= 'Z') || (val[k] >= 'a' && val[k] <= 'z') ||
				     (val[k] >= '0' && val[k] <= '9') || val[k] == '_';
			if (!ok) {
				fprintf(stderr, "iopsy: simulate: --sql-instance wants a name of 1-%zu letters, digits or _, "
						"got '%s'\n", sizeof o.sql_instance - 1, val);
				return EXIT_USAGE;
			}
			memcpy(o.sql_instance, val, n + 1);
		} else if (!strcmp(name, "--only")) {
			if (!strcmp(val, "esxtop"))
				o.only = SIM_ONLY_ESXTOP;
			else if (!strcmp(val, "perfmon"))
				o.only = SIM_ONLY_PERFMON;
			else {
				fprintf(stderr, "iopsy: simulate: --only wants esxtop or perfmon, got '%s'\n", val);
				return EXIT_USAGE;
			}
		} else if (!strcmp(name, "--perfmon-disks")) {
			if (!strcmp(val, "all"))
				o.perf_disks = SIM_PDISKS_ALL;
			else if (!strcmp(val, "total"))
				o.perf_disks = SIM_PDISKS_TOTAL;
			else if (!strcmp(val, "pct-time"))
				o.perf_disks = SIM_PDISKS_PCT_TIME;
			else if (!strcmp(val, "none"))
				o.perf_disks = SIM_PDISKS_NONE;
			else {
				fprintf(stderr, "iopsy: simulate: --perfmon-disks wants all, total, pct-time or none, got '%s'\n",
					val);
				return EXIT_USAGE;
			}
		} else if (!strcmp(name, "--busy-share")) {
			if (!parse_double(val, 0.02, 0.9, &o.busy_share)) {
				fprintf(stderr, "iopsy: simulate: --busy-share wants a fraction in [0.02, 0.9], got '%s'\n", val);
				return EXIT_USAGE;
			}
		} else if (!strcmp(name, "--perfmon-interval")) {
			if (!parse_double(val, 1, 3600, &o.perf_interval)) {
				fprintf(stderr, "iopsy: simulate: --perfmon-interval wants seconds in [1, 3600], got '%s'\n", val);
				return EXIT_USAGE;
			}
			o.perf_interval_set = true;
		} else if (!strcmp(name, "--scenario")) {
			scenario = val;
		} else if (!strcmp(name, "--out")) {
			out = val;
		} else if (!strcmp(name, "--seed")) {
			char *end;
			errno = 0;
			unsigned long long s = strtoull(val, &end, 10);
			if (errno || end == val || *end || val[0] == '-') {
				fprintf(stderr, "iopsy: simulate: --seed wants a non-negative integer, got '%s'\n", val);
				return EXIT_USAGE;
			}
			o.seed = (uint64_t)s;
		} else if (!strcmp(name, "--duration")) {
			if (!parse_double(val, 10, 7 * 86400, &o.duration)) {
				fprintf(stderr, "iopsy: simulate: --duration wants seconds in [10, 604800], got '%s'\n", val);
				return EXIT_USAGE;
			}
			o.duration_set = true;
		} else if (!strcmp(name, "--interval")) {
			if (!parse_double(val, 1, 3600, &o.interval)) {
				fprintf(stderr, "iopsy: simulate: --interval wants seconds in [1, 3600], got '%s'\n", val);
				return EXIT_USAGE;
			}
			o.interval_set = true;
		} else if (!strcmp(name, "--width")) {
			if (!parse_long(val, 0, 2000000, &lv)) {
				fprintf(stderr, "iopsy: simulate: --width wants a column count in [0, 2000000], got '%s'\n",
					val);
				return EXIT_USAGE;
			}
			o.width = (int)lv;
			o.width_set = true;
		} else if (!strcmp(name, "--start")) {
			if (time_parse_iso(val, &o.start_ms) != 0) {
				fprintf(stderr, "iopsy: simulate: --start wants an ISO-8601 UTC time like "
						"2026-07-27T13:00:00Z, got '%s'\n", val);
				return EXIT_USAGE;
			}
		} else {
			fprintf(stderr, "iopsy: simulate: unknown option '%s' (see iopsy simulate --help)\n", a);
			return EXIT_USAGE;
		}
	}
	if (do_list)
		return list();
	if (!scenario || !out) {
		fprintf(stderr, "iopsy: simulate: --scenario and --out are required (see iopsy simulate --help)\n");
		return EXIT_USAGE;
	}
	const struct sim_scenario *sc = sim_scenario_find(scenario);
	if (!sc) {
		const char *names[128];
		size_t nn = 0;
		for (const struct sim_scenario *s = sim_scenarios; s->name && nn < 128; s++)
			names[nn++] = s->name;
		struct buf b;
		buf_init(&b);
		bool close = suggest_append(&b, scenario, NULL, names, nn);
		fprintf(stderr, "iopsy: simulate: unknown scenario '%s'%s%s", scenario, close ? b.data : "",
			close ? " Known:" : "; known:");
		buf_free(&b);
		for (const struct sim_scenario *s = sim_scenarios; s->name; s++)
			fprintf(stderr, " %s", s->name);
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	double duration = o.duration_set || sc->duration <= 0 ? o.duration : sc->duration;
	double interval = o.interval_set || sc->interval <= 0 ? o.interval : sc->interval;
	double pinterval = o.perf_interval_set ? o.perf_interval : sc->perf_interval > 0 ? sc->perf_interval : interval;
	if (interval * 3 > duration || pinterval * 3 > duration) {
		fprintf(stderr, "iopsy: simulate: --duration must cover at least three intervals\n");
		return EXIT_USAGE;
	}
	if (o.busy_share > 0 && !sc->busy_share) {
		fprintf(stderr, "iopsy: simulate: --busy-share applies to the peak scenarios only, not to '%s'\n", sc->name);
		return EXIT_USAGE;
	}
	if (dir_make(out) != 0) {
		fprintf(stderr, "iopsy: simulate: cannot create %s: %s\n", out, strerror(errno));
		return EXIT_SYSTEM;
	}
	for (int part = 0; part < sc->nparts; part++) {
		int rc = run_part(sc, part, &o, out);
		if (rc)
			return rc;
	}
	return EXIT_OK;
}
