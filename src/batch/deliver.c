/* deliver.c — the messages of a batch run and their delivery (see deliver.h). */
#include "deliver.h"

#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch_out.h"
#include "mail.h"

/* ---- transports ---- */

struct reader {
	const struct buf *msg;
	size_t pos;
};

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct reader *r = ud;
	size_t want = size * nmemb, left = r->msg->len - r->pos;
	if (want > left)
		want = left;
	memcpy(ptr, r->msg->data + r->pos, want);
	r->pos += want;
	return want;
}

/* SMTP through libcurl; credentials from IOPSY_SMTP_USER / IOPSY_SMTP_PASSWORD. 0 or ERR_IO with
 * the reason in why. */
static int send_smtp(const char *url, bool starttls, const struct mail_msg *m, const struct buf *msg, struct buf *why)
{
	static bool inited;
	if (!inited) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		inited = true;
	}
	CURL *c = curl_easy_init();
	if (!c) {
		buf_adds(why, "cannot start libcurl");
		return ERR_IO;
	}
	struct curl_slist *rcpt = NULL;
	struct buf a;
	buf_init(&a);
	for (size_t i = 0; i < m->nto; i++) {
		buf_reset(&a);
		buf_printf(&a, "<%s>", m->to[i]);
		rcpt = curl_slist_append(rcpt, a.data);
	}
	buf_reset(&a);
	buf_printf(&a, "<%s>", m->from);
	struct reader rd = {msg, 0};
	char ebuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, a.data);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &rd);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	if (starttls)
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	const char *user = getenv("IOPSY_SMTP_USER"), *pass = getenv("IOPSY_SMTP_PASSWORD");
	if (user && *user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, pass ? pass : "");
	}
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		buf_printf(why, "SMTP delivery to %s failed: %s", url, ebuf[0] ? ebuf : curl_easy_strerror(rc));
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(c);
	buf_free(&a);
	return rc == CURLE_OK ? 0 : ERR_IO;
}

/* Runs cmd (split on blanks, no shell) with the recipients appended, the message on its
 * standard input. 0 or ERR_IO/ERR_USAGE with the reason in why. */
static int send_program(const char *cmd, const struct mail_msg *m, const struct buf *msg, struct buf *why)
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
	for (size_t i = 0; i < m->nto; i++) {
		argv = xrealloc(argv, (n + 2) * sizeof *argv);
		argv[n++] = m->to[i];
	}
	argv[n] = NULL;
	int fds[2];
	int rc = 0;
	if (pipe(fds) != 0) {
		buf_printf(why, "pipe: %s", strerror(errno));
		rc = ERR_IO;
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[0], 0);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		buf_printf(why, "fork: %s", strerror(errno));
		rc = ERR_IO;
		goto out;
	}
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	size_t off = 0;
	while (off < msg->len) {
		ssize_t w = write(fds[1], msg->data + off, msg->len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)w;
	}
	close(fds[1]);
	signal(SIGPIPE, old);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || off < msg->len) {
		buf_printf(why, "'%s' failed (%s %d)", argv[0], WIFEXITED(st) ? "exit status" : "signal",
			   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		rc = ERR_IO;
	}
out:
	free(copy);
	free(argv);
	return rc;
}

/* ---- one message ---- */

static int slurp(const char *path, char **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return ERR_IO;
	struct buf b;
	buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		buf_free(&b);
		return ERR_IO;
	}
	*data = b.data ? b.data : xstrdup("");
	*len = b.len;
	return 0;
}

static int write_eml(const char *path, const struct buf *msg, struct diag *d)
{
	const char *what;
	if (afile_write_all(path, msg->data, msg->len, &what) < 0) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "%s %s: %s", what, path, strerror(errno));
		return ERR_IO;
	}
	return 0;
}

/* One message: the sets it covers, its recipients; HTML body + text + each set's report attached
 * + each set's chart.png inline. Delivery failures leave the .eml in DIR/mail/. */
