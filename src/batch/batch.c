/* batch.c — one `iopsy batch` run from discovery to mail (see batch.h). */
#include "batch.h"

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
#include "deliver.h"
#include "discover.h"
#include "guard.h"
#include "hdb.h"
#include "history.h"
#include "json.h"
#include "mail.h"
#include "proc.h"
#include "result.h"
#include "runner.h"
#include "setwork.h"
#include "shard.h"

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

/* path written by fn through an atomic file: 0, or ERR_IO (a message through d; path untouched). */
static int write_streamed(const char *path, const struct batch *b, const struct run_info *ri,
			  int (*fn)(const struct batch *, const struct run_info *, FILE *), struct diag *d)
{
	struct afile af;
	if (afile_open(&af, path) < 0) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	if (fn(b, ri, af.fp) < 0) {
		int e = errno;
		afile_abort(&af);
		diag_emit(d, DIAG_PLAIN, 0, 0, "write error on %s: %s", path, strerror(e));
		return ERR_IO;
	}
	if (afile_commit(&af) < 0) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "cannot write %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	return 0;
}

/* index.html and summary.json, streamed (their size grows with the sets' files). 0 or ERR_IO. */
static int write_index(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, struct diag *d)
{
	int rc = 0;
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/index.html", o->out);
	if (write_streamed(p.data, b, ri, batch_index_html_file, d) < 0)
		rc = ERR_IO;
	buf_reset(&p);
	buf_printf(&p, "%s/summary.json", o->out);
	if (write_streamed(p.data, b, ri, batch_summary_json_file, d) < 0)
		rc = ERR_IO;
	buf_free(&p);
	return rc;
}

/* The history a shard reads its sets' previous runs from (their trends), or NULL: a SQLite file
 * that does not exist yet is a first run (the finish step makes it), as in a one-machine run. A
 * shard records nothing; it may bring an older schema up to date. */
static int open_for_trends(struct history **h, const char *where, int timeout_s, struct diag *hd)
{
	*h = NULL;
	if (!hdb_is_uri(where) && access(where, F_OK) != 0 && errno == ENOENT)
		return 0;
	return history_open(h, where, hdb_is_uri(where), timeout_s, hd);
}

/* Keeps only the sets of shard o->shard_k in b (the others are freed). */
static void keep_shard(struct batch *b, const struct batch_opts *o)
{
	struct batch other;
	memset(&other, 0, sizeof other);
	other.sets = xcalloc(b->nsets ? b->nsets : 1, sizeof *other.sets);
	size_t kept = 0;
	for (size_t i = 0; i < b->nsets; i++) {
		if (shard_of(b->sets[i].dir, o->shard_n) == o->shard_k)
			b->sets[kept++] = b->sets[i];
		else
			other.sets[other.nsets++] = b->sets[i];
	}
	b->nsets = kept;
	batch_free(&other);
}

/* A set the shard's runner failed (crashed, stopped, its record refused) gets a record of that
 * failure, so the finish step shows the same error as a one-machine run. */
static void record_failures(struct batch *b, const struct batch_opts *o, uint64_t run_id, struct diag *d)
{
	for (size_t i = 0; i < b->nsets; i++) {
		struct bset *s = &b->sets[i];
		if (s->has_record || s->status != BS_FAILED)
			continue;
		struct bresult r;
		bresult_init(&r);
		r.status = BS_FAILED;
		r.system_error = s->system_error;
		r.error = xstrdup(s->error ? s->error : "the set's worker wrote no result");
		r.input_digest = batch_set_digest(s);
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", o->out, s->dir);
		if (result_write(p.data, &r, run_id) == 0)
			s->has_record = true;
		else
			diag_emit(d, DIAG_PLAIN, 0, 0, "cannot write the result of set %s: %s", s->dir, strerror(errno));
		buf_free(&p);
		bresult_free(&r);
	}
}

/* The finish step's view of every set: its record of this run, or "failed: no result" with
 * what is known of its shard. Returns EXIT_OK, or EXIT_INPUT when a shard saw another input. */
