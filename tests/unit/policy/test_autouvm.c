/* SPDX-License-Identifier: MIT */
/*
 * CUnit tests of AutoUVM's decisions (policy/ember_autouvm.c):
 * the profile file round trip, its refusal of another version, a corrupt
 * or truncated file and another program, the kernel classes, and the
 * online plan (profile matching, look-ahead, reuse order, budget).
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "ember_autouvm.h"
#include "policy_tests.h"

#define MiB (1ull << 20)

static struct au_launch launches[8], parsed_launches[8];

/* Three launches over two pools: W0 (pool 0), W1 (pool 1), W0 again. */
static void example(struct au_profile *p)
{
	memset(p, 0, sizeof(*p));
	memset(launches, 0, sizeof(launches));
	strcpy(p->program, "decode");
	p->nallocs = 2;
	p->alloc_bytes[0] = 16 * MiB;
	p->alloc_bytes[1] = 8 * MiB;
	p->launches = launches;
	p->cap = 8;
	p->nlaunches = 3;
	launches[0] = (struct au_launch){ 10, AU_INTERCONNECT, 1, { { 0, 0, 4 * MiB } } };
	launches[1] = (struct au_launch){ 10, AU_INTERCONNECT, 2,
					  { { 1, 2 * MiB, 4 * MiB }, { 0, 4 * MiB, 1 * MiB } } };
	launches[2] = (struct au_launch){ 13, AU_COMPUTE, 1, { { 0, 0, 4 * MiB } } };
}

static int parse(const char *text, struct au_profile *q, char *err)
{
	memset(q, 0, sizeof(*q));
	q->launches = parsed_launches;
	q->cap = 8;
	return au_profile_parse(text, strlen(text), q, err, 128);
}

