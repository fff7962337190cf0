// SPDX-License-Identifier: MIT
/*
 * libember's one workload runner (em_wl_run) and its table: the paper's
 * applications (apps.h; sizes, inputs and references are workloads/'s,
 * a file per app, shared with cuda/apps/; this file holds each app's
 * launch sequence) and the microbenchmarks stream, gather, hotset and
 * movinghot (workload.h; their steps are in workload.c). Every entry runs
 * the same steps (runner.h) in the same order.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "apps.h"
#include "app_inputs.h"
#include "autouvm.h"
#include "runner.h"
#include "variants.h"

#define MiB		(1024ull * 1024)

/* ---- helpers ---- */

static int app_fail(struct app_run *a, const char *call, int ret)
{
	if (!a->r->ret) {
		a->r->ret = ret;
		a->r->failed = call;
	}
	return ret;
}

static uint64_t va(const struct app_run *a, int i)
{
	return (uintptr_t)a->d.p[i];
}

/* One phase of kernel: launch, wait; sums the modelled time and the results. */
static int app_launch_kernel(struct app_run *a, uint32_t kernel,
			     const uint64_t *args, int nargs)
{
	struct ember_launch l;
	uint64_t ns = 0, res = 0;
	int ret;

	memset(&l, 0, sizeof(l));
	l.kernel = kernel;
	l.seed = a->cfg->seed;
	l.warps = a->cfg->warps;
	memcpy(l.args, args, sizeof(args[0]) * (size_t)nargs);
	if (a->au && (ret = em_autouvm_before(a->au, kernel, args, nargs)))
		return app_fail(a, "autouvm_prefetch", ret);
	ret = emLaunch(&l);
	if (ret)
		return app_fail(a, "launch", ret);
	ret = emDeviceSynchronize();
	emLastLaunch(&ns, &res);
	if (ret)
		return app_fail(a, "synchronize", ret);
	if (a->au)
		em_autouvm_after(a->au, ns);
	a->r->sim_ns += ns;
	a->d.result += res;
	a->ret_last = res;
	a->launches_done++;
	return 0;
}

/* One phase of the app's kernel. */
static int app_launch(struct app_run *a, const uint64_t *args, int nargs)
{
	return app_launch_kernel(a, a->app->kernel, args, nargs);
}

/* ---- launch sequences (buffers and sizes: workloads/<app>.c) ---- */

/* pathfinder: row r goes to half (r + 1) % 2 of b1, reading row 0 from the wall */
static int pathfinder_launch(struct app_run *a)
{
	uint64_t r, rows = a->d.n[0], cols = a->d.n[1];

	for (r = 1; r < rows; r++) {
		uint64_t args[6] = { va(a, 0), rows, cols, r,
				     r == 1 ? va(a, 0) : va(a, 1) + (r % 2) * cols * 4,
				     va(a, 1) + ((r + 1) % 2) * cols * 4 };

		if (app_launch(a, args, 6))
			return -1;
	}
	return 0;
}

/* kmeans: assign (mode 0) then update (mode 1) per iteration */
static int kmeans_launch(struct app_run *a)
{
	uint64_t it, mode;

	for (it = 0; it < a->d.n[1]; it++)
		for (mode = 0; mode < 2; mode++) {
			uint64_t args[6] = { va(a, 0), a->d.n[0], va(a, 2), va(a, 1),
					     va(a, 2) + 128, mode };

			if (app_launch(a, args, 6))
				return -1;
		}
	return 0;
}

static int conv_launch(struct app_run *a)
{
	uint64_t args[6] = { va(a, 0), a->d.n[0], a->d.n[1], EM_CV_CH, va(a, 2),
			     va(a, 1) };

	return app_launch(a, args, 6);
}

/* bitonic: the sequence of em_app_bitonic_launch() */
static int bitonic_launch(struct app_run *a)
{
	uint64_t bytes = a->d.n[0] * a->d.n[1] * 128, i, k, j;

	for (i = 0; em_app_bitonic_launch(&a->d, i, &k, &j); i++) {
		uint64_t args[5] = { va(a, 0), bytes, a->d.n[0], k, j };

		if (app_launch(a, args, 5))
			return -1;
	}
	return 0;
}

