// SPDX-License-Identifier: MIT
/*
 * Workloads over libember (workload.h): the microbenchmarks' steps for
 * the runner (apps.c, runner.h), the variants' calls, the read-back after
 * a failed launch, the health check and the JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "gpumodel/hotset.h"	/* hotset's items, for its reference */
#include "gpumodel/splitmix64.h"	/* the model kernels' draws */
#include "workload.h"
#include "runner.h"

#define LINE_BYTES	128
#define LINE_WORDS	(LINE_BYTES / 4)

struct em_buf {
	uint32_t *p;
	size_t bytes;
};

static uint32_t fill_word(uint64_t seed, uint64_t i)
{
	return (uint32_t)(i * 2654435761u) ^ (uint32_t)(seed * 40503u);
}

static void fill(struct em_buf *b, uint64_t seed)
{
	size_t i, n = b->bytes / 4;

	for (i = 0; i < n; i++)
		b->p[i] = fill_word(seed, i);
}

static int fail(struct em_wl_result *r, const char *call, int ret)
{
	if (!r->ret) {
		r->ret = ret;
		r->failed = call;
	}
	return ret;
}

/* Listing 1's calls for one allocation, as the variant asks. */
static int apply_variant(const char *v, struct em_buf *b, struct em_wl_result *r,
			 int phase)
{
	size_t free_b = 0, n;
	int ret;

	if (phase == 0 && (!strcmp(v, "mapped") || !strcmp(v, "static"))) {
		ret = emMemAdvise(b->p, b->bytes, emMemAdviseSetPreferredLocation,
				  emCpuDeviceId);
		if (ret)
			return fail(r, "advise_preferred", ret);
		ret = emMemAdvise(b->p, b->bytes, emMemAdviseSetAccessedBy, 0);
		if (ret)
			return fail(r, "advise_accessed_by", ret);
	}
	if (phase == 1 && !strcmp(v, "prefetch")) {
		ret = emMemPrefetchAsync(b->p, b->bytes, 0);
		if (ret)
			return fail(r, "prefetch", ret);
	}
	if (phase == 1 && !strcmp(v, "static")) {
		ret = emMemGetInfo(&free_b, NULL);
		if (ret)
			return fail(r, "mem_get_info", ret);
		n = free_b < b->bytes ? free_b : b->bytes;
		n &= ~(size_t)4095;
		if (n) {
			ret = emMemPrefetchAsync(b->p, n, 0);
			if (ret)
				return fail(r, "prefetch", ret);
		}
	}
	return 0;
}

static int alloc_buf(struct em_buf *b, size_t bytes, struct em_wl_result *r)
{
	int ret;

	b->bytes = bytes;
	ret = emMallocManaged((void **)&b->p, bytes);
	if (ret)
		return fail(r, "malloc_managed", ret);
	r->footprint += emAllocSize(bytes);
	return 0;
}

/*
 * One launch of l, waited for: its modelled time into r->sim_ns and its
 * result into *result, also after a failed synchronize (what the driver
 * reported for it).
 */
static int launch(const struct em_wl_config *cfg, struct ember_launch *l,
		  struct em_wl_result *r, uint64_t *result)
{
	int ret;

	l->seed = cfg->seed;
	l->warps = cfg->warps;
	ret = emLaunch(l);
	if (ret)
		return fail(r, "launch", ret);
	ret = emDeviceSynchronize();
	emLastLaunch(&r->sim_ns, result);
	if (ret)
		return fail(r, "synchronize", ret);
	return 0;
}

static void check_stream(const struct em_wl_config *cfg, struct em_buf *b,
			 uint32_t passes, struct em_wl_result *r)
{
	size_t i, n = b->bytes / 4;
	uint64_t sum = 0;
	uint32_t p, f;

	for (i = 0; i < n; i++) {
		f = fill_word(cfg->seed, i);
		for (p = 0; p < passes; p++)
			sum += (uint32_t)(f + p);
		if (b->p[i] != (uint32_t)(f + passes))
			r->mismatches++;
	}
	r->words_checked += n;
	r->expected_result = sum;
}

static void check_unchanged(const struct em_wl_config *cfg, struct em_buf *b,
			    struct em_wl_result *r)
{
	size_t i, n = b->bytes / 4;

	for (i = 0; i < n; i++)
		if (b->p[i] != fill_word(cfg->seed, i))
			r->mismatches++;
	r->words_checked += n;
}

