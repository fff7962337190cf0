// SPDX-License-Identifier: MIT
/*
 * The runner's table (userspace/apps.c, generated from
 * workloads/app_list.h) without a device: every name ember-run -k takes
 * finds the entry it found when the table was written out by hand (kernel,
 * CPU side, the buffers no launch writes), an alias its application's
 * entry under its own name in the JSON, and ember-run's usage names them
 * all.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "apps.h"
#include "libember_tests.h"
#include "runner.h"
#include "uapi/ember.h"

#define B(i)	(1u << (i))

/* Every -k name, as the hand-written table had them. */
static const struct {
	const char *name;
	uint32_t kernel;
	const struct em_app_ref *ref;
	unsigned int inputs;
} entries[] = {
	{ "stream", EMBER_KERNEL_STREAM, NULL, 0 },
	{ "gather", EMBER_KERNEL_GATHER, NULL, 0 },
	{ "hotset", EMBER_KERNEL_HOTSET, NULL, 0 },
	{ "movinghot", EMBER_KERNEL_HOTSET, NULL, 0 },
	{ "pathfinder", EMBER_KERNEL_PATHFINDER, &em_app_pathfinder, B(0) },
	{ "kmeans", EMBER_KERNEL_KMEANS, &em_app_kmeans, B(0) },
	{ "cnn", EMBER_KERNEL_CONV, &em_app_conv, B(0) | B(2) },
	{ "conv", EMBER_KERNEL_CONV, &em_app_conv, B(0) | B(2) },
	{ "bitonic", EMBER_KERNEL_BITONIC, &em_app_bitonic, 0 },
	{ "bitonic_sort", EMBER_KERNEL_BITONIC, &em_app_bitonic, 0 },
	{ "radix", EMBER_KERNEL_RADIX, &em_app_radix, 0 },
	{ "radix_sort", EMBER_KERNEL_RADIX, &em_app_radix, 0 },
	{ "bfs", EMBER_KERNEL_BFS, &em_app_bfs, B(0) | B(1) },
	{ "gemv", EMBER_KERNEL_GEMV, &em_app_gemv, B(0) },
	{ "llm", EMBER_KERNEL_GEMV, &em_app_gemv, B(0) },
	{ "colscan", EMBER_KERNEL_COLSCAN, &em_app_colscan, B(0) },
	{ "ssb", EMBER_KERNEL_COLSCAN, &em_app_colscan, B(0) },
	{ "ssb-q1.1", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q1.2", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q1.3", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q2.1", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q2.2", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q2.3", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q3.1", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q3.2", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q3.3", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q3.4", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q4.1", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q4.2", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "ssb-q4.3", EMBER_KERNEL_COLSCAN, &em_app_ssb, B(0) },
	{ "gemvrow", EMBER_KERNEL_GEMV, &em_app_gemvrow, B(0) | B(1) },
	{ "atax", EMBER_KERNEL_GEMV, &em_app_atax, B(0) | B(1) },
	{ "gemm", EMBER_KERNEL_GEMM, &em_app_gemm, B(0) | B(1) },
	{ "nw", EMBER_KERNEL_NW, &em_app_nw, B(1) },
	{ "decode", EMBER_KERNEL_GEMV, &em_app_decode, B(0) | B(1) | B(2) },
};

static void test_runner_entries(void)
{
	size_t i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		const struct em_app *app = em_app_find(entries[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(app);
		CU_ASSERT_EQUAL(app->kernel, entries[i].kernel);
		CU_ASSERT_PTR_EQUAL(app->ref, entries[i].ref);
		CU_ASSERT_PTR_NOT_NULL(app->steps);
		CU_ASSERT(!app->ref || app->launch);
		CU_ASSERT_EQUAL(app->inputs, entries[i].inputs);
		/* an application's own entry is named after it; an alias shares it */
		if (app->ref && em_app_ssb_query(entries[i].name) < 0)
			CU_ASSERT_STRING_EQUAL(app->name, em_app_of(entries[i].name));
	}
	CU_ASSERT_PTR_EQUAL(em_app_find("cnn"), em_app_find("conv"));
	CU_ASSERT_PTR_EQUAL(em_app_find("llm"), em_app_find("gemv"));
	CU_ASSERT_PTR_EQUAL(em_app_find("ssb"), em_app_find("colscan"));
	CU_ASSERT_PTR_EQUAL(em_app_find("ssb-q1.1"), em_app_find("ssb-q4.3"));
	CU_ASSERT_PTR_NULL(em_app_find("ssb-q4.4"));
	CU_ASSERT_PTR_NULL(em_app_find("ssb-"));
	CU_ASSERT_PTR_NULL(em_app_find("Conv"));
	CU_ASSERT_PTR_NULL(em_app_find("trace:nw-accesses.trace"));
	CU_ASSERT_PTR_NULL(em_app_find(""));
	CU_ASSERT_PTR_NULL(em_app_find(NULL));
}

/* What f holds, NUL-terminated; freed by the caller. */
static char *written(FILE *f)
{
	long n = ftell(f);
	char *s = calloc(1, (size_t)n + 1);

	rewind(f);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

/* An alias runs under its own name: the JSON's app is the name asked for. */
static void test_runner_alias_json(void)
{
	struct em_wl_config cfg = { .kernel = "llm", .variant = "uvm" };
	struct em_wl_result r = { .sim_ns = 2000000000 };
	FILE *f = tmpfile();
	char *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	r.stats.launches = 8;
	em_app_json(f, &cfg, &r);
	cfg.kernel = "ssb-q2.1";
	em_app_json(f, &cfg, &r);
	cfg.kernel = "movinghot";	/* a microbenchmark: nothing */
	em_app_json(f, &cfg, &r);
	s = written(f);
	CU_ASSERT_STRING_EQUAL(s, ",\"app\":\"llm\",\"passes\":8,\"launches\":8,"
			       "\"verified_by\":\"reference\",\"tokens\":8,\"tokens_per_s\":4.000"
			       ",\"app\":\"ssb-q2.1\",\"passes\":1,\"launches\":8,"
			       "\"verified_by\":\"reference\"");
	free(s);
}

static void test_runner_usage(void)
{
	FILE *f = tmpfile();
	char *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	em_app_names(f);
	s = written(f);
	CU_ASSERT_STRING_EQUAL(s, "stream|gather|hotset|movinghot|pathfinder|kmeans|conv|"
			       "bitonic|radix|bfs|gemv|colscan|ssb-q1.1..ssb-q4.3|gemvrow|"
			       "atax|gemm|nw|decode|cnn|bitonic_sort|radix_sort|llm|ssb");
	free(s);
}

void add_runner_suite(void)
{
	CU_pSuite s = CU_add_suite("runner (workloads/app_list.h)", NULL, NULL);

	CU_add_test(s, "every -k name finds its entry, an alias its app's", test_runner_entries);
	CU_add_test(s, "an alias's and an SSB query's JSON name the run", test_runner_alias_json);
	CU_add_test(s, "ember-run's usage names every run", test_runner_usage);
}
