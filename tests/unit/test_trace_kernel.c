/* SPDX-License-Identifier: MIT */
/*
 * The trace kernel (models/src/kernels/trace.c): a captured launch's
 * per-warp streams as the guest's replayer lays them out (a table of
 * {first, count} per warp, u32 records), replayed through the MMU with
 * pages mapped on first touch; the result against the sum computed here,
 * the lines written against the pattern, the compute per access against
 * warp_issue_ps, and malformed streams failing the launch.
 */
#include <string.h>

#include "gpumodel/kernel.h"
#include "gpumodel/profile.h"
#include "tests.h"

/* data lines at VA_BASE, the table and the records above them */
#define MiB		(1ull << 20)
#define TK_DATA_LINES	64
#define TK_TABLE	(VA_BASE + 2 * MiB)
#define TK_RECS		(VA_BASE + 4 * MiB)
#define TK_SEED		11

struct tk {
	struct th *t;
	unsigned int faults;		/* fault entries serviced */
	unsigned int pages;		/* distinct pages they mapped */
	uint64_t page[16];
};

static void tk_map_on_fault(struct th *t, uint64_t va, void *ctx)
{
	struct tk *k = ctx;
	unsigned int i;

	for (i = 0; i < k->pages && k->page[i] != (va & ~4095ull); i++)
		;
	if (i == k->pages && k->pages < 16)
		k->page[k->pages++] = va & ~4095ull;
	th_map(t, va & ~4095ull, EMGPU_APERTURE_SYSMEM,
	       TH_DATA + ((va & ~4095ull) - VA_BASE), 12, 0);
	k->faults++;
}

static uint8_t *tk_ptr(struct tk *k, uint64_t va)
{
	return k->t->sys + TH_DATA + (va - VA_BASE);
}

static uint32_t tk_rec(uint32_t line, uint32_t flags)
{
	return line << EMGPU_TRACE_REC_SHIFT | flags;
}

/* The pattern of data line `line`, written by the CPU (an input line). */
static void tk_fill_line(struct tk *k, uint32_t line)
{
	uint32_t *w = (uint32_t *)tk_ptr(k, VA_BASE + 128ull * line);
	int i;

	for (i = 0; i < 32; i++)
		w[i] = emgpu_trace_word(TK_SEED, VA_BASE + 128ull * line + 4 * i);
}

static uint64_t tk_line_sum(uint32_t line)
{
	uint64_t s = 0;
	int i;

	for (i = 0; i < 32; i++)
		s += emgpu_trace_word(TK_SEED, VA_BASE + 128ull * line + 4 * i);
	return s;
}

/*
 * Four warps: 0 reads lines 0..39 (two record lines' worth), 1 writes
 * lines 40..43 and reads them back, 2 has no records, 3 does an atomic
 * on line 0 and reads line 44 (input). Lines 45.. are never touched.
 */
static uint32_t tk_layout(struct tk *k, uint64_t *expect)
{
	uint32_t recs[64], n = 0, i;
	uint64_t table[4][2];

	*expect = 0;
	table[0][0] = n;
	for (i = 0; i < 40; i++) {
		recs[n++] = tk_rec(i, EMGPU_TRACE_REC_READ);
		*expect += tk_line_sum(i);
	}
	table[0][1] = n - table[0][0];
	table[1][0] = n;
	for (i = 40; i < 44; i++)
		recs[n++] = tk_rec(i, EMGPU_TRACE_REC_WRITE);
	for (i = 40; i < 44; i++) {
		recs[n++] = tk_rec(i, EMGPU_TRACE_REC_READ);
		*expect += tk_line_sum(i);
	}
	table[1][1] = n - table[1][0];
	table[2][0] = n;
	table[2][1] = 0;
	table[3][0] = n;
	recs[n++] = tk_rec(0, EMGPU_TRACE_REC_READ | EMGPU_TRACE_REC_WRITE);
	*expect += tk_line_sum(0);
	recs[n++] = tk_rec(44, EMGPU_TRACE_REC_READ);
	*expect += tk_line_sum(44);
	table[3][1] = n - table[3][0];
	for (i = 0; i < 40; i++)
		tk_fill_line(k, i);
	tk_fill_line(k, 44);
	memcpy(tk_ptr(k, TK_TABLE), table, sizeof(table));
	memcpy(tk_ptr(k, TK_RECS), recs, n * sizeof(recs[0]));
	return n;
}

