/* shard.h — one batch run split over several machines (doc/batch.md, "Sharded runs"): which
 * shard a set belongs to, the run id the shards and the finish step share, and the small marker
 * files they leave in the shared output folder DIR.
 *
 * Assignment: a set's stable id is the 64-bit FNV-1a hash (offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3) of its key — the sanitised folder name made unique from the set's own
 * name, DIR/<key> — and
 * the set is in shard (id mod N), counted from 0 as Slurm's SLURM_ARRAY_TASK_ID and Kubernetes'
 * JOB_COMPLETION_INDEX count. Every shard discovers the whole input, so every shard computes the
 * same keys; a set is in exactly one shard.
 *
 * Run id: the text given with --run-id (1 to 128 bytes of A-Z a-z 0-9 . _ : + @ -, not starting
 * with '-'); a set's result record carries FNV-1a 64 of "run:" followed by that text, so a record
 * of another run is refused, whatever DIR held before.
 *
 * Markers (text, one "key value" per line, written to a temporary name and then linked or
 * renamed into place): DIR/.run — the run id, the number of shards and when the first shard
 * started (the run's start in the history and the index), made by whichever shard starts first
 * (link(2): exactly one wins; a .run of another run id is replaced only once that run's finish
 * step has marked it finished); DIR/.shard-K-of-N — shard
 * K's end: the run id, a fingerprint of the input it saw, its set count. Names starting with '.'
 * are never a set's folder. */
#ifndef IOPSY_SHARD_H
#define IOPSY_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batchres.h"
#include "util.h"

#define SHARD_MAX 100000
#define RUN_ID_MAX 128
#define RUN_MARKER ".run"
#define RUN_LOCK ".lock"

uint64_t shard_fnv1a64(const void *p, size_t n);
/* The shard (0 .. n-1) of the set whose key is key. */
unsigned shard_of(const char *key, unsigned n);
/* "K/N" with 0 <= K < N <= SHARD_MAX. 0 or ERR_USAGE. */
int shard_parse(const char *arg, unsigned *k, unsigned *n);
bool run_id_valid(const char *id);
/* The number a result record of run id carries. */
uint64_t run_id_number(const char *id);
/* A fingerprint of what the run works on: every set's key, name and files with their roles. */
uint64_t batch_fingerprint(const struct batch *b);
/* A digest of what a set's worker reads: its key, name and files with their roles, sizes and
 * modification times (never 0). A shard's record carries it; the finish step counts the record
 * only when the set's files give the same digest then (nothing added, removed or rewritten). */
uint64_t batch_set_digest(const struct bset *s);

/* A shard's start: makes DIR/.run for run id with n shards and started = now, or joins the one
 * another shard of this run made (*started is then that shard's start). A finished run's marker
 * is replaced; another run's that has not finished never is. ERR_USAGE when run id was started
 * with another number of shards, or DIR holds another run that has not finished (reason in why),
 * ERR_IO when DIR/.run cannot be written (errno). *started is the caller's to free. */
int run_marker_join(const char *out, const char *id, unsigned n, const char *now, char **started, struct buf *why);
/* Marks DIR/.run of run id finished (a "finished TIME" line): a shard of another run may then
 * take the folder. 0, or ERR_IO when DIR/.run is not run id's or cannot be written. */
int run_marker_finish(const char *out, const char *id, const char *now);
/* DIR/.run of run id: 0 with *n and *started (caller frees) filled, ERR_IO when there is none
 * (or it is another run's). */
int run_marker_read(const char *out, const char *id, unsigned *n, char **started);
/* The run id of OUT's run marker (free it), NULL when there is none or it cannot be read. */
char *run_marker_id(const char *out);
/* DIR/.shard-K-of-N for shard k of n of run id. 0 or ERR_IO (errno). */
int shard_marker_write(const char *out, const char *id, unsigned k, unsigned n, uint64_t fingerprint, size_t nsets);
/* 0 when shard k of n of run id ended (its input's fingerprint in *fingerprint), ERR_IO when
 * it did not (no marker, or another run's). */
int shard_marker_read(const char *out, const char *id, unsigned k, unsigned n, uint64_t *fingerprint);
/* Takes DIR/.lock (flock(2); NFS maps it to a POSIX lock of the whole file) for this run's
 * life, never waiting: exclusive for a one-machine run or a finish step, shared for a shard (the
 * shards of a run work in DIR at once; a one-machine run or a finish step never works beside
 * them). The holder of the exclusive lock writes who it is into the file (pid, host, start, run
 * id), which the refusal quotes. Returns 0 with *fd (the lock: keep it open; it goes with the
 * process), 1 when the file system has no locks (NFS mounted nolock: errno says why; the run
 * goes on unguarded), ERR_LIMIT when another run holds it (the reason in why), ERR_IO when the
 * file cannot be made (errno). The file stays in DIR (removing it would let a third run lock
 * another). */
int run_lock(const char *out, bool exclusive, const char *id, const char *now, int *fd, struct buf *why);
/* Removes DIR/.run and every DIR/.shard-* (a run that is not sharded leaves none of a run before). */
void run_markers_remove(const char *out);

#endif
