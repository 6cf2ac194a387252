/* anopts.c — the table of analysis options and its validator (see anopts.h). */
#include "anopts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AO(f) (offsetof(struct an_values, ao) + offsetof(struct analyze_opts, f))
#define AV(f) offsetof(struct an_values, f)

const struct anopt anopts[] = {
	{.name = "rules", .arg = "FILE", .type = ANT_PATH, .off = AV(rules), .input = AN_IN_RULES,
	 .flags = ANF_ANALYZE | ANF_SIDED | ANF_MANIFEST, .want = "a rules file",
	 .help = "threshold overrides: 'name = value [unit]' lines, sections [host|vm|device NAME] and [disk [HOST] NAME] "
		 "for one entity (see 'iopsy rules --help'); the reports list what it changed"},
	{.name = "map", .arg = "FILE", .type = ANT_PATH, .off = AV(map), .input = AN_IN_MAP,
	 .flags = ANF_ANALYZE | ANF_SIDED | ANF_MANIFEST, .want = "a disk map file",
	 .help = "guest disk to virtual disk lines: 'SQL01\\D: = SQL01:scsi0:1' (default: found by correlating IOPS), "
		 "SQL Server database lines: 'database [INSTANCE:]DB log|data = [HOST\\]DISK', and 'partitions = HOST': "
		 "the guest the --partitions file is of"},
	{.name = "vmkernel-log", .arg = "FILE", .type = ANT_PATHS, .off = AV(vmklog), .given = AV(nvmklog),
	 .input = AN_IN_VMKLOG, .flags = ANF_ANALYZE | ANF_SIDED | ANF_MANIFEST, .want = "a vmkernel.log",
	 .help = "vmkernel.log (QUEUE FULL/BUSY, queue depth reductions); repeat it for rotated logs or several hosts"},
	{.name = "partitions", .arg = "FILE", .type = ANT_PATH, .off = AV(partitions), .input = AN_IN_PARTITIONS,
	 .flags = ANF_ANALYZE | ANF_SIDED | ANF_MANIFEST, .want = "a partitions file",
	 .help = "output of 'wmic partition get BlockSize, StartingOffset, Name, Index, SystemName' (applied only to "
		 "the guest it names, or --map's)"},
	{.name = "array-queue-depth", .arg = "N", .type = ANT_INT, .min = 1, .max = 1000000, .off = AO(array_queue_depth),
	 .flags = ANF_ANALYZE | ANF_COMPARE | ANF_MANIFEST, .want = "a positive number",
	 .help = "the array LU command queue depth, to check over-commit"},
	{.name = "clock-offset", .arg = "SEC", .type = ANT_DOUBLE, .min = -172800, .max = 172800,
	 .off = AO(clock_offset_s), .given = AO(clock_offset_given), .flags = ANF_ANALYZE | ANF_COMPARE | ANF_SIDED | ANF_MANIFEST,
	 .want = "seconds, guest clock minus host clock (e.g. -3.5)",
	 .help = "guest clock minus host clock (default: estimated from IOPS)"},
	{.name = "no-clock-estimate", .type = ANT_FLAG, .off = AO(no_auto_offset), .flags = ANF_ANALYZE | ANF_COMPARE,
	 .help = "do not estimate the guest clock offset"},
	{.name = "from", .arg = "TIME", .type = ANT_TIME, .off = AV(win[0]),
	 .flags = ANF_ANALYZE | ANF_COMPARE | ANF_SIDED | ANF_MANIFEST | ANF_MANIFEST_SIDED, .want = "a time",
	 .help = "read only the rows from this time on: ISO with Z or an offset (2026-07-27T20:00:00Z), or the "
		 "captures' local time (13:00, 2026-07-27 13:00): in the --tz zone when given, else on the clock of the "
		 "first perfmon given, else esxtop's UTC; a time alone is on the day the first capture starts"},
	{.name = "to", .arg = "TIME", .type = ANT_TIME, .off = AV(win[1]),
	 .flags = ANF_ANALYZE | ANF_COMPARE | ANF_SIDED | ANF_MANIFEST | ANF_MANIFEST_SIDED, .want = "a time",
	 .help = "read only the rows up to this time (included), written as --from's"},
	{.name = "no-explore", .type = ANT_FLAG, .off = AO(no_explore), .flags = ANF_ANALYZE | ANF_MANIFEST,
	 .want = "yes or no",
	 .help = "no Explore section in the HTML report (the analysed entities' series in an interactive chart, about "
		 "1 MB); the PDF never has it"},
	{0},
};

const struct anopt *anopt_find(const char *name, unsigned flags)
{
	for (const struct anopt *o = anopts; o->name; o++)
		if (strcmp(o->name, name) == 0 && (!flags || (o->flags & flags)))
			return o;
	return NULL;
}

