/* capmodel.c — builds the neutral capture model from esxtop and perfmon captures in one pass
 * (see capmodel.h). Column names are resolved to (entity, metric) once, at header time. */
#include "capmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "inventory.h"
#include "parser.h"
#include "parser.h"
#include "source.h"

static const struct qsketch sk_empty = {.min = INFINITY, .max = -INFINITY};

const struct qsketch *entity_sk(const struct entity *e, int m)
{
	return e->skx[m] ? &e->skv[e->skx[m] - 1] : &sk_empty;
}

/* Metric m's sketch of e, made empty when it has none. */
static struct qsketch *entity_sk_mut(struct entity *e, int m)
{
	if (!e->skx[m]) {
		/* room for a power of two from 4: grown by doubling */
		unsigned n = e->nsk;
		if (n == 0 || (n >= 4 && (n & (n - 1)) == 0))
			e->skv = xrealloc(e->skv, (n ? 2 * n : 4) * sizeof *e->skv);
		qs_init(&e->skv[n]);
		e->nsk = (unsigned char)(n + 1);
		e->skx[m] = e->nsk;
	}
	return &e->skv[e->skx[m] - 1];
}

static void entity_sk_free(struct entity *e)
{
	for (unsigned k = 0; k < e->nsk; k++)
		qs_free(&e->skv[k]);
	free(e->skv);
	e->skv = NULL;
	e->nsk = 0;
	memset(e->skx, 0, sizeof e->skx);
}

void model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nents; i++) {
		entity_sk_free(&m->ents[i]);
		free(m->ents[i].dq);
	}
	for (size_t i = 0; i < m->ncaps; i++) {
		ds_free(&m->caps[i].ds);
		free(m->caps[i].parts);
	}
	for (size_t i = 0; i < m->naux; i++)
		entity_sk_free(&m->aux[i]);
	free(m->aux);
	free(m->ahidx);
	free(m->wvm);
	free(m->ents);
	free(m->caps);
	free(m->disks);
	free(m->hidx);
	arena_free(&m->arena);
	memset(m, 0, sizeof *m);
}

struct entity *model_find(struct model *m, enum layer l, const char *name, const char *host)
{
	for (size_t i = 0; i < m->nents; i++) {
		struct entity *e = &m->ents[i];
		if (e->layer == l && strcmp(e->name, name) == 0 && (!host || !e->host || strcmp(e->host, host) == 0))
			return e;
	}
	return NULL;
}

/* Entity lookup: an open-addressing hash of (capture, layer, host, name) → entity index + 1, so a
 * header with tens of thousands of devices is resolved in linear time. */
static uint64_t entity_hash(size_t cap_index, enum layer l, const char *name, const char *host)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)cap_index * 31 ^ (uint64_t)l;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const unsigned char *p = (const unsigned char *)(host ? host : ""); *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

/* One table of entities and its hash: the model's ents, or its io-path entities (aux). */
struct etab {
	struct entity **ents;
	size_t *n, *cap;
	size_t **hidx, *hcap;
};

static struct etab tab_main(struct model *m) { return (struct etab){&m->ents, &m->nents, &m->cap_ents, &m->hidx, &m->hcap}; }
static struct etab tab_aux(struct model *m) { return (struct etab){&m->aux, &m->naux, &m->cap_aux, &m->ahidx, &m->ahcap}; }

static void hash_insert(const struct etab *t, size_t idx)
{
	const struct entity *e = &(*t->ents)[idx];
	size_t mask = *t->hcap - 1;
	size_t k = (size_t)entity_hash(e->capture, e->layer, e->name, e->host) & mask;
	while ((*t->hidx)[k])
		k = (k + 1) & mask;
	(*t->hidx)[k] = idx + 1;
}

/* Returns the entity's index in table t, creating it; SIZE_MAX when the capture reached
 * MODEL_MAX_ENTITIES in that table. */
static size_t tab_get(struct model *m, const struct etab *t, size_t cap_index, enum layer l, const char *name, const char *host)
{
	struct capture *c = &m->caps[cap_index];
	if (*t->hcap) {
		size_t mask = *t->hcap - 1;
		for (size_t k = (size_t)entity_hash(cap_index, l, name, host) & mask; (*t->hidx)[k]; k = (k + 1) & mask) {
			struct entity *e = &(*t->ents)[(*t->hidx)[k] - 1];
			if (e->capture == cap_index && e->layer == l && strcmp(e->name, name) == 0 &&
			    strcmp(e->host ? e->host : "", host ? host : "") == 0)
				return (*t->hidx)[k] - 1;
		}
	}
	bool aux = t->ents == &m->aux;
	if ((aux ? c->naux : c->nentities) >= MODEL_MAX_ENTITIES)
		return SIZE_MAX;
	if (*t->n == *t->cap) {
		*t->cap = *t->cap ? *t->cap * 2 : 64;
		*t->ents = xrealloc(*t->ents, *t->cap * sizeof **t->ents);
	}
	struct entity *e = &(*t->ents)[*t->n];
	memset(e, 0, sizeof *e);
	e->layer = l;
	e->name = arena_strdup(&m->arena, name);
	e->host = host ? arena_strdup(&m->arena, host) : NULL;
	e->capture = cap_index;
	for (int k = 0; k < M_COUNT; k++)
		e->series[k] = -1;
	e->dq_first = e->dq_last = NAN;
	e->dq_max = 0;
	e->wid = -1;
	e->disk_match = -1;
	if (aux)
		c->naux++;
	else
		c->nentities++;
	size_t idx = (*t->n)++;
	/* keep the table at most half full */
	if (2 * *t->n > *t->hcap) {
		size_t cap = *t->hcap ? *t->hcap * 2 : 256;
		while (2 * *t->n > cap)
			cap *= 2;
		free(*t->hidx);
		*t->hidx = xcalloc(cap, sizeof **t->hidx);
		*t->hcap = cap;
		for (size_t k = 0; k < *t->n; k++)
			hash_insert(t, k);
	} else {
		hash_insert(t, idx);
	}
	return idx;
}

static size_t entity_get(struct model *m, size_t cap_index, enum layer l, const char *name, const char *host)
{
	struct etab t = tab_main(m);
	return tab_get(m, &t, cap_index, l, name, host);
}

static size_t aux_get(struct model *m, size_t cap_index, enum layer l, const char *name, const char *host)
{
	struct etab t = tab_aux(m);
	return tab_get(m, &t, cap_index, l, name, host);
}

/* A machine's memory (a Windows machine's Memory and Paging File, an ESXi host's Memory): kept on
 * an io-path entity of the capture ("_Total", a page file's drive), which is no VM. */
static bool machine_memory(int m)
{
	return (m >= M_MEM_AVAIL_MB && m <= M_MEM_PF_USAGE) || (m >= M_HMEM_FREE_MB && m <= M_HMEM_BALLOON);
}

/* The metrics kept of the io-path entities, the ones the IO path graph reads (each series costs its
 * downsampled buckets, and a big host has thousands of worlds and paths): a world's load on its
 * device (commands, outstanding commands, bytes), a path's commands and latency. */
static bool aux_metric(enum layer l, int m)
{
	if (l == LAYER_PATH)
		return m == M_CMDS || m == M_DAVG;
	if (l == LAYER_VM)
		return m == M_HV_LP_RUN || machine_memory(m); /* a Hyper-V host's logical processors (_Total) */
	return m == M_CMDS || m == M_ACTV || m == M_MBR || m == M_MBW;
}

/* Two VMs of one display name (VMs in different folders may share one) are two groups: their
 * worlds are told apart by group id ("SQL01 (group 1234)"), never merged into one VM whose IO
 * would be the sum of both. Said once per name (capture.ambiguous_vms). */
static void split_vm_names(struct model *m, size_t ci)
{
	size_t first = m->nwvm;
	while (first > 0 && m->wvm[first - 1].capture == ci)
		first--;
	for (size_t i = first; i < m->nwvm; i++) {
		struct world_vm *a = &m->wvm[i];
		if (a->gid < 0 || strstr(a->vm, " (group "))
			continue;
		bool two = false;
		for (size_t k = first; k < m->nwvm && !two; k++)
			two = m->wvm[k].gid >= 0 && m->wvm[k].gid != a->gid && strcmp(m->wvm[k].vm, a->vm) == 0;
		if (!two)
			continue;
		const char *name = a->vm;
		struct capture *c = &m->caps[ci];
		if (!c->ambiguous_vms++)
			c->ambiguous_first = name;
		for (size_t k = first; k < m->nwvm; k++)
			if (m->wvm[k].gid >= 0 && strcmp(m->wvm[k].vm, name) == 0)
				m->wvm[k].vm = arena_printf(&m->arena, "%s (group %ld)", name, m->wvm[k].gid);
	}
}

