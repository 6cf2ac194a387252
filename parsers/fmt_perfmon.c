/* fmt_perfmon.c — the Windows perfmon format: relog/Data Collector Set/typeperf CSV and TSV,
 * PowerShell Export-Counter, local time with the header's bias; its disk counters (English and
 * the common localisations), their classification, and the header pass that keeps one view of
 * each guest disk (prepare). */
#include "guestdisk.h"
#include "pdh.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* perfmon disk counters, English and the common localisations (matched case-insensitively,
 * after cp1252 → UTF-8 when the name is not UTF-8). */
static const struct counter_map pm_disk[] = {
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
	{"Avg. Disk Bytes/Read", M_G_BPR, 1},
	{"Avg. Disk Bytes/Write", M_G_BPW, 1},
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
const struct counter_map *const pm_disk_map = pm_disk;
const char *const pm_physical[] = {"PhysicalDisk", "Physikalischer Datentr\xc3\xa4ger", "Disque physique", NULL};

/* cp1252/latin-1 → UTF-8 for matching localised names written in an ANSI code page. */
const char *perfmon_utf8(const char *s, char *tmp, size_t cap)
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

bool perfmon_in_list(const char *const *l, const char *s)
{
	for (size_t i = 0; l[i]; i++)
		if (strcasecmp(l[i], s) == 0)
			return true;
	return false;
}

/* PhysicalDisk "1 D: E:": disk number 1, first drive D: (for wmic's "Disk #1"), letters "DE" (a
 * volume over several disks carries its letter on each: "2 E: G:", "3 G:"). */
static void disk_number(const struct pdh_path *p, struct counter_class *c)
{
	char *end;
	long n = strtol(p->instance, &end, 10);
	if (end == p->instance || *end != ' ' || n < 0 || n > 100000)
		return;
	const char *d = end + 1;
	size_t dl = strcspn(d, " ");
	if (dl != 2 || d[1] != ':')
		return;
	c->disk_no = (int)n;
	c->disk_drive[0] = (char)toupper((unsigned char)d[0]);
	c->disk_drive[1] = ':';
	c->disk_drive[2] = '\0';
	size_t nl = 0;
	for (const char *t = d; *t && nl + 1 < sizeof c->disk_letters; t += strspn(t, " ")) {
		size_t tl = strcspn(t, " ");
		if (tl == 2 && t[1] == ':' && isalpha((unsigned char)t[0]))
			c->disk_letters[nl++] = (char)toupper((unsigned char)t[0]);
		t += tl;
	}
	c->disk_letters[nl] = '\0';
}

/* The guest disk a PhysicalDisk instance names: its first drive letter ("1 D: E:" → "D:", merged
 * with LogicalDisk D:), "Disk 2" for a disk with no drive letter ("2"), what follows the number
 * when it is not a drive letter (a mount path, were one ever listed: "2 E:\SQL DATA" → "E:\SQL
 * DATA"), else the word after the first space as before. */
void perfmon_physical_name(const char *in, char *out, size_t cap)
{
	char *end;
	long n = strtol(in, &end, 10);
	bool numbered = in[0] >= '0' && in[0] <= '9' && end != in && n >= 0;
	if (numbered && *end == '\0') {
		snprintf(out, cap, "Disk %ld", n);
		return;
	}
	const char *sp = strchr(in, ' ');
	if (sp && sp[1])
		in = sp + 1;
	size_t tok = strcspn(in, " ");
	if (numbered && *end == ' ' && guest_disk_form(in, tok) != GD_DRIVE)
		tok = strlen(in);
	guest_disk_norm(in, tok, out, cap);
}

/* ---- SQL Server's counters ----
 * Objects "SQLServer:OBJECT" (the default instance) or "MSSQL$NAME:OBJECT" (a named one),
 * matched without case (Export-Counter writes lowercase). Entities: the instance ("SQLServer",
 * "MSSQL$PROD": Buffer Manager, SQL Statistics, Wait Statistics) and each database
 * ("SQLServer:ETLDB", "SQLServer:_Total": the Databases object). Log Flush Wait Time is a
 * bulk count of milliseconds: perfmon shows it per second. Wait Statistics' instances are the
 * statistic ("Average wait time (ms)", "Waits in progress", "Cumulative wait time (ms) per
 * second", "Waits started per second"), its counters the wait type [ms: SQL Server, Wait
 * Statistics object]. */
static const struct counter_map sql_buffer[] = {
	{"Page life expectancy", M_SQL_PLE, 1},
	{"Page reads/sec", M_SQL_PAGE_READS, 1},
	{NULL, 0, 0},
};
static const struct counter_map sql_memory[] = {
	{"Memory Grants Pending", M_SQL_GRANTS_PENDING, 1},
	{NULL, 0, 0},
};
static const struct counter_map sql_stats[] = {
	{"Batch Requests/sec", M_SQL_BATCH, 1},
	{NULL, 0, 0},
};
static const struct counter_map sql_db[] = {
	{"Log Flush Wait Time", M_SQL_FLUSH_WAIT_MS, 1},
	{"Log Flush Waits/sec", M_SQL_FLUSH_WAITS, 1},
	{"Log Flushes/sec", M_SQL_FLUSHES, 1},
	{"Log Bytes Flushed/sec", M_SQL_LOG_MBPS, 1.0 / 1048576},
	{NULL, 0, 0},
};
static const struct {
	const char *instance;
	int pio, lw;
} sql_waits[] = {
	{"Average wait time (ms)", M_SQL_PIO_AVG, M_SQL_LW_AVG},
	{"Waits in progress", M_SQL_PIO_PROG, M_SQL_LW_PROG},
	{"Cumulative wait time (ms) per second", M_SQL_PIO_CUM, M_SQL_LW_CUM},
	{"Waits started per second", M_SQL_PIO_START, M_SQL_LW_START},
};

/* a and b equal without case, '[' and ']' standing for '(' and ')' (perfmon's spelling of
 * parentheses in instance names). */
static bool same_bracketed(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '[' ? '(' : *a == ']' ? ')' : (char)tolower((unsigned char)*a);
		char y = *b == '[' ? '(' : *b == ']' ? ')' : (char)tolower((unsigned char)*b);
		if (x != y)
			return false;
	}
	return !*a && !*b;
}

