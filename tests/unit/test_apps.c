/* SPDX-License-Identifier: MIT */
/*
 * The application kernels (pathfinder, kmeans, conv, bitonic, radix, bfs,
 * gemv, colscan; the SSB queries with workloads/ssb.c's inputs and reference)
 * run through the model on small inputs, one launch per phase as the guest
 * does, with pages mapped on first touch (faults replayed) or up front, and
 * every output word compared with a CPU reference (computed here; the SSB
 * queries' by workloads/).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel/kernel.h"
#include "tests.h"
#include "app_inputs.h"

struct app {
	struct th *t;
	uint64_t next;		/* bump allocator over VA_BASE */
	int fault;		/* map on first touch */
	unsigned int faults;
};

static void map_on_fault(struct th *t, uint64_t va, void *ctx)
{
	struct app *a = ctx;

	th_map(t, va & ~4095ull, EMGPU_APERTURE_SYSMEM,
	       TH_DATA + ((va & ~4095ull) - VA_BASE), 12, 0);
	a->faults++;
}

static void app_init(struct app *a, int fault)
{
	memset(a, 0, sizeof(*a));
	a->t = th_new("h200-256m", 7, 0);
	a->next = VA_BASE;
	a->fault = fault;
	if (fault)
		th_enable_faults(a->t, 64);
}

/* A zeroed buffer of bytes (rounded up to 4 KiB); its VA. */
static uint64_t app_alloc(struct app *a, uint64_t bytes)
{
	uint64_t va = a->next, off;

	bytes = (bytes + 4095) & ~4095ull;
	a->next += bytes;
	CU_ASSERT_FATAL(a->next - VA_BASE <= TH_SYS_SIZE - TH_DATA);
	if (!a->fault)
		for (off = 0; off < bytes; off += 4096)
			th_map(a->t, va + off, EMGPU_APERTURE_SYSMEM,
			       TH_DATA + (va + off - VA_BASE), 12, 0);
	return va;
}

static void *app_ptr(struct app *a, uint64_t va)
{
	return a->t->sys + TH_DATA + (va - VA_BASE);
}

/* One phase: launch and run to completion; the launch result. */
static uint64_t app_run(struct app *a, uint32_t kernel, uint32_t warps,
			const uint64_t *args, int nargs)
{
	CU_ASSERT_EQUAL(th_launch(a->t, kernel, warps, 3, args, nargs),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(a->t, map_on_fault, a, NULL),
			EMGPU_LAUNCH_DONE);
	return gm_launch_result(a->t->g);
}

static uint32_t rnd(uint64_t *s)
{
	*s = gm_mix64(*s);
	return (uint32_t)(*s >> 16);
}

/* ---- pathfinder ---- */

static void test_pathfinder(void)
{
	enum { R = 9, C = 256 };
	struct app a;
	uint64_t wall, buf[2], s = 1, res = 0, sum;
	uint32_t *wp, ref[2][C], *prev, *next;
	int r, c, n;

	app_init(&a, 1);
	wall = app_alloc(&a, R * C * 4);
	buf[0] = app_alloc(&a, C * 4);
	buf[1] = app_alloc(&a, C * 4);
	wp = app_ptr(&a, wall);
	for (n = 0; n < R * C; n++)
		wp[n] = rnd(&s) % 10;
	memcpy(ref[0], wp, sizeof(ref[0]));
	for (r = 1; r < R; r++) {
		uint64_t args[6] = { wall, R, C, (uint64_t)r,
				     r == 1 ? wall : buf[r % 2], buf[(r + 1) % 2] };

		prev = ref[(r + 1) % 2];
		next = ref[r % 2];
		for (sum = 0, c = 0; c < C; c++) {
			uint32_t m = prev[c];

			if (c > 0 && prev[c - 1] < m)
				m = prev[c - 1];
			if (c + 1 < C && prev[c + 1] < m)
				m = prev[c + 1];
			next[c] = wp[r * C + c] + m;
			sum += next[c];
		}
		res = app_run(&a, EMGPU_KERNEL_PATHFINDER, 5, args, 6);
		CU_ASSERT_EQUAL(res, sum);
	}
	/* the last row went to buf[R % 2]: compare it and its reference */
	next = app_ptr(&a, buf[(R - 1 + 1) % 2]);
	for (c = 0; c < C; c++)
		CU_ASSERT_EQUAL(next[c], ref[(R - 1) % 2][c]);
	CU_ASSERT(a.faults > 0);
	th_free(a.t);
}

/* ---- kmeans ---- */

static void test_kmeans(void)
{
	enum { N = 1600, K = 4, D = 4, IT = 3 };
	struct app a;
	uint64_t pts, cent, memb, acc, s = 2, sums[K][D], cnt[K];
	uint32_t *pp, *cp, *mp, rc[K][D], rm[N];
	int it, p, c, d;

	app_init(&a, 1);
	pts = app_alloc(&a, N * 16);
	cent = app_alloc(&a, 128);
	memb = app_alloc(&a, N * 4);
	acc = app_alloc(&a, 256);
	pp = app_ptr(&a, pts);
	cp = app_ptr(&a, cent);
	mp = app_ptr(&a, memb);
	for (p = 0; p < N; p++)
		for (d = 0; d < D; d++)
			pp[p * D + d] = (uint32_t)(p % K) * 10000 + rnd(&s) % 9000;
	for (c = 0; c < K; c++)
		for (d = 0; d < D; d++)
			cp[c * D + d] = rc[c][d] = pp[c * 7 * D + d];
	for (it = 0; it < IT; it++) {
		uint64_t args0[6] = { pts, N, cent, memb, acc, 0 };
		uint64_t args1[6] = { pts, N, cent, memb, acc, 1 };

		memset(sums, 0, sizeof(sums));
		memset(cnt, 0, sizeof(cnt));
		for (p = 0; p < N; p++) {
			uint64_t best = UINT64_MAX, dist;
			int bc = 0;

			for (c = 0; c < K; c++) {
				for (dist = 0, d = 0; d < D; d++) {
					int64_t x = (int64_t)pp[p * D + d] - rc[c][d];

					dist += (uint64_t)(x * x);
				}
				if (dist < best) {
					best = dist;
					bc = c;
				}
			}
			rm[p] = (uint32_t)bc;
			cnt[bc]++;
			for (d = 0; d < D; d++)
				sums[bc][d] += pp[p * D + d];
		}
		for (c = 0; c < K; c++)
			for (d = 0; d < D; d++)
				if (cnt[c])
					rc[c][d] = (uint32_t)(sums[c][d] / cnt[c]);
		app_run(&a, EMGPU_KERNEL_KMEANS, 6, args0, 6);
		app_run(&a, EMGPU_KERNEL_KMEANS, 6, args1, 6);
		for (p = 0; p < N; p++)
			CU_ASSERT_EQUAL(mp[p], rm[p]);
		for (c = 0; c < K; c++) {
			CU_ASSERT_EQUAL(cp[16 + c], cnt[c]);
			for (d = 0; d < D; d++)
				CU_ASSERT_EQUAL(cp[c * D + d], rc[c][d]);
		}
	}
	for (p = 0; p < 64; p++)	/* accum left zeroed */
		CU_ASSERT_EQUAL(((uint32_t *)app_ptr(&a, acc))[p], 0);
	th_free(a.t);
}

