// SPDX-License-Identifier: MIT
/* AutoUVM's executor over libember (autouvm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autouvm.h"
#include "libember.h"

#define MiB		(1024ull * 1024)

static uint64_t ptimer(void)
{
	struct ember_device_info info;

	memset(&info, 0, sizeof(info));
	return emGetDeviceInfo(&info) ? 0 : info.ptimer_ns;
}

/* The link's rate, from a prefetch of a scratch allocation. */
static uint64_t measure_link(void)
{
	const size_t bytes = 4 * MiB;
	uint64_t t0, ns;
	void *p;

	if (emMallocManaged(&p, bytes))
		return 0;
	memset(p, 1, bytes);
	t0 = ptimer();
	emMemPrefetchAsync(p, bytes, 0);
	emDeviceSynchronize();
	ns = ptimer() - t0;
	emFree(p);
	return ns / 1000 ? bytes / (ns / 1000) : 0;
}

static int load(struct em_autouvm *au, const char *path, const char *program,
		const size_t *bytes, unsigned int n)
{
	uint64_t sizes[AU_ALLOCS_MAX];
	char *text = NULL;
	long len;
	FILE *f = fopen(path, "r");
	unsigned int i;
	int ret = -1;

	if (!f) {
		snprintf(au->error, sizeof(au->error), "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(text = malloc((size_t)len + 1)) ||
	    fread(text, 1, (size_t)len, f) != (size_t)len) {
		snprintf(au->error, sizeof(au->error), "%s: cannot read", path);
		goto out;
	}
	for (i = 0; i < n; i++)
		sizes[i] = bytes[i];
	if (au_profile_parse(text, (size_t)len, &au->prof, au->error, sizeof(au->error)) ||
	    au_profile_match(&au->prof, program, n, sizes, au->error, sizeof(au->error)))
		goto out;
	ret = 0;
out:
	free(text);
	fclose(f);
	return ret;
}

int em_autouvm_begin(struct em_autouvm *au, const char *program, int recording,
		     const char *path, void *const *ptr, const size_t *bytes,
		     unsigned int n)
{
	unsigned int i;

	memset(au, 0, sizeof(*au));
	if (n > AU_ALLOCS_MAX)
		n = AU_ALLOCS_MAX;
	au->prof.launches = calloc(EM_AU_LAUNCHES_MAX, sizeof(*au->prof.launches));
	if (!au->prof.launches)
		return -ENOMEM;
	au->prof.cap = EM_AU_LAUNCHES_MAX;
	au->recording = recording;
	for (i = 0; i < n; i++)
		au->alloc_ptr[i] = ptr[i];
	au_plan_init(&au->plan);
	emGetStats(&au->before, 0);
	if (recording) {
		au->samples = calloc(EM_AU_LAUNCHES_MAX, sizeof(*au->samples));
		if (!au->samples)
			return -ENOMEM;
		snprintf(au->prof.program, sizeof(au->prof.program), "%s", program);
		au->prof.nallocs = n;
		for (i = 0; i < n; i++)
			au->prof.alloc_bytes[i] = bytes[i];
		au->link_bytes_per_us = measure_link();
		au->active = 1;
		return 0;
	}
	au->active = !load(au, path, program, bytes, n);
	return 0;
}

void em_autouvm_tensor(struct em_autouvm *au, const void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p, base;
	unsigned int i;

	if (!au->recording || au->ntensors == EM_AU_TENSORS_MAX)
		return;
	for (i = 0; i < au->prof.nallocs; i++) {
		base = (uintptr_t)au->alloc_ptr[i];
		if (base && a >= base && a + len <= base + au->prof.alloc_bytes[i]) {
			au->tensors[au->ntensors++] =
				(struct au_tensor){ i, a - base, len };
			return;
		}
	}
}

/* The tensor a launch argument names, if it points into an allocation. */
static int arg_tensor(const struct em_autouvm *au, uint64_t arg, struct au_tensor *t)
{
	unsigned int i;

	for (i = 0; i < au->ntensors; i++)
		if ((uintptr_t)au->alloc_ptr[au->tensors[i].alloc] +
		    au->tensors[i].off == arg) {
			*t = au->tensors[i];
			return 1;
		}
	for (i = 0; i < au->prof.nallocs; i++) {
		uintptr_t base = (uintptr_t)au->alloc_ptr[i];

		if (arg >= base && arg < base + au->prof.alloc_bytes[i]) {
			*t = (struct au_tensor){ i, 0, au->prof.alloc_bytes[i] };
			return 1;
		}
	}
	return 0;
}

int em_autouvm_before(struct em_autouvm *au, uint32_t kernel,
		      const uint64_t *args, int nargs)
{
	struct ember_stats_counters now;
	struct au_prefetch pf[AU_TENSORS_MAX * (AU_LOOKAHEAD_MAX + 1)];
	size_t free_b = 0, total = 0;
	uint64_t t0;
	uint32_t n, i;
	int k, ret;

	if (!au->active)
		return 0;
	emGetStats(&now, 0);
	if (au->recording) {
		struct em_au_sample *s;
		struct au_tensor t;

		if (au->seq >= EM_AU_LAUNCHES_MAX)
			return 0;
		s = &au->samples[au->seq];
		memset(s, 0, sizeof(*s));
		s->l.kernel = kernel;
		for (k = 0; k < nargs && s->l.ntensors < AU_TENSORS_MAX; k++)
			if (arg_tensor(au, args[k], &t)) {
				s->l.t[s->l.ntensors++] = t;
				s->s.tensor_bytes += t.len;
			}
		/*
		 * The profiler moves the launch's tensors in first, so that the
		 * launch's own time is its time with its data resident (what the
		 * classes compare the link against), however oversubscribed.
		 */
		for (i = 0; i < s->l.ntensors; i++)
			emMemPrefetchAsync((char *)au->alloc_ptr[s->l.t[i].alloc] +
					   s->l.t[i].off, s->l.t[i].len, 0);
		emGetStats(&au->before, 0);
		return 0;
	}
	emMemGetInfo(&free_b, &total);
	n = au_plan(&au->plan, &au->prof, au->seq, kernel,
		    now.evictions - au->before.evictions, free_b, total, pf,
		    sizeof(pf) / sizeof(pf[0]));
	t0 = ptimer();
	for (i = 0; i < n; i++) {
		ret = emMemPrefetchAsync((char *)au->alloc_ptr[pf[i].alloc] + pf[i].off,
					 pf[i].len, 0);
		if (ret)
			return ret;
		au->prefetch_bytes += pf[i].len;
	}
	au->prefetch_ns += ptimer() - t0;
	emGetStats(&au->before, 0);	/* evictions by the prefetches are ours */
	return 0;
}

void em_autouvm_after(struct em_autouvm *au, uint64_t sim_ns)
{
	struct ember_stats_counters now;

	if (au->active && au->recording && au->seq < EM_AU_LAUNCHES_MAX) {
		emGetStats(&now, 0);
		au->samples[au->seq].s.sim_ns = sim_ns;
		au->samples[au->seq].s.bytes_h2d = now.bytes_h2d - au->before.bytes_h2d;
	}
	au->seq++;
}

int em_autouvm_end(struct em_autouvm *au, const char *path)
{
	uint64_t best = 0, rate, i, n = au->seq < EM_AU_LAUNCHES_MAX ? au->seq : EM_AU_LAUNCHES_MAX;
	uint64_t *resident = calloc(n + 1, sizeof(*resident));
	uint32_t *kernels = calloc(n + 1, sizeof(*kernels));
	struct au_sample *s = calloc(n + 1, sizeof(*s));
	size_t cap = 4096 + n * 256;
	char *buf = NULL;
	long len;
	FILE *f;
	int ret = 0;

	if (!au->recording)
		goto out;
	if (!resident || !kernels || !s) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		s[i] = au->samples[i].s;
		kernels[i] = au->samples[i].l.kernel;
	}
	for (i = 0; i < n; i++) {
		resident[i] = au_resident_ns(s, kernels, (uint32_t)n, (uint32_t)i,
					     au->link_bytes_per_us);
		rate = s[i].tensor_bytes / (resident[i] / 1000 ? resident[i] / 1000 : 1);
		if (rate > best)
			best = rate;
	}
	for (i = 0; i < n; i++) {
		au->prof.launches[i] = au->samples[i].l;
		au->prof.launches[i].cls = au_classify(s[i].tensor_bytes, resident[i],
						       au->link_bytes_per_us, best);
	}
	au->prof.nlaunches = (uint32_t)n;
	{
		unsigned int cls[3] = { 0 };

		for (i = 0; i < n; i++)
			cls[au->prof.launches[i].cls == AU_INTERCONNECT ? 0 :
			    au->prof.launches[i].cls == AU_MEMORY ? 1 : 2]++;
		fprintf(stderr, "ember-run: autouvm profile %s: %llu launches (%u "
			"interconnect-, %u memory-, %u compute-bound), link %llu "
			"bytes/us\n", path, (unsigned long long)n, cls[0], cls[1],
			cls[2], (unsigned long long)au->link_bytes_per_us);
	}
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	len = au_profile_write(&au->prof, buf, cap);
	f = len < 0 ? NULL : fopen(path, "w");
	if (!f || fwrite(buf, 1, (size_t)len, f) != (size_t)len)
		ret = -EIO;
	if (f && fclose(f))
		ret = -EIO;
out:
	free(buf);
	free(resident);
	free(kernels);
	free(s);
	return ret;
}

void em_autouvm_free(struct em_autouvm *au)
{
	free(au->prof.launches);
	free(au->samples);
	au->prof.launches = NULL;
	au->samples = NULL;
}