static void check_gather(const struct em_wl_config *cfg, struct em_buf *src,
			 struct em_buf *dst, uint64_t count,
			 struct em_wl_result *r)
{
	uint64_t k, lines = src->bytes / LINE_BYTES, sum = 0;
	uint32_t v, w;

	for (k = 0; k < count; k++) {
		uint64_t line = gm_mix64(cfg->seed + k) % lines;

		v = 0;
		for (w = 0; w < LINE_WORDS; w++)
			v += fill_word(cfg->seed, line * LINE_WORDS + w);
		sum += v;
		if (dst->p[k] != v)
			r->mismatches++;
	}
	r->words_checked += count;
	r->expected_result = sum;
	check_unchanged(cfg, src, r);
}

/* ---- after a failed launch ---- */

static sigjmp_buf lost_page_jmp;

static void on_lost_page(int sig)
{
	(void)sig;
	siglongjmp(lost_page_jmp, 1);
}

/*
 * Whether word i of a buffer may hold v after a launch failed part way:
 * stream leaves each word between its input and its final value, gather
 * leaves dst words zero or final and src unchanged, hotset changes nothing.
 */
static int word_possible(const struct em_wl_config *cfg, int dst, uint32_t passes,
			 struct em_buf *src, size_t i, uint32_t v)
{
	uint32_t f = fill_word(cfg->seed, i), w, g = 0;

	if (!dst)
		return !strcmp(cfg->kernel, "stream") ? v - f <= passes : v == f;
	if (!v)
		return 1;
	for (w = 0; w < LINE_WORDS; w++)
		g += fill_word(cfg->seed,
			       gm_mix64(cfg->seed + i) % (src->bytes / LINE_BYTES) *
			       LINE_WORDS + w);
	return v == g;
}

/* em_wl_read_back(), and with copy and lost em_wl_copy_back() */
static void read_back(const void *p, size_t bytes, em_wl_word_ok ok,
		      const void *ctx, uint32_t *copy, uint8_t *lost,
		      struct em_wl_result *r)
{
	struct sigaction sa = { .sa_handler = on_lost_page }, old;
	size_t n = bytes / 4, per_page = 4096 / 4;
	const volatile uint32_t *w = p;
	volatile size_t page;
	size_t i, end;
	uint32_t v;

	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, &old);
	for (page = 0; page * per_page < n; page++) {
		if (sigsetjmp(lost_page_jmp, 1)) {
			r->lost_pages++;
			if (lost)
				lost[page] = 1;
			continue;
		}
		end = (page + 1) * per_page < n ? (page + 1) * per_page : n;
		for (i = page * per_page; i < end; i++) {
			v = w[i];
			if (copy)
				copy[i] = v;
			if (ok && !ok(ctx, i, v))
				r->mismatches++;
		}
		if (ok)
			r->words_checked += end - page * per_page;
	}
	sigaction(SIGBUS, &old, NULL);
}

void em_wl_read_back(const void *p, size_t bytes, em_wl_word_ok ok,
		     const void *ctx, struct em_wl_result *r)
{
	read_back(p, bytes, ok, ctx, NULL, NULL, r);
}

void em_wl_copy_back(const void *p, size_t bytes, uint32_t *copy, uint8_t *lost,
		     struct em_wl_result *r)
{
	read_back(p, bytes, NULL, NULL, copy, lost, r);
}

struct after_error {
	const struct em_wl_config *cfg;
	int dst;
	uint32_t passes;
	struct em_buf *src;
};

static int after_error_ok(const void *ctx, size_t i, uint32_t v)
{
	const struct after_error *e = ctx;

	return word_possible(e->cfg, e->dst, e->passes, e->src, i, v);
}

/* Reads every page of b through the CPU after a failed launch. */
static void check_after_error(const struct em_wl_config *cfg, struct em_buf *b,
			      int dst, uint32_t passes, struct em_buf *src,
			      struct em_wl_result *r)
{
	struct after_error e = { cfg, dst, passes, src };

	em_wl_read_back(b->p, b->bytes, after_error_ok, &e, r);
}

