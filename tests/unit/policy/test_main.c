/* SPDX-License-Identifier: MIT */
/*
 * The CUnit run of policy/, every file of which is compiled here
 * unchanged, as in ember.ko. This file is the host the core asks for: it
 * provides ember_policy_zalloc()/ember_policy_free().
 */
#include <stdlib.h>

#include <CUnit/Basic.h>

#include "ember_policy.h"
#include "policy_tests.h"

void *ember_policy_zalloc(size_t size)
{
	return calloc(1, size);
}

void ember_policy_free(void *p)
{
	free(p);
}

int main(void)
{
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	add_adaptive_tests();
	add_policy_tests();
	add_autouvm_tests();
	add_ariadne_tests();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
