/* pdf.c — PDF by headless Chromium's print-to-PDF (see pdf.h). */
#include "pdf.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool is_exec(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Chromium's argument vector into argv (32 slots, NULL-ended): our own paths only; no network
 * (names resolve to nothing, no proxy lookups, no background services), no first-run, no
 * extensions. */
static void chromium_argv(const char **argv, const char *a_prof, const char *a_pdf, const char *url)
{
	int k = 0;
	argv[k++] = "chromium";
	argv[k++] = "--headless";
	if (geteuid() == 0)
		argv[k++] = "--no-sandbox"; /* Chromium refuses to run as root with its sandbox */
	argv[k++] = "--disable-gpu";
	argv[k++] = "--no-first-run";
	argv[k++] = "--no-default-browser-check";
	argv[k++] = "--disable-background-networking";
	argv[k++] = "--disable-component-update";
	argv[k++] = "--disable-sync";
	argv[k++] = "--disable-extensions";
	argv[k++] = "--disable-default-apps";
	argv[k++] = "--disable-quic";
	argv[k++] = "--no-proxy-server";
	argv[k++] = "--host-resolver-rules=MAP * ~NOTFOUND";
	argv[k++] = "--mute-audio";
	argv[k++] = "--hide-scrollbars";
	argv[k++] = "--no-pdf-header-footer";
	argv[k++] = "--generate-pdf-document-outline"; /* the headings as PDF bookmarks */
	argv[k++] = "--run-all-compositor-stages-before-draw";
	argv[k++] = a_prof;
	argv[k++] = a_pdf;
	argv[k++] = url;
	argv[k] = NULL;
}

/* Resolves name like execvp would (PATH), never through a shell. */
static char *find_in_path(const char *name)
{
	if (strchr(name, '/'))
		return is_exec(name) ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		if (len) {
			struct buf f;
			buf_init(&f);
			buf_add(&f, path, len);
			buf_addc(&f, '/');
			buf_adds(&f, name);
			if (is_exec(f.data))
				return f.data;
			buf_free(&f);
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

char *pdf_find_chromium(const char *given)
{
	if (given && *given)
		return find_in_path(given);
	const char *env = getenv("IOPSY_CHROMIUM");
	if (env && *env)
		return find_in_path(env);
	static const char *const names[] = {"chromium", "chromium-browser", "google-chrome", NULL};
	for (int i = 0; names[i]; i++) {
		char *p = find_in_path(names[i]);
		if (p)
			return p;
	}
	return NULL;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return ERR_IO;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, data + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return ERR_IO;
		}
		done += (size_t)w;
	}
	return close(fd) == 0 ? 0 : ERR_IO;
}

static int read_file(const char *path, struct buf *out, size_t limit)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return ERR_IO;
	char chunk[65536];
	size_t n, start = out->len;
	bool over = false;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (out->len - start + n > limit) { /* never a cut PDF (or log) passed for a whole one */
			over = true;
			break;
		}
		buf_add(out, chunk, n);
	}
	bool err = ferror(f);
	fclose(f);
	return err ? ERR_IO : over ? ERR_LIMIT : 0;
}

extern char **environ;

