/* SPDX-License-Identifier: MIT */
/*
 * The fault-injection kinds, one list. It makes the model's enum
 * gm_inject_kind (gpumodel.h) and the spec's kind names (inject.c), and
 * ember-agent's tables of each kind's default spec and of what it must
 * lead to under each driver (host-agent/judge.c), which name a row per
 * kind of this list: a kind added here without its rows there stops
 * ember-agent's build.
 *
 * X(ID, name, what): GM_INJ_<ID>, "kind=<name>" in a spec, what it does.
 * Header only, no globals.
 */
#ifndef GPUMODEL_INJECT_KINDS_H
#define GPUMODEL_INJECT_KINDS_H

#define GM_INJECT_KINDS(X)						\
	X(CE_ERROR, "ce-error", "a copy descriptor fails, no bytes move") \
	X(CE_STALL, "ce-stall", "a copy takes `factor` times longer")	\
	X(FAULT_OVERFLOW, "fault-overflow", "a fault is dropped with OVERFLOW") \
	X(FAULT_DUP, "fault-dup", "a fault entry is written twice")	\
	X(NOTIFY_DROP, "notify-drop", "a notification is not written")	\
	X(NOTIFY_DUP, "notify-dup", "a notification is written twice")	\
	X(NOTIFY_CORRUPT, "notify-corrupt", "address and tag are garbled") \
	X(LOST_IRQ, "lost-irq", "an interrupt sets STATUS, no MSI-X")	\
	X(POISON, "poison", "2 MiB VRAM chunks in range fail reads")	\
	X(TLB_TIMEOUT, "tlb-timeout", "TLB_INV stays PENDING, nothing invalidated") \
	X(HANG, "hang", "the device stops until reset")

#endif /* GPUMODEL_INJECT_KINDS_H */