static int sql_classify(const struct pdh_path *p, struct counter_class *c)
{
	const char *o = p->object, *colon = strchr(o, ':');
	if (!colon)
		return -1;
	size_t pl = (size_t)(colon - o);
	char inst[128];
	if (pl == 9 && strncasecmp(o, "SQLServer", 9) == 0) {
		snprintf(inst, sizeof inst, "SQLServer");
	} else if (pl > 6 && pl < 100 && strncasecmp(o, "MSSQL$", 6) == 0) {
		memcpy(inst, "MSSQL$", 6);
		for (size_t i = 6; i < pl; i++)
			inst[i] = (char)toupper((unsigned char)o[i]);
		inst[pl] = '\0';
	} else {
		return -1;
	}
	const char *obj = colon + 1;
	c->layer = LAYER_SQL;
	int mt = -1;
	if (strcasecmp(obj, "Buffer Manager") == 0 && !p->instance) {
		mt = counter_lookup(sql_buffer, p->counter, true, &c->scale);
	} else if (strcasecmp(obj, "Memory Manager") == 0 && !p->instance) {
		mt = counter_lookup(sql_memory, p->counter, true, &c->scale);
	} else if (strcasecmp(obj, "SQL Statistics") == 0 && !p->instance) {
		mt = counter_lookup(sql_stats, p->counter, true, &c->scale);
	} else if (strcasecmp(obj, "Databases") == 0 && p->instance) {
		mt = counter_lookup(sql_db, p->counter, true, &c->scale);
		if (mt >= 0) {
			snprintf(c->entity, sizeof c->entity, "%s:%s", inst, p->instance);
			return c->metric = mt;
		}
		return -1;
	} else if (strcasecmp(obj, "Wait Statistics") == 0 && p->instance) {
		bool pio = strcasecmp(p->counter, "Page IO latch waits") == 0, lw = strcasecmp(p->counter, "Log write waits") == 0;
		for (size_t i = 0; (pio || lw) && i < sizeof sql_waits / sizeof sql_waits[0]; i++)
			if (same_bracketed(p->instance, sql_waits[i].instance))
				mt = pio ? sql_waits[i].pio : sql_waits[i].lw;
	}
	if (mt < 0)
		return -1;
	class_copy(c->entity, sizeof c->entity, inst, strlen(inst));
	return c->metric = mt;
}