int em_wl_health(const struct em_wl_config *cfg, struct em_wl_result *r)
{
	struct em_wl_config hc = { .kernel = "stream", .seed = cfg->seed + 1 };
	struct em_wl_result hr = { 0 };
	struct ember_launch l = { 0 };
	struct em_buf b = { 0 };
	int ret;

	/*
	 * A synchronize that gave up (ETIMEDOUT) left its launch running, and
	 * the next synchronize reports that launch's error: collect it first,
	 * so that the health check's own launch is judged on its own.
	 */
	r->health_drain_ret = emDeviceSynchronize();
	ret = alloc_buf(&b, 2 * EMBER_VA_BLOCK_SIZE, &hr);
	if (!ret) {
		fill(&b, hc.seed);
		l.kernel = EMBER_KERNEL_STREAM;
		l.args[0] = (uintptr_t)b.p;
		l.args[1] = b.bytes;
		l.args[2] = 1;
		ret = launch(&hc, &l, &hr, &hr.result);
		if (!ret)
			check_stream(&hc, &b, 1, &hr);
		if (!ret && hr.result != hr.expected_result)
			hr.mismatches++;
		emFree(b.p);
	}
	r->health_ret = ret;
	r->health_words = hr.words_checked;
	r->health_mismatches = hr.mismatches;
	return ret;
}

int em_wl_variant(const char *v, void *p, size_t bytes, struct em_wl_result *r,
		  int phase)
{
	struct em_buf b = { .p = p, .bytes = bytes };

	return apply_variant(v, &b, r, phase);
}

/* The Figure 16 grid's parameters (workload.h): hotset only, in range. */
static int hotset_grid_check(const struct em_wl_config *cfg, struct em_wl_result *r)
{
	if (strcmp(cfg->kernel, "hotset"))
		return fail(r, "grid", -EINVAL);
	if (cfg->randomness > 100)
		return fail(r, "randomness", -EINVAL);
	if (cfg->reuse < 1 || cfg->reuse > EM_WL_MAX_REUSE)
		return fail(r, "reuse", -EINVAL);
	if (!cfg->pattern ||
	    (strcmp(cfg->pattern, "pass") && strcmp(cfg->pattern, "passes")))
		return fail(r, "pattern", -EINVAL);
	if (cfg->passes > 1)
		return fail(r, "passes", -EINVAL);	/* the pattern sets them */
	return 0;
}

/* ---- the microbenchmarks' steps (runner.h) ---- */

/* Buffer i of the run. */
static struct em_buf run_buf(const struct app_run *a, int i)
{
	struct em_buf b = { .p = a->d.p[i], .bytes = a->d.bytes[i] };

	return b;
}

/* Stream's passes over the buffer, hotset's without the grid (-p; 0 = 1). */
static uint32_t micro_passes(const struct em_wl_config *cfg)
{
	return cfg->passes ? cfg->passes : 1;
}

static int micro_check(struct app_run *a)
{
	return a->cfg->grid ? hotset_grid_check(a->cfg, a->r) : 0;
}

/* The footprint in whole lines, at least two VA blocks. */
static uint64_t micro_foot(const struct app_run *a)
{
	uint64_t foot = a->d.foot & ~(uint64_t)(LINE_BYTES - 1);

	return foot < 2 * EMBER_VA_BLOCK_SIZE ? 2 * EMBER_VA_BLOCK_SIZE : foot;
}

/* stream, movinghot: one buffer of the footprint */
static void micro_size(struct app_run *a)
{
	a->d.bytes[0] = micro_foot(a);
}

/* hotset: the kernel reads whole pages */
static void hotset_size(struct app_run *a)
{
	a->d.bytes[0] = micro_foot(a) & ~(uint64_t)4095;
}

/*
 * gather: src (b0) takes the footprint less dst (b1), a word for each of
 * the n[0] lines read, a quarter of src's
 */
static void gather_size(struct app_run *a)
{
	uint64_t foot = micro_foot(a), count = (foot / LINE_BYTES / 4) & ~31ull;

	a->d.n[0] = count;
	a->d.bytes[0] = foot - emAllocSize(count * 4);
	a->d.bytes[1] = count * 4;
}

/* b0 the input words, b1 (gather's dst) zeroed */
static void micro_fill(struct app_run *a)
{
	struct em_buf src = run_buf(a, 0);

	fill(&src, a->cfg->seed);
	if (a->d.p[1])
		memset(a->d.p[1], 0, a->d.bytes[1]);
}

static int stream_launch(struct app_run *a)
{
	struct ember_launch l = { 0 };

	l.kernel = a->app->kernel;
	l.args[0] = (uintptr_t)a->d.p[0];
	l.args[1] = a->d.bytes[0];
	l.args[2] = micro_passes(a->cfg);
	return launch(a->cfg, &l, a->r, &a->d.result);
}

