/* maps.h — the user's mapping files, read into neutral lists: the disk map of analyze (--map:
 * "GUESTHOST\D: = VM:scsi0:1", a guest disk and the virtual disk behind it; the disk may be a mount
 * path, "SQL01\E:\SQLDATA", and the host may be left out) and the match map of compare
 * (--match-map: "[HOST\]NAME = [HOST\]NAME", an entity renamed between the captures). Errors are
 * file:line:col through the caller's diag; the lines read are kept with their number. A disk map
 * may also say which guest a partitions file is from: "partitions = SQL01". */
#ifndef IOPSY_MAPS_H
#define IOPSY_MAPS_H

#include <stddef.h>

#include "util.h"

struct diskmap_line {
	const char *guest_host;  /* NULL = any host (arena) */
	const char *guest_disk;  /* spelt as entities are (guest_disk_norm): "D:", "E:\SQLDATA",
	                          * "HarddiskVolume5", "Disk 2" (arena) */
	const char *vdisk;       /* "VM:scsi0:1" (arena) */
	long line;
};
/* "database [INSTANCE:]DB log|data = [GUESTHOST\]DISK": where a SQL Server database's log or
 * data files are (the SQL Server impact of analyze; INSTANCE "SQLServer" or "MSSQL$NAME"). */
struct dbmap_line {
	const char *instance;    /* NULL = any instance (arena) */
	const char *db;          /* database name as SQL Server names it (arena) */
	bool data;               /* data files (else the log) */
	const char *guest_host;  /* NULL = any host (arena) */
	const char *guest_disk;  /* spelt as entities are (arena) */
	long line;
};
struct diskmap {
	struct diskmap_line *l;
	size_t n;
	struct dbmap_line *db;   /* the database lines */
	size_t ndb;
	const char *partitions_host; /* "partitions = GUESTHOST": the machine the --partitions file was
	                              * taken on, NULL when no such line (arena) */
	long partitions_line;
	struct arena arena;
};
/* Reads path into m (initialised here; free with diskmap_free even on error): guest disk lines
 * and database lines. Returns 0, or ERR_IO (cannot open) / ERR_FORMAT (bad lines: each reported,
 * the good ones kept). */
int diskmap_read(struct diskmap *m, const char *path, struct diag *d);
void diskmap_free(struct diskmap *m);

struct matchmap_line {
	const char *host[2], *name[2]; /* [0] before, [1] after; host NULL = any (arena) */
	long line;
};
struct matchmap {
	struct matchmap_line *l;
	size_t n;
	struct arena arena;
};
/* As diskmap_read, for a match map (at most 1 MiB). */
int matchmap_read(struct matchmap *m, const char *path, struct diag *d);
/* Parses text already in memory (m initialised here). */
int matchmap_parse(struct matchmap *m, const char *text, size_t len, struct diag *d);
void matchmap_free(struct matchmap *m);

#endif