/* ---- conv ---- */

static void test_conv(void)
{
	enum { H = 20, W = 96, CH = 3 };
	struct app a;
	uint64_t in, wt, out, s = 3, sum = 0;
	uint32_t *ip, *wp, *op;
	int y, x, c, dy, dx;

	app_init(&a, 1);
	in = app_alloc(&a, CH * H * W * 4);
	wt = app_alloc(&a, 128);
	out = app_alloc(&a, H * W * 4);
	ip = app_ptr(&a, in);
	wp = app_ptr(&a, wt);
	op = app_ptr(&a, out);
	for (x = 0; x < CH * H * W; x++)
		ip[x] = rnd(&s) % 256;
	for (x = 0; x < 9 * CH; x++)
		wp[x] = (uint32_t)((int32_t)(rnd(&s) % 9) - 4);
	{
		uint64_t args[6] = { in, H, W, CH, wt, out };

		CU_ASSERT_EQUAL(app_run(&a, EMGPU_KERNEL_CONV, 7, args, 6),
				app_run(&a, EMGPU_KERNEL_CONV, 7, args, 6));
	}
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			int32_t v = 0;

			for (c = 0; c < CH; c++)
				for (dy = -1; dy <= 1; dy++)
					for (dx = -1; dx <= 1; dx++) {
						if (y + dy < 0 || y + dy >= H ||
						    x + dx < 0 || x + dx >= W)
							continue;
						v += (int32_t)wp[9 * c + 3 * (dy + 1) + dx + 1] *
						     (int32_t)ip[(c * H + y + dy) * W + x + dx];
					}
			v = v > 0 ? v : 0;
			sum += (uint32_t)v;
			CU_ASSERT_EQUAL(op[y * W + x], (uint32_t)v);
		}
	CU_ASSERT_EQUAL(gm_launch_result(a.t->g), sum);
	th_free(a.t);
}

/* ---- bitonic ---- */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static void bitonic_case(uint64_t lines, uint64_t seg, uint32_t warps, int fault)
{
	struct app a;
	uint64_t buf, s = 4, k, j, g, e, G = lines / seg;
	uint32_t *p, *ref;

	app_init(&a, fault);
	buf = app_alloc(&a, lines * 128);
	p = app_ptr(&a, buf);
	for (e = 0; e < lines * 32; e++)
		p[e] = rnd(&s) % 5000;	/* duplicates too */
	ref = malloc(seg * 128);
	{
		uint64_t args[5] = { buf, lines * 128, seg, 32, 0 };

		app_run(&a, EMGPU_KERNEL_BITONIC, warps, args, 5);
	}
	for (k = 64; k <= 32 * seg; k *= 2) {
		for (j = k / 2; j >= 32; j /= 2) {
			uint64_t args[5] = { buf, lines * 128, seg, k, j };

			app_run(&a, EMGPU_KERNEL_BITONIC, warps, args, 5);
		}
		{
			uint64_t args[5] = { buf, lines * 128, seg, k, 0 };

			app_run(&a, EMGPU_KERNEL_BITONIC, warps, args, 5);
		}
	}
	/* regenerate each segment's input, sort it, compare */
	for (g = 0; g < G; g++) {
		uint64_t s2 = 4, idx;

		for (idx = 0; idx < lines * 32; idx++) {
			uint32_t v = rnd(&s2) % 5000;

			if ((idx / 32) % G == g)
				ref[((idx / 32) / G) * 32 + idx % 32] = v;
		}
		qsort(ref, seg * 32, 4, cmp_u32);
		for (e = 0; e < seg * 32; e++)
			CU_ASSERT_EQUAL(p[(g + G * (e / 32)) * 32 + e % 32], ref[e]);
	}
	free(ref);
	th_free(a.t);
}

static void test_bitonic(void)
{
	bitonic_case(16, 16, 5, 1);	/* one sort of 512 keys */
	bitonic_case(24, 8, 3, 0);	/* 3 interleaved segments */
	bitonic_case(64, 64, 0, 1);	/* default warps, more than pairs */
}

/* ---- radix ---- */

static void test_radix(void)
{
	enum { N = 32 * 40, CHUNKS = 5 };
	struct app a;
	uint64_t src, dst, hist, s = 5, sh, sum = 0, res = 0;
	uint32_t *sp, ref[N];
	int i;

	app_init(&a, 1);
	src = app_alloc(&a, N * 4);
	dst = app_alloc(&a, N * 4);
	hist = app_alloc(&a, CHUNKS * 64);
	sp = app_ptr(&a, src);
	for (i = 0; i < N; i++)
		ref[i] = sp[i] = rnd(&s) & 0xffff;
	for (sh = 0; sh < 16; sh += 4) {
		uint64_t from = sh % 8 ? dst : src, to = sh % 8 ? src : dst;
		uint64_t args[7] = { from, N, to, hist, sh, 0, CHUNKS };

		app_run(&a, EMGPU_KERNEL_RADIX, 3, args, 7);
		args[5] = 1;
		app_run(&a, EMGPU_KERNEL_RADIX, 3, args, 7);
		args[5] = 2;
		res = app_run(&a, EMGPU_KERNEL_RADIX, 3, args, 7);
	}
	qsort(ref, N, 4, cmp_u32);
	for (i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(sp[i], ref[i]);
		sum += (uint64_t)ref[i] * (uint64_t)(i + 1);
	}
	CU_ASSERT_EQUAL(res, sum);
	CU_ASSERT(a.faults > 0);
	th_free(a.t);
}

/* ---- bitonic and radix after a failed launch: verify_failed ---- */

/* app_inputs' buffers of d, mapped up front and filled. */
static void failed_setup(struct app *a, const struct em_app_ref *ref,
			 struct em_app_data *d, uint64_t va[EM_APP_BUFS])
{
	int i;

	app_init(a, 0);
	for (i = 0; i < EM_APP_BUFS; i++)
		if (d->bytes[i]) {
			va[i] = app_alloc(a, d->bytes[i]);
			d->p[i] = app_ptr(a, va[i]);
		}
	ref->fill(d);
}

/*
 * Launch done stopped after `accesses` accesses (0: not started), as a
 * failure leaves it; verify_failed must pass every word, then find a
 * word of the buffer `bad` changed (to a value neither reference state
 * holds there: the sum of a line's words, or of the histogram's), and
 * skip it, with the rest of its page, once that page is lost.
 * Returns 1 if the launch was stopped part way.
 */