/* The worlds whose VM the header names (Vcpu columns), once per world. */
static void note_world_vms(struct model *m, size_t ci, const struct parser_ops *ops, struct reader *r)
{
	if (!ops->world_of)
		return;
	char vm[256];
	long wid, prev = -1;
	for (size_t i = 0; i < reader_ncols(r); i++) {
		const struct pdh_column *col = reader_column(r, i);
		if (!ops->world_of(&col->path, &wid, vm, sizeof vm) || !vm[0] || wid == prev)
			continue;
		prev = wid;
		bool known = false;
		for (size_t k = m->nwvm; k-- > 0 && !known && m->wvm[k].capture == ci;)
			known = m->wvm[k].wid == wid;
		if (known)
			continue;
		if ((m->nwvm & (m->nwvm + 1)) == 0 || !m->wvm)
			m->wvm = xrealloc(m->wvm, (2 * m->nwvm + 2) * sizeof *m->wvm);
		/* the world's name is after ":WID:" in the instance */
		const char *in = col->path.instance, *w = NULL;
		char key[32];
		snprintf(key, sizeof key, ":%ld:", wid);
		const char *q = strstr(in, key);
		if (q)
			w = q + strlen(key);
		bool vcpu = w && (strncmp(w, "vmx-vcpu-", 9) == 0 || (strncmp(w, "vmm", 3) == 0 && w[3] >= '0' && w[3] <= '9'));
		char *end;
		long gid = strtol(in, &end, 10);
		m->wvm[m->nwvm++] =
		    (struct world_vm){ci, wid, arena_strdup(&m->arena, vm), vcpu, *end == ':' ? gid : -1};
	}
	split_vm_names(m, ci);
}

const struct guest_disk_no *model_disk_no(const struct model *m, int n, const char *host)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].disk == n && (!host || strcasecmp(host, m->disks[i].host) == 0))
			return &m->disks[i];
	return NULL;
}

static void note_disk_no(struct model *m, const char *host, const struct counter_class *cc)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].disk == cc->disk_no && strcmp(m->disks[i].host, host) == 0)
			return;
	m->disks = xrealloc(m->disks, (m->ndisks + 1) * sizeof *m->disks);
	m->disks[m->ndisks].host = arena_strdup(&m->arena, host);
	m->disks[m->ndisks].drive = arena_strdup(&m->arena, cc->disk_drive);
	m->disks[m->ndisks].disk = cc->disk_no;
	m->ndisks++;
}

int model_vm_vcpus(const struct model *m, size_t ci, const char *vm)
{
	int n = 0;
	for (size_t k = 0; k < m->nwvm; k++)
		n += m->wvm[k].capture == ci && m->wvm[k].vcpu && strcmp(m->wvm[k].vm, vm) == 0;
	return n;
}

bool model_over_cap(const struct model *m, size_t ci, enum layer l)
{
	for (size_t i = 0; i < m->ncaps; i++)
		if ((ci == SIZE_MAX || ci == i) && m->caps[i].over_cap[l] > 0)
			return true;
	return false;
}

long model_over_cap_text(const struct model *m, size_t ci, char *out, size_t cap)
{
	static const char *const what[LAYER_COUNT] = {
	    [LAYER_GUEST] = "guest disks", [LAYER_VSCSI] = "virtual disks", [LAYER_WORLD] = "per-world IO",
	    [LAYER_DEVICE] = "devices",    [LAYER_ADAPTER] = "adapters",    [LAYER_VM] = "VMs",
	    [LAYER_SQL] = "SQL Server",    [LAYER_PATH] = "paths",          [LAYER_VOLUME] = "volumes",
	    [LAYER_ARRAY] = "arrays"};
	long cols = 0;
	size_t o = 0;
	out[0] = '\0';
	for (int l = 0; l < LAYER_COUNT; l++) {
		long n = 0;
		for (size_t i = 0; i < m->ncaps; i++)
			if (ci == SIZE_MAX || ci == i)
				n += m->caps[i].over_cap[l];
		if (!n)
			continue;
		cols += n;
		int k = snprintf(out + o, cap - o, "%s%s", o ? ", " : "", what[l]);
		if (k > 0 && (size_t)k < cap - o)
			o += (size_t)k;
	}
	return cols;
}

double entity_mean(const struct entity *e, int m)
{
	return e && entity_sk(e, m)->n ? qs_mean(entity_sk(e, m)) : NAN;
}

int64_t model_time(const struct model *m, const struct capture *c, size_t k)
{
	(void)m;
	return (c->ds.t0[k] + c->ds.t1[k]) / 2 + c->clock_offset_ms;
}

/* Per selected column: where its values go. */
struct colmap {
	size_t col;
	size_t ent;     /* index in ents, or in aux when aux */
	bool aux;
	int metric;
	int series;     /* index in the capture's dstore (duplicate columns are not mapped at all) */
	double scale;
	unsigned char combine; /* COMBINE_SUM/MEAN: one of several columns of the series (parser.h) */
};

/* A world column feeding a device's active-world count. */
struct worldcol {
	size_t col, dev_series_owner; /* owner = entity index of the device */
};

static int model_read(struct model *m, const char *path, struct input *in, const struct common_opts *co);

static void put(struct capture *c, struct entity *e, int metric, double v, double *cur)
{
	cur[e->series[metric]] = v;
	ds_set(&c->ds, (size_t)e->series[metric], v);
	qs_add(entity_sk_mut(e, metric), v);
}

/* The row's combined series (several columns each: a VM's virtual processors), summed into cur by
 * the row loop with their column counts in ncomb: stored once, as the sum or the mean. */
static void combine_row(struct model *m, struct capture *c, const struct colmap *cm, size_t ncm, double *cur, int *ncomb)
{
	for (size_t k = 0; k < ncm; k++) {
		size_t sk = (size_t)cm[k].series;
		if (cm[k].combine == COMBINE_FIRST || !ncomb[sk])
			continue;
		struct entity *e = cm[k].aux ? &m->aux[cm[k].ent] : &m->ents[cm[k].ent];
		double v = cm[k].combine == COMBINE_MEAN ? cur[sk] / ncomb[sk] : cur[sk];
		ncomb[sk] = 0; /* once per series */
		put(c, e, cm[k].metric, v, cur);
	}
}

/* A Hyper-V virtual hard disk's or volume's commands (reads + writes) and the disk's normalized IOPS: each IO counts
 * ceil(size / 8 KiB), the unit Storage QoS limits [ms: Storage Quality of Service], from the
 * row's mean IO size per direction (doc/hyperv.md). */
static void derive_row(struct entity *e, struct capture *c, double *cur)
{
	double r = cur[e->series[M_READS]], w = cur[e->series[M_WRITES]];
	if (isnan(r) || isnan(w))
		return;
	put(c, e, M_CMDS, r + w, cur);
	if (e->series[M_HV_NIOPS] < 0)
		return;
	double br = cur[e->series[M_MBR]], bw = cur[e->series[M_MBW]];
	if (isnan(br) || isnan(bw))
		return;
	double n = 0;
	const double ops[2] = {r, w}, mb[2] = {br, bw};
	for (int j = 0; j < 2; j++) {
		if (!(ops[j] > 0))
			continue;
		double units = ceil(mb[j] * 1048576.0 / ops[j] / 8192.0 - 1e-9);
		n += ops[j] * (units > 1 ? units : 1);
	}
	put(c, e, M_HV_NIOPS, n, cur);
}

/* ---- the entity filters (entfilter.h) on one capture ---- */

struct fsel {
	struct ent_filter *f;    /* NULL: keep everything */
	bool host_cap;
	bool hyperv;             /* a Hyper-V host's capture (its VMs are decided after mapping) */
	signed char last_dm;     /* fsel_keep's last entity: its --disk match when pending (ef_dec.dm) */
	bool worlds;             /* the capture names per-world IO: devices are tied to VMs */
	const char **devs;       /* devices a selected VM's worlds issue IO to */
	size_t ndev;
	struct arena a;
};

