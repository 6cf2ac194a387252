/* deliver.c — the messages of a batch run and their delivery (see deliver.h). */
#include "deliver.h"

#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_out.h"
#include "mail.h"
#include "proc.h"

/* ---- transports ---- */

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
	return fread(ptr, 1, size * nmemb, ud);
}

struct smtp_job {
	const char *url;
	bool starttls;
	const struct mail_msg *m;
	const char *path;         /* the message, as the .eml file */
	double deadline;          /* now_seconds() */
	CURL *c;
	struct curl_slist *rcpt;
	bool ok;
};

/* In the delivery child: one SMTP transaction through libcurl, every wait inside the deadline
 * (libcurl's own timeout is total for the transfer, but its server response timeout is per
 * reply and the QUIT of a failed session waits again: the parent's deadline is what counts). */
static int smtp_fn(void *ctx, struct buf *why)
{
	struct smtp_job *j = ctx;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	j->c = curl_easy_init();
	if (!j->c) {
		buf_adds(why, "cannot start libcurl");
		return ERR_IO;
	}
	CURL *c = j->c;
	struct buf a;
	buf_init(&a);
	for (size_t i = 0; i < j->m->nto; i++) {
		buf_reset(&a);
		buf_printf(&a, "<%s>", j->m->to[i]);
		j->rcpt = curl_slist_append(j->rcpt, a.data);
	}
	buf_reset(&a);
	buf_printf(&a, "<%s>", j->m->from);
	FILE *fp = fopen(j->path, "rb");
	if (!fp) {
		buf_printf(why, "cannot read %s: %s", j->path, strerror(errno));
		buf_free(&a);
		return ERR_IO;
	}
	char ebuf[CURL_ERROR_SIZE] = "";
	long left_ms = (long)((j->deadline - now_seconds()) * 1000);
	if (left_ms < 1)
		left_ms = 1;
	curl_easy_setopt(c, CURLOPT_URL, j->url);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, a.data);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, j->rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, fp);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, left_ms < 20000 ? left_ms : 20000L);
	curl_easy_setopt(c, CURLOPT_SERVER_RESPONSE_TIMEOUT, left_ms / 1000 > 0 ? left_ms / 1000 : 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	if (j->starttls)
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	const char *user = getenv("IOPSY_SMTP_USER"), *pass = getenv("IOPSY_SMTP_PASSWORD");
	if (user && *user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, pass ? pass : "");
	}
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		buf_printf(why, "SMTP delivery to %s failed: %s", j->url, ebuf[0] ? ebuf : curl_easy_strerror(rc));
	buf_free(&a);
	j->ok = rc == CURLE_OK;
	return j->ok ? 0 : ERR_IO;
}

/* After the answer: a delivered message says goodbye (QUIT); a failed session is just dropped,
 * since waiting for a silent server's QUIT reply is what made a failure take twice the timeout. */
static void smtp_tidy(void *ctx)
{
	struct smtp_job *j = ctx;
	if (j->ok && j->c)
		curl_easy_cleanup(j->c);
}

static int send_smtp(const char *url, bool starttls, const struct mail_msg *m, const char *path, double deadline,
		     struct buf *why)
{
	struct smtp_job j = {.url = url, .starttls = starttls, .m = m, .path = path, .deadline = deadline};
	int rc = proc_call(smtp_fn, smtp_tidy, &j, deadline, why);
	if (rc < 0 && strncmp(why->data ? why->data : "", "SMTP", 4) != 0) {
		/* the child gave no answer: say what was being done */
		struct buf t;
		buf_init(&t);
		buf_printf(&t, "SMTP delivery to %s %s", url, why->data ? why->data : "failed");
		buf_reset(why);
		buf_adds(why, t.data);
		buf_free(&t);
	}
	return rc;
}

/* Runs cmd (split on blanks, no shell) with "--" and the recipients appended, the message on its
 * standard input, within the deadline. 0 or ERR_IO/ERR_USAGE with the reason in why. */
static int send_program(const char *cmd, const struct mail_msg *m, const char *path, double deadline, struct buf *why)
{
	char *copy = xstrdup(cmd);
	char **argv = NULL;
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		argv = xrealloc(argv, (n + 2) * sizeof *argv);
		argv[n++] = t;
	}
	if (!n) {
		free(copy);
		free(argv);
		buf_adds(why, "--sendmail: empty command");
		return ERR_USAGE;
	}
	/* recipients are never options, whatever they look like */
	argv = xrealloc(argv, (n + m->nto + 2) * sizeof *argv);
	argv[n++] = "--";
	for (size_t i = 0; i < m->nto; i++)
		argv[n++] = m->to[i];
	argv[n] = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;
	if (fd < 0) {
		buf_printf(why, "cannot read %s: %s", path, strerror(errno));
		rc = ERR_IO;
	} else {
		rc = proc_run_fd(argv, fd, deadline, why);
		close(fd);
	}
	free(copy);
	free(argv);
	return rc;
}

