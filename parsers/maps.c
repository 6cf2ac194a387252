/* maps.c — the disk map and the match map (see maps.h). */
#include "maps.h"
#include "vocab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "guestdisk.h"

static char *trim_line(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* s as a guest disk in the spelling entities are keyed by (guestdisk.h), into out; false when it
 * is none of the forms a guest disk has. A bare number is the disk number ("2" → "Disk 2"): a
 * letterless PhysicalDisk was once named by its number alone. */
static bool guest_disk(const char *s, char *out, size_t cap)
{
	size_t n = strlen(s);
	bool num = n > 0 && strspn(s, "0123456789") == n;
	char tmp[32];
	if (num && n < sizeof tmp - 6) {
		snprintf(tmp, sizeof tmp, "Disk %s", s);
		s = tmp;
		n = strlen(tmp);
	}
	enum gd_form f = guest_disk_norm(s, n, out, cap);
	return guest_disk_named(f) || f == GD_TOTAL;
}

/* The guest side of a disk map line: "[GUESTHOST\]DISK". A guest host name has no backslash, a
 * disk may ("E:\SQLDATA"), so the host is what comes before the first backslash, and only when the
 * whole side is not already a disk ("E:\SQLDATA" alone is that disk on any guest). Returns the
 * host (NULL = any; in s) and writes the disk to out; NULL with *err set when the side is not
 * one, *col the 0-based offset of the bad part in s. */
static bool guest_side(char *s, const char **host, char *out, size_t cap, const char **err, size_t *col)
{
	*host = NULL;
	*col = 0;
	if (guest_disk(s, out, cap))
		return true;
	char *bs = strchr(s, '\\');
	if (!bs) {
		*err = "is not a guest disk";
		return false;
	}
	*bs = '\0';
	char *h = trim_line(s), *disk = trim_line(bs + 1);
	if (!*h) {
		*err = "has no guest host before the backslash";
		return false;
	}
	*host = h;
	*col = (size_t)(disk - s);
	if (!*disk) {
		*err = "has no disk after the guest host";
		return false;
	}
	if (!guest_disk(disk, out, cap)) {
		*err = "is not a guest disk";
		return false;
	}
	return true;
}

/* "database [INSTANCE:]DB log|data = [GUESTHOST\]DISK" (left and right split at '=', trimmed;
 * line is the whole line, for the columns). */
static int db_line(struct diskmap *m, char *left, char *right, const char *line, long ln, struct diag *d)
{
	char *name = trim_line(left + 8);
	char *sp = name + strlen(name);
	while (sp > name && sp[-1] != ' ' && sp[-1] != '\t')
		sp--;
	char *role = sp;
	if (sp > name)
		sp[-1] = '\0';
	name = trim_line(name);
	bool data = strcasecmp(role, "data") == 0;
	if (!*name || role == name || (!data && strcasecmp(role, "log") != 0)) {
		diag_emit(d, DIAG_ERROR, ln, (long)(role - line) + 1,
			  "expected 'database [INSTANCE:]DB log|data = [GUESTHOST\\]DISK' (e.g. 'database ETLDB log = SQL01\\E:')");
		return ERR_FORMAT;
	}
	const char *host, *err;
	size_t col;
	char disk[256];
	if (!*right) {
		diag_emit(d, DIAG_ERROR, ln, (long)(right - line) + 1, "expected a guest disk after '=' ([GUESTHOST\\]DISK: D:, E:\\SQLLOG, ...)");
		return ERR_FORMAT;
	}
	struct buf shown;
	buf_init(&shown);
	buf_add_text_escaped(&shown, right, strlen(right));
	if (!guest_side(right, &host, disk, sizeof disk, &err, &col)) {
		diag_emit(d, DIAG_ERROR, ln, (long)(right + col - line) + 1,
			  "'%s' %s: a database's files are on a guest disk ([GUESTHOST\\]DISK: D:, E:\\SQLLOG, ...)", shown.data, err);
		buf_free(&shown);
		return ERR_FORMAT;
	}
	buf_free(&shown);
	const char *colon = strchr(name, ':');
	m->db = xgrow(m->db, m->ndb, sizeof *m->db);
	struct dbmap_line *l = &m->db[m->ndb++];
	l->instance = colon ? arena_strndup(&m->arena, name, (size_t)(colon - name)) : NULL;
	l->db = arena_strdup(&m->arena, colon ? colon + 1 : name);
	l->data = data;
	l->guest_host = host ? arena_strdup(&m->arena, host) : NULL;
	l->guest_disk = arena_strdup(&m->arena, disk);
	l->line = ln;
	return 0;
}

int diskmap_read(struct diskmap *m, const char *path, struct diag *d)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	char why[160];
	FILE *fp = fopen_regular(path, why, sizeof why); /* a FIFO is never opened: it would wait */
	if (!fp) {
		diag_emit(d, DIAG_ERROR, 0, 0, "cannot open: %s", why);
		return ERR_IO;
	}
	char line[1024];
	long ln = 0;
	int rc = 0;
	while (fgets(line, sizeof line, fp)) {
		ln++;
		line[strcspn(line, "\n")] = '\0';
		char *s = trim_line(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strstr(s, "=");
		if (!eq) {
			diag_emit(d, DIAG_ERROR, ln, 1, "expected 'GUESTHOST\\D: = VM:scsi0:1'");
			rc = ERR_FORMAT;
			continue;
		}
		*eq = '\0';
		char *left = trim_line(s), *right = trim_line(eq + 1);
		if (strcasecmp(left, "partitions") == 0) {
			/* "partitions = GUESTHOST": the --partitions file is that guest's (its listing
			 * names no SystemName) */
			if (!*right || strpbrk(right, " \t\\:")) {
				diag_emit(d, DIAG_ERROR, ln, (long)(right - line) + 1,
					  "expected 'partitions = GUESTHOST' (the machine the --partitions file was taken on)");
				rc = ERR_FORMAT;
				continue;
			}
			m->partitions_host = arena_strdup(&m->arena, right);
			m->partitions_line = ln;
			continue;
		}
		if (strncasecmp(left, "database", 8) == 0 && (left[8] == ' ' || left[8] == '\t')) {
			if (db_line(m, left, right, line, ln, d) < 0)
				rc = ERR_FORMAT;
			continue;
		}
		/* a Hyper-V VHDX: its path as Get-VMHardDiskDrive gives it ("C:\ClusterStorage\Volume1\SQL01\
		 * SQL01_D.vhdx") or its Hyper-V Virtual Storage Device instance, which writes '\' as '-'
		 * (doc/hyperv.md); kept in the instance's spelling */
		bool vhdx = *right && strcasestr(right, ".vhd") != NULL;
		if (vhdx)
			for (char *q = right; *q; q++)
				*q = *q == '\\' ? '-' : *q;
		if (!*left || !*right || (!vdisk_ctrl(right) && !vhdx)) {
			diag_emit(d, DIAG_ERROR, ln, (long)(right - line) + 1,
				  "expected 'GUESTHOST\\D: = VM:scsiC:T' (or VM:nvmeC:T, VM:sataC:T) or, on Hyper-V, '= VHDX path'");
			rc = ERR_FORMAT;
			continue;
		}
		struct buf shown;
		buf_init(&shown);
		buf_add_text_escaped(&shown, left, strlen(left));
		const char *host, *err;
		size_t col;
		char disk[256];
		if (!guest_side(left, &host, disk, sizeof disk, &err, &col)) {
			diag_emit(d, DIAG_ERROR, ln, (long)(left + col - line) + 1,
				  "'%s' %s: expected [GUESTHOST\\]DISK with DISK a drive letter (D:), a mount path "
				  "(E:\\SQLDATA), HarddiskVolumeN, a volume GUID or Disk N", shown.data, err);
			buf_free(&shown);
			rc = ERR_FORMAT;
			continue;
		}
		buf_free(&shown);
		m->l = xgrow(m->l, m->n, sizeof *m->l);
		struct diskmap_line *l = &m->l[m->n++];
		l->guest_host = host ? arena_strdup(&m->arena, host) : NULL;
		l->guest_disk = arena_strdup(&m->arena, disk);
		l->vdisk = arena_strdup(&m->arena, right);
		l->line = ln;
	}
	fclose(fp);
	return rc;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

/* "[HOST\]NAME" between s and e → host (or NULL) and name in the arena; false when empty. The
 * host ends at the last backslash (names of host-side entities have none), except before a guest
 * disk with backslashes of its own: "SQL01\E:\SQLDATA" is E:\SQLDATA on SQL01. */
static bool map_side(struct matchmap *m, const char *s, const char *e, const char **host, const char **name)
{
	trim(&s, &e);
	const char *bs = NULL, *first = NULL;
	for (const char *p = s; p < e; p++)
		if (*p == '\\') {
			bs = p;
			first = first ? first : p;
		}
	if (first && first != bs && guest_disk_form(s, (size_t)(e - s)) == GD_OTHER) {
		enum gd_form f = guest_disk_form(first + 1, (size_t)(e - first - 1));
		if (guest_disk_named(f))
			bs = first;
	}
	*host = NULL;
	if (bs) {
		const char *hs = s, *he = bs;
		trim(&hs, &he);
		if (he > hs)
			*host = arena_strndup(&m->arena, hs, (size_t)(he - hs));
		s = bs + 1;
		trim(&s, &e);
	}
	if (e <= s)
		return false;
	*name = arena_strndup(&m->arena, s, (size_t)(e - s));
	return true;
}

static int matchmap_lines(struct matchmap *m, const char *text, size_t len, struct diag *d)
{
	long line = 0;
	size_t i = 0;
	int rc = 0;
	while (i < len) {
		line++;
		size_t s = i;
		while (i < len && text[i] != '\n')
			i++;
		const char *ls = text + s, *le = text + i;
		i++;
		const char *p = ls, *q = le;
		trim(&p, &q);
		if (p == q || *p == '#')
			continue;
		/* "a = b": the first " = " when present (names may contain '='), else the first '=' */
		const char *eq = NULL;
		for (const char *t = p; t + 2 < q && !eq; t++)
			if (t[0] == ' ' && t[1] == '=' && t[2] == ' ')
				eq = t + 1;
		if (!eq)
			eq = memchr(p, '=', (size_t)(q - p));
		struct matchmap_line ml;
		memset(&ml, 0, sizeof ml);
		ml.line = line;
		if (!eq || !map_side(m, p, eq, &ml.host[0], &ml.name[0]) || !map_side(m, eq + 1, q, &ml.host[1], &ml.name[1])) {
			diag_emit(d, DIAG_ERROR, line, eq ? (long)(eq - ls) + 1 : 1L,
				  "expected 'BEFORE-NAME = AFTER-NAME' (e.g. 'SQL01:scsi0:1 = SQL01:scsi1:0' or "
				  "'SQL01\\D: = SQL01\\G:')");
			rc = ERR_FORMAT;
			continue;
		}
		m->l = xgrow(m->l, m->n, sizeof *m->l);
		m->l[m->n++] = ml;
	}
	return rc;
}

int matchmap_read(struct matchmap *m, const char *path, struct diag *d)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	char why[160];
	FILE *fp = fopen_regular(path, why, sizeof why);
	if (!fp) {
		diag_emit(d, DIAG_ERROR, 0, 0, "cannot open: %s", why);
		return ERR_IO;
	}
	struct buf b;
	buf_init(&b);
	char chunk[4096];
	size_t n;
	int rc = 0;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		buf_add(&b, chunk, n);
		if (b.len > (1u << 20)) {
			diag_emit(d, DIAG_ERROR, 0, 0, "match map larger than 1 MiB");
			rc = ERR_FORMAT;
			break;
		}
	}
	if (!rc && ferror(fp)) {
		diag_emit(d, DIAG_ERROR, 0, 0, "read error: %s", strerror(errno));
		rc = ERR_IO;
	}
	fclose(fp);
	if (!rc)
		rc = matchmap_lines(m, b.data ? b.data : "", b.len, d);
	buf_free(&b);
	return rc;
}

int matchmap_parse(struct matchmap *m, const char *text, size_t len, struct diag *d)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	return matchmap_lines(m, text, len, d);
}

void diskmap_free(struct diskmap *m)
{
	free(m->l);
	free(m->db);
	arena_free(&m->arena);
	memset(m, 0, sizeof *m);
}

void matchmap_free(struct matchmap *m)
{
	free(m->l);
	arena_free(&m->arena);
	memset(m, 0, sizeof *m);
}
