// SPDX-License-Identifier: MIT
/*
 * The applications' table and names (generated from app_list.h; each
 * app's em_app_ref is in its own file, named like its kernel in
 * models/src/kernels/), sizing, and verification by digest (app_inputs.h).
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

/* ---- the names (app_list.h) ---- */

const struct em_app_ref *em_app_ref_find(const char *name)
{
#define APP_REF(name, kernel, paper, inputs, card)	&em_app_##name,
	static const struct em_app_ref *const refs[] = { EM_APPS(APP_REF) };
#undef APP_REF
	size_t i;

	for (i = 0; name && i < sizeof(refs) / sizeof(refs[0]); i++)
		if (!strcmp(refs[i]->name, name))
			return refs[i];
	return NULL;
}

const char *em_app_of(const char *name)
{
#define APP_ALIAS(alias, app)	{ #alias, #app },
	static const struct {
		const char *alias, *app;
	} aliases[] = { EM_APP_ALIASES(APP_ALIAS) };
#undef APP_ALIAS
	const struct em_app_ref *ref;
	size_t i;

	/* first: "ssb" is colscan's alias, the name of no run of em_app_ssb */
	for (i = 0; name && i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].alias, name))
			return aliases[i].app;
	if (em_app_ssb_query(name) >= 0)
		return em_app_ssb.name;
	ref = em_app_ref_find(name);
	return ref ? ref->name : NULL;
}

const char *em_app_paper(const char *name)
{
#define APP_PAPER(name, kernel, paper, inputs, card)	{ #name, paper },
#define MICROBENCHMARK_PAPER(name, kernel, paper)	{ #name, paper },
	static const struct {
		const char *name, *paper;
	} papers[] = { EM_APPS(APP_PAPER) EM_MICROBENCHMARKS(MICROBENCHMARK_PAPER) };
#undef APP_PAPER
#undef MICROBENCHMARK_PAPER
	const char *app = em_app_of(name);
	size_t i;

	if (em_app_ssb_query(name) >= 0)
		return name + strlen("ssb-");
	if (!app)
		app = name;
	for (i = 0; app && i < sizeof(papers) / sizeof(papers[0]); i++)
		if (!strcmp(papers[i].name, app))
			return papers[i].paper;
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
