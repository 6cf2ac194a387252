/* shard.c — shard assignment, run ids and the run's marker files (see shard.h). */
#include "shard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= FNV_PRIME;
	}
	return h;
}

uint64_t shard_fnv1a64(const void *p, size_t n)
{
	return fnv_add(FNV_OFFSET, p, n);
}

unsigned shard_of(const char *key, unsigned n)
{
	return n ? (unsigned)(shard_fnv1a64(key, strlen(key)) % n) : 0;
}

int shard_parse(const char *arg, unsigned *k, unsigned *n)
{
	unsigned long a = 0, b = 0;
	const char *p = arg;
	size_t da = 0, db = 0;
	while (*p >= '0' && *p <= '9' && da < 7)
		a = a * 10 + (unsigned long)(*p++ - '0'), da++;
	if (!da || *p++ != '/')
		return ERR_USAGE;
	while (*p >= '0' && *p <= '9' && db < 7)
		b = b * 10 + (unsigned long)(*p++ - '0'), db++;
	if (!db || *p || b < 1 || b > SHARD_MAX || a >= b)
		return ERR_USAGE;
	*k = (unsigned)a;
	*n = (unsigned)b;
	return 0;
}

bool run_id_valid(const char *id)
{
	size_t n = strlen(id);
	if (n < 1 || n > RUN_ID_MAX || id[0] == '-')
		return false;
	for (const char *c = id; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._:+@-", *c)))
			return false;
	return true;
}

uint64_t run_id_number(const char *id)
{
	return fnv_add(shard_fnv1a64("run:", 4), id, strlen(id));
}

uint64_t batch_fingerprint(const struct batch *b)
{
	uint64_t h = FNV_OFFSET;
	for (size_t i = 0; i < b->nsets; i++) {
		const struct bset *s = &b->sets[i];
		h = fnv_add(h, s->dir, strlen(s->dir) + 1);
		h = fnv_add(h, s->name, strlen(s->name) + 1);
		struct bfile_iter it; /* one file at a time, from the run's list store */
		bfile_iter_init(&it, s);
		for (const struct bfile *f; (f = bfile_iter_next(&it)) != NULL;) {
			unsigned char role = (unsigned char)(f->role * 4 + f->side);
			h = fnv_add(h, f->path, strlen(f->path) + 1);
			h = fnv_add(h, &role, 1);
		}
		bfile_iter_free(&it);
		h = fnv_add(h, "\n", 1);
	}
	return h;
}

uint64_t batch_set_digest(const struct bset *s)
{
	uint64_t h = fnv_add(FNV_OFFSET, "set 1\n", 6);
	h = fnv_add(h, s->dir, strlen(s->dir) + 1);
	h = fnv_add(h, s->name, strlen(s->name) + 1);
	struct bfile_iter it;
	bfile_iter_init(&it, s);
	for (const struct bfile *f; (f = bfile_iter_next(&it)) != NULL;) {
		unsigned char role = (unsigned char)(f->role * 4 + f->side);
		h = fnv_add(h, f->path, strlen(f->path) + 1);
		h = fnv_add(h, &role, 1);
		struct stat st;
		int64_t v[3] = {-1, -1, -1};
		if (stat(f->path, &st) == 0) {
			v[0] = (int64_t)st.st_size;
			v[1] = (int64_t)st.st_mtim.tv_sec;
			v[2] = (int64_t)st.st_mtim.tv_nsec;
		}
		for (int i = 0; i < 3; i++) {
			unsigned char b[8];
			for (int j = 0; j < 8; j++)
				b[j] = (unsigned char)((uint64_t)v[i] >> (8 * j));
			h = fnv_add(h, b, sizeof b);
		}
	}
	bfile_iter_free(&it);
	return h ? h : 1;
}

/* ---- marker files ---- */

static char *path_in(const char *out, const char *name)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", out, name);
	return p.data;
}