/* radix: count, scan, scatter per 4-bit pass, swapping b0 and b1 */
static int radix_launch(struct app_run *a)
{
	uint64_t p, mode;

	for (p = 0; p < a->d.n[1]; p++)
		for (mode = 0; mode < 3; mode++) {
			uint64_t args[7] = { va(a, p % 2), a->d.n[0], va(a, 1 - p % 2),
					     va(a, 2), 4 * p, mode, a->d.n[2] };

			if (app_launch(a, args, 7))
				return -1;
		}
	return 0;
}

/* bfs: one launch per level until a level is empty */
static int bfs_launch(struct app_run *a)
{
	uint64_t cur;

	for (cur = 0; cur < a->d.n[0]; cur++) {
		uint64_t args[6] = { va(a, 0), a->d.n[0], va(a, 1), a->d.n[1],
				     va(a, 2), cur };

		if (app_launch(a, args, 6))
			return -1;
		if (!a->ret_last)
			break;
	}
	a->d.n[2] = cur;	/* levels */
	return 0;
}

/* gemv: one launch per token, y fed back as the next x */
static int gemv_launch(struct app_run *a)
{
	uint64_t t, n = a->d.n[0];

	for (t = 0; t < a->d.n[1]; t++) {
		uint64_t args[6] = { va(a, 0), n, n, va(a, 1) + t * n,
				     va(a, 1) + (t + 1) * n, 7 };

		if (app_launch(a, args, 6))
			return -1;
	}
	return 0;
}

/* colscan: one launch per query */
static int colscan_launch(struct app_run *a)
{
	uint64_t q, n = a->d.n[0];

	for (q = 0; q < a->d.n[1]; q++) {
		uint64_t args[8] = { va(a, 0), n, EM_CS_COLS, va(a, 1) + q * (n / 4) };

		em_app_colscan_query(q, args + 4);
		if (app_launch(a, args, 8))
			return -1;
	}
	return 0;
}

/* ssb: its one query over lineorder */
static int ssb_launch(struct app_run *a)
{
	uint64_t n = a->d.n[0];
	uint64_t args[8] = { va(a, 0), n, EM_SSB_COLS, va(a, 1) };

	em_app_ssb_args(a->d.query, args + 4);
	return app_launch(a, args, 8);
}

/* gemvrow: y = A x, 32 rows per warp (Polybench's thread per row), per iteration */
static int gemvrow_launch(struct app_run *a)
{
	uint64_t it;

	for (it = 0; it < a->d.n[1]; it++) {
		uint64_t args[7] = { va(a, 0), a->d.n[0], EM_AR_COLS, va(a, 1),
				     va(a, 2), 7, 32 };

		if (app_launch(a, args, 7))
			return -1;
	}
	return 0;
}

/* atax: tmp = A x (thread per row), then y = A^T tmp (thread per column) */
static int atax_launch(struct app_run *a)
{
	uint64_t it;

	for (it = 0; it < a->d.n[1]; it++) {
		uint64_t gemv[7] = { va(a, 0), a->d.n[0], EM_AR_COLS, va(a, 1),
				     va(a, 2), 7, 32 };
		uint64_t gemvt[5] = { va(a, 0), a->d.n[0], EM_AR_COLS, va(a, 2),
				      va(a, 3) };

		if (app_launch_kernel(a, EMBER_KERNEL_GEMV, gemv, 7) ||
		    app_launch_kernel(a, EMBER_KERNEL_GEMVT, gemvt, 5))
			return -1;
	}
	return 0;
}

/* gemm: one launch per tile of k, each adding into C */
static int gemm_launch(struct app_run *a)
{
	uint64_t p0;

	for (p0 = 0; p0 < EM_GM_K; p0 += EM_GM_TILE) {
		uint64_t args[8] = { va(a, 0), a->d.n[0], EM_GM_K, va(a, 1),
				     a->d.n[1], va(a, 2), p0, EM_GM_TILE };

		if (app_launch(a, args, 8))
			return -1;
	}
	return 0;
}

