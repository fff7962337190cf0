/* SPDX-License-Identifier: MIT */
#include "tests.h"

void add_ce_suite(void)
{
}
