/* runner.c — the fork-per-set runner (see runner.h). */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "result.h"

static int mkdir_p(const char *path)
{
	struct buf p;
	buf_init(&p);
	buf_adds(&p, path);
	for (char *c = p.data + 1; *c; c++) {
		if (*c == '/') {
			*c = '\0';
			if (mkdir(p.data, 0755) != 0 && errno != EEXIST) {
				buf_free(&p);
				return ERR_IO;
			}
			*c = '/';
		}
	}
	int rc = mkdir(p.data, 0755) != 0 && errno != EEXIST ? ERR_IO : 0;
	buf_free(&p);
	return rc;
}

static char *set_dir(const struct batch_opts *o, const struct bset *s)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", o->out, s->dir);
	return p.data;
}

static int load_record(void *ctx, const struct bset *s, struct bresult *out)
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

/* The worker: diagnostics of the set go to its messages.txt. Never returns. */
static void worker(const struct bset *s, const char *dir, const struct bprev *prev, const struct batch_opts *o,
		   uint64_t run_id, batch_work_fn work)
{
	struct buf mp;
	buf_init(&mp);
	buf_printf(&mp, "%s/messages.txt", dir);
	int fd = open(mp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	buf_free(&mp);
	signal(SIGINT, SIG_DFL);
	int rc = work(s, dir, prev, o, run_id);
	fflush(NULL);
	_exit(rc);
}

/* The parent's side of a finished worker. */
static void reap(struct bset *s, const char *dir, int status, uint64_t run_id)
{
	if (WIFSIGNALED(status)) {
		s->status = BS_FAILED;
		struct buf e;
		buf_init(&e);
		buf_printf(&e, "the analysis of this set crashed (signal %d); its messages are in messages.txt",
			   WTERMSIG(status));
		free(s->error);
		s->error = e.data;
		return;
	}
	struct bresult r;
	const char *why;
	if (result_read(dir, run_id, s->nfiles, &r, &why) < 0) {
		s->status = BS_FAILED;
		if (!s->error)
			s->error = xstrdup("the set's worker wrote no result");
		return;
	}
	bset_take_outcome(s, &r);
	s->has_record = true;
	bresult_free(&r);
}

void batch_run(struct batch *b, const struct batch_opts *o, uint64_t run_id, struct history *h, batch_work_fn work,
	       struct batch_loader *loader, struct diag *d)
{
	loader->out = o->out;
	loader->run_id = run_id;
	b->load = load_record;
	b->load_ctx = loader;
	int jobs = o->jobs > 0 ? o->jobs : 1;
	pid_t *pids = xcalloc((size_t)jobs, sizeof *pids);
	size_t *which = xcalloc((size_t)jobs, sizeof *which);
	double *t_start = xcalloc((size_t)jobs, sizeof *t_start);
	size_t next = 0, done = 0;
	bool tty = !o->quiet && o->status && isatty(2);
	double t0 = now_seconds();
	while (done < b->nsets) {
		/* start as many as allowed */
		for (int k = 0; k < jobs && next < b->nsets; k++) {
			if (pids[k] > 0)
				continue;
			struct bset *s = &b->sets[next];
			char *dir = set_dir(o, s);
			if (mkdir_p(dir) < 0) {
				s->status = BS_FAILED;
				s->error = xstrdup(strerror(errno));
				free(dir);
				next++;
				done++;
				continue;
			}
			struct bprev prev;
			memset(&prev, 0, sizeof prev);
			if (h)
				history_previous(h, s, &prev, d);
			fflush(NULL);
			pid_t pid = fork();
			if (pid == 0)
				worker(s, dir, &prev, o, run_id, work);
			bprev_free(&prev);
			if (pid < 0) {
				s->status = BS_FAILED;
				s->error = xstrdup(strerror(errno));
				done++;
			} else {
				pids[k] = pid;
				which[k] = next;
				t_start[k] = now_seconds();
			}
			free(dir);
			next++;
		}
		show_progress(o, tty, done, b->nsets, b, pids, which, (size_t)jobs, t0);
		int status;
		pid_t pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < jobs; k++) {
			if (pids[k] != pid)
				continue;
			struct bset *s = &b->sets[which[k]];
			char *dir = set_dir(o, s);
			s->seconds = now_seconds() - t_start[k];
			reap(s, dir, status, run_id);
			free(dir);
			pids[k] = 0;
			done++;
		}
	}
	if (tty)
		o->status(o->status_ctx, NULL);
	free(pids);
	free(which);
	free(t_start);
}