static void tk_init(struct tk *k, const char *profile, int fault)
{
	uint64_t off;

	memset(k, 0, sizeof(*k));
	k->t = th_new(profile, 7, 0);
	if (fault) {
		th_enable_faults(k->t, 64);
		return;
	}
	for (off = 0; off < 6 * MiB; off += 4096)
		th_map(k->t, VA_BASE + off, EMGPU_APERTURE_SYSMEM,
		       TH_DATA + off, 12, 0);
}

static void tk_args(uint64_t *args, uint32_t nrecs, uint64_t compute)
{
	const uint64_t a[7] = { TK_TABLE, 4, TK_RECS, nrecs, VA_BASE,
				TK_DATA_LINES * 128, compute };

	memcpy(args, a, sizeof(a));
}

static void test_trace_replay(void)
{
	struct tk k;
	uint64_t args[7], expect;
	uint32_t n, i, w;

	tk_init(&k, "h200-256m", 1);
	n = tk_layout(&k, &expect);
	CU_ASSERT_EQUAL(n, 50);
	tk_args(args, n, 0);
	CU_ASSERT_EQUAL(th_launch(k.t, EMGPU_KERNEL_TRACE, 3, TK_SEED, args, 7),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(k.t, tk_map_on_fault, &k, NULL),
			EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(k.t->g), expect);
	/* the two data pages (lines 0..31, 32..44), the table's, the records' */
	CU_ASSERT_EQUAL(k.pages, 4);
	CU_ASSERT(k.faults >= k.pages);
	/* lines 0..44 hold the pattern, the rest are untouched zeros */
	for (i = 0; i < TK_DATA_LINES; i++)
		for (w = 0; w < 32; w++) {
			uint32_t v;

			memcpy(&v, tk_ptr(&k, VA_BASE + 128ull * i + 4 * w), 4);
			CU_ASSERT_EQUAL(v, i <= 44 ? emgpu_trace_word(TK_SEED,
					VA_BASE + 128ull * i + 4 * w) : 0);
		}
	th_free(k.t);
}

