/* cli_flow.c — the workflow options the commands share: the time window of counters and extract
 * (--from/--to, the rows of the table of analysis options that analyze and compare read from the
 * table) and the entity filters of analyze and compare (--host, --vm, --disk); see commands.h. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "anopts.h"
#include "entfilter.h"
#include "window.h"

int cli_flow_opt(const char *cmd, int c, const char *arg, struct twin_spec *sp, struct ent_filter *f)
{
	if (sp && (c == OPT_FROM || c == OPT_TO)) {
		/* the table's from/to row: its validator and its message, as analyze's and compare's */
		const struct anopt *row = anopt_find(c == OPT_FROM ? "from" : "to", 0);
		struct an_values v;
		memset(&v, 0, sizeof v);
		int k = cli_anopt(cmd, OPT_ANOPT + 4 * (int)(row - anopts), arg, &v, 1);
		if (k < 0)
			return ERR_USAGE;
		sp[0].b[c == OPT_TO] = v.win[c == OPT_TO];
		return 1;
	}
	if (f && c >= OPT_FHOST && c <= OPT_FDISK) {
		char prefix[48];
		snprintf(prefix, sizeof prefix, "iopsy %s", cmd);
		struct diag d;
		cli_option_diag(&d, prefix, ef_option[c - OPT_FHOST]);
		if (ef_add(f, c - OPT_FHOST, arg, &d) < 0) {
			usage_hint(cmd);
			return ERR_USAGE;
		}
		return 1;
	}
	return 0;
}

int cli_window(const char *cmd, const struct twin_spec *sp, char *const *paths, size_t n, struct common_opts *co,
	       struct twin *w)
{
	char prefix[48];
	snprintf(prefix, sizeof prefix, "iopsy %s", cmd);
	struct diag d;
	cli_option_diag(&d, prefix, "--from/--to");
	if (twin_resolve(sp, paths, n, co, w, &d) < 0)
		return EXIT_USAGE;
	for (int k = 0; k < 2; k++)
		if (w->note[k][0])
			diag_emit(&d, DIAG_WARNING, 0, 0, "%s", w->note[k]);
	twin_apply(w, co);
	return EXIT_OK;
}

int cli_filter_check(const char *cmd, const struct ent_filter *f, const char *whose)
{
	char prefix[48];
	snprintf(prefix, sizeof prefix, "iopsy %s", cmd);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = prefix;
	d.sink = diag_stderr();
	return ef_check(f, whose, &d) < 0 ? EXIT_USAGE : EXIT_OK;
}
