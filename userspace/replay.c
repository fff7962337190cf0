// SPDX-License-Identifier: MIT
/*
 * The replay's run (replay.h, docs/trace-replay.md): the plan's events in
 * the trace's order through libember. Allocations of every kind become
 * managed allocations of their scaled size with the variant's advice,
 * their input lines filled by the CPU, then the variant's prefetches (as
 * the applications do, buffer by buffer). Advice and prefetches go to
 * libember's calls; copies and memsets are done by the CPU (the pattern
 * written into the destination lines, the source lines read); each launch
 * with accesses is one launch of EMBER_KERNEL_TRACE over its streams,
 * rebased onto the replay's allocations, its result checked against the
 * same sum computed here. An allocation's lines are checked word by word
 * before it is freed (pattern where the plan says, zero elsewhere).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emgpu_hw.h"	/* the trace kernel's records and pattern */
#include "replay.h"
#include "runner.h"
#include "variants.h"
#include "workload.h"

#define LINE	128ull

struct replay_run {
	const struct em_wl_config *cfg;
	struct em_wl_result *r;
	struct em_replay_result *rr;
	struct em_replay_plan plan;
	uint32_t *live;
	size_t nlive;
	uint32_t slots;			/* the device's warps: one per SM slot */
	uint64_t (*table)[2];		/* managed, mapped to the CPU */
	uint32_t *recs;
	size_t table_bytes, recs_bytes;
};

static int run_fail(struct replay_run *x, const char *call, int ret)
{
	if (!x->r->ret) {
		x->r->ret = ret;
		x->r->failed = call;
	}
	return ret;
}

static uint64_t ptimer(void)
{
	struct ember_device_info info;

	return emGetDeviceInfo(&info) ? 0 : info.ptimer_ns;
}

static void fill_line(uint64_t seed, uint8_t *va)
{
	uint32_t *w = (uint32_t *)va;
	int k;

	for (k = 0; k < 32; k++)
		w[k] = emgpu_trace_word(seed, (uintptr_t)va + 4 * k);
}

static uint64_t line_sum(uint64_t seed, uint64_t va)
{
	uint64_t s = 0;
	int k;

	for (k = 0; k < 32; k++)
		s += emgpu_trace_word(seed, va + 4 * k);
	return s;
}

/*
 * The sum of line l of allocation a as a read finds it (its pattern),
 * computed once per line: a trace reads most lines many times, and under
 * TCG the 32 words of each read were the replayer's largest cost.
 */
static uint64_t alloc_line_sum(const struct replay_run *x, struct em_replay_alloc *a,
			       uint64_t l)
{
	uint64_t va = (uintptr_t)a->p + l * LINE;

	if (!a->sums && !(a->sums = calloc(a->lines, sizeof(*a->sums))))
		return line_sum(x->cfg->seed, va);	/* no room: each time */
	if (!a->sums[l])
		a->sums[l] = line_sum(x->cfg->seed, va);
	return a->sums[l];
}

/* A prefetch of len bytes at p to dev (libember rounds to pages), timed in setup_ns. */
static int timed_prefetch(struct replay_run *x, void *p, uint64_t len, int dev,
			  const char *call)
{
	uint64_t t0 = ptimer();
	int ret = emMemPrefetchAsync(p, len, dev);

	x->r->setup_ns += ptimer() - t0;
	return ret ? run_fail(x, call, ret) : 0;
}

/*
 * Device memory is the card's VRAM whatever the variant: moved to the GPU,
 * where a cudaMalloc'd buffer, or the card's own copy into it, leaves its
 * bytes.
 */
static int device_resident(struct replay_run *x, const struct em_replay_alloc *a,
			   uint64_t off, uint64_t len)
{
	return timed_prefetch(x, (uint8_t *)a->p + off, len, 0, "device_prefetch");
}

/*
 * The variant's calls are what the program's interposer does to managed
 * memory (docs/trace-replay.md); device and pinned host allocations keep
 * the place they have on the card in every variant: device memory in
 * VRAM, pinned host memory in sysmem mapped to the GPU.
 */
