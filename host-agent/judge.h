/* SPDX-License-Identifier: MIT */
/*
 * Judging a finished run and recording it. For fault injection: each
 * kind's default spec and what it must lead to under each driver, one row
 * per kind of the model's list (gpumodel/inject_kinds.h), with the pages
 * it may lose. For every run: its status from the guest's result line,
 * the console and QEMU's exit (judge.c's judge() and judge_injected()),
 * its result.json, and the progress line. The scheduler (sched.c) calls
 * em_run_record once per finished run; the matrix reads the tables to
 * check a config.
 */
#ifndef EMBER_AGENT_JUDGE_H
#define EMBER_AGENT_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run.h"

/* The default injection spec of a kind (docs/fault-injection.md), or NULL. */
const char *em_inject_default_spec(const char *kind);

/*
 * What a kind must lead to once it hit a launch under driver (NULL:
 * ember): "recovered", "EIO", "fatal:EIO" (nvidia-uvm's global fatal
 * error), ...; "?" for an unknown or refused kind.
 */
const char *em_inject_expected(const char *driver, const char *kind);
/* Why driver refuses an injection kind, or NULL where it runs. */
const char *em_inject_refused(const char *driver, const char *kind);
/*
 * Whether a matrix may declare expected (its expect.KIND): recovered,
 * EIO, ETIMEDOUT, fatal:EIO or fatal:ETIMEDOUT.
 */
bool em_inject_expectation_valid(const char *expected);
/* One driver's expectations as a Markdown table (ember-agent inject-expect). */
void em_inject_expect_markdown(const char *driver, FILE *out);
/* The kernel line of nvidia-uvm's global fatal error (uvm_global.c). */
#define EM_NVUVM_FATAL_LINE	"Encountered a global fatal error"

/*
 * Records a finished run: judges the guest's results file and writes
 * <dir>/result.json. Returns the status ("ok", "failed", "error",
 * "timeout"; an injected run's "recovered", "clean-error", ...; either's
 * "output-limit"), a static string.
 */
const char *em_run_record(const struct em_run *r, const char *commit,
			  const char *results_path, const struct em_run_outcome *o);

/*
 * ok, recovered, clean-error, fatal-error and not-fired are acceptable; anything else
 * counts as failed (inject-test also fails a not-fired run).
 */
bool em_status_acceptable(const char *status);

/* Prints the progress line after a run finished (last may be NULL). */
void em_run_progress(size_t done, size_t total, size_t running,
		     const struct em_run *last, const char *status, double wall);

#endif /* EMBER_AGENT_JUDGE_H */