/* One warp, every page mapped: the launch's ns with `compute`. */
static uint64_t tk_one_warp_ns(const char *profile, uint64_t compute)
{
	struct tk k;
	uint64_t args[7], expect, ns;
	uint32_t n;

	tk_init(&k, profile, 0);
	n = tk_layout(&k, &expect);
	tk_args(args, n, compute);
	CU_ASSERT_EQUAL(th_launch(k.t, EMGPU_KERNEL_TRACE, 1, TK_SEED, args, 7),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(k.t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(k.t->g), expect);
	ns = gm_launch_time_ns(k.t->g);
	th_free(k.t);
	return ns;
}

/*
 * 100.5 instructions per access over 50 accesses on one warp: 5025 of
 * them at warp_issue_ps, the half instructions carried from access to
 * access (none lost, none charged twice).
 */
static void test_trace_compute(void)
{
	struct gm_profile p;
	uint64_t base = tk_one_warp_ns("h200-256m", 0);
	uint64_t more = tk_one_warp_ns("h200-256m", 100 * 256 + 128), want;

	CU_ASSERT_EQUAL(gm_profile_lookup("h200-256m", &p), 0);
	want = 5025ull * p.warp_issue_ps / 1000;
	CU_ASSERT(more - base + 1 >= want && more - base <= want + 1);
}

/*
 * The replay's own streams (the warp table, the record lines) are not the
 * program's accesses: one warp over every item, every page in sysmem,
 * counts the data accesses alone. 40 reads, 4 writes and 4 reads, an
 * atomic (its load and its store) and a read: 51; the 4 table entries and
 * 4 record lines the warp also reads are neither counted nor charged.
 */
static void test_trace_streams_untimed(void)
{
	struct gm_stats st;
	struct tk k;
	uint64_t args[7], expect;
	uint32_t n;

	tk_init(&k, "h200-256m", 0);
	n = tk_layout(&k, &expect);
	tk_args(args, n, 0);
	CU_ASSERT_EQUAL(th_launch(k.t, EMGPU_KERNEL_TRACE, 1, TK_SEED, args, 7),
			EMGPU_LAUNCH_RUNNING);
	CU_ASSERT_EQUAL(th_run_to_end(k.t, NULL, NULL, NULL), EMGPU_LAUNCH_DONE);
	CU_ASSERT_EQUAL(gm_launch_result(k.t->g), expect);
	gm_get_stats(k.t->g, &st);
	CU_ASSERT_EQUAL(st.accesses, 51);
	CU_ASSERT_EQUAL(st.sysmem_accesses, 51);
	CU_ASSERT_EQUAL(st.vram_accesses, 0);
	th_free(k.t);
}

/* A launch that fails: its status. */
static uint32_t tk_bad(uint64_t *args, uint32_t *recs, uint32_t nrecs,
		       const uint64_t *table, uint32_t warps)
{
	struct tk k;
	uint32_t st;

	tk_init(&k, "h200-256m", 0);
	memcpy(tk_ptr(&k, TK_TABLE), table, 16ull * warps);
	memcpy(tk_ptr(&k, TK_RECS), recs, 4ull * nrecs);
	st = (uint32_t)th_launch(k.t, EMGPU_KERNEL_TRACE, 1, TK_SEED, args, 7);
	if (st == EMGPU_LAUNCH_RUNNING)
		st = th_run_to_end(k.t, NULL, NULL, NULL);
	CU_ASSERT(st == EMGPU_LAUNCH_ERROR || k.t->errors == 0);
	th_free(k.t);
	return st;
}

static void test_trace_bad_streams(void)
{
	uint32_t recs[2] = { tk_rec(1, EMGPU_TRACE_REC_READ), tk_rec(2, EMGPU_TRACE_REC_READ) };
	uint64_t table[2] = { 0, 2 }, args[7];

	tk_args(args, 2, 0);
	args[1] = 1;
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_DONE);
	/* a line past the span */
	recs[1] = tk_rec(TK_DATA_LINES, EMGPU_TRACE_REC_READ);
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_ERROR);
	/* a record with neither read nor write */
	recs[1] = tk_rec(2, 0);
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_ERROR);
	/* a warp's records past the record count */
	recs[1] = tk_rec(2, EMGPU_TRACE_REC_READ);
	table[0] = 1;
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_ERROR);
	table[0] = 0;
	/* malformed descriptors: no warps, no records, a span past the VA */
	args[1] = 0;
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_ERROR);
	args[1] = 1;
	args[3] = 0;
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_ERROR);
	args[3] = 2;
	args[5] = 1ull << EMGPU_VA_BITS;
	CU_ASSERT_EQUAL(tk_bad(args, recs, 2, table, 1), EMGPU_LAUNCH_ERROR);
}

void add_trace_kernel_suite(void)
{
	CU_pSuite s = CU_add_suite("trace kernel", NULL, NULL);

	CU_add_test(s, "trace: streams replayed, result and lines", test_trace_replay);
	CU_add_test(s, "trace: compute per access at warp_issue_ps", test_trace_compute);
	CU_add_test(s, "trace: its streams are neither counted nor timed", test_trace_streams_untimed);
	CU_add_test(s, "trace: malformed streams fail the launch", test_trace_bad_streams);
}