static int do_alloc(struct replay_run *x, uint32_t i)
{
	struct em_replay_alloc *a = &x->plan.allocs[i];
	uint64_t l, t0;
	int ret;

	ret = emMallocManaged(&a->p, a->size);
	if (ret) {
		a->p = NULL;
		return run_fail(x, "malloc_managed", ret);
	}
	x->r->footprint += emAllocSize(a->size);
	em_replay_live_add(&x->plan, x->live, &x->nlive, i);
	if (a->kind == TRACE_MEMORY_HOST) {
		ret = emMemAdvise(a->p, a->size, emMemAdviseSetPreferredLocation,
				  emCpuDeviceId);
		if (!ret)
			ret = emMemAdvise(a->p, a->size, emMemAdviseSetAccessedBy, 0);
		if (ret)
			return run_fail(x, "advise_host", ret);
	} else if (a->kind != TRACE_MEMORY_DEVICE &&
		   em_wl_variant(x->cfg->variant, a->p, a->size, x->r, 0)) {
		return x->r->ret;
	}
	for (l = 0; l < a->lines; l++)
		if (em_replay_bit(a->input, l))
			fill_line(x->cfg->seed, (uint8_t *)a->p + l * LINE);
	if (a->kind == TRACE_MEMORY_DEVICE)
		return device_resident(x, a, 0, a->size);
	if (a->kind == TRACE_MEMORY_HOST)
		return 0;
	t0 = ptimer();
	ret = em_wl_variant(x->cfg->variant, a->p, a->size, x->r, 1);
	x->r->setup_ns += ptimer() - t0;
	return ret;
}

/* Every word of a's lines: the pattern where the plan says, else zero. */
static void check_alloc(struct replay_run *x, const struct em_replay_alloc *a)
{
	const uint32_t *w = a->p;
	uint64_t l;
	int k;

	for (l = 0; l < a->lines; l++) {
		int pat = em_replay_bit(a->touched, l);

		for (k = 0; k < 32; k++) {
			uint64_t va = (uintptr_t)a->p + l * LINE + 4 * k;

			if (w[l * 32 + k] != (pat ? emgpu_trace_word(x->cfg->seed, va) : 0u))
				x->r->mismatches++;
		}
	}
	x->r->words_checked += a->lines * 32;
}

static void do_free(struct replay_run *x, uint32_t i)
{
	struct em_replay_alloc *a = &x->plan.allocs[i];

	if (!a->p)
		return;
	if (!x->r->ret)
		check_alloc(x, a);
	em_replay_live_remove(x->live, &x->nlive, i);
	emFree(a->p);
	a->p = NULL;
	free(a->sums);
	a->sums = NULL;
}

/* The replay's [start, end) of the card's [addr, addr + len) in a, whole pages. */
static void page_range(const struct em_replay_plan *p, const struct em_replay_alloc *a,
		       uint64_t addr, uint64_t len, uint64_t *start, uint64_t *end)
{
	uint64_t lo = addr > a->card_base ? addr : a->card_base;
	uint64_t hi = addr + len < a->card_base + a->card_size ? addr + len :
		      a->card_base + a->card_size;

	*start = em_replay_offset(p, a, lo) & ~4095ull;
	*end = (em_replay_offset(p, a, hi - 1) + LINE + 4095) & ~4095ull;
}

static int do_advise(struct replay_run *x, const struct trace_event *e)
{
	long k = em_replay_find(&x->plan, x->live, x->nlive, e->address, e->size);
	int dev = e->arg64 == TRACE_DEVICE_HOST ? emCpuDeviceId : 0, ret;
	enum emMemoryAdvise adv;
	uint64_t s, t;

	switch (e->arg32) {
	case TRACE_ADVISE_SET_PREFERRED_LOCATION: adv = emMemAdviseSetPreferredLocation; break;
	case TRACE_ADVISE_UNSET_PREFERRED_LOCATION: adv = emMemAdviseUnsetPreferredLocation; break;
	case TRACE_ADVISE_SET_ACCESSED_BY: adv = emMemAdviseSetAccessedBy; break;
	case TRACE_ADVISE_UNSET_ACCESSED_BY: adv = emMemAdviseUnsetAccessedBy; break;
	default:
		x->rr->advice_skipped++;	/* read-mostly: libember has none */
		return 0;
	}
	if (k < 0)
		return 0;
	page_range(&x->plan, &x->plan.allocs[k], e->address, e->size, &s, &t);
	ret = emMemAdvise((uint8_t *)x->plan.allocs[k].p + s, t - s, adv, dev);
	return ret ? run_fail(x, "trace_advise", ret) : 0;
}

static int do_prefetch(struct replay_run *x, const struct trace_event *e)
{
	long k = em_replay_find(&x->plan, x->live, x->nlive, e->address, e->size);
	uint64_t s, t;

	if (k < 0)
		return 0;
	page_range(&x->plan, &x->plan.allocs[k], e->address, e->size, &s, &t);
	return timed_prefetch(x, (uint8_t *)x->plan.allocs[k].p + s, t - s,
			      e->arg64 == TRACE_DEVICE_HOST ? emCpuDeviceId : 0,
			      "trace_prefetch");
}

