// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "modparams.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember_adaptive.h"		/* Table 1's struct and its check */
#include "ember_params.h"
#include "ember_policy_params.h"

/* A parameter of ember.ko: its name and range. */
struct em_modparam {
	const char *name;
	unsigned long long min, max;
};

#define EM_DRIVER_PARAM(name, var, def, min, max, perm, desc)	{ #name, min, max },
#define EM_POLICY_PARAM(name, def, min, max, desc)		{ #name, min, max },
/* a ulong of the 64-bit guest: any value */
#define EM_ULONG_PARAM(name, var, def, desc)			{ #name, 0, UINT64_MAX },
static const struct em_modparam ember_ko[] = {
	EMBER_DRIVER_PARAMS(EM_DRIVER_PARAM)
	EMBER_LIMIT_PARAMS(EM_DRIVER_PARAM)
	EMBER_UVM_PARAMS(EM_POLICY_PARAM)
	EMBER_ADAPTIVE_PARAMS(EM_POLICY_PARAM)
	EMBER_ULONG_PARAMS(EM_ULONG_PARAM)
};

/* The policy modules' parameters: ember-run loads those modules, not the guest's insmod. */
#define EM_AC_PARAM(name, def, min, max, desc)		{ #name, "ember_ac.ko" },
#define EM_ARIADNE_PARAM(name, def, min, max, desc)	{ #name, "ember_ariadne.ko" },
static const struct {
	const char *name, *module;
} policy_modules[] = {
	EMBER_AC_PARAMS(EM_AC_PARAM)
	ARIADNE_PARAMS(EM_ARIADNE_PARAM)
};

#define EM_NELEMS(a)	(sizeof(a) / sizeof((a)[0]))

static const struct em_modparam *modparam_find(const char *name)
{
	size_t i;

	for (i = 0; i < EM_NELEMS(ember_ko); i++)
		if (!strcmp(name, ember_ko[i].name))
			return &ember_ko[i];
	return NULL;
}

/* The policy module whose parameter name is, or NULL. */
static const char *policy_module_of(const char *name)
{
	size_t i;

	for (i = 0; i < EM_NELEMS(policy_modules); i++)
		if (!strcmp(name, policy_modules[i].name))
			return policy_modules[i].module;
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
		p = modparam_find(kv);
		if (!p) {
			const char *module = policy_module_of(kv);

			fprintf(stderr, "%s: modparams: ember.ko has no parameter '%s'%s%s%s\n",
				where, kv, module ? " (it is " : "", module ?: "",
				module ? "'s, which ember-run loads)" : "");
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