/* ---- the machine's memory ----
 * Memory (no instance): Available MBytes, Pages/sec, Pages Input/sec (pages read from disk to
 * resolve hard faults) [ms: NT4 Resource Kit ch. 12, "Detecting Memory Bottlenecks"]; Paging File
 * (one instance per page file, "\??\C:\pagefile.sys", and _Total): % Usage. Kept on the
 * machine's io-path entity "_Total" (capmodel.c), a page file on one named by its drive ("C:"),
 * which ties paging to the guest disk that holds the file. */
static const struct counter_map pm_memory[] = {
	{"Available MBytes", M_MEM_AVAIL_MB, 1},
	{"Pages/sec", M_MEM_PAGES, 1},
	{"Pages Input/sec", M_MEM_PAGES_IN, 1},
	{NULL, 0, 0},
};

static int memory_classify(const struct pdh_path *p, struct counter_class *c)
{
	if (strcasecmp(p->object, "Memory") == 0 && !p->instance) {
		c->layer = LAYER_VM;
		class_copy(c->entity, sizeof c->entity, "_Total", 6);
		return c->metric = counter_lookup(pm_memory, p->counter, true, &c->scale);
	}
	if (strcasecmp(p->object, "Paging File") != 0 || !p->instance || strcasecmp(p->counter, "% Usage") != 0)
		return -1;
	const char *in = p->instance, *colon = strchr(in, ':');
	c->layer = LAYER_VM;
	c->scale = 1;
	if (strcasecmp(in, "_Total") == 0) {
		class_copy(c->entity, sizeof c->entity, "_Total", 6);
	} else if (colon && colon > in && isalpha((unsigned char)colon[-1])) {
		char d[3] = {(char)toupper((unsigned char)colon[-1]), ':', '\0'};
		class_copy(c->entity, sizeof c->entity, d, 2);
	} else {
		return -1;
	}
	return c->metric = M_MEM_PF_USAGE;
}

/* LogicalDisk (pass 0) wins over PhysicalDisk (pass 1) for the same drive. */
static int perfmon_classify(const struct pdh_path *p, struct counter_class *c)
{
	class_init(c);
	if (!p->ok)
		return -1;
	if (p->object[0] == 'S' || p->object[0] == 's' || p->object[0] == 'M' || p->object[0] == 'm') {
		int mt = sql_classify(p, c);
		if (mt >= 0 || strchr(p->object, ':'))
			return mt;
	}
	if ((p->object[0] == 'M' || p->object[0] == 'm' || p->object[0] == 'P' || p->object[0] == 'p') &&
	    memory_classify(p, c) >= 0)
		return c->metric;
	class_init(c);
	char t1[256], t2[256];
	const char *o = perfmon_utf8(p->object, t1, sizeof t1);
	bool logical = perfmon_in_list(pm_logical, o), physical = !logical && perfmon_in_list(pm_physical, o);
	c->pass = logical ? 0 : 1;
	if (physical && p->instance && p->host)
		disk_number(p, c);
	if (!p->instance || (!logical && !physical))
		return -1;
	const char *in = p->instance;
	if (strcasecmp(in, "_Total") == 0) {
		c->aggregate = true;
		class_copy(c->entity, sizeof c->entity, "_Total", 6);
	} else if (physical) {
		perfmon_physical_name(in, c->entity, sizeof c->entity);
	} else {
		/* "D:", "E:\SQLDATA", "HarddiskVolume5": the volume as Windows names it */
		guest_disk_norm(in, strlen(in), c->entity, sizeof c->entity);
	}
	c->layer = LAYER_GUEST;
	return c->metric = counter_lookup(pm_disk, perfmon_utf8(p->counter, t2, sizeof t2), true, &c->scale);
}