/* Written and read back, the profile is the same. */
static void test_round_trip(void)
{
	struct au_profile p, q;
	char buf[1024], err[128];
	long n;

	example(&p);
	n = au_profile_write(&p, buf, sizeof(buf));
	CU_ASSERT_FATAL(n > 0);
	CU_ASSERT_EQUAL((size_t)n, strlen(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "ember-autouvm-profile 1\nprogram decode 2 16777216 8388608\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "launch 10 i 2 1:2097152:4194304 0:4194304:1048576\n"));
	CU_ASSERT_EQUAL(parse(buf, &q, err), 0);
	CU_ASSERT_STRING_EQUAL(q.program, "decode");
	CU_ASSERT_EQUAL(q.nlaunches, 3);
	CU_ASSERT_EQUAL(memcmp(parsed_launches, launches, 3 * sizeof(launches[0])), 0);
	CU_ASSERT_EQUAL(au_profile_write(&p, buf, 40), -1);	/* too small */
}

/* Another version, a flipped byte, a cut file: each refused, saying why. */
static void test_refused(void)
{
	struct au_profile p, q;
	char buf[1024], bad[1024], err[128];
	char *at;

	example(&p);
	au_profile_write(&p, buf, sizeof(buf));
	strcpy(bad, buf);
	bad[strlen("ember-autouvm-profile ")] = '2';
	CU_ASSERT_EQUAL(parse(bad, &q, err), -1);
	CU_ASSERT_STRING_EQUAL(err, "profile version 2, this build reads version 1");
	strcpy(bad, buf);
	at = strstr(bad, "0:4194304:1048576");
	at[2] = '5';		/* another offset, same syntax */
	CU_ASSERT_EQUAL(parse(bad, &q, err), -1);
	CU_ASSERT_STRING_EQUAL(err, "checksum mismatch: the profile is corrupt");
	strcpy(bad, buf);
	*strstr(bad, "launch 13") = 0;	/* truncated */
	CU_ASSERT_EQUAL(parse(bad, &q, err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "truncated"));
	CU_ASSERT_EQUAL(parse("hello\n", &q, err), -1);
	CU_ASSERT_STRING_EQUAL(err, "not an AutoUVM profile");
	/* a tensor outside its allocation is refused even with a good sum */
	launches[0].t[0].len = 32 * MiB;
	au_profile_write(&p, buf, sizeof(buf));
	CU_ASSERT_EQUAL(parse(buf, &q, err), -1);
	CU_ASSERT_STRING_EQUAL(err, "line 3: tensor 0 outside its allocation");
}

/* A profile applies only to its program with the same allocations. */
static void test_program_match(void)
{
	struct au_profile p;
	uint64_t sizes[2] = { 16 * MiB, 8 * MiB };
	char err[128];

	example(&p);
	CU_ASSERT_EQUAL(au_profile_match(&p, "decode", 2, sizes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(au_profile_match(&p, "gemm", 2, sizes, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "profile of program decode, not gemm");
	sizes[1] = 10 * MiB;
	CU_ASSERT_EQUAL(au_profile_match(&p, "decode", 2, sizes, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "allocation 1: profile 8388608 bytes, program 10485760");
	CU_ASSERT_EQUAL(au_profile_match(&p, "decode", 1, sizes, err, sizeof(err)), -1);
}

/*
 * Resident time: the same kernel's fastest launch less its link time;
 * interconnect-bound when the link needs half that time or more for its
 * tensors, memory-bound near the program's best throughput.
 */
static void test_classify(void)
{
	/* GEMV over 4 MiB: first launch migrates it, the second is resident */
	struct au_sample s[3] = {
		{ .sim_ns = 400000, .bytes_h2d = 4 * MiB, .tensor_bytes = 4 * MiB },
		{ .sim_ns = 10000, .bytes_h2d = 0, .tensor_bytes = 4 * MiB },
		{ .sim_ns = 300000, .bytes_h2d = 0, .tensor_bytes = 1 * MiB },
	};
	uint32_t kernels[3] = { 10, 10, 13 };

	CU_ASSERT_EQUAL(au_resident_ns(s, kernels, 3, 0, 32768), 10000);
	CU_ASSERT_EQUAL(au_resident_ns(s, kernels, 3, 2, 32768), 300000);
	/* alone, the first: 400 us less 128 us of link time */
	CU_ASSERT_EQUAL(au_resident_ns(s, kernels, 1, 0, 32768), 272000);
	/* 4 MiB over a 32 KiB/us link: 128 us, against 10 us resident */
	CU_ASSERT_EQUAL(au_classify(4 * MiB, 10000, 32768, 0), AU_INTERCONNECT);
	/* 1 MiB in 300 us: 3495 B/us against 419430 best: compute */
	CU_ASSERT_EQUAL(au_classify(1 * MiB, 300000, 32768, 4 * MiB / 10), AU_COMPUTE);
	CU_ASSERT_EQUAL(au_classify(1 * MiB, 300000, 32768, 6000), AU_MEMORY);
}

/*
 * The plan: the imminent launch's tensors, then interconnect-bound ones
 * ahead, a tensor used again moved to the end, none for a launch the
 * profile does not match, the look-ahead halved by evictions.
 */
static void test_plan(void)
{
	struct au_profile p;
	struct au_plan_state s;
	struct au_prefetch out[16];
	uint32_t n;

	example(&p);
	au_plan_init(&s);
	CU_ASSERT_EQUAL(s.lookahead, 2);
	n = au_plan(&s, &p, 0, 10, 0, 100 * MiB, 128 * MiB, out, 16);
	/* launch 0: W0; launch 1 (interconnect): its two; launch 2 compute */
	CU_ASSERT_EQUAL(s.lookahead, 3);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(out[0].alloc == 0 && out[0].off == 0 && out[0].len == 4 * MiB);
	CU_ASSERT(out[1].alloc == 1 && out[1].off == 2 * MiB);
	CU_ASSERT(out[2].alloc == 0 && out[2].off == 4 * MiB);
	/* nothing left to issue for launch 1 */
	CU_ASSERT_EQUAL(au_plan(&s, &p, 1, 10, 0, 100 * MiB, 128 * MiB, out, 16), 0);
	CU_ASSERT_EQUAL(s.matched, 2);
	/* launch 2 runs another kernel than recorded: stock behaviour */
	CU_ASSERT_EQUAL(au_plan(&s, &p, 2, 10, 0, 100 * MiB, 128 * MiB, out, 16), 0);
	CU_ASSERT_EQUAL(s.unmatched, 1);
	/* past the profile's end: stock */
	CU_ASSERT_EQUAL(au_plan(&s, &p, 3, 10, 0, 100 * MiB, 128 * MiB, out, 16), 0);
	/* evictions: re-issue from here, look-ahead halved */
	au_plan_init(&s);
	s.lookahead = 8;
	n = au_plan(&s, &p, 1, 10, 5, 100 * MiB, 128 * MiB, out, 16);
	CU_ASSERT_EQUAL(s.lookahead, 4);
	CU_ASSERT_EQUAL(n, 2);
	/* reuse: W0 read by launches 0 and 2 of another profile goes last */
	example(&p);
	launches[2].cls = AU_INTERCONNECT;
	au_plan_init(&s);
	n = au_plan(&s, &p, 0, 10, 0, 100 * MiB, 128 * MiB, out, 16);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(out[2].alloc == 0 && out[2].off == 0);
	/* budget: a later launch that does not fit in free memory waits */
	au_plan_init(&s);
	n = au_plan(&s, &p, 0, 10, 0, 2 * MiB, 128 * MiB, out, 16);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(s.done_upto, 1);
}

void add_autouvm_tests(void)
{
	CU_pSuite s = CU_add_suite("autouvm", NULL, NULL);

	CU_add_test(s, "profile file round trip", test_round_trip);
	CU_add_test(s, "other version, corrupt, truncated: refused", test_refused);
	CU_add_test(s, "profile matches its program only", test_program_match);
	CU_add_test(s, "kernel classes", test_classify);
	CU_add_test(s, "online plan: matching, look-ahead, reuse, budget", test_plan);
}
