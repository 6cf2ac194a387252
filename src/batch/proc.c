/* proc.c — child process groups, deadlines, signal forwarding and the scratch folder of a batch
 * run (see proc.h). What runs in a signal handler here is async-signal-safe: kill, waitpid,
 * nanosleep, clock_gettime, openat/getdents64/unlinkat/close, and afile_cleanup_all's unlinks. */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Process groups of the live children (0 = free slot): read by the signal handler. */
#define MAX_GROUPS 512
static volatile sig_atomic_t groups[MAX_GROUPS];
static pid_t run_pid;                 /* the parent, for children to notice its death */
static int chld_pipe[2] = {-1, -1};   /* SIGCHLD wakes proc_wait* through this */
static char scratch[4096];            /* the scratch folder, "" when none */
static bool handlers_on;
static struct sigaction old_int, old_term, old_hup, old_chld;

static void group_add(pid_t g)
{
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == g)
			return;
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == 0) {
			groups[i] = g;
			return;
		}
}

static void group_remove(pid_t g)
{
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == g)
			groups[i] = 0;
}

static bool group_known(pid_t g)
{
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == g)
			return true;
	return false;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- removing a tree, async-signal-safe ---- */

static void rm_at(int dirfd, const char *name, int depth)
{
	if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 16)
		return;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	_Alignas(struct dirent64) char buf[4096];
	/* entries removed while listing may shift the rest: list again until a pass removes nothing */
	for (int pass = 0; pass < 64; pass++) {
		bool removed = false;
		lseek(fd, 0, SEEK_SET);
		long n;
		while ((n = (long)getdents64(fd, buf, sizeof buf)) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);
				off += e->d_reclen;
				if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
					continue;
				rm_at(fd, e->d_name, depth + 1);
				removed = true;
			}
		}
		if (!removed)
			break;
	}
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

void proc_rmtree(const char *path)
{
	if (path && *path)
		rm_at(AT_FDCWD, path, 0);
}

/* ---- signals ---- */

static void on_chld(int sig)
{
	(void)sig;
	int e = errno;
	if (chld_pipe[1] >= 0) {
		ssize_t w = write(chld_pipe[1], "", 1);
		(void)w;
	}
	errno = e;
}

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] > 0)
			kill(-(pid_t)groups[i], sig);
	double until = mono() + 2;
	for (;;) {
		bool alive = false;
		for (int i = 0; i < MAX_GROUPS; i++) {
			pid_t g = (pid_t)groups[i];
			if (g <= 0)
				continue;
			pid_t w = waitpid(g, NULL, WNOHANG);
			if (w == 0)
				alive = true;
		}
		if (!alive || mono() > until)
			break;
		nap(0.02);
	}
	/* whatever is left of each group (a worker's gnuplot included) */
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] > 0) {
			kill(-(pid_t)groups[i], SIGKILL);
			waitpid((pid_t)groups[i], NULL, 0);
		}
	nap(0.05);
	if (scratch[0]) {
		proc_rmtree(scratch);
		proc_rmtree(scratch);
	}
	afile_cleanup_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void init_chld(void)
{
	if (chld_pipe[0] >= 0)
		return;
	run_pid = getpid();
	if (pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		chld_pipe[0] = chld_pipe[1] = -1;
		return;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_chld);
}

#define SCRATCH_OWNER ".owner"

/* The start time of process pid in clock ticks since boot (/proc/PID/stat field 22), 0 when
 * unknown: with the pid it names one process, never a later one given the same pid. */
static unsigned long long proc_start_time(pid_t pid)
{
	char p[64], b[1024];
	snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	const char *c = strrchr(b, ')'); /* the command may hold spaces and ')' */
	if (!c)
		return 0;
	int field = 2;
	for (c++; *c && field < 22; c++)
		if (*c == ' ')
			field++;
	return strtoull(c, NULL, 10);
}

/* Whether the run that wrote owner ("PID START HOST") is gone: no such process, or another process
 * with its pid. A folder of another user, or without an owner file, is not ours to judge. */
static bool owner_gone(const char *dir)
{
	char p[4400], b[128];
	int k = snprintf(p, sizeof p, "%s/%s", dir, SCRATCH_OWNER);
	if (k < 0 || (size_t)k >= sizeof p)
		return false;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return false;
	b[n] = '\0';
	char *e;
	long pid = strtol(b, &e, 10);
	unsigned long long start = strtoull(e, &e, 10);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	while (*e == ' ')
		e++;
	size_t hl = strcspn(e, "\n");
	if (pid <= 0 || hl != strlen(host) || strncmp(e, host, hl) != 0)
		return false; /* another machine's run (a TMPDIR on a shared file system): not ours to judge */
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return true;
	unsigned long long now = proc_start_time((pid_t)pid);
	return start && now && now != start;
}