static uint64_t fnv(const char *s, uint64_t h)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return (h ^ 0x1f) * 1099511628211ull;
}

/* The decision of (layer, host, name) made before (in any capture), or NULL; *slot where a new
 * one goes. */
static struct ef_dec *fsel_find(struct ent_filter *f, const char *key, uint64_t h, size_t *slot)
{
	if (2 * (f->tn + 1) > f->tcap) {
		size_t cap = f->tcap ? 2 * f->tcap : 256;
		struct ef_dec *t = xcalloc(cap, sizeof *t);
		for (size_t i = 0; i < f->tcap; i++) {
			if (!f->tab[i].key)
				continue;
			size_t k = (size_t)f->tab[i].h & (cap - 1);
			while (t[k].key)
				k = (k + 1) & (cap - 1);
			t[k] = f->tab[i];
		}
		free(f->tab);
		f->tab = t;
		f->tcap = cap;
	}
	size_t k = (size_t)h & (f->tcap - 1);
	for (; f->tab[k].key; k = (k + 1) & (f->tcap - 1))
		if (f->tab[k].h == h && strcmp(f->tab[k].key, key) == 0)
			return &f->tab[k];
	*slot = k;
	return NULL;
}

static bool fsel_has_dev(const struct fsel *fs, const char *name)
{
	for (size_t i = 0; i < fs->ndev; i++)
		if (strcmp(fs->devs[i], name) == 0)
			return true;
	return false;
}

/* Whether entity (l, name, host) is in the selection; every filter that judges it is asked (so
 * each pattern's hits are counted), once per entity. */
static bool fsel_keep(struct fsel *fs, enum layer l, const char *name, const char *host)
{
	if (!fs->f)
		return true;
	char lk[4] = {(char)('a' + l), '\x1f', 0, 0};
	uint64_t h = fnv(name, fnv(host ? host : "", fnv(lk, 1469598103934665603ull)));
	struct buf key;
	buf_init(&key);
	buf_printf(&key, "%c\x1f%s\x1f%s", 'a' + l, host ? host : "", name);
	size_t slot = 0;
	struct ef_dec *d = fsel_find(fs->f, key.data, h, &slot);
	fs->last_dm = -1;
	if (d) {
		buf_free(&key);
		fs->last_dm = d->dm;
		return d->keep;
	}
	signed char dm = -1;
	struct ent_filter *f = fs->f;
	bool keep = true;
	if (fs->host_cap && ef_kind_on(f, EF_HOST))
		keep &= ef_match(f, EF_HOST, l, host);
	bool vm = ef_kind_on(f, EF_VM), disk = ef_kind_on(f, EF_DISK);
	switch (l) {
	case LAYER_GUEST:
		if (vm)
			keep &= ef_match(f, EF_VM, l, host);
		if (disk)
			keep &= ef_match(f, EF_DISK, l, name);
		break;
	case LAYER_SQL:
		if (vm)
			keep &= ef_match(f, EF_VM, l, host);
		break;
	case LAYER_VM:
		if (vm && fs->hyperv)
			dm = ef_match(f, EF_VM, l, name); /* read (the VHDX paths' VM names), outside unless selected */
		else if (vm)
			keep &= ef_match(f, EF_VM, l, name);
		break;
	case LAYER_VSCSI:
		if (vm) {
			/* "SQL01:scsi0:1": the VM is what comes before its controller (":nvme0:1" too) */
			const char *sc = vdisk_ctrl(name);
			char v[256];
			size_t n = sc ? (size_t)(sc - name) : strlen(name);
			n = n < sizeof v - 1 ? n : sizeof v - 1;
			memcpy(v, name, n);
			v[n] = '\0';
			if (!sc && fs->host_cap) {
				/* a Hyper-V VHDX, whose path names its VM only by convention: read, and
				 * decided after mapping like --disk (its guest's disks keep it), so that the
				 * other VMs' VHDX files on a shared disk still show who loads it */
				dm = ef_match(f, EF_VM, l, v) && (!disk || ef_match(f, EF_DISK, l, name));
				break;
			}
			keep &= ef_match(f, EF_VM, l, v);
		}
		if (disk && fs->host_cap)
			dm = ef_match(f, EF_DISK, l, name); /* decided on the disks' paths after mapping */
		else if (disk)
			keep &= ef_match(f, EF_DISK, l, name);
		break;
	case LAYER_DEVICE:
		if (vm) {
			if (!fs->worlds)
				f->devices_unlinked = true;
			else
				keep &= fsel_has_dev(fs, name);
		}
		if (disk && fs->host_cap)
			dm = ef_match(f, EF_DISK, l, name);
		else if (disk)
			keep &= ef_match(f, EF_DISK, l, name);
		break;
	default:
		break;
	}
	fs->f->tab[slot] = (struct ef_dec){h, arena_strdup(&fs->f->arena, key.data), keep, dm};
	fs->last_dm = dm;
	fs->f->tn++;
	buf_free(&key);
	if (l < LAYER_COUNT) {
		if (keep)
			f->kept[l]++;
		else
			f->dropped[l]++;
	}
	return keep;
}

/* --vm on a host capture: the devices the selected VMs' worlds issue IO to, from the header's
 * world columns (Vcpu gives a world's VM, Per-Device-Per-World the world's devices). */
static void fsel_worlds(struct fsel *fs, const struct parser_ops *ops, struct reader *r)
{
	if (!fs->f || !ef_kind_on(fs->f, EF_VM) || !fs->host_cap || !ops->world_of)
		return;
	size_t n = reader_ncols(r);
	long *sel = NULL;
	size_t nsel = 0, capsel = 0;
	char vm[256];
	long wid;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *col = reader_column(r, i);
		if (!ops->world_of(&col->path, &wid, vm, sizeof vm) || !vm[0])
			continue;
		if (nsel && sel[nsel - 1] == wid)
			continue; /* the next counter of the same world */
		/* the VM's own entity (Group Cpu) is judged and counted; a world only tested */
		if ((fs->host_cap && !ef_test(fs->f, EF_HOST, col->path.host)) || !ef_test(fs->f, EF_VM, vm))
			continue;
		if (nsel == capsel) {
			capsel = capsel ? 2 * capsel : 64;
			sel = xrealloc(sel, capsel * sizeof *sel);
		}
		sel[nsel++] = wid;
	}
	struct counter_class cl;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *col = reader_column(r, i);
		if (!ops->world_of(&col->path, &wid, vm, sizeof vm) || vm[0])
			continue;
		fs->worlds = true;
		bool mine = false;
		for (size_t k = 0; k < nsel && !mine; k++)
			mine = sel[k] == wid;
		if (!mine || ops->classify(&col->path, &cl) < 0 || !cl.parent[0] || fsel_has_dev(fs, cl.parent))
			continue;
		fs->devs = xrealloc(fs->devs, (fs->ndev + 1) * sizeof *fs->devs);
		fs->devs[fs->ndev++] = arena_strdup(&fs->a, cl.parent);
	}
	free(sel);
}

static void fsel_free(struct fsel *fs)
{
	free(fs->devs);
	arena_free(&fs->a);
}

static bool host_listed(const char *const *l, size_t n, const char *host)
{
	const char *h = host ? host : "";
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i], h) == 0)
			return true;
	return false;
}

/* A new capture record for path; its index. */
static size_t capture_new(struct model *m, const char *path)
{
	m->caps = xrealloc(m->caps, (m->ncaps + 1) * sizeof *m->caps);
	size_t ci = m->ncaps++;
	struct capture *c = &m->caps[ci];
	memset(c, 0, sizeof *c);
	c->path = path;
	c->first_entity = m->nents;
	c->first_aux = m->naux;
	return ci;
}

static int open_failed(struct model *m, size_t ci, int rc)
{
	m->caps[ci].failed = rc;
	ds_init(&m->caps[ci].ds, 0);
	return rc;
}

int model_add_capture(struct model *m, const char *path, const struct common_opts *co)
{
	struct input in;
	int rc = input_open(&in, path, co);
	return rc < 0 ? open_failed(m, capture_new(m, path), rc) : model_read(m, path, &in, co);
}

int model_add_capture_mem(struct model *m, const char *name, const void *data, size_t len, const struct common_opts *co)
{
	struct input in;
	int rc = input_open_mem(&in, name, data, len, co);
	return rc < 0 ? open_failed(m, capture_new(m, name), rc) : model_read(m, name, &in, co);
}

