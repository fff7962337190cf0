/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel internals: the contract between the shared model and a
 * personality (gpumodel.h's GM_PERSONALITIES), as nvidia-uvm's HAL tables
 * are between its core and a GPU class. The shared units (timing, queues,
 * emgpu_hw.h's register file, counters, copy engine, SMs, trace hash,
 * injection) reach a personality only through its ops table, never its
 * state: gm_gpu's pers.priv is the personality's own, read by its code
 * alone. Every member of a table is set.
 */
#ifndef GM_PERSONALITY_H
#define GM_PERSONALITY_H

#include <stdint.h>

#include "gpumodel/gpumodel.h"

struct gm_gpu;
struct gm_warp;

struct gm_personality_ops {
	/*
	 * What the embedder presents (gm_personality_desc()); desc.regs_size
	 * is BAR0's size: emgpu_hw.h's registers and its own
	 */
	struct gm_personality_desc desc;

	/*
	 * The personality's state: init at gm_create() (0, or -1 when out of
	 * memory), reset at the end of every gm_reset(), fini at
	 * gm_destroy(), also after an init that failed or never ran.
	 */
	int (*init)(struct gm_gpu *g);
	void (*reset)(struct gm_gpu *g);
	void (*fini)(struct gm_gpu *g);

	/*
	 * Its own registers: 0 when off is one (read into *v, or written),
	 * -1 when off is for emgpu_hw.h's register file (regs.c).
	 */
	int (*reg_read)(struct gm_gpu *g, uint32_t off, uint32_t *v);
	int (*reg_write)(struct gm_gpu *g, uint32_t off, uint32_t v);
	/* gm_poll(): engines blocked on stores the device cannot see */
	unsigned int (*poll)(struct gm_gpu *g);

	/*
	 * A launch doorbell, before its descriptor is checked: binds the
	 * launch to the context its warps' accesses translate in. 0, or a
	 * negative enum emgpu_error with *info the ERROR_INFO to latch (the
	 * launch then fails).
	 */
	int (*launch_bind)(struct gm_gpu *g, uint32_t *info);
	/*
	 * gm_warp_load() and gm_warp_store() (gpumodel/kernel.h): translate,
	 * fault, then cost the access (access.h).
	 */
	int (*warp_load)(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			 void *buf, uint32_t len, unsigned int access);
	int (*warp_store)(struct gm_gpu *g, struct gm_warp *w, uint64_t va,
			  const void *buf, uint32_t len);
	/*
	 * Access counter idx reached its threshold (counters.c): writes its
	 * notification (as the injections let it), marks the counter
	 * notified unless it is to notify again, and sets notify_pending.
	 */
	void (*ac_notify)(struct gm_gpu *g, int32_t idx);

	/*
	 * Lockstep. stop_waits: gm_run() stops for the driver (why: a fault
	 * batch handed off, notifications, a timer tick); 1 when the driver
	 * answers, which the device then waits for (SYNC_WAITING), 0 when no
	 * answer comes. stop_publish: gm_run() returns to the driver (any
	 * stop but its budget's and WAIT_SYNC), after the interrupts it held;
	 * hands over what the stop publishes. sync: the answer came (a SYNC
	 * write, or the personality's own hand-back, gm_sm_hand_back()).
	 */
	int (*stop_waits)(struct gm_gpu *g, enum gm_stop why);
	void (*stop_publish)(struct gm_gpu *g, enum gm_stop why);
	void (*sync)(struct gm_gpu *g);
};

/* gm_<name>_personality: one table per line of GM_PERSONALITIES. */
#define GM_PERSONALITY_OPS_DECLARE(id, name) \
	extern const struct gm_personality_ops gm_##name##_personality;
GM_PERSONALITIES(GM_PERSONALITY_OPS_DECLARE)
#undef GM_PERSONALITY_OPS_DECLARE

#endif /* GM_PERSONALITY_H */