/* nw: one launch per anti-diagonal of 32 x 32 tiles */
static int nw_launch(struct app_run *a)
{
	uint64_t d;

	for (d = 0; d < 2 * (a->d.n[0] / 32) - 1; d++) {
		uint64_t args[5] = { va(a, 0), a->d.n[0], va(a, 1), 10, d };

		if (app_launch(a, args, 5))
			return -1;
	}
	return 0;
}

/* decode: per token, per layer: h = W x, then s = KV h; h feeds the next layer */
static int decode_launch(struct app_run *a)
{
	uint64_t d = a->d.n[0], t, l, x = va(a, 3), woff, kvoff, bytes;
	int wpool, kvpool;

	/* the caching allocator's tensors, for AutoUVM's profiler */
	for (t = 0; a->au && t < 2 * a->d.n[1]; t++) {
		bytes = em_app_decode_tensor(&a->d, t, &wpool, &woff);
		em_autouvm_tensor(a->au, (char *)a->d.p[wpool] + woff, bytes);
	}
	for (t = 0; t < a->d.n[2]; t++)
		for (l = 0; l < a->d.n[1]; l++) {
			uint64_t h = va(a, 3) + em_app_decode_act(&a->d, t, l, 0);
			uint64_t s = va(a, 3) + em_app_decode_act(&a->d, t, l, 1);

			em_app_decode_tensor(&a->d, 2 * l, &wpool, &woff);
			em_app_decode_tensor(&a->d, 2 * l + 1, &kvpool, &kvoff);
			{
				uint64_t proj[6] = { va(a, wpool) + woff, d, d, x, h, 7 };
				uint64_t attn[6] = { va(a, kvpool) + kvoff, a->d.n[3], d,
						     h, s, 7 };

				if (app_launch(a, proj, 6) || app_launch(a, attn, 6))
					return -1;
			}
			x = h;
		}
	return 0;
}

/* ---- the applications' steps ---- */

static int input_word_ok(const void *ref, size_t i, uint32_t v)
{
	return ((const uint32_t *)ref)[i] == v;
}

/*
 * After a failed launch, an app whose partial state its reference
 * describes (verify_failed): every buffer copied back through the CPU
 * (lost pages fault and are counted) and compared there, word for word.
 * Returns 0, or -ENOMEM with nothing read back.
 */
static int app_verify_failed(struct app_run *a)
{
	struct em_app_data copy = a->d;
	uint8_t *lost[EM_APP_BUFS] = { NULL };
	int i, ret = 0;

	for (i = 0; i < EM_APP_BUFS; i++) {
		copy.p[i] = a->d.bytes[i] ? malloc(a->d.bytes[i]) : NULL;
		lost[i] = a->d.bytes[i] ? calloc(a->d.bytes[i] / 4 / EM_APP_PAGE_WORDS + 1, 1) :
					  NULL;
		if (a->d.bytes[i] && (!copy.p[i] || !lost[i]))
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < EM_APP_BUFS; i++)
		if (a->d.p[i])
			em_wl_copy_back(a->d.p[i], a->d.bytes[i], copy.p[i], lost[i], a->r);
	if (!ret) {
		/* its own -ENOMEM leaves words_checked 0: the judge says so */
		copy.words_checked = 0;
		copy.mismatches = 0;
		a->app->ref->verify_failed(&copy, a->launches_done,
					   (const uint8_t *const *)lost);
		a->r->words_checked += copy.words_checked;
		a->r->mismatches += copy.mismatches;
	}
	for (i = 0; i < EM_APP_BUFS; i++) {
		free(copy.p[i]);
		free(lost[i]);
	}
	return ret;
}

/*
 * After a failed launch: every buffer read back through the CPU. Lost
 * pages must fault (lost_pages); with verify_failed, every word is
 * compared with the reference's partial state; otherwise the buffers no
 * launch writes must still hold their inputs word for word (fill() again,
 * into plain memory), and the others, holding a partial result no
 * reference describes, are read, not checked.
 */
