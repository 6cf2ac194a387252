/* compare_match.c — which entity of the before side is which of the after side: naa ids, vmhba
 * names and VM:scsiC:T names are stable, guest disks are matched by host and drive, --match-map
 * renames first; world and group ids are never part of a name (doc/domain.md §6). */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


static bool name_eq(enum layer l, const char *a, const char *b)
{
	return l == LAYER_GUEST ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

static bool spec_layer(enum layer l)
{
	return l == LAYER_GUEST || l == LAYER_VSCSI || l == LAYER_DEVICE || l == LAYER_ADAPTER || l == LAYER_VM;
}

/* An entity is worth comparing when it has a value in a metric of its layer's table. */
static bool has_data(const struct entity *e)
{
	for (size_t k = 0; k < cmp_nmetrics; k++)
		if (cmp_metrics[k].layer == e->layer && entity_sk(e, cmp_metrics[k].metric)->n)
			return true;
	return false;
}

struct group {
	enum layer layer;
	const char *name, *host;
	size_t *ents, nents, cap;
	long pair;               /* -1 until matched */
};

static void groups_build(const struct model *m, struct group **out, size_t *nout)
{
	struct group *g = NULL;
	size_t n = 0;
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->outside)
			continue;
		if (!spec_layer(e->layer) || !has_data(e))
			continue;
		size_t k = 0;
		for (; k < n; k++)
			if (g[k].layer == e->layer && name_eq(e->layer, g[k].name, e->name) && cmp_host_same(g[k].host, e->host))
				break;
		if (k == n) {
			g = xrealloc(g, (n + 1) * sizeof *g);
			memset(&g[n], 0, sizeof g[n]);
			g[n].layer = e->layer;
			g[n].name = e->name;
			g[n].host = e->host;
			g[n].pair = -1;
			n++;
		}
		if (g[k].nents == g[k].cap) {
			g[k].cap = g[k].cap ? 2 * g[k].cap : 2;
			g[k].ents = xrealloc(g[k].ents, g[k].cap * sizeof *g[k].ents);
		}
		g[k].ents[g[k].nents++] = i;
	}
	*out = g;
	*nout = n;
}

static size_t pair_new(struct compare *c, enum layer l)
{
	c->pairs = xrealloc(c->pairs, (c->npairs + 1) * sizeof *c->pairs);
	struct cmp_pair *p = &c->pairs[c->npairs];
	memset(p, 0, sizeof *p);
	p->layer = l;
	p->load_mean[0] = p->load_mean[1] = NAN;
	return c->npairs++;
}

static void pair_set(struct compare *c, size_t pi, int s, struct group *g)
{
	struct cmp_pair *p = &c->pairs[pi];
	p->name[s] = g->name;
	p->host[s] = g->host;
	p->nents[s] = g->nents;
	p->ents[s] = arena_alloc(&c->arena, g->nents * sizeof *p->ents[s]);
	memcpy(p->ents[s], g->ents, g->nents * sizeof *g->ents);
	g->pair = (long)pi;
}

static bool map_matches(const struct cmp_mapline *ml, int s, const struct group *g)
{
	return name_eq(g->layer, ml->name[s], g->name) && (!ml->host[s] || cmp_host_same(ml->host[s], g->host));
}


const char *compare_pair_label(const struct cmp_pair *p, enum cmp_side s, char *out, size_t cap)
{
	const char *name = p->name[s] ? p->name[s] : p->name[!s];
	const char *host = p->name[s] ? p->host[s] : p->host[!s];
	if (p->layer == LAYER_GUEST && host)
		snprintf(out, cap, "%s %s", host, name ? name : "?");
	else
		snprintf(out, cap, "%s", name ? name : "?");
	return out;
}

