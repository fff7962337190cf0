// SPDX-License-Identifier: MIT
/*
 * Writes a seed input of fuzz_regs.c (its format there) that does what
 * nvidia-uvm and the resource-manager stand-in do for one copy: the GA10x
 * personality, channel 0 on copy engine 0 without MMU (GPU VAs are sysmem
 * addresses), a pushbuffer that binds the CE class, copies 4 KiB in
 * sysmem and releases a semaphore, the GPFIFO entry, GP_PUT in USERD and
 * the doorbell, then runs and polls. Mutations of it reach the GPFIFO,
 * method and copy-engine code that random register writes seldom do.
 *
 *   seed-ga10x FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ga10x/ce_c7b5.h"
#include "ga10x/gpfifo.h"
#include "ga10x/host_c56f.h"
#include "ga10x/regs.h"

/* in the harness's 1 MiB of guest memory */
#define GPFIFO		0x10000u
#define USERD		0x11000u
#define NOTIFIER	0x12000u
#define PB		0x14000u
#define SEM		0x80000u
#define SRC		0x90000u
#define DST		0xa0000u
#define COPY_BYTES	0x1000u

enum { OP_WRITE, OP_READ, OP_RUN, OP_SYSMEM, OP_POLL, OP_VRAM };
#define OP_THEN_RUN	0x80u

struct seed {
	FILE *f;
	uint32_t pb[64];
	unsigned int npb;
};

static void op(struct seed *s, unsigned int code, uint32_t arg, uint32_t val)
{
	uint8_t b[8] = { (uint8_t)code, (uint8_t)arg, (uint8_t)(arg >> 8),
			 (uint8_t)(arg >> 16), (uint8_t)val, (uint8_t)(val >> 8),
			 (uint8_t)(val >> 16), (uint8_t)(val >> 24) };

	if (fwrite(b, 1, sizeof(b), s->f) != sizeof(b))
		exit(1);
}

static void reg(struct seed *s, uint32_t offset, uint32_t val)
{
	op(s, OP_WRITE, offset / 4, val);
}

static void store(struct seed *s, uint32_t addr, uint32_t val)
{
	op(s, OP_SYSMEM, addr / 4, val);
}

static void emit(struct seed *s, uint32_t w)
{
	if (s->npb == sizeof(s->pb) / sizeof(s->pb[0]))
		exit(1);
	s->pb[s->npb++] = w;
}

static void push1(struct seed *s, uint32_t subch, uint32_t method, uint32_t d)
{
	emit(s, ga10x_pb_inc(subch, method, 1));
	emit(s, d);
}

int main(int argc, char **argv)
{
	struct seed s = { 0 };
	uint64_t e;
	unsigned int i;

	if (argc != 2 || !(s.f = fopen(argv[1], "wb")))
		return 2;
	fputc(1, s.f);					/* ga10x */
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_GPFIFO_LO),
	    GPFIFO | GA10X_BASE_APERTURE_SYSMEM);
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_GPFIFO_HI), 0);
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_GPFIFO_ENTRIES), 64);
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_USERD_LO),
	    USERD | GA10X_BASE_APERTURE_SYSMEM);
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_NOTIFIER_LO),
	    NOTIFIER | GA10X_BASE_APERTURE_SYSMEM);
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_ENGINE), 0);
	reg(&s, GA10X_REG_CHAN(0, GA10X_REG_CHAN_CTRL),
	    GA10X_CHAN_CTRL_ENABLE | GA10X_CHAN_CTRL_NO_MMU);
	for (i = 0; i < COPY_BYTES; i += 0x400)
		store(&s, SRC + i, 0xc0de0000u + i);

	push1(&s, 0, C56F_SET_OBJECT, AMPERE_DMA_COPY_B_CLASS);
	push1(&s, C56F_UVM_SW_SUBCH, C076_SET_OBJECT, GP100_UVM_SW_CLASS);
	emit(&s, ga10x_pb_inc(C56F_CE_SUBCH, C7B5_SET_SRC_PHYS_MODE, 2));
	emit(&s, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM);
	emit(&s, C7B5_PHYS_MODE_TARGET_COHERENT_SYSMEM);
	emit(&s, ga10x_pb_inc(C56F_CE_SUBCH, C7B5_OFFSET_IN_UPPER, 4));
	emit(&s, 0);
	emit(&s, SRC);
	emit(&s, 0);
	emit(&s, DST);
	push1(&s, C56F_CE_SUBCH, C7B5_LINE_LENGTH_IN, COPY_BYTES);
	push1(&s, C56F_CE_SUBCH, C7B5_LAUNCH_DMA,
	      C7B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH |
	      C7B5_LAUNCH_DMA_SRC_TYPE_PHYSICAL | C7B5_LAUNCH_DMA_DST_TYPE_PHYSICAL |
	      C7B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED |
	      C7B5_LAUNCH_DMA_DISABLE_PLC);
	emit(&s, ga10x_pb_inc(C56F_CE_SUBCH, C7B5_SET_SEMAPHORE_A, 3));
	emit(&s, 0);
	emit(&s, SEM);
	emit(&s, 0x55);
	push1(&s, C56F_CE_SUBCH, C7B5_LAUNCH_DMA, C7B5_LAUNCH_DMA_FLUSH_ENABLE |
	      C7B5_LAUNCH_DMA_DISABLE_PLC |
	      C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD <<
	      C7B5_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT);
	for (i = 0; i < s.npb; i++)
		store(&s, PB + 4 * i, s.pb[i]);

	e = ga10x_gp_entry(PB, s.npb * 4, 0);
	store(&s, GPFIFO, (uint32_t)e);
	store(&s, GPFIFO + 4, (uint32_t)(e >> 32));
	store(&s, USERD + GA10X_USERD_GP_PUT, 1);
	op(&s, OP_WRITE | OP_THEN_RUN, GA10X_REG_DOORBELL / 4, 0);	/* token 0 */
	op(&s, OP_RUN, 0, 4095);
	op(&s, OP_POLL, 0, 0);
	op(&s, OP_READ, GA10X_REG_CHAN(0, GA10X_REG_CHAN_STATUS) / 4, 0);
	return fclose(s.f) ? 1 : 0;
}
