/* SPDX-License-Identifier: MIT */
#ifndef EMBER_LIBEMBER_TESTS_H
#define EMBER_LIBEMBER_TESTS_H

/* The runner's table, without a device (test_runner.c). */
void add_runner_suite(void);

#endif /* EMBER_LIBEMBER_TESTS_H */
