// SPDX-License-Identifier: MIT
/*
 * The replay's plan (replay.h): the trace opened and validated by libtrace,
 * its allocations scaled to the run's footprint, and the lines each
 * allocation must hold. No device: ember-agent checks a matrix's traces
 * with it on the host, every stream included, before any VM boots, and
 * tests/trace-replay runs it natively. In the guest the streams are read
 * unchecked (they were checked once, on the host): the layout's own
 * lookup of each record's allocation still refuses a line outside them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define LINE	128ull

static int plan_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void em_replay_live_add(const struct em_replay_plan *p, uint32_t *live,
			size_t *nlive, uint32_t i)
{
	size_t k = *nlive;

	while (k && p->allocs[live[k - 1]].card_base > p->allocs[i].card_base) {
		live[k] = live[k - 1];
		k--;
	}
	live[k] = i;
	(*nlive)++;
}

void em_replay_live_remove(uint32_t *live, size_t *nlive, uint32_t i)
{
	size_t k;

	for (k = 0; k < *nlive && live[k] != i; k++)
		;
	if (k == *nlive)
		return;
	memmove(&live[k], &live[k + 1], (*nlive - k - 1) * sizeof(*live));
	(*nlive)--;
}

long em_replay_find(const struct em_replay_plan *p, const uint32_t *live,
		    size_t nlive, uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi = nlive;
	uint64_t last = addr + len - 1;

	if (!len || last < addr)
		return -1;
	/* the last allocation whose base is at or below the range's end */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->allocs[live[mid]].card_base <= last)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo) {
		const struct em_replay_alloc *a = &p->allocs[live[--lo]];

		if (a->card_base + a->card_size > addr)
			return live[lo];
		break;
	}
	return -1;
}

long em_replay_find_line(const struct em_replay_plan *p, const uint32_t *live,
			 size_t nlive, uint64_t line, long hint)
{
	/* wholly inside it: no other live allocation can hold a byte of it */
	if (hint >= 0 && p->allocs[hint].card_size >= LINE &&
	    line >= p->allocs[hint].card_base &&
	    line - p->allocs[hint].card_base <= p->allocs[hint].card_size - LINE)
		return hint;
	return em_replay_find(p, live, nlive, line, LINE);
}

uint64_t em_replay_offset(const struct em_replay_plan *p,
			  const struct em_replay_alloc *a, uint64_t addr)
{
	uint64_t o = addr > a->card_base ? addr - a->card_base : 0, r;

	if (o >= a->card_size)
		o = a->card_size - 1;
	r = (uint64_t)((double)o * p->scale) & ~(LINE - 1);
	return r >= a->size ? a->size - LINE : r;
}

/*
 * The timing trace's launches are the accesses trace's, one by one: the
 * same kernel on the same grid of the same blocks (a launch's time is
 * spread over that launch's streams).
 */
uint64_t em_replay_compute_units(uint64_t card_ns, uint32_t warps,
				 uint64_t records)
{
	double units;

	/* the kernel's part: the device charges a launch of its own */
	if (!records || card_ns <= EM_REPLAY_CARD_LAUNCH_NS)
		return 0;
	units = 256.0 * (double)warps * (double)(card_ns - EM_REPLAY_CARD_LAUNCH_NS) *
		1000.0 / ((double)EM_REPLAY_CARD_CYCLE_PS * (double)records);
	return units > (double)(1ull << 32) ? 1ull << 32 : (uint64_t)units;
}

static int check_timing(struct em_replay_plan *p, const char *tpath, char *err,
			size_t errlen)
{
	size_t i, n = trace_launch_count(p->reader);

	if (trace_launch_count(p->timing) != n)
		return plan_error(err, errlen, "%s: %zu launches, %s has %zu", tpath,
				  trace_launch_count(p->timing), p->path, n);
	for (i = 0; i < n; i++) {
		const struct trace_launch *t = trace_get_launch(p->timing, i);
		const struct trace_launch *a = trace_get_launch(p->reader, i);

		if (strcmp(trace_get_launch_name(p->timing, i),
			   trace_get_launch_name(p->reader, i)))
			return plan_error(err, errlen, "%s: launch %zu is %s, not %s as in %s",
					  tpath, i, trace_get_launch_name(p->timing, i),
					  trace_get_launch_name(p->reader, i), p->path);
		if (memcmp(t->grid, a->grid, sizeof(a->grid)) ||
		    memcmp(t->block, a->block, sizeof(a->block)))
			return plan_error(err, errlen, "%s: launch %zu (%s) has grid %ux%ux%u of "
					  "%ux%ux%u, %s's grid %ux%ux%u of %ux%ux%u", tpath, i,
					  trace_get_launch_name(p->reader, i), t->grid[0],
					  t->grid[1], t->grid[2], t->block[0], t->block[1],
					  t->block[2], p->path, a->grid[0], a->grid[1],
					  a->grid[2], a->block[0], a->block[1], a->block[2]);
	}
	return 0;
}

