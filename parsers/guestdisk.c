/* guestdisk.c — guest disk names: their forms and the one spelling they are keyed by (see
 * guestdisk.h). */
#include "guestdisk.h"

#include <string.h>
#include <strings.h>

static char up(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 32) : c; }
static char low(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }
static bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool digit(char c) { return c >= '0' && c <= '9'; }

static bool prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && strncasecmp(s, p, k) == 0;
}

/* n without the trailing backslashes (mount paths and GUID paths are written both ways). */
static size_t strip_bs(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == '\\')
		n--;
	return n;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!digit(s[i]))
			return false;
	return true;
}

/* "Volume{...}" (after an optional "\\?\") with nothing but backslashes after the '}': the start
 * and length of what is between the braces. */
static bool volume_guid(const char *s, size_t n, const char **g, size_t *gl)
{
	if (prefix(s, n, "\\\\?\\")) {
		s += 4;
		n -= 4;
	}
	n = strip_bs(s, n);
	if (!prefix(s, n, "Volume{") || n < 9 || s[n - 1] != '}')
		return false;
	*g = s + 7;
	*gl = n - 8;
	return memchr(*g, '}', *gl) == NULL && memchr(*g, '\\', *gl) == NULL;
}

/* "Disk 2", "Disk #2", "Disk2": the digits. */
static bool disk_number(const char *s, size_t n, const char **d, size_t *dl)
{
	if (!prefix(s, n, "Disk"))
		return false;
	size_t i = 4;
	while (i < n && s[i] == ' ')
		i++;
	if (i < n && s[i] == '#')
		i++;
	*d = s + i;
	*dl = n - i;
	return all_digits(*d, *dl);
}

enum gd_form guest_disk_form(const char *s, size_t n)
{
	if (n == 6 && strncasecmp(s, "_Total", 6) == 0)
		return GD_TOTAL;
	if (n >= 2 && letter(s[0]) && s[1] == ':') {
		if (n == 2)
			return GD_DRIVE;
		if (s[2] != '\\')
			return GD_OTHER;
		return strip_bs(s, n) == 2 ? GD_DRIVE : GD_MOUNT; /* "E:\" is the drive */
	}
	const char *g, *d;
	size_t gl, dl;
	if (prefix(s, n, "HarddiskVolume") && all_digits(s + 14, strip_bs(s, n) - 14))
		return GD_VOLUME;
	if (volume_guid(s, n, &g, &gl))
		return GD_VOLUME;
	if (disk_number(s, n, &d, &dl))
		return GD_DISKNO;
	return GD_OTHER;
}

enum gd_form guest_disk_norm(const char *s, size_t n, char *out, size_t cap)
{
	enum gd_form f = guest_disk_form(s, n);
	if (!cap)
		return f;
	struct {
		char *p;
		size_t left;
	} o = {out, cap - 1};
#define PUT(c)                          \
	do {                            \
		if (o.left) {           \
			*o.p++ = (c);   \
			o.left--;       \
		}                       \
	} while (0)
	const char *g, *d;
	size_t gl, dl;
	switch (f) {
	case GD_TOTAL:
		for (const char *t = "_Total"; *t; t++)
			PUT(*t);
		break;
	case GD_DRIVE:
		PUT(up(s[0]));
		PUT(':');
		break;
	case GD_MOUNT:
		n = strip_bs(s, n);
		for (size_t i = 0; i < n; i++)
			PUT(up(s[i]));
		break;
	case GD_VOLUME:
		if (volume_guid(s, n, &g, &gl)) {
			for (const char *t = "\\\\?\\Volume{"; *t; t++)
				PUT(*t);
			for (size_t i = 0; i < gl; i++)
				PUT(low(g[i]));
			PUT('}');
		} else {
			for (const char *t = "HarddiskVolume"; *t; t++)
				PUT(*t);
			n = strip_bs(s, n);
			for (size_t i = 14; i < n; i++)
				PUT(s[i]);
		}
		break;
	case GD_DISKNO: {
		disk_number(s, n, &d, &dl);
		/* the number as a number: "Disk 02" is disk 2 */
		while (dl > 1 && *d == '0') {
			d++;
			dl--;
		}
		for (const char *t = "Disk "; *t; t++)
			PUT(*t);
		for (size_t i = 0; i < dl; i++)
			PUT(d[i]);
		break;
	}
	case GD_OTHER:
		for (size_t i = 0; i < n; i++)
			PUT(up(s[i]));
		break;
	}
#undef PUT
	*o.p = '\0';
	return f;
}
