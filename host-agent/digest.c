// SPDX-License-Identifier: MIT
#define _GNU_SOURCE	/* MADV_HUGEPAGE */
/* The verification digest of an application run: see digest.h. */
#include "digest.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "app_inputs.h"
#include "gpumodel/profile.h"

#define MiB	(1024ull * 1024)

/*
 * The run's buffers, zeroed, on transparent huge pages: the references
 * read them at random (bfs, gemv), and on 4 KiB pages nearly every read
 * would also miss the TLB.
 */
static int buffers_map(struct em_app_data *d)
{
	int i;

	for (i = 0; i < EM_APP_BUFS; i++) {
		if (!d->bytes[i])
			continue;
		d->p[i] = mmap(NULL, d->bytes[i], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (d->p[i] == MAP_FAILED) {
			d->p[i] = NULL;
			return -ENOMEM;
		}
		madvise(d->p[i], d->bytes[i], MADV_HUGEPAGE);
	}
	return 0;
}

static void buffers_unmap(struct em_app_data *d)
{
	int i;

	for (i = 0; i < EM_APP_BUFS; i++)
		if (d->p[i])
			munmap(d->p[i], d->bytes[i]);
}

int em_run_digest(const char *profile, const char *run_args, char *buf, size_t len)
{
	/* ember-run's defaults (ember-run.c) */
	const char *app = NULL, *factor = "0.5", *seed = "1", *passes = "0";
	struct em_app_data d = { 0 };
	struct em_app_digest dg;
	const struct em_app_ref *ref;
	struct gm_profile prof;
	char *args, *tok, *save = NULL, opt;
	const char *v;
	int ret = -ENOENT;

	if (!profile || !run_args || gm_profile_lookup(profile, &prof))
		return -ENOENT;
	args = strdup(run_args);
	if (!args)
		return -ENOMEM;
	for (tok = strtok_r(args, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (tok[0] != '-' || !tok[1] || tok[1] == 'V' || tok[1] == 'h')
			goto out;	/* not a run ember-agent writes, or one with its own */
		opt = tok[1];
		/* every option but -h takes a value (ember-run's getopt string) */
		v = tok[2] ? tok + 2 : strtok_r(NULL, ", ", &save);
		if (!v)
			goto out;
		if (opt == 'k')
			app = v;
		else if (opt == 'x')
			factor = v;
		else if (opt == 's')
			seed = v;
		else if (opt == 'p')
			passes = v;
	}
	ref = em_app_ref_find(em_app_of(app));	/* an alias: its application's */
	if (!ref || !ref->expect)
		goto out;
	/* as apps.c sizes the run: the footprint from the VRAM the driver reports */
	d.foot = (uint64_t)(strtod(factor, NULL) * (double)prof.vram_bytes);
	if (d.foot < 4 * MiB)
		d.foot = 4 * MiB;
	d.seed = strtoull(seed, NULL, 0);
	d.passes = (uint32_t)strtoul(passes, NULL, 0);
	d.query = em_app_ssb_query(app);
	em_app_size(ref, &d);
	/* a run the guest's RAM could hold, not a full card's footprint */
	if (d.bytes[0] + d.bytes[1] + d.bytes[2] + d.bytes[3] >
	    (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 4) {
		ret = -E2BIG;
		goto out;
	}
	ret = buffers_map(&d);
	if (!ret)
		ret = em_app_host_digest(ref, &d, &dg);
	buffers_unmap(&d);
	if (ret) {
		fprintf(stderr, "ember-agent: no verification digest for '%s' (%s); the guest's "
			"reference verifies\n", run_args, strerror(-ret));
		goto out;
	}
	em_app_digest_format(&dg, buf, len);
out:
	free(args);
	return ret;
}
