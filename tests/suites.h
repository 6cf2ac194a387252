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
Suite *util_suite(void);
Suite *pdh_suite(void);
Suite *scenarios_suite(void);
Suite *detect_suite(void);
Suite *batch_suite(void);
Suite *sim_suite(void);
Suite *html_suite(void);
Suite *compare_suite(void);
Suite *compare_scenarios_suite(void);
Suite *model_suite(void);
Suite *topology_suite(void);
Suite *iopath_suite(void);
Suite *hyperv_suite(void);
Suite *registry_suite(void);
Suite *rules_suite(void);
Suite *deliv_suite(void);
Suite *flow_suite(void);
Suite *reader_suite(void);
Suite *doc_suite(void);
Suite *actions_suite(void);
#define SUITE_LIST util_suite, actions_suite, pdh_suite, model_suite, topology_suite, iopath_suite, hyperv_suite, registry_suite, reader_suite, doc_suite, rules_suite, deliv_suite, flow_suite, detect_suite, batch_suite, html_suite, compare_suite, compare_scenarios_suite, sim_suite, scenarios_suite
#endif
