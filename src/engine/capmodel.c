/* capmodel.c — builds the neutral capture model from esxtop and perfmon captures in one pass
 * (see capmodel.h). Column names are resolved to (entity, metric) once, at header time. */
#include "capmodel.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "inventory.h"

const char *const layer_names[LAYER_COUNT] = {"guest", "vscsi", "world", "device", "adapter", "array", "vm"};

const struct metric_info metric_info[M_COUNT] = {
	[M_DAVG] = {"davg_ms", "DAVG (device latency)", "ms"},
	[M_KAVG] = {"kavg_ms", "KAVG (VMkernel latency)", "ms"},
	[M_GAVG] = {"gavg_ms", "GAVG (guest-visible latency)", "ms"},
	[M_QAVG] = {"qavg_ms", "QAVG (kernel queue wait)", "ms"},
	[M_DAVG_R] = {"davg_read_ms", "DAVG reads", "ms"},
	[M_DAVG_W] = {"davg_write_ms", "DAVG writes", "ms"},
	[M_KAVG_R] = {"kavg_read_ms", "KAVG reads", "ms"},
	[M_KAVG_W] = {"kavg_write_ms", "KAVG writes", "ms"},
	[M_GAVG_R] = {"gavg_read_ms", "GAVG reads", "ms"},
	[M_GAVG_W] = {"gavg_write_ms", "GAVG writes", "ms"},
	[M_ACTV] = {"actv", "ACTV (active commands)", "commands"},
	[M_QUED] = {"qued", "QUED (queued in VMkernel)", "commands"},
	[M_DQLEN] = {"dqlen", "DQLEN (device queue depth)", "commands"},
	[M_USD] = {"usd_pct", "%USD (ACTV/DQLEN)", "%"},
	[M_LOAD] = {"load", "LOAD ((ACTV+QUED)/DQLEN)", ""},
	[M_AQLEN] = {"aqlen", "AQLEN (adapter queue depth)", "commands"},
	[M_WQLEN] = {"wqlen", "WQLEN (world queue depth)", "commands"},
	[M_CMDS] = {"iops", "Commands/s", "IO/s"},
	[M_READS] = {"reads_per_s", "Reads/s", "IO/s"},
	[M_WRITES] = {"writes_per_s", "Writes/s", "IO/s"},
	[M_MBR] = {"mb_read_per_s", "MB read/s", "MB/s"},
	[M_MBW] = {"mb_written_per_s", "MB written/s", "MB/s"},
	[M_ABRTS] = {"aborts_per_s", "Aborts/s", "/s"},
	[M_RESETS] = {"resets_per_s", "Resets/s", "/s"},
	[M_FAILED] = {"failed_per_s", "Failed commands/s", "/s"},
	[M_SPLIT] = {"split_per_s", "Split commands/s", "/s"},
	[M_WORLDS] = {"active_worlds", "active worlds (VMs issuing IO)", "worlds"},
	[M_VD_LAT_R] = {"vdisk_read_ms", "virtual disk read latency", "ms"},
	[M_VD_LAT_W] = {"vdisk_write_ms", "virtual disk write latency", "ms"},
	[M_G_LAT_R] = {"guest_read_ms", "Avg. Disk sec/Read", "ms"},
	[M_G_LAT_W] = {"guest_write_ms", "Avg. Disk sec/Write", "ms"},
	[M_G_LAT_T] = {"guest_transfer_ms", "Avg. Disk sec/Transfer", "ms"},
	[M_G_CDQL] = {"guest_current_queue", "Current Disk Queue Length", "IOs"},
	[M_G_ADQL] = {"guest_avg_queue", "Avg. Disk Queue Length", "IOs"},
	[M_G_XFERS] = {"guest_iops", "Disk Transfers/sec", "IO/s"},
	[M_G_READS] = {"guest_reads_per_s", "Disk Reads/sec", "IO/s"},
	[M_G_WRITES] = {"guest_writes_per_s", "Disk Writes/sec", "IO/s"},
	[M_G_MBPS] = {"guest_mb_per_s", "Disk Bytes/sec", "MB/s"},
	[M_G_SPLIT] = {"guest_split_per_s", "Split IO/Sec", "/s"},
	[M_G_BPT] = {"guest_bytes_per_io", "Avg. Disk Bytes/Transfer", "bytes"},
	[M_RDY] = {"cpu_ready_pct", "CPU %Ready", "%"},
};

