// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * AutoUVM's decisions and profile format (ember_autouvm.h). Plain C: no
 * allocation, no I/O; the host reads and writes the file.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#define UINT32_MAX U32_MAX
#endif
#else
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#endif

#include "ember_autouvm.h"

#define AU_MAGIC	"ember-autouvm-profile"

static uint64_t fnv1a64(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ---- writing ---- */

struct au_out {
	char *buf;
	size_t len, pos;
	bool full;
};

__attribute__((format(printf, 2, 3)))
static void au_put(struct au_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos)
		o->full = true;
	else
		o->pos += (size_t)n;
}

long au_profile_write(const struct au_profile *p, char *buf, size_t len)
{
	struct au_out o = { .buf = buf, .len = len };
	uint32_t i, j;

	if (!len)
		return -1;
	au_put(&o, "%s %u\nprogram %s %u", AU_MAGIC, AU_PROFILE_VERSION,
	       p->program, p->nallocs);
	for (i = 0; i < p->nallocs; i++)
		au_put(&o, " %llu", (unsigned long long)p->alloc_bytes[i]);
	au_put(&o, "\n");
	for (i = 0; i < p->nlaunches; i++) {
		const struct au_launch *l = &p->launches[i];

		au_put(&o, "launch %u %c %u", l->kernel, (char)l->cls, l->ntensors);
		for (j = 0; j < l->ntensors; j++)
			au_put(&o, " %u:%llu:%llu", l->t[j].alloc,
			       (unsigned long long)l->t[j].off,
			       (unsigned long long)l->t[j].len);
		au_put(&o, "\n");
	}
	if (o.full)
		return -1;
	au_put(&o, "end %u %016llx\n", p->nlaunches,
	       (unsigned long long)fnv1a64(buf, o.pos));
	return o.full ? -1 : (long)o.pos;
}

/* ---- parsing ---- */

struct au_in {
	const char *s, *end;
};

static void au_skip_spaces(struct au_in *in)
{
	while (in->s < in->end && *in->s == ' ')
		in->s++;
}

static bool take_word(struct au_in *in, const char *w)
{
	size_t n = strlen(w);

	au_skip_spaces(in);
	if ((size_t)(in->end - in->s) < n || memcmp(in->s, w, n) ||
	    (in->s + n < in->end && in->s[n] != ' ' && in->s[n] != '\n'))
		return false;
	in->s += n;
	return true;
}

static bool take_u64(struct au_in *in, uint64_t *v, int base)
{
	uint64_t x = 0, d;
	const char *start;

	au_skip_spaces(in);
	start = in->s;
	while (in->s < in->end) {
		char c = *in->s;

		if (c >= '0' && c <= '9')
			d = (uint64_t)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (uint64_t)(c - 'a' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / (uint64_t)base)
			return false;
		x = x * (uint64_t)base + d;
		in->s++;
	}
	*v = x;
	return in->s > start;
}