static int failed_check(struct app *a, const struct em_app_ref *ref,
			 struct em_app_data *d, uint64_t done, uint32_t kernel,
			 const uint64_t *args, int nargs, uint64_t accesses,
			 int bad, uint64_t word)
{
	uint8_t lost_page[EM_APP_BUFS][64] = { { 0 } };
	const uint8_t *lost[EM_APP_BUFS] = { NULL };
	uint64_t words = 0, page_words;
	uint32_t *w = d->p[bad], keep = w[word];
	int i, part_way = 0;

	if (accesses) {
		CU_ASSERT_EQUAL(th_launch(a->t, kernel, 3, 3, args, nargs),
				EMGPU_LAUNCH_RUNNING);
		gm_run(a->t->g, accesses);
		part_way = gm_reg_read(a->t->g, EMGPU_REG_LAUNCH_STATUS) ==
			   EMGPU_LAUNCH_RUNNING;
	}
	d->words_checked = d->mismatches = 0;
	CU_ASSERT_EQUAL(ref->verify_failed(d, done, lost), 0);
	CU_ASSERT_EQUAL(d->mismatches, 0);
	for (i = 0; i < EM_APP_BUFS; i++)
		words += d->bytes[i] / 4;
	CU_ASSERT_EQUAL(d->words_checked, words);
	for (i = 0; i < 32; i++)
		w[word] += w[word / 32 * 32 + (uint64_t)i] + 1;
	d->mismatches = 0;
	ref->verify_failed(d, done, lost);
	CU_ASSERT(d->mismatches > 0);
	CU_ASSERT_FATAL(d->bytes[bad] / 4 <= 64 * EM_APP_PAGE_WORDS);
	lost[bad] = lost_page[bad];
	lost_page[bad][word / EM_APP_PAGE_WORDS] = 1;
	page_words = d->bytes[bad] / 4 - word / EM_APP_PAGE_WORDS * EM_APP_PAGE_WORDS;
	if (page_words > EM_APP_PAGE_WORDS)
		page_words = EM_APP_PAGE_WORDS;
	d->words_checked = d->mismatches = 0;
	ref->verify_failed(d, done, lost);
	CU_ASSERT_EQUAL(d->mismatches, 0);
	CU_ASSERT_EQUAL(d->words_checked, words - page_words);
	w[word] = keep;
	return part_way;
}

/*
 * bitonic: every launch of a sort of 64 interleaved segments, failed
 * before it started, after a few steps, part way and at its end.
 */
static void test_bitonic_failed(void)
{
	static const uint64_t stops[] = { 0, 5, 300, 700, 1ull << 40 };
	struct em_app_data d = { .foot = 512 * 128, .seed = 3, .passes = 3 };
	uint64_t va[EM_APP_BUFS], done, k, j, launches = 0, n, part_way = 0;
	struct app a;

	em_app_size(&em_app_bitonic, &d);
	CU_ASSERT_EQUAL_FATAL(d.n[0], 8);	/* 8 lines per segment, 64 segments */
	while (em_app_bitonic_launch(&d, launches, &k, &j))
		launches++;
	CU_ASSERT_EQUAL(launches, 10);	/* (32, 0), (64, 32), (64, 0), (128, 64), ... */
	for (done = 0; done < launches; done++)
		for (n = 0; n < sizeof(stops) / sizeof(stops[0]); n++) {
			uint64_t i;

			failed_setup(&a, &em_app_bitonic, &d, va);
			for (i = 0; i < done; i++) {
				em_app_bitonic_launch(&d, i, &k, &j);
				{
					uint64_t args[5] = { va[0], d.bytes[0], d.n[0], k, j };

					app_run(&a, EMGPU_KERNEL_BITONIC, 3, args, 5);
				}
			}
			em_app_bitonic_launch(&d, done, &k, &j);
			{
				uint64_t args[5] = { va[0], d.bytes[0], d.n[0], k, j };

				part_way += failed_check(&a, &em_app_bitonic, &d, done,
							 EMGPU_KERNEL_BITONIC, args, 5,
							 stops[n], 0,
							 (done * 977 + n * 131) %
							 (d.bytes[0] / 4));
			}
			th_free(a.t);
		}
	/* a launch is 1024 accesses: the stops at 5, 300 and 700 land in it */
	CU_ASSERT_EQUAL(part_way, 3 * launches);
	/* past the last launch: nothing failed */
	failed_setup(&a, &em_app_bitonic, &d, va);
	CU_ASSERT_EQUAL(em_app_bitonic.verify_failed(&d, launches,
			(const uint8_t *const[EM_APP_BUFS]){ NULL }), -EINVAL);
	th_free(a.t);
}

/*
 * radix: 4 passes of count, scan and scatter over 1280 keys in 5 chunks,
 * each launch failed before it started, after a few steps, half way and
 * at its end; a changed word in the pass's source, its destination and
 * the histogram is found.
 */
static void test_radix_failed(void)
{
	static const uint64_t stops[] = { 0, 3, 40, 1ull << 40 };
	struct em_app_data d = { .seed = 9, .n = { 32 * 40, 4, 5 },
				 .bytes = { 32 * 40 * 4, 32 * 40 * 4, 5 * 64 + 64 } };
	uint64_t va[EM_APP_BUFS], done, n, i, part_way = 0;
	struct app a;

	for (done = 0; done < 3 * d.n[1]; done++)
		for (n = 0; n < sizeof(stops) / sizeof(stops[0]); n++) {
			int bad = (int)((done + n) % 3);
			uint64_t args[7];

			failed_setup(&a, &em_app_radix, &d, va);
			for (i = 0; i <= done; i++) {
				args[0] = va[i / 3 % 2];
				args[1] = d.n[0];
				args[2] = va[1 - i / 3 % 2];
				args[3] = va[2];
				args[4] = 4 * (i / 3);
				args[5] = i % 3;
				args[6] = d.n[2];
				if (i < done)
					app_run(&a, EMGPU_KERNEL_RADIX, 3, args, 7);
			}
			part_way += failed_check(&a, &em_app_radix, &d, done,
						 EMGPU_KERNEL_RADIX, args, 7, stops[n], bad,
						 bad == 2 ? (done * 7) % (d.n[2] * 16) :
						 (done * 97 + n * 13) % d.n[0]);
			th_free(a.t);
		}
	/* per pass, the stops at 3 and 40 accesses land in the count (45
	 * accesses) and the scatter (~650), the one at 3 in the scan (15) */
	CU_ASSERT_EQUAL(part_way, 5 * d.n[1]);
}

/* ---- bfs ---- */