static int gather_launch(struct app_run *a)
{
	struct ember_launch l = { 0 };

	l.kernel = a->app->kernel;
	l.args[0] = (uintptr_t)a->d.p[0];
	l.args[1] = a->d.bytes[0];
	l.args[2] = (uintptr_t)a->d.p[1];
	l.args[3] = a->d.n[0];
	return launch(a->cfg, &l, a->r, &a->d.result);
}

/* the Figure 16 grid's cell (workload.h), or 10 % random, reuse 4, -p passes */
static void hotset_args(struct app_run *a, struct ember_launch *l)
{
	const struct em_wl_config *cfg = a->cfg;

	memset(l, 0, sizeof(*l));
	l->kernel = a->app->kernel;
	l->args[0] = (uintptr_t)a->d.p[0];
	l->args[1] = a->d.bytes[0];
	if (cfg->grid) {
		int one_pass = !strcmp(cfg->pattern, "pass");

		a->r->window = one_pass ? EMBER_VA_BLOCK_SIZE : a->d.bytes[0];
		l->args[2] = one_pass ? EMBER_VA_BLOCK_SIZE : 0;
		l->args[3] = cfg->randomness;
		l->args[4] = one_pass ? cfg->reuse : 1;
		l->args[5] = one_pass ? 1 : cfg->reuse;
	} else {
		l->args[2] = 0;		/* window: whole buffer */
		l->args[3] = 10;	/* random percent */
		l->args[4] = 4;		/* reuse */
		l->args[5] = micro_passes(cfg);
	}
}

static int hotset_launch(struct app_run *a)
{
	struct ember_launch l;

	hotset_args(a, &l);
	return launch(a->cfg, &l, a->r, &a->d.result);
}

/* The moving hot set's positions (workload.h): how many, window, step. */
struct moving_hot {
	uint32_t phases;
	uint64_t window, step;
};

static int moving_hot_plan(struct app_run *a, struct moving_hot *m)
{
	const struct em_wl_config *cfg = a->cfg;
	uint64_t bytes = a->d.bytes[0], span;

	m->phases = cfg->passes ? cfg->passes : 8;
	if (m->phases < 2 || m->phases > EM_WL_MAX_PHASES)
		return fail(a->r, "phases", -EINVAL);
	m->window = (a->r->vram / 2) & ~(uint64_t)(EMBER_VA_BLOCK_SIZE - 1);
	if (m->window > bytes)
		m->window = bytes & ~(uint64_t)(EMBER_VA_BLOCK_SIZE - 1);
	span = bytes - m->window;
	m->step = (span / (m->phases - 1)) & ~(uint64_t)(EMBER_VA_BLOCK_SIZE - 1);
	if (cfg->drifting) {
		m->step = (m->window * (uint64_t)cfg->drift / 100) &
			  ~(uint64_t)(EMBER_VA_BLOCK_SIZE - 1);
		if (cfg->drift > 100 || m->step * (m->phases - 1) > span)
			return fail(a->r, "drift", -EINVAL);
	}
	return 0;
}

/* position p's launch: a pure hot set over the window */
static void moving_hot_args(const struct app_run *a, const struct moving_hot *m,
			    uint32_t p, struct ember_launch *l)
{
	memset(l, 0, sizeof(*l));
	l->kernel = a->app->kernel;
	l->args[0] = (uintptr_t)a->d.p[0] + p * m->step;
	l->args[1] = m->window;
	l->args[2] = 0;		/* the launch's buffer is the hot window */
	l->args[3] = 0;		/* no random share: a pure hot set */
	l->args[4] = 8;		/* reuse: accesses per page */
	l->args[5] = 16;	/* passes: a phase many aging intervals long */
}

/*
 * The moving hot set (workload.h): one launch per position of the window,
 * each position's modelled time and policy counters recorded; sim_ns and
 * the result are the positions' sums (after a failed launch, that
 * launch's).
 */