static int load_records(struct batch *b, const struct batch_opts *o, uint64_t rid, struct batch_loader *loader,
			struct diag *d)
{
	int ret = EXIT_OK;
	loader->out = o->out;
	loader->run_id = rid;
	b->load = batch_load_record;
	b->load_ctx = loader;
	unsigned n = 0;
	char *started = NULL;
	bool have_run = run_marker_read(o->out, o->run_id, &n, &started) == 0;
	free(started);
	bool *done = xcalloc(n ? n : 1, sizeof *done);
	uint64_t fp = batch_fingerprint(b);
	for (unsigned k = 0; have_run && k < n; k++) {
		uint64_t seen;
		done[k] = shard_marker_read(o->out, o->run_id, k, n, &seen) == 0;
		if (done[k] && seen != fp) {
			diag_emit(d, DIAG_PLAIN, 0, 0,
				  "shard %u/%u saw another input than this finish step (a set added, removed or renamed during "
				  "the run): the index lists the input as it is now",
				  k, n);
			ret = EXIT_INPUT;
		}
	}
	if (!have_run)
		diag_emit(d, DIAG_PLAIN, 0, 0, "no shard of run %s wrote to %s (no %s/%s of that run): every set is failed", o->run_id,
			  o->out, o->out, RUN_MARKER);
	for (size_t i = 0; i < b->nsets; i++) {
		struct bset *s = &b->sets[i];
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", o->out, s->dir);
		struct bresult r;
		const char *why = "";
		int rr = result_read(p.data, rid, s->nfiles, &r, &why);
		bool other_input = rr == 0 && r.input_digest != batch_set_digest(s);
		if (other_input)
			bresult_free(&r);
		if (rr == 0 && !other_input) {
			bset_take_outcome(s, &r);
			s->has_record = true;
			bresult_free(&r);
			buf_free(&p);
			continue;
		}
		struct buf e;
		buf_init(&e);
		buf_printf(&e, "no result of run %s: ", o->run_id);
		if (other_input) {
			buf_reset(&e);
			buf_printf(&e, "the result of run %s read another input than this finish step: the set's files were added, "
				       "removed or rewritten after its shard ran; run ", o->run_id);
			if (have_run)
				buf_printf(&e, "shard %u/%u", shard_of(s->dir, n), n);
			else
				buf_adds(&e, "its shard");
			buf_adds(&e, " again with the same --run-id, then --finish");
		} else if (have_run) {
			unsigned k = shard_of(s->dir, n);
			if (!done[k])
				buf_printf(&e, "its shard %u/%u did not finish (the job died, was cancelled or has not run; run that "
					       "shard again with the same --run-id, then --finish)", k, n);
			else
				buf_printf(&e, "its shard %u/%u ended without it", k, n);
		} else {
			buf_adds(&e, "no shard of this run wrote to the output folder");
		}
		if (rr == ERR_FORMAT)
			buf_printf(&e, "; the record in its folder is refused (%s)", why);
		s->status = BS_FAILED;
		s->has_record = false;
		s->worst = -1;
		s->nf = 0;
		free(s->error);
		s->error = e.data;
		/* what the folder holds is an earlier run's: gone, as a one-machine run removes it — but
		 * only when this run's shards did write to DIR (a mistyped --run-id removes nothing) */
		if (have_run)
			batch_remove_outputs(p.data);
		buf_free(&p);
	}
	free(done);
	return ret;
}

/* One run's state across the steps of batch_execute. */
struct bx {
	const struct batch_opts *o;
	struct diag d, hd;        /* the run's messages; the history's keep their own prefix */
	bool shard;
	int ret;
	struct batch b;
	char *started;
	int lock_fd;
	uint64_t run_id;
	struct buf hp;            /* the history's file or URI */
	uint64_t fingerprint;
	uint64_t input_fp;        /* input_fingerprint of every set, before a shard keeps its own */
	size_t total;             /* the sets before a shard kept its own */
	struct history *h;
};

/* A fingerprint of the run's input: every set's key, name and files with their sizes and times. */
static uint64_t input_fingerprint(const struct batch *b)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < b->nsets; i++) {
		uint64_t x = batch_set_digest(&b->sets[i]);
		for (int k = 0; k < 8; k++)
			h = (h ^ ((x >> (8 * k)) & 0xff)) * 1099511628211ull;
	}
	return h;
}

/* Discovery, the recipients, the output folder (kept apart from the input, made). EXIT_OK or the
 * exit code to end with (b freed). */