struct cmap {
	const char *counter;
	int metric;
	double scale;
};

/* esxtop storage counters (devices, adapters); names as esxtop -b writes them. */
static const struct cmap esx_disk[] = {
	{"Average Driver MilliSec/Command", M_DAVG, 1},
	{"Average Kernel MilliSec/Command", M_KAVG, 1},
	{"Average Guest MilliSec/Command", M_GAVG, 1},
	{"Average Queue MilliSec/Command", M_QAVG, 1},
	{"Average Driver MilliSec/Read", M_DAVG_R, 1},
	{"Average Driver MilliSec/Write", M_DAVG_W, 1},
	{"Average Kernel MilliSec/Read", M_KAVG_R, 1},
	{"Average Kernel MilliSec/Write", M_KAVG_W, 1},
	{"Average Guest MilliSec/Read", M_GAVG_R, 1},
	{"Average Guest MilliSec/Write", M_GAVG_W, 1},
	{"Active Commands", M_ACTV, 1},
	{"Queued Commands", M_QUED, 1},
	{"Device Q Depth", M_DQLEN, 1},
	{"% Used", M_USD, 1},
	{"Load", M_LOAD, 1},
	{"Adapter Q Depth", M_AQLEN, 1},
	{"World Q Depth", M_WQLEN, 1},
	{"Commands/sec", M_CMDS, 1},
	{"Reads/sec", M_READS, 1},
	{"Writes/sec", M_WRITES, 1},
	{"MBytes Read/sec", M_MBR, 1},
	{"MBytes Written/sec", M_MBW, 1},
	{"Aborts/sec", M_ABRTS, 1},
	{"Resets/sec", M_RESETS, 1},
	{"Failed Commands/sec", M_FAILED, 1},
	{"Split Commands/sec", M_SPLIT, 1},
	{NULL, 0, 0},
};

static const struct cmap esx_vdisk[] = {
	{"Commands/sec", M_CMDS, 1},
	{"Reads/sec", M_READS, 1},
	{"Writes/sec", M_WRITES, 1},
	{"MBytes Read/sec", M_MBR, 1},
	{"MBytes Written/sec", M_MBW, 1},
	{"Average MilliSec/Read", M_VD_LAT_R, 1},
	{"Average MilliSec/Write", M_VD_LAT_W, 1},
	{NULL, 0, 0},
};

/* perfmon disk counters, English and the common localisations (matched case-insensitively,
 * after cp1252 → UTF-8 when the name is not UTF-8). */
static const struct cmap pm_disk[] = {
	{"Avg. Disk sec/Read", M_G_LAT_R, 1000},
	{"Avg. Disk sec/Write", M_G_LAT_W, 1000},
	{"Avg. Disk sec/Transfer", M_G_LAT_T, 1000},
	{"Current Disk Queue Length", M_G_CDQL, 1},
	{"Avg. Disk Queue Length", M_G_ADQL, 1},
	{"Disk Transfers/sec", M_G_XFERS, 1},
	{"Disk Reads/sec", M_G_READS, 1},
	{"Disk Writes/sec", M_G_WRITES, 1},
	{"Disk Bytes/sec", M_G_MBPS, 1.0 / 1048576},
	{"Split IO/Sec", M_G_SPLIT, 1},
	{"Avg. Disk Bytes/Transfer", M_G_BPT, 1},
	/* German */
	{"Mittlere Sek./Lesevorg\xc3\xa4nge", M_G_LAT_R, 1000},
	{"Mittlere Sek./Schreibvorg\xc3\xa4nge", M_G_LAT_W, 1000},
	{"Mittlere Sek./\xc3\x9c" "bertragung", M_G_LAT_T, 1000},
	{"Aktuelle Warteschlangenl\xc3\xa4nge", M_G_CDQL, 1},
	{"\xc3\x9c" "bertragungen/s", M_G_XFERS, 1},
	{"Teil-E/A/s", M_G_SPLIT, 1},
	/* French */
	{"Moyenne disque s/lecture", M_G_LAT_R, 1000},
	{"Moyenne disque s/\xc3\xa9" "criture", M_G_LAT_W, 1000},
	{"Moyenne disque s/transfert", M_G_LAT_T, 1000},
	{"Taille de file d'attente du disque actuelle", M_G_CDQL, 1},
	{"Transferts disque/s", M_G_XFERS, 1},
	{"E/S partag\xc3\xa9" "es/s", M_G_SPLIT, 1},
	{NULL, 0, 0},
};

