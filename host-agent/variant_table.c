// SPDX-License-Identifier: MIT
#include "variant_table.h"

#include <string.h>

#include "run.h"

/* The matrix variants, in EM_VARIANTS's order: an index each. */
#define EM_VARIANT_ENUM_(name, program, policy, paper, what)	EM_VARIANT_##name,
enum em_variant { EM_VARIANTS(EM_VARIANT_ENUM_) EM_NVARIANTS };
#undef EM_VARIANT_ENUM_

/* The matrix variants as ember-run arguments. */
#define EM_VARIANT_ROW_(name, program, policy, paper, what)			\
	[EM_VARIANT_##name] = { #name, EM_VARIANT_ARGS(program, policy),	\
				EM_VARIANT_ARGS(program, ""), what },
static const struct {
	const char *name;
	const char *args;
	const char *program_args;	/* the program variant alone, "-v NAME" */
	const char *what;
} variants[EM_NVARIANTS] = {
	EM_VARIANTS(EM_VARIANT_ROW_)
};
#undef EM_VARIANT_ROW_

/*
 * The variants that run under nvidia-uvm, the module and its parameters
 * for each: the program variants on Debian's nvidia-uvm.ko as shipped
 * (guest-kmod/nvidia-uvm/build.sh --stock: NVIDIA's source, none of
 * Ember's patches), and adaptive, the unchanged program on our series
 * with Ember's switch on (Table 1's defaults, as the Ember glue has them)
 * and on the GPU's clock (ember_gpu_clock=1: the glue's recency and eager
 * reclamation follow the device's time, so that a run is the same on
 * every boot).
 * X(variant, module in the image's /lib/modules/<branch>/, parameters);
 * a name that is not a matrix variant does not build.
 */
#define EM_NVUVM_VARIANTS(X)						\
	X(uvm, "nvidia-uvm-stock", "")					\
	X(prefetch, "nvidia-uvm-stock", "")				\
	X(mapped, "nvidia-uvm-stock", "")				\
	X(static, "nvidia-uvm-stock", "")				\
	X(adaptive, "nvidia-uvm", "cpu_preferred_blocks_enable=1,ember_gpu_clock=1")

#define EM_NVUVM_ROW_(name, module, modparams)	[EM_VARIANT_##name] = { module, modparams },
static const struct {
	const char *module;	/* NULL: the variant does not run under nvidia-uvm */
	const char *modparams;
} nvuvm_variants[EM_NVARIANTS] = {
	EM_NVUVM_VARIANTS(EM_NVUVM_ROW_)
};
#undef EM_NVUVM_ROW_

/* A variant's index, or -1. */
static int variant_find(const char *variant)
{
	int i;

	for (i = 0; i < EM_NVARIANTS; i++)
		if (!strcmp(variant, variants[i].name))
			return i;
	return -1;
}

const char *em_variant_args(const char *variant)
{
	int i = variant_find(variant);

	return i < 0 ? NULL : variants[i].args;
}

const char *em_nvuvm_module(const char *variant)
{
	int i = variant_find(variant);

	return i < 0 ? NULL : nvuvm_variants[i].module;
}

bool em_nvuvm_variant(const char *variant, const char **args, const char **modparams)
{
	int i = variant_find(variant);

	if (i < 0 || !nvuvm_variants[i].module)
		return false;
	*args = variants[i].program_args;
	*modparams = nvuvm_variants[i].modparams;
	return true;
}

void em_variants_markdown(FILE *out)
{
	size_t i;

	fputs("| variant | `ember-run` arguments | on nvidia-uvm | what it is |\n"
	      "|---|---|---|---|\n", out);
	for (i = 0; i < EM_NVARIANTS; i++) {
		const char *module = nvuvm_variants[i].module, *mp = nvuvm_variants[i].modparams;

		fprintf(out, "| `%s` | `%s` | ", variants[i].name, variants[i].args);
		if (module)
			fprintf(out, *mp ? "`%s`, `%s`" : "`%s`%s", module, mp);
		else
			fputs("-", out);
		fprintf(out, " | %s |\n", variants[i].what);
	}
}

void em_args_policy(const char *args, char *policy, size_t len)
{
	const char *p, *last = NULL;

	/* ember-run's getopt keeps the last -P; options are words apart */
	for (p = args; (p = strstr(p, "-P")); p += 2)
		if ((p == args || p[-1] == ' ' || p[-1] == ',') &&
		    (p[2] == ' ' || p[2] == ','))
			last = p + 3;
	if (!last) {
		snprintf(policy, len, "%s", "uvm");
		return;
	}
	last += strspn(last, " ,");
	snprintf(policy, len, "%.*s", (int)strcspn(last, " ,"), last);
}

void em_variant_policy(const char *variant, char *policy, size_t len)
{
	const char *args = em_variant_args(variant);

	if (!args)
		snprintf(policy, len, "%s", "");
	else
		em_args_policy(args, policy, len);
}

bool em_variant_takes_policies(const char *variant)
{
	char own[EM_POLICY_NAME_MAX];

	em_variant_policy(variant, own, sizeof(own));
	return !strcmp(own, "uvm");
}
