/* SPDX-License-Identifier: MIT */
/* GA10x personality, GPFIFO channels, host c56f and CE c7b5 methods: state. */
#ifndef GM_GA10X_FIFO_H
#define GM_GA10X_FIFO_H

#include <stdint.h>

struct ga10x_fifo {
	uint32_t unused;
};

#endif /* GM_GA10X_FIFO_H */
