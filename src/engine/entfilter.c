/* entfilter.c — --host/--vm/--disk (see entfilter.h). */
#include "entfilter.h"

#include <stdlib.h>
#include <string.h>

const char *const ef_option[EF_KINDS] = {"--host", "--vm", "--disk"};
static const char *const ef_subject[EF_KINDS] = {"ESXi host", "VM", "disk"};

void ef_init(struct ent_filter *f)
{
	memset(f, 0, sizeof *f);
	arena_init(&f->arena);
}

void ef_free(struct ent_filter *f)
{
	for (int k = 0; k < EF_KINDS; k++)
		for (int i = 0; i < f->n[k]; i++)
			matcher_free(f->p[k][i].m);
	free(f->tab);
	arena_free(&f->arena);
	memset(f, 0, sizeof *f);
}

bool ef_test(const struct ent_filter *f, int kind, const char *s)
{
	if (!f->n[kind])
		return true;
	struct diag quiet;
	diag_init(&quiet, NULL, 0);
	for (int i = 0; i < f->n[kind]; i++)
		if (matcher_match(f->p[kind][i].m, s ? s : "", strlen(s ? s : ""), &quiet) == 1)
			return true;
	return false;
}

int ef_add(struct ent_filter *f, int kind, const char *text, struct diag *d)
{
	if (f->n[kind] >= EF_MAX) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "at most %d %s patterns (join them with '|')", EF_MAX, ef_option[kind]);
		return ERR_USAGE;
	}
	struct matcher *m = matcher_new(text, true, d);
	if (!m)
		return ERR_USAGE;
	f->p[kind][f->n[kind]].text = text;
	f->p[kind][f->n[kind]].m = m;
	f->p[kind][f->n[kind]].hits = 0;
	f->n[kind]++;
	return 0;
}

bool ef_on(const struct ent_filter *f)
{
	return f && (f->n[EF_HOST] || f->n[EF_VM] || f->n[EF_DISK]);
}

bool ef_kind_on(const struct ent_filter *f, int kind)
{
	return f && f->n[kind] > 0;
}

bool ef_match(struct ent_filter *f, int kind, enum layer l, const char *s)
{
	if (!f->n[kind])
		return true;
	if (!s)
		s = "";
	bool any = false;
	struct diag quiet;
	diag_init(&quiet, NULL, 0);
	for (int i = 0; i < f->n[kind]; i++) {
		if (matcher_match(f->p[kind][i].m, s, strlen(s), &quiet) == 1) {
			f->p[kind][i].hits++;
			any = true;
		}
	}
	bool known = false;
	int *ns = &f->nseen[kind][l];
	for (int i = 0; i < *ns && i < EF_SEEN && !known; i++)
		known = strcmp(f->seen[kind][l][i], s) == 0;
	if (!known && *ns < EF_SEEN)
		f->seen[kind][l][(*ns)++] = arena_strdup(&f->arena, s);
	else if (!known && *ns == EF_SEEN)
		(*ns)++; /* more than shown */
	return any;
}

int ef_copy(struct ent_filter *dst, const struct ent_filter *src, struct diag *d)
{
	ef_init(dst);
	for (int k = 0; k < EF_KINDS; k++)
		for (int i = 0; i < src->n[k]; i++)
			if (ef_add(dst, k, src->p[k][i].text, d) < 0)
				return ERR_USAGE;
	return 0;
}

int ef_check(const struct ent_filter *f, const char *whose, struct diag *d)
{
	if (!whose)
		whose = "the captures";
	if (!ef_on(f))
		return 0;
	int rc = 0;
	for (int k = 0; k < EF_KINDS; k++) {
		for (int i = 0; i < f->n[k]; i++) {
			if (f->p[k][i].hits)
				continue;
			struct buf b;
			buf_init(&b);
			buf_add_text_escaped(&b, f->p[k][i].text, strlen(f->p[k][i].text));
			static const char *const lw[LAYER_COUNT] = {"guest disks", "virtual disks", "worlds", "devices", "adapters",
								    "arrays", "VMs", "SQL Server", "paths", "volumes"};
			struct buf seen;
			buf_init(&seen);
			int groups = 0;
			bool more = false;
			const char *shown[LAYER_COUNT * EF_SEEN];
			int nshown = 0;
			for (int l = 0; l < LAYER_COUNT; l++) {
				int ns = f->nseen[k][l];
				if (!ns)
					continue;
				more |= ns > EF_SEEN;
				if (k == EF_DISK)
					buf_printf(&seen, "%s%s ", groups ? "; " : "", lw[l]);
				int in_group = 0;
				for (int j = 0; j < ns && j < EF_SEEN; j++) {
					const char *x = f->seen[k][l][j];
					bool dup = false;
					for (int q = 0; k != EF_DISK && q < nshown && !dup; q++)
						dup = strcmp(shown[q], x) == 0;
					if (dup)
						continue;
					shown[nshown++] = x;
					buf_adds(&seen, in_group++ || (k != EF_DISK && groups) ? ", " : "");
					buf_add_text_escaped(&seen, x, strlen(x));
					groups++;
				}
				if (k == EF_DISK && ns > EF_SEEN)
					buf_adds(&seen, ", ...");
			}
			if (k != EF_DISK && more)
				buf_adds(&seen, ", ...");
			diag_emit(d, DIAG_PLAIN, 0, 0, "%s '%s' matches no %s of %s%s%s%s", ef_option[k], b.data,
				  ef_subject[k], whose, groups ? " (they have: " : " (they have none)", seen.data ? seen.data : "",
				  groups ? ")" : "");
			buf_free(&b);
			buf_free(&seen);
			rc = ERR_USAGE;
		}
	}
	long kept = 0;
	for (int l = 0; l < LAYER_COUNT; l++)
		kept += f->kept[l];
	if (!rc && !kept) {
		struct buf o;
		buf_init(&o);
		ef_options_text(f, &o);
		diag_emit(d, DIAG_PLAIN, 0, 0, "the filters %s leave nothing of %s to analyse (each matches something, but no "
			  "entity passes all of them)", o.data, whose);
		buf_free(&o);
		rc = ERR_USAGE;
	}
	return rc;
}

void ef_options_text(const struct ent_filter *f, struct buf *b)
{
	int n = 0;
	for (int k = 0; k < EF_KINDS; k++) {
		for (int i = 0; i < f->n[k]; i++) {
			const char *t = f->p[k][i].text;
			buf_printf(b, "%s%s ", n++ ? " " : "", ef_option[k]);
			bool q = strpbrk(t, " \t'\"|\\$*?()[]") != NULL;
			if (q)
				buf_addc(b, '\'');
			buf_add_text_escaped(b, t, strlen(t));
			if (q)
				buf_addc(b, '\'');
		}
	}
}