static void test_bfs(void)
{
	enum { V = 32 * 20, MAXD = 7 };
	struct app a;
	uint64_t rp, col, lev, s = 6, e = 0, *rpp, *cp, cur, res;
	uint32_t *lp, ref[V], queue[V], qh = 0, qt = 0, front;
	int v, d, deg;

	app_init(&a, 1);
	rp = app_alloc(&a, (V + 1) * 8);
	col = app_alloc(&a, V * MAXD * 8);
	lev = app_alloc(&a, V * 4);
	rpp = app_ptr(&a, rp);
	cp = app_ptr(&a, col);
	lp = app_ptr(&a, lev);
	for (v = 0; v < V; v++) {
		rpp[v] = e;
		deg = (int)(rnd(&s) % MAXD);
		for (d = 0; d < deg; d++)
			cp[e++] = rnd(&s) % V;
	}
	rpp[V] = e;
	for (v = 0; v < V; v++)
		lp[v] = ref[v] = 0xffffffffu;
	lp[0] = ref[0] = 0;
	queue[qt++] = 0;
	while (qh < qt) {
		uint32_t x = queue[qh++];
		uint64_t k;

		for (k = rpp[x]; k < rpp[x + 1]; k++)
			if (ref[cp[k]] == 0xffffffffu) {
				ref[cp[k]] = ref[x] + 1;
				queue[qt++] = (uint32_t)cp[k];
			}
	}
	for (cur = 0;; cur++) {
		uint64_t args[6] = { rp, V, col, e, lev, cur };

		for (front = 0, v = 0; v < V; v++)
			front += ref[v] == cur;
		res = app_run(&a, EMGPU_KERNEL_BFS, 9, args, 6);
		CU_ASSERT_EQUAL(res, front);
		if (!res)
			break;
	}
	CU_ASSERT(cur > 2);
	for (v = 0; v < V; v++)
		CU_ASSERT_EQUAL(lp[v], ref[v]);
	th_free(a.t);
}

/* ---- gemv ---- */

static void test_gemv(void)
{
	enum { N = 256, T = 3 };
	struct app a;
	uint64_t wt, x[T + 1], s = 8;
	int8_t *wp, ref[N], nx[N];
	int t, r, c;

	app_init(&a, 1);
	wt = app_alloc(&a, N * N);
	for (t = 0; t <= T; t++)
		x[t] = app_alloc(&a, N);
	wp = app_ptr(&a, wt);
	for (r = 0; r < N * N; r++)
		wp[r] = (int8_t)(rnd(&s) % 16 - 8);
	for (c = 0; c < N; c++)
		ref[c] = ((int8_t *)app_ptr(&a, x[0]))[c] = (int8_t)rnd(&s);
	for (t = 0; t < T; t++) {
		uint64_t args[6] = { wt, N, N, x[t], x[t + 1], 7 }, sum = 0;

		for (r = 0; r < N; r++) {
			int32_t acc = 0;

			for (c = 0; c < N; c++)
				acc += wp[r * N + c] * ref[c];
			nx[r] = (int8_t)(uint8_t)((uint32_t)acc >> 7);
			sum += (uint32_t)acc;
		}
		memcpy(ref, nx, N);
		CU_ASSERT_EQUAL(app_run(&a, EMGPU_KERNEL_GEMV, 6, args, 6), sum);
		for (r = 0; r < N; r++)
			CU_ASSERT_EQUAL(((int8_t *)app_ptr(&a, x[t + 1]))[r], ref[r]);
	}
	th_free(a.t);
}

/* ---- ARIADNE's workloads: banded GEMV, ATAX, GEMM, NW ---- */

/* CPU GEMV: y = (u8)(W x >> shift); returns the sum of the dot products */
static uint64_t cpu_gemv(const int8_t *w, const int8_t *x, int rows, int cols,
			 int shift, int8_t *y)
{
	uint64_t sum = 0;
	int r, c;

	for (r = 0; r < rows; r++) {
		int32_t acc = 0;

		for (c = 0; c < cols; c++)
			acc += w[r * cols + c] * x[c];
		y[r] = (int8_t)(uint8_t)((uint32_t)acc >> shift);
		sum += (uint32_t)acc;
	}
	return sum;
}

static void fill_i8(int8_t *p, uint64_t n, uint64_t *s, int mod)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = (int8_t)((int)(rnd(s) % (uint32_t)mod) - mod / 2);
}

/* GEMV with 8 and 32 rows per work item, and ATAX = GEMV(32) then GEMVT */
static void test_atax(void)
{
	enum { R = 256, C = 384 };
	static const uint64_t bands[] = { 8, 32 };
	struct app a;
	uint64_t A, x, t, y, s = 12, sum, i;
	int8_t *ap, *xp, ref_t[R];
	int32_t ref_y[C];
	int r, c;

	app_init(&a, 1);
	A = app_alloc(&a, R * C);
	x = app_alloc(&a, C);
	t = app_alloc(&a, R);
	y = app_alloc(&a, C * 4);
	ap = app_ptr(&a, A);
	xp = app_ptr(&a, x);
	fill_i8(ap, R * C, &s, 16);
	fill_i8(xp, C, &s, 256);
	sum = cpu_gemv(ap, xp, R, C, 6, ref_t);
	for (i = 0; i < 2; i++) {
		uint64_t args[7] = { A, R, C, x, t, 6, bands[i] };

		memset(app_ptr(&a, t), 0, R);
		CU_ASSERT_EQUAL(app_run(&a, EMGPU_KERNEL_GEMV, 5, args, 7), sum);
		CU_ASSERT_EQUAL(memcmp(app_ptr(&a, t), ref_t, R), 0);
	}
	for (sum = 0, c = 0; c < C; c++) {
		ref_y[c] = 0;
		for (r = 0; r < R; r++)
			ref_y[c] = (int32_t)((uint32_t)ref_y[c] +
					     (uint32_t)(ap[r * C + c] * ref_t[r]));
		sum += (uint32_t)ref_y[c];
	}
	{
		uint64_t args[5] = { A, R, C, t, y };

		CU_ASSERT_EQUAL(app_run(&a, EMGPU_KERNEL_GEMVT, 7, args, 5), sum);
		CU_ASSERT_EQUAL(memcmp(app_ptr(&a, y), ref_y, sizeof(ref_y)), 0);
	}
	th_free(a.t);
}