/* Launch li's streams, read and checked by libtrace; its warps and their
 * records counted (the guest's memory, em_replay_memory()). */
static int check_launch_streams(struct em_replay_plan *p, size_t li, char *err,
				size_t errlen)
{
	struct trace_error terr;
	struct trace_warps *w;
	size_t i;

	if (trace_warps_open(p->reader, li, &w, &terr))
		return plan_error(err, errlen, "%s", terr.message);
	if (trace_warps_count(w) > p->max_warps)
		p->max_warps = trace_warps_count(w);
	for (i = 0; i < trace_warps_count(w); i++) {
		const uint64_t *recs;
		uint32_t id, n;

		trace_warps_get(w, i, &id, &recs, &n);
		if (n > p->max_warp_records)
			p->max_warp_records = n;
	}
	trace_warps_close(w);
	return 0;
}

int em_replay_open(struct em_replay_plan *p, const char *path,
		   const char *timing_path, bool check_streams, char *err, size_t errlen)
{
	struct trace_reader_limits lim;
	struct trace_error terr;
	uint32_t *live = NULL;
	size_t i, nev, nlive = 0;
	uint64_t live_bytes = 0;
	const char *slash;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (strchr(path, '/'))
		snprintf(p->path, sizeof(p->path), "%s", path);
	else
		snprintf(p->path, sizeof(p->path), "%s/%s", EM_REPLAY_TRACE_DIR, path);
	slash = strrchr(p->path, '/');
	p->name = slash ? slash + 1 : p->path;
	trace_reader_default_limits(&lim);
	if (trace_open(p->path, &lim, &p->reader, &terr))
		return plan_error(err, errlen, "%s", terr.message);
	p->file_crc = trace_get_info(p->reader)->file_crc32;
	p->file_size = trace_get_info(p->reader)->file_size;
	p->times_instrumented = !!(trace_get_info(p->reader)->flags &
				   TRACE_FLAG_TIMES_INSTRUMENTED);
	if (timing_path) {
		if (trace_open(timing_path, &lim, &p->timing, &terr))
			return plan_error(err, errlen, "%s", terr.message);
		if (check_timing(p, timing_path, err, errlen))
			return -1;
		p->times_instrumented = !!(trace_get_info(p->timing)->flags &
					   TRACE_FLAG_TIMES_INSTRUMENTED);
	}
	nev = trace_event_count(p->reader);
	p->alloc_of_event = calloc(nev ? nev : 1, sizeof(*p->alloc_of_event));
	live = calloc(EM_REPLAY_MAX_ALLOCS, sizeof(*live));
	if (!p->alloc_of_event || !live) {
		plan_error(err, errlen, "%s: out of memory", p->path);
		goto out;
	}
	for (i = 0; i < nev; i++) {
		const struct trace_event *e = trace_get_event(p->reader, i);
		struct em_replay_alloc *a;
		long k;

		if (e->kind == TRACE_EVENT_ALLOC) {
			if (p->nallocs == EM_REPLAY_MAX_ALLOCS) {
				plan_error(err, errlen, "%s: event %zu: more than %d allocations",
					   p->path, i, EM_REPLAY_MAX_ALLOCS);
				goto out;
			}
			if (!(p->nallocs & (p->nallocs + 1))) {
				void *n = realloc(p->allocs, (2 * p->nallocs + 1) * sizeof(*a));

				if (!n) {
					plan_error(err, errlen, "%s: out of memory", p->path);
					goto out;
				}
				p->allocs = n;
			}
			a = &p->allocs[p->nallocs];
			memset(a, 0, sizeof(*a));
			a->card_base = e->address;
			a->card_size = e->size;
			a->kind = e->arg32;
			p->alloc_of_event[i] = (uint32_t)p->nallocs;
			em_replay_live_add(p, live, &nlive, (uint32_t)p->nallocs++);
			live_bytes += e->size;
			if (live_bytes > p->peak_bytes)
				p->peak_bytes = live_bytes;
		} else if (e->kind == TRACE_EVENT_FREE) {
			k = em_replay_find(p, live, nlive, e->address, 1);
			if (k < 0 || p->allocs[k].card_base != e->address) {
				plan_error(err, errlen, "%s: event %zu: free of 0x%llx, no live "
					   "allocation's base", p->path, i,
					   (unsigned long long)e->address);
				goto out;
			}
			p->alloc_of_event[i] = (uint32_t)k;
			em_replay_live_remove(live, &nlive, (uint32_t)k);
			live_bytes -= p->allocs[k].card_size;
		}
	}
	for (i = 0; i < trace_launch_count(p->reader); i++) {
		const struct trace_launch *l = trace_get_launch(p->reader, i);
		const struct trace_launch *t = p->timing ? trace_get_launch(p->timing, i) : l;

		/* every line of every launch inside an allocation live at it */
		if (check_streams && check_launch_streams(p, i, err, errlen))
			goto out;
		p->records += l->access_count;
		p->dropped += l->dropped_count;
		p->outside += l->outside_count;
		if (l->access_count)
			p->card_ns += t->gpu_time_ns;
		if (l->access_count > p->max_records)
			p->max_records = l->access_count;
	}
	if (!p->peak_bytes) {
		plan_error(err, errlen, "%s: no allocation to replay", p->path);
		goto out;
	}
	ret = 0;
out:
	free(live);
	return ret;
}