/* Removes the scratch folders of earlier runs whose process is gone (SIGKILL leaves them):
 * iopsy-batch-* in tmp, this user's, with an owner file naming a dead run. */
static void remove_stale_scratch(const char *tmp)
{
	DIR *dh = opendir(tmp);
	if (!dh)
		return;
	struct dirent *e;
	while ((e = readdir(dh)) != NULL) {
		if (strncmp(e->d_name, "iopsy-batch-", 12) != 0)
			continue;
		char p[4200];
		int k = snprintf(p, sizeof p, "%s/%s", tmp, e->d_name);
		struct stat st;
		if (k < 0 || (size_t)k >= sizeof p || lstat(p, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (owner_gone(p))
			proc_rmtree(p);
	}
	closedir(dh);
}

int proc_begin(struct diag *d)
{
	init_chld();
	int rc = 0;
	const char *tmp = getenv("TMPDIR");
	const char *where = tmp && *tmp == '/' ? tmp : "/tmp";
	remove_stale_scratch(where);
	int k = snprintf(scratch, sizeof scratch, "%s/iopsy-batch-XXXXXX", where);
	if (k < 0 || (size_t)k >= sizeof scratch || !mkdtemp(scratch)) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "cannot create a temporary folder in %s: %s; the sets use TMPDIR directly",
			  where, strerror(errno));
		scratch[0] = '\0';
		rc = ERR_IO;
	} else {
		/* who owns it, for the next run to tell a dead run's folder from a live one's */
		char p[4400], b[384], host[256] = "";
		gethostname(host, sizeof host - 1);
		snprintf(p, sizeof p, "%s/%s", scratch, SCRATCH_OWNER);
		int n = snprintf(b, sizeof b, "%ld %llu %s\n", (long)getpid(), proc_start_time(getpid()), host);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			if (write(fd, b, (size_t)n) != n)
				unlink(p);
			close(fd);
		}
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	handlers_on = true;
	return rc;
}

const char *proc_scratch(void)
{
	return scratch[0] ? scratch : NULL;
}

void proc_end(void)
{
	if (handlers_on) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		handlers_on = false;
	}
	if (scratch[0])
		proc_rmtree(scratch);
	scratch[0] = '\0';
}

/* The child's handler: its own temporary outputs, then the default action. */
static void on_child_signal(int sig)
{
	afile_cleanup_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

void proc_child_setup(void)
{
	setpgid(0, 0);
	for (int i = 0; i < MAX_GROUPS; i++)
		groups[i] = 0;
	if (chld_pipe[0] >= 0) {
		close(chld_pipe[0]);
		close(chld_pipe[1]);
		chld_pipe[0] = chld_pipe[1] = -1;
	}
	scratch[0] = '\0';
	handlers_on = false;
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, on_child_signal);
	signal(SIGTERM, on_child_signal);
	signal(SIGHUP, on_child_signal);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* a parent killed with SIGKILL cannot forward anything: die with it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (run_pid && getppid() != run_pid)
		_exit(127);
	run_pid = 0;
}

void proc_adopt(pid_t pid)
{
	init_chld();
	setpgid(pid, pid); /* fails harmlessly when the child did it first or has exec'd */
	group_add(pid);
}

/* Sleeps until a child may have changed state or at most s seconds. */
static void wait_event(double s)
{
	if (s <= 0)
		return;
	if (s > 0.2)
		s = 0.2; /* a missed wake-up costs at most this */
	if (chld_pipe[0] < 0) {
		nap(s < 0.01 ? s : 0.01);
		return;
	}
	struct pollfd p = {.fd = chld_pipe[0], .events = POLLIN};
	poll(&p, 1, (int)(s * 1000) + 1);
	char junk[64];
	while (read(chld_pipe[0], junk, sizeof junk) > 0)
		;
}

void proc_kill(pid_t pid, int *status)
{
	kill(-pid, SIGTERM);
	double until = mono() + 1;
	int st = 0;
	pid_t w;
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 && mono() < until)
		wait_event(until - mono());
	kill(-pid, SIGKILL); /* the rest of its group too */
	if (w == 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	group_remove(pid);
	if (status)
		*status = st;
}

int proc_wait(pid_t pid, double deadline, int *status)
{
	for (;;) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR)) {
			/* (what it left running in its group stays: a sendmail may deliver in the background) */
			group_remove(pid);
			*status = w == pid ? st : 127 << 8;
			return 0;
		}
		double left = deadline - now_seconds();
		if (left <= 0) {
			proc_kill(pid, status);
			return 1;
		}
		wait_event(left);
	}
}

pid_t proc_wait_any(double deadline, int *status)
{
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);
		if (w > 0) {
			if (!group_known(w))
				continue; /* not one of ours */
			group_remove(w);
			kill(-w, SIGKILL);
			*status = st;
			return w;
		}
		if (w < 0 && errno == ECHILD)
			return -1;
		double left = deadline - now_seconds();
		if (left <= 0)
			return 0;
		wait_event(left);
	}
}

