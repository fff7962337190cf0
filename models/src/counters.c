/* SPDX-License-Identifier: MIT */
/*
 * Access counters: a fixed number (profile) of counters over regions of
 * the configured granularity (64 KiB, 2 MiB or 16 MiB), counting GPU
 * accesses through sysmem PTEs without EMGPU_PTE_ACD while AC_CTRL is
 * enabled. A counter that reaches THRESHOLD writes one notification (C365-
 * like) into its ring and stops notifying (it keeps counting, saturating
 * at 0xffff) until cleared. The GPU never stalls on counters.
 *
 * The counters are a cache of regions, as NVIDIA describes its "access
 * tracking unit" (patents US 9,940,286 B2, US 10,331,603 B2 and
 * US 11,210,253 B2, "PCIe traffic tracking hardware in a unified virtual
 * memory system"): an access to a tracked region increments its counter;
 * an untracked one takes an unused entry, else invalidates a valid entry
 * and reassigns it, its count starting anew, so the count of the region it
 * held is lost (no notification for it is described). Which valid entry is
 * taken is not public (nvidia-uvm sees only the notification's BANK and
 * TAG, "opaque fields provided by HW" for a targeted clear).
 *
 * Allocation is deterministic: a region without a counter takes the free
 * counter with the lowest index; when none is free, the least recently
 * counted one that is not waiting for a clear (if all are, the access is
 * not counted). Not a clock hand (first in, first out): then an entry
 * lives about N / r accesses when a share r of them go to untracked
 * regions, N the number of counters, and the scaling rule divides N by k
 * but not the threshold (docs/model.md), so a scaled card would drop a
 * hot region's count k times sooner than the card it stands for (Figure
 * 16's window at 10 % randomness: about 70 accesses on 8 counters, 2300 on
 * 256, against a threshold of 256). Least recently counted keeps a region
 * as long as fewer than N other regions come between two of its accesses.
 */
#include <stdlib.h>

#include "internal.h"

int gm_ac_init(struct gm_gpu *g)
{
	g->ctr = calloc(g->prof.num_access_counters, sizeof(*g->ctr));
	return g->ctr ? 0 : -1;
}

void gm_ac_reset(struct gm_gpu *g)
{
	uint32_t i;

	memset(g->ctr, 0, g->prof.num_access_counters * sizeof(*g->ctr));
	for (i = 0; i < g->prof.num_access_counters; i++) {
		g->ctr[i].next = -1;
		g->ctr[i].newer = -1;
		g->ctr[i].older = -1;
	}
	for (i = 0; i < GM_AC_HASH; i++)
		g->ac_hash[i] = -1;
	g->ac_newest = -1;
	g->ac_oldest = -1;
	g->ac_used = 0;
	g->ac_last = -1;
}

void gm_ac_set_config(struct gm_gpu *g, uint32_t config)
{
	static const uint8_t shifts[] = { 16, 21, 24 };
	uint32_t gran = (config & EMGPU_AC_CONFIG_GRAN_MASK) >>
			EMGPU_AC_CONFIG_GRAN_SHIFT;

	if (!(config & EMGPU_AC_CONFIG_THRESHOLD_MASK) || gran > 2) {
		gm_error(g, EMGPU_ERR_BAD_VALUE, EMGPU_REG_AC_CONFIG);
		return;
	}
	if (shifts[gran] != g->ac_gran_shift && g->ac_gran_shift)
		gm_ac_reset(g);
	g->ac_config = config;
	g->ac_gran_shift = shifts[gran];
}

/*
 * Which chain a region's counter hangs on. Only the lookup's speed depends
 * on it: a counter is found by its region, and allocation goes by index.
 */
static uint32_t hash_region(uint64_t region)
{
	return (uint32_t)((region * 0x9e3779b97f4a7c15ull) >> (64 - GM_AC_HASH_BITS));
}

static void recency_remove(struct gm_gpu *g, int32_t idx)
{
	struct gm_counter *c = &g->ctr[idx];

	if (c->newer >= 0)
		g->ctr[c->newer].older = c->older;
	else
		g->ac_newest = c->older;
	if (c->older >= 0)
		g->ctr[c->older].newer = c->newer;
	else
		g->ac_oldest = c->newer;
	c->newer = -1;
	c->older = -1;
}

static void recency_push_newest(struct gm_gpu *g, int32_t idx)
{
	struct gm_counter *c = &g->ctr[idx];

	c->newer = -1;
	c->older = g->ac_newest;
	if (g->ac_newest >= 0)
		g->ctr[g->ac_newest].newer = idx;
	else
		g->ac_oldest = idx;
	g->ac_newest = idx;
}

static void unlink_counter(struct gm_gpu *g, int32_t idx)
{
	int32_t *p = &g->ac_hash[hash_region(g->ctr[idx].region)];

	while (*p != -1 && *p != idx)
		p = &g->ctr[*p].next;
	if (*p == idx)
		*p = g->ctr[idx].next;
	g->ctr[idx].next = -1;
	recency_remove(g, idx);
	g->ac_used--;
	g->ctr[idx].used = 0;
	g->ctr[idx].notified = 0;
	g->ctr[idx].count = 0;
	g->ctr[idx].sub_mask = 0;
}