/* A copy or memset by the CPU: dst lines get the pattern, src lines are read. */
static void do_cpu_copy(struct replay_run *x, const struct trace_event *e)
{
	const struct em_replay_plan *p = &x->plan;
	long k = em_replay_find(p, x->live, x->nlive, e->address, e->size);
	volatile uint32_t sink = 0;
	uint64_t s, t, o;

	if (k >= 0) {
		const struct em_replay_alloc *a = &p->allocs[k];
		uint64_t lo = e->address > a->card_base ? e->address : a->card_base;
		uint64_t hi = e->address + e->size < a->card_base + a->card_size ?
			      e->address + e->size : a->card_base + a->card_size;

		s = em_replay_offset(p, a, lo);
		t = em_replay_offset(p, a, hi - 1) + LINE;
		for (o = s; o < t; o += LINE)
			fill_line(x->cfg->seed, (uint8_t *)a->p + o);
		/* the card's copy engine writes device memory in place */
		if (a->kind == TRACE_MEMORY_DEVICE && device_resident(x, a, s, t - s))
			return;
	}
	if (e->kind == TRACE_EVENT_MEMCPY) {
		k = em_replay_find(p, x->live, x->nlive, e->arg64, e->size);
		if (k >= 0) {
			const struct em_replay_alloc *a = &p->allocs[k];
			uint64_t lo = e->arg64 > a->card_base ? e->arg64 : a->card_base;
			uint64_t hi = e->arg64 + e->size < a->card_base + a->card_size ?
				      e->arg64 + e->size : a->card_base + a->card_size;

			s = em_replay_offset(p, a, lo);
			t = em_replay_offset(p, a, hi - 1) + LINE;
			for (o = s; o < t; o += LINE)
				sink += *(const uint32_t *)((const uint8_t *)a->p + o);
			/* and reads it there */
			if (a->kind == TRACE_MEMORY_DEVICE && device_resident(x, a, s, t - s))
				return;
		}
	}
	(void)sink;
	x->rr->cpu_copies++;
}

/* The streams' buffers, once, as large as the largest launch needs. */
static int stream_buffers(struct replay_run *x)
{
	int ret;

	x->table_bytes = (x->plan.max_warps * 16 + 4095) & ~4095ull;
	x->recs_bytes = (x->plan.max_records * 4 + 4095) & ~4095ull;
	if (!x->table_bytes || !x->recs_bytes)
		return 0;	/* a timing-only trace: nothing is launched */
	ret = emMallocManaged((void **)&x->table, x->table_bytes);
	if (!ret)
		ret = emMallocManaged((void **)&x->recs, x->recs_bytes);
	if (ret)
		return run_fail(x, "malloc_streams", ret);
	/* zero-copy: the streams stay in sysmem, out of the trace's VRAM */
	ret = emMemAdvise(x->table, x->table_bytes, emMemAdviseSetPreferredLocation,
			  emCpuDeviceId);
	if (!ret)
		ret = emMemAdvise(x->table, x->table_bytes, emMemAdviseSetAccessedBy, 0);
	if (!ret)
		ret = emMemAdvise(x->recs, x->recs_bytes, emMemAdviseSetPreferredLocation,
				  emCpuDeviceId);
	if (!ret)
		ret = emMemAdvise(x->recs, x->recs_bytes, emMemAdviseSetAccessedBy, 0);
	return ret ? run_fail(x, "advise_streams", ret) : 0;
}