static bool take_u32(struct au_in *in, uint32_t *v)
{
	uint64_t x;

	if (!take_u64(in, &x, 10) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool take_char(struct au_in *in, char c)
{
	if (in->s >= in->end || *in->s != c)
		return false;
	in->s++;
	return true;
}

static bool end_of_line(struct au_in *in)
{
	au_skip_spaces(in);
	return take_char(in, '\n');
}

#define AU_FAIL(...)						\
	do {							\
		snprintf(err, errlen, __VA_ARGS__);		\
		return -1;					\
	} while (0)

int au_profile_parse(const char *text, size_t len, struct au_profile *p,
		     char *err, size_t errlen)
{
	struct au_in in = { text, text + len };
	uint64_t v, sum;
	uint32_t line = 3, i, n;
	const char *name, *end_line;

	if (!take_word(&in, AU_MAGIC))
		AU_FAIL("not an AutoUVM profile");
	if (!take_u64(&in, &v, 10) || !end_of_line(&in))
		AU_FAIL("line 1: no version");
	if (v != AU_PROFILE_VERSION)
		AU_FAIL("profile version %llu, this build reads version %u",
			(unsigned long long)v, AU_PROFILE_VERSION);
	if (!take_word(&in, "program"))
		AU_FAIL("line 2: no program line");
	au_skip_spaces(&in);
	for (name = in.s; in.s < in.end && *in.s != ' ' && *in.s != '\n'; in.s++)
		;
	if (in.s == name || (size_t)(in.s - name) >= AU_PROGRAM_MAX)
		AU_FAIL("line 2: bad program name");
	memcpy(p->program, name, (size_t)(in.s - name));
	p->program[in.s - name] = 0;
	if (!take_u32(&in, &p->nallocs) || p->nallocs > AU_ALLOCS_MAX)
		AU_FAIL("line 2: bad allocation count");
	for (i = 0; i < p->nallocs; i++)
		if (!take_u64(&in, &p->alloc_bytes[i], 10))
			AU_FAIL("line 2: bad allocation size");
	if (!end_of_line(&in))
		AU_FAIL("line 2: trailing characters");
	p->nlaunches = 0;
	for (;; line++) {
		struct au_launch *l;
		char cls;

		end_line = in.s;
		if (take_word(&in, "end"))
			break;
		if (!take_word(&in, "launch"))
			AU_FAIL("line %u: expected launch or end (truncated?)", line);
		if (p->nlaunches == p->cap)
			AU_FAIL("line %u: more than %u launches", line, p->cap);
		l = &p->launches[p->nlaunches];
		if (!take_u32(&in, &l->kernel))
			AU_FAIL("line %u: bad kernel", line);
		au_skip_spaces(&in);
		cls = in.s < in.end ? *in.s++ : 0;
		if (cls != AU_INTERCONNECT && cls != AU_MEMORY && cls != AU_COMPUTE)
			AU_FAIL("line %u: bad class", line);
		l->cls = (uint32_t)cls;
		if (!take_u32(&in, &n) || n > AU_TENSORS_MAX)
			AU_FAIL("line %u: bad tensor count", line);
		l->ntensors = n;
		for (i = 0; i < n; i++) {
			struct au_tensor *t = &l->t[i];

			if (!take_u32(&in, &t->alloc) || !take_char(&in, ':') ||
			    !take_u64(&in, &t->off, 10) || !take_char(&in, ':') ||
			    !take_u64(&in, &t->len, 10))
				AU_FAIL("line %u: bad tensor %u", line, i);
			if (t->alloc >= p->nallocs || !t->len ||
			    t->off > p->alloc_bytes[t->alloc] ||
			    t->len > p->alloc_bytes[t->alloc] - t->off)
				AU_FAIL("line %u: tensor %u outside its allocation", line, i);
		}
		if (!end_of_line(&in))
			AU_FAIL("line %u: trailing characters", line);
		p->nlaunches++;
	}
	if (!take_u64(&in, &v, 10) || v != p->nlaunches)
		AU_FAIL("line %u: launch count does not match (truncated?)", line);
	if (!take_u64(&in, &sum, 16) || !end_of_line(&in))
		AU_FAIL("line %u: no checksum", line);
	if (sum != fnv1a64(text, (size_t)(end_line - text)))
		AU_FAIL("checksum mismatch: the profile is corrupt");
	return 0;
}

int au_profile_match(const struct au_profile *p, const char *program,
		     uint32_t nallocs, const uint64_t *alloc_bytes, char *err,
		     size_t errlen)
{
	uint32_t i;

	if (strcmp(p->program, program))
		AU_FAIL("profile of program %s, not %s", p->program, program);
	if (p->nallocs != nallocs)
		AU_FAIL("profile has %u allocations, the program %u", p->nallocs,
			nallocs);
	for (i = 0; i < nallocs; i++)
		if (p->alloc_bytes[i] != alloc_bytes[i])
			AU_FAIL("allocation %u: profile %llu bytes, program %llu", i,
				(unsigned long long)p->alloc_bytes[i],
				(unsigned long long)alloc_bytes[i]);
	return 0;
}

/* ---- classification ---- */

uint64_t au_resident_ns(const struct au_sample *samples, const uint32_t *kernels,
			uint32_t n, uint32_t i, uint64_t link_bytes_per_us)
{
	uint64_t best = UINT64_MAX, ns, link_ns;
	uint32_t j;

	for (j = 0; j < n; j++) {
		if (kernels[j] != kernels[i] ||
		    samples[j].tensor_bytes != samples[i].tensor_bytes)
			continue;
		link_ns = link_bytes_per_us ?
			  samples[j].bytes_h2d * 1000 / link_bytes_per_us : 0;
		ns = samples[j].sim_ns > link_ns + 1000 ? samples[j].sim_ns - link_ns : 1000;
		if (ns < best)
			best = ns;
	}
	return best;
}

uint32_t au_classify(uint64_t tensor_bytes, uint64_t resident_ns,
		     uint64_t link_bytes_per_us, uint64_t best_bytes_per_us)
{
	uint64_t us = resident_ns / 1000 ? resident_ns / 1000 : 1;

	if (link_bytes_per_us && tensor_bytes / link_bytes_per_us * 2 >= us)
		return AU_INTERCONNECT;
	if (best_bytes_per_us && tensor_bytes / us * 2 >= best_bytes_per_us)
		return AU_MEMORY;
	return AU_COMPUTE;
}

/* ---- the online plan ---- */

void au_plan_init(struct au_plan_state *s)
{
	memset(s, 0, sizeof(*s));
	s->lookahead = 2;
}

static bool same_tensor(const struct au_prefetch *a, const struct au_tensor *t)
{
	return a->alloc == t->alloc && a->off == t->off && a->len == t->len;
}

/* Appends t, moving an earlier copy to the end (used again later: kept). */
static uint32_t add_tensor(struct au_prefetch *out, uint32_t n, uint32_t max,
			   const struct au_tensor *t)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (same_tensor(&out[i], t)) {
			memmove(&out[i], &out[i + 1], (n - i - 1) * sizeof(*out));
			n--;
			break;
		}
	if (n == max)
		return n;
	out[n].alloc = t->alloc;
	out[n].off = t->off;
	out[n].len = t->len;
	return n + 1;
}

uint32_t au_plan(struct au_plan_state *s, const struct au_profile *p,
		 uint64_t seq, uint32_t kernel, uint64_t evictions,
		 uint64_t free_bytes, uint64_t total_bytes,
		 struct au_prefetch *out, uint32_t max)
{
	uint64_t j, bytes = 0, last;
	uint32_t n = 0, k;

	if (seq >= p->nlaunches || p->launches[seq].kernel != kernel) {
		s->unmatched++;
		return 0;
	}
	s->matched++;
	if (evictions) {
		/* what was prefetched may be gone, and memory is short */
		s->lookahead = s->lookahead > 1 ? s->lookahead / 2 : 1;
		s->done_upto = seq;
	} else if (free_bytes * 4 >= total_bytes && s->lookahead < AU_LOOKAHEAD_MAX) {
		s->lookahead++;
	}
	if (s->done_upto <= seq) {
		const struct au_launch *l = &p->launches[seq];

		for (k = 0; k < l->ntensors; k++)
			n = add_tensor(out, n, max, &l->t[k]);
		s->done_upto = seq + 1;
	}
	last = seq + s->lookahead;
	for (j = s->done_upto; j <= last && j < p->nlaunches; j++) {
		const struct au_launch *l = &p->launches[j];
		uint64_t need = 0;

		if (l->cls != AU_INTERCONNECT) {
			s->done_upto = j + 1;
			continue;
		}
		for (k = 0; k < l->ntensors; k++)
			need += l->t[k].len;
		if (bytes + need > free_bytes)
			break;
		bytes += need;
		for (k = 0; k < l->ntensors; k++)
			n = add_tensor(out, n, max, &l->t[k]);
		s->done_upto = j + 1;
	}
	return n;
}