/* ---- one message ---- */

/* The size of a regular file, -1 when there is none. */
static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
}

/* What a part of n bytes takes in the message, its headers included. */
static size_t part_size(size_t n)
{
	return mail_encoded_size(n) + 400;
}

/* Writes message m as path, atomically. 0 or ERR_IO (message through d). */
static int write_eml(const char *path, const struct mail_msg *m, struct diag *d)
{
	struct afile af;
	if (afile_open(&af, path) < 0) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	if (mail_write(m, af.fp) < 0) {
		int e = errno;
		afile_abort(&af);
		diag_emit(d, DIAG_PLAIN, 0, 0, "write error on %s: %s", path, strerror(e ? e : EIO));
		return ERR_IO;
	}
	if (afile_commit(&af) < 0) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "cannot write %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	return 0;
}

struct mail_run {
	const struct batch *b;
	const struct run_info *ri;
	const struct batch_opts *o;
	size_t limit;
	int timeout_s;
	double deadline;          /* of the whole mail step */
	struct diag *d;
};

/* Chooses what of each set goes into the message, worst first, within the size budget: its chart
 * inline, its report attached; what does not fit is linked (--report-url) or named by path. */
static void fill_parts(const struct mail_run *mr, const size_t *sets, size_t nsets, size_t used,
		       struct mail_part *parts, char **where, struct mail_msg *m, unsigned long long seed)
{
	const struct batch_opts *o = mr->o;
	for (size_t i = 0; i < nsets; i++) {
		const struct bset *s = &mr->b->sets[sets[i]];
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s/chart.png", o->out, s->dir);
		long long sz = file_size(p.data);
		if (sz > 8 && used + part_size((size_t)sz) <= mr->limit) {
			m->img = xrealloc(m->img, (m->nimg + 1) * sizeof *m->img);
			struct buf cid;
			buf_init(&cid);
			buf_printf(&cid, "chart-%zu.%016llx@iopsy", i + 1, seed);
			m->img[m->nimg] = (struct mail_image){.cid = cid.data, .path = xstrdup(p.data)};
			parts[i].cid = cid.data;
			m->nimg++;
			used += part_size((size_t)sz);
		} else if (sz > 8) {
			parts[i].chart_left_out = true;
		}
		/* the PDF when the set has one (what a customer opens), else the HTML */
		buf_reset(&p);
		buf_printf(&p, "%s/%s/report.pdf", o->out, s->dir);
		bool pdf = file_size(p.data) > 0;
		if (!pdf) {
			buf_reset(&p);
			buf_printf(&p, "%s/%s/report.html", o->out, s->dir);
		}
		sz = file_size(p.data);
		if (sz >= 0 && used + part_size((size_t)sz) <= mr->limit) {
			m->att = xrealloc(m->att, (m->natt + 1) * sizeof *m->att);
			struct buf fn;
			buf_init(&fn);
			buf_printf(&fn, "%s-report.%s", s->dir, pdf ? "pdf" : "html");
			m->att[m->natt] = (struct mail_attachment){.filename = fn.data,
								   .content_type = pdf ? "application/pdf" : "text/html; charset=utf-8",
								   .path = xstrdup(p.data)};
			m->natt++;
			used += part_size((size_t)sz);
		} else if (sz >= 0) {
			struct buf w;
			buf_init(&w);
			if (o->report_url) {
				parts[i].report = MR_LINKED;
				size_t k = strlen(o->report_url);
				buf_printf(&w, "%s%s%s/report.%s", o->report_url, k && o->report_url[k - 1] == '/' ? "" : "/",
					   s->dir, pdf ? "pdf" : "html");
			} else {
				parts[i].report = MR_LEFT_OUT;
				buf_adds(&w, p.data);
			}
			where[i] = w.data;
			parts[i].where = w.data;
		}
		buf_free(&p);
	}
}

/* One message: the sets it covers (in this order), its recipients. A delivery failure, or a mail
 * deadline already passed, leaves the .eml in DIR/mail/ (or --eml DIR). */