static const char *const pm_logical[] = {"LogicalDisk", "Logischer Datentr\xc3\xa4ger", "Disque logique", NULL};
static const char *const pm_physical[] = {"PhysicalDisk", "Physikalischer Datentr\xc3\xa4ger", "Disque physique", NULL};

/* cp1252/latin-1 → UTF-8 for matching localised names written in an ANSI code page. */
static const char *as_utf8(const char *s, char *tmp, size_t cap)
{
	size_t n = strlen(s);
	if (utf8_valid(s, n))
		return s;
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			tmp[o++] = (char)c;
		} else {
			tmp[o++] = (char)(0xc0 | (c >> 6));
			tmp[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	tmp[o] = '\0';
	return tmp;
}

static int lookup(const struct cmap *t, const char *counter, bool caseless, double *scale)
{
	for (size_t i = 0; t[i].counter; i++) {
		if (caseless ? strcasecmp(t[i].counter, counter) == 0 : strcmp(t[i].counter, counter) == 0) {
			*scale = t[i].scale;
			return t[i].metric;
		}
	}
	return -1;
}

static bool in_list(const char *const *l, const char *s)
{
	for (size_t i = 0; l[i]; i++)
		if (strcasecmp(l[i], s) == 0)
			return true;
	return false;
}

static void copy(char *out, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* "SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1" → "SQL01:scsi0:1" */
static void vdisk_name(const char *inst, char *out, size_t cap)
{
	const char *sc = strstr(inst, ":scsi");
	const char *uu = NULL;
	/* " (" + 36-character UUID + ")" right before ":scsi" */
	if (sc && sc - inst > 39 && sc[-1] == ')' && sc[-38] == '(' && sc[-39] == ' ')
		uu = sc - 39;
	if (uu) {
		size_t a = (size_t)(uu - inst);
		copy(out, cap, inst, a);
		size_t o = strlen(out);
		copy(out + o, cap - o, sc, strlen(sc));
	} else {
		copy(out, cap, inst, strlen(inst));
	}
}

int model_classify(const struct pdh_path *p, bool perfmon, enum layer *layer, char *out, size_t cap, double *scale)
{
	if (!p->ok)
		return -1;
	*scale = 1;
	if (!perfmon) {
		const char *o = p->object, *in = p->instance;
		if (!in)
			return -1;
		if (strcmp(o, "Physical Disk SCSI Device") == 0) {
			*layer = LAYER_DEVICE;
			copy(out, cap, in, strlen(in));
			return lookup(esx_disk, p->counter, false, scale);
		}
		if (strcmp(o, "Physical Disk Adapter") == 0 || (strcmp(o, "Physical Disk") == 0 && !strchr(in, ':'))) {
			*layer = LAYER_ADAPTER;
			copy(out, cap, in, strlen(in));
			return lookup(esx_disk, p->counter, false, scale);
		}
		if (strcmp(o, "Physical Disk Per-Device-Per-World") == 0) {
			*layer = LAYER_WORLD;
			copy(out, cap, in, strlen(in));
			return lookup(esx_disk, p->counter, false, scale);
		}
		if (strcmp(o, "Virtual Disk") == 0 && strstr(in, ":scsi")) {
			*layer = LAYER_VSCSI;
			vdisk_name(in, out, cap);
			return lookup(esx_vdisk, p->counter, false, scale);
		}
		if (strcmp(o, "Group Cpu") == 0 && strcmp(p->counter, "% Ready") == 0) {
			const char *colon = strchr(in, ':');
			if (!colon)
				return -1;
			*layer = LAYER_VM;
			copy(out, cap, colon + 1, strlen(colon + 1));
			return M_RDY;
		}
		return -1;
	}
	char t1[256], t2[256];
	const char *o = as_utf8(p->object, t1, sizeof t1);
	if (!p->instance || strcasecmp(p->instance, "_Total") == 0)
		return -1;
	bool logical = in_list(pm_logical, o), physical = !logical && in_list(pm_physical, o);
	if (!logical && !physical)
		return -1;
	const char *in = p->instance;
	if (physical) {
		/* "1 D: E:" → "D:"; a disk without a drive letter keeps its number */
		const char *sp = strchr(in, ' ');
		if (sp && sp[1])
			in = sp + 1;
		const char *sp2 = strchr(in, ' ');
		copy(out, cap, in, sp2 ? (size_t)(sp2 - in) : strlen(in));
	} else {
		copy(out, cap, in, strlen(in));
	}
	for (char *c = out; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	*layer = LAYER_GUEST;
	return lookup(pm_disk, as_utf8(p->counter, t2, sizeof t2), true, scale);
}

void model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nents; i++) {
		for (int k = 0; k < M_COUNT; k++)
			qs_free(&m->ents[i].sk[k]);
		free(m->ents[i].dq);
	}
	for (size_t i = 0; i < m->ncaps; i++)
		ds_free(&m->caps[i].ds);
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

static void hash_insert(struct model *m, size_t idx)
{
	const struct entity *e = &m->ents[idx];
	size_t mask = m->hcap - 1;
	size_t k = (size_t)entity_hash(e->capture, e->layer, e->name, e->host) & mask;
	while (m->hidx[k])
		k = (k + 1) & mask;
	m->hidx[k] = idx + 1;
}

/* Returns the entity's index, creating it; SIZE_MAX when the capture reached MODEL_MAX_ENTITIES. */
static size_t entity_get(struct model *m, size_t cap_index, enum layer l, const char *name, const char *host)
{
	struct capture *c = &m->caps[cap_index];
	if (m->hcap) {
		size_t mask = m->hcap - 1;
		for (size_t k = (size_t)entity_hash(cap_index, l, name, host) & mask; m->hidx[k]; k = (k + 1) & mask) {
			struct entity *e = &m->ents[m->hidx[k] - 1];
			if (e->capture == cap_index && e->layer == l && strcmp(e->name, name) == 0 &&
			    strcmp(e->host ? e->host : "", host ? host : "") == 0)
				return m->hidx[k] - 1;
		}
	}
	if (c->nentities >= MODEL_MAX_ENTITIES)
		return SIZE_MAX;
	if (m->nents == m->cap_ents) {
		m->cap_ents = m->cap_ents ? m->cap_ents * 2 : 64;
		m->ents = xrealloc(m->ents, m->cap_ents * sizeof *m->ents);
	}
	struct entity *e = &m->ents[m->nents];
	memset(e, 0, sizeof *e);
	e->layer = l;
	e->name = arena_strdup(&m->arena, name);
	e->host = host ? arena_strdup(&m->arena, host) : NULL;
	e->capture = cap_index;
	for (int k = 0; k < M_COUNT; k++) {
		e->series[k] = -1;
		qs_init(&e->sk[k]);
	}
	e->dq_first = e->dq_last = NAN;
	e->dq_max = 0;
	c->nentities++;
	size_t idx = m->nents++;
	/* keep the table at most half full */
	if (2 * m->nents > m->hcap) {
		size_t cap = m->hcap ? m->hcap * 2 : 256;
		while (2 * m->nents > cap)
			cap *= 2;
		free(m->hidx);
		m->hidx = xcalloc(cap, sizeof *m->hidx);
		m->hcap = cap;
		for (size_t k = 0; k < m->nents; k++)
			hash_insert(m, k);
	} else {
		hash_insert(m, idx);
	}
	return idx;
}

const struct guest_disk_no *model_disk_no(const struct model *m, int n, const char *host)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].disk == n && (!host || strcasecmp(host, m->disks[i].host) == 0))
			return &m->disks[i];
	return NULL;
}

