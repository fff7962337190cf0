/* SPDX-License-Identifier: MIT */
/* GA10x personality, MMU VER2 walk and TLB (owner of include/ga10x/mmu_v2.h): state. */
#ifndef GM_GA10X_MMU_H
#define GM_GA10X_MMU_H

#include <stdint.h>

struct ga10x_mmu {
	uint32_t unused;
};

#endif /* GM_GA10X_MMU_H */
