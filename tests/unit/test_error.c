/* SPDX-License-Identifier: MIT */
#include "tests.h"

void add_error_suite(void)
{
}