static int deliver(const struct mail_run *mr, const size_t *sets, size_t nsets, char **to, size_t nto,
		   const char *subject, unsigned long long seed, const char *emlname)
{
	const struct batch_opts *o = mr->o;
	struct diag *d = mr->d;
	struct mail_msg m;
	memset(&m, 0, sizeof m);
	m.from = o->mail_from;
	m.to = to;
	m.nto = nto;
	m.subject = subject;
	m.seed = seed;
	struct mail_part *parts = xcalloc(nsets ? nsets : 1, sizeof *parts);
	char **where = xcalloc(nsets ? nsets : 1, sizeof *where);
	/* the bodies come first in the budget: measured as if every report were attached, with room
	 * for the lines that say where the others are */
	struct buf html, text, why;
	buf_init(&html);
	buf_init(&text);
	buf_init(&why);
	batch_mail_html(mr->b, mr->ri, sets, nsets, NULL, mr->limit, &html);
	batch_mail_text(mr->b, mr->ri, sets, nsets, NULL, mr->limit, &text);
	size_t bodies = part_size(html.len + 300 * nsets) + part_size(text.len + 200 * nsets) + 4096;
	fill_parts(mr, sets, nsets, bodies, parts, where, &m, seed);
	buf_reset(&html);
	buf_reset(&text);
	batch_mail_html(mr->b, mr->ri, sets, nsets, parts, mr->limit, &html);
	batch_mail_text(mr->b, mr->ri, sets, nsets, parts, mr->limit, &text);
	m.html = html.data;
	m.text = text.data;
	/* the message is the .eml file first, then delivered from it: it is never held in memory
	 * whole, and it is kept when delivery fails */
	int rc = 0;
	struct buf path;
	buf_init(&path);
	if (o->eml_dir) {
		if (dir_make(o->eml_dir) != 0)
			diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", o->eml_dir, strerror(errno));
		buf_printf(&path, "%s/%s.eml", o->eml_dir, emlname);
	} else {
		buf_printf(&path, "%s/mail", o->out);
		if (mkdir(path.data, 0755) != 0 && errno != EEXIST)
			diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", path.data, strerror(errno));
		buf_printf(&path, "/%s.eml", emlname);
	}
	rc = write_eml(path.data, &m, d);
	bool send = !o->eml_dir && (o->smtp || o->sendmail);
	if (rc < 0 && send && proc_scratch()) {
		/* DIR full or not writable: deliver from the run's scratch folder, which goes with the run */
		diag_emit(d, DIAG_PLAIN, 0, 0, "%s could not be written: delivering from a temporary copy", path.data);
		buf_reset(&path);
		buf_printf(&path, "%s/%s.eml", proc_scratch(), emlname);
		rc = write_eml(path.data, &m, d);
	}
	long long size = file_size(path.data);
	if (rc == 0 && size > (long long)mr->limit)
		diag_emit(d, DIAG_PLAIN, 0, 0, "warning: %s is %lld bytes with no report attached, over --mail-max-size "
					       "(%zu): its index alone is that large", path.data, size, mr->limit);
	if (rc == 0 && send) {
		if (now_seconds() >= mr->deadline) {
			buf_printf(&why, "the mail deadline (%d s, --mail-timeout) had passed", mr->timeout_s);
			rc = ERR_IO;
		} else if (o->smtp) {
			rc = send_smtp(o->smtp, o->smtp_starttls, &m, path.data, mr->deadline, &why);
		} else {
			rc = send_program(o->sendmail, &m, path.data, mr->deadline, &why);
		}
		if (rc < 0)
			diag_emit(d, DIAG_PLAIN, 0, 0, "mail not delivered: %s; the message is kept in %s", why.data, path.data);
		else
			unlink(path.data); /* delivered: DIR/mail holds only what was not */
	}
	buf_free(&path);
	buf_free(&html);
	buf_free(&text);
	buf_free(&why);
	for (size_t i = 0; i < nsets; i++)
		free(where[i]);
	free(where);
	free(parts);
	mail_free_parts(&m);
	return rc;
}

/* Messages of an earlier run in DIR/mail: this run's replace them or they go. */
static void remove_stale_eml(const char *out)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/mail", out);
	DIR *dir = opendir(p.data);
	if (dir) {
		struct dirent *e;
		while ((e = readdir(dir)) != NULL) {
			size_t n = strlen(e->d_name);
			if (n < 4 || strcmp(e->d_name + n - 4, ".eml") != 0)
				continue;
			if (strcmp(e->d_name, "index.eml") != 0 && strncmp(e->d_name, "set-", 4) != 0)
				continue;
			struct buf f;
			buf_init(&f);
			buf_printf(&f, "%s/%s", p.data, e->d_name);
			unlink(f.data);
			buf_free(&f);
		}
		closedir(dir);
	}
	buf_free(&p);
}

