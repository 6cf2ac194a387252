/* guestdisk.h — the names Windows gives the disks and volumes perfmon counts, and the one spelling
 * iopsy keys a guest disk by. The perfmon classifier and the --map reader both go through
 * guest_disk_norm, so a map line finds the entity whatever case or trailing backslash either side
 * was written with.
 *
 * What Windows writes [ms]: LogicalDisk names a volume by its drive letter ("D:") or, for a volume
 * mounted in a folder, by the mount path ("E:\SQLDATA"); a volume with neither is
 * "HarddiskVolume5" (the System Reserved partition is the usual one). PhysicalDisk names a disk by
 * its number followed by the drive letters of its volumes ("0 C:", "1 D: E:"); mount paths are not
 * listed, so a disk whose volumes are all mounted in folders is its number alone ("2"). */
#ifndef IOPSY_GUESTDISK_H
#define IOPSY_GUESTDISK_H

#include <stdbool.h>
#include <stddef.h>

enum gd_form {
	GD_OTHER,                /* none of the forms below (kept, upper case) */
	GD_DRIVE,                /* "D:" */
	GD_MOUNT,                /* "E:\SQLDATA": a volume mounted in a folder */
	GD_VOLUME,               /* "HarddiskVolume5", "\\?\Volume{GUID}\": no letter, no mount path */
	GD_DISKNO,               /* "Disk 2": a PhysicalDisk instance with no drive letter */
	GD_TOTAL,                /* "_Total" */
};

/* The form of the n bytes at s (no trimming; case-insensitive). "Disk 2" and "Disk #2" are
 * GD_DISKNO; a bare number is GD_OTHER here (only the --map reader reads it as a disk number). */
enum gd_form guest_disk_form(const char *s, size_t n);

/* s (n bytes) in the spelling entities are keyed by, into out (cap bytes, truncated,
 * NUL-terminated); returns its form. Drive letters and mount paths upper case without a trailing
 * backslash ("e:\SqlData\" → "E:\SQLDATA"), "HarddiskVolume5", "\\?\Volume{guid}" (lower-case
 * hex, no trailing backslash, also from "Volume{GUID}"), "Disk 2", "_Total"; anything else upper
 * case, as drive letters always were. */
enum gd_form guest_disk_norm(const char *s, size_t n, char *out, size_t cap);

/* A form a volume or disk of its own has: a drive letter, mount path, letterless volume or disk
 * number (not _Total, not GD_OTHER). */
static inline bool guest_disk_named(enum gd_form f)
{
	return f == GD_DRIVE || f == GD_MOUNT || f == GD_VOLUME || f == GD_DISKNO;
}

/* The perfmon classifier's pieces the Hyper-V host format reuses (fmt_perfmon.c): the disk counter
 * table (English and the common localisations), PhysicalDisk's localised object names, the name a
 * PhysicalDisk instance gives its disk ("1 D: E:" → "D:", "2" → "Disk 2"), and cp1252 → UTF-8 for
 * matching a name written in an ANSI code page (tmp when converted, else s). */
struct counter_map;
extern const struct counter_map *const pm_disk_map;
extern const char *const pm_physical[];
void perfmon_physical_name(const char *in, char *out, size_t cap);
const char *perfmon_utf8(const char *s, char *tmp, size_t cap);
/* Whether s is one of the names in l (NULL-terminated), without case; the perfmon header cell
 * (its bias and zone) into hi. */
bool perfmon_in_list(const char *const *l, const char *s);
struct pdh_options;
struct pdh_header_info;
struct diag;
int perfmon_header(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi, struct diag *d);

#endif
