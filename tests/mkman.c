/* mkman.c — `make man`: writes doc/iopsy.1 with its generated regions (the finding kinds, the input
 * formats, the reports, the analysis options) regenerated from the tables (src/cli/helpgen.c).
 * Usage: mkman PAGE > NEW   Exit 0, or 1 with a message when the page cannot be read or a region
 * is malformed. tests/check_registry.c fails when the committed page differs from this output. */
#include <stdio.h>
#include <stdlib.h>

#include "helpgen.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: mkman PAGE > NEW\n", stderr);
		return 1;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	struct buf in, out;
	buf_init(&in);
	buf_init(&out);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&in, chunk, n);
	fclose(f);
	const char *why = NULL;
	int regions = man_regenerate(in.data ? in.data : "", in.len, &out, &why);
	if (regions < 0) {
		fprintf(stderr, "mkman: %s: %s\n", argv[1], why);
		return 1;
	}
	fwrite(out.data, 1, out.len, stdout);
	fprintf(stderr, "mkman: %s: %d generated regions\n", argv[1], regions);
	buf_free(&in);
	buf_free(&out);
	return fflush(stdout) == 0 ? 0 : 1;
}
