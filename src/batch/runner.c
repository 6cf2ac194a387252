/* runner.c — the fork-per-set runner (see runner.h). */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "result.h"

static char *set_dir(const struct batch_opts *o, const struct bset *s)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", o->out, s->dir);
	return p.data;
}

int batch_load_record(void *ctx, const struct bset *s, struct bresult *out)
{
	const struct batch_loader *l = ctx;
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", l->out, s->dir);
	const char *why;
	int rc = result_read(p.data, l->run_id, s->nfiles, out, &why);
	buf_free(&p);
	return rc;
}

static void show_progress(const struct batch_opts *o, bool on, size_t done, size_t total, const struct batch *b,
			  const pid_t *pids, const size_t *which, size_t nrun, double t0)
{
	if (!on)
		return;
	struct buf l;
	buf_init(&l);
	double el = now_seconds() - t0;
	buf_printf(&l, "\riopsy batch: %zu/%zu sets done, %d:%02d elapsed", done, total, (int)el / 60, (int)el % 60);
	size_t shown = 0;
	for (size_t i = 0; i < nrun; i++) {
		if (pids[i] <= 0)
			continue;
		buf_adds(&l, shown ? ", " : "; running ");
		buf_add_text_escaped(&l, b->sets[which[i]].dir, strlen(b->sets[which[i]].dir));
		shown++;
	}
	buf_adds(&l, "\033[K");
	o->status(o->status_ctx, l.data);
	buf_free(&l);
}

/* The worker: its own process group, diagnostics of the set to its messages.txt, TMPDIR in the
 * run's scratch folder (gnuplot's files are removed with it). Frees dir, tmpdir and prev, which
 * the parent made for it. Never returns. */