static void app_check_after_error(struct app_run *a)
{
	struct em_app_data ref = a->d;
	int i, have_ref = 1;

	if (a->app->ref->verify_failed && !app_verify_failed(a))
		return;

	for (i = 0; i < EM_APP_BUFS; i++) {
		ref.p[i] = a->d.bytes[i] ? calloc(1, a->d.bytes[i]) : NULL;
		if (a->d.bytes[i] && !ref.p[i])
			have_ref = 0;
	}
	if (have_ref)
		a->app->ref->fill(&ref);
	for (i = 0; i < EM_APP_BUFS; i++) {
		bool input = have_ref && (a->app->inputs & 1u << i);

		if (a->d.p[i])
			em_wl_read_back(a->d.p[i], a->d.bytes[i],
					input ? input_word_ok : NULL, ref.p[i], a->r);
		free(ref.p[i]);
	}
}

static void app_size(struct app_run *a)
{
	em_app_size(a->app->ref, &a->d);
}

static void app_fill(struct app_run *a)
{
	a->app->ref->fill(&a->d);
}

static int app_launch_sequence(struct app_run *a)
{
	return a->app->launch(a);
}

/*
 * By the host's digest where it was given and matches, else by the CPU
 * reference (em_app_verify); its checks become the run's.
 */
static int app_verify(struct app_run *a)
{
	struct em_wl_result *r = a->r;
	int ret = em_app_verify(a->app->ref, &a->d, a->have_digest ? &a->digest : NULL);

	r->verified_by_digest = a->d.verified_by_digest;
	r->words_checked = a->d.words_checked;
	r->mismatches = a->d.mismatches;
	r->expected_result = a->d.expected_result;
	r->result_ok = a->d.result_ok;
	return ret;
}

static const struct em_run_steps app_steps = {
	.size = app_size,
	.fill = app_fill,
	.launch = app_launch_sequence,
	.after_error = app_check_after_error,
	.verify = app_verify,
};

/* ---- the table (app_list.h) ---- */

const struct em_app *em_app_find(const char *name)
{
#define MICROBENCHMARK(mb, k, paper) \
	{ .name = #mb, .kernel = EMBER_KERNEL_##k, .steps = &em_wl_##mb##_steps },
#define APP(app, k, paper, in, card) \
	{ .name = #app, .kernel = EMBER_KERNEL_##k, .steps = &app_steps, \
	  .ref = &em_app_##app, .launch = app##_launch, .inputs = in },
	static const struct em_app apps[] = { EM_MICROBENCHMARKS(MICROBENCHMARK) EM_APPS(APP) };
#undef MICROBENCHMARK
#undef APP
	const char *app = em_app_of(name);
	size_t i;

	if (app)
		name = app;
	for (i = 0; name && i < sizeof(apps) / sizeof(apps[0]); i++)
		if (!strcmp(apps[i].name, name))
			return &apps[i];
	return NULL;
}

void em_app_names(FILE *f)
{
#define NAME(name, ...)		#name,
#define QUERY(query)		query,
	static const char *const names[] = { EM_MICROBENCHMARKS(NAME) EM_APPS(NAME) };
	static const char *const aliases[] = { EM_APP_ALIASES(NAME) };
	static const char *const queries[] = { EM_SSB_QUERY_NAMES(QUERY) };
#undef NAME
#undef QUERY
	size_t i, nq = sizeof(queries) / sizeof(queries[0]);

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], em_app_ssb.name))	/* it runs one query a run */
			fprintf(f, "%sssb-%s..ssb-%s", i ? "|" : "", queries[0], queries[nq - 1]);
		else
			fprintf(f, "%s%s", i ? "|" : "", names[i]);
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		fprintf(f, "|%s", aliases[i]);
}

/* ---- the runner ---- */

/*
 * Guest wall time, for the applications' line of step times (entries with
 * a ref). The microbenchmarks never read the clock, as they never did: in
 * ember-vmtest after its managed_badinput scenario (whose refused
 * mremap(MREMAP_FIXED) past its reservation seems to unmap the vDSO),
 * clock_gettime() segfaults at the vDSO's address, 0x7ffff7ffd960.
 */
