/*
 * check_libshm: the libshm suites (SMB ABI, writer path, trace buffer).
 */
#include "config.h"

#include <stdlib.h>

#include "shm_test.h"

int
main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(abi_suite());
	srunner_add_suite(sr, writer_suite());
	srunner_add_suite(sr, buffer_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
