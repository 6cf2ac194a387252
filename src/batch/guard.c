/* guard.c — outputs of a batch run kept apart from its inputs (see guard.h). */
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hdb.h"

/* p made absolute with its links resolved, also when its last components do not exist yet (an
 * --out folder the run will make): the longest existing prefix resolved, the rest appended.
 * Caller frees. */
static char *resolved(const char *p)
{
	char *r = realpath(p, NULL);
	if (r)
		return r;
	const char *slash = strrchr(p, '/');
	char *parent = slash ? (slash == p ? xstrdup("/") : xstrndup(p, (size_t)(slash - p))) : xstrdup(".");
	char *rp = resolved(parent);
	free(parent);
	const char *base = slash ? slash + 1 : p;
	char *out = xprintf("%s%s%s", rp, strcmp(rp, "/") == 0 ? "" : "/", base);
	free(rp);
	return out;
}

/* Whether path a is b or lies below it (both resolved). */
static bool below(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (n == 1 && b[0] == '/')
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0');
}

struct target {
	const char *opt, *given;
	char *abs;
};

/* A folder the run reads (INPUT, a set's folder) against the outputs: a message and true when
 * one of them lies in it. */
static bool clash(const struct target *t, size_t nt, const char *dir, const char *what, struct diag *d)
{
	for (size_t k = 0; k < nt; k++)
		if (t[k].abs && below(t[k].abs, dir)) {
			diag_emit(d, DIAG_PLAIN, 0, 0,
				  "%s %s is inside %s %s: iopsy never writes into its input (give a "
				  "folder outside it)",
				  t[k].opt, t[k].given, what, dir);
			return true;
		}
	return false;
}

int batch_outputs_not_inputs(const struct batch *b, const struct batch_opts *o, struct diag *d)
{
	struct target t[3] = {
	    {"--out", o->out, resolved(o->out)}, {"--eml", o->eml_dir, NULL}, {"--history", o->history, NULL}};
	if (o->eml_dir)
		t[1].abs = resolved(o->eml_dir);
	if (o->history && !hdb_is_uri(o->history))
		t[2].abs = resolved(o->history);
	bool bad = false;
	struct stat st;
	char *in = resolved(o->input);
	if (stat(o->input, &st) == 0 && S_ISDIR(st.st_mode))
		bad = clash(t, 3, in, "INPUT", d);
	else
		for (size_t k = 0; k < 3 && !bad; k++)
			if (t[k].abs && strcmp(t[k].abs, in) == 0) {
				diag_emit(d, DIAG_PLAIN, 0, 0,
					  "%s %s is the manifest %s: iopsy never overwrites an input", t[k].opt,
					  t[k].given, o->input);
				bad = true;
			}
	free(in);
	/* the folders of the files listed (a manifest's sets may be anywhere), each once in a row */
	char *last = NULL;
	for (size_t i = 0; i < b->nsets && !bad; i++) {
		struct bfile *own = NULL;
		const struct bfile *f = bset_files(&b->sets[i], &own);
		for (size_t k = 0; f && k < b->sets[i].nfiles && !bad; k++) {
			const char *slash = strrchr(f[k].path, '/');
			char *dir = slash ? (slash == f[k].path ? xstrdup("/")
								: xstrndup(f[k].path, (size_t)(slash - f[k].path)))
					  : xstrdup(".");
			if (!last || strcmp(last, dir) != 0) {
				free(last);
				last = dir;
				char *abs = resolved(dir);
				bad = clash(t, 3, abs, "the set folder", d);
				if (!bad && below(abs, t[0].abs)) {
					diag_emit(d, DIAG_PLAIN, 0, 0,
						  "set %s reads files in %s, inside --out %s: iopsy never "
						  "writes into its input (give an --out outside it)",
						  b->sets[i].dir, dir, o->out);
					bad = true;
				}
				free(abs);
			} else {
				free(dir);
			}
		}
		if (own)
			bfiles_free(own, b->sets[i].nfiles);
	}
	free(last);
	for (int k = 0; k < 3; k++)
		free(t[k].abs);
	return bad ? ERR_USAGE : 0;
}
