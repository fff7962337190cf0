// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"

/*
 * One parameter of ember.ko as `modinfo -F parm` prints it ("name:desc
 * (type)"): its type, and the range its description states when it states
 * one in the driver's habit ("(1..1024, ...", "(0 or 1, ...", "(>= 100
 * ...", "(even, ..."), so the list and its limits come from the module the
 * guest boots, never from a copy here.
 */
struct em_modparam {
	char name[64];
	uint64_t min, max;	/* the type's limits narrowed by the description */
	bool even;
};

#define EM_MAX_MODPARAMS 64

/*
 * Narrows p by the first "(...)" of desc that states a range, and by an
 * "(even" anywhere.
 */
static void modparam_range(struct em_modparam *p, const char *desc)
{
	const char *s;
	unsigned long long a, b;
	bool ranged = false;
	int n;

	for (s = strchr(desc, '('); s; s = strchr(s + 1, '(')) {
		if (!strncmp(s, "(even", 5)) {
			p->even = true;
			continue;
		}
		if (ranged)
			continue;
		if (sscanf(s, "(%llu..%llu%n", &a, &b, &n) == 2 ||
		    sscanf(s, "(%llu or %llu%n", &a, &b, &n) == 2) {
			p->min = a;
			p->max = b;
			ranged = true;
		} else if (sscanf(s, "(>= %llu%n", &a, &n) == 1) {
			p->min = a;
			ranged = true;
		}
	}
}

/*
 * Reads the parameters of the ember.ko inside the guest's initramfs.
 * Returns how many, or -1 (with a message) when they cannot be read.
 */
static int load_modparams(const char *initrd, struct em_modparam *out, int max)
{
	char tmp[] = "/tmp/ember-agent-XXXXXX.ko", cmd[8400], line[1024];
	int fd = mkstemps(tmp, 3), n = 0;
	FILE *f;

	if (fd < 0 || strchr(initrd, '\'')) {
		fprintf(stderr, "ember-agent: cannot inspect ember.ko in %s\n", initrd);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "cpio -i --quiet --to-stdout lib/modules/ember.ko <'%s' >'%s' && "
		 "PATH=\"$PATH:/usr/sbin:/sbin\" modinfo -F parm '%s'", initrd, tmp, tmp);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *type = strrchr(line, '(');
		struct em_modparam *p = &out[n];

		/* continuation lines of a multi-line description have no name */
		if (!colon || colon == line || colon - line >= (long)sizeof(p->name) ||
		    strpbrk(line, " \t") < colon || n == max)
			continue;
		memset(p, 0, sizeof(*p));
		memcpy(p->name, line, colon - line);
		p->max = type && !strncmp(type, "(uint)", 6) ? UINT32_MAX :
			 type && !strncmp(type, "(int)", 5) ? INT32_MAX : UINT64_MAX;
		modparam_range(p, colon + 1);
		n++;
	}
	if (!f || pclose(f) || !n) {
		fprintf(stderr, "ember-agent: cannot read ember.ko's parameters from %s "
			"(cpio + modinfo)\n", initrd);
		n = -1;
	}
	unlink(tmp);
	return n;
}

/*
 * Checks the matrix's modparams against the ember.ko it will boot: an
 * unknown name (insmod would ignore it) or a value outside the stated
 * range (the driver would replace it) stops the matrix before any VM
 * boots. Returns 0 or -1 after naming the key.
 */
int em_matrix_check_modparams(const struct em_matrix *m, const char *initrd)
{
	struct em_modparam params[EM_MAX_MODPARAMS];
	char list[sizeof(m->settings.modparams)], *save = NULL, *kv;
	int n, i, bad = 0;

	if (!m->settings.modparams[0])
		return 0;
	n = load_modparams(initrd, params, EM_MAX_MODPARAMS);
	if (n < 0)
		return -1;
	strcpy(list, m->settings.modparams);
	for (kv = strtok_r(list, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end;
		unsigned long long v;

		if (eq)
			*eq = '\0';
		for (i = 0; i < n && strcmp(params[i].name, kv); i++)
			;
		if (i == n) {
			fprintf(stderr, "ember-agent: %s: modparams: ember.ko has no parameter "
				"'%s'\n", m->name, kv);
			bad++;
			continue;
		}
		errno = 0;
		v = eq ? strtoull(eq + 1, &end, 0) : 0;
		if (!eq || errno || end == eq + 1 || *end || eq[1] == '-' ||
		    v < params[i].min || v > params[i].max ||
		    (params[i].even && v % 2)) {
			fprintf(stderr, "ember-agent: %s: modparams: %s=%s is out of range "
				"(%" PRIu64 "..%" PRIu64 "%s)\n", m->name, kv, eq ? eq + 1 : "",
				params[i].min, params[i].max, params[i].even ? ", even" : "");
			bad++;
		}
	}
	return bad ? -1 : 0;
}
