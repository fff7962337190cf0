/* SPDX-License-Identifier: MIT */
/*
 * The hotset kernel's work items (models/src/kernels/hotset.c has the
 * argument list): which line item n reads. One definition, used by the
 * kernel and by a CPU reference of its result (libember's runner checks
 * every hotset and movinghot launch against it), so the two cannot drift.
 */
#ifndef GPUMODEL_HOTSET_H
#define GPUMODEL_HOTSET_H

#include <stdint.h>

#include "gpumodel/splitmix64.h"

struct gm_hotset_shape {
	uint64_t pages, wpages;	/* the buffer's and the window's 4 KiB pages */
	uint64_t reuse, passes;
	uint64_t slots;		/* items per window position: wpages * reuse */
	uint64_t nwin;		/* window positions per pass */
	uint64_t items;		/* of the launch; 0: the count does not fit 62 bits */
};

static inline void gm_hotset_shape(const uint64_t *a, struct gm_hotset_shape *s)
{
	uint64_t per_pass;

	s->pages = a[1] >> 12;
	s->wpages = a[2] ? a[2] >> 12 : s->pages;
	s->reuse = a[4] ? a[4] : 1;
	s->passes = a[5] ? a[5] : 1;
	s->slots = s->wpages * s->reuse;
	s->nwin = s->wpages ? (s->pages + s->wpages - 1) / s->wpages : 0;
	per_pass = s->nwin * s->slots;
	s->items = per_pass && per_pass <= (1ull << 62) / s->passes ?
		   per_pass * s->passes : 0;
}

/*
 * Item n of a launch with arguments a and seed: 1 and the page and line
 * (0..31) it reads, or 0 for an item past a partial last window (it reads
 * nothing). The random draw is splitmix64 of (seed, pass, window, slot).
 */
static inline int gm_hotset_item(const uint64_t *a, const struct gm_hotset_shape *s,
				 uint64_t seed, uint64_t n, uint64_t *page,
				 uint64_t *line)
{
	uint64_t j = n % s->slots, i = n / s->slots % s->nwin;
	uint64_t k = n / s->slots / s->nwin;
	uint64_t rnd = gm_mix64(seed ^ gm_mix64(k << 40 ^ i << 20 ^ j));

	if (rnd % 100 < a[3]) {
		*page = (rnd >> 8) % s->pages;
		*line = (rnd >> 48) % 32;
		return 1;
	}
	*page = i * s->wpages + j % s->wpages;
	*line = (j / s->wpages) % 32;
	return *page < s->pages;
}

/*
 * The launch's result for a load launch (a[7] == 0): the sum of the first
 * word of every line read, word(ctx, byte offset from a[0]) giving that
 * word. Without randomness every pass reads the same lines, so one pass
 * is summed and multiplied.
 */
static inline uint64_t gm_hotset_reference(const uint64_t *a, uint64_t seed,
					   uint32_t (*word)(void *ctx, uint64_t off),
					   void *ctx)
{
	struct gm_hotset_shape s;
	uint64_t n, end, page, line, sum = 0;

	gm_hotset_shape(a, &s);
	end = a[3] ? s.items : s.items / s.passes;
	for (n = 0; n < end; n++)
		if (gm_hotset_item(a, &s, seed, n, &page, &line))
			sum += word(ctx, page * 4096 + line * 128);
	return a[3] ? sum : sum * s.passes;
}

#endif /* GPUMODEL_HOTSET_H */