int anopt_set(const struct anopt *o, const char *val, struct an_values *v, const char **why)
{
	char *base = (char *)v;
	if (why)
		*why = o->want;
	switch (o->type) {
	case ANT_INT: {
		char *end;
		errno = 0;
		long x = strtol(val, &end, 10);
		if (errno || end == val || *end || x < o->min || x > o->max)
			return ANOPT_BAD;
		*(int *)(void *)(base + o->off) = (int)x;
		break;
	}
	case ANT_DOUBLE: {
		double x;
		if (!parse_number(val, strlen(val), &x) || x < o->min || x > o->max)
			return ANOPT_BAD;
		*(double *)(void *)(base + o->off) = x;
		break;
	}
	case ANT_FLAG: /* an option has no value; a manifest's key says yes or no */
		if (!val || !*val || strcasecmp(val, "yes") == 0 || strcasecmp(val, "true") == 0 ||
		    strcmp(val, "1") == 0)
			*(bool *)(void *)(base + o->off) = true;
		else if (strcasecmp(val, "no") == 0 || strcasecmp(val, "false") == 0 || strcmp(val, "0") == 0)
			*(bool *)(void *)(base + o->off) = false;
		else
			return ANOPT_BAD;
		break;
	case ANT_PATH:
		*(const char **)(void *)(base + o->off) = val;
		break;
	case ANT_PATHS: {
		size_t *n = (size_t *)(void *)(base + o->given);
		if (*n >= ANOPT_MAX_FILES)
			return ANOPT_TOO_MANY;
		((const char **)(void *)(base + o->off))[(*n)++] = val;
		return 0;
	}
	case ANT_TIME: {
		const char *reason;
		if (twin_parse(val, (struct twin_bound *)(void *)(base + o->off), &reason) < 0) {
			if (why)
				*why = reason;
			return ANOPT_BAD;
		}
		break;
	}
	}
	if (o->given)
		*(bool *)(void *)(base + o->given) = true;
	return 0;
}

/* The bytes of row o's field. */
static size_t field_size(const struct anopt *o)
{
	switch (o->type) {
	case ANT_INT: return sizeof(int);
	case ANT_DOUBLE: return sizeof(double);
	case ANT_FLAG: return sizeof(bool);
	case ANT_PATH: return sizeof(const char *);
	case ANT_PATHS: return ANOPT_MAX_FILES * sizeof(const char *);
	case ANT_TIME: return sizeof(struct twin_bound);
	}
	return 0;
}

void anopt_overlay(struct an_values *dst, const struct an_values *side)
{
	for (size_t i = 0; anopts[i].name && i < ANOPT_MAX_ROWS; i++) {
		const struct anopt *o = &anopts[i];
		if (!(side->own >> i & 1))
			continue;
		memcpy((char *)dst + o->off, (const char *)side + o->off, field_size(o));
		if (o->given)
			memcpy((char *)dst + o->given, (const char *)side + o->given, o->type == ANT_PATHS ? sizeof(size_t) : sizeof(bool));
	}
}

/* ---- the loader ---- */

int analysis_load_input(struct analysis *a, enum an_input in, const char *path, const struct an_load *how)
{
	struct diag d;
	diag_init(&d, path, in == AN_IN_VMKLOG || in == AN_IN_PARTITIONS ? how->max_warnings : -1);
	d.sink = how->sink;
	d.prefix = how->prefix;
	int rc = 0;
	switch (in) {
	case AN_IN_RULES:
		rc = rules_load(&a->rules, path, &d);
		break;
	case AN_IN_MAP: {
		struct diskmap dm;
		d.max_warnings = how->max_warnings;
		d.cap_errors = true;
		a->map_max_warnings = how->max_warnings;
		a->map_cap_given = true;
		rc = diskmap_read(&dm, path, &d);
		analysis_use_diskmap(a, &dm, path);
		diskmap_free(&dm);
		diag_finish(&d);
		break;
	}
	case AN_IN_VMKLOG:
		/* several logs (rotated files, several hosts) are merged in time order */
		rc = a->have_vmk ? vmklog_append(&a->vmk, path, &d) : vmklog_read(&a->vmk, path, &d);
		if (rc >= 0)
			a->have_vmk = true;
		else if (!a->have_vmk)
			vmklog_free(&a->vmk);
		if (rc < 0) {
			a->vmk_unread = xrealloc(a->vmk_unread, (a->nvmk_unread + 1) * sizeof *a->vmk_unread);
			a->vmk_unread[a->nvmk_unread++] = (struct vmk_unread){arena_strdup(&a->arena, path), rc};
		}
		diag_finish(&d);
		break;
	case AN_IN_PARTITIONS:
		if (a->have_parts)
			return 0;
		rc = partitions_read(&a->parts, path, &d);
		if (rc >= 0)
			a->have_parts = true;
		else
			partitions_free(&a->parts);
		diag_finish(&d);
		break;
	case AN_IN_NONE:
		break;
	}
	return rc < 0 ? rc : 0;
}

int analysis_load_side_files(struct analysis *a, const struct an_values *v, const struct an_load *how)
{
	int ret = 0;
	for (size_t i = 0; i < v->nvmklog; i++)
		if (analysis_load_input(a, AN_IN_VMKLOG, v->vmklog[i], how) < 0)
			ret = ERR_IO;
	if (v->partitions && analysis_load_input(a, AN_IN_PARTITIONS, v->partitions, how) < 0)
		ret = ERR_IO;
	return ret;
}

size_t analysis_load_captures(struct analysis *a, char *const *paths, size_t n, const struct common_opts *co,
			      const struct an_capture_hooks *h)
{
	size_t *order = xcalloc(n + 1, sizeof *order);
	capture_order(paths, n, co, order);
	size_t ok = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		if (h && h->may_read && !h->may_read(h->ctx, i))
			continue;
		int rc = model_add_capture(&a->m, paths[i], co);
		ok += rc == 0;
		if (h && h->done)
			h->done(h->ctx, i, rc);
	}
	free(order);
	return ok;
}
