/* SPDX-License-Identifier: MIT */
/*
 * The variants, one list each, generating the rest: libember's checks of
 * ember-run -v (workload.c, apps.c), ember-agent's matrix variants and
 * their ember-run arguments (host-agent/variant_table.c), the report's column
 * order and paper names (host-agent/report.c) and the card comparison's
 * variants (host-agent/compare_card.c). Header only, no globals.
 */
#ifndef EMBER_VARIANTS_H
#define EMBER_VARIANTS_H

#include <stdbool.h>
#include <string.h>

/*
 * The program variants, ember-run -v: how a program allocates and advises
 * its buffers (docs/driver.md, "Variants"). X(name, table3): table3 is 1
 * for the paper's four (its Table 3: every kernel and application runs
 * them, and the card runs did), 0 for autouvm (AutoUVM's executor, a
 * profiling run then the profile applied: the applications only).
 */
#define EM_PROGRAM_VARIANTS(X)			\
	X(uvm, 1)				\
	X(prefetch, 1)				\
	X(mapped, 1)				\
	X(static, 1)				\
	X(autouvm, 0)

/*
 * The matrix variants (a matrix's `variants =`; the report's columns, in
 * this order): X(name, program, policy, paper, what).
 *   program  the program variant ember-run runs (-v), one of the above
 *   policy   "" for the VA space's default policy (uvm), else " -P NAME",
 *            the policy ember-run selects
 *   paper    the variant's column in experiments/paper/table*.csv, or NULL
 *   what     a line for docs/experiments.md (ember-agent variants)
 */
#define EM_VARIANTS(X)							\
	X(uvm, uvm, "", "uvm",						\
	  "plain managed memory (the paper's Table 3 M)")		\
	X(prefetch, prefetch, "", "prefetch",				\
	  "each allocation prefetched whole before the launch (M+P)")	\
	X(mapped, mapped, "", "uvm_mapped",				\
	  "preferred location CPU + accessed-by GPU (M+A)")		\
	X(static, static, "", "ember_static",				\
	  "mapped, plus the leading prefix that fits prefetched: "	\
	  "Ember-static (M+A+P)")					\
	X(adaptive, uvm, " -P ember", "ember_adaptive",			\
	  "the unchanged program under the Ember policy: Ember-adaptive") \
	X(ac, mapped, " -P ac", NULL,					\
	  "NVIDIA's access-counter migration as ARIADNE compares with "	\
	  "it: every block starts zero-copy (mapped by advice), "	\
	  "counters promote it")					\
	X(ariadne, uvm, " -P ariadne", NULL,				\
	  "ARIADNE's policy (its own module, ember_ariadne.ko) on the "	\
	  "unchanged program")						\
	X(autouvm, autouvm, "", NULL,					\
	  "AutoUVM's executor: a profiling run, then the profile applied") \
	X(ember, uvm, " -P ember", NULL,				\
	  "the same runs as adaptive, under the policy's name")

/* ember-run's arguments for a matrix variant: a string literal. */
#define EM_VARIANT_ARGS(program, policy)	"-v " #program policy

/* The rest of the arguments where table3 is 1, nothing where it is 0. */
#define EM_IF_TABLE3_1(...)	__VA_ARGS__
#define EM_IF_TABLE3_0(...)
#define EM_IF_TABLE3(table3, ...)	EM_IF_TABLE3_##table3(__VA_ARGS__)

/* A matrix variant's program must be a program variant: an enum to check. */
#define EM_PROGRAM_ENUM_(name, table3)	EM_PROGRAM_##name,
enum em_program_variant { EM_PROGRAM_VARIANTS(EM_PROGRAM_ENUM_) EM_NPROGRAM_VARIANTS };
#undef EM_PROGRAM_ENUM_
#define EM_VARIANT_PROGRAM_CHECK_(name, program, policy, paper, what)	\
	_Static_assert(EM_PROGRAM_##program < EM_NPROGRAM_VARIANTS,	\
		       "variant " #name ": program " #program);
EM_VARIANTS(EM_VARIANT_PROGRAM_CHECK_)
#undef EM_VARIANT_PROGRAM_CHECK_

/*
 * Whether ember-run runs program variant v: any of them for an
 * application, the paper's four for the kernels of workload.c.
 */
static inline bool em_program_variant_ok(const char *v, bool app)
{
#define EM_PROGRAM_OK_(name, table3)			\
	if (!strcmp(v, #name))				\
		return app || table3;
	EM_PROGRAM_VARIANTS(EM_PROGRAM_OK_)
#undef EM_PROGRAM_OK_
	return false;
}

#endif /* EMBER_VARIANTS_H */