int deliver_url_check(const char *url, struct buf *why)
{
	const char *p = strncmp(url, "smtp://", 7) == 0 ? url + 7 : strncmp(url, "smtps://", 8) == 0 ? url + 8 : NULL;
	if (!p) {
		buf_adds(why, "--smtp takes an smtp:// or smtps:// URL");
		return ERR_USAGE;
	}
	size_t host = strcspn(p, "/?#");
	const char *at = memchr(p, '@', host);
	if (at) {
		bool pw = memchr(p, ':', (size_t)(at - p)) != NULL;
		buf_printf(why, "--smtp: the URL holds %s: every user of this machine can read a command line (ps) and it "
				"stays in shell histories and job scripts; give the credentials in the environment instead "
				"(IOPSY_SMTP_USER and IOPSY_SMTP_PASSWORD)", pw ? "a password" : "a user name");
		return ERR_USAGE;
	}
	return 0;
}

void batch_mail_check(const struct batch_opts *o, struct diag *d)
{
	const char *user = getenv("IOPSY_SMTP_USER");
	if (o->smtp && user && *user && strncmp(o->smtp, "smtp://", 7) == 0 && !o->smtp_starttls)
		diag_emit(d, DIAG_WARNING, 0, 0, "IOPSY_SMTP_USER is set but --smtp is a plain smtp:// URL without "
						 "--smtp-starttls: the password may cross the network in clear; use "
						 "smtps:// or --smtp-starttls");
}

int batch_mail(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, struct diag *d)
{
	int ret = 0;
	remove_stale_eml(o->out);
	struct mail_run mr = {.b = b, .ri = ri, .o = o, .d = d,
			      .limit = o->mail_max_size ? o->mail_max_size : BATCH_MAIL_MAX_SIZE,
			      .timeout_s = o->mail_timeout_s > 0 ? o->mail_timeout_s : BATCH_MAIL_TIMEOUT_S};
	mr.deadline = now_seconds() + mr.timeout_s;
	size_t *order = batch_order(b);
	unsigned long long seed = (unsigned long long)time(NULL) * 1000003ull;
	const char *subject = o->subject ? o->subject : "iopsy storage report";
	if (o->nmail) {
		int crit = 0, failed = 0, partial = 0;
		for (size_t i = 0; i < b->nsets; i++) {
			crit += b->sets[i].worst == SEV_CRITICAL;
			failed += b->sets[i].status == BS_FAILED;
			partial += b->sets[i].status == BS_PARTIAL;
		}
		struct buf subj;
		buf_init(&subj);
		buf_printf(&subj, "%s: %zu set%s, %d critical", subject, b->nsets, b->nsets == 1 ? "" : "s", crit);
		/* a set that only partly loaded is not "0 failed": each kind counted that happened */
		if (failed || !partial)
			buf_printf(&subj, ", %d failed", failed);
		if (partial)
			buf_printf(&subj, ", %d partial", partial);
		if (deliver(&mr, order, b->nsets, o->mail_to, o->nmail, subj.data, seed, "index") < 0)
			ret = ERR_IO;
		buf_free(&subj);
	}
	for (size_t i = 0; i < b->nsets; i++) {
		const struct bset *s = &b->sets[i];
		char **to = NULL;
		size_t nto = 0;
		for (size_t k = 0; k < s->nmail; k++)
			if (s->mail_to[k][0]) {
				to = xrealloc(to, (nto + 1) * sizeof *to);
				to[nto++] = s->mail_to[k];
			}
		if (nto) {
			struct buf subj, name;
			buf_init(&subj);
			buf_init(&name);
			buf_printf(&subj, "%s: %s: %s", subject, s->name,
				   s->status == BS_FAILED ? "failed" : s->status == BS_PARTIAL ? "partial"
				   : s->worst == SEV_CRITICAL ? "critical"
				   : s->worst == SEV_WARNING ? "warning" : "clean");
			buf_printf(&name, "set-%s", s->dir);
			if (deliver(&mr, &i, 1, to, nto, subj.data, seed + i + 1, name.data) < 0)
				ret = ERR_IO;
			buf_free(&subj);
			buf_free(&name);
		}
		free(to);
	}
	free(order);
	return ret;
}
