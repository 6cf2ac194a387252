/* suites.h — the table of Check suites (one per module). */
#ifndef IOPSY_SUITES_H
#define IOPSY_SUITES_H
#include <check.h>

#include "util.h"

/* A diagnostics channel for tests: messages collected in msgs (caller frees with tdiag_free). */
struct tdiag {
	struct diag d;
	struct buf msgs;
};
static inline struct diag *tdiag_init(struct tdiag *t, const char *file)
{
	buf_init(&t->msgs);
	diag_init(&t->d, file, -1);
	t->d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &t->msgs};
	return &t->d;
}
static inline void tdiag_free(struct tdiag *t) { buf_free(&t->msgs); }
/* A diag (caller's storage d) whose messages are appended to b, one per line. */
static inline struct diag *diag_into(struct diag *d, struct buf *b)
{
	diag_init(d, NULL, -1);
	d->sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = b};
	return d;
}
#define DIAG_INTO(b) diag_into(&(struct diag){0}, (b))
/* The suites, in the order a full run takes them (tests/runner.c). Each X(NAME) is a function
   NAME_suite() creating the Check suite named NAME. */
#define SUITES(X) X(util) X(actions) X(pdh) X(model) X(topology) X(iopath) X(hyperv) X(registry) X(reader) X(doc) X(rules) X(deliv) X(flow) X(detect) X(batch) X(html) X(compare) X(compare_scenarios) X(sim) X(scenarios)
#define SUITE_DECL(n) Suite *n##_suite(void);
SUITES(SUITE_DECL)
#undef SUITE_DECL

/* The shard of a run (tests/runner.c --shard K/N; 0/1 when not given). The simulator suites add
   their tests through the two macros below: a loop test's iterations are cut into N contiguous
   ranges and this run takes range K; the plain tests are dealt round-robin (the i-th plain test
   added runs in shard i mod N). So N runs with
   K = 0..N-1 together run every test once, and `make check` runs them side by side. */
extern int test_shard_k, test_shard_n, test_shard_seq;
/* --one-seed (tests/runner.c; the sanitizer tier): a simulator test that loops over scenarios x
   seeds runs each scenario with one seed, the seed rotating with the scenario's index, so every
   scenario and every seed still runs under the sanitizers, in a third of the time.
   --other-seeds (the plain tier in CI, beside the sanitizer tier): every seed but that one, so the
   two tiers together run each scenario and seed once. Without either, every seed runs. */
extern int test_one_seed; /* 1: --one-seed, -1: --other-seeds, 0: every seed */
static inline int test_seed_skipped(int scenario, int seed, int nseed)
{
	if (test_one_seed > 0)
		return seed != scenario % nseed;
	return test_one_seed < 0 && seed == scenario % nseed;
}
#define tcase_add_loop_test_sharded(tc, tf, s, e)                                                   \
	do {                                                                                        \
		int n_ = (e) - (s);                                                                 \
		int lo_ = (s) + n_ * test_shard_k / test_shard_n;                                   \
		int hi_ = (s) + n_ * (test_shard_k + 1) / test_shard_n;                             \
		if (lo_ < hi_)                                                                      \
			tcase_add_loop_test(tc, tf, lo_, hi_);                                       \
	} while (0)
#define tcase_add_test_sharded(tc, tf)                                                              \
	do {                                                                                        \
		if (test_shard_seq++ % test_shard_n == test_shard_k)                                \
			tcase_add_test(tc, tf);                                                      \
	} while (0)
#endif