static bool host_in(const char *const *l, size_t n, const char *h)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i], h) == 0)
			return true;
	return false;
}

/* One view of each guest disk. LogicalDisk is the guest disk view: Windows names its instances by
 * drive letter or mount point [ms: "Windows Performance Monitor Disk Counters Explained", AskCore
 * 2012], and a volume with neither is HarddiskVolumeN; PhysicalDisk counts a whole disk, the sum of
 * its volumes, and names it by number and drive letters only ("0 C:", "1 D: E:"; a disk whose
 * volumes have no letter is "2" [obs: real captures list "1" .. "8" beside "9 H: I: J: K:"]).
 * - A PhysicalDisk instance with a drive letter is the entity of its first letter: LogicalDisk
 *   wins counter by counter (pass order), PhysicalDisk fills only the counters LogicalDisk lacks.
 * - A PhysicalDisk instance with no letter cannot be told apart from the mount points or
 *   letterless volumes on it: when the same host's LogicalDisk columns count a volume that is not
 *   a drive letter (E:\SQLDATA, HarddiskVolume5, \\?\Volume{GUID}), the letterless disk is (or
 *   may be) one of those volumes counted again under a number, and its columns are skipped (a
 *   LogicalDisk volume: the machine's memory and SQL Server's counters, which the classifier also
 *   keeps, name no volume).
 * - With no such LogicalDisk volume (only letters, or no LogicalDisk at all) it is the only view
 *   of that disk and stays, named "Disk 2".
 * The disk-number → drive table for wmic's "Disk #N" comes from lettered instances only, so
 * nothing skipped here carries one. */
static void perfmon_prepare(const struct reader *r, bool *skip)
{
	size_t n = reader_ncols(r), nh = 0;
	const char **hosts = NULL;
	struct counter_class c;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		if (perfmon_classify(p, &c) < 0 || c.pass != 0 || c.aggregate || c.layer != LAYER_GUEST ||
		    guest_disk_form(c.entity, strlen(c.entity)) == GD_DRIVE)
			continue;
		const char *h = p->host ? p->host : "";
		if (host_in(hosts, nh, h))
			continue;
		hosts = xrealloc(hosts, (nh + 1) * sizeof *hosts);
		hosts[nh++] = h;
	}
	for (size_t i = 0; i < n && nh; i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		if (perfmon_classify(p, &c) >= 0 && c.pass == 1 && !c.aggregate &&
		    guest_disk_form(c.entity, strlen(c.entity)) == GD_DISKNO && host_in(hosts, nh, p->host ? p->host : ""))
			skip[i] = true;
	}
	free(hosts);
}

static int perfmon_probe(const char *head, size_t n)
{
	if (!pdh_head_line(head, n, &head, &n))
		return 0;
	size_t lim = n < 4096 ? n : 4096;
	if (memmem(head, lim, "(PDH-CSV 4.0)", 13) || memmem(head, lim, "(PDH-TSV 4.0)", 13))
		return 50;
	if (memmem(head, lim, "(PDH-", 5))
		return 30;
	return 0;
}

int perfmon_header(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
			  struct diag *d)
{
	(void)o;
	(void)d;
	pdh_header_parse_bias(cell, len, hi);
	return 0;
}

const struct parser_ops parser_perfmon = {
	.name = "perfmon",
	.summary = "Windows perfmon CSV/TSV (relog, Data Collector Set, typeperf, Export-Counter), local time + bias",
	.sample = "\"(PDH-CSV 4.0) (Pacific Standard Time)(480)\",\"\\\\SQL01\\LogicalDisk(D:)\\Disk Reads/sec\"\n",
	.role = ROLE_GUEST,
	.probe = perfmon_probe,
	.header = perfmon_header,
	.local_time = true,
	.glitch_values = true,
	.classify = perfmon_classify,
	.prepare = perfmon_prepare,
	.host = pdh_head_host,
	PDH_READER,
};
