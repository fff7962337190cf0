/* SPDX-License-Identifier: MIT */
/*
 * hotset: the Ember paper's hot-set microbenchmark (Figures 11 and 16).
 * args[0] buf VA, [1] bytes, [2] window bytes (multiple of 4 KiB, 0 = the
 * whole buffer), [3] random percent (0..100), [4] reuse (accesses per
 * page, 0 = 1), [5] passes (0 = 1), [6] bytes read of each line (a power
 * of two from 4 to 128; 0 = 128: a 4 is one word a line, a request the
 * size of a warp's single-lane load), [7] 1: store those bytes instead
 * of loading them, every word the line's number (page * 32 + line).
 *
 * The window slides over the buffer in steps of its size. At each window
 * position the kernel makes pages * reuse accesses ("slots"): slot s goes,
 * with the random percentage, to a random line of the whole buffer, else
 * to line (s / wpages) % 32 of the window's page s % wpages, so every
 * window page is touched `reuse` times while the window is there. The
 * slots of all window positions of all passes are work items numbered in
 * that order ((pass * windows + window) * slots + slot) and dispatched in
 * order (gm_next_item()), so the warps move through the windows together;
 * the random draw is splitmix64 of (seed, pass, window, slot), so it does
 * not depend on timing or dispatch. Reads unless args[7]. Result: the sum
 * of the first word of every line read (or stored).
 * State: n = item.
 */
#include "gpumodel/hotset.h"
#include "gpumodel/kernel.h"

static int hotset_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;
	struct gm_hotset_shape s;

	gm_hotset_shape(a, &s);
	return gm_kernel_buf_ok(a[0], a[1]) && !(a[0] & 4095) && !(a[1] & 4095) &&
	       !(a[2] & 4095) && a[2] <= a[1] && a[3] <= 100 &&
	       a[4] <= 65536 && a[5] <= 1000000 && s.items &&
	       (!a[6] || (a[6] >= 4 && a[6] <= 128 && !(a[6] & (a[6] - 1)))) &&
	       a[7] <= 1 ? 0 : -1;
}

static void hotset_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->n = w->id;
}

static int hotset_step(struct gm_gpu *g, const struct gm_launch *l,
		       struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	struct gm_hotset_shape s;
	uint64_t page, line, va, k;
	int r;

	gm_hotset_shape(a, &s);
	for (;;) {
		if (w->n >= s.items)
			return GM_STEP_DONE;
		if (gm_hotset_item(a, &s, l->d.seed, w->n, &page, &line))
			break;
		w->n = gm_next_item(g);	/* past a partial last window */
	}
	va = a[0] + page * 4096 + line * 128;
	if (a[7]) {
		for (k = 0; k < 32; k++)
			w->line[k] = (uint32_t)(page * 32 + line);
		r = gm_warp_store(g, w, va, w->line, a[6] ? (uint32_t)a[6] : 128);
	} else {
		r = gm_warp_load(g, w, va, w->line, a[6] ? (uint32_t)a[6] : 128,
				 EMGPU_ACCESS_READ);
	}
	if (r)
		return r;
	w->acc += w->line[0];
	w->n = gm_next_item(g);
	return GM_STEP_MORE;
}

const struct gm_kernel gm_kernel_hotset = {
	.id = EMGPU_KERNEL_HOTSET,
	.name = "hotset",
	.check = hotset_check,
	.init = hotset_init,
	.step = hotset_step,
};