int pdf_render(const char *html, size_t n, const struct pdf_opts *o, struct buf *pdf, struct buf *why)
{
	char *prog = pdf_find_chromium(o->chromium);
	if (!prog) {
		buf_adds(why, "Chromium was not found (Debian: apt-get install chromium; or set IOPSY_CHROMIUM)");
		return PDF_NO_CHROMIUM;
	}
	const char *tmp = getenv("TMPDIR");
	struct buf dir;
	buf_init(&dir);
	buf_printf(&dir, "%s/iopsy-pdf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir.data)) {
		buf_printf(why, "cannot create a temporary folder: %s", strerror(errno));
		buf_free(&dir);
		free(prog);
		return ERR_IO;
	}
	scratch_register(-1, dir.data); /* a signal removes it (and kills Chromium's group, below) */
	struct buf in, out, log, prof, url, a_prof, a_pdf;
	buf_init(&in);
	buf_init(&out);
	buf_init(&log);
	buf_init(&prof);
	buf_init(&url);
	buf_init(&a_prof);
	buf_init(&a_pdf);
	buf_printf(&in, "%s/report.html", dir.data);
	buf_printf(&out, "%s/report.pdf", dir.data);
	buf_printf(&log, "%s/chromium.log", dir.data);
	buf_printf(&prof, "%s/profile", dir.data);
	buf_printf(&url, "file://%s", in.data);
	buf_printf(&a_prof, "--user-data-dir=%s", prof.data);
	buf_printf(&a_pdf, "--print-to-pdf=%s", out.data);
	int rc = 0;
	if (mkdir(prof.data, 0700) != 0 || write_file(in.data, html, n) < 0) {
		buf_printf(why, "cannot write the temporary HTML: %s", strerror(errno));
		rc = ERR_IO;
		goto done;
	}
	{
		const char *argv[32];
		chromium_argv(argv, a_prof.data, a_pdf.data, url.data);
		/* the environment: HOME and caches in the private folder */
		size_t ne = 0;
		while (environ && environ[ne])
			ne++;
		char **env = xcalloc(ne + 5, sizeof *env);
		size_t eo = 0;
		for (size_t i = 0; i < ne; i++)
			if (strncmp(environ[i], "HOME=", 5) && strncmp(environ[i], "XDG_CONFIG_HOME=", 16) &&
			    strncmp(environ[i], "XDG_CACHE_HOME=", 15) && strncmp(environ[i], "TMPDIR=", 7))
				env[eo++] = environ[i];
		struct buf eh, ec, ek, et;
		buf_init(&eh);
		buf_init(&ec);
		buf_init(&ek);
		buf_init(&et);
		buf_printf(&eh, "HOME=%s", dir.data);
		buf_printf(&ec, "XDG_CONFIG_HOME=%s", dir.data);
		buf_printf(&ek, "XDG_CACHE_HOME=%s", dir.data);
		buf_printf(&et, "TMPDIR=%s", dir.data);
		env[eo++] = eh.data;
		env[eo++] = ec.data;
		env[eo++] = ek.data;
		env[eo++] = et.data;
		env[eo] = NULL;
		pid_t pid = fork();
		if (pid < 0) {
			buf_printf(why, "cannot start Chromium: %s", strerror(errno));
			rc = ERR_IO;
		} else if (pid == 0) {
			if (!o->caller_group)
				setpgid(0, 0); /* its helpers in one group, killed together on a timeout */
			int dn = open("/dev/null", O_RDONLY);
			int lg = open(log.data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (chdir(dir.data) == 0 && dn >= 0 && lg >= 0 && dup2(dn, 0) >= 0 && dup2(lg, 1) >= 0 && dup2(lg, 2) >= 0)
				execve(prog, (char *const *)(uintptr_t)argv, env);
			_exit(127);
		} else {
			if (!o->caller_group) {
				setpgid(pid, pid);
				scratch_register(pid, NULL);
			}
			double deadline = mono() + (o->timeout_s > 0 ? o->timeout_s : 120);
			int status = 0;
			long nap = 2000;
			for (;;) {
				pid_t w = waitpid(pid, &status, WNOHANG);
				if (w == pid)
					break;
				if (w < 0 && errno != EINTR) {
					buf_printf(why, "waitpid: %s", strerror(errno));
					rc = ERR_IO;
					break;
				}
				if (mono() >= deadline) {
					if (!o->caller_group)
						kill(-pid, SIGKILL);
					kill(pid, SIGKILL);
					while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
						;
					buf_printf(why, "Chromium did not finish within %d s", o->timeout_s > 0 ? o->timeout_s : 120);
					rc = PDF_FAILED;
					break;
				}
				struct timespec ts = {0, nap * 1000};
				nanosleep(&ts, NULL);
				if (nap < 50000)
					nap *= 2;
			}
			if (!o->caller_group)
				kill(-pid, SIGKILL); /* helpers left behind (in the caller's group: killed with it) */
			if (rc == 0) {
				size_t before = pdf->len;
				int rr = read_file(out.data, pdf, (size_t)1 << 30);
				if (rr == ERR_LIMIT) {
					pdf->len = before;
					buf_adds(why, "Chromium wrote a PDF larger than 1 GiB: not kept (a cut PDF would pass for the report)");
					rc = PDF_FAILED;
				} else if (rr < 0 || pdf->len - before < 5 || memcmp(pdf->data + before, "%PDF-", 5) != 0) {
					pdf->len = before;
					struct buf lg;
					buf_init(&lg);
					read_file(log.data, &lg, (size_t)1 << 20); /* past 1 MiB: what was read */
					/* the last line of Chromium's log says why */
					const char *last = "";
					if (lg.data) {
						while (lg.len && (lg.data[lg.len - 1] == '\n' || lg.data[lg.len - 1] == '\r'))
							lg.data[--lg.len] = '\0';
						const char *nl = strrchr(lg.data, '\n');
						last = nl ? nl + 1 : lg.data;
					}
					if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !*last)
						buf_printf(why, "cannot run %s", prog);
					else
						buf_printf(why, "Chromium wrote no PDF (%s %d)%s%.200s",
							   WIFSIGNALED(status) ? "signal" : "exit status",
							   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), *last ? ": " : "", last);
					buf_free(&lg);
					rc = PDF_FAILED;
				}
			}
		}
		free(env);
		buf_free(&eh);
		buf_free(&ec);
		buf_free(&ek);
		buf_free(&et);
	}