static double step_ms(const struct app_run *a)
{
	struct timespec ts;

	if (!a->app->ref)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t ptimer(void)
{
	struct ember_device_info info;

	return emGetDeviceInfo(&info) ? 0 : info.ptimer_ns;
}

enum app_autouvm { AU_NONE, AU_RECORD, AU_APPLY };

/* One run of the entry; with AutoUVM recording or applying a profile. */
static int app_run_once(const struct em_wl_config *cfg, struct em_wl_result *r,
			enum app_autouvm au_mode)
{
	const struct em_run_steps *steps;
	struct em_autouvm au;
	struct app_run a;
	double tm[6];
	size_t total;
	uint64_t t0;
	int i, ret, phase;

	memset(r, 0, sizeof(*r));
	memset(&a, 0, sizeof(a));
	memset(&au, 0, sizeof(au));
	r->result_ok = -1;
	a.cfg = cfg;
	a.r = r;
	a.app = em_app_find(cfg->kernel);
	if (!a.app)
		return app_fail(&a, "kernel", -EINVAL);
	steps = a.app->steps;
	a.d.seed = cfg->seed;
	a.d.passes = cfg->passes;
	a.d.query = em_app_ssb_query(cfg->kernel);
	if (a.app->ref) {
		a.have_digest = cfg->verify_digest &&
				!em_app_digest_parse(cfg->verify_digest, &a.digest);
		if (cfg->verify_digest && !a.have_digest)
			fprintf(stderr, "ember-run: -V '%s' is not a digest; the reference "
				"verifies\n", cfg->verify_digest);
	}
	/* autouvm: AutoUVM's executor is built on the applications' launch sequences */
	if (!em_program_variant_ok(cfg->variant, a.app->ref != NULL))
		return app_fail(&a, "variant", -EINVAL);
	if (steps->check && steps->check(&a))
		return r->ret;
	ret = emMemGetInfo(NULL, &total);
	if (ret)
		return app_fail(&a, "mem_get_info", ret);
	r->vram = total;
	a.d.foot = (uint64_t)(cfg->factor * (double)total);
	if (a.d.foot < 4 * MiB)
		a.d.foot = 4 * MiB;

	tm[0] = step_ms(&a);
	steps->size(&a);
	for (i = 0; i < EM_APP_BUFS; i++) {
		if (!a.d.bytes[i])
			continue;
		ret = emMallocManaged(&a.d.p[i], a.d.bytes[i]);
		if (ret) {
			a.d.p[i] = NULL;
			app_fail(&a, "malloc_managed", ret);
			goto out;
		}
		r->footprint += emAllocSize(a.d.bytes[i]);
	}
	for (i = 0; i < EM_APP_BUFS; i++)
		if (a.d.p[i] && em_wl_variant(cfg->variant, a.d.p[i], a.d.bytes[i], r, 0))
			goto out;
	tm[1] = step_ms(&a);
	steps->fill(&a);
	tm[2] = step_ms(&a);
	t0 = ptimer();
	for (phase = 1, i = 0; i < EM_APP_BUFS; i++)
		if (a.d.p[i] && em_wl_variant(cfg->variant, a.d.p[i], a.d.bytes[i], r, phase))
			goto out;
	r->setup_ns = ptimer() - t0;
	if (au_mode != AU_NONE) {
		ret = em_autouvm_begin(&au, cfg->kernel, au_mode == AU_RECORD,
				       cfg->autouvm_profile, a.d.p, a.d.bytes,
				       EM_APP_BUFS);
		if (ret) {
			app_fail(&a, "autouvm", ret);
			goto out;
		}
		a.au = &au;
		snprintf(r->autouvm_error, sizeof(r->autouvm_error), "%s", au.error);
	}
	tm[3] = step_ms(&a);
	if (steps->launch(&a)) {
		if (steps->after_error)
			steps->after_error(&a);
		goto out;
	}
	tm[4] = step_ms(&a);
	if (au_mode == AU_RECORD) {
		ret = em_autouvm_end(&au, cfg->autouvm_profile);
		if (ret)
			app_fail(&a, "autouvm_profile_write", ret);
		goto out;	/* the profiling run is not verified or timed */
	}
	/* the prefetches before each launch are part of the run's time */
	r->setup_ns += au.prefetch_ns;
	r->autouvm_matched = au.plan.matched;
	r->autouvm_unmatched = au.plan.unmatched;
	r->autouvm_prefetch_bytes = au.prefetch_bytes;
	ret = steps->verify(&a);
	if (ret)
		app_fail(&a, "verify_alloc", ret);
	tm[5] = step_ms(&a);
	/* guest wall time of each step, for whoever tunes the applications' sizes */
	if (a.app->ref)
		fprintf(stderr, "ember-run: %s setup %.0f fill %.0f prefetch %.0f "
			"launches %.0f verify %.0f ms (%s)\n", cfg->kernel, tm[1] - tm[0],
			tm[2] - tm[1], tm[3] - tm[2], tm[4] - tm[3], tm[5] - tm[4],
			a.d.verified_by_digest ? "host digest" : "reference");
out:
	r->result = a.d.result;
	/* a driver whose counters cannot be read (nvidia-uvm's glue file malformed) fails the run */
	ret = emGetStatsCounted(&r->stats, &r->counted, 0);
	if (ret)
		app_fail(&a, "stats", ret);
	for (i = 0; i < EM_APP_BUFS; i++)
		if (a.d.p[i])
			emFree(a.d.p[i]);
	em_autouvm_free(&au);
	return r->ret;
}

int em_wl_run(const struct em_wl_config *cfg, struct em_wl_result *r)
{
	const struct em_app *app = em_app_find(cfg->kernel);
	struct em_wl_config c = *cfg;
	FILE *f;
	int profiled = 0;

	if (strcmp(cfg->variant, "autouvm") || !app || !app->ref)
		return app_run_once(cfg, r, AU_NONE);
	if (!c.autouvm_profile) {
		mkdir("/tmp", 01777);	/* the guest's initramfs has none */
		c.autouvm_profile = "/tmp/ember-autouvm.profile";
	}
	f = fopen(c.autouvm_profile, "r");
	if (f) {
		fclose(f);
	} else {
		/* the offline profiling run, in a VA space of its own */
		if (app_run_once(&c, r, AU_RECORD))
			return r->ret;
		emReset();
		profiled = 1;
	}
	app_run_once(&c, r, AU_APPLY);
	r->autouvm_profiled = profiled;
	return r->ret;
}

void em_app_json(FILE *f, const struct em_wl_config *cfg,
		 const struct em_wl_result *r)
{
	const struct em_app *app = em_app_find(cfg->kernel);
	uint32_t passes;

	if (!app || !app->ref)
		return;
	passes = cfg->passes ? cfg->passes : app->ref->def_passes;
	fprintf(f, ",\"app\":\"%s\",\"passes\":%u,\"launches\":%llu,\"verified_by\":\"%s\"",
		cfg->kernel, passes, (unsigned long long)r->stats.launches,
		r->verified_by_digest ? "digest" : "reference");
	if (!strcmp(cfg->variant, "autouvm"))
		fprintf(f, ",\"autouvm_profiled\":%d,\"autouvm_profile_error\":\"%s\","
			"\"autouvm_matched\":%llu,\"autouvm_unmatched\":%llu,"
			"\"autouvm_prefetch_bytes\":%llu", r->autouvm_profiled,
			r->autouvm_error, (unsigned long long)r->autouvm_matched,
			(unsigned long long)r->autouvm_unmatched,
			(unsigned long long)r->autouvm_prefetch_bytes);
	if (app->ref == &em_app_gemv)
		fprintf(f, ",\"tokens\":%u,\"tokens_per_s\":%.3f", passes,
			r->sim_ns ? passes * 1e9 / (double)r->sim_ns : 0.0);
	/* decode: over all device time, prefetches included */
	if (app->ref == &em_app_decode)
		fprintf(f, ",\"tokens\":%u,\"tokens_per_s\":%.3f", passes,
			r->sim_ns ? passes * 1e9 / (double)(r->sim_ns + r->setup_ns) : 0.0);
}
