/* SPDX-License-Identifier: MIT */
/*
 * gather: random reads (the paper's random class).
 * args[0] src VA, [1] src bytes, [2] dst VA, [3] count (a multiple of 32).
 * Item k reads src line splitmix64(seed + k) % lines and stores the sum of
 * its 32 words (mod 2^32) at dst + 4 k. Items go to warps in groups of 32
 * (one 128-byte dst line), dispatched in order (gm_next_item()). Result:
 * the sum of all items. State: i = group, j = item within the group,
 * out[] = sums.
 */
#include "gpumodel/kernel.h"

static int gather_check(const struct gm_launch *l)
{
	const uint64_t *a = l->d.args;

	return gm_kernel_buf_ok(a[0], a[1]) && a[3] && !(a[3] % 32) &&
	       a[3] <= (1ull << 40) && gm_kernel_buf_ok(a[2], a[3] * 4) ? 0 : -1;
}

static void gather_init(const struct gm_launch *l, struct gm_warp *w)
{
	(void)l;
	w->i = w->id;
}

static int gather_step(struct gm_gpu *g, const struct gm_launch *l,
		       struct gm_warp *w)
{
	const uint64_t *a = l->d.args;
	uint64_t groups = a[3] / 32, lines = a[1] / 128, item, line, sum = 0;
	uint32_t s = 0;
	int r, k;

	if (w->i >= groups)
		return GM_STEP_DONE;
	if (w->j < 32) {
		item = w->i * 32 + w->j;
		line = gm_mix64(l->d.seed + item);
		/* the same line; a mask instead of a division when it can */
		line = lines & (lines - 1) ? line % lines : line & (lines - 1);
		r = gm_warp_load(g, w, a[0] + line * 128, w->line, 128,
				 EMGPU_ACCESS_READ);
		if (r)
			return r;
		for (k = 0; k < 32; k++)
			s += w->line[k];
		w->out[w->j++] = s;
		return GM_STEP_MORE;
	}
	r = gm_warp_store(g, w, a[2] + w->i * 128, w->out, 128);
	if (r)
		return r;
	for (k = 0; k < 32; k++)
		sum += w->out[k];
	w->acc += sum;
	w->j = 0;
	w->i = gm_next_item(g);
	return GM_STEP_MORE;
}

/* a step not yet done starts with its load or its store */
static int gather_accesses_first(const struct gm_launch *l,
				 const struct gm_warp *w)
{
	return w->i < l->d.args[3] / 32;
}

const struct gm_kernel gm_kernel_gather = {
	.id = EMGPU_KERNEL_GATHER,
	.name = "gather",
	.check = gather_check,
	.init = gather_init,
	.step = gather_step,
	.accesses_first = gather_accesses_first,
};