/* Marks [addr, addr + len) of allocation a written (a CPU copy or memset). */
static void mark_range(const struct em_replay_plan *p, struct em_replay_alloc *a,
		       uint64_t addr, uint64_t len)
{
	uint64_t lo = addr > a->card_base ? addr : a->card_base;
	uint64_t hi = addr + len < a->card_base + a->card_size ? addr + len :
		      a->card_base + a->card_size;
	uint64_t l, first = em_replay_offset(p, a, lo) / LINE;
	uint64_t last = em_replay_offset(p, a, hi - 1) / LINE;

	for (l = first; l <= last; l++) {
		em_replay_set(a->written, l);
		em_replay_set(a->touched, l);
	}
}

/*
 * One launch, its streams read once a warp at a time: its reads of lines
 * no earlier launch or copy wrote are inputs (whatever order its warps
 * run in, a read may come before its own launch's writes), then its writes
 * count for the launches after it.
 */
static int layout_launch(struct em_replay_plan *p, size_t li, const uint32_t *live,
			 size_t nlive, char *err, size_t errlen)
{
	struct trace_error terr;
	struct trace_records *s;
	const uint64_t *recs;
	uint32_t id, n, r;
	size_t i;
	long k = -1;
	int rc;

	/* checked once, by em_replay_open() on the host: see the top */
	if (trace_records_open(p->reader, li, &s, &terr))
		return plan_error(err, errlen, "%s", terr.message);
	if (trace_records_warps(s) > p->max_warps)
		p->max_warps = trace_records_warps(s);
	while (!(rc = trace_records_next(s, &id, &recs, &n, &terr))) {
		for (r = 0; r < n; r++) {
			uint64_t line = trace_access_line(recs[r]);
			struct em_replay_alloc *a;
			uint64_t l, acc;

			k = em_replay_find_line(p, live, nlive, line, k);
			if (k < 0) {
				trace_records_close(s);
				return plan_error(err, errlen, "%s: launch %zu warp %u record %u: "
						  "line 0x%llx outside every allocation",
						  p->path, li, id, r, (unsigned long long)line);
			}
			a = &p->allocs[k];
			l = em_replay_offset(p, a, line) / LINE;
			/* an atomic is two accesses, its load and its store */
			acc = !!(recs[r] & TRACE_ACCESS_READ) + !!(recs[r] & TRACE_ACCESS_WRITE);
			if (a->kind == TRACE_MEMORY_DEVICE)
				p->device_accesses += acc;
			else if (a->kind == TRACE_MEMORY_HOST)
				p->host_accesses += acc;
			if ((recs[r] & TRACE_ACCESS_READ) && !em_replay_bit(a->written, l)) {
				em_replay_set(a->input, l);
				em_replay_set(a->touched, l);
			}
			if (recs[r] & TRACE_ACCESS_WRITE) {
				em_replay_set(a->written_now, l);
				em_replay_set(a->touched, l);
				a->launch_wrote = true;
			}
		}
	}
	trace_records_close(s);
	if (rc < 0)
		return plan_error(err, errlen, "%s", terr.message);
	for (i = 0; i < nlive; i++) {
		struct em_replay_alloc *a = &p->allocs[live[i]];
		uint64_t b, bytes = (a->lines + 7) / 8;

		if (!a->launch_wrote)
			continue;
		for (b = 0; b < bytes; b++)
			a->written[b] |= a->written_now[b];
		memset(a->written_now, 0, bytes);
		a->launch_wrote = false;
	}
	return 0;
}

