// SPDX-License-Identifier: MIT
/*
 * The applications' table (each app's em_app_ref is in its own file,
 * named like its kernel in models/src/kernels/), sizing, and verification
 * by digest (app_inputs.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "app_common.h"

void em_app_size(const struct em_app_ref *ref, struct em_app_data *a)
{
	if (!a->passes)
		a->passes = ref->def_passes;
	a->result_ok = -1;
	ref->size(a);
}

/* ---- the table ---- */

const struct em_app_ref *em_app_ref_find(const char *name)
{
	static const struct em_app_ref *const refs[] = {
		&em_app_pathfinder, &em_app_kmeans, &em_app_conv, &em_app_bitonic,
		&em_app_radix, &em_app_bfs, &em_app_gemv, &em_app_colscan, &em_app_ssb,
		&em_app_gemvrow, &em_app_atax, &em_app_gemm, &em_app_nw, &em_app_decode,
	};
	size_t i;

	for (i = 0; name && i < sizeof(refs) / sizeof(refs[0]); i++)
		if (!strcmp(refs[i]->name, name))
			return refs[i];
	return NULL;
}

/* ---- verification by digest ---- */

/*
 * The run's parameters and buffers first: a digest of another run never
 * matches. Not n[], which they determine and a launch sequence may add
 * to (bfs's levels).
 */
static void app_digest(const struct em_app_ref *ref, const struct em_app_data *a,
		       struct em_app_fold *f)
{
	uint64_t head[8] = { a->bytes[0], a->bytes[1], a->bytes[2], a->bytes[3], a->foot,
			     a->seed, a->passes, (uint64_t)(int64_t)a->query };

	f->h = f->words = 0;
	digest_fold(f, head, sizeof(head));
	ref->digest(a, f);
}

int em_app_host_digest(const struct em_app_ref *ref, struct em_app_data *a,
		       struct em_app_digest *out)
{
	struct em_app_fold f;
	int ret;

	if (!ref->expect || !ref->digest)
		return -ENOTSUP;
	ref->fill(a);
	ret = ref->expect(a);
	if (ret)
		return ret;
	app_digest(ref, a, &f);
	out->digest = f.h;
	out->words_checked = f.words;
	out->expected_result = a->expected_result;
	out->checks_result = a->result_ok >= 0;
	return 0;
}

int em_app_verify(const struct em_app_ref *ref, struct em_app_data *a,
		  const struct em_app_digest *want)
{
	struct em_app_fold f;

	a->verified_by_digest = 0;
	if (want && ref->digest && (app_digest(ref, a, &f), f.h == want->digest) &&
	    f.words == want->words_checked) {
		a->words_checked += want->words_checked;
		a->expected_result = want->expected_result;
		a->result_ok = want->checks_result ? a->result == want->expected_result : -1;
		a->verified_by_digest = 1;
		return 0;
	}
	return ref->verify(a);
}

void em_app_digest_format(const struct em_app_digest *dg, char *buf, size_t len)
{
	snprintf(buf, len, "%016llx:%llu:%llu:%d", (unsigned long long)dg->digest,
		 (unsigned long long)dg->words_checked,
		 (unsigned long long)dg->expected_result, dg->checks_result);
}

int em_app_digest_parse(const char *s, struct em_app_digest *dg)
{
	unsigned long long d, w, e;
	int r, end = 0;

	if (sscanf(s, "%16llx:%llu:%llu:%d%n", &d, &w, &e, &r, &end) != 4 || s[end] ||
	    (r != 0 && r != 1))
		return -EINVAL;
	dg->digest = d;
	dg->words_checked = w;
	dg->expected_result = e;
	dg->checks_result = r;
	return 0;
}