static void test_gemm(void)
{
	enum { M = 6, K = 256, N = 96 };
	struct app a;
	uint64_t A, B, C, s = 13, sum = 0;
	int8_t *ap, *bp;
	int32_t ref[M * N];
	int i, j, p;

	app_init(&a, 1);
	A = app_alloc(&a, M * K);
	B = app_alloc(&a, K * N);
	C = app_alloc(&a, M * N * 4);
	ap = app_ptr(&a, A);
	bp = app_ptr(&a, B);
	fill_i8(ap, M * K, &s, 256);
	fill_i8(bp, K * N, &s, 256);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			uint32_t acc = 0;

			for (p = 0; p < K; p++)
				acc += (uint32_t)(ap[i * K + p] * bp[p * N + j]);
			ref[i * N + j] = (int32_t)acc;
			sum += acc;
		}
	{
		uint64_t args[6] = { A, M, K, B, N, C };

		CU_ASSERT_EQUAL(app_run(&a, EMGPU_KERNEL_GEMM, 7, args, 6), sum);
		CU_ASSERT_EQUAL(memcmp(app_ptr(&a, C), ref, sizeof(ref)), 0);
	}
	/* tiles of k accumulate into C: the same product */
	memset(app_ptr(&a, C), 0, sizeof(ref));
	for (i = 0; i < K / 128; i++) {
		uint64_t args[8] = { A, M, K, B, N, C, 128 * (uint64_t)i, 128 };

		app_run(&a, EMGPU_KERNEL_GEMM, 5, args, 8);
	}
	CU_ASSERT_EQUAL(memcmp(app_ptr(&a, C), ref, sizeof(ref)), 0);
	{	/* a tile past k, or one not a multiple of 128, is malformed */
		uint64_t args[8] = { A, M, K, B, N, C, 128, K };

		CU_ASSERT_EQUAL(th_launch(a.t, EMGPU_KERNEL_GEMM, 5, 0, args, 8),
				EMGPU_LAUNCH_ERROR);
	}
	th_free(a.t);
}

static void test_nw(void)
{
	enum { N = 128, W = N + 32, T = N / 32, GAP = 3 };
	struct app a;
	uint64_t H, ref, s = 14, d, sum, total = 0;
	static int32_t cpu[N + 1][N + 1];
	int32_t *hp, *rp;
	int i, j;

	app_init(&a, 1);
	H = app_alloc(&a, (N + 1) * W * 4);
	ref = app_alloc(&a, N * N * 4);
	hp = app_ptr(&a, H);
	rp = app_ptr(&a, ref);
	for (i = 0; i < N * N; i++)
		rp[i] = (int32_t)(rnd(&s) % 21) - 10;
	for (i = 0; i <= N; i++) {
		cpu[i][0] = hp[i * W + 31] = -i * GAP;
		cpu[0][i] = hp[31 + i] = -i * GAP;
	}
	for (i = 1; i <= N; i++)
		for (j = 1; j <= N; j++) {
			int32_t m = cpu[i - 1][j - 1] + rp[(i - 1) * N + j - 1];

			if (cpu[i - 1][j] - GAP > m)
				m = cpu[i - 1][j] - GAP;
			if (cpu[i][j - 1] - GAP > m)
				m = cpu[i][j - 1] - GAP;
			cpu[i][j] = m;
			total += (uint32_t)m;
		}
	for (sum = 0, d = 0; d < 2 * T - 1; d++) {
		uint64_t args[5] = { H, N, ref, GAP, d };

		sum += app_run(&a, EMGPU_KERNEL_NW, 3, args, 5);
	}
	CU_ASSERT_EQUAL(sum, total);
	for (i = 0; i <= N; i++)
		for (j = 0; j <= N; j++)
			CU_ASSERT_EQUAL(hp[i * W + 31 + j], cpu[i][j]);
	{	/* the diagonal must exist */
		uint64_t args[5] = { H, N, ref, GAP, 2 * T - 1 };

		CU_ASSERT_EQUAL(th_launch(a.t, EMGPU_KERNEL_NW, 3, 0, args, 5),
				EMGPU_LAUNCH_ERROR);
	}
	th_free(a.t);
}

/* Distinct uTLB ids faulting on each 2 MiB block: ARIADNE's sharing degree. */
struct sd_count {
	uint64_t base;
	uint64_t seen[8];	/* per block: uTLB id bitmap (<= 64 uTLBs) */
};

static unsigned int sd_run(struct app *a, struct sd_count *sd, uint32_t kernel,
			   const uint64_t *args, int nargs)
{
	const struct gm_profile *p = gm_get_profile(a->t->g);
	struct emgpu_fault_entry e;
	unsigned int guard = 0;
	enum gm_stop st;

	CU_ASSERT_EQUAL(th_launch(a->t, kernel, 0, 3, args, nargs),
			EMGPU_LAUNCH_RUNNING);
	for (;;) {
		st = gm_run(a->t->g, 0);
		if (st == GM_STOP_LAUNCH_DONE || ++guard > 100000)
			break;
		if (st == GM_STOP_FAULT || st == GM_STOP_STALLED) {
			uint32_t get = gm_reg_read(a->t->g, EMGPU_REG_FAULT_BUF_GET);
			uint32_t put = gm_reg_read(a->t->g, EMGPU_REG_FAULT_BUF_PUT);

			for (; get != put; get = (get + 1) % 64) {
				uint64_t blk, va;

				th_fault_entry(a->t, get, &e);
				va = emgpu_le64_to_cpu(e.addr);
				blk = (va - sd->base) >> 21;
				if (blk < 8)
					sd->seen[blk] |= 1ull << EMGPU_FAULT_UTLB_ID(
						emgpu_le32_to_cpu(e.info),
						p->utlbs_per_gpc);
				map_on_fault(a->t, va, a);
				memset(a->t->sys + TH_FAULT_BUF + 32 * get, 0, 32);
			}
			gm_reg_write(a->t->g, EMGPU_REG_FAULT_BUF_GET, get);
			gm_reg_write(a->t->g, EMGPU_REG_FAULT_BUF_STATUS,
				     EMGPU_RING_OVERFLOW);
			gm_reg_write(a->t->g, EMGPU_REG_FAULT_REPLAY,
				     EMGPU_REPLAY_START);
		}
		gm_reg_write(a->t->g, EMGPU_REG_SYNC, 1);
	}
	return gm_reg_read(a->t->g, EMGPU_REG_LAUNCH_STATUS);
}

/*
 * Sparse and dense as ARIADNE observes them: GEMV with 32 rows of 64 KiB
 * per warp faults each weight block from one uTLB; GEMM's B blocks, read
 * by every item, fault from many.
 */
static void test_sharing_degree(void)
{
	struct app a;
	struct sd_count sd;
	uint64_t w, x, y, A, C, b;

	app_init(&a, 1);
	w = app_alloc(&a, 4ull << 20);		/* 64 rows x 64 KiB */
	x = app_alloc(&a, 64 << 10);
	y = app_alloc(&a, 4096);
	memset(&sd, 0, sizeof(sd));
	sd.base = w;
	{
		uint64_t args[7] = { w, 64, 64 << 10, x, y, 0, 32 };

		CU_ASSERT_EQUAL(sd_run(&a, &sd, EMGPU_KERNEL_GEMV, args, 7),
				EMGPU_LAUNCH_DONE);
	}
	for (b = 0; b < 2; b++)
		CU_ASSERT_EQUAL(__builtin_popcountll(sd.seen[b]), 1);
	th_free(a.t);

	app_init(&a, 1);
	A = app_alloc(&a, 4 * 128);
	b = app_alloc(&a, 2ull << 20);		/* B: 128 x 16 KiB */
	C = app_alloc(&a, 4 * (16 << 10) * 4);
	memset(&sd, 0, sizeof(sd));
	sd.base = b;
	{
		uint64_t args[6] = { A, 4, 128, b, 16 << 10, C };

		CU_ASSERT_EQUAL(sd_run(&a, &sd, EMGPU_KERNEL_GEMM, args, 6),
				EMGPU_LAUNCH_DONE);
	}
	CU_ASSERT(__builtin_popcountll(sd.seen[0]) > 3);
	th_free(a.t);
}

