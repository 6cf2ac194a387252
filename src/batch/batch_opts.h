/* batch_opts.h — the options of one `iopsy batch` run, as the CLI parsed them; read by the run
 * (batch.h), the runner, each set's worker and the mail delivery. Strings are borrowed from the
 * caller (argv) for the whole run. */
#ifndef IOPSY_BATCH_OPTS_H
#define IOPSY_BATCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "input.h"

struct batch_opts {
	const char *input, *out;
	int jobs;
	const char *history;       /* NULL = OUT/history.sqlite */
	struct common_opts co;     /* per-file options; co.sink: where every message goes */
	bool quiet;
	int fail_on;               /* -1 none, else the enum severity that makes exit 1 */
	/* mail */
	char **mail_to;
	size_t nmail;
	const char *mail_from, *subject, *smtp, *sendmail, *eml_dir;
	bool smtp_starttls;
	/* a one-line status of the running sets (NULL line: clear it); NULL = none */
	void (*status)(void *ctx, const char *line);
	void *status_ctx;
};

#endif
