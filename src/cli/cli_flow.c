/* cli_flow.c — the workflow options analyze, compare, counters and extract share: the time window
 * (--from/--to, compare's --before-from ... --after-to) and the entity filters (--host, --vm,
 * --disk); see commands.h. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "entfilter.h"
#include "window.h"

int cli_flow_opt(const char *cmd, int c, const char *arg, struct twin_spec *sp, struct ent_filter *f)
{
	static const char *const names[] = {"--from", "--to", "--before-from", "--before-to", "--after-from", "--after-to"};
	if (sp && c >= OPT_FROM && c <= OPT_ATO) {
		int k = c - OPT_FROM, side = k / 2, end = k % 2;
		const char *why;
		if (twin_parse(arg, &sp[side].b[end], &why) < 0) {
			struct buf b;
			buf_init(&b);
			buf_add_text_escaped(&b, arg, strlen(arg));
			usage_error(cmd, "%s '%s': %s", names[k], b.data, why);
			buf_free(&b);
			return ERR_USAGE;
		}
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