/* "20m 05s" (no formatting layer here: the reports have their own). */
static void fmt_gap(struct buf *b, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		buf_printf(b, "%ldh %02ldm", t / 3600, (t / 60) % 60);
	else if (t >= 60)
		buf_printf(b, "%ldm %02lds", t / 60, t % 60);
	else
		buf_printf(b, "%lds", t);
}

/* The host a capture's header names first (NULL when none). */
static const char *first_host(struct reader *r)
{
	for (size_t i = 0; i < reader_ncols(r); i++)
		if (reader_column(r, i)->path.host)
			return reader_column(r, i)->path.host;
	return NULL;
}

/* Whether a column of r names an entity capture ci already has (the same disks, devices, ...). */
static bool shares_entities(struct model *m, size_t ci, const struct parser_ops *ops, struct reader *r)
{
	struct counter_class cl;
	for (size_t i = 0; i < reader_ncols(r); i++) {
		const struct pdh_column *col = reader_column(r, i);
		if (ops->classify(&col->path, &cl) < 0 || cl.layer == LAYER_WORLD || !m->hcap)
			continue;
		size_t mask = m->hcap - 1;
		const char *host = col->path.host;
		for (size_t k = (size_t)entity_hash(ci, cl.layer, cl.entity, host) & mask; m->hidx[k]; k = (k + 1) & mask) {
			const struct entity *e = &m->ents[m->hidx[k] - 1];
			if (e->capture == ci && e->layer == cl.layer && strcmp(e->name, cl.entity) == 0 &&
			    strcmp(e->host ? e->host : "", host ? host : "") == 0)
				return true;
		}
	}
	return false;
}

/* The capture the file being opened continues: the last one, when it has the same format and
 * host, was read, and shares entities with the file (two files of one host at the same time with
 * different entities, e.g. split by an esxtop entity filter, stay two captures); SIZE_MAX
 * otherwise. */
static size_t merge_target(struct model *m, const struct parser_ops *ops, struct reader *r, const char *host)
{
	if (m->no_merge || !m->ncaps || !host)
		return SIZE_MAX;
	const struct capture *l = &m->caps[m->ncaps - 1];
	if (l->failed || !l->format || !l->rows || strcmp(l->format, ops->name) != 0 || !l->host ||
	    strcmp(l->host, host) != 0 || !shares_entities(m, m->ncaps - 1, ops, r))
		return SIZE_MAX;
	return m->ncaps - 1;
}

/* parts[0] of a capture about to be continued: what its first file gave. */
static void part_first(struct capture *c)
{
	c->parts = xcalloc(2, sizeof *c->parts);
	c->nparts = 1;
	struct capture_part *p = &c->parts[0];
	p->path = c->path;
	p->start = c->start;
	p->end = c->end;
	p->rows = c->rows;
	p->columns = c->columns;
	p->warnings = c->warnings;
	p->skipped_rows = c->skipped_rows;
	p->outside_rows = c->outside_rows;
	p->gzip = c->gzip;
}

/* What continuing capture c with a file found: its overlap (file:line, skipped rows) and its gap. */
static void merge_report(const struct capture *c, const struct capture_part *part, struct input *in, int64_t prev_end,
			 const struct common_opts *co)
{
	struct diag d;
	diag_init(&d, in->diag.file, -1);
	d.sink = co->sink;
	char a[32], b[32], e[32];
	time_format_iso(prev_end, false, e);
	struct buf first;
	buf_init(&first);
	buf_add_text_escaped(&first, c->parts[0].path, strlen(c->parts[0].path));
	if (part->overlap_rows) {
		time_format_iso(part->overlap_t0, false, a);
		time_format_iso(part->overlap_t1, false, b);
		diag_emit(&d, DIAG_WARNING, part->overlap_line0, 1,
			  "%ld row%s (lines %ld-%ld, %s .. %s) at times the capture of %s already has (up to %s): skipped, "
			  "not counted twice", part->overlap_rows, part->overlap_rows == 1 ? "" : "s", part->overlap_line0,
			  part->overlap_line1, a, b, first.data, e);
	}
	if (part->rows && part->gap) {
		time_format_iso(part->start, false, b);
		struct buf g;
		buf_init(&g);
		fmt_gap(&g, (double)part->gap_ms / 1000.0);
		diag_emit(&d, DIAG_NOTE, 0, 0, "continues the capture of %s after a gap of %s (%s .. %s), marked as a "
			  "discontinuity", first.data, g.data, e, b);
		buf_free(&g);
	}
	buf_free(&first);
}

/* model_read's state, from one step to the next. */
struct mread {
	struct model *m;
	const char *path;
	struct input *in;
	const struct common_opts *co;
	int rc;
	/* the file and its capture (read_open) */
	struct reader *r;
	const struct parser_ops *ops;
	size_t ci;
	bool merging;
	struct capture *c;
	struct capture_part *part;
	int64_t prev_end;
	long prev_rows;
	size_t prev_series;
	size_t n;
	/* the columns read and where they go (read_header) */
	bool *want;
	struct colmap *cm;
	size_t ncm;
	struct worldcol *wc;
	size_t nwc;
	size_t nseries;
	const char *host;
	/* derived series (read_derived) */
	size_t *der, nder;
	/* the rows (read_rows) */
	double *worlds;
	double *cur;
	int *ncomb;
	struct interval_hist ih;
	/* a guest capture's Windows disk numbers and the first drive letter each carries (read_members) */
	struct disk_letter *dl;
	size_t ndl;
};

/* The capture the file goes into (a new one or the one it continues), its format and its clock. */
static void read_open(struct mread *x)
{
	struct model *m = x->m;
	const char *path = x->path;
	struct input *in = x->in;
	const struct common_opts *co = x->co;
	struct reader *r = in->r;
	if (co->tz)
		m->tz = co->tz;
	const struct parser_ops *ops = reader_format(r);
	size_t ci = merge_target(m, ops, r, first_host(r));
	bool merging = ci != SIZE_MAX;
	if (!merging)
		ci = capture_new(m, path);
	struct capture *c = &m->caps[ci];
	struct capture_part *part = NULL;
	/* what the capture had before this file */
	int64_t prev_end = c->end;
	long prev_rows = c->rows;
	size_t prev_series = merging ? c->ds.nseries : 0;
	if (merging) {
		if (!c->parts)
			part_first(c);
		else
			c->parts = xrealloc(c->parts, (c->nparts + 1) * sizeof *c->parts);
		part = &c->parts[c->nparts++];
		memset(part, 0, sizeof *part);
		part->path = path;
		part->gzip = in->src.gzip;
		part->start = INT64_MAX;
		part->end = INT64_MIN;
	}
	c->format = ops->name;
	c->role = ops->role;
	{ /* the local time of a perfmon capture, for reports (UTC = local + bias) */
		struct reader_facts rf;
		reader_facts(r, &rf);
		const struct pdh_header_info *hi = &rf.hi;
		c->local_time = ops->local_time;
		c->bias_known = hi->bias_known && ops->local_time;
		c->bias_min = hi->bias_min;
		c->zone = hi->zone[0] ? arena_strdup(&m->arena, hi->zone) : NULL;
	}
	size_t n = reader_ncols(r);
	if (!merging) {
		c->gzip = in->src.gzip;
		c->columns = (long)n;
	} else {
		part->columns = (long)n;
		if ((long)n > c->columns)
			c->columns = (long)n;
	}
	x->r = r;
	x->ops = ops;
	x->ci = ci;
	x->merging = merging;
	x->c = c;
	x->part = part;
	x->prev_end = prev_end;
	x->prev_rows = prev_rows;
	x->prev_series = prev_series;
	x->n = n;
}

/* The objects only a VM's Windows has (doc/domain.md: VMware Tools' guest counters; Hyper-V's
 * integration services): the object's name as the capture model keeps it, else NULL. */
static const char *vm_object(const char *object)
{
	static const char *const objs[] = {"VM Processor", "VM Memory", "Hyper-V Dynamic Memory Integration Service"};
	for (size_t i = 0; object && i < sizeof objs / sizeof objs[0]; i++)
		if (strcasecmp(object, objs[i]) == 0)
			return objs[i];
	return NULL;
}

bool model_guest_is_vm(const struct model *m, size_t ci)
{
	if (ci < m->ncaps && m->caps[ci].vm_hint)
		return true;
	for (size_t i = 0; i < m->ncaps; i++)
		if (!m->caps[i].failed && m->caps[i].format && m->caps[i].role == ROLE_HOST)
			return true;
	return false;
}

