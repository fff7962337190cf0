// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for libgpumodel's guest-facing surface in each
 * personality: the register interface over the whole of BAR0
 * (gm_regs_size(): emgpu's block, and in GA10x and GH100 their block at
 * GA10X_REG_BASE too), the run loop and the channel poll, guest memory
 * the device reads by DMA (rings, descriptors, page tables) and VRAM
 * (GA10x's VER2 and GH100's VER3 page tables, instance blocks and channels
 * live there), all
 * driven by the fuzzer's bytes. The model must never crash, touch memory
 * outside its buffers (ASan) or hit undefined behaviour (UBSan), whatever
 * the guest programs: the same property the QEMU device relies on
 * (docs/specs/emgpu.md, "Guest errors").
 *
 * Input: one byte, its low bits the personality (bit 0 clear: emgpu; bit 0
 * set: ga10x, or gh100 with bit 1 set too), then a
 * sequence of 8-byte operations
 *   byte 0: bits 2-0 the operation (% 6): 0 write a register, 1 read one,
 *           2 run warps, 3 store a word into guest memory, 4 poll, 5 store
 *           a word into VRAM; bit 7: then gm_run() and gm_poll() once with
 *           a small budget, as the QEMU device's bottom half and poll timer
 *           do between guest accesses, so that work a write left under way
 *           (a copy-engine push, a GPFIFO pass) goes on between writes
 *   bytes 1-3: register offset / memory word index
 *   bytes 4-7: value (little-endian)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel/gpumodel.h"
#include "gpumodel/testlib.h"

#define SYSMEM_SIZE	(1u << 20)	/* guest RAM the device can reach */
#define VRAM_WINDOW	(64u << 20)	/* VRAM words an input may store to */
#define MAX_OPS		2048
#define RUN_BUDGET	4096		/* modelled accesses per run op */
#define STEP_BUDGET	256		/* per run after a bit-7 operation */

enum fuzz_op {
	OP_WRITE, OP_READ, OP_RUN, OP_SYSMEM, OP_POLL, OP_VRAM, OP_COUNT
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_stop(enum gm_stop stop)
{
	if ((unsigned int)stop > GM_STOP_HANG)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[SYSMEM_SIZE];
	static struct gmt_flat guest = { .mem = mem, .size = sizeof(mem) };
	struct gm_callbacks cb = {
		.opaque = &guest, .dma_read = gmt_flat_dma_read,
		.dma_write = gmt_flat_dma_write,
	};
	struct gm_config cfg = { .seed = 1, .lockstep = 1,
				 .vram_backing_max = VRAM_WINDOW };
	struct gm_gpu *gpu;
	uint32_t regs_size;
	size_t i, ops;

	if (!size)
		return 0;
	cfg.personality = !(data[0] & 1) ? GM_PERSONALITY_EMGPU :
			  data[0] & 2 ? GM_PERSONALITY_GH100 : GM_PERSONALITY_GA10X;
	data++;
	size--;
	ops = size / 8;
	if (gm_profile_lookup("h200-64m", &cfg.profile))
		abort();
	memset(mem, 0, sizeof(mem));
	gpu = gm_create(&cfg, &cb);
	if (!gpu)
		abort();
	regs_size = gm_regs_size(gpu);
	if (regs_size != gm_personality_desc(cfg.personality)->regs_size)
		abort();
	if (ops > MAX_OPS)
		ops = MAX_OPS;
	for (i = 0; i < ops; i++) {
		const uint8_t *op = data + 8 * i;
		uint32_t arg = op[1] | op[2] << 8 | (uint32_t)op[3] << 16;
		uint32_t val = op[4] | op[5] << 8 | op[6] << 16 | (uint32_t)op[7] << 24;

		switch ((op[0] & 7) % OP_COUNT) {
		case OP_WRITE:
			gm_reg_write(gpu, (arg * 4) % regs_size, val);
			break;
		case OP_READ:
			(void)gm_reg_read(gpu, (arg * 4) % regs_size);
			break;
		case OP_RUN:
			check_stop(gm_run(gpu, 1 + val % RUN_BUDGET));
			break;
		case OP_SYSMEM:
			memcpy(mem + (arg * 4) % SYSMEM_SIZE, &val, 4);
			break;
		case OP_POLL:
			(void)gm_poll(gpu);
			break;
		default:
			(void)gm_vram_write(gpu, (arg * 4) % VRAM_WINDOW, &val, 4);
			break;
		}
		if (op[0] & 0x80) {
			check_stop(gm_run(gpu, STEP_BUDGET));
			(void)gm_poll(gpu);
		}
		if ((unsigned int)gm_error_status(gpu) > EMGPU_ERR_LAST)
			abort();
	}
	gm_destroy(gpu);
	return 0;
}
