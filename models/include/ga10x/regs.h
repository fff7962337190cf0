/* SPDX-License-Identifier: MIT */
/*
 * emgpu's GA10x personality: the BAR0 registers it adds to emgpu_hw.h's.
 *
 * With the device property personality=ga10x, BAR0 grows to
 * GA10X_REGS_SIZE: emgpu's own registers stay at 0x0000-0x3fff, and this
 * block follows at GA10X_REG_BASE. BAR2 then exposes the first
 * GA10X_BAR2_SIZE bytes of VRAM to the CPU (the window the stand-in hands
 * out as CPU mappings of FB allocations).
 *
 * Two kinds of register live here:
 *  - those nvidia-uvm itself dereferences, through pointers the
 *    resource-manager stand-in (guest-kmod/emgpu-rm/) hands over: fault and
 *    access-counter GET/PUT, the interrupt leaf and its enables, PTIMER,
 *    the work-submission doorbell. Their bit layouts and semantics are
 *    NVIDIA's (Turing+ hardware as nvidia-uvm's Ampere HAL drives it);
 *    only their offsets are ours, since nvidia-uvm never computes one.
 *  - those only the stand-in touches (channel setup, buffer bases), in
 *    emgpu's own layout: on a real card the RM programs instance blocks
 *    and runlists that nvidia-uvm never sees.
 * In-memory formats (GPFIFO, methods, page tables, fault and
 * access-counter entries) are in the other headers of this folder, one
 * per NVIDIA class or hwref format.
 */
#ifndef GA10X_REGS_H
#define GA10X_REGS_H

/*
 * PCI device id in this personality (vendor EMGPU_PCI_VENDOR_ID): ember.ko
 * binds EMGPU_PCI_DEVICE_ID only, the stand-in emgpu-rm.ko binds this one.
 */
#define GA10X_PCI_DEVICE_ID		0xeb02

#define GA10X_REG_BASE			0x8000
#define GA10X_REGS_SIZE			0x10000	/* BAR0 size in this personality */
#define GA10X_BAR_VRAM			2	/* BAR2: VRAM window */
#define GA10X_BAR2_SIZE_MAX		(256ull << 20)	/* or all of VRAM if smaller */

/* ---- PTIMER (NVIDIA semantics: ns; read TIME_1, TIME_0, TIME_1 again) ---- */
#define GA10X_REG_PTIMER_TIME_0		0x8000	/* ns, bits 31:0 */
#define GA10X_REG_PTIMER_TIME_1		0x8004	/* ns, bits 63:32 */

/* ---- work submission: write a channel's token (GA10X_REG_CHAN_TOKEN) ---- */
#define GA10X_REG_DOORBELL		0x8010

/*
 * ---- SM launches: the channel whose context (instance pointer, page
 * directory) the next EMGPU_REG_LAUNCH_DOORBELL runs in (stand-in) ----
 * A compute channel: GA10X_REG_CHAN_ENGINE = GA10X_ENGINE_GRAPHICS, no
 * GPFIFO work; the SMs translate through its PDB, and its replayable faults
 * carry its INST and the graphics engine id (dev_fault.h), VEID 0.
 */
#define GA10X_REG_LAUNCH_CHANNEL	0x8020

/* ---- interrupt leaf (Turing+): one pending word, set and clear enables ---- */
#define GA10X_REG_INTR_LEAF		0x8100	/* pending: NVIDIA Turing+ pulse semantics, src/ga10x/faults.c */
#define GA10X_REG_INTR_EN_SET		0x8104	/* write 1s: enable */
#define GA10X_REG_INTR_EN_CLEAR		0x8108	/* write 1s: disable */
#define GA10X_REG_INTR_EN		0x810c	/* read: enabled bits */
/* leaf bits; the stand-in hands these out as nvidia-uvm's masks */
#define GA10X_INTR_REPLAYABLE_FAULT	(1u << 0)
#define GA10X_INTR_NONREPLAYABLE_FAULT	(1u << 1)
#define GA10X_INTR_ACCESS_COUNTER	(1u << 2)
#define GA10X_INTR_NONSTALL		(1u << 3)	/* NON_STALL_INTERRUPT method */
#define GA10X_INTR_CHANNEL_RC		(1u << 4)	/* a channel entered RC */
#define GA10X_INTR_ALL			0x1fu
/* pending & enabled leaf bits raise this MSI-X vector, after emgpu's own */
#define GA10X_MSIX_VECTOR		6	/* == EMGPU_MSIX_VECTORS */
#define GA10X_MSIX_VECTORS		7

/* ---- replayable fault buffer (owner: ga10x fault unit) ---- */
#define GA10X_REG_FAULT_BUF_LO		0x8200	/* base | aperture, stand-in */
#define GA10X_REG_FAULT_BUF_HI		0x8204
#define GA10X_REG_FAULT_BUF_SIZE	0x8208	/* entries (2..2^20), stand-in */
#define GA10X_REG_FAULT_BUF_GET		0x820c	/* NVIDIA's GET layout, fault_c369.h */
#define GA10X_REG_FAULT_BUF_PUT		0x8210	/* NVIDIA's PUT layout */
#define GA10X_REG_FAULT_BUF_INFO	0x8214	/* read-only: GET's status bits (uvm never reads it) */
#define GA10X_REG_PAGE_FAULT_CTRL	0x8218	/* prefetch control: PRF_FILTER [1:0] */
#define GA10X_REG_FAULT_BUF_CTRL	0x821c	/* EMGPU_RING_ENABLE, stand-in */