/* The columns past MODEL_MAX_ENTITIES, by the layers of their entities, at the header's line. */
static void warn_over_cap(struct mread *x)
{
	struct reader_facts rf;
	char what[160];
	reader_facts(x->r, &rf);
	long cols = model_over_cap_text(x->m, x->ci, what, sizeof what);
	diag_emit(&x->in->diag, DIAG_WARNING, rf.header_line, 0,
		  "more than %d entities of one kind: %ld column%s of %s not read; those layers are not assessed",
		  MODEL_MAX_ENTITIES, cols, cols == 1 ? "" : "s", what);
}

/* Columns whose name an earlier column of the header has (issue 38): warned at file:LINE:COL,
 * counted, and not read (skip) — the first of each name is. */
static void dup_columns(struct mread *x, bool *skip)
{
	size_t n = x->n, cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	size_t *h = xcalloc(cap, sizeof *h);
	struct reader_facts rf;
	reader_facts(x->r, &rf);
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *c = reader_column(x->r, i);
		uint64_t k = 1469598103934665603ull;
		for (size_t j = 0; j < c->name_len; j++)
			k = (k ^ (unsigned char)c->name[j]) * 1099511628211ull;
		size_t at = (size_t)k & (cap - 1);
		for (; h[at]; at = (at + 1) & (cap - 1)) {
			const struct pdh_column *o = reader_column(x->r, h[at] - 1);
			if (o->name_len != c->name_len || memcmp(o->name, c->name, c->name_len) != 0)
				continue;
			struct buf e;
			buf_init(&e);
			buf_add_text_escaped(&e, c->name, c->name_len > 160 ? 160 : c->name_len);
			diag_emit(&x->in->diag, DIAG_WARNING, rf.header_line, c->field,
				  "column %ld has the name of column %ld (%s): only the first is read", c->field,
				  o->field, e.data);
			if (!x->c->dup_columns++) {
				x->c->dup_first_col = c->field;
				x->c->dup_line = rf.header_line;
				x->c->dup_first = arena_strdup(&x->m->arena, e.data);
			}
			buf_free(&e);
			skip[i] = true;
			break;
		}
		if (!h[at])
			h[at] = i + 1;
	}
	free(h);
}

/* ---- volumes over several disks ----
 * A Windows disk is named by its number and the drive letters of the volumes on it ("1 D: E:"); a
 * volume that spans several disks (a dynamic spanned or striped volume) is listed with each of
 * them: "2 G:", "3 G:", "4 G:", "5 G:" [ms: AskCore 2012, "Windows Performance Monitor Disk
 * Counters Explained"; Windows 2000 Resource Kit, "Working with Disk Counters"]. A disk whose
 * letters no other disk of its host carries holds its volumes alone and keeps its name (its first
 * letter: LogicalDisk wins, doc/domain.md §8); a disk that shares a letter with another is its own
 * entity "Disk N", a member of that letter's volume (entity.volume), so a slow member is not
 * averaged away. */
struct disk_letter {
	const char *host;        /* borrowed from the reader's columns */
	int disk;
	char letters[28];        /* counter_class.disk_letters */
	char vol[4];             /* the volume over several disks it is a member of ("G:"), "" none */
};

/* Before the header is read: a guest capture's disk numbers, their letters, and the letters two
 * disks of a host share. */
static void read_members(struct mread *x)
{
	if (x->rc || !x->r || x->ops->role != ROLE_GUEST)
		return;
	struct counter_class cl;
	for (size_t i = 0; i < x->n; i++) {
		const struct pdh_column *col = reader_column(x->r, i);
		if (x->ops->classify(&col->path, &cl) < 0 || cl.disk_no < 0 || cl.layer != LAYER_GUEST)
			continue;
		const char *h = col->path.host ? col->path.host : "";
		bool seen = false;
		for (size_t k = 0; k < x->ndl && !seen; k++)
			seen = x->dl[k].disk == cl.disk_no && strcmp(x->dl[k].host, h) == 0;
		if (seen)
			continue;
		x->dl = xrealloc(x->dl, (x->ndl + 1) * sizeof *x->dl);
		x->dl[x->ndl] = (struct disk_letter){.host = h, .disk = cl.disk_no};
		snprintf(x->dl[x->ndl].letters, sizeof x->dl[x->ndl].letters, "%s", cl.disk_letters);
		x->ndl++;
	}
	for (size_t k = 0; k < x->ndl; k++) {
		struct disk_letter *d = &x->dl[k];
		for (const char *l = d->letters; *l && !d->vol[0]; l++)
			for (size_t j = 0; j < x->ndl && !d->vol[0]; j++)
				if (j != k && strcmp(x->dl[j].host, d->host) == 0 && strchr(x->dl[j].letters, *l))
					snprintf(d->vol, sizeof d->vol, "%c:", *l);
	}
}

static const struct disk_letter *member_disk(const struct mread *x, const char *host, int disk)
{
	const char *h = host ? host : "";
	for (size_t k = 0; k < x->ndl; k++)
		if (x->dl[k].disk == disk && x->dl[k].vol[0] && strcmp(x->dl[k].host, h) == 0)
			return &x->dl[k];
	return NULL;
}

/* A column naming a Windows disk number: noted for wmic's "Disk #N"; a member disk of a volume
 * over several disks is its own entity "Disk N", its parent the volume. */
static void note_disk(struct mread *x, const char *host, struct counter_class *cl)
{
	if (cl->disk_no < 0)
		return;
	note_disk_no(x->m, host, cl);
	const struct disk_letter *d = cl->layer == LAYER_GUEST ? member_disk(x, host, cl->disk_no) : NULL;
	if (d) {
		snprintf(cl->entity, sizeof cl->entity, "Disk %d", cl->disk_no);
		snprintf(cl->parent, sizeof cl->parent, "%s", d->vol);
	}
}

/* The selection (--host/--vm/--disk) keeps the entity of class cl: by its name, or, for a member
 * disk of a volume over several disks, by its volume's (--disk G: keeps G:'s members). */
static bool fsel_keep_class(struct fsel *fs, const struct counter_class *cl, const char *host)
{
	if (fsel_keep(fs, cl->layer, cl->entity, host))
		return true;
	return cl->layer == LAYER_GUEST && cl->parent[0] && fsel_keep(fs, cl->layer, cl->parent, host);
}

/* After the header: each member disk's entity names its volume. */
static void read_volumes(struct mread *x)
{
	struct model *m = x->m;
	for (size_t i = 0; x->ndl && !x->rc && i < m->nents; i++) {
		struct entity *e = &m->ents[i];
		if (e->capture != x->ci || e->layer != LAYER_GUEST || e->volume || strncmp(e->name, "Disk ", 5) != 0)
			continue;
		char *end;
		long n = strtol(e->name + 5, &end, 10);
		const struct disk_letter *d = *end ? NULL : member_disk(x, e->host, (int)n);
		if (d)
			e->volume = arena_strdup(&m->arena, d->vol);
	}
	free(x->dl);
	x->dl = NULL;
	x->ndl = 0;
}