/* ---- running a program with a file on its stdin ---- */

int proc_run_fd(char *const argv[], int fd, double deadline, struct buf *why)
{
	int ex[2];
	if (pipe2(ex, O_CLOEXEC) != 0) {
		buf_printf(why, "pipe: %s", strerror(errno));
		return ERR_IO;
	}
	struct stat st0;
	off_t size = fstat(fd, &st0) == 0 ? st0.st_size : -1;
	lseek(fd, 0, SEEK_SET);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		proc_child_setup();
		if (dup2(fd, 0) >= 0)
			execvp(argv[0], argv);
		int e = errno;
		ssize_t w = write(ex[1], &e, sizeof e);
		(void)w;
		_exit(127);
	}
	close(ex[1]);
	if (pid < 0) {
		buf_printf(why, "fork: %s", strerror(errno));
		close(ex[0]);
		return ERR_IO;
	}
	proc_adopt(pid);
	int st = 0;
	bool killed = proc_wait(pid, deadline, &st) != 0;
	int child_errno = 0;
	ssize_t r;
	do
		r = read(ex[0], &child_errno, sizeof child_errno);
	while (r < 0 && errno == EINTR);
	close(ex[0]);
	/* the child shared our file offset: how far it read */
	off_t read_to = lseek(fd, 0, SEEK_CUR);
	if (r == (ssize_t)sizeof child_errno) {
		buf_printf(why, "cannot run '%s': %s", argv[0], strerror(child_errno));
		return ERR_IO;
	}
	if (killed) {
		buf_printf(why, "'%s' did not %s within the mail deadline and was stopped", argv[0],
			   read_to < size ? "read the message" : "finish");
		return ERR_IO;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		buf_printf(why, "'%s' failed (%s %d)", argv[0], WIFEXITED(st) ? "exit status" : "signal",
			   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return ERR_IO;
	}
	if (size >= 0 && read_to >= 0 && read_to < size) {
		buf_printf(why, "'%s' exited without reading the whole message (%lld of %lld bytes)", argv[0],
			   (long long)read_to, (long long)size);
		return ERR_IO;
	}
	return 0;
}

/* ---- a function in a child, with a deadline ---- */

int proc_call(int (*fn)(void *ctx, struct buf *out), void (*tidy)(void *ctx), void *ctx, double deadline,
	      struct buf *out)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		buf_printf(out, "pipe: %s", strerror(errno));
		return ERR_IO;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		proc_child_setup();
		close(p[0]);
		struct buf b;
		buf_init(&b);
		int rc = fn(ctx, &b);
		/* the answer first, then whatever fn left to tidy: the parent does not wait for that */
		int32_t head[2] = {rc, (int32_t)b.len};
		ssize_t w = write(p[1], head, sizeof head);
		for (size_t off = 0; w >= 0 && off < b.len; off += (size_t)w)
			w = write(p[1], b.data + off, b.len - off);
		close(p[1]);
		if (tidy)
			tidy(ctx);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		buf_printf(out, "fork: %s", strerror(errno));
		return ERR_IO;
	}
	proc_adopt(pid);
	struct buf got;
	buf_init(&got);
	bool eof = false;
	while (!eof) {
		double left = deadline - now_seconds();
		if (left <= 0)
			break;
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		int k = poll(&pf, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
		if (k < 0 && errno != EINTR)
			break;
		if (k <= 0)
			continue;
		char chunk[4096];
		ssize_t r = read(p[0], chunk, sizeof chunk);
		if (r > 0)
			buf_add(&got, chunk, (size_t)r);
		else if (r == 0 || errno != EINTR)
			eof = true;
		int32_t head[2];
		if (got.len >= sizeof head) {
			memcpy(head, got.data, sizeof head);
			if (head[1] >= 0 && got.len >= sizeof head + (size_t)head[1])
				break; /* the whole answer */
		}
	}
	close(p[0]);
	int32_t head[2] = {ERR_IO, -1};
	if (got.len >= sizeof head)
		memcpy(head, got.data, sizeof head);
	bool answered = head[1] >= 0 && got.len >= sizeof head + (size_t)head[1];
	/* a child that answered may still be saying goodbye (SMTP QUIT): a little longer, not more */
	double grace = now_seconds() + 2;
	int st;
	proc_wait(pid, answered && grace < deadline ? grace : deadline, &st);
	int rc;
	if (answered) {
		buf_add(out, got.data + sizeof head, (size_t)head[1]);
		rc = head[0];
	} else {
		rc = ERR_IO;
		buf_adds(out, "did not finish within the mail deadline and was stopped");
	}
	buf_free(&got);
	return rc;
}
