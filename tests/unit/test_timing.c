/* SPDX-License-Identifier: MIT */
#include "tests.h"

void add_timing_suite(void)
{
}
