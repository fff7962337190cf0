/* SPDX-License-Identifier: MIT */
/*
 * Fault injection: a textual spec parsed into struct gm_inject, armed in
 * one of GM_INJECT_MAX slots, and checked at the model's check points
 * (copy descriptor, fault write, notification write, interrupt, TLB
 * invalidate, run-loop epoch for poison and hang).
 *
 * Triggers are deterministic: "event:N" fires at the first check point
 * after N trace events, "prob:P" draws from the slot's own splitmix64
 * stream (seeded from seed= and the model seed), "always" fires at every
 * check point; range= restricts firing to check points whose address
 * range overlaps (for poison, it is the VRAM range to poison). count=
 * limits the firings (default 1; 0 = unlimited). during=launch skips
 * every check point outside a running launch (no firing, no draw), so
 * the injection hits the workload rather than its set-up or teardown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static const char *const kind_names[GM_INJ_KINDS] = {
	[GM_INJ_NONE] = "none",
#define GM_INJ_NAME_(id, name, what)	[GM_INJ_##id] = name,
	GM_INJECT_KINDS(GM_INJ_NAME_)
#undef GM_INJ_NAME_
};

const char *gm_inject_kind_name(enum gm_inject_kind kind)
{
	return (unsigned int)kind < GM_INJ_KINDS ? kind_names[kind] : "?";
}

static int fail(char *err, size_t n, const char *msg, const char *at)
{
	if (n)
		snprintf(err, n, "%s%s%.*s", msg, at ? ": " : "", at ? 40 : 0,
			 at ? at : "");
	return -EINVAL;
}

/* Parses an unsigned number (decimal or 0x hex) of exactly len chars. */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || s[0] == '-' || s[0] == '+' ||
	    s[0] == ' ')
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	*out = strtoull(buf, &end, 0);
	return errno || *end ? -1 : 0;
}

/* Parses "0.25" / "1" / "1e-3"-free decimal probabilities into ppm. */
static int parse_prob(const char *s, size_t len, uint32_t *ppm)
{
	char buf[32], *end;
	double p;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	p = strtod(buf, &end);
	if (*end || !(p >= 0.0 && p <= 1.0))
		return -1;
	*ppm = (uint32_t)(p * 1000000.0 + 0.5);
	return 0;
}

int gm_inject_parse(const char *spec, struct gm_inject *out, char *err,
		    size_t errlen)
{
	const char *p = spec;
	int have_range = 0;

	memset(out, 0, sizeof(*out));
	out->count = 1;
	out->factor = 100;
	if (errlen)
		err[0] = 0;
	if (!spec || !*spec)
		return fail(err, errlen, "empty injection spec", NULL);
	while (*p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		size_t klen, vlen;
		const char *v;
		uint64_t n;

		if (!end)
			end = p + strlen(p);
		if (!eq || eq > end)
			return fail(err, errlen, "expected key=value", p);
		klen = (size_t)(eq - p);
		v = eq + 1;
		vlen = (size_t)(end - v);
		if (klen == 4 && !strncmp(p, "kind", 4)) {
			int k;

			for (k = 1; k < GM_INJ_KINDS; k++)
				if (strlen(kind_names[k]) == vlen &&
				    !strncmp(v, kind_names[k], vlen))
					break;
			if (k == GM_INJ_KINDS)
				return fail(err, errlen, "unknown kind", v);
			out->kind = k;
		} else if (klen == 7 && !strncmp(p, "trigger", 7)) {
			if (vlen == 6 && !strncmp(v, "always", 6)) {
				out->trigger = GM_TRIG_ALWAYS;
			} else if (vlen > 6 && !strncmp(v, "event:", 6)) {
				if (parse_u64(v + 6, vlen - 6, &out->event))
					return fail(err, errlen, "bad event number", v);
				out->trigger = GM_TRIG_EVENT;
			} else if (vlen > 5 && !strncmp(v, "prob:", 5)) {
				if (parse_prob(v + 5, vlen - 5, &out->prob_ppm))
					return fail(err, errlen, "bad probability (0..1)", v);
				out->trigger = GM_TRIG_PROB;
			} else {
				return fail(err, errlen, "unknown trigger", v);
			}
		} else if (klen == 5 && !strncmp(p, "range", 5)) {
			const char *plus = memchr(v, '+', vlen);

			if (!plus || parse_u64(v, (size_t)(plus - v), &out->range_start) ||
			    parse_u64(plus + 1, (size_t)(end - plus - 1), &out->range_len) ||
			    !out->range_len ||
			    out->range_start + out->range_len < out->range_start)
				return fail(err, errlen, "bad range (ADDR+LEN)", v);
			have_range = 1;
		} else if (klen == 5 && !strncmp(p, "count", 5)) {
			if (parse_u64(v, vlen, &n) || n > UINT32_MAX)
				return fail(err, errlen, "bad count", v);
			out->count = (uint32_t)n;
		} else if (klen == 4 && !strncmp(p, "seed", 4)) {
			if (parse_u64(v, vlen, &out->seed))
				return fail(err, errlen, "bad seed", v);
		} else if (klen == 6 && !strncmp(p, "factor", 6)) {
			if (parse_u64(v, vlen, &n) || n < 10 || n > 1000)
				return fail(err, errlen, "factor must be 10..1000", v);
			out->factor = (uint32_t)n;
		} else if (klen == 6 && !strncmp(p, "during", 6)) {
			if (vlen == 6 && !strncmp(v, "launch", 6))
				out->launch_only = 1;
			else if (vlen != 3 || strncmp(v, "any", 3))
				return fail(err, errlen, "during must be launch or any", v);
		} else {
			return fail(err, errlen, "unknown key", p);
		}
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return fail(err, errlen, "trailing comma", NULL);
	}
	if (out->kind == GM_INJ_NONE)
		return fail(err, errlen, "kind= is required", NULL);
	if (out->kind == GM_INJ_POISON && !have_range)
		return fail(err, errlen, "poison needs range=ADDR+LEN", NULL);
	return 0;
}

