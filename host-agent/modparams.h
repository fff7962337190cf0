/* SPDX-License-Identifier: MIT */
/*
 * A matrix's modparams (the guest's insmod of ember.ko) checked against
 * ember.ko's parameters as the lists that declare them give their names
 * and ranges: guest-kmod/ember/ember_params.h (the driver's own),
 * policy/ember_policy_params.h (the `uvm` policy's) and
 * policy/ember_adaptive_params.h (Ember-adaptive's, Table 1); the same
 * lists declare the module parameters in ember.ko, so the check and the
 * module cannot disagree.
 */
#ifndef EMBER_AGENT_MODPARAMS_H
#define EMBER_AGENT_MODPARAMS_H

#include <stdio.h>

/*
 * Checks modparams ("name=value,..."): a name ember.ko does not have
 * (insmod would ignore it; a policy module's parameter is named as its
 * module's), a value that is no number or out of its range, and, when
 * each is in range, a set ember.ko refuses as a whole
 * (ember_adaptive_params_check(): an odd promotion span, the low
 * watermark not below the high one, ...). Prints each problem on stderr
 * after "where: modparams: ". Returns how many.
 */
unsigned int em_modparams_check(const char *where, const char *modparams);

/*
 * Prints, as a Markdown table, the parameters of ember.ko (but Table 1's,
 * docs/table1.md's), ember_ac.ko and ember_ariadne.ko from their lists:
 * module, name, default, range, whether sysfs may write it, description
 * (ember-agent modparams, docs/driver.md).
 */
void em_modparams_markdown(FILE *out);

#endif /* EMBER_AGENT_MODPARAMS_H */