static void note_disk_no(struct model *m, const struct pdh_path *p)
{
	char t[256];
	if (!p->ok || !p->instance || !p->host || !in_list(pm_physical, as_utf8(p->object, t, sizeof t)))
		return;
	char *end;
	long n = strtol(p->instance, &end, 10);
	if (end == p->instance || *end != ' ' || n < 0 || n > 100000)
		return;
	const char *d = end + 1;
	size_t dl = strcspn(d, " ");
	if (dl != 2 || d[1] != ':')
		return;
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].disk == (int)n && strcmp(m->disks[i].host, p->host) == 0)
			return;
	m->disks = xrealloc(m->disks, (m->ndisks + 1) * sizeof *m->disks);
	char drive[3] = {(char)toupper((unsigned char)d[0]), ':', '\0'};
	m->disks[m->ndisks].host = arena_strdup(&m->arena, p->host);
	m->disks[m->ndisks].drive = arena_strdup(&m->arena, drive);
	m->disks[m->ndisks].disk = (int)n;
	m->ndisks++;
}

int64_t model_time(const struct model *m, const struct capture *c, size_t k)
{
	(void)m;
	return (c->ds.t0[k] + c->ds.t1[k]) / 2 + c->clock_offset_ms;
}

/* Per selected column: where its values go. */
struct colmap {
	size_t col;
	size_t ent;
	int metric;
	int series;     /* index in the capture's dstore (duplicate columns are not mapped at all) */
	double scale;
};