done:
	nftw(dir.data, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	scratch_unregister();
	buf_free(&in);
	buf_free(&out);
	buf_free(&log);
	buf_free(&prof);
	buf_free(&url);
	buf_free(&a_prof);
	buf_free(&a_pdf);
	buf_free(&dir);
	free(prog);
	return rc;
}

/* ---- the JSON attached to the PDF: an incremental update (ISO 32000-1 §7.5.6) with an embedded
 * file stream (§7.11.4), its file specification and a new catalog that names it in
 * /Names /EmbeddedFiles (§7.7.4), a cross-reference section for those objects and a trailer with
 * /Prev: the bytes Chromium wrote stay as they are. ---- */

/* The number after key in the dictionary text d[0..n) (or -1), its generation in *gen when not NULL. */
static long dict_num(const char *d, size_t n, const char *key, long *gen)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl < n; i++) {
		if (memcmp(d + i, key, kl) != 0 || (d[i + kl] != ' ' && d[i + kl] != '\n' && d[i + kl] != '\r'))
			continue;
		char *end;
		long v = strtol(d + i + kl, &end, 10);
		if (end == d + i + kl || v < 0)
			return -1;
		if (gen)
			*gen = strtol(end, NULL, 10);
		return v;
	}
	return -1;
}

/* The end of the dictionary that starts at p ("<<"), past its ">>", skipping strings; NULL when it
 * does not end before e. */
static const char *dict_end(const char *p, const char *e)
{
	int depth = 0;
	while (p < e) {
		if (p + 1 < e && p[0] == '<' && p[1] == '<') {
			depth++;
			p += 2;
		} else if (p + 1 < e && p[0] == '>' && p[1] == '>') {
			p += 2;
			if (--depth == 0)
				return p;
		} else if (*p == '(') { /* a literal string: balanced parentheses, backslash escapes */
			int par = 0;
			for (; p < e; p++) {
				if (*p == '\\') {
					p++;
					continue;
				}
				par += *p == '(' ? 1 : *p == ')' ? -1 : 0;
				if (!par)
					break;
			}
			p++;
		} else if (*p == '<') { /* a hex string */
			while (p < e && *p != '>')
				p++;
			p++;
		} else {
			p++;
		}
	}
	return NULL;
}

/* s as a PDF literal string's content: ( ) \ escaped. */
static void pdf_str(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '(' || *s == ')' || *s == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *s);
	}
}

