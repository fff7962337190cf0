/* SPDX-License-Identifier: MIT */
#include "tests.h"

void add_fault_suite(void)
{
}