/* A world column feeding a device's active-world count. */
struct worldcol {
	size_t col, dev_series_owner; /* owner = entity index of the device */
};

int model_add_capture(struct model *m, const char *path, const struct common_opts *co)
{
	m->caps = xrealloc(m->caps, (m->ncaps + 1) * sizeof *m->caps);
	size_t ci = m->ncaps++;
	struct capture *c = &m->caps[ci];
	memset(c, 0, sizeof *c);
	c->path = path;
	c->first_entity = m->nents;
	struct input in;
	int rc = input_open(&in, path, co);
	if (rc < 0) {
		c->failed = rc;
		ds_init(&c->ds, 0);
		return rc;
	}
	struct pdh_reader *r = in.r;
	bool perfmon = strcmp(pdh_format_of(r)->name, "perfmon") == 0;
	c->format = pdh_format_of(r)->name;
	c->gzip = in.src.gzip;
	size_t n = pdh_ncols(r);
	c->columns = (long)n;
	bool *want = xcalloc(n ? n : 1, sizeof *want);
	struct colmap *cm = xmalloc((n ? n : 1) * sizeof *cm);
	size_t ncm = 0;
	struct worldcol *wc = xmalloc((n ? n : 1) * sizeof *wc);
	size_t nwc = 0;
	size_t nseries = 0;
	/* hosts are counted to name the capture */
	const char *host = NULL;
	bool too_many = false;
	/* perfmon: LogicalDisk first so it wins over PhysicalDisk for the same drive */
	for (int pass = 0; pass < (perfmon ? 2 : 1); pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct pdh_column *col = pdh_column(r, i);
			if (!host && col->path.host)
				host = col->path.host;
			if (perfmon && pass == 1)
				note_disk_no(m, &col->path);
			if (perfmon && col->path.ok) {
				char t[256];
				bool logical = in_list(pm_logical, as_utf8(col->path.object, t, sizeof t));
				if (logical != (pass == 0))
					continue;
			}
			enum layer l;
			char name[256];
			double scale;
			int metric = model_classify(&col->path, perfmon, &l, name, sizeof name, &scale);
			if (metric < 0)
				continue;
			if (l == LAYER_WORLD) {
				/* only Commands/sec, for the device's active-world count */
				if (metric != M_CMDS)
					continue;
				char *dash = strrchr(name, '-');
				if (!dash)
					continue;
				*dash = '\0';
				size_t dev = entity_get(m, ci, LAYER_DEVICE, name, col->path.host);
				if (dev == SIZE_MAX) {
					too_many = true;
					continue;
				}
				wc[nwc].col = i;
				wc[nwc].dev_series_owner = dev;
				nwc++;
				want[i] = true;
				continue;
			}
			size_t e = entity_get(m, ci, l, name, col->path.host);
			if (e == SIZE_MAX) {
				too_many = true;
				continue;
			}
			struct entity *ent = &m->ents[e];
			cm[ncm].col = i;
			cm[ncm].ent = e;
			cm[ncm].metric = metric;
			cm[ncm].scale = scale;
			if (ent->series[metric] < 0) {
				ent->series[metric] = (int)nseries++;
				cm[ncm].series = ent->series[metric];
				ncm++;
				want[i] = true;
			}
		}
	}
	if (too_many)
		diag_emit(&in.diag, DIAG_WARNING, pdh_header_line(r), 0,
			  "more than %d storage entities (devices, adapters, virtual disks, guest disks): the rest "
			  "are not analysed", MODEL_MAX_ENTITIES);
	/* derived series: active worlds per device */
	for (size_t k = 0; k < nwc; k++) {
		struct entity *d = &m->ents[wc[k].dev_series_owner];
		if (d->series[M_WORLDS] < 0)
			d->series[M_WORLDS] = (int)nseries++;
	}
	c->host = host ? arena_strdup(&m->arena, host) : NULL;
	ds_init(&c->ds, nseries);
	pdh_select(r, want);
	free(want);
	double *worlds = xcalloc(m->nents ? m->nents : 1, sizeof *worlds);
	struct pdh_row row;
	struct interval_hist ih;
	ihist_init(&ih);
	int64_t prev = 0;
	c->start = INT64_MAX;
	c->end = INT64_MIN;
	while ((rc = pdh_next(r, &row)) == 1) {
		if (c->rows > 0 && !row.discontinuity)
			ihist_add(&ih, row.t_ms - prev);
		prev = row.t_ms;
		if (row.t_ms < c->start)
			c->start = row.t_ms;
		if (row.t_ms > c->end)
			c->end = row.t_ms;
		c->rows++;
		ds_row(&c->ds, row.t_ms, row.discontinuity);
		for (size_t k = 0; k < ncm; k++) {
			double v;
			if (!pdh_value(r, cm[k].col, &v))
				continue;
			v *= cm[k].scale;
			struct entity *e = &m->ents[cm[k].ent];
			ds_set(&c->ds, (size_t)cm[k].series, v);
			qs_add(&e->sk[cm[k].metric], v);
			if (cm[k].metric == M_DQLEN) {
				if (isnan(e->dq_first))
					e->dq_first = v;
				if (v > e->dq_max)
					e->dq_max = v;
				if (!isnan(e->dq_last) && v != e->dq_last) {
					if (e->ndq < DQ_MAX_EVENTS) {
						if (!e->dq)
							e->dq = xmalloc(DQ_MAX_EVENTS * sizeof *e->dq);
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
		if (nwc) {
			for (size_t k = 0; k < nwc; k++)
				worlds[wc[k].dev_series_owner] = 0;
			for (size_t k = 0; k < nwc; k++) {
				double v;
				if (pdh_value(r, wc[k].col, &v) && v >= 1.0)
					worlds[wc[k].dev_series_owner] += 1;
			}
			for (size_t k = 0; k < nwc; k++) {
				size_t d = wc[k].dev_series_owner;
				struct entity *e = &m->ents[d];
				if (worlds[d] >= 0) {
					ds_set(&c->ds, (size_t)e->series[M_WORLDS], worlds[d]);
					qs_add(&e->sk[M_WORLDS], worlds[d]);
					worlds[d] = -1; /* once per device */
				}
			}
		}
	}
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
	c->interval_s = (double)ihist_median(&ih) / 1000.0;
	ihist_free(&ih);
	free(worlds);
	free(cm);
	free(wc);
	c->skipped_rows = pdh_stats(r)->skipped_rows;
	input_close(&in);
	c->warnings = in.diag.warnings;
	if (rc < 0) {
		c->failed = rc;
		return rc;
	}
	if (c->rows == 0) {
		/* a header without a complete data row: nothing to analyse */
		c->start = c->end = 0;
		struct diag d;
		diag_init(&d, in.diag.file, 0);
		d.sink = co->sink;
		diag_emit(&d, DIAG_ERROR, 0, 0, "no complete data row: nothing to analyse");
		c->failed = ERR_FORMAT;
		return ERR_FORMAT;
	}
	return 0;
}
