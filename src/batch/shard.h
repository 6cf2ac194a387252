/* shard.h — one batch run split over several machines (doc/batch.md, "Sharded runs"): which
 * shard a set belongs to, the run id the shards and the finish step share, and the small marker
 * files they leave in the shared output folder DIR.
 *
 * Assignment: a set's stable id is the 64-bit FNV-1a hash (offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3) of its key — the sanitised, de-duplicated folder name, DIR/<key> — and
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
 * (link(2): exactly one wins; a .run of another run id is replaced); DIR/.shard-K-of-N — shard
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

/* A shard's start: makes DIR/.run for run id with n shards and started = now, or joins the one
 * another shard of this run made (*started is then that shard's start). ERR_USAGE when run id
 * was started with another number of shards (reason in why), ERR_IO when DIR/.run cannot be
 * written (errno). *started is the caller's to free. */
int run_marker_join(const char *out, const char *id, unsigned n, const char *now, char **started, struct buf *why);
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
/* Removes DIR/.run and every DIR/.shard-* (a run that is not sharded leaves none of a run before). */
void run_markers_remove(const char *out);

#endif