static int do_launch(struct replay_run *x, uint32_t li)
{
	const struct em_replay_plan *p = &x->plan;
	const struct trace_launch *tl = trace_get_launch(p->reader, li);
	const struct trace_launch *tt = p->timing ? trace_get_launch(p->timing, li) : tl;
	struct ember_launch l;
	struct trace_error terr;
	struct trace_records *s;
	uint64_t base = UINT64_MAX, end = 0, expect = 0, n = 0, ns = 0, result = 0;
	const uint64_t *recs;
	uint32_t id, cnt, r;
	size_t i, nw;
	long k = -1;
	int ret;

	if (!tl->access_count)
		return 0;	/* nothing recorded: nothing to replay */
	for (i = 0; i < x->nlive; i++) {
		const struct em_replay_alloc *a = &p->allocs[x->live[i]];

		if ((uintptr_t)a->p < base)
			base = (uintptr_t)a->p;
		if ((uintptr_t)a->p + a->size > end)
			end = (uintptr_t)a->p + a->size;
	}
	if ((end - base) / LINE > (1ull << 30))
		return run_fail(x, "trace_span", -E2BIG);
	/*
	 * Streamed a warp at a time into the device's table and records; the
	 * layout read these streams already and found every record's
	 * allocation.
	 */
	if (trace_records_open(p->reader, li, &s, &terr))
		goto bad_read;
	nw = trace_records_warps(s);
	for (i = 0; !(ret = trace_records_next(s, &id, &recs, &cnt, &terr)); i++) {
		if (i >= p->max_warps || cnt > p->max_records - n) {
			/* more than the layout read: the file changed since */
			trace_records_close(s);
			snprintf(x->rr->error, sizeof(x->rr->error), "%s: launch %u: more "
				 "records than the layout read", p->path, li);
			return run_fail(x, "trace_read", -EINVAL);
		}
		x->table[i][0] = n;
		x->table[i][1] = cnt;
		for (r = 0; r < cnt; r++, n++) {
			uint64_t line = trace_access_line(recs[r]);
			struct em_replay_alloc *a;
			uint32_t flags;
			uint64_t off, va;

			k = em_replay_find_line(p, x->live, x->nlive, line, k);
			if (k < 0) {	/* the file changed since the layout read it */
				trace_records_close(s);
				snprintf(x->rr->error, sizeof(x->rr->error), "%s: launch %u: a "
					 "line outside every allocation", p->path, li);
				return run_fail(x, "trace_read", -EINVAL);
			}
			a = &p->allocs[k];
			off = em_replay_offset(p, a, line);
			va = (uintptr_t)a->p + off;
			flags = (recs[r] & TRACE_ACCESS_READ ? EMGPU_TRACE_REC_READ : 0) |
				(recs[r] & TRACE_ACCESS_WRITE ? EMGPU_TRACE_REC_WRITE : 0);

			x->recs[n] = (uint32_t)((va - base) / LINE) << EMGPU_TRACE_REC_SHIFT | flags;
			if (flags & EMGPU_TRACE_REC_READ)
				expect += alloc_line_sum(x, a, off / LINE);
		}
	}
	trace_records_close(s);
	if (ret < 0)
		goto bad_read;
	memset(&l, 0, sizeof(l));
	l.kernel = EMBER_KERNEL_TRACE;
	l.warps = nw < x->slots ? (uint32_t)nw : x->slots;
	l.seed = x->cfg->seed;
	l.args[0] = (uintptr_t)x->table;
	l.args[1] = nw;
	l.args[2] = (uintptr_t)x->recs;
	l.args[3] = n;
	l.args[4] = base;
	l.args[5] = (end - base + LINE - 1) & ~(LINE - 1);
	l.args[6] = em_replay_compute_units(tt->gpu_time_ns, l.warps, n);
	ret = emLaunch(&l);
	if (ret)
		return run_fail(x, "launch", ret);
	ret = emDeviceSynchronize();
	emLastLaunch(&ns, &result);
	x->r->sim_ns += ns;
	x->r->result += result;
	x->r->expected_result += expect;
	x->rr->launches_replayed++;
	x->rr->card_ns += tt->gpu_time_ns;
	if (ret)
		return run_fail(x, "synchronize", ret);
	if (result == expect)
		x->rr->launches_ok++;
	return 0;
bad_read:
	snprintf(x->rr->error, sizeof(x->rr->error), "%s", terr.message);
	return run_fail(x, "trace_read", -EINVAL);
}

