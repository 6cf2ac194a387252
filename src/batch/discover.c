/* discover.c — the sets of a batch run (see discover.h): a folder's set folders and loose files,
 * or a manifest's [set NAME] sections with globs; each file's role sniffed from its first bytes;
 * sanitised, unique folder names. */
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anopts.h"
#include "input.h"
#include "match.h"
#include "pdh.h"
#include "source.h"
#include "suggest.h"
#include "tz.h"
#include "window.h"

/* ---- names ---- */

char *batch_sanitize(const char *name)
{
	size_t n = strlen(name);
	char *o = xmalloc(n + 8);
	size_t k = 0;
	for (size_t i = 0; i < n && k < 80; i++) {
		unsigned char c = (unsigned char)name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			  c == '_' || c == '-';
		char ch = ok ? (char)c : '_';
		if (k == 0 && ch == '.')
			ch = '_';
		if (k > 0 && ch == '_' && o[k - 1] == '_')
			continue; /* one '_' per run of replaced bytes */
		o[k++] = ch;
	}
	o[k] = '\0';
	if (k == 0 || strcmp(o, ".") == 0 || strcmp(o, "..") == 0) {
		free(o);
		return xstrdup("set");
	}
	return o;
}

/* ---- file roles ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* Decides what a file is from its first decoded bytes: a capture when a format of the table's
 * probes claims them (parser_probe, as reader_open does: vscsiStats too), else the companion files
 * by their marks. */
static enum bfile_role classify(const char *path, char **note)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	*note = NULL;
	if (strcasecmp(base, "truth.json") == 0) {
		*note = xstrdup("simulator ground truth, not an input");
		return BF_IGNORED;
	}
	struct diag d;
	diag_init(&d, path, 0);
	struct buf msg;
	buf_init(&msg);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msg};
	struct source src;
	if (source_open(&src, path, &d) < 0) {
		*note = xstrdup(msg.data ? msg.data : "cannot open");
		buf_free(&msg);
		return BF_IGNORED;
	}
	char head[65536];
	long n = 0, k;
	while (n < (long)sizeof head - 1 && (k = source_read(&src, head + n, sizeof head - 1 - (size_t)n, &d)) > 0)
		n += k;
	source_close(&src);
	if (n < 0)
		n = 0;
	head[n] = '\0';
	enum bfile_role r = BF_IGNORED;
	int conf;
	if (parser_probe(head, (size_t)n, &conf)) /* a capture of a format of the table, as reader_open probes */
		r = BF_CAPTURE;
	else if (memmem(head, (size_t)n, "StartingOffset", 14))
		r = BF_PARTITIONS;
	else if (strncasecmp(base, "vmkernel", 8) == 0 || memmem(head, (size_t)n, " vmkernel: ", 11))
		r = BF_VMKLOG;
	else if (ends_with(base, ".map") || ((memmem(head, (size_t)n, ":scsi", 5) || memmem(head, (size_t)n, ":nvme", 5) ||
		 memmem(head, (size_t)n, ":sata", 5) || strcasestr(head, ".vhd")) &&
						 memmem(head, (size_t)n, " = ", 3)))
		r = BF_MAP; /* VMware's VM:scsi0:1, or a Hyper-V VHDX */
	else if (pdh_blg_hint(base))
		*note = xstrdup(pdh_blg_hint(base));
	else
		*note = xstrdup(msg.len ? msg.data : "not a capture, vmkernel.log, partitions or disk map file");
	buf_free(&msg);
	return r;
}

/* Why a path that is not a regular file is not read (NULL: it is one). Opening a FIFO would
 * wait for a writer, and a device may never end: neither is opened. */
static char *not_regular(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		struct buf n;
		buf_init(&n);
		buf_printf(&n, "cannot be read: %s", strerror(errno));
		return n.data;
	}
	if (S_ISREG(st.st_mode))
		return NULL;
	const char *what = S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)" : S_ISCHR(st.st_mode) ? "a character device"
			   : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
			   : S_ISDIR(st.st_mode) ? "a folder" : "not a regular file";
	struct buf n;
	buf_init(&n);
	buf_printf(&n, "%s, not a file: not read", what);
	return n.data;
}

/* ---- the run's list store (issue 28) ----
 * Every set's list goes, file by file as discovery finds it, to an unlinked temporary file in
 * $TMPDIR (or /tmp): the parent keeps each set's number of files and where its list is, never the
 * lists (two sets of a million files took 692 MB). When the store cannot be made or written, the
 * lists stay in memory as before. */
#define STORE_PEND_BYTES (256u << 10)

