/* SPDX-License-Identifier: MIT */
/*
 * emgpu's GH100 (Hopper) personality: what it presents besides GA10x's.
 *
 * With the device property personality=gh100 the device keeps the GA10x
 * personality's BAR0 block (ga10x/regs.h: PTIMER, doorbell, interrupt
 * leaf, fault and access-counter buffer registers, channels; their offsets
 * are ours, nvidia-uvm never computes one), its BAR2 VRAM window and its
 * seven MSI-X vectors. What differs is the in-memory formats: MMU VER3 page
 * tables (gh100/mmu_v3.h), Hopper's MMU engine ids in fault and
 * access-counter entries, and the fields of host class c86f
 * (gh100/host_c86f.h) and copy class c8b5 (gh100/ce_c8b5.h) that differ
 * from c56f and c7b5 (docs/specs/emgpu.md says what the personality
 * implements so far).
 */
#ifndef GH100_REGS_H
#define GH100_REGS_H

/*
 * PCI device id in this personality (vendor EMGPU_PCI_VENDOR_ID), so a
 * driver can tell the architecture before it reads a register.
 */
#define GH100_PCI_DEVICE_ID		0xeb03

/*
 * NV_PFAULT_MMU_ENG_ID_* of hwref hopper/gh100 dev_fault.h that differ
 * from Ampere's (ga10x/fault_c369.h's C369_MMU_ENG_ID_*): the entry
 * layouts are the same, the ids are not.
 */
#define GH100_MMU_ENG_ID_CE0		43u	/* CE0..CE9: 43..52 */
#define GH100_MMU_ENG_ID_HOST0		64u	/* HOST0..HOST44: 64..108 */
#define GH100_MMU_ENG_ID_BAR1		256u
#define GH100_MMU_ENG_ID_BAR2		320u
#define GH100_MMU_ENG_ID_GRAPHICS	384u	/* + VEID */

#endif /* GH100_REGS_H */