int pdf_attach(struct buf *pdf, size_t at, const char *name, const char *data, size_t n, const char *desc,
	       struct buf *why)
{
	const char *p0 = pdf->data + at, *e = pdf->data + pdf->len;
	size_t len = pdf->len - at;
	/* startxref, from the end */
	const char *sx = NULL;
	for (const char *q = e - 9; q >= p0 && q >= e - 1024; q--)
		if (memcmp(q, "startxref", 9) == 0) {
			sx = q;
			break;
		}
	long xref = sx ? strtol(sx + 9, NULL, 10) : -1;
	const char *tr = NULL; /* the last trailer before it */
	for (const char *q = sx ? sx - 7 : NULL; q && q >= p0 && q >= sx - 4096; q--)
		if (memcmp(q, "trailer", 7) == 0) {
			tr = q;
			break;
		}
	if (!sx || !tr || xref <= 0 || (size_t)xref + 4 > len || memcmp(p0 + xref, "xref", 4) != 0) {
		buf_adds(why, "the PDF has no cross-reference table the JSON could be added to");
		return PDF_FAILED;
	}
	size_t tn = (size_t)(sx - tr);
	long rgen = 0, igen = 0;
	long size = dict_num(tr, tn, "/Size", NULL), root = dict_num(tr, tn, "/Root", &rgen),
	     info = dict_num(tr, tn, "/Info", &igen);
	if (size <= 0 || root <= 0 || root >= size || dict_num(tr, tn, "/Prev", NULL) >= 0 ||
	    memmem(tr, tn, "/Encrypt", 8) || memmem(tr, tn, "/ID", 3)) {
		buf_adds(why, "the PDF's trailer is not one the JSON could be added to");
		return PDF_FAILED;
	}
	/* the catalog's offset: its entry in the table's subsections */
	const char *q = p0 + xref + 4;
	long cat = -1;
	while (q < tr && cat < 0) {
		char *end;
		long first = strtol(q, &end, 10), count = end > q ? strtol(end, &end, 10) : -1;
		if (end == q || count < 0)
			break;
		while (end < tr && (*end == '\r' || *end == '\n' || *end == ' '))
			end++;
		if (root >= first && root < first + count && end + (root - first + 1) * 20 <= tr)
			cat = strtol(end + (root - first) * 20, NULL, 10);
		q = end + count * 20;
	}
	const char *cd = cat > 0 && (size_t)cat < len ? memmem(p0 + cat, len - (size_t)cat, "<<", 2) : NULL;
	const char *ce = cd && cd - (p0 + cat) < 64 ? dict_end(cd, e) : NULL;
	if (!ce || memmem(cd, (size_t)(ce - cd), "/Names", 6) || memmem(cd, (size_t)(ce - cd), "/AF", 3)) {
		buf_adds(why, "the PDF's catalog is not one the JSON could be added to");
		return PDF_FAILED;
	}
	struct buf up;
	buf_init(&up);
	buf_add(&up, cd + 2, (size_t)(ce - 2 - (cd + 2))); /* the catalog's entries */
	char *entries = up.data ? xstrdup(up.data) : xstrdup("");
	buf_reset(&up);
	if (pdf->data[pdf->len - 1] != '\n')
		buf_addc(pdf, '\n');
	long ef = size, fs = size + 1;
	size_t off_ef = pdf->len - at;
	buf_printf(pdf,
		   "%ld 0 obj\n<</Type /EmbeddedFile\n/Subtype /application#2Fjson\n/Params <</Size %zu>>\n"
		   "/Length %zu>> stream\n",
		   ef, n, n);
	buf_add(pdf, data, n);
	buf_adds(pdf, "\nendstream\nendobj\n");
	size_t off_fs = pdf->len - at;
	buf_printf(pdf, "%ld 0 obj\n<</Type /Filespec\n/F (", fs);
	pdf_str(pdf, name);
	buf_adds(pdf, ")\n/UF (");
	pdf_str(pdf, name);
	buf_adds(pdf, ")\n/Desc (");
	pdf_str(pdf, desc);
	buf_printf(pdf, ")\n/EF <</F %ld 0 R\n/UF %ld 0 R>>>>\nendobj\n", ef, ef);
	size_t off_cat = pdf->len - at;
	buf_printf(pdf, "%ld %ld obj\n<<%s\n/Names <</EmbeddedFiles <</Names [(", root, rgen, entries);
	pdf_str(pdf, name);
	buf_printf(pdf, ") %ld 0 R]>>>>>>\nendobj\n", fs);
	free(entries);
	size_t off_x = pdf->len - at;
	buf_printf(pdf, "xref\n%ld 1\n%010zu %05ld n \n%ld 2\n%010zu 00000 n \n%010zu 00000 n \n", root, off_cat, rgen,
		   ef, off_ef, off_fs);
	buf_printf(pdf, "trailer\n<</Size %ld\n/Root %ld %ld R\n", fs + 1, root, rgen);
	if (info > 0)
		buf_printf(pdf, "/Info %ld %ld R\n", info, igen);
	buf_printf(pdf, "/Prev %ld>>\nstartxref\n%zu\n%%%%EOF\n", xref, off_x);
	buf_free(&up);
	return 0;
}