/* The marker's text in a temporary file next to it; its path (caller frees and unlinks), or
 * NULL (errno). */
static char *write_temp(const char *out, const char *text)
{
	struct buf t;
	buf_init(&t);
	buf_printf(&t, "%s/.marker.tmp.XXXXXX", out);
	int fd = mkstemp(t.data);
	if (fd < 0) {
		buf_free(&t);
		return NULL;
	}
	(void)fchmod(fd, 0644); /* readable like every output (mkstemp makes 0600) */
	size_t n = strlen(text), off = 0;
	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	int e = errno;
	if (close(fd) != 0 || off != n) {
		unlink(t.data);
		buf_free(&t);
		errno = e ? e : EIO;
		return NULL;
	}
	return t.data;
}

/* A marker's value of key (caller frees), NULL when absent. */
static char *marker_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) == 0 && l[kl] == ' ') {
			const char *v = l + kl + 1;
			return xstrndup(v, strcspn(v, "\n"));
		}
	}
	return NULL;
}

static char *read_small(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return xstrdup(buf);
}

/* DIR/.run's fields when it is a run marker: 0, else ERR_FORMAT (ERR_IO: none). */
static int parse_run(const char *out, char **id, unsigned *n, char **started)
{
	char *p = path_in(out, RUN_MARKER);
	char *text = read_small(p);
	free(p);
	if (!text)
		return ERR_IO;
	int rc = ERR_FORMAT;
	char *sh = NULL;
	*id = *started = NULL;
	if (strncmp(text, "iopsy run 1\n", 12) == 0) {
		*id = marker_value(text, "run-id");
		sh = marker_value(text, "shards");
		*started = marker_value(text, "started");
		unsigned k, m;
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "0/%s", sh ? sh : "");
		if (*id && *started && sh && shard_parse(b.data, &k, &m) == 0) {
			*n = m;
			rc = 0;
		}
		buf_free(&b);
	}
	free(sh);
	free(text);
	if (rc < 0) {
		free(*id);
		free(*started);
		*id = *started = NULL;
	}
	return rc;
}

/* Whether DIR/.run says its run's finish step has run. */
static bool run_finished(const char *out)
{
	char *p = path_in(out, RUN_MARKER);
	char *text = read_small(p);
	free(p);
	char *f = text ? marker_value(text, "finished") : NULL;
	bool done = f != NULL;
	free(f);
	free(text);
	return done;
}

