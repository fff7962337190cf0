/* SPDX-License-Identifier: MIT */
/*
 * The matrix variants as ember-agent runs them, generated from the one
 * list (userspace/variants.h, EM_VARIANTS): each variant's ember-run
 * arguments and policy, and under driver nvidia-uvm the module it loads
 * and that module's parameters (EM_NVUVM_VARIANTS, variant_table.c). The
 * matrix (planning), the report (columns) and `ember-agent variants`
 * read them here.
 */
#ifndef EMBER_AGENT_VARIANT_TABLE_H
#define EMBER_AGENT_VARIANT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "variants.h"

/* The variants' names, a string literal: " uvm prefetch ...". */
#define EM_VARIANT_NAME_(name, program, policy, paper, what)	" " #name
#define EM_VARIANT_NAMES	EM_VARIANTS(EM_VARIANT_NAME_)

/* A variant's ember-run arguments ("-v uvm -P ember"), or NULL. */
const char *em_variant_args(const char *variant);

/*
 * A variant under driver nvidia-uvm: its ember-run arguments (the program
 * variant alone: nvidia-uvm's policy is chosen at load) and nvidia-uvm's
 * parameters ("" for the master switch off); false for a variant that has
 * no meaning there (ac, ariadne, autouvm, ember, an unknown name).
 */
bool em_nvuvm_variant(const char *variant, const char **args, const char **modparams);
/* The nvidia-uvm module a variant loads: "nvidia-uvm-stock" (Debian's) or
 * "nvidia-uvm" (our series); NULL for a variant nvidia-uvm does not run. */
const char *em_nvuvm_module(const char *variant);
/* The variants as a Markdown table (ember-agent variants; docs/experiments.md). */
void em_variants_markdown(FILE *out);

/*
 * The policy a variant runs under: the name its arguments give -P, or
 * "uvm", the stock policy ember.ko starts a VA space with, for a variant
 * without one (modparams can make `ember` that default: a matrix doing so
 * says it in its modparams, recorded beside the policy). Writes "" for an
 * unknown variant.
 */
void em_variant_policy(const char *variant, char *policy, size_t len);

/* Whether a variant runs the stock policy, so that a matrix's `policies` replace it. */
bool em_variant_takes_policies(const char *variant);

/*
 * The policy ember-run arguments select ("-v uvm -P ember -r 0": ember):
 * the last -P's name, as ember-run's getopt keeps it, or "uvm" without one.
 * The words may be apart by spaces or commas (the guest's ember_run=).
 */
void em_args_policy(const char *args, char *policy, size_t len);

#endif /* EMBER_AGENT_VARIANT_TABLE_H */
