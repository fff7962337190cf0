// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "modparams.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember_adaptive.h"		/* Table 1's struct and its check */
#include "ember_params.h"
#include "ember_policy_params.h"

/*
 * A module parameter as its list declares it: the module that has it, its
 * name, default, range, sysfs mode and description.
 */
struct em_modparam {
	const char *module;
	const char *name;
	unsigned long long def, min, max;
	unsigned int perm;
	const char *desc;
	bool table1;		/* ember_adaptive_params.h's: docs/table1.md's */
};

#define EM_DRIVER_PARAM(name, var, def, min, max, perm, desc)	\
	{ "ember.ko", #name, def, min, max, perm, desc, false },
/* a ulong of the 64-bit guest: any value */
#define EM_ULONG_PARAM(name, var, def, perm, desc)		\
	{ "ember.ko", #name, def, 0, UINT64_MAX, perm, desc, false },
#define EM_POLICY_PARAM(module, name, def, min, max, desc)	\
	{ module, #name, def, min, max, EMBER_POLICY_PARAM_PERM, desc, false },
#define EM_UVM_PARAM(...)	EM_POLICY_PARAM("ember.ko", __VA_ARGS__)
/* the policy modules': ember-run loads those, not the guest's insmod */
#define EM_AC_PARAM(...)	EM_POLICY_PARAM("ember_ac.ko", __VA_ARGS__)
#define EM_ARIADNE_PARAM(...)	EM_POLICY_PARAM("ember_ariadne.ko", __VA_ARGS__)
/* their mode is ember_policy.c's; only the check reads these entries */
#define EM_ADAPTIVE_PARAM(name, def, min, max, desc)		\
	{ "ember.ko", #name, def, min, max, 0, desc, true },
static const struct em_modparam modparams[] = {
	EMBER_DRIVER_PARAMS(EM_DRIVER_PARAM)
	EMBER_LIMIT_PARAMS(EM_DRIVER_PARAM)
	EMBER_ULONG_PARAMS(EM_ULONG_PARAM)
	EMBER_UVM_PARAMS(EM_UVM_PARAM)
	EMBER_AC_PARAMS(EM_AC_PARAM)
	ARIADNE_PARAMS(EM_ARIADNE_PARAM)
	EMBER_ADAPTIVE_PARAMS(EM_ADAPTIVE_PARAM)
};

#define EM_NELEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* module's parameter name (module NULL: any module's), or NULL */
static const struct em_modparam *modparam_find(const char *module, const char *name)
{
	size_t i;

	for (i = 0; i < EM_NELEMS(modparams); i++)
		if (!strcmp(name, modparams[i].name) &&
		    (!module || !strcmp(module, modparams[i].module)))
			return &modparams[i];
	return NULL;
}

/* Sets Table 1's field name (a no-op for ember.ko's other parameters). */
static void adaptive_set(struct ember_adaptive_params *ap, const char *name, unsigned int v)
{
#define EM_AP_SET(field, def, min, max, desc)	\
	if (!strcmp(name, #field))		\
		ap->field = v;
	EMBER_ADAPTIVE_PARAMS(EM_AP_SET)
#undef EM_AP_SET
}

unsigned int em_modparams_check(const char *where, const char *modparams)
{
	struct ember_adaptive_params ap = EMBER_ADAPTIVE_PARAMS_DEFAULT;
	char list[1024], msg[160], *save = NULL, *kv;
	unsigned int bad = 0;

	snprintf(list, sizeof(list), "%s", modparams);
	for (kv = strtok_r(list, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end;
		const struct em_modparam *p;
		unsigned long long v;

		if (eq)
			*eq = '\0';
		p = modparam_find("ember.ko", kv);
		if (!p) {
			const struct em_modparam *other = modparam_find(NULL, kv);

			fprintf(stderr, "%s: modparams: ember.ko has no parameter '%s'%s%s%s\n",
				where, kv, other ? " (it is " : "", other ? other->module : "",
				other ? "'s, which ember-run loads)" : "");
			bad++;
			continue;
		}
		/* as the kernel's kstrtouint/kstrtoul read it: decimal, 0x, 0 */
		errno = 0;
		v = eq ? strtoull(eq + 1, &end, 0) : 0;
		if (!eq || errno || end == eq + 1 || *end || eq[1] == '-' || v < p->min ||
		    v > p->max) {
			fprintf(stderr, "%s: modparams: %s=%s is out of range (%llu..%llu)\n",
				where, kv, eq ? eq + 1 : "", p->min, p->max);
			bad++;
			continue;
		}
		adaptive_set(&ap, kv, (unsigned int)v);
	}
	/* the relations ember.ko checks at load (ember_policy_init()) */
	if (!bad && ember_adaptive_params_check(&ap, msg, sizeof(msg))) {
		fprintf(stderr, "%s: modparams: %s (ember.ko would refuse to load)\n", where, msg);
		bad++;
	}
	return bad;
}

/* A range as a reader wants it: an unbounded maximum as ">= min". */
static void modparam_range(const struct em_modparam *p, FILE *out)
{
	if (p->max == UINT64_MAX && !p->min)
		fputs("any", out);
	else if (p->max == UINT32_MAX || p->max == UINT64_MAX)
		fprintf(out, ">= %llu", p->min);
	else
		fprintf(out, "%llu..%llu", p->min, p->max);
}

void em_modparams_markdown(FILE *out)
{
	const char *d;
	size_t i;

	fputs("| module | parameter | default | range | writable | description |\n"
	      "|---|---|---|---|---|---|\n", out);
	for (i = 0; i < EM_NELEMS(modparams); i++) {
		const struct em_modparam *p = &modparams[i];

		if (p->table1)
			continue;
		fprintf(out, "| `%s` | `%s` | %llu | ", p->module, p->name, p->def);
		modparam_range(p, out);
		fprintf(out, " | %s | ", p->perm & 0222 ? "yes" : "no");
		for (d = p->desc; *d; d++)	/* a '|' would end the cell */
			fprintf(out, *d == '|' ? "\\|" : "%c", *d);
		fputs(" |\n", out);
	}
}
