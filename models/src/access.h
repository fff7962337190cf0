/* SPDX-License-Identifier: MIT */
/*
 * libgpumodel internals: what a warp's access costs once its personality
 * has translated it (sm.c's path, ga10x/sm.c's): the VRAM and link queues,
 * the host lines a write reaches, the chunk a copy still writes, and the
 * line copies. Inline: every modelled access comes through here.
 */
#ifndef GM_ACCESS_H
#define GM_ACCESS_H

#include "internal.h"

/*
 * Charges one access to queue q. The queue is work-conserving (busy grows
 * by every transfer, so throughput never exceeds the bandwidth), but
 * warps are simulated in slices, so an access may arrive with a time up
 * to one epoch before a transfer already booked by another warp; the
 * access therefore waits only for the part of the backlog beyond that
 * skew. Under saturation the completion times trail busy by a constant
 * epoch and the sharing is exact; unsaturated, out-of-order arrivals do
 * not wait for each other.
 */
static inline void gm_charge(struct gm_queue *q, struct gm_warp *w,
			     gm_time_t xfer, gm_time_t per_warp)
{
	gm_time_t start = w->t > q->busy ? w->t : q->busy;
	gm_time_t backlog, t;

	q->busy = start + xfer;
	backlog = q->busy > GM_EPOCH_PS ? q->busy - GM_EPOCH_PS : 0;
	t = w->t + (per_warp > xfer ? per_warp : xfer);
	w->t = t > backlog ? t : backlog;
}

/*
 * A VRAM access waits for a copy still writing its chunk: a background
 * copy (a promotion on the notification thread) moves the bytes at its
 * doorbell in the model, but they arrive only at its modelled completion.
 */
static inline void gm_wait_ready(const struct gm_gpu *g, struct gm_warp *w,
				 uint64_t pa)
{
	gm_time_t ready = g->chunk_ready[pa >> GM_CHUNK_SHIFT];

	if (ready > w->t)
		w->t = ready;
}

/*
 * Link time of a sysmem access: a 128-byte line, or without
 * link_req_ps (the profile models lines only) any access. Otherwise its
 * 32-byte sectors.
 */
static inline gm_time_t gm_sysmem_xfer(const struct gm_gpu *g, uint64_t pa,
				       uint32_t len, gm_time_t per_128)
{
	uint32_t first = (pa & 127) >> 5, last = ((pa & 127) + len - 1) >> 5;

	if (!g->link_req_ps || len >= 128)
		return per_128;
	if (last > 3)
		last = 3;
	return per_128 * (last - first + 1) / 4;
}

/*
 * A sysmem access over the link in one direction: its bytes on the link's
 * queue and one request on its direction's request queue (req_ps each,
 * none if 0: small requests reach that rate before the bandwidth); the
 * warp waits for the later of the two. Counted if counting is on.
 */
static inline void gm_account_sysmem(struct gm_gpu *g, struct gm_warp *w,
				     uint64_t va, uint64_t pa, uint32_t len,
				     int count, struct gm_queue *link,
				     gm_time_t per_128, struct gm_queue *req_q,
				     gm_time_t req_ps)
{
	gm_time_t per_warp = gm_max(g->prof.access_issue_ps, g->link_lat_ps);
	gm_time_t t0 = w->t, t1;

	if (g->untimed)
		return;
	g->st.sysmem_accesses++;
	gm_charge(link, w, gm_sysmem_xfer(g, pa, len, per_128), per_warp);
	if (req_ps) {
		t1 = w->t;
		w->t = t0;
		gm_charge(req_q, w, req_ps, per_warp);
		if (t1 > w->t)
			w->t = t1;
	}
	if (count)
		gm_ac_count(g, va);
}