/* The header: each column to the entity and series it feeds, in the format's pass order. */
static void read_header(struct mread *x)
{
	struct model *m = x->m;
	struct reader *r = x->r;
	const struct parser_ops *ops = x->ops;
	size_t ci = x->ci;
	size_t prev_series = x->prev_series;
	size_t n = x->n;
	bool *want = xcalloc(n ? n : 1, sizeof *want);
	struct colmap *cm = xmalloc((n ? n : 1) * sizeof *cm);
	size_t ncm = 0;
	struct worldcol *wc = xmalloc((n ? n : 1) * sizeof *wc);
	size_t nwc = 0;
	size_t nseries = prev_series;
	bool *taken = xcalloc(prev_series ? prev_series : 1, sizeof *taken); /* series this file gives */
	/* hosts are counted to name the capture */
	const char *host = NULL;
	bool too_many = false;
	/* columns are resolved in the format's pass order (perfmon: LogicalDisk before PhysicalDisk, so
	 * it wins for the same drive) */
	struct counter_class cl;
	int npass = 1;
	/* an aggregate (_Total) is kept only for a host without per-instance columns */
	const char **per_instance = xmalloc((n ? n : 1) * sizeof *per_instance);
	size_t nper = 0;
	/* what the whole header tells about some columns (esxtop: system groups are not VMs) */
	bool *skip = xcalloc(n ? n : 1, sizeof *skip);
	if (ops->prepare)
		ops->prepare(r, skip);
	dup_columns(x, skip);
	struct fsel fs = {.f = m->filter, .host_cap = ops->role == ROLE_HOST, .hyperv = model_hyperv(m, ci)};
	arena_init(&fs.a);
	fsel_worlds(&fs, ops, r);
	if (ops->role == ROLE_HOST)
		note_world_vms(m, ci, ops, r);
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *col = reader_column(r, i);
		if (skip[i])
			continue;
		int mt = ops->classify(&col->path, &cl);
		if (cl.pass + 1 > npass)
			npass = cl.pass + 1;
		if (mt < 0 || cl.aggregate || cl.layer == LAYER_SQL || machine_memory(mt))
			continue; /* SQL Server's counters and the machine's memory are no disk of the host */
		const char *h = col->path.host ? col->path.host : "";
		if (!nper || strcmp(per_instance[nper - 1], h) != 0)
			per_instance[nper++] = h; /* consecutive duplicates only: the list stays short */
	}
	/* the paths after every other entity: past the cap what conclusions need is kept */
	for (int pass = 0; pass < 2 * npass; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct pdh_column *col = reader_column(r, i);
			if (!host && col->path.host)
				host = col->path.host;
			if (skip[i])
				continue;
			int metric = ops->classify(&col->path, &cl);
			if (cl.pass != pass % npass || (cl.layer == LAYER_PATH) != (pass >= npass))
				continue;
			note_disk(x, col->path.host, &cl);
			if (metric < 0 || (cl.aggregate && host_listed(per_instance, nper, col->path.host)))
				continue;
			enum layer l = cl.layer;
			double scale = cl.scale;
			if (l == LAYER_WORLD || l == LAYER_PATH || metric == M_HV_LP_RUN || machine_memory(metric)) {
				/* io-path entities: a world's IO to a device, a device's path (and a
				 * Hyper-V host's CPUs, which are no VM) */
				if (cl.parent[0] && !fsel_keep(&fs, LAYER_DEVICE, cl.parent, col->path.host))
					continue;
				if ((l == LAYER_WORLD && !cl.parent[0]) || !aux_metric(l, metric))
					continue;
				if (l == LAYER_WORLD && metric == M_CMDS) {
					/* the device's active-world count */
					size_t dev = entity_get(m, ci, LAYER_DEVICE, cl.parent, col->path.host);
					if (dev == SIZE_MAX) {
						too_many = true;
						x->c->over_cap[LAYER_DEVICE]++;
						continue;
					}
					wc[nwc].col = i;
					wc[nwc].dev_series_owner = dev;
					nwc++;
					want[i] = true;
				}
				size_t e = aux_get(m, ci, l, cl.entity, col->path.host);
				if (e == SIZE_MAX) {
					too_many = true;
					x->c->over_cap[l]++;
					continue;
				}
				struct entity *ent = &m->aux[e];
				if (cl.parent[0] && !ent->device)
					ent->device = arena_strdup(&m->arena, cl.parent);
				if (l == LAYER_WORLD && ent->wid < 0) {
					const char *dash = strrchr(cl.entity, '-');
					ent->wid = dash ? strtol(dash + 1, NULL, 10) : -1;
				}
				if (ent->series[metric] >= 0 && !((size_t)ent->series[metric] < prev_series && !taken[ent->series[metric]]))
					continue;
				if (ent->series[metric] < 0)
					ent->series[metric] = (int)nseries++;
				else
					taken[ent->series[metric]] = true;
				cm[ncm] = (struct colmap){.col = i, .ent = e, .aux = true, .metric = metric, .scale = scale,
							  .series = ent->series[metric], .combine = COMBINE_FIRST};
				ncm++;
				want[i] = true;
				continue;
			}
			if (!fsel_keep_class(&fs, &cl, col->path.host))
				continue;
			size_t e = entity_get(m, ci, l, cl.entity, col->path.host);
			if (e == SIZE_MAX) {
				too_many = true;
				x->c->over_cap[l]++;
				continue;
			}
			struct entity *ent = &m->ents[e];
			ent->disk_match = fs.last_dm;
			ent->aggregate = cl.aggregate;
			ent->nfs = cl.nfs;
			cm[ncm].col = i;
			cm[ncm].ent = e;
			cm[ncm].aux = false;
			cm[ncm].metric = metric;
			cm[ncm].scale = scale;
			cm[ncm].combine = cl.combine;
			if (ent->series[metric] < 0) {
				ent->series[metric] = (int)nseries++;
				cm[ncm].series = ent->series[metric];
				ncm++;
				want[i] = true;
			} else if (cl.combine != COMBINE_FIRST && ((size_t)ent->series[metric] >= prev_series ||
								   taken[ent->series[metric]])) {
				/* one more column of a combined series (a VM's next virtual processor) */
				cm[ncm].series = ent->series[metric];
				ncm++;
				want[i] = true;
			} else if ((size_t)ent->series[metric] < prev_series && !taken[ent->series[metric]]) {
				/* a file continuing the capture: its first column of a series the capture has */
				taken[ent->series[metric]] = true;
				cm[ncm].series = ent->series[metric];
				ncm++;
				want[i] = true;
			}
		}
	}
	free(per_instance);
	free(skip);
	free(taken);
	fsel_free(&fs);
	if (too_many)
		warn_over_cap(x);
	x->want = want;
	x->cm = cm;
	x->ncm = ncm;
	x->wc = wc;
	x->nwc = nwc;
	x->nseries = nseries;
	x->host = host;
}

/* Derived series (active worlds per device, a Hyper-V virtual disk's commands), the store. */
static void read_derived(struct mread *x)
{
	struct model *m = x->m;
	struct reader *r = x->r;
	size_t ci = x->ci;
	bool merging = x->merging;
	struct capture *c = x->c;
	bool *want = x->want;
	struct worldcol *wc = x->wc;
	size_t nwc = x->nwc;
	size_t nseries = x->nseries;
	const char *host = x->host;
	/* derived series: active worlds per device */
	for (size_t k = 0; k < nwc; k++) {
		struct entity *d = &m->ents[wc[k].dev_series_owner];
		if (d->series[M_WORLDS] < 0)
			d->series[M_WORLDS] = (int)nseries++;
	}
	/* ... and a Hyper-V virtual hard disk's commands and normalized IOPS, from its reads and
	 * writes (the Storage Device object has no total) */
	size_t *der = NULL, nder = 0;
	for (size_t i = c->first_entity; i < m->nents && model_hyperv(m, ci); i++) {
		struct entity *e = &m->ents[i];
		if (e->capture != ci || (e->layer != LAYER_VSCSI && e->layer != LAYER_VOLUME) || e->series[M_READS] < 0 ||
		    e->series[M_WRITES] < 0)
			continue;
		if (e->series[M_CMDS] < 0)
			e->series[M_CMDS] = (int)nseries++;
		if (e->layer == LAYER_VSCSI && e->series[M_HV_NIOPS] < 0 && e->series[M_MBR] >= 0 && e->series[M_MBW] >= 0)
			e->series[M_HV_NIOPS] = (int)nseries++;
		der = xrealloc(der, (nder + 1) * sizeof *der);
		der[nder++] = i;
	}
	if (!merging) {
		c->host = host ? arena_strdup(&m->arena, host) : NULL;
		ds_init(&c->ds, nseries);
	} else {
		ds_grow(&c->ds, nseries);
	}
	reader_select(r, want);
	free(want);
	x->nseries = nseries;
	x->der = der;
	x->nder = nder;
}

bool metric_plausible(int metric, double v)
{
	if (!(v >= 0))
		return false; /* no counter of the vocabulary is negative (and NaN is never plausible) */
	return v <= metric_ceiling(metric);
}

double metric_ceiling(int metric)
{
	const char *u = metric_info[metric].unit;
	return strcmp(u, "ms") == 0				  ? METRIC_MAX_MS
		     : strcmp(u, "IO/s") == 0 || strcmp(u, "/s") == 0	  ? METRIC_MAX_RATE
		     : strcmp(u, "MB/s") == 0				  ? METRIC_MAX_MBPS
		     : strcmp(u, "commands") == 0 || strcmp(u, "IOs") == 0 ? METRIC_MAX_QUEUE
		     : strcmp(u, "%") == 0				  ? METRIC_MAX_PCT
									  : METRIC_MAX_OTHER;
}

