/* SPDX-License-Identifier: MIT */
/*
 * What ember-run runs (-k NAME), written once: the applications, their
 * aliases, the SSB queries and the microbenchmarks. Every table of them is
 * generated from these X-macro lists: libember's runner and ember-run's
 * usage (userspace/apps.c), the CPU sides' table and names
 * (app_common.c: em_app_ref_find, em_app_of, em_app_paper), the card's
 * program (cuda/apps/ember_apps.cu, whose --list tests/hw/ runs) and
 * compare-card's rows (host-agent/). The report and the verification
 * digest ask app_common.c.
 *
 * The list lives in workloads/ because this folder owns the application
 * set: an application is its CPU side here (workloads/NAME.c: sizes,
 * inputs, CPU reference, digest), from which the guest, the card and the
 * host all build, and all of them already include workloads/. Plain C
 * that includes nothing: a kernel is a bare suffix each side pastes onto
 * its own prefix (EMBER_KERNEL_ in the guest, EMGPU_KERNEL_ in the model).
 * Adding an application: docs/driver.md, "Adding an application".
 */
#ifndef EMBER_APP_LIST_H
#define EMBER_APP_LIST_H

/*
 * EM_APPS(X): X(name, kernel, paper, inputs, card), in the reports' row
 * order (the paper's section 7.3, its LLM and SSB proxies, ARIADNE's
 * workloads). Above each: what -p counts (default); the launches; the
 * inputs.
 *   name    ember-run -k NAME and the results' "app" (but ssb, below); its
 *           CPU side is em_app_NAME (workloads/NAME.c, whose name field is
 *           NAME), its launch sequence NAME_launch (userspace/apps.c, and
 *           with card cuda/apps/ember_apps.cu)
 *   kernel  the model's kernel its launches run: EMBER_KERNEL_<kernel>
 *           (include/uapi/ember.h); atax's second launch runs GEMVT
 *   paper   its row of the paper's tables (experiments/paper/table*.csv),
 *           several joined by "+" for their sum; NULL: none
 *   inputs  bit i: no launch writes buffer i, so after a failed launch the
 *           runner finds its input there word for word
 *   card    1: cuda/apps runs it on a real card (ember-apps NAME); 0: not
 * colscan stands for the SSB queries of Tables 7-8 that all three PCIe
 * GPUs ran, summed (a colscan run is one sequence of queries).
 */
#define EM_APPS(X)							\
	/* rows (32); rows - 1; the wall */				\
	X(pathfinder, PATHFINDER, "pathfinder", 1u << 0, 1)		\
	/* iterations (5); 2 per iteration; the points */		\
	X(kmeans, KMEANS, "kmeans", 1u << 0, 1)				\
	/* -; 1; the image and the filter */				\
	X(conv, CONV, "cnn", 1u << 0 | 1u << 2, 1)			\
	/* log2 segment lines (5); 1 + s (s + 3) / 2; none (in place) */ \
	X(bitonic, BITONIC, "bitonic_sort", 0, 1)			\
	/* 4-bit passes (4); 3 per pass; none (ping-ponged) */		\
	X(radix, RADIX, "radix_sort", 0, 1)				\
	/* -; levels + 1; the graph's offsets and edges */		\
	X(bfs, BFS, "bfs", 1u << 0 | 1u << 1, 1)			\
	/* LLM token generation: tokens (8); 1 per token; the weights */ \
	X(gemv, GEMV, "llm", 1u << 0, 1)				\
	/* SSB: queries (4, up to 8); 1 per query; the table */		\
	X(colscan, COLSCAN, "q1.3+q2.1+q2.2+q2.3+q3.1+q3.2+q3.3+q3.4",	\
	  1u << 0, 1)							\
	/*								\
	 * One SSB query a run, -k ssb-QUERY (EM_SSB_QUERY_NAMES), the	\
	 * paper's row QUERY; -k ssb alone is colscan's alias. -; 1; the \
	 * table							\
	 */								\
	X(ssb, COLSCAN, NULL, 1u << 0, 0)				\
	/* ARIADNE's (HPCA'26) sparse, dense and mixed sharing degrees: */ \
	/* iterations (2); 1 per iteration, 32 rows a warp; A and x */	\
	X(gemvrow, GEMV, NULL, 1u << 0 | 1u << 1, 0)			\
	/* iterations (2); 2 per iteration (GEMV, GEMVT); A and x */	\
	X(atax, GEMV, NULL, 1u << 0 | 1u << 1, 0)			\
	/* rows of A (4); k / 128 (tiles of k); A and B */		\
	X(gemm, GEMM, NULL, 1u << 0 | 1u << 1, 0)			\
	/* -; 2 n / 32 - 1 (anti-diagonals of tiles); the reference scores */ \
	X(nw, NW, NULL, 1u << 1, 0)					\
	/* LLM decode step: tokens (4); 2 per layer and token; the weights */ \
	X(decode, GEMV, NULL, 1u << 0 | 1u << 1 | 1u << 2, 0)

/*
 * EM_APP_ALIASES(X): X(alias, name): -k ALIAS runs application NAME,
 * under its own name in the results (the paper's row is NAME's).
 */
#define EM_APP_ALIASES(X)						\
	X(cnn, conv)							\
	X(bitonic_sort, bitonic)					\
	X(radix_sort, radix)						\
	X(llm, gemv)							\
	X(ssb, colscan)

/*
 * EM_SSB_QUERY_NAMES(X): X(query), the SSB queries (O'Neil et al.) in
 * ssb.c's order: -k ssb-QUERY runs application ssb on that query, the
 * paper's row QUERY (Tables 7-8).
 */
#define EM_SSB_QUERY_NAMES(X)						\
	X("q1.1") X("q1.2") X("q1.3") X("q2.1") X("q2.2") X("q2.3") X("q3.1") \
	X("q3.2") X("q3.3") X("q3.4") X("q4.1") X("q4.2") X("q4.3")

/*
 * EM_MICROBENCHMARKS(X): X(name, kernel, paper): ember-run's
 * microbenchmarks (userspace/workload.h), no CPU side here; their steps
 * are em_wl_NAME_steps (userspace/workload.c). Columns as EM_APPS'.
 */
#define EM_MICROBENCHMARKS(X)						\
	X(stream, STREAM, NULL)						\
	X(gather, GATHER, NULL)						\
	X(hotset, HOTSET, NULL)						\
	X(movinghot, HOTSET, "movinghot")

/* EM_APP_IF_CARD(card, ...): the rest, for an application with card 1 */
#define EM_APP_IF_CARD_0(...)
#define EM_APP_IF_CARD_1(...)	__VA_ARGS__
#define EM_APP_IF_CARD(card, ...)	EM_APP_IF_CARD_##card(__VA_ARGS__)

#endif /* EMBER_APP_LIST_H */
