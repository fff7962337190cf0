// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "matrix.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpumodel/profile.h"
#include "initrd.h"		/* the images' copies of the traces */
#include "judge.h"
#include "modparams.h"
#include "replay.h"		/* trace:FILE apps, checked before any VM boots */
#include "sched.h"		/* EM_MAX_JOBS */
#include "variant_table.h"

/*
 * nvidia-uvm takes evictable VRAM from the PMA in batches of
 * 2^uvm_perf_pma_batch_nonpinned_order root chunks (64: 128 MiB as
 * packaged), keeping the unused ones on its free list, where RM's free FB
 * (what the static variant prefetches up to) does not count them. 128 MiB
 * is 1/128 of the paper's 16 GiB card, so a 1/k card gets 1/k of it (the
 * scaling rule, docs/model.md), at least one root chunk: the order whose
 * batch is the largest power of two of chunks within VRAM / 128. -1: the
 * profile is no scaled card, the module's default stands.
 */
#define NVUVM_PMA_BATCH_ORDER_PACKAGED	6

static int nvuvm_pma_batch_order(const struct gm_profile *prof)
{
	uint64_t full = gm_profile_full_vram(prof);
	uint64_t chunks;
	int order = 0;

	if (full <= prof->vram_bytes)
		return -1;
	chunks = (prof->vram_bytes << NVUVM_PMA_BATCH_ORDER_PACKAGED) / full;
	while (order < NVUVM_PMA_BATCH_ORDER_PACKAGED && (2ull << order) <= chunks)
		order++;
	return order;
}

/*
 * A run's nvidia-uvm parameters: its variant's; the PMA batch, the
 * matrix's nvuvm_pma_batch_order or else the scaling rule's (either
 * module: it is NVIDIA's own parameter); and for our series on a profile
 * smaller than its card the two sizes of the scaling rule, so that the
 * glue shrinks Table 1's periods, span and batch as ember.ko does on the
 * same profile (uvm_ember.c, ember_vram_bytes). Debian's module has no
 * such parameter and gets none.
 */
static void nvuvm_params(struct em_run *r, const char *variant_params)
{
	struct gm_profile prof;
	size_t size = sizeof(r->nvuvm_modparams);
	bool known;
	uint64_t full;
	int len, order;

	len = snprintf(r->nvuvm_modparams, size, "%s", variant_params);
	if (!r->nvuvm_module || !r->nvuvm_module[0])
		return;
	known = !gm_profile_lookup(r->settings->profile, &prof);
	order = r->settings->nvuvm_pma_batch_order;
	if (order < 0 && known)
		order = nvuvm_pma_batch_order(&prof);
	if (order >= 0)
		len += snprintf(r->nvuvm_modparams + len, size - len,
				"%suvm_perf_pma_batch_nonpinned_order=%d", len ? "," : "", order);
	if (strcmp(r->nvuvm_module, "nvidia-uvm") || !known)
		return;
	full = gm_profile_full_vram(&prof);
	if (full > prof.vram_bytes)
		snprintf(r->nvuvm_modparams + len, size - len,
			 "%sember_vram_bytes=%" PRIu64 ",ember_full_vram_bytes=%" PRIu64,
			 len ? "," : "", prof.vram_bytes, full);
}

bool em_matrix_has_nvuvm(const struct em_matrix *m)
{
	unsigned int i;

	for (i = 0; i < m->ndrivers; i++)
		if (!strcmp(m->drivers[i], EM_DRIVER_NVIDIA_UVM))
			return true;
	return false;
}

/* ---- config ---- */

/* "ga10x or gh100": the personalities NVIDIA's driver meets, for a message. */
static void nvidia_personality_names(char *buf, size_t len)
{
	const char *name;
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; (name = gm_personality_name(i)) && o < len; i++)
		if (i != GM_PERSONALITY_EMGPU)
			o += snprintf(buf + o, len - o, "%s%s", o ? " or " : "", name);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int cfg_error(const char *file, unsigned int line, const char *fmt,
		     const char *arg)
{
	fprintf(stderr, "%s:%u: ", file, line);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return -1;
}

/*
 * Splits a whitespace-separated list into words[max][len]: 0, or -1 with
 * *bad the first word that is too long (NULL: more than max words).
 */