/* ---- colscan ---- */

static void test_colscan(void)
{
	enum { N = 1024, NC = 5 };
	struct app a;
	uint64_t tab, out, s = 9, *op;
	uint32_t *tp;
	int q, i, x;
	/* filters (col, lo, hi) x 3, then a, b */
	static const uint32_t qs[2][11] = {
		{ 0, 100, 400, 1, 1, 3, 2, 0, 24, 3, 1 },
		{ 2, 10, 30, 0xff, 0, 0, 0xff, 0, 0, 4, 0xff },
	};

	app_init(&a, 0);
	tab = app_alloc(&a, NC * N * 4);
	out = app_alloc(&a, N / 4);
	tp = app_ptr(&a, tab);
	op = app_ptr(&a, out);
	for (i = 0; i < N; i++) {
		tp[0 * N + i] = rnd(&s) % 2557;		/* date */
		tp[1 * N + i] = rnd(&s) % 11;		/* discount */
		tp[2 * N + i] = 1 + rnd(&s) % 50;	/* quantity */
		tp[3 * N + i] = rnd(&s) % 100000;	/* price */
		tp[4 * N + i] = rnd(&s);		/* revenue */
	}
	for (q = 0; q < 2; q++) {
		const uint32_t *d = qs[q];
		uint64_t args[8] = {
			tab, N, NC, out,
			d[0] | (uint64_t)d[3] << 8 | (uint64_t)d[6] << 16 |
			(uint64_t)d[9] << 24 | (uint64_t)d[10] << 32,
			d[1] | (uint64_t)d[2] << 32, d[4] | (uint64_t)d[5] << 32,
			d[7] | (uint64_t)d[8] << 32,
		}, total = 0;

		CU_ASSERT_EQUAL(th_launch(a.t, EMGPU_KERNEL_COLSCAN, 4, 0, args, 8),
				EMGPU_LAUNCH_RUNNING);
		CU_ASSERT_EQUAL(th_run_to_end(a.t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
		for (i = 0; i < N / 32; i++) {
			uint64_t sum = 0;

			for (x = i * 32; x < i * 32 + 32; x++) {
				int f, ok = 1;

				for (f = 0; f < 3; f++)
					if (d[3 * f] != 0xff &&
					    (tp[d[3 * f] * N + x] < d[3 * f + 1] ||
					     tp[d[3 * f] * N + x] > d[3 * f + 2]))
						ok = 0;
				if (ok)
					sum += (uint64_t)tp[d[9] * N + x] *
					       (d[10] != 0xff ? tp[d[10] * N + x] : 1);
			}
			CU_ASSERT_EQUAL(op[i], sum);
			total += sum;
		}
		CU_ASSERT(total > 0);
		CU_ASSERT_EQUAL(gm_launch_result(a.t->g), total);
	}
	th_free(a.t);
}

/* ---- ssb: the 13 SSB queries of workloads/ssb.c ---- */

/* Rows of the table em_app_ssb filled that query q passes (CPU). */
static uint64_t ssb_rows(const struct em_app_data *d, int q)
{
	uint64_t args[4], n = d->n[0], x, rows = 0;
	const uint32_t *t = d->p[0];
	int f;

	em_app_ssb_args(q, args);
	for (x = 0; x < n; x++) {
		int ok = 1;

		for (f = 0; f < 3; f++) {
			unsigned int c = (unsigned int)(args[0] >> (8 * f)) & 0xff;

			if (c != EM_CS_NONE && (t[c * n + x] < (uint32_t)args[1 + f] ||
						t[c * n + x] > (uint32_t)(args[1 + f] >> 32)))
				ok = 0;
		}
		rows += ok;
	}
	return rows;
}

/*
 * Every query run by the colscan kernel over the table em_app_ssb sizes and
 * fills, checked word by word by its own verify(); the rows each passes
 * ordered as SSB's selectivities are (each flight's queries narrow).
 */
static void test_ssb(void)
{
	static const char *const names[EM_SSB_QUERIES] = {
		"ssb-q1.1", "ssb-q1.2", "ssb-q1.3", "ssb-q2.1", "ssb-q2.2", "ssb-q2.3",
		"ssb-q3.1", "ssb-q3.2", "ssb-q3.3", "ssb-q3.4", "ssb-q4.1", "ssb-q4.2",
		"ssb-q4.3",
	};
	uint64_t rows[EM_SSB_QUERIES], n = 0;
	struct app a;
	int q, i;

	CU_ASSERT_EQUAL(em_app_ssb_query("ssb-q5.1"), -1);
	CU_ASSERT_EQUAL(em_app_ssb_query("q1.1"), -1);
	CU_ASSERT_EQUAL(em_app_ssb_query(NULL), -1);
	for (q = 0; q < EM_SSB_QUERIES; q++) {
		struct em_app_data d = { .foot = 16ull << 20, .seed = 5 };
		uint64_t args[8], total = 0;

		d.query = em_app_ssb_query(names[q]);
		CU_ASSERT_EQUAL_FATAL(d.query, q);
		app_init(&a, 0);
		em_app_size(&em_app_ssb, &d);
		CU_ASSERT_EQUAL(d.bytes[2], 0);
		args[0] = app_alloc(&a, d.bytes[0]);	/* lineorder */
		args[3] = app_alloc(&a, d.bytes[1]);	/* a u64 per line of 32 rows */
		d.p[0] = app_ptr(&a, args[0]);
		d.p[1] = app_ptr(&a, args[3]);
		em_app_ssb.fill(&d);
		args[1] = d.n[0];
		args[2] = EM_SSB_COLS;
		em_app_ssb_args(q, args + 4);
		d.result = app_run(&a, EMGPU_KERNEL_COLSCAN, 8, args, 8);
		CU_ASSERT_EQUAL(em_app_ssb.verify(&d), 0);
		CU_ASSERT_EQUAL(d.mismatches, 0);
		CU_ASSERT_EQUAL(d.words_checked, EM_SSB_COLS * d.n[0] + d.n[0] / 32);
		for (i = 0; i < (int)(d.n[0] / 32); i++)
			total += ((const uint64_t *)d.p[1])[i];
		CU_ASSERT_EQUAL(d.result, total);
		rows[q] = ssb_rows(&d, q);
		CU_ASSERT(rows[q] > 0);
		n = d.n[0];
		th_free(a.t);
	}
	/* q1.1 > q1.2 > q1.3, q2.1 > q2.2 > q2.3, q3.1 > ... > q3.4, q4.1 > q4.2 > q4.3 */
	for (q = 1; q < EM_SSB_QUERIES; q++)
		if (q != 3 && q != 6 && q != 10)
			CU_ASSERT(rows[q] < rows[q - 1]);
	/* SSB's selectivities, within 5 %: q1.1 1/7 x 3/11 x 24/50, q3.1 1/5 x 1/5 x 6/7 */
	CU_ASSERT(fabs(rows[0] - n / 7.0 * 3 / 11 * 24 / 50) < 0.05 * n / 7.0 * 3 / 11 * 24 / 50);
	CU_ASSERT(fabs(rows[6] - n / 25.0 * 6 / 7) < 0.05 * n / 25.0 * 6 / 7);
}

/* Malformed arguments fail the launch, never run. */
static void test_app_bad_args(void)
{
	struct th *t = th_new("h200-256m", 1, 0);
	uint64_t bit[5] = { VA_BASE, 24 * 128, 16, 32, 0 };	/* 16 does not divide 24 */
	uint64_t pf[6] = { VA_BASE, 4, 64, 4, VA_BASE, VA_BASE };	/* row >= rows */
	uint64_t rx[7] = { VA_BASE, 64, VA_BASE, VA_BASE, 30, 0, 1 };	/* shift > 28 */
	uint64_t cs[8] = { VA_BASE, 512, 2, VA_BASE, 0xff000000ull, 0, 0, 0 };

	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_BITONIC, 1, 0, bit, 5), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_PATHFINDER, 1, 0, pf, 6), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_RADIX, 1, 0, rx, 7), EMGPU_LAUNCH_ERROR);
	CU_ASSERT_EQUAL(th_launch(t, EMGPU_KERNEL_COLSCAN, 1, 0, cs, 8), EMGPU_LAUNCH_ERROR);
	th_free(t);
}

