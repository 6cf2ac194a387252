/* main.c — the iopsy command: dispatches subcommands from one table, installs signal handlers
 * that remove half-written outputs, and maps results to the documented exit codes. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pdh.h"
#include "suggest.h"
#include "util.h"

#include "version.h"

static void print_help(FILE *fp)
{
	struct buf b;
	buf_init(&b);
	cli_main_help(&b);
	fputs(b.data, fp);
	buf_free(&b);
}

static void on_signal(int sig)
{
	afile_cleanup_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Charts, the PDF and batch's scratch work in TMPDIR: one that is missing or not writable
 * used to leave the HTML without charts and no PDF without a word (issue 38). Said, and /tmp
 * used instead. */
static void check_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	if (!t || !*t || access(t, W_OK | X_OK) == 0)
		return;
	fprintf(stderr, "iopsy: warning: TMPDIR=%s is not a writable folder (%s): using /tmp for charts, the PDF and "
			"scratch files\n", t, strerror(errno));
	setenv("TMPDIR", "/tmp", 1);
}

int main(int argc, char **argv)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, on_signal); /* a closed pipe ends us quietly, as it does cat */
	signal(SIGXFSZ, SIG_IGN);   /* past ulimit -f a write fails with EFBIG and is reported */
	check_tmpdir();
	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			for (const struct command *c = commands; c->name; c++) {
				if (strcmp(c->name, argv[2]) == 0) {
					char *av[] = {argv[2], "--help", NULL};
					return c->run(2, av);
				}
			}
		}
		print_help(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("iopsy %s\n", IOPSY_VERSION);
		return EXIT_OK;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(c->name, cmd) == 0) {
			/* getopt prints argv[0] in its messages: make it "iopsy COMMAND" */
			static char name[64];
			snprintf(name, sizeof name, "iopsy %s", c->name);
			argv[1] = name;
			return c->run(argc - 1, argv + 1);
		}
	}
	const char *names[32];
	size_t n = 0;
	for (const struct command *c = commands; c->name && n < sizeof names / sizeof names[0]; c++)
		names[n++] = c->name;
	struct buf b;
	buf_init(&b);
	bool close = suggest_append(&b, cmd, NULL, names, n);
	fprintf(stderr, "iopsy: unknown command '%s'%s\nTry 'iopsy --help'.\n", cmd, close ? b.data : "");
	buf_free(&b);
	return EXIT_USAGE;
}
