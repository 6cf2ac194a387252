/* runner.c — runs every Check suite listed in the table below. */
#include <check.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	Suite *(*const suites[])(void) = {SUITE_LIST};
	SRunner *sr = srunner_create(NULL);
	for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