static int moving_hot_launch(struct app_run *a)
{
	struct em_wl_result *r = a->r;
	struct moving_hot m;
	uint64_t total_ns = 0, sum = 0;
	struct ember_launch l;
	struct ember_stats_counters before, after;
	uint32_t p;

	if (moving_hot_plan(a, &m))
		return r->ret;
	r->nphases = m.phases;
	r->window = m.window;
	for (p = 0; p < m.phases; p++) {
		moving_hot_args(a, &m, p, &l);
		if (emGetStats(&before, 0))
			memset(&before, 0, sizeof(before));
		if (launch(a->cfg, &l, r, &a->d.result))
			return r->ret;
		r->phase_ns[p] = r->sim_ns;
		if (!emGetStats(&after, 0)) {
			r->phase_promotions[p] = after.promotions - before.promotions;
			r->phase_promotions_halted[p] =
				after.promotions_halted - before.promotions_halted;
			r->phase_eager_evictions[p] =
				after.eager_evictions - before.eager_evictions;
			r->phase_timer_ticks[p] = after.timer_ticks - before.timer_ticks;
		}
		total_ns += r->sim_ns;
		sum += a->d.result;
	}
	r->sim_ns = total_ns;
	a->d.result = sum;
	return 0;
}

/* stream, gather, hotset: every page of src (b0) and dst (b1) read back */
static void micro_after_error(struct app_run *a)
{
	struct em_buf src = run_buf(a, 0), dst = run_buf(a, 1);
	uint32_t passes = micro_passes(a->cfg);

	check_after_error(a->cfg, &src, 0, passes, &src, a->r);
	if (dst.p)
		check_after_error(a->cfg, &dst, 1, passes, &src, a->r);
}

static int stream_verify(struct app_run *a)
{
	struct em_buf b = run_buf(a, 0);

	check_stream(a->cfg, &b, micro_passes(a->cfg), a->r);
	a->r->result_ok = a->d.result == a->r->expected_result;
	return 0;
}

static int gather_verify(struct app_run *a)
{
	struct em_buf src = run_buf(a, 0), dst = run_buf(a, 1);

	check_gather(a->cfg, &src, &dst, a->d.n[0], a->r);
	a->r->result_ok = a->d.result == a->r->expected_result;
	return 0;
}

/* the filled buffer's word at byte offset off of a launch's args[0] */
struct fill_at {
	uint64_t seed, base;	/* base: args[0]'s offset in the buffer */
};

static uint32_t fill_at_word(void *ctx, uint64_t off)
{
	const struct fill_at *f = ctx;

	return fill_word(f->seed, (f->base + off) / 4);
}

