/* SPDX-License-Identifier: MIT */
/*
 * stream: sequential read-modify-write (the paper's sequential class).
 * args[0] buf VA, [1] bytes, [2] passes (0 = 1). Each pass adds 1 to every
 * 32-bit word. Work item n is line n % lines of pass n / lines; items are
 * dispatched in order (gm_next_item()), so the warps sweep the buffer
 * together in a narrow front, as thread blocks do. Result: the sum of all
 * words as read (before the increment); each line is read once at each of
 * its values 0..passes-1 increments, whatever the order, so the result
 * and the bytes do not depend on the dispatch.
 * State: i = item, j = its line (i % lines, kept by subtraction: a warp's
 * next item is at most the launch's warp count ahead, so the step needs no
 * 64-bit division).
 */
#include "gpumodel/kernel.h"

static int stream_check(const struct gm_launch *l)
{
	return gm_kernel_buf_ok(l->d.args[0], l->d.args[1]) &&
	       l->d.args[2] <= 1000000 ? 0 : -1;
}

static void stream_init(const struct gm_launch *l, struct gm_warp *w)
{
	w->i = w->id;
	w->j = w->i % (l->d.args[1] / 128);
}

static int stream_step(struct gm_gpu *g, const struct gm_launch *l,
		       struct gm_warp *w)
{
	uint64_t lines = l->d.args[1] / 128, passes = l->d.args[2] ? l->d.args[2] : 1;
	uint64_t va, item, sum = 0;
	int r, k;

	if (w->i >= lines * passes)
		return GM_STEP_DONE;
	va = l->d.args[0] + w->j * 128;
	r = gm_warp_load(g, w, va, w->line, 128, EMGPU_ACCESS_WRITE);
	if (r)
		return r;
	for (k = 0; k < 32; k++) {
		sum += w->line[k];
		w->line[k]++;
	}
	r = gm_warp_store(g, w, va, w->line, 128);
	if (r)
		return r;	/* redone from the load: nothing was stored */
	w->acc += sum;
	item = gm_next_item(g);
	w->j += item - w->i;
	if (w->j >= lines)
		w->j = w->j - lines < lines ? w->j - lines : w->j % lines;
	w->i = item;
	return GM_STEP_MORE;
}

/* a step not yet done starts with its load */
static int stream_accesses_first(const struct gm_launch *l,
				 const struct gm_warp *w)
{
	return w->i < l->d.args[1] / 128 * (l->d.args[2] ? l->d.args[2] : 1);
}

const struct gm_kernel gm_kernel_stream = {
	.id = EMGPU_KERNEL_STREAM,
	.name = "stream",
	.check = stream_check,
	.init = stream_init,
	.step = stream_step,
	.accesses_first = stream_accesses_first,
};