int em_replay_layout(struct em_replay_plan *p, uint64_t target_bytes, char *err,
		     size_t errlen)
{
	uint32_t *live = calloc(EM_REPLAY_MAX_ALLOCS, sizeof(*live));
	size_t i, nlive = 0;
	uint64_t live_bytes = 0;
	int ret = -1;

	if (!live)
		return plan_error(err, errlen, "%s: out of memory", p->path);
	p->scale = (double)target_bytes / (double)p->peak_bytes;
	p->replay_peak_bytes = 0;
	p->device_accesses = p->host_accesses = 0;
	for (i = 0; i < p->nallocs; i++) {
		struct em_replay_alloc *a = &p->allocs[i];
		double s = (double)a->card_size * p->scale;
		size_t mb;

		if (s > (double)(1ull << 46)) {
			plan_error(err, errlen, "%s: allocation %zu scaled to %.0f bytes",
				   p->path, i, s);
			goto out;
		}
		a->size = ((uint64_t)s + LINE - 1) & ~(LINE - 1);
		if (!a->size)
			a->size = LINE;
		a->lines = a->size / LINE;
		mb = (size_t)((a->lines + 7) / 8);
		free(a->input);
		free(a->touched);
		free(a->written);
		free(a->written_now);
		a->input = calloc(mb, 1);
		a->touched = calloc(mb, 1);
		a->written = calloc(mb, 1);
		a->written_now = calloc(mb, 1);
		a->launch_wrote = false;
		if (!a->input || !a->touched || !a->written || !a->written_now) {
			plan_error(err, errlen, "%s: out of memory", p->path);
			goto out;
		}
	}
	for (i = 0; i < trace_event_count(p->reader); i++) {
		const struct trace_event *e = trace_get_event(p->reader, i);
		long k;

		switch (e->kind) {
		case TRACE_EVENT_ALLOC:
			em_replay_live_add(p, live, &nlive, p->alloc_of_event[i]);
			live_bytes += p->allocs[p->alloc_of_event[i]].size;
			if (live_bytes > p->replay_peak_bytes)
				p->replay_peak_bytes = live_bytes;
			break;
		case TRACE_EVENT_FREE:
			em_replay_live_remove(live, &nlive, p->alloc_of_event[i]);
			live_bytes -= p->allocs[p->alloc_of_event[i]].size;
			break;
		case TRACE_EVENT_MEMCPY:
		case TRACE_EVENT_MEMSET:
			k = em_replay_find(p, live, nlive, e->address, e->size);
			if (k >= 0)
				mark_range(p, &p->allocs[k], e->address, e->size);
			break;
		case TRACE_EVENT_LAUNCH:
			if (layout_launch(p, e->arg32, live, nlive, err, errlen))
				goto out;
			break;
		default:
			break;
		}
	}
	ret = 0;
out:
	free(live);
	return ret;
}

void em_replay_memory(const struct em_replay_plan *p, uint64_t footprint,
		      struct em_replay_memory *m)
{
	uint64_t lines;

	m->file = p->file_size + (p->timing ? trace_get_info(p->timing)->file_size : 0);
	/* each allocation rounded up to a line (em_replay_layout) */
	m->footprint = footprint + p->nallocs * LINE;
	lines = m->footprint / LINE;
	m->maps = 4 * ((lines + 7) / 8 + p->nallocs) + 8 * lines;
	/*
	 * The device's table (16 bytes a warp) and records (4 each), whole
	 * pages; the reader's warp table (8 a warp), its read chunk and one
	 * warp's records (at most the launch's, 8 each).
	 */
	m->launch = ((p->max_warps * 16 + 4095) & ~4095ull) +
		    ((p->max_records * 4 + 4095) & ~4095ull) + 8 * p->max_warps +
		    (1ull << 20) + 8 * p->max_warp_records;
	m->total = m->file + m->footprint + m->launch + m->maps;
}

void em_replay_close(struct em_replay_plan *p)
{
	size_t i;

	for (i = 0; i < p->nallocs; i++) {
		free(p->allocs[i].input);
		free(p->allocs[i].touched);
		free(p->allocs[i].written);
		free(p->allocs[i].written_now);
		free(p->allocs[i].sums);
	}
	free(p->allocs);
	free(p->alloc_of_event);
	if (p->reader)
		trace_close(p->reader);
	if (p->timing)
		trace_close(p->timing);
	memset(p, 0, sizeof(*p));
}