/* ---- verification by the host's digest (em_app_host_digest, em_app_verify) ---- */

/*
 * fill() and expect() as a correct run would leave the buffers: verify()
 * finds every word right and counts as many words as the digest; the
 * guest's em_app_verify() accepts them by the digest alone; one changed
 * checked word (buffer bad, word) sends it to verify(), which finds it;
 * a digest of another run does too, and verify() then passes.
 */
static void digest_case(const struct em_app_ref *ref, uint64_t foot, uint64_t seed,
			uint32_t passes, int bad, uint64_t word)
{
	struct em_app_data host = { .foot = foot, .seed = seed, .passes = passes, .query = -1 };
	struct em_app_data d;
	struct em_app_digest dg, other;
	uint32_t *w;
	int i;

	em_app_size(ref, &host);
	d = host;
	for (i = 0; i < EM_APP_BUFS; i++) {
		host.p[i] = host.bytes[i] ? calloc(1, host.bytes[i]) : NULL;
		d.p[i] = d.bytes[i] ? calloc(1, d.bytes[i]) : NULL;
		CU_ASSERT_FATAL(!d.bytes[i] || (d.p[i] && host.p[i]));
	}
	CU_ASSERT_EQUAL_FATAL(em_app_host_digest(ref, &host, &dg), 0);
	ref->fill(&d);
	CU_ASSERT_EQUAL_FATAL(ref->expect(&d), 0);
	/* the launches' result, where the app checks one, and what they record in n[] */
	d.n[2] += ref == &em_app_bfs;	/* bfs: its levels */
	d.result = d.expected_result;
	d.expected_result = 0;
	d.result_ok = -1;
	CU_ASSERT_EQUAL(ref->verify(&d), 0);
	CU_ASSERT_EQUAL(d.mismatches, 0);
	CU_ASSERT_EQUAL(d.words_checked, dg.words_checked);
	CU_ASSERT_EQUAL(d.expected_result, dg.expected_result);
	CU_ASSERT_EQUAL(d.result_ok, dg.checks_result ? 1 : -1);

	d.words_checked = d.mismatches = 0;
	d.result_ok = -1;
	CU_ASSERT_EQUAL(em_app_verify(ref, &d, &dg), 0);
	CU_ASSERT_EQUAL(d.verified_by_digest, 1);
	CU_ASSERT_EQUAL(d.mismatches, 0);
	CU_ASSERT_EQUAL(d.words_checked, dg.words_checked);
	CU_ASSERT_EQUAL(d.result_ok, dg.checks_result ? 1 : -1);

	w = d.p[bad];
	CU_ASSERT_FATAL(word < d.bytes[bad] / 4);
	w[word] += 1;
	d.words_checked = d.mismatches = 0;
	CU_ASSERT_EQUAL(em_app_verify(ref, &d, &dg), 0);
	CU_ASSERT_EQUAL(d.verified_by_digest, 0);
	CU_ASSERT(d.mismatches > 0);
	CU_ASSERT_EQUAL(d.words_checked, dg.words_checked);
	w[word] -= 1;

	other = dg;
	other.digest ^= 1;
	d.words_checked = d.mismatches = 0;
	CU_ASSERT_EQUAL(em_app_verify(ref, &d, &other), 0);
	CU_ASSERT_EQUAL(d.verified_by_digest, 0);
	CU_ASSERT_EQUAL(d.mismatches, 0);
	CU_ASSERT_EQUAL(d.words_checked, dg.words_checked);
	for (i = 0; i < EM_APP_BUFS; i++) {
		free(d.p[i]);
		free(host.p[i]);
	}
}

static void test_app_digest(void)
{
	struct em_app_digest dg;
	struct em_app_data d = { .foot = 1 << 20, .seed = 1, .query = -1 };
	char text[96];

	/* an output word and an input word verify() checks, per app */
	digest_case(&em_app_pathfinder, 3 << 20, 1, 0, 1, 40);
	digest_case(&em_app_pathfinder, 1 << 20, 5, 7, 0, 1000);
	digest_case(&em_app_kmeans, 5 << 20, 1, 0, 1, 77);
	digest_case(&em_app_kmeans, 5 << 20, 2, 3, 2, 17);	/* a cluster's count */
	digest_case(&em_app_kmeans, 5 << 20, 2, 3, 0, 9);
	digest_case(&em_app_conv, 2 << 20, 1, 0, 1, 4000);
	digest_case(&em_app_conv, 2 << 20, 3, 0, 0, 123);
	digest_case(&em_app_bitonic, 1 << 20, 1, 0, 0, 4321);
	digest_case(&em_app_bitonic, 1 << 20, 4, 3, 0, 0);
	digest_case(&em_app_radix, 5 << 20, 1, 0, 0, 333);	/* 4 passes: in b0 */
	digest_case(&em_app_radix, 5 << 20, 1, 5, 1, 333);	/* 20 bits: in b1 */
	digest_case(&em_app_bfs, 5 << 20, 1, 0, 2, 50);
	digest_case(&em_app_bfs, 5 << 20, 6, 0, 1, 500);

	/* an app without expect() is always verified by its reference */
	CU_ASSERT_EQUAL(em_app_host_digest(&em_app_gemv, &d, &dg), -ENOTSUP);
	CU_ASSERT_PTR_EQUAL(em_app_ref_find("kmeans"), &em_app_kmeans);
	CU_ASSERT_PTR_NULL(em_app_ref_find("cnn"));	/* apps.c's alias */

	/* the text on the guest's command line reads back */
	dg = (struct em_app_digest){ 0xfedcba9876543210ull, 12345, 1ull << 63, 1 };
	em_app_digest_format(&dg, text, sizeof(text));
	memset(&dg, 0, sizeof(dg));
	CU_ASSERT_EQUAL(em_app_digest_parse(text, &dg), 0);
	CU_ASSERT_EQUAL(dg.digest, 0xfedcba9876543210ull);
	CU_ASSERT_EQUAL(dg.words_checked, 12345);
	CU_ASSERT_EQUAL(dg.expected_result, 1ull << 63);
	CU_ASSERT_EQUAL(dg.checks_result, 1);
	CU_ASSERT_EQUAL(em_app_digest_parse("12:3:4", &dg), -EINVAL);
	CU_ASSERT_EQUAL(em_app_digest_parse("12:3:4:1,", &dg), -EINVAL);
}

