/* SPDX-License-Identifier: MIT */
/*
 * The card's turn: how ember-capture keeps processes that run side by side
 * from sharing the card (EMBER_CAPTURE_GATE). A scheduler starts several
 * captured programs at once, so that their work before CUDA (parsing an
 * input, say) overlaps, and hands the card to one at a time: each process
 * waits at the first thing the CUDA driver does for it, loading this tool
 * (cuInit, before any context exists), until the scheduler gives it its
 * turn, and keeps the card until it exits. The scheduler gives the next
 * turn only after the previous process has exited.
 *
 * The gate is a FIFO of the scheduler's, one per process: the turn is one
 * byte written to it.
 */
#ifndef EMBER_CAPTURE_GATE_H
#define EMBER_CAPTURE_GATE_H

#include <stddef.h>

/*
 * Blocks until the FIFO at path is opened for writing and a byte comes
 * through it. Returns 0 then; -1 when the FIFO cannot be opened or read,
 * or its writer closed it without a byte, with why in error.
 */
int capture_gate_pass(const char *path, char *error, size_t size);

#endif