/* A value outside its counter's physical range: a glitch, warned at file:line:col and read as
 * missing (counted in the capture's glitches). */
static bool plausible_or_warned(struct mread *x, long line, const struct colmap *cm, double v)
{
	if (metric_plausible(cm->metric, v))
		return true;
	size_t col = cm->col;
	int metric = cm->metric;
	double raw = v / cm->scale;
	const struct pdh_column *pc = reader_column(x->r, col);
	struct buf n;
	buf_init(&n);
	buf_add_text_escaped(&n, pc->name, pc->name_len > 120 ? 120 : pc->name_len);
	x->c->impossible++;
	const char *u = metric_info[metric].unit;
	char why[96];
	if (v < 0)
		snprintf(why, sizeof why, "%g %s: below 0", v, u);
	else
		snprintf(why, sizeof why, "%g %s: above %g %s, the most it can be", v, u, metric_ceiling(metric), u);
	diag_emit(&x->in->diag, DIAG_WARNING, line, pc->field, "impossible value %g in %s (%s); read as missing", raw,
		  n.data, why);
	buf_free(&n);
	return false;
}

/* The rows, one streaming pass. */
static void read_rows(struct mread *x)
{
	int rc;
	struct model *m = x->m;
	struct reader *r = x->r;
	const struct parser_ops *ops = x->ops;
	size_t ci = x->ci;
	bool merging = x->merging;
	struct capture *c = x->c;
	struct capture_part *part = x->part;
	int64_t prev_end = x->prev_end;
	struct colmap *cm = x->cm;
	size_t ncm = x->ncm;
	struct worldcol *wc = x->wc;
	size_t nwc = x->nwc;
	size_t nseries = x->nseries;
	size_t *der = x->der, nder = x->nder;
	double *worlds = xcalloc(m->nents ? m->nents : 1, sizeof *worlds);
	double *cur = xmalloc((nseries ? nseries : 1) * sizeof *cur);
	int *ncomb = xcalloc(nseries ? nseries : 1, sizeof *ncomb);
	c->cur = cur;
	if (m->hooks.begin && !merging)
		m->hooks.begin(m->hooks.ctx, m, ci);
	struct pdh_row row;
	struct interval_hist ih;
	ihist_init(&ih);
	int64_t prev = 0;
	if (!merging) {
		c->start = INT64_MAX;
		c->end = INT64_MIN;
	}
	while ((rc = ops->next(r, &row)) == 1) {
		bool disc = row.discontinuity;
		if (merging) {
			if (row.t_ms <= prev_end) {
				/* a time the capture already has: an overlap of the files, or the same rows twice */
				if (!part->overlap_rows) {
					part->overlap_line0 = row.line;
					part->overlap_t0 = row.t_ms;
				}
				part->overlap_rows++;
				part->overlap_line1 = row.line;
				part->overlap_t1 = row.t_ms;
				continue;
			}
			if (!part->rows) {
				/* the file boundary: a restart, a discontinuity; a gap when it is long */
				double iv = c->interval_s > 0 ? c->interval_s : 60;
				part->gap_ms = row.t_ms - prev_end;
				part->gap = (double)part->gap_ms > 2.5 * iv * 1000;
				disc = disc || part->gap;
				if (m->hooks.resume)
					m->hooks.resume(m->hooks.ctx, m, ci, part->gap);
			}
			part->rows++;
			if (row.t_ms < part->start)
				part->start = row.t_ms;
			if (row.t_ms > part->end)
				part->end = row.t_ms;
		}
		int64_t dt = 0;
		if (c->rows > 0 && !disc) {
			dt = row.t_ms - prev;
			ihist_add(&ih, dt);
			if (ih.n && (c->rows < 64 || (c->rows & 63) == 0) && !merging)
				c->interval_so_far = (double)ihist_median(&ih) / 1000.0;
		}
		prev = row.t_ms;
		for (size_t k = 0; k < nseries; k++)
			cur[k] = NAN;
		if (row.t_ms < c->start)
			c->start = row.t_ms;
		if (row.t_ms > c->end)
			c->end = row.t_ms;
		c->rows++;
		ds_row(&c->ds, row.t_ms, disc);
		bool combined = false;
		for (size_t k = 0; k < ncm; k++) {
			double v;
			if (!ops->value(r, cm[k].col, &v) ||
			    !plausible_or_warned(x, row.line, &cm[k], v *= cm[k].scale))
				continue; /* no value, or an impossible one (warned) */
			struct entity *e = cm[k].aux ? &m->aux[cm[k].ent] : &m->ents[cm[k].ent];
			if (cm[k].combine != COMBINE_FIRST) {
				/* summed here, stored below once the row's columns are all read */
				size_t sk = (size_t)cm[k].series;
				cur[sk] = isnan(cur[sk]) ? v : cur[sk] + v;
				ncomb[sk]++;
				combined = true;
				continue;
			}
			cur[cm[k].series] = v;
			ds_set(&c->ds, (size_t)cm[k].series, v);
			qs_add(entity_sk_mut(e, cm[k].metric), v);
			if (cm[k].metric == M_DQLEN) {
				if (isnan(e->dq_first))
					e->dq_first = v;
				if (v > e->dq_max)
					e->dq_max = v;
				if (!isnan(e->dq_last) && v != e->dq_last) {
					if (e->ndq < DQ_MAX_EVENTS) {
						/* grown by doubling from 16 (DQ_MAX_EVENTS is a power of two) */
						if (e->ndq == 0 || (e->ndq >= 16 && (e->ndq & (e->ndq - 1)) == 0))
							e->dq = xrealloc(e->dq, (e->ndq ? 2 * e->ndq : 16) * sizeof *e->dq);
						e->dq[e->ndq].t = row.t_ms;
						e->dq[e->ndq].from = (float)e->dq_last;
						e->dq[e->ndq].to = (float)v;
						e->dq[e->ndq].davg = NAN;
						e->ndq++;
					} else {
						e->dq_dropped++;
					}
				}
				e->dq_last = v;
			}
		}
		if (combined)
			combine_row(m, c, cm, ncm, cur, ncomb);
		for (size_t k = 0; k < nder; k++)
			derive_row(&m->ents[der[k]], c, cur);
		if (nwc) {
			for (size_t k = 0; k < nwc; k++)
				worlds[wc[k].dev_series_owner] = 0;
			for (size_t k = 0; k < nwc; k++) {
				double v;
				if (ops->value(r, wc[k].col, &v) && v >= 1.0)
					worlds[wc[k].dev_series_owner] += 1;
			}
			for (size_t k = 0; k < nwc; k++) {
				size_t d = wc[k].dev_series_owner;
				struct entity *e = &m->ents[d];
				if (worlds[d] >= 0) {
					cur[e->series[M_WORLDS]] = worlds[d];
					ds_set(&c->ds, (size_t)e->series[M_WORLDS], worlds[d]);
					qs_add(entity_sk_mut(e, M_WORLDS), worlds[d]);
					worlds[d] = -1; /* once per device */
				}
			}
		}
		if (m->hooks.row)
			m->hooks.row(m->hooks.ctx, m, ci, row.t_ms, dt);
	}
	x->rc = rc;
	x->worlds = worlds;
	x->cur = cur;
	x->ncomb = ncomb;
	x->ih = ih;
}

/* The end of the file: DAVG at the queue depth changes, the interval, the counts, the errors of a
 * file that gave nothing; closes the input. */
