/* SPDX-License-Identifier: MIT */
#include "tests.h"

void add_inject_suite(void)
{
}