/* A VRAM access: waits for a copy still writing the chunk, then the queue. */
static inline void gm_account_vram(struct gm_gpu *g, struct gm_warp *w,
				   uint64_t pa)
{
	if (g->untimed)
		return;
	gm_wait_ready(g, w, pa);
	g->st.vram_accesses++;
	gm_charge(&g->vram_q, w, g->vram_128_ps,
		  gm_max(g->prof.access_issue_ps, g->vram_lat_ps));
}

/* Bytes ahead of a VRAM line read that the host cache is asked to fetch. */
#define GM_PREFETCH_AHEAD	1024

/*
 * VRAM lines: a warp's line never crosses a chunk (at most 128 bytes within
 * one 128-byte line), so the common case reads or writes one chunk with a
 * copy the compiler inlines; anything else (a poisoned chunk, a range
 * error, a first write) goes through gm_vram_read/write, which give the
 * same bytes, errors and injection counts.
 */
static inline int gm_vram_line_read(struct gm_gpu *g, uint64_t pa, void *buf,
				    uint32_t len)
{
	uint64_t c = pa >> GM_CHUNK_SHIFT, off = pa & (GM_CHUNK_SIZE - 1);
	const uint8_t *chunk;

	if (c >= g->nchunks || off + len > GM_CHUNK_SIZE || g->chunk_poison[c])
		return gm_vram_read(g, pa, buf, len);
	chunk = g->vram[c];
	if (!chunk) {
		memset(buf, 0, len);
	} else if (len == 128) {
		/* a host-cache hint for sweeps (a few lines ahead, same chunk);
		 * nothing modelled depends on it */
		if (off + GM_PREFETCH_AHEAD < GM_CHUNK_SIZE)
			__builtin_prefetch(chunk + off + GM_PREFETCH_AHEAD);
		memcpy(buf, chunk + off, 128);
	} else {
		memcpy(buf, chunk + off, len);
	}
	return 0;
}

static inline int gm_vram_line_write(struct gm_gpu *g, uint64_t pa,
				     const void *buf, uint32_t len)
{
	uint64_t c = pa >> GM_CHUNK_SHIFT, off = pa & (GM_CHUNK_SIZE - 1);
	uint8_t *chunk;

	if (c >= g->nchunks || off + len > GM_CHUNK_SIZE || !g->vram[c])
		return gm_vram_write(g, pa, buf, len);
	chunk = g->vram[c];
	if (len == 128)
		memcpy(chunk + off, buf, 128);
	else
		memcpy(chunk + off, buf, len);
	return 0;
}

/*
 * A sysmem write's request time. The host merges a partial write into its
 * 64-byte line, reading the line first unless it holds it: a line a write
 * reached recently (its host_lines slot) or one this write covers whole
 * costs link_whit_ps, any other link_wreq_ps. Marks the lines reached.
 *
 * Lines are named by the GPU virtual address: the physical pages behind a
 * buffer are the guest kernel's allocator's choice, which changes from boot
 * to boot, and with them which lines share a slot, so a physical name would
 * make the same program's time differ from run to run. (Page-aligned
 * mappings keep a write's offset in its line the same under both names.)
 */
static inline gm_time_t gm_sysmem_write_req_ps(struct gm_gpu *g,
						uint64_t va, uint32_t len)
{
	uint64_t line = va >> GM_HOST_LINE_SHIFT;
	uint64_t last = (va + len - 1) >> GM_HOST_LINE_SHIFT;
	uint64_t *slot;
	int held = 1;

	if (!g->link_whit_ps)
		return g->link_wreq_ps;
	for (; line <= last; line++) {
		slot = &g->host_lines[(line * 0x9e3779b97f4a7c15ull) >>
				      (64 - GM_HOST_LINE_SLOTS_SHIFT)];
		if (*slot != line + 1 && (va > line << GM_HOST_LINE_SHIFT ||
					  va + len < (line + 1) << GM_HOST_LINE_SHIFT))
			held = 0;
		*slot = line + 1;
	}
	return held ? g->link_whit_ps : g->link_wreq_ps;
}

#endif /* GM_ACCESS_H */
