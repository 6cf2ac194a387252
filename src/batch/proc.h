/* proc.h — the child processes of a batch run and what must not outlive it. Every child (a set's
 * worker, sendmail, the SMTP client) runs in a process group of its own that is registered here,
 * so a signal to the run reaches every one of them and their children (gnuplot); waits have a
 * total deadline after which the group is killed; the run's scratch folder (the workers' TMPDIR,
 * where gnuplot writes) is removed on every exit path, signals included. */
#ifndef IOPSY_PROC_H
#define IOPSY_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util.h"

/* Creates the run's scratch folder ($TMPDIR or /tmp, "iopsy-batch-XXXXXX") and installs the
 * handlers of SIGINT, SIGTERM and SIGHUP: forward the signal to every registered group, give
 * them 2 s to end (then SIGKILL), remove the scratch folder and the temporary outputs
 * (afile_cleanup_all), and end the run by the same signal. Returns 0 or ERR_IO (message through
 * d; the run goes on without a scratch folder). */
int proc_begin(struct diag *d);
/* The scratch folder (borrowed; NULL when none). */
const char *proc_scratch(void);
/* Removes the scratch folder and restores the signal handlers the run found. */
void proc_end(void);
/* Removes path and everything under it (no symlinks followed). Async-signal-safe. */
void proc_rmtree(const char *path);

/* In a child just forked: its own process group, the default signal dispositions (with the
 * temporary outputs removed on SIGINT/SIGTERM/SIGHUP), none of the parent's registrations, and
 * SIGTERM when the parent dies. */
void proc_child_setup(void);
/* In the parent, after fork: puts pid in a group of its own (as the child does: whichever runs
 * first) and registers it for signal forwarding. */
void proc_adopt(pid_t pid);

/* Waits for the child pid until the monotonic time deadline (now_seconds()); at the deadline
 * its group gets SIGTERM, then SIGKILL after 1 s. Returns 0 with *status set, or 1 when the
 * deadline passed (*status is then the killed child's). The child is unregistered. */
int proc_wait(pid_t pid, double deadline, int *status);
/* Waits for any registered child until deadline: returns its pid with *status set, 0 when the
 * deadline passed first, -1 when there is no child. */
pid_t proc_wait_any(double deadline, int *status);
/* Kills the group of pid (SIGKILL) and reaps it. */
void proc_kill(pid_t pid, int *status);

/* Runs argv (no shell; argv[0] looked up in PATH) with the file open as fd on its standard input
 * (from its start), its output to our stderr, in a group of its own, all within deadline: at
 * the deadline its group is killed. Returns 0 when it read the whole file and exited 0;
 * otherwise ERR_IO with the reason appended to why (caller-owned). */
int proc_run_fd(char *const argv[], int fd, double deadline, struct buf *why);
/* Runs fn(ctx, out) in a child process (its group registered), fn's return value and text
 * coming back through a pipe, then tidy(ctx) (NULL = none), which the parent waits for 2 s at
 * most (e.g. an SMTP QUIT after the message was accepted). All within deadline: returns fn's
 * return value (0 or a negative ERR_*), or ERR_IO with "did not finish within the mail deadline
 * ..." appended to out (the caller's buffer) when fn had not answered by then. */
int proc_call(int (*fn)(void *ctx, struct buf *out), void (*tidy)(void *ctx), void *ctx, double deadline,
	      struct buf *out);

#endif
