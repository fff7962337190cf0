/* SPDX-License-Identifier: MIT */
#include "tests.h"

void add_counter_suite(void)
{
}