/* the kernel's result for launch l over the filled buffer (gpumodel/hotset.h) */
static uint64_t hotset_expected(const struct app_run *a, const struct ember_launch *l)
{
	struct fill_at f = {
		.seed = a->cfg->seed,
		.base = l->args[0] - (uintptr_t)a->d.p[0],
	};
	uint64_t args[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		args[i] = l->args[i];
	/* launch() gives every launch the configuration's seed */
	return gm_hotset_reference(args, a->cfg->seed, fill_at_word, &f);
}

/*
 * hotset, movinghot: the buffer unchanged (the kernel only reads), and the
 * result that of the CPU reference of every launch.
 */
static int hotset_verify(struct app_run *a)
{
	struct em_buf b = run_buf(a, 0);
	struct ember_launch l;

	check_unchanged(a->cfg, &b, a->r);
	hotset_args(a, &l);
	a->r->expected_result = hotset_expected(a, &l);
	a->r->result_ok = a->d.result == a->r->expected_result;
	return 0;
}

static int moving_hot_verify(struct app_run *a)
{
	struct em_buf b = run_buf(a, 0);
	struct ember_launch l;
	struct moving_hot m;
	uint64_t sum = 0;
	uint32_t p;

	check_unchanged(a->cfg, &b, a->r);
	if (moving_hot_plan(a, &m))
		return a->r->ret;
	for (p = 0; p < m.phases; p++) {
		moving_hot_args(a, &m, p, &l);
		sum += hotset_expected(a, &l);
	}
	a->r->expected_result = sum;
	a->r->result_ok = a->d.result == sum;
	return 0;
}

const struct em_run_steps em_wl_stream_steps = {
	.check = micro_check,
	.size = micro_size,
	.fill = micro_fill,
	.launch = stream_launch,
	.after_error = micro_after_error,
	.verify = stream_verify,
};

const struct em_run_steps em_wl_gather_steps = {
	.check = micro_check,
	.size = gather_size,
	.fill = micro_fill,
	.launch = gather_launch,
	.after_error = micro_after_error,
	.verify = gather_verify,
};

const struct em_run_steps em_wl_hotset_steps = {
	.check = micro_check,
	.size = hotset_size,
	.fill = micro_fill,
	.launch = hotset_launch,
	.after_error = micro_after_error,
	.verify = hotset_verify,
};

/*
 * movinghot: after a failed position the buffer is not read back (its
 * lost pages go uncounted)
 */
const struct em_run_steps em_wl_movinghot_steps = {
	.check = micro_check,
	.size = micro_size,
	.fill = micro_fill,
	.launch = moving_hot_launch,
	.verify = moving_hot_verify,
};

/* ,"name":[v0,v1,...], or null where the driver does not count it */
static void phase_json(FILE *f, const char *name, const uint64_t *v, uint32_t n,
		       uint64_t counted)
{
	uint32_t p;

	if (!counted) {
		fprintf(f, ",\"%s\":null", name);
		return;
	}
	fprintf(f, ",\"%s\":[", name);
	for (p = 0; p < n; p++)
		fprintf(f, "%s%" PRIu64, p ? "," : "", v[p]);
	fputc(']', f);
}

/*
 * The driver's counters in the JSON, in this order: a number where the
 * driver counts it, null where it does not (em_wl_result.counted)
 */
#define EM_WL_JSON_COUNTERS(X)						\
	X(faults) X(fault_batches) X(replays) X(cancels) X(evictions)	\
	X(pages_evicted) X(bytes_h2d) X(bytes_d2h) X(prefetched_bytes)	\
	X(prefetch_ioctl_bytes) X(pages_gpu_populated) X(pages_mapped_remote) \
	X(cpu_faults) X(notifications) X(promotions) X(promoted_bytes)	\
	X(promotions_halted) X(eager_evictions) X(timer_ticks) X(ce_retries)

static void counter_json(FILE *f, const char *name, uint64_t v, uint64_t counted)
{
	if (counted)
		fprintf(f, ",\"%s\":%" PRIu64, name, v);
	else
		fprintf(f, ",\"%s\":null", name);
}

void em_wl_json(FILE *f, const struct em_wl_config *cfg,
		const struct em_wl_result *r)
{
	const struct ember_stats_counters *s = &r->stats, *c = &r->counted;

	fprintf(f,
		"\"kernel\":\"%s\",\"variant\":\"%s\",\"driver\":\"%s\",\"factor\":%.2f,"
		"\"seed\":%" PRIu64 ",\"vram\":%" PRIu64 ",\"footprint\":%" PRIu64 ","
		"\"ret\":%d,\"failed\":\"%s\",\"words_checked\":%" PRIu64 ","
		"\"mismatches\":%" PRIu64 ",\"result_ok\":%d,"
		"\"result\":\"%" PRIu64 "\",\"expected_result\":\"%" PRIu64 "\","
		"\"sim_ns\":%" PRIu64 ",\"setup_ns\":%" PRIu64,
		cfg->kernel, cfg->variant, emDriverName() ?: "", cfg->factor, cfg->seed,
		r->vram, r->footprint, r->ret, r->failed ? r->failed : "",
		r->words_checked, r->mismatches, r->result_ok, r->result,
		r->expected_result, r->sim_ns, r->setup_ns);
#define EM_WL_COUNTER_JSON(name) counter_json(f, #name, s->name, c->name);
	EM_WL_JSON_COUNTERS(EM_WL_COUNTER_JSON)
#undef EM_WL_COUNTER_JSON
	fprintf(f, ",\"lost_pages\":%" PRIu64 ",\"health_drain_ret\":%d,\"health_ret\":%d,"
		"\"health_words\":%" PRIu64 ",\"health_mismatches\":%" PRIu64,
		r->lost_pages, r->health_drain_ret, r->health_ret,
		r->health_words, r->health_mismatches);
	if (cfg->grid)
		fprintf(f, ",\"randomness\":%u,\"reuse\":%u,\"pattern\":\"%s\","
			"\"window\":%" PRIu64, cfg->randomness, cfg->reuse,
			cfg->pattern ? cfg->pattern : "", r->window);
	if (r->nphases) {
		if (cfg->drifting)
			fprintf(f, ",\"drift\":%u", cfg->drift);
		fprintf(f, ",\"window\":%" PRIu64, r->window);
		phase_json(f, "phase_ns", r->phase_ns, r->nphases, 1);
		phase_json(f, "phase_promotions", r->phase_promotions, r->nphases,
			   c->promotions);
		phase_json(f, "phase_promotions_halted", r->phase_promotions_halted,
			   r->nphases, c->promotions_halted);
		phase_json(f, "phase_eager_evictions", r->phase_eager_evictions,
			   r->nphases, c->eager_evictions);
		phase_json(f, "phase_timer_ticks", r->phase_timer_ticks, r->nphases,
			   c->timer_ticks);
	}
}