int gm_inject_add(struct gm_gpu *g, const char *spec, char *err, size_t errlen)
{
	struct gm_inject in;
	int r = gm_inject_parse(spec, &in, err, errlen);

	if (r)
		return r;
	if (g->ninj >= GM_INJECT_MAX) {
		if (errlen)
			snprintf(err, errlen, "too many injections (%d)", GM_INJECT_MAX);
		return -ENOSPC;
	}
	in.rng = in.seed ^ g->seed;
	g->inj[g->ninj] = in;
	g->poll_mark = ~0ull;	/* the next gm_run() checks it */
	return g->ninj++;
}

void gm_inject_clear(struct gm_gpu *g)
{
	g->ninj = 0;
	memset(g->inj, 0, sizeof(g->inj));
}

uint64_t gm_inject_fired(const struct gm_gpu *g, int slot)
{
	return slot >= 0 && slot < g->ninj ? g->inj[slot].fired : 0;
}

uint64_t gm_inject_fired_in_launch(const struct gm_gpu *g, int slot)
{
	return slot >= 0 && slot < g->ninj ? g->inj[slot].fired_in_launch : 0;
}

void gm_inject_poison_hit(struct gm_gpu *g, uint64_t pa)
{
	int i;

	if (g->launch_status != EMGPU_LAUNCH_RUNNING)
		return;
	for (i = 0; i < g->ninj; i++) {
		struct gm_inject *in = &g->inj[i];
		uint64_t c = pa >> GM_CHUNK_SHIFT;

		/* the chunks poll_injections marked for this slot */
		if (in->kind == GM_INJ_POISON && in->fired && in->range_len &&
		    c >= in->range_start >> GM_CHUNK_SHIFT &&
		    c <= (in->range_start + in->range_len - 1) >> GM_CHUNK_SHIFT) {
			in->fired_in_launch++;
			return;
		}
	}
}

uint32_t gm_inject_check(struct gm_gpu *g, enum gm_inject_kind kind,
			 uint64_t addr, uint64_t len)
{
	int i;

	for (i = 0; i < g->ninj; i++) {
		struct gm_inject *in = &g->inj[i];

		if (in->kind != kind || (in->count && in->fired >= in->count))
			continue;
		if (in->launch_only && g->launch_status != EMGPU_LAUNCH_RUNNING)
			continue;
		if (in->range_len && kind != GM_INJ_POISON &&
		    (addr >= in->range_start + in->range_len ||
		     addr + (len ? len : 1) <= in->range_start))
			continue;
		if (in->trigger == GM_TRIG_EVENT && g->st.events < in->event)
			continue;
		if (in->trigger == GM_TRIG_PROB &&
		    gm_splitmix64(&in->rng) % 1000000u >= in->prob_ppm)
			continue;
		in->fired++;
		if (kind != GM_INJ_POISON &&
		    g->launch_status == EMGPU_LAUNCH_RUNNING)
			in->fired_in_launch++;
		g->st.injections_fired++;
		gm_event(g, GM_EV_INJECT, kind, addr, in->fired);
		return kind == GM_INJ_CE_STALL ? in->factor : 1;
	}
	return 0;
}