static void worker(const struct bset *s, char *dir, char *tmpdir, struct bprev *prev, const struct batch_opts *o,
		   uint64_t run_id, batch_work_fn work)
{
	proc_child_setup();
	if (tmpdir)
		setenv("TMPDIR", tmpdir, 1);
	struct buf mp;
	buf_init(&mp);
	buf_printf(&mp, "%s/messages.txt", dir);
	int fd = open(mp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	buf_free(&mp);
	int rc = work(s, dir, prev, o, run_id);
	bprev_free(prev);
	free(dir);
	free(tmpdir);
	fflush(NULL);
	_exit(rc);
}

/* What the set's folder holds of an earlier run: this run writes each again or it stays away. */
static const char *const set_outputs[] = {RESULT_FILE, "report.html", "report.json", "report.txt", "report.pdf", "chart.png",
					  "messages.txt"};

void batch_remove_outputs(const char *dir)
{
	for (size_t i = 0; i < sizeof set_outputs / sizeof set_outputs[0]; i++) {
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s", dir, set_outputs[i]);
		unlink(p.data); /* a folder of that name stays: writing the report over it fails, exit 4 */
		buf_free(&p);
	}
}

static void fail_set(struct bset *s, bool system, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_set(struct bset *s, bool system, const char *fmt, ...)
{
	s->status = BS_FAILED;
	s->system_error = system;
	s->has_record = false;
	struct buf e;
	buf_init(&e);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&e, fmt, ap);
	va_end(ap);
	free(s->error);
	s->error = e.data;
}

/* The parent's side of a finished worker: its result counts only when the record is this run's
 * and the exit status agrees with it; anything else fails the set. */
static void reap(struct bset *s, const char *dir, int status, uint64_t run_id)
{
	if (WIFSIGNALED(status)) {
		fail_set(s, false, "the analysis of this set crashed (signal %d); its messages are in messages.txt",
			 WTERMSIG(status));
		return;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	struct bresult r;
	const char *why = "";
	int rr = result_read(dir, run_id, s->nfiles, &r, &why);
	if (rr == 0 && (code == 0 || code == 1) && (code == 0) == (r.status == BS_OK)) {
		bset_take_outcome(s, &r);
		s->has_record = true;
		bresult_free(&r);
		return;
	}
	if (rr == 0)
		bresult_free(&r);
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", dir, RESULT_FILE);
	unlink(p.data); /* not a result of this run's: nothing may read it later */
	buf_free(&p);
	if (code == EXIT_SYSTEM)
		fail_set(s, true, "the set's worker stopped with exit status 4 (out of memory, or its folder not "
				  "writable) before its result was complete; its messages are in messages.txt");
	else if (rr == ERR_FORMAT)
		fail_set(s, false, "the set's result record is not valid (%s); its messages are in messages.txt", why);
	else if (rr < 0)
		fail_set(s, false, "the set's worker wrote no result (exit status %d); its messages are in messages.txt", code);
	else
		fail_set(s, false, "the set's worker ended with exit status %d; its messages are in messages.txt", code);
}

struct slot {
	pid_t pid;                /* 0 = free */
	size_t set;
	double start, deadline;
	char *tmpdir;             /* in the scratch folder, NULL when none */
};

static void free_slot(struct slot *sl)
{
	if (sl->tmpdir) {
		proc_rmtree(sl->tmpdir);
		free(sl->tmpdir);
	}
	memset(sl, 0, sizeof *sl);
}

void batch_run(struct batch *b, const struct batch_opts *o, uint64_t run_id, struct history *h, batch_work_fn work,
	       struct batch_loader *loader, struct diag *d)
{
	loader->out = o->out;
	loader->run_id = run_id;
	b->load = batch_load_record;
	b->load_ctx = loader;
	int jobs = o->jobs > 0 ? o->jobs : 1;
	int timeout_s = o->set_timeout_s > 0 ? o->set_timeout_s : BATCH_SET_TIMEOUT_S;
	struct slot *slots = xcalloc((size_t)jobs, sizeof *slots);
	pid_t *pids = xcalloc((size_t)jobs, sizeof *pids);
	size_t *which = xcalloc((size_t)jobs, sizeof *which);
	size_t next = 0, done = 0;
	bool tty = !o->quiet && o->status && isatty(2);
	double t0 = now_seconds();
	while (done < b->nsets) {
		/* start as many as allowed */
		for (int k = 0; k < jobs && next < b->nsets; k++) {
			if (slots[k].pid > 0)
				continue;
			size_t i = next++;
			struct bset *s = &b->sets[i];
			char *dir = set_dir(o, s);
			if (dir_make(dir) < 0) {
				fail_set(s, true, "cannot create the set's folder %s: %s", dir, strerror(errno));
				free(dir);
				done++;
				continue;
			}
			batch_remove_outputs(dir);
			struct bprev prev;
			memset(&prev, 0, sizeof prev);
			if (h)
				history_previous(h, s, o->run_id, &prev, d); /* failed: prev.unavailable */
			else if (b->history_unavailable)
				prev.unavailable = true;
			char *tmpdir = NULL;
			if (proc_scratch()) {
				struct buf t;
				buf_init(&t);
				buf_printf(&t, "%s/%zu", proc_scratch(), i);
				if (mkdir(t.data, 0700) == 0)
					tmpdir = t.data;
				else
					buf_free(&t);
			}
			fflush(NULL);
			pid_t pid = fork();
			if (pid == 0)
				worker(s, dir, tmpdir, &prev, o, run_id, work);
			bprev_free(&prev);
			if (pid < 0) {
				fail_set(s, true, "cannot start the set's worker: %s", strerror(errno));
				if (tmpdir) {
					proc_rmtree(tmpdir);
					free(tmpdir);
				}
				done++;
			} else {
				proc_adopt(pid);
				slots[k] = (struct slot){.pid = pid, .set = i, .start = now_seconds(), .tmpdir = tmpdir};
				slots[k].deadline = slots[k].start + timeout_s;
			}
			free(dir);
		}
		for (int k = 0; k < jobs; k++) {
			pids[k] = slots[k].pid;
			which[k] = slots[k].set;
		}
		show_progress(o, tty, done, b->nsets, b, pids, which, (size_t)jobs, t0);
		double nearest = 0;
		for (int k = 0; k < jobs; k++)
			if (slots[k].pid > 0 && (nearest == 0 || slots[k].deadline < nearest))
				nearest = slots[k].deadline;
		if (nearest == 0)
			continue; /* nothing running: every remaining set failed before its fork */
		int status;
		pid_t pid = proc_wait_any(nearest, &status);
		if (pid < 0)
			break;
		for (int k = 0; k < jobs; k++) {
			struct slot *sl = &slots[k];
			if (sl->pid <= 0)
				continue;
			struct bset *s = &b->sets[sl->set];
			char *dir = set_dir(o, s);
			if (sl->pid == pid) {
				s->seconds = now_seconds() - sl->start;
				/* whatever the worker left in its group (a Chromium helper, a gnuplot) goes with it:
				 * the group's id cannot be reused while a member is alive */
				kill(-pid, SIGKILL);
				reap(s, dir, status, run_id);
			} else if (now_seconds() >= sl->deadline) {
				int st;
				proc_kill(sl->pid, &st);
				s->seconds = now_seconds() - sl->start;
				fail_set(s, false, "the analysis of this set did not finish within %d s (--set-timeout) and was "
						   "stopped; its messages are in messages.txt", timeout_s);
			} else {
				free(dir);
				continue;
			}
			free(dir);
			free_slot(sl);
			done++;
		}
	}
	/* (only if waiting failed: no set is ever left looking analysed when it was not) */
	for (size_t i = 0; i < b->nsets; i++)
		if (b->sets[i].status == BS_PENDING)
			fail_set(&b->sets[i], true, "the set was not run to its end (waiting for its worker failed)");
	if (tty)
		o->status(o->status_ctx, NULL);
	free(slots);
	free(pids);
	free(which);
}