static bool store_open(struct batch *b)
{
	if (b->has_store || b->store_failed)
		return b->has_store;
	const char *t = getenv("TMPDIR");
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/iopsy-files.XXXXXX", t && *t ? t : "/tmp");
	int fd = mkostemp(p.data, O_CLOEXEC);
	if (fd >= 0)
		unlink(p.data); /* gone with the process, whatever ends it */
	buf_free(&p);
	if (fd < 0) {
		b->store_failed = true;
		return false;
	}
	b->has_store = true;
	b->store_fd = fd;
	b->store_end = 0;
	return true;
}

static bool write_at(int fd, const char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return true;
}

/* What is pending of set s goes to the store. When it cannot be written, s's list comes back to
 * memory whole (what the store holds of it and what is pending) and no later set is stored. */
static void store_flush(struct batch *b, struct bset *s)
{
	struct buf *pend = &b->store_pend;
	if (!s->stored || !pend->len)
		return;
	if (write_at(s->store_fd, pend->data, pend->len, s->store_off + s->store_len)) {
		s->store_len += pend->len;
		b->store_end = s->store_off + s->store_len;
		buf_reset(pend);
		return;
	}
	size_t had = (size_t)s->store_len, n = had + pend->len;
	char *all = xmalloc(n ? n : 1);
	size_t got = 0;
	while (got < had) {
		ssize_t k = pread(s->store_fd, all + got, had - got, (off_t)(s->store_off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	memcpy(all + had, pend->data, pend->len);
	buf_reset(pend);
	s->files = xcalloc(s->nfiles ? s->nfiles : 1, sizeof *s->files);
	if (got < had || !bfiles_decode(all, n, s->nfiles, s->files)) {
		/* what was written cannot be read back either: the list is lost, and the set says so */
		bfiles_free(s->files, s->nfiles);
		s->files = NULL;
		s->nfiles = 0;
		if (!s->discovery_error)
			s->discovery_error = xstrdup("the list of the set's files could not be kept (the temporary folder "
						     "cannot be written), so the set was not analysed");
	}
	free(all);
	s->stored = false;
	b->store_failed = true;
	b->store_end = s->store_off; /* no later set goes to the store */
}

/* File path of set s with its role, side and note (note owned: taken). */
static void put_file(struct batch *b, struct bset *s, const char *path, enum bfile_role role, int side, char *note)
{
	if (!s->stored && !s->nfiles && !s->files && store_open(b)) {
		s->stored = true;
		s->store_fd = b->store_fd;
		s->store_off = b->store_end;
		s->store_len = 0;
		buf_reset(&b->store_pend);
	}
	if (s->stored) {
		struct bfile f = {.path = xstrdup(path), .role = role, .side = side, .note = note};
		bfile_encode(&f, &b->store_pend);
		s->nfiles++;
		free(f.path);
		free(note);
		if (b->store_pend.len >= STORE_PEND_BYTES)
			store_flush(b, s);
		return;
	}
	s->files = xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
	s->files[s->nfiles++] = (struct bfile){.path = xstrdup(path), .role = role, .side = side, .note = note};
}

/* A set's list is complete. */
static void set_listed(struct batch *b, struct bset *s)
{
	store_flush(b, s);
}

/* The role of the file at path (and why it is not used, *note, owned). */
static enum bfile_role file_role(const char *path, char **note)
{
	*note = not_regular(path);
	return *note ? BF_IGNORED : classify(path, note);
}

static void add_file(struct batch *b, struct bset *s, const char *path, int side)
{
	char *note;
	enum bfile_role role = file_role(path, &note);
	put_file(b, s, path, role, side, note);
}

/* Names the run itself writes in DIR: no set folder may take one (a customer folder called
 * index.html would stop the index from being written). Compared without case, as on the SMB
 * and NFS shares reports are often read from. */
static const char *const reserved[] = {"index.html", "summary.json", "mail", "history.sqlite",
				       "history.sqlite-journal", "history.sqlite-wal", "history.sqlite-shm"};

static bool name_taken(char *const *taken, size_t ntaken, const char *dir)
{
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strcasecmp(dir, reserved[i]) == 0)
			return true;
	for (size_t i = 0; i < ntaken; i++)
		if (strcasecmp(taken[i], dir) == 0)
			return true;
	return false;
}

char *batch_set_key(const char *name, char *const *taken, size_t ntaken)
{
	char *base = batch_sanitize(name);
	char *dir = xstrdup(base);
	for (int k = 2; name_taken(taken, ntaken, dir); k++) {
		free(dir);
		struct buf t;
		buf_init(&t);
		buf_printf(&t, "%s-%d", base, k);
		dir = t.data;
	}
	free(base);
	return dir;
}

/* FNV-1a 64 (as shard.h's), here for the keys' collision suffix. */
static uint64_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		h ^= *c;
		h *= 0x100000001b3ull;
	}
	return h;
}

