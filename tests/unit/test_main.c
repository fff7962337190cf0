/* SPDX-License-Identifier: MIT */
#include <CUnit/Basic.h>

#include "tests.h"

int main(void)
{
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	add_mmu_suite();
	add_fault_suite();
	add_cpu_cost_suite();
	add_counter_suite();
	add_ce_suite();
	add_timing_suite();
	add_inject_suite();
	add_error_suite();
	add_slicing_suite();
	add_apps_suite();
	add_dispatch_suite();
	add_fidelity_suite();
	add_ga10x_mmu_suite();
	add_ga10x_faults_suite();
	add_ga10x_fifo_suite();
	add_trace_kernel_suite();
	add_ga10x_sm_suite();
	add_reset_suite();
	add_mem_suite();
	add_personality_suite();
	add_gh100_mmu_suite();
	add_gh100_fifo_suite();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