int run_marker_finish(const char *out, const char *id, const char *now)
{
	char *p = path_in(out, RUN_MARKER);
	char *text = read_small(p);
	free(p);
	char *oid = text ? marker_value(text, "run-id") : NULL;
	int rc = 0;
	if (!text || !oid || strcmp(oid, id) != 0 || strncmp(text, "iopsy run 1\n", 12) != 0) {
		rc = ERR_IO; /* not this run's marker: nothing to mark */
		errno = ENOENT;
	} else {
		struct buf t;
		buf_init(&t);
		for (const char *l = text; *l;) { /* every line but an earlier "finished" */
			size_t n = strcspn(l, "\n");
			if (strncmp(l, "finished ", 9) != 0)
				buf_printf(&t, "%.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
		buf_printf(&t, "finished %s\n", now);
		char *tmp = write_temp(out, t.data);
		buf_free(&t);
		char *final = path_in(out, RUN_MARKER);
		rc = tmp && rename(tmp, final) == 0 ? 0 : ERR_IO;
		if (tmp && rc < 0)
			unlink(tmp);
		free(tmp);
		free(final);
	}
	free(oid);
	free(text);
	return rc;
}

int run_marker_join(const char *out, const char *id, unsigned n, const char *now, char **started, struct buf *why)
{
	*started = NULL;
	struct buf text;
	buf_init(&text);
	buf_printf(&text, "iopsy run 1\nrun-id %s\nshards %u\nstarted %s\n", id, n, now);
	char *final = path_in(out, RUN_MARKER);
	int rc = 0;
	for (int attempt = 0; attempt < 3; attempt++) {
		char *tmp = write_temp(out, text.data);
		if (!tmp) {
			rc = ERR_IO;
			break;
		}
		int l = link(tmp, final);
		int e = errno;
		if (l == 0) {
			unlink(tmp);
			free(tmp);
			*started = xstrdup(now);
			rc = 0;
			break;
		}
		if (e != EEXIST) {
			/* a file system without hard links: the last shard to start names the start */
			rc = rename(tmp, final) == 0 ? 0 : ERR_IO;
			if (rc < 0)
				unlink(tmp);
			free(tmp);
			if (rc == 0)
				*started = xstrdup(now);
			break;
		}
		char *oid = NULL, *ostarted = NULL;
		unsigned on = 0;
		int pr = parse_run(out, &oid, &on, &ostarted);
		if (pr == 0 && strcmp(oid, id) == 0) {
			unlink(tmp);
			free(tmp);
			free(oid);
			if (on != n) {
				buf_printf(why, "run %s was started with %u shards, not %u: every shard and the finish step of a run "
						"take the same N (or give this run another --run-id)", id, on, n);
				free(ostarted);
				rc = ERR_USAGE;
			} else {
				*started = ostarted;
				rc = 0;
			}
			break;
		}
		if (pr == 0 && !run_finished(out)) {
			/* another run's shards work here, or its finish step has not run: taking the folder
			 * over would make that run's finish step refuse or remove this run's reports */
			buf_printf(why, "%s belongs to run %s (started %s with %u shard%s), which has not finished: a shard never "
					"takes over another run's folder; give the run id its shards were started with, or another "
					"--out, or finish that run (--finish --run-id %s) first; to abandon it, remove %s/%s",
				   out, oid, ostarted, on, on == 1 ? "" : "s", oid, out, RUN_MARKER);
			unlink(tmp);
			free(tmp);
			free(oid);
			free(ostarted);
			rc = ERR_USAGE;
			break;
		}
		free(oid);
		free(ostarted);
		if (pr == ERR_IO) { /* removed meanwhile: try the link again */
			unlink(tmp);
			free(tmp);
			continue;
		}
		/* a finished run's marker (or not a marker): this run replaces it */
		rc = rename(tmp, final) == 0 ? 0 : ERR_IO;
		if (rc < 0)
			unlink(tmp);
		free(tmp);
		if (rc == 0)
			*started = xstrdup(now);
		break;
	}
	if (rc == 0 && !*started)
		*started = xstrdup(now);
	free(final);
	buf_free(&text);
	return rc;
}

char *run_marker_id(const char *out)
{
	char *id = NULL, *started = NULL;
	unsigned n;
	if (parse_run(out, &id, &n, &started) < 0)
		return NULL;
	free(started);
	return id;
}

int run_marker_read(const char *out, const char *id, unsigned *n, char **started)
{
	char *oid = NULL;
	*started = NULL;
	if (parse_run(out, &oid, n, started) < 0)
		return ERR_IO;
	if (strcmp(oid, id) != 0) {
		free(oid);
		free(*started);
		*started = NULL;
		return ERR_IO;
	}
	free(oid);
	return 0;
}

static char *shard_path(const char *out, unsigned k, unsigned n)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/.shard-%u-of-%u", out, k, n);
	return p.data;
}

int shard_marker_write(const char *out, const char *id, unsigned k, unsigned n, uint64_t fingerprint, size_t nsets)
{
	struct buf text;
	buf_init(&text);
	buf_printf(&text, "iopsy shard 1\nrun-id %s\nshard %u/%u\ninput %016llx\nsets %zu\n", id, k, n,
		   (unsigned long long)fingerprint, nsets);
	char *tmp = write_temp(out, text.data);
	buf_free(&text);
	if (!tmp)
		return ERR_IO;
	char *final = shard_path(out, k, n);
	int rc = rename(tmp, final) == 0 ? 0 : ERR_IO;
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	free(final);
	return rc;
}

int shard_marker_read(const char *out, const char *id, unsigned k, unsigned n, uint64_t *fingerprint)
{
	char *p = shard_path(out, k, n);
	char *text = read_small(p);
	free(p);
	if (!text)
		return ERR_IO;
	int rc = ERR_IO;
	char *oid = marker_value(text, "run-id"), *fp = marker_value(text, "input");
	if (strncmp(text, "iopsy shard 1\n", 14) == 0 && oid && fp && strcmp(oid, id) == 0) {
		*fingerprint = strtoull(fp, NULL, 16);
		rc = 0;
	}
	free(oid);
	free(fp);
	free(text);
	return rc;
}

int run_lock(const char *out, bool exclusive, const char *id, const char *now, int *fd, struct buf *why)
{
	*fd = -1;
	char *p = path_in(out, RUN_LOCK);
	int f = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (f < 0) {
		free(p);
		return ERR_IO;
	}
	if (flock(f, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
		if (exclusive) {
			char host[256] = "";
			gethostname(host, sizeof host - 1);
			struct buf t;
			buf_init(&t);
			buf_printf(&t, "iopsy lock 1\npid %ld\nhost %s\nstarted %s\nrun-id %s\n", (long)getpid(), host, now,
				   id ? id : "-");
			/* best effort: who holds it is only quoted in a refusal */
			if (ftruncate(f, 0) != 0 || pwrite(f, t.data, t.len, 0) != (ssize_t)t.len)
				errno = 0;
			buf_free(&t);
		}
		free(p);
		*fd = f;
		return 0;
	}
	int e = errno;
	if (e == ENOLCK || e == EOPNOTSUPP || e == ENOTSUP || e == EINVAL) {
		/* a file system without locks (NFS mounted nolock): the run goes on unguarded */
		close(f);
		free(p);
		errno = e;
		return 1;
	}
	if (e != EWOULDBLOCK) {
		close(f);
		free(p);
		errno = e;
		return ERR_IO;
	}
	/* who holds it: a shared lock that can be had means shards are at work; else the
	 * exclusive holder said who it is */
	bool shards = exclusive && flock(f, LOCK_SH | LOCK_NB) == 0;
	buf_printf(why, "%s is in use by another iopsy batch run", out);
	if (shards) {
		flock(f, LOCK_UN);
		char *rid = run_marker_id(out);
		buf_printf(why, " (shards of run %s are working in it)", rid ? rid : "?");
		free(rid);
	} else {
		char *text = read_small(p);
		char *pid = text ? marker_value(text, "pid") : NULL, *host = text ? marker_value(text, "host") : NULL;
		char *since = text ? marker_value(text, "started") : NULL, *rid = text ? marker_value(text, "run-id") : NULL;
		if (pid)
			buf_printf(why, " (pid %s on %s since %s, run id %s)", pid, host ? host : "?", since ? since : "?",
				   rid ? rid : "-");
		free(pid);
		free(host);
		free(since);
		free(rid);
		free(text);
	}
	buf_printf(why, ": two runs never share an output folder (%s/%s is held while a run, a shard or a finish step "
			"works in it); wait for that run to end, or give another --out", out, RUN_LOCK);
	close(f);
	free(p);
	return ERR_LIMIT;
}

void run_markers_remove(const char *out)
{
	char *p = path_in(out, RUN_MARKER);
	unlink(p);
	free(p);
	DIR *dh = opendir(out);
	if (!dh)
		return;
	struct dirent *e;
	while ((e = readdir(dh)) != NULL) {
		if (strncmp(e->d_name, ".shard-", 7) != 0)
			continue;
		p = path_in(out, e->d_name);
		unlink(p);
		free(p);
	}
	closedir(dh);
}