struct key_ord {
	size_t set;
	char *k0;                 /* the sanitised name (reserved names already given "-2") */
	bool exact;               /* the name is its own sanitised form */
};

static int key_ord_cmp(const void *x, const void *y)
{
	const struct key_ord *a = x, *b = y;
	int c = strcasecmp(a->k0, b->k0);
	if (c)
		return c;
	if (a->exact != b->exact)
		return a->exact ? -1 : 1;
	return (a->set > b->set) - (a->set < b->set);
}

void batch_assign_keys(struct batch *b)
{
	struct key_ord *o = xcalloc(b->nsets ? b->nsets : 1, sizeof *o);
	for (size_t i = 0; i < b->nsets; i++) {
		char *k0 = batch_sanitize(b->sets[i].name);
		if (name_taken(NULL, 0, k0)) { /* a name the run writes itself */
			struct buf t;
			buf_init(&t);
			buf_printf(&t, "%s-2", k0);
			free(k0);
			k0 = t.data;
		}
		o[i] = (struct key_ord){.set = i, .k0 = k0, .exact = strcmp(k0, b->sets[i].name) == 0};
	}
	qsort(o, b->nsets, sizeof *o, key_ord_cmp);
	for (size_t i = 0; i < b->nsets; i++) {
		free(b->sets[i].dir);
		b->sets[i].dir = NULL;
	}
	/* the exact name (the bytewise first of those) keeps its key; every other set of a group that
	 * differs only in case or sanitising gets the hash of its own full name: the same every week,
	 * whoever else is there */
	bool *hashed = xcalloc(b->nsets ? b->nsets : 1, sizeof *hashed);
	for (size_t i = 0; i < b->nsets;) {
		size_t j = i + 1;
		while (j < b->nsets && strcasecmp(o[j].k0, o[i].k0) == 0)
			j++;
		size_t keep = i;
		for (size_t k = i + 1; k < j; k++)
			if (o[k].exact && o[keep].exact && strcmp(b->sets[o[k].set].name, b->sets[o[keep].set].name) < 0)
				keep = k;
		b->sets[o[keep].set].dir = xstrdup(o[keep].k0);
		for (size_t k = i; k < j; k++)
			hashed[k] = k != keep;
		i = j;
	}
	for (size_t k = 0; k < b->nsets; k++) {
		if (!hashed[k])
			continue;
		struct bset *st = &b->sets[o[k].set];
		unsigned long long h = (unsigned long long)(name_hash(st->name) & 0xffffffffu);
		struct buf t;
		buf_init(&t);
		buf_printf(&t, "%s-%08llx", o[k].k0, h);
		/* the same full name twice in one run (a folder and a loose file, [set X] twice), or a
		 * set literally named like another's key: then the order decides, as it must */
		for (int n = 2;; n++) {
			bool clash = false;
			for (size_t q = 0; q < b->nsets && !clash; q++)
				clash = b->sets[q].dir && strcasecmp(b->sets[q].dir, t.data) == 0;
			if (!clash)
				break;
			buf_reset(&t);
			buf_printf(&t, "%s-%08llx-%d", o[k].k0, h, n);
		}
		st->dir = t.data;
	}
	free(hashed);
	for (size_t i = 0; i < b->nsets; i++)
		free(o[i].k0);
	free(o);
}

