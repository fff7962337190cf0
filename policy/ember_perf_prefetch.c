// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Tree-based neighbourhood (TBN) prefetcher, after nvidia-uvm's
 * uvm_perf_prefetch.c: a bitmap tree over the pages of a VA block, built
 * from resident | faulted pages; each faulted leaf climbs towards the root
 * and keeps the largest subtree whose occupancy is above the threshold.
 * Hardware-neutral: no kernel interfaces (see ember_policy.h).
 */
#include "ember_policy.h"

/* Grows every faulted page to its whole 64 KiB big page. */
static void grow_to_big_pages(const struct ember_page_mask *faulted,
			      struct ember_page_mask *out)
{
	unsigned int big;

	ember_mask_zero(out);
	for (big = 0; big < EMBER_BLOCK_PAGES; big += EMBER_BIG_PAGES)
		if (ember_mask_count_range(faulted, big, EMBER_BIG_PAGES))
			ember_mask_set_range(out, big, EMBER_BIG_PAGES);
}

void ember_prefetch_tbn(const struct ember_page_mask *resident,
			const struct ember_page_mask *faulted,
			unsigned int threshold, struct ember_page_mask *out)
{
	struct ember_page_mask grown, occupied;
	unsigned int leaf, size, first, best_first, best_size;

	grow_to_big_pages(faulted, &grown);
	ember_mask_or(&occupied, resident, &grown);
	ember_mask_zero(out);

	for (leaf = 0; leaf < EMBER_BLOCK_PAGES; leaf += EMBER_BIG_PAGES) {
		if (!ember_mask_test(&grown, leaf))
			continue;
		best_first = leaf;
		best_size = EMBER_BIG_PAGES;
		for (size = EMBER_BIG_PAGES * 2; size <= EMBER_BLOCK_PAGES;
		     size *= 2) {
			first = leaf & ~(size - 1);
			if (ember_mask_count_range(&occupied, first, size) * 100 >
			    size * threshold) {
				best_first = first;
				best_size = size;
			}
		}
		ember_mask_set_range(out, best_first, best_size);
	}
}