static int split_words_at(char *value, char *words, size_t len, unsigned int max,
			  unsigned int *n, const char **bad)
{
	char *save = NULL, *w;

	*n = 0;
	*bad = NULL;
	for (w = strtok_r(value, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (*n == max || strlen(w) >= len) {
			*bad = *n == max ? NULL : w;
			return -1;
		}
		strcpy(words + *n * len, w);
		(*n)++;
	}
	return 0;
}

static int split_words(char *value, char *words, size_t len, unsigned int max,
		       unsigned int *n)
{
	const char *bad;

	return split_words_at(value, words, len, max, n, &bad);
}

/*
 * A matrix key's list of 1 to max words, each shorter than len; an error
 * that says which rule the line broke.
 */
static int key_words(const char *file, unsigned int ln, const char *key, char *value,
		     char *words, size_t len, unsigned int max, unsigned int *n)
{
	const char *bad;

	if (split_words_at(value, words, len, max, n, &bad)) {
		if (bad)
			fprintf(stderr, "%s:%u: %s: '%s' is longer than %zu characters\n",
				file, ln, key, bad, len - 1);
		else
			fprintf(stderr, "%s:%u: %s: more than %u words\n", file, ln, key, max);
		return -1;
	}
	if (!*n) {
		fprintf(stderr, "%s:%u: %s: an empty list\n", file, ln, key);
		return -1;
	}
	return 0;
}

/*
 * A word that becomes a path component (name; an app, in every run's id
 * and folder) or part of an option value (profile, in -device emgpu,...):
 * letters, digits, '.', '_', '-', a letter or digit first, so that it can
 * neither leave its folder ("..", "/") nor add properties or words (",",
 * "=", spaces, quotes).
 */
#define EM_SAFE_WORD_RULE "(letters, digits, '.', '_', '-'; a letter or digit first)"

static bool ascii_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool safe_word(const char *w)
{
	if (!ascii_alnum(*w))
		return false;
	for (; *w; w++)
		if (!ascii_alnum(*w) && !strchr("._-", *w))
			return false;
	return true;
}

static int parse_uint(const char *v, unsigned int *out, unsigned int min,
		      unsigned int max)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || *end || end == v || x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

/* Where the host finds the traces the images pack as /traces: images/Makefile's TRACES. */
static const char *trace_dir(void)
{
	return getenv("EMBER_TRACES") ? getenv("EMBER_TRACES") : "capture/traces";
}

/* Bytes in MiB, rounded up. */
static uint64_t mib(uint64_t bytes)
{
	return (bytes + (1 << 20) - 1) >> 20;
}

/*
 * What the guest's kernel takes of its memory besides the image: its
 * reserved memory, page tables, slabs and modules, with room to spare.
 * Measured: the ember image of 121 MiB (a 106 MiB trace in it) unpacks at
 * 404 MiB of guest memory and not at 392 (the boot holds the image's
 * bytes and its files at once): 404 - 2 x 121 = 162; 30 MiB more for what
 * that one boot did not show.
 */
#define EM_GUEST_KERNEL_MIB	192

/*
 * The guest memory a replay takes, in MiB, with an image of image_bytes
 * (the trace in it) and the replay's own run_bytes beside it: the kernel,
 * and the larger of the boot's need (the image twice while it unpacks)
 * and the run's (the image's files, which stay in RAM, and the replay).
 */
static uint64_t guest_need_mib(uint64_t image_bytes, uint64_t run_bytes)
{
	uint64_t boot = 2 * mib(image_bytes), run = mib(image_bytes) + mib(run_bytes);

	return EM_GUEST_KERNEL_MIB + (boot > run ? boot : run);
}

/* run_args' -T VALUE (the timing trace, ember-run's option), or NULL. */
static const char *run_args_timing(const char *run_args, char *buf, size_t len)
{
	char args[sizeof(((struct em_run_settings *)0)->run_args)], *tok, *save = NULL;
	const char *v = NULL;

	snprintf(args, sizeof(args), "%s", run_args);
	for (tok = strtok_r(args, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		if (!strncmp(tok, "-T", 2))
			v = tok[2] ? tok + 2 : strtok_r(NULL, " \t", &save);
	if (!v)
		return NULL;
	snprintf(buf, len, "%s", v);
	return buf;
}

/*
 * The guest memory a replay of plan p takes at the matrix's largest
 * factor: refused past memory, naming the file and the limit.
 */
static int check_trace_memory(struct em_matrix *m, unsigned int app,
			      const struct em_replay_plan *p, const char *file, unsigned int ln)
{
	struct em_replay_memory need;
	struct gm_profile prof;
	double factor = 0;
	uint64_t total_mib;
	unsigned int i;

	if (gm_profile_lookup(m->settings.profile, &prof))
		return 0;	/* an unknown profile is refused where it is used */
	for (i = 0; i < m->nfactors; i++)
		if (m->factors[i] > factor)
			factor = m->factors[i];
	em_replay_memory(p, (uint64_t)(factor * (double)prof.vram_bytes), &need);
	m->trace_run_bytes[app] = need.footprint + need.launch + need.maps;
	/* the image holds the trace at least: the images are held to it later */
	total_mib = guest_need_mib(need.file, m->trace_run_bytes[app]);
	if (total_mib <= m->settings.memory_mib)
		return 0;
	fprintf(stderr, "%s:%u: %s: the replay at factor %g on %s needs %" PRIu64 " MiB of "
		"guest memory (the guest's kernel %u MiB, and the larger of: at boot, the "
		"trace twice while the image unpacks, %" PRIu64 " MiB; running, the trace %"
		PRIu64 " MiB, its allocations %" PRIu64 " MiB, its largest launch %" PRIu64
		" MiB, line maps %" PRIu64 " MiB), more than memory = %u MiB\n", file, ln,
		p->path, factor, m->settings.profile, total_mib, EM_GUEST_KERNEL_MIB,
		2 * mib(need.file), mib(need.file), mib(need.footprint), mib(need.launch),
		mib(need.maps), m->settings.memory_mib);
	return -1;
}

/*
 * Apps `trace:FILE` (docs/trace-replay.md): FILE is a trace of the
 * directory the guest images pack as /traces (capture/traces, or
 * $EMBER_TRACES), opened and validated here with run_args' -T timing
 * trace (/traces/NAME) if any, every launch's streams included (the one
 * check of them: the guest reads them unchecked), and its replay's guest
 * memory at the largest factor against memory; so a bad trace is refused
 * with the reader's message, or the limit it is past, before any VM boots.
 * The CRCs checked are kept: em_matrix_check_images() holds the images'
 * copies to them.
 */
static int check_traces(struct em_matrix *m, const char *file, unsigned int ln)
{
	const char *dir = trace_dir(), *timing;
	char tpath[512], timing_path[512], targ[256], err[320] = "";
	struct em_replay_plan plan;
	unsigned int i, traces = 0;

	timing = run_args_timing(m->settings.run_args, targ, sizeof(targ));
	if (timing) {
		const char *name = timing + strlen(EM_REPLAY_TRACE_DIR "/");

		if (strncmp(timing, EM_REPLAY_TRACE_DIR "/", strlen(EM_REPLAY_TRACE_DIR "/")) ||
		    !safe_word(name) || strlen(name) >= sizeof(m->timing))
			return cfg_error(file, ln, "run_args -T %s: not a trace of the image's "
					 "/traces (-T /traces/NAME, NAME " EM_SAFE_WORD_RULE ")",
					 timing);
		snprintf(m->timing, sizeof(m->timing), "%s", name);
		snprintf(timing_path, sizeof(timing_path), "%s/%s", dir, name);
	}
	for (i = 0; i < m->napps; i++) {
		const char *name = m->apps[i];

		if (strncmp(name, "trace:", 6))
			continue;
		name += 6;
		if (!*name || strpbrk(name, "/,"))
			return cfg_error(file, ln, "bad trace app '%s' (trace:FILE, FILE in "
					 "the image's /traces)", m->apps[i]);
		snprintf(tpath, sizeof(tpath), "%s/%s", dir, name);
		if (em_replay_open(&plan, tpath, timing ? timing_path : NULL, true, err,
				   sizeof(err)) ||
		    check_trace_memory(m, i, &plan, file, ln)) {
			em_replay_close(&plan);
			return err[0] ? cfg_error(file, ln, "%s", err) : -1;
		}
		m->trace_crc[i] = plan.file_crc;
		traces++;
		if (plan.timing)
			m->timing_crc = trace_get_info(plan.timing)->file_crc32;
		em_replay_close(&plan);
	}
	if (!traces)
		m->timing[0] = '\0';	/* no trace app takes it: no image needs it */
	return 0;
}

/* The image driver `driver` boots, the make target that builds it. */
static const char *driver_image(const struct em_paths *p, const char *driver,
				const char **make)
{
	bool nvuvm = !strcmp(driver, EM_DRIVER_NVIDIA_UVM);

	*make = nvuvm ? "make image-nvidia-uvm" : "make guest";
	return nvuvm ? p->initrd_nvidia_uvm : p->initrd;
}

/*
 * Image `initrd` carries traces/NAME with the bytes of CRC-32 crc, and a
 * replay of run_bytes beside the whole image fits the guest's memory.
 */
static int check_image_trace(const struct em_matrix *m, const char *driver,
			     const char *initrd, const char *make, const char *name,
			     uint32_t crc, uint64_t run_bytes)
{
	char path[128];
	uint32_t got = 0;
	uint64_t size, need;
	struct stat st;
	int ret;

	snprintf(path, sizeof(path), "traces/%s", name);
	ret = em_initrd_file(initrd, path, &size, &got);
	if (!ret && got == crc) {
		if (stat(initrd, &st))
			return 0;	/* read just now: cannot happen */
		need = guest_need_mib((uint64_t)st.st_size, run_bytes);
		if (need <= m->settings.memory_mib)
			return 0;
		fprintf(stderr, "ember-agent: %s: trace:%s on driver %s needs %" PRIu64 " MiB of "
			"guest memory (the guest's kernel %u MiB, and the larger of: at boot, its "
			"image %s twice while it unpacks, %" PRIu64 " MiB; running, the image %"
			PRIu64 " MiB and the replay %" PRIu64 " MiB), more than memory = %u MiB; "
			"no VM started\n", m->name, name, driver, need, EM_GUEST_KERNEL_MIB,
			initrd, 2 * mib((uint64_t)st.st_size), mib((uint64_t)st.st_size),
			mib(run_bytes), m->settings.memory_mib);
		return -1;
	}
	if (ret == -ENOENT)
		fprintf(stderr, "ember-agent: %s: driver %s: its image %s carries no %s (%s "
			"packs %s/*.trace into it); no VM started\n", m->name, driver, initrd,
			path, make, trace_dir());
	else if (!ret)
		fprintf(stderr, "ember-agent: %s: driver %s: its image %s carries another %s "
			"(CRC-32 %08x) than the one checked, %s/%s (%08x): rebuild it (%s); no "
			"VM started\n", m->name, driver, initrd, path, got, trace_dir(), name,
			crc, make);
	else
		fprintf(stderr, "ember-agent: %s: driver %s: its image %s: %s; no VM "
			"started\n", m->name, driver, initrd,
			ret == -EINVAL ? "not a newc cpio" : strerror(-ret));
	return -1;
}

int em_matrix_check_images(const struct em_matrix *m, const struct em_paths *p)
{
	unsigned int ndrv = m->ndrivers ? m->ndrivers : 1, d, i;

	for (d = 0; d < ndrv; d++) {
		const char *driver = m->ndrivers ? m->drivers[d] : EM_DRIVER_EMBER, *make;
		const char *initrd = driver_image(p, driver, &make);

		if (!initrd)
			continue;	/* no such image: refused by its own check */
		for (i = 0; i < m->napps; i++)
			if (!strncmp(m->apps[i], "trace:", 6) &&
			    check_image_trace(m, driver, initrd, make, m->apps[i] + 6,
					      m->trace_crc[i], m->trace_run_bytes[i]))
				return -1;
		if (m->timing[0] &&
		    check_image_trace(m, driver, initrd, make, m->timing, m->timing_crc, 0))
			return -1;
	}
	return 0;
}

static int parse_key(struct em_matrix *m, const char *file, unsigned int ln,
		     const char *key, char *val)
{
	char words[EM_MAX_LIST][32], *end;
	unsigned int i, n;

	if (!strcmp(key, "name") || !strcmp(key, "profile")) {
		char *dst = key[0] == 'n' ? m->name : m->settings.profile;

		if (!safe_word(val)) {
			fprintf(stderr, "%s:%u: bad %s '%s' " EM_SAFE_WORD_RULE "\n", file, ln,
				key, val);
			return -1;
		}
		if (strlen(val) >= sizeof(m->name))
			return cfg_error(file, ln, "bad %s (at most 63 characters)", key);
		strcpy(dst, val);
	} else if (!strcmp(key, "apps")) {
		if (key_words(file, ln, key, val, &m->apps[0][0], sizeof(m->apps[0]), EM_MAX_LIST,
			      &m->napps))
			return -1;
		for (i = 0; i < m->napps; i++) {
			const char *app = m->apps[i];
			bool trace = !strncmp(app, "trace:", 6);

			if (!safe_word(trace ? app + 6 : app))
				return cfg_error(file, ln, trace ? "bad app '%s' (trace:FILE, FILE "
						 EM_SAFE_WORD_RULE ")" : "bad app '%s' "
						 EM_SAFE_WORD_RULE, app);
		}
	} else if (!strcmp(key, "variants")) {
		if (key_words(file, ln, key, val, &m->variants[0][0], sizeof(m->variants[0]),
			      EM_MAX_LIST, &m->nvariants))
			return -1;
		for (i = 0; i < m->nvariants; i++)
			if (!em_variant_args(m->variants[i]))
				return cfg_error(file, ln, "unknown variant '%s' (one of"
						 EM_VARIANT_NAMES ")", m->variants[i]);
	} else if (!strcmp(key, "policies")) {
		if (split_words(val, &m->policies[0][0], EM_POLICY_NAME_MAX, EM_MAX_LIST,
				&m->npolicies) || !m->npolicies)
			return cfg_error(file, ln, "bad policies list (1 to 16 names of at "
					 "most 15 characters)%s", "");
		for (i = 0; i < m->npolicies; i++) {
			const char *c;

			/* the name becomes a module path and a word of ember_run= */
			for (c = m->policies[i]; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
					return cfg_error(file, ln, "bad policy '%s' (letters, "
							 "digits, '_', '-')", m->policies[i]);
			for (n = 0; n < i; n++)
				if (!strcmp(m->policies[n], m->policies[i]))
					return cfg_error(file, ln, "policy '%s' listed twice",
							 m->policies[i]);
		}
	} else if (!strcmp(key, "driver")) {
		if (split_words(val, &m->drivers[0][0], sizeof(m->drivers[0]), EM_MAX_DRIVERS,
				&m->ndrivers) || !m->ndrivers)
			return cfg_error(file, ln, "bad driver list (ember, nvidia-uvm or "
					 "both)%s", "");
		for (i = 0; i < m->ndrivers; i++) {
			if (strcmp(m->drivers[i], EM_DRIVER_EMBER) &&
			    strcmp(m->drivers[i], EM_DRIVER_NVIDIA_UVM))
				return cfg_error(file, ln, "unknown driver '%s' (ember or "
						 "nvidia-uvm)", m->drivers[i]);
			if (i && !strcmp(m->drivers[0], m->drivers[i]))
				return cfg_error(file, ln, "driver '%s' listed twice",
						 m->drivers[i]);
		}
	} else if (!strcmp(key, "driver_cost")) {
		/* emgpu's rule for the driver's CPU time (docs/model.md) */
		if (strcmp(val, "measured") && strcmp(val, "assumed"))
			return cfg_error(file, ln, "bad driver_cost '%s' (measured or "
					 "assumed)", val);
		strcpy(m->settings.driver_cost, val);
	} else if (!strcmp(key, "nvuvm_branch")) {
		/* a version, the name of the image's /lib/modules/<branch>/ */
		if (!*val || strlen(val) >= sizeof(m->settings.nvuvm_branch) ||
		    strspn(val, "0123456789.") != strlen(val))
			return cfg_error(file, ln, "bad nvuvm_branch '%s' (a driver version, "
					 "535.261.03)", val);
		strcpy(m->settings.nvuvm_branch, val);
	} else if (!strcmp(key, "nvuvm_pma_batch_order")) {
		/* nvidia-uvm's PMA batch, 2^N root chunks (6: as packaged) */
		char *end;
		long order = strtol(val, &end, 10);

		if (!*val || *end || order < 0 || order > 10)
			return cfg_error(file, ln, "bad nvuvm_pma_batch_order '%s' (0 to 10: "
					 "2^N root chunks a batch)", val);
		m->settings.nvuvm_pma_batch_order = (int)order;
	} else if (!strcmp(key, "nvuvm_personality")) {
		/* the GPU the stand-in reports: one of NVIDIA's (not emgpu's own) */
		enum gm_personality pers;
		char names[64], what[128];

		if (gm_personality_lookup(val, &pers) || pers == GM_PERSONALITY_EMGPU) {
			nvidia_personality_names(names, sizeof(names));
			snprintf(what, sizeof(what), "'%.40s' (%s)", val, names);
			return cfg_error(file, ln, "bad nvuvm_personality %s", what);
		}
		strcpy(m->settings.nvuvm_personality, val);
	} else if (!strcmp(key, "factors") || !strcmp(key, "seeds")) {
		bool factors = key[0] == 'f';

		if (key_words(file, ln, key, val, &words[0][0], sizeof(words[0]), EM_MAX_LIST, &n))
			return -1;
		for (i = 0; i < n; i++) {
			errno = 0;
			if (factors) {
				m->factors[i] = strtod(words[i], &end);
				if (errno || *end || !(m->factors[i] > 0 && m->factors[i] <= 64))
					return cfg_error(file, ln, "bad factor '%s' (0 < f <= 64)",
							 words[i]);
			} else {
				m->seeds[i] = strtoull(words[i], &end, 0);
				/* results hold seeds as JSON integers: at most 2^63 - 1 */
				if (errno || *end || end == words[i] || m->seeds[i] > INT64_MAX)
					return cfg_error(file, ln, "bad seed '%s' (0 to 2^63-1)",
							 words[i]);
			}
		}
		*(factors ? &m->nfactors : &m->nseeds) = n;
	} else if (!strcmp(key, "memory")) {
		if (parse_uint(val, &m->settings.memory_mib, 128, 1 << 20))
			return cfg_error(file, ln, "bad memory '%s' (MiB, >= 128)", val);
	} else if (!strcmp(key, "timeout")) {
		if (parse_uint(val, &m->settings.timeout_s, 1, 86400))
			return cfg_error(file, ln, "bad timeout '%s' (seconds)", val);
	} else if (!strcmp(key, "jobs")) {
		if (parse_uint(val, &m->jobs, 0, EM_MAX_JOBS))
			return cfg_error(file, ln, "bad jobs '%s' (0 = cores, at most 32)", val);
	} else if (!strcmp(key, "run_args")) {
		if (strlen(val) >= sizeof(m->settings.run_args) || strpbrk(val, ","))
			return cfg_error(file, ln, "bad run_args '%s'", val);
		strcpy(m->settings.run_args, val);
	} else if (!strcmp(key, "injects")) {
		if (key_words(file, ln, key, val, &m->injects[0][0], sizeof(m->injects[0]),
			      EM_MAX_LIST, &m->ninjects))
			return -1;
		for (i = 0; i < m->ninjects; i++) {
			const char *spec = em_inject_default_spec(m->injects[i]);

			if (!spec)
				return cfg_error(file, ln, "unknown injection kind '%s'",
						 m->injects[i]);
			if (!m->inject_specs[i][0])
				snprintf(m->inject_specs[i], sizeof(m->inject_specs[i]), "%s", spec);
		}
	} else if (!strncmp(key, "expect.", 7) || !strncmp(key, "spec.", 5)) {
		/* per-kind keys: the kind must be listed in injects already */
		const char *kind = strchr(key, '.') + 1;

		for (i = 0; i < m->ninjects; i++)
			if (!strcmp(kind, m->injects[i]))
				break;
		if (i == m->ninjects)
			return cfg_error(file, ln, "%s: list the kind in injects first", key);
		if (key[0] == 's') {
			if (strlen(val) >= sizeof(m->inject_specs[i]) ||
			    strpbrk(val, " \t'\""))
				return cfg_error(file, ln, "bad injection spec '%s'", val);
			strcpy(m->inject_specs[i], val);
			return 0;
		}
		if (!em_inject_expectation_valid(val))
			return cfg_error(file, ln, "bad expectation '%s' (recovered, EIO, "
					 "ETIMEDOUT, fatal:EIO or fatal:ETIMEDOUT)", val);
		strcpy(m->inject_expects[i], val);
	} else if (!strcmp(key, "modparams")) {
		char *w, where[512];

		if (strlen(val) >= sizeof(m->settings.modparams) || strpbrk(val, ",'\""))
			return cfg_error(file, ln, "bad modparams '%s'", val);
		strcpy(m->settings.modparams, val);
		for (w = m->settings.modparams; *w; w++)
			if (*w == ' ' || *w == '\t')
				*w = ',';
		/* before any VM boots: a name insmod would ignore, a value it refuses */
		snprintf(where, sizeof(where), "%s:%u", file, ln);
		if (em_modparams_check(where, m->settings.modparams))
			return -1;
	} else if (!strcmp(key, "sweep")) {
		struct em_sweep *sw = &m->sweeps[m->nsweeps];
		char flagw[EM_MAX_LIST + 1][16];

		if (m->nsweeps == EM_MAX_SWEEPS)
			return cfg_error(file, ln, "more than 3 sweep lines%s", "");
		if (split_words(val, &flagw[0][0], 16, EM_MAX_LIST + 1, &n) || n < 2 ||
		    flagw[0][0] != '-' || !isalpha((unsigned char)flagw[0][1]) ||
		    flagw[0][2])
			return cfg_error(file, ln, "bad sweep '%s' (an option such as -r, "
					 "then 1 to 16 values)", val);
		for (i = 0; i < m->nsweeps; i++)
			if (m->sweeps[i].flag == flagw[0][1])
				return cfg_error(file, ln, "option %s swept twice", flagw[0]);
		for (i = 1; i < n; i++) {
			const char *c;

			for (c = flagw[i]; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '.')
					return cfg_error(file, ln, "bad sweep value '%s' "
							 "(letters, digits, '.')", flagw[i]);
			strcpy(sw->values[i - 1], flagw[i]);
		}
		sw->flag = flagw[0][1];
		sw->nvalues = n - 1;
		m->nsweeps++;
	} else if (!strcmp(key, "connect")) {
		if (split_words(val, &m->connect[0][0], 256, EM_MAX_LIST, &m->nconnect))
			return cfg_error(file, ln, "bad connect list%s", "");
	} else {
		return cfg_error(file, ln, "unknown key '%s'", key);
	}
	return 0;
}

/*
 * A matrix with `policies` names the policy one way only: a sweep of -P
 * would cross it again, and `run_args -P` would override every run's; and
 * some variant must take the policies, else the key says nothing.
 */
static int check_policies(const struct em_matrix *m, const char *file, unsigned int ln)
{
	unsigned int i;

	for (i = 0; i < m->nsweeps; i++)
		if (m->sweeps[i].flag == 'P')
			return cfg_error(file, ln, "policies and a sweep of -P: name the "
					 "policies once, in policies%s", "");
	if (strstr(m->settings.run_args, "-P"))
		return cfg_error(file, ln, "policies and run_args -P: name the policies "
				 "once, in policies%s", "");
	for (i = 0; i < m->nvariants; i++)
		if (em_variant_takes_policies(m->variants[i]))
			return 0;
	return cfg_error(file, ln, "policies: no variant runs the stock policy (uvm, "
			 "prefetch, mapped, static and autouvm take policies; adaptive, "
			 "ac, ariadne and ember run their own)%s", "");
}

/*
 * A matrix with driver nvidia-uvm: only what means the same there (the
 * variants em_nvuvm_variant() knows; the injection kinds judge.c does not
 * refuse there; no ember.ko policies or parameters, no libvirt hosts,
 * which boot the ember image alone).
 */
static int check_nvuvm(const struct em_matrix *m, const char *file, unsigned int ln)
{
	const char *args, *mp;
	unsigned int i;

	for (i = 0; i < m->nvariants; i++)
		if (!em_nvuvm_variant(m->variants[i], &args, &mp))
			return cfg_error(file, ln, "driver nvidia-uvm: variant '%s' has no "
					 "meaning there (uvm, prefetch, mapped, static, adaptive)",
					 m->variants[i]);
	if (m->npolicies)
		return cfg_error(file, ln, "driver nvidia-uvm: policies are ember.ko's; "
				 "nvidia-uvm's is chosen by the variant%s", "");
	if (m->settings.modparams[0])
		return cfg_error(file, ln, "driver nvidia-uvm: modparams are ember.ko's%s", "");
	for (i = 0; i < m->ninjects; i++) {
		const char *refused = em_inject_refused(EM_DRIVER_NVIDIA_UVM, m->injects[i]);
		char what[320];

		if (!refused)
			continue;
		snprintf(what, sizeof(what), "%s: %s", m->injects[i], refused);
		return cfg_error(file, ln, "driver nvidia-uvm refuses injection kind %s",
				 what);
	}
	if (m->nconnect)
		return cfg_error(file, ln, "driver nvidia-uvm: runs boot with QEMU directly "
				 "(drop connect)%s", "");
	for (i = 0; i < m->nsweeps; i++)
		if (m->sweeps[i].flag == 'P')
			return cfg_error(file, ln, "driver nvidia-uvm: a sweep of -P selects "
					 "ember.ko's policies%s", "");
	if (strstr(m->settings.run_args, "-P"))
		return cfg_error(file, ln, "driver nvidia-uvm: run_args -P selects an "
				 "ember.ko policy%s", "");
	return 0;
}

/*
 * nvidia-uvm's personality when the matrix names none: the one of the
 * profile's card (models/src/profile.c), so that an H200's runs take
 * nvidia-uvm's Hopper HAL and an A40's its Ampere one.
 */
static int default_personality(struct em_matrix *m, const char *path, unsigned int ln)
{
	struct gm_profile prof;

	if (gm_profile_lookup(m->settings.profile, &prof))
		return cfg_error(path, ln, "driver nvidia-uvm: unknown profile '%s' (its "
				 "card names nvidia-uvm's personality)", m->settings.profile);
	snprintf(m->settings.nvuvm_personality, sizeof(m->settings.nvuvm_personality),
		 "%s", gm_personality_name(prof.nvidia_personality));
	return 0;
}

int em_matrix_load(const char *path, struct em_matrix *m)
{
	char line[1024], *hash, *eq, *key, *val;
	unsigned int ln = 0;
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	memset(m, 0, sizeof(*m));
	strcpy(m->name, "matrix");
	strcpy(m->settings.profile, "h200-128m");
	m->seeds[0] = 1;
	m->nseeds = 1;
	m->settings.memory_mib = 1024;
	m->settings.timeout_s = 600;
	strcpy(m->settings.driver_cost, "measured");
	m->settings.nvuvm_pma_batch_order = -1;

	while (!ret && fgets(line, sizeof(line), f)) {
		ln++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			ret = cfg_error(path, ln, "expected 'key = value'%s", "");
			break;
		}
		*eq = '\0';
		val = trim(eq + 1);
		ret = parse_key(m, path, ln, trim(key), val);
	}
	fclose(f);
	if (!ret && (!m->napps || !m->nvariants || !m->nfactors))
		ret = cfg_error(path, ln, "apps, variants and factors are required%s", "");
	if (!ret && m->npolicies)
		ret = check_policies(m, path, ln);
	if (!ret && em_matrix_has_nvuvm(m))
		ret = check_nvuvm(m, path, ln);
	if (!ret && m->settings.nvuvm_branch[0] && !em_matrix_has_nvuvm(m))
		ret = cfg_error(path, ln, "nvuvm_branch without driver nvidia-uvm%s", "");
	if (!ret && m->settings.nvuvm_pma_batch_order >= 0 && !em_matrix_has_nvuvm(m))
		ret = cfg_error(path, ln, "nvuvm_pma_batch_order without driver nvidia-uvm%s", "");
	if (!ret && m->settings.nvuvm_personality[0] && !em_matrix_has_nvuvm(m))
		ret = cfg_error(path, ln, "nvuvm_personality without driver nvidia-uvm%s", "");
	if (!ret && !m->settings.nvuvm_personality[0] && em_matrix_has_nvuvm(m))
		ret = default_personality(m, path, ln);
	if (!ret)
		ret = check_traces(m, path, ln);
	return ret;
}

/*
 * Point w of the matrix's sweeps (the last sweep line varies fastest): its
 * ember-run options ("-r 0 -u 32") and its id suffix ("-r0-u32").
 */
static void sweep_point(const struct em_matrix *m, unsigned int w, char *args,
			size_t alen, char *id, size_t ilen)
{
	size_t ao = 0, io = 0;
	unsigned int i;

	args[0] = id[0] = '\0';
	for (i = 0; i < m->nsweeps; i++) {
		const struct em_sweep *sw = &m->sweeps[i];
		unsigned int stride = 1, j;
		const char *val;

		for (j = i + 1; j < m->nsweeps; j++)
			stride *= m->sweeps[j].nvalues;
		val = sw->values[w / stride % sw->nvalues];
		ao += (size_t)snprintf(args + ao, alen - ao, "%s-%c %s", ao ? " " : "",
				       sw->flag, val);
		io += (size_t)snprintf(id + io, ilen - io, "-%c%s", sw->flag, val);
		if (ao >= alen || io >= ilen)
			break;
	}
}

/*
 * The policies variant v runs under in matrix m: the matrix's list where
 * the variant runs the stock policy, else its own alone. Returns how many;
 * names[i] points at each.
 */
static unsigned int variant_policies(const struct em_matrix *m, const char *variant,
				     char own[EM_POLICY_NAME_MAX],
				     const char *names[EM_MAX_LIST])
{
	unsigned int i;

	em_variant_policy(variant, own, EM_POLICY_NAME_MAX);
	if (!m->npolicies || !em_variant_takes_policies(variant)) {
		names[0] = own;
		return 1;
	}
	for (i = 0; i < m->npolicies; i++)
		names[i] = m->policies[i];
	return m->npolicies;
}

struct em_run *em_matrix_plan(const struct em_matrix *m, const struct em_paths *p, size_t *n)
{
	unsigned int ninj = m->ninjects ? m->ninjects : 1, nsweep = 1, w, i;
	unsigned int npol = m->npolicies ? m->npolicies : 1;
	unsigned int ndrv = m->ndrivers ? m->ndrivers : 1;
	struct em_run *runs;
	unsigned int a, v, f, s, j, q, d;
	size_t k = 0;

	for (i = 0; i < m->nsweeps; i++)
		nsweep *= m->sweeps[i].nvalues;
	runs = calloc((size_t)m->napps * m->nvariants * ndrv * npol * m->nfactors * m->nseeds *
		      ninj * nsweep, sizeof(*runs));

	if (!runs)
		return NULL;
	/* injection kinds innermost: a campaign cut short covered every kind */
	for (a = 0; a < m->napps; a++)
		for (f = 0; f < m->nfactors; f++)
			for (v = 0; v < m->nvariants; v++)
			for (d = 0; d < ndrv; d++) {
				char own[EM_POLICY_NAME_MAX];
				const char *pols[EM_MAX_LIST];
				unsigned int np = variant_policies(m, m->variants[v], own, pols);
				const char *driver = m->ndrivers ? m->drivers[d] : EM_DRIVER_EMBER;
				bool nvuvm = !strcmp(driver, EM_DRIVER_NVIDIA_UVM);
				const char *vargs = em_variant_args(m->variants[v]), *nvmp = "";

				/* nvidia-uvm: the program variant, the policy chosen at load */
				if (nvuvm && !em_nvuvm_variant(m->variants[v], &vargs, &nvmp))
					continue;	/* check_nvuvm() refused the matrix */
				for (q = 0; q < np; q++)
				for (s = 0; s < m->nseeds; s++)
				for (w = 0; w < nsweep; w++)
				for (j = 0; j < ninj; j++) {
					struct em_run *r = &runs[k++];
					/* "-P NAME" where the run's policy is not its variant's */
					bool other = strcmp(pols[q], own) != 0;
					char polarg[EM_POLICY_NAME_MAX + 4] = "";
					int len;

					r->settings = &m->settings;
					r->app = m->apps[a];
					r->variant = m->variants[v];
					r->driver = driver;
					r->nvuvm_module = nvuvm ? em_nvuvm_module(m->variants[v]) : "";
					nvuvm_params(r, nvmp);
					snprintf(r->policy, sizeof(r->policy), "%s", pols[q]);
					r->factor = m->factors[f];
					r->seed = m->seeds[s];
					r->injections_fired = -1;
					r->injections_in_launch = -1;
					if (m->ninjects) {
						r->inject_kind = m->injects[j];
						r->inject_spec = m->inject_specs[j];
						r->inject_expected = m->inject_expects[j][0] ?
							m->inject_expects[j] :
							em_inject_expected(driver, r->inject_kind);
					}
					len = snprintf(r->id, sizeof(r->id), "%s-%s-x%g-s%" PRIu64,
						       r->app, r->variant, r->factor, r->seed);
					if (other) {
						len += snprintf(r->id + len, sizeof(r->id) - len,
								"-P%s", r->policy);
						snprintf(polarg, sizeof(polarg), " -P %s", r->policy);
					}
					if (nvuvm)
						len += snprintf(r->id + len, sizeof(r->id) - len,
								"-D%s", driver);
					if (r->inject_kind)
						len += snprintf(r->id + len, sizeof(r->id) - len,
								"-%s", r->inject_kind);
					sweep_point(m, w, r->sweep, sizeof(r->sweep),
						    r->id + len, sizeof(r->id) - len);
					snprintf(r->dir, sizeof(r->dir), "%s/%s/runs/%s",
						 p->results, m->name, r->id);
					snprintf(r->args, sizeof(r->args),
						 "-k %s -x %g -s %" PRIu64 " %s%s %s %s",
						 r->app, r->factor, r->seed, vargs, polarg,
						 m->settings.run_args, r->sweep);
					/*
					 * what the guest gets: a sweep of -P included; under
					 * nvidia-uvm the variant's own (adaptive: ember)
					 */
					if (!nvuvm)
						em_args_policy(r->args, r->policy, sizeof(r->policy));
				}
			}
	*n = k;
	return runs;
}

int em_matrix_list(const struct em_matrix *m, const struct em_paths *p)
{
	size_t n = 0, i;
	struct em_run *runs = em_matrix_plan(m, p, &n);

	if (!runs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct em_run *r = &runs[i];

		printf("%s %s", r->id, r->args);
		/* nvidia-uvm: what the guest loads, and with which parameters */
		if (!strcmp(r->driver, EM_DRIVER_NVIDIA_UVM))
			printf(" module=%s params=%s personality=%s", r->nvuvm_module,
			       r->nvuvm_modparams[0] ? r->nvuvm_modparams : "-",
			       r->settings->nvuvm_personality);
		putchar('\n');
	}
	free(runs);
	return 0;
}