/* ---- access-counter buffer (owner: ga10x access-counter unit) ---- */
#define GA10X_REG_AC_BUF_LO		0x8300
#define GA10X_REG_AC_BUF_HI		0x8304
#define GA10X_REG_AC_BUF_SIZE		0x8308	/* entries (2..2^20) */
#define GA10X_REG_AC_BUF_GET		0x830c	/* NVIDIA's layout */
#define GA10X_REG_AC_BUF_PUT		0x8310	/* NVIDIA's layout */
#define GA10X_REG_AC_BUF_FULL		0x8314	/* NOTIFY_BUFFER_INFO layout, access_counter_c365.h */
#define GA10X_REG_AC_CONFIG		0x8318	/* NISO CONFIG layout (C365_CONFIG_*): stand-in */
#define GA10X_REG_AC_CTRL		0x831c	/* EMGPU_RING_ENABLE: stand-in */
/* AC_CTRL, read-only: a launch's last notifications not yet serviced (lockstep) */
#define GA10X_AC_CTRL_BUSY		(1u << 31)

/*
 * ---- TLB invalidate (owner: ga10x MMU unit; stand-in only): the RM's
 * NV_PFB_PRI_MMU_INVALIDATE_PDB and _INVALIDATE (its ALL_VA, ALL_PDB and
 * TRIGGER bits). The stand-in drops a page directory's cached translations
 * when it revokes the directory from a VA space or frees it, as the RM
 * does: the directory's next owner (the same page again, with the RM VAs
 * a fresh VA space hands out again) must not translate through them.
 * INVALIDATE reads 0: an invalidate is done when the write returns.
 */
#define GA10X_REG_MMU_INVALIDATE_PDB_LO	0x8400	/* directory base | aperture, as GA10X_REG_CHAN_PDB */
#define GA10X_REG_MMU_INVALIDATE_PDB_HI	0x8404
#define GA10X_REG_MMU_INVALIDATE	0x8408	/* write: GA10X_MMU_INVALIDATE_* */
#define GA10X_MMU_INVALIDATE_ALL_VA	(1u << 0)	/* required: no VA ranges here */
#define GA10X_MMU_INVALIDATE_ALL_PDB	(1u << 1)	/* every directory, not PDB_LO/HI's */
#define GA10X_MMU_INVALIDATE_TRIGGER	(1u << 31)

/* ---- channels (owner: ga10x fifo unit; stand-in only) ---- */
#define GA10X_CHANNELS			64
#define GA10X_REG_CHAN_BASE		0x9000
#define GA10X_REG_CHAN_STRIDE		0x40
#define GA10X_REG_CHAN(ch, reg)		(GA10X_REG_CHAN_BASE + (ch) * GA10X_REG_CHAN_STRIDE + (reg))
/* offsets inside one channel's block */
#define GA10X_REG_CHAN_INST_LO		0x00	/* instance pointer | aperture, as fault entries report it */
#define GA10X_REG_CHAN_INST_HI		0x04
#define GA10X_REG_CHAN_PDB_LO		0x08	/* VER2 page-directory base | aperture */
#define GA10X_REG_CHAN_PDB_HI		0x0c
#define GA10X_REG_CHAN_GPFIFO_LO	0x10	/* GPFIFO ring base | aperture */
#define GA10X_REG_CHAN_GPFIFO_HI	0x14
#define GA10X_REG_CHAN_GPFIFO_ENTRIES	0x18	/* power of two */
#define GA10X_REG_CHAN_USERD_LO		0x1c	/* USERD (GP_GET/GP_PUT) | aperture */
#define GA10X_REG_CHAN_USERD_HI		0x20
#define GA10X_REG_CHAN_NOTIFIER_LO	0x24	/* error notifier | aperture */
#define GA10X_REG_CHAN_NOTIFIER_HI	0x28
#define GA10X_REG_CHAN_ENGINE		0x2c	/* copy engine index, or GA10X_ENGINE_HOST */
#define GA10X_REG_CHAN_CTRL		0x30	/* GA10X_CHAN_CTRL_* */
#define GA10X_REG_CHAN_STATUS		0x34	/* GA10X_CHAN_STATUS_*, read-only */
#define GA10X_REG_CHAN_TOKEN		0x38	/* read: the work-submission token */

/* USERD as clc56f.h's Nvc56fControl lays it out: nvidia-uvm writes GP_PUT */
#define GA10X_USERD_SIZE		0x200
#define GA10X_USERD_GP_GET		0x88	/* device-written */
#define GA10X_USERD_GP_PUT		0x8c	/* driver-written */

#define GA10X_ENGINE_HOST		0xffu	/* host methods only */
#define GA10X_ENGINE_GRAPHICS		0xfeu	/* compute: SM launches, no GPFIFO */
#define GA10X_CHAN_CTRL_ENABLE		(1u << 0)
#define GA10X_CHAN_CTRL_CLEAR_RC	(1u << 1)	/* write: leave RC */
/* GPU VAs of this channel (pushbuffer, semaphores, CE virtual ends) are
 * physical addresses in the GPFIFO base's aperture: a channel without a
 * page directory (unit tests, bring-up before the stand-in's tables) */
#define GA10X_CHAN_CTRL_NO_MMU		(1u << 2)
#define GA10X_CHAN_STATUS_IDLE		(1u << 0)	/* GP_GET == GP_PUT, nothing in flight */
#define GA10X_CHAN_STATUS_BLOCKED	(1u << 1)	/* waits on a semaphore acquire */
#define GA10X_CHAN_STATUS_RC		(1u << 2)	/* stopped by an error, notifier written */

/* aperture in the low bits of every base register above */
#define GA10X_BASE_APERTURE_MASK	0x3u
#define GA10X_BASE_APERTURE_VIDMEM	0u
#define GA10X_BASE_APERTURE_SYSMEM	2u	/* coherent, as NVIDIA's SYS_MEM_COHERENT */

#endif /* GA10X_REGS_H */
