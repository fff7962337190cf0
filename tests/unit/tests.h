/* SPDX-License-Identifier: MIT */
#ifndef GM_TESTS_H
#define GM_TESTS_H

#include <CUnit/CUnit.h>

#include "harness.h"

void add_mmu_suite(void);
void add_fault_suite(void);
void add_cpu_cost_suite(void);
void add_counter_suite(void);
void add_ce_suite(void);
void add_timing_suite(void);
void add_inject_suite(void);
void add_error_suite(void);
void add_slicing_suite(void);
void add_apps_suite(void);
void add_dispatch_suite(void);
void add_fidelity_suite(void);
void add_ga10x_mmu_suite(void);
void add_ga10x_faults_suite(void);
void add_ga10x_fifo_suite(void);
void add_trace_kernel_suite(void);
void add_ga10x_sm_suite(void);
void add_reset_suite(void);
void add_mem_suite(void);
void add_personality_suite(void);
void add_gh100_mmu_suite(void);
void add_gh100_fifo_suite(void);

#define VA_BASE		0x10000000000ull	/* 1 TiB: PD3 index 2 */

#endif
