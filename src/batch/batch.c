/* batch.c — one `iopsy batch` run from discovery to mail (see batch.h). */
#include "batch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_out.h"
#include "deliver.h"
#include "discover.h"
#include "history.h"
#include "json.h"
#include "mail.h"
#include "proc.h"
#include "runner.h"
#include "setwork.h"

static char *iso_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char t[32];
	time_format_iso((int64_t)ts.tv_sec * 1000, false, t);
	return xstrdup(t);
}

/* A run id no earlier run shares: what a set's result record must carry to count as this run's. */
static uint64_t new_run_id(void)
{
	uint64_t id = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &id, sizeof id) != (ssize_t)sizeof id)
			id = 0;
		close(fd);
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	id ^= (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
	return id ? id : 1;
}

static int write_out(const char *path, const struct buf *b, struct diag *d)
{
	const char *what;
	if (afile_write_all(path, b->data, b->len, &what) < 0) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "%s %s: %s", what, path, strerror(errno));
		return ERR_IO;
	}
	return 0;
}

/* index.html and summary.json. 0 or ERR_IO. */
static int write_index(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, struct diag *d)
{
	int rc = 0;
	struct buf out, p;
	buf_init(&out);
	buf_init(&p);
	batch_index_html(b, ri, &out);
	buf_printf(&p, "%s/index.html", o->out);
	if (write_out(p.data, &out, d) < 0)
		rc = ERR_IO;
	buf_reset(&out);
	struct json j;
	json_init(&j, &out, true);
	batch_summary_json(b, ri, &j);
	buf_addc(&out, '\n');
	buf_reset(&p);
	buf_printf(&p, "%s/summary.json", o->out);
	if (write_out(p.data, &out, d) < 0)
		rc = ERR_IO;
	buf_free(&out);
	buf_free(&p);
	return rc;
}

int batch_execute(const struct batch_opts *o)
{
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = o->co.sink;
	/* the history's messages keep their own prefix ("iopsy: history: ...") */
	struct diag hd = d;
	hd.prefix = NULL;
	int ret = EXIT_OK;
	struct batch b;
	int rc = batch_discover(&b, o->input, &d);
	if (rc == ERR_IO) {
		batch_free(&b);
		return EXIT_INPUT;
	}
	if (rc < 0)
		ret = EXIT_INPUT; /* manifest errors: the valid sets still run */
	for (size_t i = 0; i < b.nsets; i++)
		for (size_t k = 0; k < b.sets[i].nmail; k++)
			if (!mail_address_valid(b.sets[i].mail_to[k])) {
				diag_emit(&d, DIAG_PLAIN, 0, 0, "set %s: not a plain mail address '%s'; ignored", b.sets[i].dir,
					  b.sets[i].mail_to[k]);
				b.sets[i].mail_to[k][0] = '\0';
			}
	batch_mail_check(o, &d);
	if (o->eml_dir || o->smtp || o->sendmail) {
		size_t any = o->nmail;
		for (size_t i = 0; i < b.nsets; i++)
			any += b.sets[i].nmail;
		if (!any)
			diag_emit(&d, DIAG_PLAIN, 0, 0, "--eml/--smtp/--sendmail without any recipient (--mail-to, or "
							"mail-to in a manifest): no message will be made");
	}
	struct stat st;
	if (mkdir(o->out, 0755) != 0 && errno != EEXIST) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", o->out, strerror(errno));
		batch_free(&b);
		return EXIT_SYSTEM;
	}
	if (stat(o->out, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->out, W_OK) != 0) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "%s is not a writable folder", o->out);
		batch_free(&b);
		return EXIT_SYSTEM;
	}
	char *started = iso_now();
	uint64_t run_id = new_run_id();
	struct buf hp;
	buf_init(&hp);
	if (o->history)
		buf_adds(&hp, o->history);
	else
		buf_printf(&hp, "%s/history.sqlite", o->out);
	struct history *h = NULL;
	if (history_open(&h, hp.data, true, &hd) < 0) {
		diag_emit(&d, DIAG_PLAIN, 0, 0, "running without history (no trends, nothing recorded)");
		h = NULL;
		ret = EXIT_SYSTEM;
	}
	double t0 = now_seconds();
	struct batch_loader loader;
	/* from here every child is in a group a signal to the run reaches, and the scratch folder
	 * goes on every exit path */
	proc_begin(&d);
	batch_run(&b, o, run_id, h, setwork_run, &loader, &hd);
	struct run_info ri = {.started = started, .input = o->input, .input_kind = b.input_kind, .history = hp.data,
			      .out = o->out, .seconds = now_seconds() - t0};
	if (write_index(&b, &ri, o, &d) < 0)
		ret = EXIT_SYSTEM;
	if (h) {
		if (history_record(h, started, o->input, NULL, &b, &hd) < 0)
			ret = EXIT_SYSTEM;
		history_close(h);
	}
	if (batch_mail(&b, &ri, o, &d) < 0)
		ret = EXIT_SYSTEM;
	proc_end();
	/* exit code and a short account */
	long failed = 0, worst = -1;
	for (size_t i = 0; i < b.nsets; i++) {
		const struct bset *s = &b.sets[i];
		if (s->system_error)
			ret = EXIT_SYSTEM; /* a report or the set's folder could not be written */
		if (s->status == BS_FAILED || s->status == BS_PARTIAL) {
			failed++;
			struct bresult tmp;
			const struct bresult *r = batch_result(&b, i, &tmp);
			diag_emit(&d, DIAG_PLAIN, 0, 0, "set %s %s: %s", s->dir, bstatus_names[s->status],
				  r->error ? r->error : "see messages.txt");
			if (r == &tmp)
				bresult_free(&tmp);
		}
		if (s->worst > worst)
			worst = s->worst;
	}
	if (!o->quiet)
		diag_emit(&d, DIAG_PLAIN, 0, 0, "%zu set%s, %ld failed, index in %s/index.html", b.nsets,
			  b.nsets == 1 ? "" : "s", failed, o->out);
	if (ret == EXIT_OK && failed)
		ret = EXIT_INPUT;
	if (ret == EXIT_OK && o->fail_on > 0 && worst >= o->fail_on)
		ret = EXIT_FINDINGS;
	free(started);
	buf_free(&hp);
	batch_free(&b);
	return ret;
}