int em_replay_run(const struct em_wl_config *cfg, struct em_wl_result *r,
		  const char *timing_path, struct em_replay_result *rr)
{
	struct ember_device_info info;
	struct replay_run x;
	size_t i, total;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(rr, 0, sizeof(*rr));
	memset(&x, 0, sizeof(x));
	r->result_ok = -1;
	x.cfg = cfg;
	x.r = r;
	x.rr = rr;
	/*
	 * A bad file is refused before the device is opened; its streams are
	 * not checked here, but once on the host (em_replay_open()), and the
	 * layout looks up every record's allocation before the first launch.
	 */
	if (em_replay_open(&x.plan, cfg->kernel + strlen("trace:"), timing_path, false,
			   rr->error, sizeof(rr->error))) {
		fprintf(stderr, "ember-run: %s\n", rr->error);
		run_fail(&x, "trace", -EINVAL);
		goto out_plan;
	}
	snprintf(rr->trace, sizeof(rr->trace), "%s", x.plan.name);
	rr->trace_crc = x.plan.file_crc;
	if (!em_program_variant_ok(cfg->variant, false)) {
		run_fail(&x, "variant", -EINVAL);
		goto out_plan;
	}
	ret = emMemGetInfo(NULL, &total);
	if (!ret)
		ret = emGetDeviceInfo(&info);
	if (ret) {
		run_fail(&x, "mem_get_info", ret);
		goto out_plan;
	}
	r->vram = total;
	x.slots = info.num_sms * info.warps_per_sm;
	if (!x.slots) {
		/* a launch's warps and its compute per access are sized by it */
		run_fail(&x, "device_info", -ENODEV);
		goto out_plan;
	}
	if (em_replay_layout(&x.plan, (uint64_t)(cfg->factor * (double)total),
			     rr->error, sizeof(rr->error))) {
		fprintf(stderr, "ember-run: %s\n", rr->error);
		run_fail(&x, "trace_layout", -EINVAL);
		goto out_plan;
	}
	rr->scale = x.plan.scale;
	rr->trace_peak_bytes = x.plan.peak_bytes;
	rr->replay_peak_bytes = x.plan.replay_peak_bytes;
	rr->launches = trace_launch_count(x.plan.reader);
	rr->records = x.plan.records;
	rr->dropped = x.plan.dropped;
	rr->outside = x.plan.outside;
	rr->device_accesses = x.plan.device_accesses;
	rr->host_accesses = x.plan.host_accesses;
	rr->times_instrumented = x.plan.times_instrumented;
	x.live = calloc(EM_REPLAY_MAX_ALLOCS, sizeof(*x.live));
	if (!x.live) {
		run_fail(&x, "calloc", -ENOMEM);
		goto out_plan;
	}
	if (stream_buffers(&x))
		goto out;
	for (i = 0; i < trace_event_count(x.plan.reader) && !r->ret; i++) {
		const struct trace_event *e = trace_get_event(x.plan.reader, i);

		switch (e->kind) {
		case TRACE_EVENT_ALLOC: do_alloc(&x, x.plan.alloc_of_event[i]); break;
		case TRACE_EVENT_FREE: do_free(&x, x.plan.alloc_of_event[i]); break;
		case TRACE_EVENT_ADVISE: do_advise(&x, e); break;
		case TRACE_EVENT_PREFETCH: do_prefetch(&x, e); break;
		case TRACE_EVENT_MEMCPY:
		case TRACE_EVENT_MEMSET: do_cpu_copy(&x, e); break;
		case TRACE_EVENT_LAUNCH: do_launch(&x, e->arg32); break;
		case TRACE_EVENT_SYNC:
			ret = emDeviceSynchronize();
			if (ret)
				run_fail(&x, "synchronize", ret);
			break;
		default: break;
		}
	}
	if (!r->ret)
		r->result_ok = r->result == r->expected_result &&
			       rr->launches_ok == rr->launches_replayed;
out:
	emGetStatsCounted(&r->stats, &r->counted, 0);
	for (i = 0; i < x.plan.nallocs; i++)
		do_free(&x, (uint32_t)i);
	if (x.table)
		emFree(x.table);
	if (x.recs)
		emFree(x.recs);
	free(x.live);
out_plan:
	em_replay_close(&x.plan);
	return r->ret;
}

void em_replay_json(FILE *f, const struct em_replay_result *rr)
{
	fprintf(f, ",\"trace\":\"%s\",\"trace_crc32\":\"%08x\",\"trace_error\":\"",
		rr->trace, rr->trace_crc);
	/* the reader's message, quotes and backslashes escaped */
	for (const char *c = rr->error; *c; c++)
		fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
	fprintf(f, "\",\"trace_scale\":%.6f,\"trace_peak_bytes\":%" PRIu64
		",\"replay_peak_bytes\":%" PRIu64 ",\"trace_launches\":%" PRIu64
		",\"launches_replayed\":%" PRIu64 ",\"launches_ok\":%" PRIu64
		",\"trace_records\":%" PRIu64 ",\"trace_dropped\":%" PRIu64
		",\"trace_outside\":%" PRIu64 ",\"card_ns\":%" PRIu64
		",\"times_instrumented\":%d,\"advice_skipped\":%" PRIu64
		",\"cpu_copies\":%" PRIu64 ",\"device_accesses\":%" PRIu64
		",\"host_accesses\":%" PRIu64, rr->scale, rr->trace_peak_bytes,
		rr->replay_peak_bytes, rr->launches, rr->launches_replayed,
		rr->launches_ok, rr->records, rr->dropped, rr->outside, rr->card_ns,
		rr->times_instrumented, rr->advice_skipped, rr->cpu_copies,
		rr->device_accesses, rr->host_accesses);
}