static int32_t alloc_counter(struct gm_gpu *g, uint64_t region)
{
	uint32_t n = g->prof.num_access_counters, i;
	int32_t found = -1;

	for (i = 0; g->ac_used < n && i < n; i++)	/* lowest free first */
		if (!g->ctr[i].used) {
			found = (int32_t)i;
			break;
		}
	if (found < 0) {
		for (found = g->ac_oldest; found >= 0 && g->ctr[found].notified;)
			found = g->ctr[found].newer;
		if (found < 0)
			return -1;
		unlink_counter(g, found);
	}
	g->ctr[found].region = region;
	g->ctr[found].used = 1;
	g->ac_used++;
	g->ctr[found].next = g->ac_hash[hash_region(region)];
	g->ac_hash[hash_region(region)] = found;
	recency_push_newest(g, found);
	return found;
}

/* Writes one entry; 0, 1 when the ring is full, or -error. */
static int ac_push(struct gm_gpu *g, const struct emgpu_notify_entry *ent)
{
	struct gm_ring *r = &g->ac;
	int rc;

	if (!gm_ring_valid(r, 32) || ((r->put + 1) & (r->size - 1)) == r->get)
		return 1;
	rc = gm_dma_write(g, r->base + sizeof(*ent) * (uint64_t)r->put, ent,
			  sizeof(*ent));
	if (rc)
		return rc;
	r->put = (r->put + 1) & (r->size - 1);
	return 0;
}

/* emgpu's notification: one emgpu_notify_entry at the AC ring's PUT */
void gm_emgpu_ac_notify(struct gm_gpu *g, int32_t idx)
{
	struct gm_counter *c = &g->ctr[idx];
	uint64_t addr = c->region << g->ac_gran_shift;
	uint32_t tag = (uint32_t)idx;
	struct emgpu_notify_entry ent;
	int rc;

	c->notified = 1;
	if (gm_inject_check(g, GM_INJ_NOTIFY_DROP, addr, 1))
		return;
	if (gm_inject_check(g, GM_INJ_NOTIFY_CORRUPT, addr, 1)) {
		addr ^= 0x5a5a5000ull | 1;
		tag = EMGPU_NOTIFY_TAG_MASK;
	}
	ent.info = emgpu_cpu_to_le32(EMGPU_APERTURE_SYSMEM << 8); /* MIMC, sysmem */
	ent.reserved = emgpu_cpu_to_le32(0);
	ent.addr = emgpu_cpu_to_le64(addr);
	ent.sub_mask = emgpu_cpu_to_le32(c->sub_mask);
	ent.tag = emgpu_cpu_to_le32(tag & EMGPU_NOTIFY_TAG_MASK);
	ent.counter = emgpu_cpu_to_le32(c->count & EMGPU_NOTIFY_COUNTER_MASK);
	ent.flags = emgpu_cpu_to_le32(EMGPU_NOTIFY_VALID);
	rc = ac_push(g, &ent);
	if (rc < 0) {
		gm_error(g, -rc, g->ac.put);
		return;
	}
	if (rc > 0) {
		c->notified = 0;	/* not lost: notifies again on its next access */
		g->ac.status |= EMGPU_RING_OVERFLOW;
		g->st.notify_overflows++;
		gm_event(g, GM_EV_OVERFLOW, addr, tag, 1);
	} else {
		g->st.notifications++;
		gm_event(g, GM_EV_NOTIFY, addr, tag, c->count);
		if (gm_inject_check(g, GM_INJ_NOTIFY_DUP, addr, 1) &&
		    ac_push(g, &ent) == 0) {
			g->st.notifications++;
			gm_event(g, GM_EV_NOTIFY, addr, tag, ~0ull);
		}
	}
	g->notify_pending = 1;
	gm_raise(g, EMGPU_INTR_ACCESS_COUNTER);
}

void gm_ac_count(struct gm_gpu *g, uint64_t va)
{
	uint64_t region = va >> g->ac_gran_shift;
	int32_t idx = g->ac_last;
	struct gm_counter *c;

	/*
	 * A sweep counts one region many times in a row; the counter found
	 * last is also the most recently counted, so it needs no move.
	 */
	if (idx < 0 || !g->ctr[idx].used || g->ctr[idx].region != region) {
		idx = g->ac_hash[hash_region(region)];
		while (idx >= 0 && g->ctr[idx].region != region)
			idx = g->ctr[idx].next;
		if (idx < 0) {
			idx = alloc_counter(g, region);
			if (idx < 0)
				return;
		} else if (idx != g->ac_newest) {
			recency_remove(g, idx);
			recency_push_newest(g, idx);
		}
		g->ac_last = idx;
	}
	c = &g->ctr[idx];
	if (c->count < 0xffff)
		c->count++;
	c->sub_mask |= 1u << ((va >> (g->ac_gran_shift - 5)) & 31);
	if (!c->notified &&
	    c->count >= (g->ac_config & EMGPU_AC_CONFIG_THRESHOLD_MASK))
		g->pers.ops->ac_notify(g, idx);
}

void gm_ac_clear(struct gm_gpu *g, uint32_t mode, uint32_t tag)
{
	if (mode == EMGPU_AC_CLEAR_ALL) {
		gm_ac_reset(g);
	} else if (mode == EMGPU_AC_CLEAR_TARGETED &&
		   tag < g->prof.num_access_counters) {
		if (g->ctr[tag].used)
			unlink_counter(g, (int32_t)tag);
	} else {
		gm_error(g, EMGPU_ERR_BAD_VALUE,
			 mode == EMGPU_AC_CLEAR_TARGETED ? EMGPU_REG_AC_CLEAR_TAG
							 : EMGPU_REG_AC_CLEAR);
		return;
	}
	gm_event(g, GM_EV_AC_CLEAR, mode, tag, 0);
}