static int read_end(struct mread *x)
{
	int rc = x->rc;
	struct model *m = x->m;
	struct input *in = x->in;
	const struct common_opts *co = x->co;
	struct reader *r = x->r;
	size_t ci = x->ci;
	bool merging = x->merging;
	struct capture *c = x->c;
	struct capture_part *part = x->part;
	int64_t prev_end = x->prev_end;
	long prev_rows = x->prev_rows;
	struct interval_hist ih = x->ih;
	double *cur = x->cur;
	int *ncomb = x->ncomb;
	size_t *der = x->der;
	double *worlds = x->worlds;
	struct colmap *cm = x->cm;
	struct worldcol *wc = x->wc;
	/* DAVG at each DQLEN change, from the downsampled series (for SIOC/AQD onset evidence) */
	for (size_t i = c->first_entity; i < m->nents; i++) {
		struct entity *e = &m->ents[i];
		if (!e->ndq || e->series[M_DAVG] < 0)
			continue;
		size_t k = 0;
		for (size_t q = 0; q < e->ndq; q++) {
			while (k + 1 < c->ds.nb && c->ds.t1[k] < e->dq[q].t)
				k++;
			e->dq[q].davg = (float)ds_mean(&c->ds, (size_t)e->series[M_DAVG], k);
		}
	}
	if (!merging || !(c->interval_s > 0))
		c->interval_s = (double)ihist_median(&ih) / 1000.0;
	ihist_free(&ih);
	if (m->hooks.end)
		m->hooks.end(m->hooks.ctx, m, ci);
	c->cur = NULL;
	free(cur);
	free(ncomb);
	free(der);
	free(worlds);
	free(cm);
	free(wc);
	long skipped = reader_stats(r)->skipped_rows, outside = reader_stats(r)->outside;
	for (int k = 0; k < reader_stats(r)->ndst && c->ndst < (int)(sizeof c->dst_at / sizeof c->dst_at[0]); k++) {
		c->dst_at[c->ndst] = reader_stats(r)->dst_at[k];
		c->dst_off_min[c->ndst++] = reader_stats(r)->dst_off_min[k];
	}
	c->windowed = co->win_on;
	bool have_t = reader_stats(r)->have_t;
	int64_t t_min = reader_stats(r)->t_min, t_max = reader_stats(r)->t_max;
	if (merging)
		merge_report(c, part, in, prev_end, co);
	input_close(in);
	if (merging) {
		part->skipped_rows = skipped;
		part->outside_rows = outside;
		part->warnings = in->diag.warnings;
		c->skipped_rows += skipped;
		c->outside_rows += outside;
		c->warnings += in->diag.warnings;
		/* a file that adds nothing does not fail the capture it continues */
		if (rc < 0)
			return rc;
		if (c->rows == prev_rows && !part->overlap_rows) {
			struct diag d;
			diag_init(&d, in->diag.file, 0);
			d.sink = co->sink;
			diag_emit(&d, DIAG_ERROR, 0, 0, "%s", outside ? "no row in the time window (--from/--to)"
								 : "no complete data row: nothing to analyse");
			return outside ? ERR_USAGE : ERR_FORMAT;
		}
		return 0;
	}
	c->skipped_rows = skipped;
	c->outside_rows = outside;
	c->warnings = in->diag.warnings;
	if (rc < 0) {
		c->failed = rc;
		return rc;
	}
	if (c->rows == 0) {
		/* a header without a complete data row: nothing to analyse */
		c->start = c->end = 0;
		struct diag d;
		diag_init(&d, in->diag.file, 0);
		d.sink = co->sink;
		if (c->outside_rows && have_t) {
			/* the rows are there, the window misses them: the user's window, not the file */
			char a[32], b[32];
			time_format_iso(t_min, false, a);
			time_format_iso(t_max, false, b);
			char f[32] = "(start)", t[32] = "(end)";
			if (co->win_from != INT64_MIN)
				time_format_iso(co->win_from, false, f);
			if (co->win_to != INT64_MAX)
				time_format_iso(co->win_to, false, t);
			diag_emit(&d, DIAG_ERROR, 0, 0, "no row in the time window %s .. %s (--from/--to): the capture covers %s .. %s",
				  f, t, a, b);
			c->failed = ERR_USAGE;
			return ERR_USAGE;
		}
		diag_emit(&d, DIAG_ERROR, 0, 0, "no complete data row: nothing to analyse");
		c->failed = ERR_FORMAT;
		return ERR_FORMAT;
	}
	return 0;
}

/* A guest capture's own sign of being a VM (capture.vm_hint): the first column of an object only a
 * VM's Windows has. */
static void read_vm_hint(struct mread *x)
{
	if (x->rc || !x->r || x->ops->role != ROLE_GUEST)
		return;
	struct capture *c = &x->m->caps[x->ci];
	for (size_t i = 0; i < x->n && !c->vm_hint; i++)
		c->vm_hint = vm_object(reader_column(x->r, i)->path.object);
}

/* Reads the opened input (one streaming pass) into a new capture, or into the one it continues;
 * closes the input. */
static int model_read(struct model *m, const char *path, struct input *in, const struct common_opts *co)
{
	struct mread x = {.m = m, .path = path, .in = in, .co = co};
	read_open(&x);
	read_members(&x);
	read_header(&x);
	read_volumes(&x);
	read_vm_hint(&x);
	read_derived(&x);
	read_rows(&x);
	int rc = read_end(&x);
	/* histograms (vscsiStats) have no time axis: their snapshots are no rows of a period */
	const struct parser_ops *f = x.c && x.c->format ? parser_find(x.c->format) : NULL;
	if (f && f->histograms)
		x.c->rows = 0;
	return rc;
}

/* ---- the order of a command line's captures (capture_order) ---- */

struct cap_head {
	const char *format;      /* NULL: unknown (stdin, unreadable, not a capture) */
	char host[256];
	bool have_t;
	int64_t t0;
};

/* Format and first host of path from its first bytes, as the reader would probe them. */
static void head_of(const char *path, struct cap_head *h)
{
	memset(h, 0, sizeof *h);
	if (strcmp(path, "-") == 0)
		return;
	struct diag d;
	diag_init(&d, path, 0);
	struct source src;
	if (source_open(&src, path, &d) < 0)
		return;
	enum { HEAD = 65536 };
	char *buf = xmalloc(HEAD + 1);
	long len = 0, k;
	while (len < HEAD && (k = source_read(&src, buf + len, HEAD - (size_t)len, &d)) > 0)
		len += k;
	source_close(&src);
	if (len <= 0) {
		free(buf);
		return;
	}
	buf[len] = '\0';
	int conf;
	const struct parser_ops *f = parser_probe(buf, (size_t)len, &conf);
	if (f && f->host && f->host(buf, (size_t)len, h->host, sizeof h->host))
		h->format = f->name;
	if (!h->host[0])
		h->format = NULL;
	free(buf);
}

/* The UTC time of path's first row (read silently), or false. */
static bool first_time(const char *path, const struct common_opts *co, int64_t *t)
{
	struct common_opts q = *co;
	q.sink = (struct diag_sink){0};
	q.progress = NULL;
	q.max_warnings = 0;
	struct input in;
	if (input_open(&in, path, &q) < 0)
		return false;
	size_t nc = reader_ncols(in.r);
	bool *want = xcalloc(nc ? nc : 1, sizeof *want);
	reader_select(in.r, want);
	free(want);
	struct pdh_row row;
	bool ok = reader_next(in.r, &row) == 1;
	if (ok)
		*t = row.t_ms;
	input_close(&in);
	return ok;
}

void capture_order(char *const *paths, size_t n, const struct common_opts *co, size_t *order)
{
	struct cap_head *h = xcalloc(n ? n : 1, sizeof *h);
	for (size_t i = 0; i < n; i++)
		head_of(paths[i], &h[i]);
	/* the first row's time only of the files that share a host and format */
	for (size_t i = 0; i < n; i++) {
		if (!h[i].format)
			continue;
		for (size_t j = 0; j < n; j++) {
			if (j == i || !h[j].format || strcmp(h[i].format, h[j].format) != 0 ||
			    strcmp(h[i].host, h[j].host) != 0)
				continue;
			h[i].have_t = first_time(paths[i], co, &h[i].t0);
			break;
		}
	}
	bool *done = xcalloc(n ? n : 1, sizeof *done);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		size_t g0 = o;
		order[o++] = i;
		done[i] = true;
		if (!h[i].format)
			continue;
		for (size_t j = i + 1; j < n; j++) {
			if (done[j] || !h[j].format || strcmp(h[i].format, h[j].format) != 0 || strcmp(h[i].host, h[j].host) != 0)
				continue;
			order[o++] = j;
			done[j] = true;
		}
		/* the group in the time order of the first rows (stable; unknown times last) */
		for (size_t a = g0 + 1; a < o; a++) {
			for (size_t b = a; b > g0; b--) {
				const struct cap_head *x = &h[order[b - 1]], *y = &h[order[b]];
				bool swap = y->have_t && (!x->have_t || y->t0 < x->t0);
				if (!swap)
					break;
				size_t t = order[b - 1];
				order[b - 1] = order[b];
				order[b] = t;
			}
		}
	}
	free(done);
	free(h);
}