static int pair_cmp(const void *x, const void *y)
{
	const struct cmp_pair *a = x, *b = y;
	int ra = cmp_layer_rank(a->layer), rb = cmp_layer_rank(b->layer);
	if (ra != rb)
		return ra - rb;
	char la[512], lb[512];
	compare_pair_label(a, a->name[0] ? CMP_BEFORE : CMP_AFTER, la, sizeof la);
	compare_pair_label(b, b->name[0] ? CMP_BEFORE : CMP_AFTER, lb, sizeof lb);
	int k = strcmp(la, lb);
	if (k)
		return k;
	/* same label: before-only first, then matched, then after-only; then by host */
	int sa = a->name[0] ? (a->name[1] ? 1 : 0) : 2, sb = b->name[0] ? (b->name[1] ? 1 : 0) : 2;
	if (sa != sb)
		return sa - sb;
	const char *ha = a->host[0] ? a->host[0] : a->host[1], *hb = b->host[0] ? b->host[0] : b->host[1];
	return strcmp(ha ? ha : "", hb ? hb : "");
}

/* Step 2 of cmp_match: unmatched groups of the same layer, name and host (guests_only: guest
 * disks only). */
static void match_same(struct compare *c, struct group *g[2], const size_t n[2], bool guests_only)
{
	for (size_t i = 0; i < n[0]; i++) {
		if (g[0][i].pair >= 0 || (guests_only && g[0][i].layer != LAYER_GUEST))
			continue;
		for (size_t j = 0; j < n[1]; j++) {
			if (g[1][j].pair >= 0 || g[1][j].layer != g[0][i].layer || !name_eq(g[0][i].layer, g[0][i].name, g[1][j].name) ||
			    !cmp_host_same(g[0][i].host, g[1][j].host))
				continue;
			size_t p = pair_new(c, g[0][i].layer);
			pair_set(c, p, 0, &g[0][i]);
			pair_set(c, p, 1, &g[1][j]);
			break;
		}
	}
}

/* The unmatched group of side s holding entity e, or NULL. */
static struct group *group_of(struct group *g, size_t n, const struct model *m, const struct entity *e)
{
	if (!e)
		return NULL;
	size_t k = (size_t)(e - m->ents);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < g[i].nents; j++)
			if (g[i].ents[j] == k)
				return g[i].pair < 0 ? &g[i] : NULL;
	return NULL;
}

/* A guest disk matched on both sides whose disk maps (--map, or the automatic IOPS correlation)
 * tie it to virtual disks (and LUNs) of different names, both otherwise unmatched: those are one
 * disk, moved by the change (LSI to a new PVSCSI controller: scsi0:1 before, scsi1:0 after). */
static void match_through_guests(struct compare *c, struct group *g[2], const size_t n[2])
{
	for (size_t i = 0; i < c->npairs; i++) {
		if (c->pairs[i].layer != LAYER_GUEST || !c->pairs[i].name[0] || !c->pairs[i].name[1])
			continue;
		struct stack st[2];
		for (int s = 0; s < 2; s++) {
			struct topo_in ti = analysis_topo(&c->side[s]);
			topology_stack(&ti, cmp_ent(c, &c->pairs[i], s, 0), &st[s]);
		}
		char label[512];
		compare_pair_label(&c->pairs[i], CMP_AFTER, label, sizeof label);
		for (int lv = 0; lv < 2; lv++) {
			struct group *x = group_of(g[0], n[0], &c->side[0].m, lv ? st[0].device : st[0].vdisk);
			struct group *y = group_of(g[1], n[1], &c->side[1].m, lv ? st[1].device : st[1].vdisk);
			if (!x || !y || x->layer != y->layer || name_eq(x->layer, x->name, y->name))
				continue;
			size_t p = pair_new(c, x->layer);
			pair_set(c, p, 0, x);
			pair_set(c, p, 1, y);
			c->pairs[p].via_guest = arena_strdup(&c->arena, label);
		}
	}
}

