// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for libgpumodel's guest-facing surface: the register
 * interface, the run loop, and guest memory the device reads by DMA (rings,
 * descriptors, page tables), all driven by the fuzzer's bytes. The model
 * must never crash, touch memory outside its buffers (ASan) or hit undefined
 * behaviour (UBSan), whatever the guest programs — the same property the
 * QEMU device relies on (docs/specs/emgpu.md, "Guest errors").
 *
 * Input: a sequence of 8-byte operations
 *   byte 0: opcode % 4 — 0 write a register, 1 read one, 2 run warps,
 *           3 store a word into guest memory
 *   bytes 1-3: register offset / guest-memory word index
 *   bytes 4-7: value (little-endian)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel/gpumodel.h"
#include "gpumodel/testlib.h"

#define SYSMEM_SIZE	(1u << 20)	/* guest RAM the device can reach */
#define MAX_OPS		2048
#define RUN_BUDGET	4096		/* modelled accesses per run op */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[SYSMEM_SIZE];
	static struct gmt_flat guest = { .mem = mem, .size = sizeof(mem) };
	struct gm_callbacks cb = {
		.opaque = &guest, .dma_read = gmt_flat_dma_read,
		.dma_write = gmt_flat_dma_write,
	};
	struct gm_config cfg = { .seed = 1, .lockstep = 1 };
	struct gm_gpu *gpu;
	size_t i, ops = size / 8;
	enum gm_stop stop;

	if (gm_profile_lookup("h200-64m", &cfg.profile))
		abort();
	memset(mem, 0, sizeof(mem));
	gpu = gm_create(&cfg, &cb);
	if (!gpu)
		abort();
	if (ops > MAX_OPS)
		ops = MAX_OPS;
	for (i = 0; i < ops; i++) {
		const uint8_t *op = data + 8 * i;
		uint32_t arg = op[1] | op[2] << 8 | (uint32_t)op[3] << 16;
		uint32_t val = op[4] | op[5] << 8 | op[6] << 16 | (uint32_t)op[7] << 24;

		switch (op[0] % 4) {
		case 0:
			gm_reg_write(gpu, (arg * 4) % EMGPU_REGS_SIZE, val);
			break;
		case 1:
			(void)gm_reg_read(gpu, (arg * 4) % EMGPU_REGS_SIZE);
			break;
		case 2:
			stop = gm_run(gpu, 1 + val % RUN_BUDGET);
			if ((unsigned int)stop > GM_STOP_HANG)
				abort();
			break;
		default:
			memcpy(mem + (arg * 4) % SYSMEM_SIZE, &val, 4);
			break;
		}
		if ((unsigned int)gm_error_status(gpu) > EMGPU_ERR_LAST)
			abort();
	}
	gm_destroy(gpu);
	return 0;
}
