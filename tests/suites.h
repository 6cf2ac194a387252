/* suites.h — the table of Check suites (one per module). */
#ifndef IOPSY_SUITES_H
#define IOPSY_SUITES_H
#include <check.h>
Suite *util_suite(void);
Suite *pdh_suite(void);
Suite *scenarios_suite(void);
Suite *detect_suite(void);
Suite *batch_suite(void);
Suite *sim_suite(void);
Suite *html_suite(void);
Suite *compare_suite(void);
#define SUITE_LIST util_suite, pdh_suite, detect_suite, batch_suite, html_suite, compare_suite, sim_suite, scenarios_suite
#endif