static int bx_discover(struct bx *x)
{
	const struct batch_opts *o = x->o;
	int rc = batch_discover(&x->b, o->input, &x->d);
	if (rc == ERR_IO) {
		batch_free(&x->b);
		return EXIT_INPUT;
	}
	if (rc < 0)
		x->ret = EXIT_INPUT; /* manifest errors: the valid sets still run */
	if (batch_outputs_not_inputs(&x->b, o, &x->d) < 0) {
		batch_free(&x->b);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < x->b.nsets; i++)
		for (size_t k = 0; k < x->b.sets[i].nmail; k++)
			if (!mail_address_valid(x->b.sets[i].mail_to[k])) {
				if (!x->shard)
					diag_emit(&x->d, DIAG_PLAIN, 0, 0,
						  "set %s: not a plain mail address '%s'; ignored", x->b.sets[i].dir,
						  x->b.sets[i].mail_to[k]);
				x->b.sets[i].mail_to[k][0] = '\0';
			}
	if (!x->shard) {
		batch_mail_check(o, &x->d);
		if (o->eml_dir || o->smtp || o->sendmail) {
			size_t any = o->nmail;
			for (size_t i = 0; i < x->b.nsets; i++)
				any += x->b.sets[i].nmail;
			if (!any)
				diag_emit(&x->d, DIAG_PLAIN, 0, 0,
					  "--eml/--smtp/--sendmail without any recipient (--mail-to, or "
					  "mail-to in a manifest): no message will be made");
		}
	}
	struct stat st;
	if (dir_make(o->out) != 0) { /* mkdir -p: --out week/2026-W48 in a new year's folder */
		diag_emit(&x->d, DIAG_PLAIN, 0, 0, "cannot create %s: %s", o->out, strerror(errno));
		batch_free(&x->b);
		return EXIT_SYSTEM;
	}
	if (stat(o->out, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->out, W_OK) != 0) {
		diag_emit(&x->d, DIAG_PLAIN, 0, 0, "%s is not a writable folder", o->out);
		batch_free(&x->b);
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

/* Ends the run early with code (after the lock was taken). */
static int bx_abort(struct bx *x, int code)
{
	history_close(x->h);
	free(x->started);
	buf_free(&x->hp);
	batch_free(&x->b);
	if (x->lock_fd >= 0)
		close(x->lock_fd);
	return code;
}

/* The index's and summary's temporaries an earlier run left (killed while writing them, or its
 * list store failed): this run holds the folder's lock, so no other run is writing them. */
static void remove_stale_temporaries(const char *out)
{
	DIR *dir = opendir(out);
	if (!dir)
		return;
	static const char *const stems[] = {"index.html.tmp.", "summary.json.tmp."};
	for (struct dirent *e; (e = readdir(dir)) != NULL;)
		for (size_t k = 0; k < 2; k++) {
			size_t n = strlen(stems[k]);
			if (strncmp(e->d_name, stems[k], n) == 0 && strlen(e->d_name) == n + 6) {
				char *p = xprintf("%s/%s", out, e->d_name);
				unlink(p);
				free(p);
			}
		}
	closedir(dir);
}

/* One run per output folder: the lock, held to the end of the process. EXIT_OK or the exit code
 * to end with (everything freed). */
static int bx_lock(struct bx *x)
{
	const struct batch_opts *o = x->o;
	struct buf why;
	buf_init(&why);
	int lr = run_lock(o->out, !x->shard, o->run_id, x->started, &x->lock_fd, &why);
	if (lr == 1)
		diag_emit(&x->d, DIAG_WARNING, 0, 0, "%s/%s cannot be locked (%s): a second run on this folder is not "
			  "prevented", o->out, RUN_LOCK, strerror(errno));
	if (lr < 0) {
		if (lr == ERR_LIMIT)
			diag_emit(&x->d, DIAG_PLAIN, 0, 0, "%s", why.data);
		else
			diag_emit(&x->d, DIAG_PLAIN, 0, 0, "cannot lock %s/%s: %s", o->out, RUN_LOCK, strerror(errno));
		buf_free(&why);
		free(x->started);
		batch_free(&x->b);
		return EXIT_SYSTEM;
	}
	buf_free(&why);
	if (lr == 0 && !x->shard)
		remove_stale_temporaries(o->out);
	return EXIT_OK;
}

/* The run markers: a shard joins its run (and keeps its own sets), a finish step checks the
 * folder is its run's, a one-machine run removes a sharded run's. EXIT_OK or the exit code to
 * end with. */
static int bx_markers(struct bx *x)
{
	const struct batch_opts *o = x->o;
	if (x->shard) {
		struct buf why;
		buf_init(&why);
		char *first = NULL;
		int jr = run_marker_join(o->out, o->run_id, o->shard_n, x->started, &first, &why);
		if (jr < 0) {
			if (jr == ERR_USAGE)
				diag_emit(&x->d, DIAG_PLAIN, 0, 0, "%s", why.data);
			else
				diag_emit(&x->d, DIAG_PLAIN, 0, 0, "cannot write %s/%s: %s", o->out, RUN_MARKER,
					  strerror(errno));
			buf_free(&why);
			return bx_abort(x, jr == ERR_USAGE ? EXIT_USAGE : EXIT_SYSTEM);
		}
		buf_free(&why);
		free(first);
		keep_shard(&x->b, o);
	} else if (o->finish) {
		unsigned n;
		char *first = NULL;
		char *other = run_marker_id(o->out);
		if (other && strcmp(other, o->run_id) != 0) {
			/* DIR is another run's: a mistyped --run-id would record every set as failed */
			diag_emit(&x->d, DIAG_PLAIN, 0, 0,
				  "%s belongs to run %s, not %s: give the run id its shards were "
				  "started with (nothing recorded)",
				  o->out, other, o->run_id);
			free(other);
			return bx_abort(x, EXIT_USAGE);
		}
		free(other);
		if (run_marker_read(o->out, o->run_id, &n, &first) == 0) {
			free(x->started);
			x->started = first; /* the run started with its first shard */
		}
	} else {
		run_markers_remove(o->out); /* a sharded run's markers are not this run's */
	}
	return EXIT_OK;
}

/* The history: opened (a shard only reads its trends), and a run id recorded before for another
 * input refused before anything runs (issue 38). EXIT_OK or the exit code to end with. */
static int bx_history(struct bx *x)
{
	const struct batch_opts *o = x->o;
	int hr = x->shard ? open_for_trends(&x->h, x->hp.data, o->history_timeout_s, &x->hd)
			  : history_open(&x->h, x->hp.data, true, o->history_timeout_s, &x->hd);
	if (hr < 0) {
		x->b.history_unavailable = true; /* the reports say so, never "first run" */
		diag_emit(&x->d, DIAG_PLAIN, 0, 0, x->shard ? "running without history (no trends)"
							    : "running without history (no trends, nothing recorded)");
		x->h = NULL;
		x->ret = EXIT_SYSTEM;
		return EXIT_OK;
	}
	if (!x->h)
		return EXIT_OK;
	struct buf why;
	buf_init(&why);
	int cr = history_run_check(x->h, o->run_id, o->input, x->input_fp, &why);
	if (cr < 0)
		diag_emit(cr == ERR_USAGE ? &x->d : &x->hd, DIAG_PLAIN, 0, 0, "%s", why.data);
	buf_free(&why);
	return cr == ERR_USAGE ? bx_abort(x, EXIT_USAGE) : EXIT_OK;
}

/* After the sets ran: a shard's failures and its end marker; else the index, the history and the
 * mail. */
static void bx_publish(struct bx *x, const struct run_info *ri)
{
	const struct batch_opts *o = x->o;
	if (x->shard) {
		record_failures(&x->b, o, x->run_id, &x->d);
		if (shard_marker_write(o->out, o->run_id, o->shard_k, o->shard_n, x->fingerprint, x->b.nsets) < 0) {
			diag_emit(&x->d, DIAG_PLAIN, 0, 0, "cannot write the end of shard %u/%u in %s: %s", o->shard_k,
				  o->shard_n, o->out, strerror(errno));
			x->ret = EXIT_SYSTEM;
		}
		history_close(x->h);
		x->h = NULL;
		return;
	}
	if (write_index(&x->b, ri, o, &x->d) < 0)
		x->ret = EXIT_SYSTEM;
	if (x->h) {
		if (history_record(x->h, x->started, o->input, o->run_id, &x->b, &x->hd) < 0)
			x->ret = EXIT_SYSTEM;
		history_close(x->h);
		x->h = NULL;
	}
	if (batch_mail(&x->b, ri, o, &x->d) < 0)
		x->ret = EXIT_SYSTEM;
	if (o->finish) {
		/* the index is written: a shard of another run may take the folder now */
		char *now = iso_now();
		if (run_marker_finish(o->out, o->run_id, now) < 0 && errno != ENOENT)
			diag_emit(&x->d, DIAG_PLAIN, 0, 0, "cannot mark run %s finished in %s/%s: %s", o->run_id,
				  o->out, RUN_MARKER, strerror(errno));
		free(now);
	}
}

/* The exit code and a short account. */
static void bx_account(struct bx *x)
{
	const struct batch_opts *o = x->o;
	const struct batch *b = &x->b;
	long failed = 0, worst = -1;
	for (size_t i = 0; i < b->nsets; i++) {
		const struct bset *s = &b->sets[i];
		if (s->system_error)
			x->ret = EXIT_SYSTEM; /* a report or the set's folder could not be written */
		if (bset_failed(s)) {
			failed++;
			struct bresult tmp;
			const struct bresult *r = batch_result(b, i, &tmp);
			diag_emit(&x->d, DIAG_PLAIN, 0, 0, "set %s %s: %s", s->dir, bstatus_names[s->status],
				  r->error ? r->error : "see messages.txt");
			if (r == &tmp)
				bresult_free(&tmp);
		}
		if (s->worst > worst)
			worst = s->worst;
	}
	if (x->shard) {
		/* a shard succeeds when its sets' results are in DIR, failed sets included: the finish
		 * step lists them and makes the run's exit code */
		if (!o->quiet)
			diag_emit(&x->d, DIAG_PLAIN, 0, 0,
				  "shard %u/%u of run %s: %zu of %zu set%s, %ld failed; results in %s "
				  "(--finish writes the index)",
				  o->shard_k, o->shard_n, o->run_id, b->nsets, x->total, x->total == 1 ? "" : "s",
				  failed, o->out);
		if (x->ret != EXIT_SYSTEM)
			x->ret = EXIT_OK;
		return;
	}
	if (!o->quiet)
		diag_emit(&x->d, DIAG_PLAIN, 0, 0, "%zu set%s, %ld failed, index in %s/index.html", b->nsets,
			  b->nsets == 1 ? "" : "s", failed, o->out);
	if (x->ret == EXIT_OK && failed)
		x->ret = EXIT_INPUT;
	if (x->ret == EXIT_OK && o->fail_on > 0 && worst >= o->fail_on)
		x->ret = EXIT_FINDINGS;
}

int batch_execute(const struct batch_opts *o)
{
	struct bx x;
	memset(&x, 0, sizeof x);
	x.o = o;
	diag_init(&x.d, NULL, -1);
	x.d.prefix = "iopsy batch";
	x.d.sink = o->co.sink;
	x.hd = x.d;
	x.hd.prefix = NULL;
	x.shard = o->shard_n > 0;
	x.ret = EXIT_OK;
	x.lock_fd = -1;
	int rc = bx_discover(&x);
	if (rc != EXIT_OK)
		return rc;
	x.started = iso_now();
	if ((rc = bx_lock(&x)) != EXIT_OK)
		return rc;
	x.run_id = o->run_id ? run_id_number(o->run_id) : new_run_id();
	buf_init(&x.hp);
	if (o->history)
		buf_adds(&x.hp, o->history);
	else
		buf_printf(&x.hp, "%s/history.sqlite", o->out);
	x.fingerprint = batch_fingerprint(&x.b);
	x.input_fp = input_fingerprint(&x.b);
	x.total = x.b.nsets;
	if ((rc = bx_markers(&x)) != EXIT_OK || (rc = bx_history(&x)) != EXIT_OK)
		return rc;
	double t0 = now_seconds();
	struct batch_loader loader;
	/* from here every child is in a group a signal to the run reaches, and the scratch folder
	 * goes on every exit path */
	proc_begin(&x.d);
	if (o->finish) {
		int lr = load_records(&x.b, o, x.run_id, &loader, &x.d);
		if (lr != EXIT_OK && x.ret == EXIT_OK)
			x.ret = lr;
	} else {
		batch_run(&x.b, o, x.run_id, x.h, setwork_run, &loader, &x.hd);
	}
	double seconds = now_seconds() - t0;
	if (o->finish) {
		int64_t t_start, t_now;
		char *now = iso_now();
		if (time_parse_iso(x.started, &t_start) == 0 && time_parse_iso(now, &t_now) == 0 && t_now >= t_start)
			seconds = (double)(t_now - t_start) / 1000;
		free(now);
	}
	struct run_info ri = {.started = x.started,
			      .input = o->input,
			      .input_kind = x.b.input_kind,
			      .history = x.hp.data,
			      .out = o->out,
			      .seconds = seconds};
	bx_publish(&x, &ri);
	proc_end();
	bx_account(&x);
	return bx_abort(&x, x.ret);
}