void cmp_match(struct compare *c, struct diag *d)
{
	struct group *g[2];
	size_t n[2];
	groups_build(&c->side[0].m, &g[0], &n[0]);
	groups_build(&c->side[1].m, &g[1], &n[1]);
	/* 1. --match-map lines: every before group named on the left with every after group of the
	 * same layer named on the right */
	for (size_t k = 0; k < c->nmap; k++) {
		struct cmp_mapline *ml = &c->map[k];
		for (size_t i = 0; i < n[0]; i++) {
			if (g[0][i].pair >= 0 || !map_matches(ml, 0, &g[0][i]))
				continue;
			for (size_t j = 0; j < n[1]; j++) {
				if (g[1][j].pair >= 0 || g[1][j].layer != g[0][i].layer || !map_matches(ml, 1, &g[1][j]))
					continue;
				size_t p = pair_new(c, g[0][i].layer);
				pair_set(c, p, 0, &g[0][i]);
				pair_set(c, p, 1, &g[1][j]);
				c->pairs[p].mapped = true;
				ml->used++;
				break;
			}
		}
		if (!ml->used)
			diag_emit(d, DIAG_PLAIN, 0, 0, "match map line %ld: '%s%s%s = %s%s%s' matches no entity present on both sides",
				   ml->line, ml->host[0] ? ml->host[0] : "", ml->host[0] ? "\\" : "", ml->name[0],
				   ml->host[1] ? ml->host[1] : "", ml->host[1] ? "\\" : "", ml->name[1]);
	}
	/* 2. guest disks by host and drive; then the virtual disk and LUN under each guest disk that
	 * both sides' disk maps tie to it under different names (a disk moved to a new controller);
	 * then every other entity by layer, name and host */
	match_same(c, g, n, true);
	match_through_guests(c, g, n);
	match_same(c, g, n, false);
	/* 3. names that are global (naa ids, VM:scsiC:T, VM names) match across hosts when unique
	 * among the unmatched on both sides (the VM moved to another host) */
	for (size_t i = 0; i < n[0]; i++) {
		enum layer l = g[0][i].layer;
		if (g[0][i].pair >= 0 || !(l == LAYER_DEVICE || l == LAYER_VSCSI || l == LAYER_VM))
			continue;
		long hit = -1;
		int hits = 0, same_before = 0;
		for (size_t j = 0; j < n[1]; j++)
			if (g[1][j].pair < 0 && g[1][j].layer == l && strcmp(g[1][j].name, g[0][i].name) == 0) {
				hit = (long)j;
				hits++;
			}
		for (size_t k = 0; k < n[0]; k++)
			if (g[0][k].pair < 0 && g[0][k].layer == l && strcmp(g[0][k].name, g[0][i].name) == 0)
				same_before++;
		if (hits != 1 || same_before != 1)
			continue;
		size_t p = pair_new(c, l);
		pair_set(c, p, 0, &g[0][i]);
		pair_set(c, p, 1, &g[1][hit]);
		c->pairs[p].by_name = true;
	}
	/* 3b. a Hyper-V VHDX moved to another volume (Move-VMStorage): its path changed, its file name
	 * did not; matched by the file name when unique among the unmatched on both sides */
	for (size_t i = 0; i < n[0]; i++) {
		if (g[0][i].pair >= 0 || g[0][i].layer != LAYER_VSCSI || !strcasestr(g[0][i].name, ".vhd"))
			continue;
		const char *file = iop_vhdx_file(g[0][i].name);
		if (file == g[0][i].name)
			continue; /* no folder to tell the file name by */
		long hit = -1;
		int hits = 0, same_before = 0;
		for (size_t j = 0; j < n[1]; j++)
			if (g[1][j].pair < 0 && g[1][j].layer == LAYER_VSCSI && strcasecmp(iop_vhdx_file(g[1][j].name), file) == 0) {
				hit = (long)j;
				hits++;
			}
		for (size_t k = 0; k < n[0]; k++)
			if (g[0][k].pair < 0 && g[0][k].layer == LAYER_VSCSI && strcasecmp(iop_vhdx_file(g[0][k].name), file) == 0)
				same_before++;
		if (hits != 1 || same_before != 1)
			continue;
		size_t p = pair_new(c, LAYER_VSCSI);
		pair_set(c, p, 0, &g[0][i]);
		pair_set(c, p, 1, &g[1][hit]);
		c->pairs[p].by_name = true;
	}
	/* 4. the rest exist on one side only */
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++)
			if (g[s][i].pair < 0)
				pair_set(c, pair_new(c, g[s][i].layer), s, &g[s][i]);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < n[s]; i++)
			free(g[s][i].ents);
		free(g[s]);
	}
	if (c->npairs)
		qsort(c->pairs, c->npairs, sizeof *c->pairs, pair_cmp);
}