/*
 * workloads/app_list.h against the CPU sides and the names the runner and
 * the report ask for: every application's reference is its own and found
 * by its name, every alias and SSB query names its application, and the
 * paper's rows are exactly those the report has always read.
 */
static void test_app_list(void)
{
	static const struct {
		const char *name, *app, *paper;
	} names[] = {
		{ "pathfinder", "pathfinder", "pathfinder" },
		{ "kmeans", "kmeans", "kmeans" },
		{ "conv", "conv", "cnn" },
		{ "cnn", "conv", "cnn" },
		{ "bitonic", "bitonic", "bitonic_sort" },
		{ "bitonic_sort", "bitonic", "bitonic_sort" },
		{ "radix", "radix", "radix_sort" },
		{ "radix_sort", "radix", "radix_sort" },
		{ "bfs", "bfs", "bfs" },
		{ "gemv", "gemv", "llm" },
		{ "llm", "gemv", "llm" },
		{ "colscan", "colscan", "q1.3+q2.1+q2.2+q2.3+q3.1+q3.2+q3.3+q3.4" },
		{ "ssb", "colscan", "q1.3+q2.1+q2.2+q2.3+q3.1+q3.2+q3.3+q3.4" },
		{ "ssb-q1.1", "ssb", "q1.1" },
		{ "ssb-q3.4", "ssb", "q3.4" },
		{ "ssb-q4.3", "ssb", "q4.3" },
		{ "gemvrow", "gemvrow", NULL },
		{ "atax", "atax", NULL },
		{ "gemm", "gemm", NULL },
		{ "nw", "nw", NULL },
		{ "decode", "decode", NULL },
		/* the microbenchmarks: no application, one paper row */
		{ "stream", NULL, NULL },
		{ "hotset", NULL, NULL },
		{ "movinghot", NULL, "movinghot" },
		/* no such run */
		{ "ssb-q4.4", NULL, NULL },
		{ "ssb-", NULL, NULL },
		{ "trace:nw-accesses.trace", NULL, NULL },
		{ "Conv", NULL, NULL },
	};
#define APP_CHECK(app, kernel, paper, inputs, card)			\
	CU_ASSERT_PTR_EQUAL(em_app_ref_find(#app), &em_app_##app);	\
	CU_ASSERT_STRING_EQUAL(em_app_##app.name, #app);		\
	napps++;
#define ALIAS_CHECK(alias, app)						\
	CU_ASSERT_PTR_NOT_NULL(em_app_ref_find(#app));			\
	CU_ASSERT_STRING_EQUAL(em_app_of(#alias), #app);		\
	naliases++;
#define QUERY_CHECK(query)						\
	snprintf(run, sizeof(run), "ssb-%s", query);			\
	CU_ASSERT_EQUAL(em_app_ssb_query(run), nqueries);		\
	CU_ASSERT_STRING_EQUAL(em_app_paper(run), query);		\
	nqueries++;
	unsigned int napps = 0, naliases = 0, i;
	int nqueries = 0;
	char run[16];

	EM_APPS(APP_CHECK)
	EM_APP_ALIASES(ALIAS_CHECK)
	EM_SSB_QUERY_NAMES(QUERY_CHECK)
#undef APP_CHECK
#undef ALIAS_CHECK
#undef QUERY_CHECK
	CU_ASSERT_EQUAL(napps, 14);
	CU_ASSERT_EQUAL(naliases, 5);
	CU_ASSERT_EQUAL(nqueries, EM_SSB_QUERIES);

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *app = em_app_of(names[i].name), *paper = em_app_paper(names[i].name);

		CU_ASSERT_STRING_EQUAL(app ? app : "(none)",
				       names[i].app ? names[i].app : "(none)");
		CU_ASSERT_STRING_EQUAL(paper ? paper : "(none)",
				       names[i].paper ? names[i].paper : "(none)");
	}
	CU_ASSERT_PTR_NULL(em_app_of(NULL));
	CU_ASSERT_PTR_NULL(em_app_paper(NULL));
}

void add_apps_suite(void)
{
	CU_pSuite s = CU_add_suite("apps", NULL, NULL);

	CU_add_test(s, "pathfinder rows vs CPU DP", test_pathfinder);
	CU_add_test(s, "kmeans iterations vs CPU Lloyd", test_kmeans);
	CU_add_test(s, "conv layer vs CPU convolution", test_conv);
	CU_add_test(s, "bitonic sort vs qsort per segment", test_bitonic);
	CU_add_test(s, "radix sort passes vs qsort", test_radix);
	CU_add_test(s, "bitonic failed part way: verify_failed, a changed word found",
		    test_bitonic_failed);
	CU_add_test(s, "radix failed part way: verify_failed, a changed word found",
		    test_radix_failed);
	CU_add_test(s, "bfs levels vs CPU BFS", test_bfs);
	CU_add_test(s, "gemv tokens vs CPU GEMV", test_gemv);
	CU_add_test(s, "colscan queries vs CPU filter-aggregate", test_colscan);
	CU_add_test(s, "ssb: 13 queries vs app_inputs' reference, selectivities", test_ssb);
	CU_add_test(s, "banded gemv and atax vs CPU", test_atax);
	CU_add_test(s, "gemm vs CPU", test_gemm);
	CU_add_test(s, "nw wavefront vs CPU Needleman-Wunsch", test_nw);
	CU_add_test(s, "sharing degree: sparse gemv 1, gemm > 3", test_sharing_degree);
	CU_add_test(s, "malformed app arguments fail the launch", test_app_bad_args);
	CU_add_test(s, "host digest: expect() passes verify(), a changed word falls back",
		    test_app_digest);
	CU_add_test(s, "app list: references, aliases, SSB queries, paper rows", test_app_list);
}