static struct bset *add_set(struct batch *b, const char *name)
{
	b->sets = xrealloc(b->sets, (b->nsets + 1) * sizeof *b->sets);
	struct bset *s = &b->sets[b->nsets++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->worst = -1;
	/* unique directory name: the set's key in the history too */
	char **taken = xcalloc(b->nsets, sizeof *taken);
	for (size_t i = 0; i + 1 < b->nsets; i++)
		taken[i] = b->sets[i].dir;
	char *dir = batch_set_key(name, taken, b->nsets - 1);
	free(taken);
	s->dir = dir;
	return s;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted directories of dir, or (want_dirs false) everything else: files, FIFOs, devices, broken
 * links (names only, no dot files). */
static char **list_dir(const char *dir, bool want_dirs, size_t *n)
{
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **v = NULL;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", dir, e->d_name);
		struct stat st;
		bool isdir = stat(p.data, &st) == 0 && S_ISDIR(st.st_mode);
		buf_free(&p);
		if (want_dirs == isdir) {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, name_cmp);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void add_folder_files(struct batch *b, struct bset *s, const char *dir, int side)
{
	size_t n;
	char **v = list_dir(dir, false, &n);
	for (size_t i = 0; i < n; i++) {
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", dir, v[i]);
		add_file(b, s, p.data, side);
		buf_free(&p);
	}
	free_list(v, n);
}

static int discover_folder(struct batch *b, const char *input)
{
	size_t nd, nf;
	char **dirs = list_dir(input, true, &nd);
	char **files = list_dir(input, false, &nf);
	for (size_t i = 0; i < nd; i++) {
		struct bset *s = add_set(b, dirs[i]);
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", input, dirs[i]);
		struct buf pb, pa;
		buf_init(&pb);
		buf_init(&pa);
		buf_printf(&pb, "%s/before", p.data);
		buf_printf(&pa, "%s/after", p.data);
		struct stat st;
		if (stat(pb.data, &st) == 0 && S_ISDIR(st.st_mode) && stat(pa.data, &st) == 0 && S_ISDIR(st.st_mode)) {
			s->paired = true;
			add_folder_files(b, s, pb.data, 1);
			add_folder_files(b, s, pa.data, 2);
		}
		add_folder_files(b, s, p.data, 0);
		/* other sub-folders are not read: say so rather than drop them silently */
		size_t nsub;
		char **sub = list_dir(p.data, true, &nsub);
		for (size_t k = 0; k < nsub; k++) {
			if (s->paired && (strcmp(sub[k], "before") == 0 || strcmp(sub[k], "after") == 0))
				continue;
			struct buf fp;
			buf_init(&fp);
			buf_printf(&fp, "%s/%s/", p.data, sub[k]);
			put_file(b, s, fp.data, BF_IGNORED, 0,
				 xstrdup(s->paired ? "folder not read (only before/ and after/ are)"
						   : "folder not read: a set is the files of one folder (use before/ and after/ for a comparison)"));
			buf_free(&fp);
		}
		free_list(sub, nsub);
		set_listed(b, s);
		buf_free(&p);
		buf_free(&pb);
		buf_free(&pa);
	}
	/* loose files: one set each, named after the file */
	for (size_t i = 0; i < nf; i++) {
		char *stem = xstrdup(files[i]);
		char *dot = strchr(stem, '.');
		if (dot && dot != stem)
			*dot = '\0';
		struct bset *s = add_set(b, stem);
		free(stem);
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", input, files[i]);
		add_file(b, s, p.data, 0);
		set_listed(b, s);
		buf_free(&p);
	}
	free_list(dirs, nd);
	free_list(files, nf);
	return 0;
}

/* ---- manifest ----
 * [set NAME]            starts a set
 * files = GLOB...       captures and companion files (roles are sniffed)
 * before = GLOB...      a comparison: the before side
 * after = GLOB...       ... and the after side
 * vmkernel-log = GLOB, partitions = GLOB, map = GLOB   (same as files, role forced)
 * mail-to = ADDR, ADDR  per-set recipients
 * Globs are relative to the manifest's folder; '#' starts a comment. */

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

static void add_glob(struct batch *b, struct bset *s, const char *base, const char *pattern, int side, int forced)
{
	struct buf p;
	buf_init(&p);
	if (pattern[0] == '/')
		buf_adds(&p, pattern);
	else
		buf_printf(&p, "%s/%s", base, pattern);
	glob_t g;
	int rc = glob(p.data, 0, NULL, &g);
	if (rc != 0) {
		struct buf e;
		buf_init(&e);
		if (s->discovery_error)
			buf_printf(&e, "%s; ", s->discovery_error);
		buf_printf(&e, "'%s' matches no file", pattern);
		free(s->discovery_error);
		s->discovery_error = e.data;
	} else {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *path = g.gl_pathv[i];
			char *note;
			enum bfile_role role = file_role(path, &note);
			/* the key says what the file is: a regular file it names takes that role even when
			 * its head is none the sniffer knows (a map named sql01.txt); one that is no
			 * regular file stays unread with its note */
			char *why = forced >= 0 && role == BF_IGNORED ? not_regular(path) : NULL;
			if (forced >= 0 && (role != BF_IGNORED || !why)) {
				if (role == BF_IGNORED) {
					free(note);
					note = NULL;
				}
				role = (enum bfile_role)forced;
			}
			free(why);
			put_file(b, s, path, role, side, note);
		}
		globfree(&g);
	}
	buf_free(&p);
}

/* The report's engagement keys of a manifest set: title, customer, prepared-by (text) and logo (a
 * file, relative to the manifest). true when key was one of them. */
#define MANIFEST_TEXT_MAX 200

/* Where a report key of the manifest goes in s (NULL: not a report key). */
static char **brand_slot(struct bset *s, const char *key)
{
	return strcmp(key, "title") == 0 ? &s->title : strcmp(key, "customer") == 0 ? &s->customer
	       : strcmp(key, "prepared-by") == 0 ? &s->prepared_by : strcmp(key, "logo") == 0 ? &s->logo : NULL;
}

static bool manifest_brand(struct bset *s, const char *key, const char *val, const char *base)
{
	char **slot = brand_slot(s, key);
	if (!slot)
		return false;
	free(*slot);
	if (slot == &s->logo && val[0] != '/' && base && *base) {
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", base, val);
		*slot = p.data;
	} else {
		*slot = xstrdup(val);
	}
	return true;
}

/* ---- a set's analysis options ---- */

/* Every key a set takes, in the order the unknown-key message lists them: its files, the rows of
 * the analysis option table the manifest takes (anopts.h), the mail and report keys, the zone,
 * the window and the filters. Returns how many (at most cap). */
static size_t manifest_keys(const char **k, size_t cap)
{
	static const char *const head[] = {"files", "before", "after"};
	static const char *const tail[] = {"mail-to", "title", "customer", "prepared-by", "logo", "tz", "host", "vm", "disk"};
	static char sided[ANOPT_MAX_ROWS][2][48];
	size_t n = 0;
	for (size_t i = 0; i < sizeof head / sizeof head[0] && n < cap; i++)
		k[n++] = head[i];
	for (size_t i = 0; anopts[i].name && i < ANOPT_MAX_ROWS && n < cap; i++) {
		const struct anopt *o = &anopts[i];
		if (o->flags & ANF_MANIFEST)
			k[n++] = o->name;
		for (int sd = 0; sd < 2 && (o->flags & ANF_MANIFEST_SIDED) && n < cap; sd++) {
			snprintf(sided[i][sd], sizeof sided[i][sd], "%s-%s", sd ? "after" : "before", o->name);
			k[n++] = sided[i][sd];
		}
	}
	for (size_t i = 0; i < sizeof tail / sizeof tail[0] && n < cap; i++)
		k[n++] = tail[i];
	return n;
}

static int opt_error(struct diag *d, long ln, long col, const char *key, const char *val, const char *why)
{
	struct buf v;
	buf_init(&v);
	buf_add_text_escaped(&v, val, strlen(val));
	diag_emit(d, DIAG_ERROR, ln, col, "%s = '%s': %s", key, v.data, why);
	buf_free(&v);
	return -1;
}

/* A manifest key of the set's analysis options: 1 taken, 0 not one, -1 a bad value (reported at
 * ln:vcol; kcol is the key's column). */
static int set_option(struct bset *s, const char *base, const char *key, const char *val, struct diag *d, long ln,
		      long kcol, long vcol)
{
	(void)kcol;
	struct bset_opts *o = &s->opts;
	static const char *const filters[3] = {"host", "vm", "disk"};
	/* a row of the analysis option table (NAME, or before-/after-NAME for one side): the rules
	 * file (one, relative to the manifest), a value (the other files are globs of the set's
	 * files: discover_manifest) */
	int side = 0;
	const struct anopt *row = anopt_find(key, ANF_MANIFEST);
	if (!row && strncmp(key, "before-", 7) == 0)
		side = 1, row = anopt_find(key + 7, ANF_MANIFEST_SIDED);
	else if (!row && strncmp(key, "after-", 6) == 0)
		side = 2, row = anopt_find(key + 6, ANF_MANIFEST_SIDED);
	if (row && row->input == AN_IN_NONE) {
		const char *v = val;
		if (row->type == ANT_PATH || row->type == ANT_PATHS || row->type == ANT_TIME) {
			/* the row keeps its text: the set owns a copy (the line is read over) */
			o->texts = xrealloc(o->texts, (o->ntexts + 1) * sizeof *o->texts);
			v = o->texts[o->ntexts++] = xstrdup(val);
		}
		const char *why;
		if (anopt_set(row, v, &o->av[side], &why) < 0)
			return opt_error(d, ln, vcol, key, val, why);
		if (side)
			o->av[side].own |= 1ull << (row - anopts);
		return 1;
	}
	if (row && row->input == AN_IN_RULES) {
		if (!*val)
			return opt_error(d, ln, vcol, key, val, "needs a rules file");
		struct buf p;
		buf_init(&p);
		if (val[0] == '/')
			buf_adds(&p, val);
		else
			buf_printf(&p, "%s/%s", base, val);
		free(o->rules);
		o->rules = p.data;
		return 1;
	}
	if (strcmp(key, "tz") == 0) {
		struct tz *z = xcalloc(1, sizeof *z);
		struct buf why;
		buf_init(&why);
		if (tz_parse(z, val, &why) < 0) {
			struct buf m;
			buf_init(&m);
			buf_printf(&m, "%s (an offset like +09:00, -0500 or UTC, or a zone name like Europe/Berlin)",
				   why.data ? why.data : "not a time zone");
			opt_error(d, ln, vcol, key, val, m.data);
			buf_free(&m);
			buf_free(&why);
			tz_free(z);
			free(z);
			return -1;
		}
		buf_free(&why);
		if (o->tz) {
			tz_free(o->tz);
			free(o->tz);
		}
		o->tz = z;
		o->tz_bias_min = z->fixed ? -z->off / 60 : 0;
		o->tz_given = true;
		return 1;
	}
	for (int k = 0; k < 3; k++) {
		if (strcmp(key, filters[k]) != 0)
			continue;
		/* one pattern per line, spaces and all */
		struct diag q = *d;
		struct buf msg;
		buf_init(&msg);
		q.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msg};
		q.file = NULL;
		q.prefix = "";
		struct matcher *m = matcher_new(val, true, &q);
		if (!m) {
			if (msg.len && msg.data[msg.len - 1] == '\n')
				msg.data[--msg.len] = '\0';
			const char *why = msg.data ? strstr(msg.data, "regex") : NULL;
			opt_error(d, ln, vcol, key, val, why ? why : "not a regular expression");
			buf_free(&msg);
			return -1;
		}
		matcher_free(m);
		buf_free(&msg);
		o->filter[k] = xrealloc(o->filter[k], (o->nfilter[k] + 1) * sizeof *o->filter[k]);
		o->filter[k][o->nfilter[k]++] = xstrdup(val);
		return 1;
	}
	return 0;
}

/* A set whose manifest lines are wrong fails with the reason (never analysed without what it
 * asked for: a window, a filter, its rules); the line's own error was printed at its column. */
static void set_bad_key(struct bset *s, const char *path, long ln, const char *key, const char *why)
{
	if (s->discovery_error)
		return; /* the first reason is enough */
	struct buf e, k;
	buf_init(&e);
	buf_init(&k);
	buf_add_text_escaped(&k, key, strlen(key));
	buf_printf(&e, "the manifest's '%s' (%s:%ld) %s, so the set was not analysed", k.data, path, ln, why);
	buf_free(&k);
	s->discovery_error = e.data;
}

#define MANIFEST_MAX_BYTES (16u << 20)

static void put_utf8(struct buf *o, unsigned long c)
{
	if (c < 0x80) {
		buf_addc(o, (char)c);
	} else if (c < 0x800) {
		buf_addc(o, (char)(0xC0 | (c >> 6)));
		buf_addc(o, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		buf_addc(o, (char)(0xE0 | (c >> 12)));
		buf_addc(o, (char)(0x80 | ((c >> 6) & 0x3F)));
		buf_addc(o, (char)(0x80 | (c & 0x3F)));
	} else {
		buf_addc(o, (char)(0xF0 | (c >> 18)));
		buf_addc(o, (char)(0x80 | ((c >> 12) & 0x3F)));
		buf_addc(o, (char)(0x80 | ((c >> 6) & 0x3F)));
		buf_addc(o, (char)(0x80 | (c & 0x3F)));
	}
}

/* The manifest's text as UTF-8 in out: a UTF-8 BOM dropped, UTF-16 (LE or BE, with its BOM, or
 * without one when the file starts with an ASCII character and a NUL — Notepad's "Unicode")
 * converted; an unpaired surrogate becomes U+FFFD. */
static void manifest_text(const unsigned char *p, size_t n, struct buf *out)
{
	int be = -1;
	if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE)
		be = 0, p += 2, n -= 2;
	else if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
		be = 1, p += 2, n -= 2;
	else if (n >= 2 && p[0] && p[0] < 0x80 && !p[1])
		be = 0;
	else if (n >= 2 && !p[0] && p[1] && p[1] < 0x80)
		be = 1;
	if (be < 0) {
		if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
			p += 3, n -= 3;
		buf_add(out, p, n);
		buf_adds(out, "");
		return;
	}
	for (size_t i = 0; i + 1 < n; i += 2) {
		unsigned long c = be ? (unsigned long)p[i] << 8 | p[i + 1] : (unsigned long)p[i + 1] << 8 | p[i];
		if (c >= 0xD800 && c < 0xDC00 && i + 3 < n) {
			unsigned long c2 = be ? (unsigned long)p[i + 2] << 8 | p[i + 3] : (unsigned long)p[i + 3] << 8 | p[i + 2];
			if (c2 >= 0xDC00 && c2 < 0xE000) {
				c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
				i += 2;
			} else {
				c = 0xFFFD;
			}
		} else if (c >= 0xD800 && c < 0xE000) {
			c = 0xFFFD;
		}
		if (c == 0xFEFF && i == 0)
			continue;
		put_utf8(out, c);
	}
	buf_adds(out, "");
}

/* A section line that is not "[set NAME]" ("[Set X]", "[set]", "[sets X]", no ']'): an error at
 * its column, and a set of that name that fails with the reason — its lines are never dropped
 * or taken for the set before. */
static struct bset *bad_section(struct batch *b, const char *path, long ln, const char *s, struct diag *d, long col)
{
	diag_emit(d, DIAG_ERROR, ln, col, "expected '[set NAME]' (lower-case 'set', a space, then the set's name)");
	const char *in = s + 1;
	size_t n = strcspn(in, "]");
	char *name = xstrndup(in, n);
	char *t = name;
	while (*t == ' ' || *t == '\t')
		t++;
	if (strncasecmp(t, "set", 3) == 0 && (t[3] == ' ' || t[3] == '\t' || !t[3]))
		t += 3;
	while (*t == ' ' || *t == '\t')
		t++;
	size_t m = strlen(t);
	while (m && (t[m - 1] == ' ' || t[m - 1] == '\t'))
		t[--m] = '\0';
	struct buf nm, line, e;
	buf_init(&nm);
	buf_init(&line);
	buf_init(&e);
	if (*t)
		buf_adds(&nm, t);
	else
		buf_printf(&nm, "manifest line %ld", ln);
	buf_add_text_escaped(&line, s, strlen(s));
	struct bset *set = add_set(b, nm.data);
	buf_printf(&e, "the manifest's section line '%s' (%s:%ld:%ld) is not '[set NAME]', so the set was not analysed",
		   line.data, path, ln, col);
	set->discovery_error = e.data;
	buf_free(&nm);
	buf_free(&line);
	free(name);
	return set;
}

/* A manifest set's lines are over (its section ended): its list complete, then what its files and
 * keys say about it as a whole. */
static void manifest_set_done(struct batch *b, struct bset *s)
{
	set_listed(b, s);
	if (s->paired) {
		bool have[3] = {false, false, false};
		struct bfile_iter it;
		bfile_iter_init(&it, s);
		for (const struct bfile *f; (f = bfile_iter_next(&it)) != NULL;)
			if (f->role == BF_CAPTURE)
				have[f->side] = true;
		bfile_iter_free(&it);
		if (!have[1] || !have[2]) {
			free(s->discovery_error);
			s->discovery_error = xstrdup("a comparison needs captures on both 'before' and 'after'");
		}
	}
	if (!s->paired && !s->discovery_error &&
	    (s->opts.av[1].own || s->opts.av[2].own))
		/* a window of one side on a set without sides: never analysed without it */
		s->discovery_error = xstrdup("before-from, before-to, after-from and after-to are for a comparison (a set "
					     "with 'before' and 'after' files); this set has neither side: use from and to");
}

static int discover_manifest(struct batch *b, const char *path, const struct diag *parent)
{
	struct diag d = *parent;
	d.file = path;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a FIFO would wait for a writer, a device might never end */
		diag_emit(&d, DIAG_PLAIN, 0, 0, "not a regular file (a manifest is a text file; a folder of sets is a folder)");
		return ERR_IO;
	}
	if (stat(path, &st) == 0 && (size_t)st.st_size > MANIFEST_MAX_BYTES) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "a manifest of %lld bytes is past the %u MiB a manifest may have",
			  (long long)st.st_size, MANIFEST_MAX_BYTES >> 20);
		return ERR_IO;
	}
	FILE *raw = fopen(path, "rb");
	if (!raw) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "cannot open: %s", strerror(errno));
		return ERR_IO;
	}
	struct buf bytes, text;
	buf_init(&bytes);
	buf_init(&text);
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, raw)) > 0 && bytes.len <= MANIFEST_MAX_BYTES)
		buf_add(&bytes, chunk, got);
	bool rerr = ferror(raw);
	fclose(raw);
	if (rerr) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "cannot read: %s", strerror(errno));
		buf_free(&bytes);
		return ERR_IO;
	}
	manifest_text((const unsigned char *)(bytes.data ? bytes.data : ""), bytes.len, &text);
	buf_free(&bytes);
	FILE *fp = text.len ? fmemopen(text.data, text.len, "r") : NULL; /* NULL: an empty manifest */
	if (text.len && !fp) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "cannot read: %s", strerror(errno));
		buf_free(&text);
		return ERR_IO;
	}
	char *base = xstrdup(path);
	char *slash = strrchr(base, '/');
	if (slash)
		*slash = '\0';
	else {
		free(base);
		base = xstrdup(".");
	}
	char *line = NULL;
	size_t cap = 0;
	long ln = 0;
	struct bset *cur = NULL;
	int rc = 0;
	while (fp && getline(&line, &cap, fp) > 0) {
		ln++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = trim(line);
		if (!*s)
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			long col = (long)(s - line) + 1;
			const char *q = s + 5;
			bool named = strncmp(s, "[set ", 5) == 0 && e && e > q;
			while (named && q < e && (*q == ' ' || *q == '\t'))
				q++;
			if (cur)
				manifest_set_done(b, cur); /* before add_set moves the sets */
			if (!named || q >= e) {
				cur = bad_section(b, path, ln, s, &d, col);
				rc = ERR_FORMAT;
				continue;
			}
			*e = '\0';
			cur = add_set(b, trim(s + 5));
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq || !cur) {
			diag_emit(&d, DIAG_ERROR, ln, (long)(s - line) + 1, "%s",
				  cur ? "expected 'key = value'" : "a '[set NAME]' line must come first");
			rc = ERR_FORMAT;
			continue;
		}
		*eq = '\0';
		char *key = trim(s), *val = trim(eq + 1);
		/* the set's own analysis options (set_option: rules, tz, array-queue-depth, clock-offset,
		 * from/to, host/vm/disk; issue 15's report keys go there too) */
		int so = set_option(cur, base, key, val, &d, ln, (long)(key - line) + 1, (long)(val - line) + 1);
		if (so < 0) {
			rc = ERR_FORMAT;
			set_bad_key(cur, path, ln, key, "has a bad value");
		}
		if (so)
			continue;
		int side = 0, forced = -1;
		bool mail = false;
		if (strcmp(key, "files") == 0)
			side = 0;
		else if (strcmp(key, "before") == 0)
			side = 1;
		else if (strcmp(key, "after") == 0)
			side = 2;
		else if (anopt_find(key, ANF_MANIFEST)) /* a file row of the table: its role forced */
			forced = bfile_role_of(anopt_find(key, ANF_MANIFEST)->input);
		else if (strcmp(key, "mail-to") == 0)
			mail = true;
		else if (brand_slot(cur, key) && strcmp(key, "logo") != 0 && strlen(val) > MANIFEST_TEXT_MAX) {
			/* a title, customer or prepared-by goes on every report and into mail subjects */
			diag_emit(&d, DIAG_ERROR, ln, (long)(val - line) + 1, "'%s' is %zu bytes long, more than the %d a report "
				  "heading takes", key, strlen(val), MANIFEST_TEXT_MAX);
			set_bad_key(cur, path, ln, key, "is too long");
			rc = ERR_FORMAT;
			continue;
		} else if (brand_slot(cur, key) && *brand_slot(cur, key)) {
			diag_emit(&d, DIAG_WARNING, ln, (long)(key - line) + 1, "'%s' is given twice in set %s: this later one is "
				  "used", key, cur->name);
			manifest_brand(cur, key, val, base);
			continue;
		} else if (manifest_brand(cur, key, val, base))
			continue;
		else {
			struct buf kb;
			buf_init(&kb);
			buf_add_text_escaped(&kb, key, strlen(key));
			const char *keys[64];
			size_t nkeys = manifest_keys(keys, sizeof keys / sizeof keys[0]);
			struct buf close, list;
			buf_init(&close);
			buf_init(&list);
			suggest_append(&close, key, NULL, keys, nkeys);
			for (size_t i = 0; i < nkeys; i++)
				buf_printf(&list, "%s%s", i ? ", " : "", keys[i]);
			diag_emit(&d, DIAG_ERROR, ln, (long)(key - line) + 1, "unknown key '%s'%s (%s)", kb.data,
				  close.data ? close.data : "", list.data);
			buf_free(&list);
			buf_free(&close);
			buf_free(&kb);
			set_bad_key(cur, path, ln, key, "is not a manifest key");
			rc = ERR_FORMAT;
			continue;
		}
		if (side)
			cur->paired = true;
		char *save = NULL;
		for (char *tok = strtok_r(val, mail ? ", \t" : " \t", &save); tok; tok = strtok_r(NULL, mail ? ", \t" : " \t", &save)) {
			if (mail) {
				cur->mail_to = xrealloc(cur->mail_to, (cur->nmail + 1) * sizeof *cur->mail_to);
				cur->mail_to[cur->nmail++] = xstrdup(tok);
			} else {
				add_glob(b, cur, base, tok, side, forced);
			}
		}
	}
	free(line);
	free(base);
	if (fp)
		fclose(fp);
	buf_free(&text);
	if (cur)
		manifest_set_done(b, cur);
	return rc;
}

int batch_discover(struct batch *b, const char *input, struct diag *d)
{
	memset(b, 0, sizeof *b);
	struct stat st;
	if (stat(input, &st) != 0) {
		struct diag di = *d;
		di.file = input;
		diag_emit(&di, DIAG_PLAIN, 0, 0, "%s", strerror(errno));
		return ERR_IO;
	}
	int rc;
	if (S_ISDIR(st.st_mode)) {
		b->input_kind = xstrdup("folder");
		rc = discover_folder(b, input);
	} else {
		b->input_kind = xstrdup("manifest");
		rc = discover_manifest(b, input, d);
	}
	batch_assign_keys(b);
	return rc;
}

