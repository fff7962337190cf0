/* SPDX-License-Identifier: MIT */
/* GA10x personality, fault buffer, access-counter buffer, interrupt leaf: state. */
#ifndef GM_GA10X_FAULTS_H
#define GM_GA10X_FAULTS_H

#include <stdint.h>

struct ga10x_faults {
	uint32_t unused;
};

#endif /* GM_GA10X_FAULTS_H */
