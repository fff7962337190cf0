/* SPDX-License-Identifier: MIT */
/* The suites of the policy core's CUnit run (tests/unit/policy/). */
#ifndef POLICY_TESTS_H
#define POLICY_TESTS_H

void add_adaptive_tests(void);
void add_policy_tests(void);
void add_autouvm_tests(void);
void add_ariadne_tests(void);

#endif