static int deliver(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, const size_t *sets,
		   size_t nsets, char **to, size_t nto, const char *subject, unsigned long long seed, const char *emlname,
		   struct diag *d)
{
	struct mail_msg m;
	memset(&m, 0, sizeof m);
	m.from = o->mail_from;
	m.to = to;
	m.nto = nto;
	m.subject = subject;
	m.seed = seed;
	char **cids = xcalloc(nsets ? nsets : 1, sizeof *cids);
	for (size_t i = 0; i < nsets; i++) {
		const struct bset *s = &b->sets[sets[i]];
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s/chart.png", o->out, s->dir);
		char *data;
		size_t len;
		if (slurp(p.data, &data, &len) == 0 && len > 8) {
			m.img = xrealloc(m.img, (m.nimg + 1) * sizeof *m.img);
			struct buf cid;
			buf_init(&cid);
			buf_printf(&cid, "chart-%zu.%016llx@iopsy", i + 1, seed);
			m.img[m.nimg].cid = cid.data;
			m.img[m.nimg].data = data;
			m.img[m.nimg].len = len;
			cids[i] = m.img[m.nimg].cid;
			m.nimg++;
		} else {
			free(data);
		}
		buf_reset(&p);
		buf_printf(&p, "%s/%s/report.html", o->out, s->dir);
		if (slurp(p.data, &data, &len) == 0) {
			m.att = xrealloc(m.att, (m.natt + 1) * sizeof *m.att);
			struct buf fn;
			buf_init(&fn);
			buf_printf(&fn, "%s-report.html", s->dir);
			m.att[m.natt].filename = fn.data;
			m.att[m.natt].content_type = "text/html; charset=utf-8";
			m.att[m.natt].data = data;
			m.att[m.natt].len = len;
			m.natt++;
		}
		buf_free(&p);
	}
	struct buf html, text, msg, why;
	buf_init(&html);
	buf_init(&text);
	buf_init(&msg);
	buf_init(&why);
	batch_mail_html(b, ri, sets, nsets, cids, &html);
	batch_mail_text(b, ri, sets, nsets, &text);
	m.html = html.data;
	m.text = text.data;
	mail_build(&m, &msg);
	int rc = 0;
	struct buf path;
	buf_init(&path);
	if (o->eml_dir) {
		if (mkdir(o->eml_dir, 0755) != 0 && errno != EEXIST)
			diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", o->eml_dir, strerror(errno));
		buf_printf(&path, "%s/%s.eml", o->eml_dir, emlname);
	} else {
		buf_printf(&path, "%s/mail", o->out);
		if (mkdir(path.data, 0755) != 0 && errno != EEXIST)
			diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", path.data, strerror(errno));
		buf_printf(&path, "/%s.eml", emlname);
	}
	if (o->eml_dir || (!o->smtp && !o->sendmail)) {
		rc = write_eml(path.data, &msg, d);
	} else {
		if (o->smtp)
			rc = send_smtp(o->smtp, o->smtp_starttls, &m, &msg, &why);
		else
			rc = send_program(o->sendmail, &m, &msg, &why);
		if (rc < 0) {
			diag_emit(d, DIAG_PLAIN, 0, 0, "mail not delivered: %s; the message is kept in %s", why.data, path.data);
			write_eml(path.data, &msg, d);
		}
	}
	buf_free(&path);
	buf_free(&html);
	buf_free(&text);
	buf_free(&msg);
	buf_free(&why);
	free(cids);
	mail_free_parts(&m);
	return rc;
}

int batch_mail(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, struct diag *d)
{
	int ret = 0;
	size_t *order = batch_order(b);
	unsigned long long seed = (unsigned long long)time(NULL) * 1000003ull;
	const char *subject = o->subject ? o->subject : "iopsy storage report";
	if (o->nmail) {
		int crit = 0, failed = 0;
		for (size_t i = 0; i < b->nsets; i++) {
			crit += b->sets[i].worst == SEV_CRITICAL;
			failed += b->sets[i].status == BS_FAILED;
		}
		struct buf subj;
		buf_init(&subj);
		buf_printf(&subj, "%s: %zu set%s, %d critical, %d failed", subject, b->nsets, b->nsets == 1 ? "" : "s", crit,
			   failed);
		if (deliver(b, ri, o, order, b->nsets, o->mail_to, o->nmail, subj.data, seed, "index", d) < 0)
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
				   s->status == BS_FAILED ? "failed" : s->worst == SEV_CRITICAL ? "critical"
				   : s->worst == SEV_WARNING ? "warning" : "clean");
			buf_printf(&name, "set-%s", s->dir);
			if (deliver(b, ri, o, &i, 1, to, nto, subj.data, seed + i + 1, name.data, d) < 0)
				ret = ERR_IO;
			buf_free(&subj);
			buf_free(&name);
		}
		free(to);
	}
	free(order);
	return ret;
}
