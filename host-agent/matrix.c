// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "matrix.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "gpumodel/profile.h"
#include "replay.h"		/* trace:FILE apps, checked before any VM boots */
#include "result_record.h"
#include "sched.h"
#include "variants.h"
#include "vm.h"

/* The matrix variants as ember-run arguments (userspace/variants.h). */
#define VARIANT_ROW(name, program, policy, paper, what) \
	{ #name, EM_VARIANT_ARGS(program, policy), EM_VARIANT_ARGS(program, ""), what },
static const struct {
	const char *name;
	const char *args;
	const char *program_args;	/* the program variant alone, "-v NAME" */
	const char *what;
} variants[] = {
	EM_VARIANTS(VARIANT_ROW)
};
#undef VARIANT_ROW
#define VARIANT_NAME(name, program, policy, paper, what)	" " #name

/*
 * Default triggers of each injection kind: deterministic, bounded by a
 * count, and during=launch: a check point outside a running launch (set-up
 * copies, the post-run read-back) neither fires nor draws, so the firing
 * hits the workload wherever the kind's hardware path runs in a launch.
 */
static const struct {
	const char *kind;
	const char *spec;
} inject_defaults[] = {
	{ "ce-error", "kind=ce-error,trigger=event:40,count=2,during=launch" },
	{ "ce-stall", "kind=ce-stall,trigger=event:40,count=8,factor=100,during=launch" },
	{ "fault-overflow", "kind=fault-overflow,trigger=event:40,count=16,during=launch" },
	{ "fault-dup", "kind=fault-dup,trigger=prob:0.25,count=64,during=launch" },
	{ "notify-drop", "kind=notify-drop,trigger=prob:0.5,count=32,during=launch" },
	{ "notify-dup", "kind=notify-dup,trigger=prob:0.5,count=32,during=launch" },
	{ "notify-corrupt", "kind=notify-corrupt,trigger=prob:0.5,count=32,during=launch" },
	{ "lost-irq", "kind=lost-irq,trigger=event:60,count=1,during=launch" },
	{ "poison", "kind=poison,range=0x0+0x400000,during=launch" },
	{ "tlb-timeout", "kind=tlb-timeout,trigger=event:40,count=1,during=launch" },
	{ "hang", "kind=hang,trigger=event:200,count=1,during=launch" },
};

/*
 * What each kind must lead to once it fired during a launch, per driver:
 * the workload recovers (its output verified), fails cleanly with errno
 * (the data it had read back, then a health check passed), or ends in
 * nvidia-uvm's global fatal error (below).
 */
#define EM_EXPECT_RECOVERED	(1u << 0)
#define EM_EXPECT_CLEAN_ERROR	(1u << 1)
/*
 * NVIDIA's documented answer to a channel error: uvm_channel_check_errors()
 * sets the global fatal error (uvm_global_set_fatal_error(), "Encountered a
 * global fatal error" in the kernel log), after which every VA space's GPU
 * work fails, a CPU fault on a managed range is SIGBUS
 * (uvm_va_space_cpu_fault()) and /dev/nvidia-uvm cannot be opened until the
 * module is reloaded. The run must fail with err, show that line, and read
 * no wrong word; the pages still on the GPU are lost.
 */
#define EM_EXPECT_FATAL		(1u << 2)

/*
 * The data a kind may lose: none, except poison under ember.ko, whose
 * chunks held the only copy (ember.ko retires them and their owners'
 * pages fault; the bound is every page of the 2 MiB chunks the spec's
 * range touches, lost_pages_bound()), and a fatal error under nvidia-uvm,
 * after which no page off the CPU can be read (no bound).
 */
enum em_inject_loss {
	EM_LOSS_NONE,
	EM_LOSS_POISONED_CHUNKS,
	EM_LOSS_ANY,
};

struct inject_expectation {
	const char *kind;
	unsigned int outcomes;	/* 0: the kind is refused under this driver */
	int err;		/* the clean or fatal error's errno */
	enum em_inject_loss loss;
	const char *why;	/* the driver's recovery, or why it is refused */
};

/*
 * ember.ko (its recovery paths, docs/driver.md): all clean errors are EIO.
 * ce-error's default spec fails at most 2 copies, fewer than ember.ko's
 * ce_retries resubmissions: it must recover; a matrix setting
 * ce_retries=0 declares expect.ce-error = EIO. A matrix may declare
 * ETIMEDOUT instead (tests/inject/stall.conf: a wait ember.ko gives up).
 */
static const struct inject_expectation inject_expect[] = {
	{ "ce-error", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "resubmitted, up to ce_retries" },
	{ "ce-stall", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "waited for" },
	{ "fault-overflow", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "the warps fault again" },
	{ "fault-dup", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "serviced once" },
	{ "notify-drop", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "a hint missed" },
	{ "notify-dup", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "a hint twice" },
	{ "notify-corrupt", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "an unknown address skipped" },
	{ "lost-irq", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "the launch wait polls" },
	{ "poison", EM_EXPECT_CLEAN_ERROR, EIO, EM_LOSS_POISONED_CHUNKS,
	  "the only copy was in VRAM: its chunks retired" },
	{ "tlb-timeout", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "the invalidate retried" },
	{ "hang", EM_EXPECT_CLEAN_ERROR, EIO, EM_LOSS_NONE,
	  "reset under the launch; VRAM survives a reset" },
};

/*
 * NVIDIA's nvidia-uvm on the GA10x personality (docs/fault-injection.md,
 * "Under nvidia-uvm", has the source lines). Its waits have no limit
 * (uvm_spin_loop() only prints), so a kind whose end needs the RM's
 * channel watchdog is refused: the stand-in has none.
 */
static const struct inject_expectation inject_expect_nvuvm[] = {
	{ "ce-error", 0, 0, EM_LOSS_NONE,
	  "the copy's channel in RC, which nvidia-uvm checks only in CPU waits: the batch's "
	  "replay waits for the copy on the GPU, so the launch stalls (Debian's module), or a "
	  "CPU fault's migration meets it and the program gets SIGBUS (our series); ending it "
	  "needs the RM's RC recovery, which the stand-in lacks" },
	{ "ce-stall", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE,
	  "waited for: a push's wait has no limit" },
	{ "fault-overflow", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE,
	  "OVERFLOW cleared; the dropped warps fault again after the replay" },
	{ "fault-dup", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE,
	  "duplicates of a batch serviced once" },
	{ "notify-drop", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "a hint missed" },
	{ "notify-dup", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE, "a hint twice" },
	{ "notify-corrupt", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE,
	  "an address in no VA block skipped" },
	{ "lost-irq", EM_EXPECT_RECOVERED, 0, EM_LOSS_NONE,
	  "the stand-in's launch wait enters nvidia-uvm's top half while its cause is pending, "
	  "as the RM's next interrupt would" },
	{ "poison", 0, 0, EM_LOSS_NONE,
	  "a copy reading it puts its channel in RC: as ce-error" },
	{ "tlb-timeout", 0, 0, EM_LOSS_NONE,
	  "a GA10x invalidate is a host method with no PENDING state to time out; "
	  "a lost one is a stuck channel, which only the RM's watchdog ends" },
	{ "hang", 0, 0, EM_LOSS_NONE,
	  "a hung GPU is ended by the RM's watchdog (RC), which the stand-in lacks; "
	  "nvidia-uvm's own waits have no limit, so the run would hang" },
};

static const struct inject_expectation *expect_find(const char *driver, const char *kind)
{
	bool nvuvm = driver && !strcmp(driver, EM_DRIVER_NVIDIA_UVM);
	const struct inject_expectation *t = nvuvm ? inject_expect_nvuvm : inject_expect;
	size_t n = nvuvm ? sizeof(inject_expect_nvuvm) / sizeof(inject_expect_nvuvm[0]) :
			   sizeof(inject_expect) / sizeof(inject_expect[0]);
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(kind, t[i].kind))
			return &t[i];
	return NULL;
}

static const char *errno_word(int err)
{
	return err == EIO ? "EIO" : err == ETIMEDOUT ? "ETIMEDOUT" : "errno";
}

const char *em_inject_expected(const char *driver, const char *kind)
{
	static char buf[EM_MAX_LIST][32];
	static unsigned int next;
	const struct inject_expectation *e = expect_find(driver, kind);
	char *b;

	if (!e || !e->outcomes)
		return "?";
	b = buf[next++ % EM_MAX_LIST];
	if (e->outcomes & EM_EXPECT_FATAL) {
		snprintf(b, sizeof(buf[0]), "fatal:%s", errno_word(e->err));
		return b;
	}
	snprintf(b, sizeof(buf[0]), "%s%s%s",
		 e->outcomes & EM_EXPECT_RECOVERED ? "recovered" : "",
		 e->outcomes == (EM_EXPECT_RECOVERED | EM_EXPECT_CLEAN_ERROR) ? "|" : "",
		 e->outcomes & EM_EXPECT_CLEAN_ERROR ? errno_word(e->err) : "");
	return b;
}

const char *em_inject_refused(const char *driver, const char *kind)
{
	const struct inject_expectation *e = expect_find(driver, kind);

	return e && !e->outcomes ? e->why : NULL;
}

void em_inject_expect_markdown(const char *driver, FILE *out)
{
	bool nvuvm = driver && !strcmp(driver, EM_DRIVER_NVIDIA_UVM);
	const struct inject_expectation *t = nvuvm ? inject_expect_nvuvm : inject_expect;
	size_t n = nvuvm ? sizeof(inject_expect_nvuvm) / sizeof(inject_expect_nvuvm[0]) :
			   sizeof(inject_expect) / sizeof(inject_expect[0]);
	size_t i;

	fputs("| kind | must lead to | may lose | why |\n|---|---|---|---|\n", out);
	for (i = 0; i < n; i++)
		fprintf(out, "| `%s` | %s | %s | %s |\n", t[i].kind,
			t[i].outcomes ? em_inject_expected(driver, t[i].kind) : "refused",
			t[i].loss == EM_LOSS_ANY ? "any page off the CPU" :
			t[i].loss == EM_LOSS_POISONED_CHUNKS ? "its chunks' pages" : "nothing",
			t[i].why);
}

/* The page lost_pages counts in (read_back() in userspace/workload.c). */
#define EM_LOST_PAGE_BYTES	4096ull
/* The unit in which ember.ko probes and retires poisoned VRAM. */
#define EM_VRAM_CHUNK_BYTES	(2ull << 20)

/*
 * The most pages (EM_LOST_PAGE_BYTES) a run armed with spec ("SPEC" or
 * "SPEC;SPEC2...") may lose: the sum over its specs of what each kind
 * declares (inject_expect[].loss). A poison spec's range (required by
 * the model) rounds out to whole chunks; an unparsable one allows
 * nothing, so the run fails and the spec is looked at.
 */
static unsigned long long lost_pages_bound(const char *driver, const char *spec)
{
	unsigned long long bound = 0;
	const char *one = spec ?: "";

	while (*one) {
		const char *end = strchr(one, ';') ?: one + strlen(one);
		char part[256], kind[32] = "", *range;
		unsigned long long addr, bytes;
		const struct inject_expectation *e;

		snprintf(part, sizeof(part), "%.*s", (int)(end - one), one);
		one = *end ? end + 1 : end;
		if (sscanf(part, "kind=%31[^,]", kind) != 1 || !(e = expect_find(driver, kind)))
			continue;
		if (e->loss == EM_LOSS_ANY)
			return ULLONG_MAX;
		if (e->loss != EM_LOSS_POISONED_CHUNKS)
			continue;
		range = strstr(part, "range=");
		if (!range)
			continue;
		addr = strtoull(range + strlen("range="), &range, 0);
		if (*range != '+')
			continue;
		bytes = strtoull(range + 1, NULL, 0);
		if (bytes == 0)
			continue;
		bound += ((addr + bytes - 1) / EM_VRAM_CHUNK_BYTES - addr / EM_VRAM_CHUNK_BYTES +
			  1) * (EM_VRAM_CHUNK_BYTES / EM_LOST_PAGE_BYTES);
	}
	return bound;
}

/* The errno a clean or fatal error must show under expected ("EIO",
 * "recovered|EIO", "fatal:EIO", ...), or 0. */
static int expected_errno(const char *expected)
{
	const char *e = strrchr(expected, '|') ?: strrchr(expected, ':');

	e = e ? e + 1 : expected;
	return !strcmp(e, "EIO") ? EIO : !strcmp(e, "ETIMEDOUT") ? ETIMEDOUT : 0;
}

const char *em_run_expected(const struct em_matrix *m, const char *driver, const char *kind)
{
	unsigned int i;

	for (i = 0; i < m->ninjects; i++)
		if (!strcmp(m->injects[i], kind) && m->inject_expects[i][0])
			return m->inject_expects[i];
	return em_inject_expected(driver, kind);
}

const char *em_inject_default_spec(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(inject_defaults) / sizeof(inject_defaults[0]); i++)
		if (!strcmp(kind, inject_defaults[i].kind))
			return inject_defaults[i].spec;
	return NULL;
}

const char *em_variant_args(const char *variant)
{
	size_t i;

	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (!strcmp(variant, variants[i].name))
			return variants[i].args;
	return NULL;
}

/*
 * The variants that run under nvidia-uvm, the module and its parameters
 * for each: the program variants on Debian's nvidia-uvm.ko as shipped
 * (guest-kmod/nvidia-uvm/build.sh --stock: NVIDIA's source, none of Ember's patches), and
 * adaptive, the unchanged program on our series with Ember's switch on
 * (Table 1's defaults, as the Ember glue has them) and on the GPU's clock
 * (ember_gpu_clock=1: the glue's recency and eager reclamation follow the
 * device's time, so that a run is the same on every boot).
 */
static const struct {
	const char *variant;
	const char *module;	/* in the image's /lib/modules/<branch>/ */
	const char *modparams;
} nvuvm_variants[] = {
	{ "uvm", "nvidia-uvm-stock", "" },
	{ "prefetch", "nvidia-uvm-stock", "" },
	{ "mapped", "nvidia-uvm-stock", "" },
	{ "static", "nvidia-uvm-stock", "" },
	{ "adaptive", "nvidia-uvm", "cpu_preferred_blocks_enable=1,ember_gpu_clock=1" },
};

/*
 * A run's nvidia-uvm parameters: its variant's, and for our series on a
 * profile smaller than its card the two sizes of the scaling rule, so that
 * the glue shrinks Table 1's periods, span and batch as ember.ko does on
 * the same profile (uvm_ember.c, ember_vram_bytes). Debian's module has no
 * such parameter and gets none.
 */
static void nvuvm_params(struct em_run *r, const char *variant_params)
{
	struct gm_profile prof;
	uint64_t full;
	int len;

	len = snprintf(r->nvuvm_modparams, sizeof(r->nvuvm_modparams), "%s", variant_params);
	if (strcmp(r->nvuvm_module, "nvidia-uvm") || gm_profile_lookup(r->m->profile, &prof))
		return;
	full = gm_profile_full_vram(&prof);
	if (full > prof.vram_bytes)
		snprintf(r->nvuvm_modparams + len, sizeof(r->nvuvm_modparams) - len,
			 "%sember_vram_bytes=%" PRIu64 ",ember_full_vram_bytes=%" PRIu64,
			 len ? "," : "", prof.vram_bytes, full);
}

const char *em_nvuvm_module(const char *variant)
{
	size_t i;

	for (i = 0; i < sizeof(nvuvm_variants) / sizeof(nvuvm_variants[0]); i++)
		if (!strcmp(variant, nvuvm_variants[i].variant))
			return nvuvm_variants[i].module;
	return NULL;
}

bool em_nvuvm_variant(const char *variant, const char **args, const char **modparams)
{
	size_t i, j;

	for (i = 0; i < sizeof(nvuvm_variants) / sizeof(nvuvm_variants[0]); i++) {
		if (strcmp(variant, nvuvm_variants[i].variant))
			continue;
		for (j = 0; j < sizeof(variants) / sizeof(variants[0]); j++)
			if (!strcmp(variant, variants[j].name)) {
				*args = variants[j].program_args;
				*modparams = nvuvm_variants[i].modparams;
				return true;
			}
	}
	return false;
}

void em_variants_markdown(FILE *out)
{
	size_t i;

	fputs("| variant | `ember-run` arguments | on nvidia-uvm | what it is |\n"
	      "|---|---|---|---|\n", out);
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		const char *module = em_nvuvm_module(variants[i].name), *args, *mp;

		fprintf(out, "| `%s` | `%s` | ", variants[i].name, variants[i].args);
		if (module && em_nvuvm_variant(variants[i].name, &args, &mp))
			fprintf(out, *mp ? "`%s`, `%s`" : "`%s`%s", module, mp);
		else
			fputs("-", out);
		fprintf(out, " | %s |\n", variants[i].what);
	}
}

/* Whether the matrix runs anything under nvidia-uvm. */
static bool matrix_has_nvuvm(const struct em_matrix *m)
{
	unsigned int i;

	for (i = 0; i < m->ndrivers; i++)
		if (!strcmp(m->drivers[i], EM_DRIVER_NVIDIA_UVM))
			return true;
	return false;
}

void em_args_policy(const char *args, char *policy, size_t len)
{
	const char *p, *last = NULL;

	/* ember-run's getopt keeps the last -P; options are words apart */
	for (p = args; (p = strstr(p, "-P")); p += 2)
		if ((p == args || p[-1] == ' ' || p[-1] == ',') &&
		    (p[2] == ' ' || p[2] == ','))
			last = p + 3;
	if (!last) {
		snprintf(policy, len, "%s", "uvm");
		return;
	}
	last += strspn(last, " ,");
	snprintf(policy, len, "%.*s", (int)strcspn(last, " ,"), last);
}

void em_variant_policy(const char *variant, char *policy, size_t len)
{
	const char *args = em_variant_args(variant);

	if (!args)
		snprintf(policy, len, "%s", "");
	else
		em_args_policy(args, policy, len);
}

/* Whether a variant runs the stock policy, so that `policies` replace it. */
static bool variant_takes_policies(const char *variant)
{
	char own[EM_POLICY_NAME_MAX];

	em_variant_policy(variant, own, sizeof(own));
	return !strcmp(own, "uvm");
}

/* ---- config ---- */

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

/*
 * Apps `trace:FILE` (docs/trace-replay.md): FILE is a trace of the
 * directory the guest image packs as /traces (capture/traces, or
 * $EMBER_TRACES), opened and validated here, every launch's streams
 * included, so a bad trace is refused with the reader's message before
 * any VM boots.
 */
static int check_traces(const struct em_matrix *m, const char *file, unsigned int ln)
{
	const char *dir = getenv("EMBER_TRACES") ? getenv("EMBER_TRACES") : "capture/traces";
	struct em_replay_plan plan;
	char tpath[512], err[320];
	unsigned int i;

	for (i = 0; i < m->napps; i++) {
		const char *name = m->apps[i];

		if (strncmp(name, "trace:", 6))
			continue;
		name += 6;
		if (!*name || strpbrk(name, "/,"))
			return cfg_error(file, ln, "bad trace app '%s' (trace:FILE, FILE in "
					 "the image's /traces)", m->apps[i]);
		snprintf(tpath, sizeof(tpath), "%s/%s", dir, name);
		if (em_replay_open(&plan, tpath, NULL, err, sizeof(err))) {
			em_replay_close(&plan);
			return cfg_error(file, ln, "%s", err);
		}
		em_replay_close(&plan);
	}
	return 0;
}

static int parse_key(struct em_matrix *m, const char *file, unsigned int ln,
		     const char *key, char *val)
{
	char words[EM_MAX_LIST][32], *end;
	unsigned int i, n;

	if (!strcmp(key, "name") || !strcmp(key, "profile")) {
		char *dst = key[0] == 'n' ? m->name : m->profile;

		if (!*val || strlen(val) >= sizeof(m->name) || strpbrk(val, " /\t"))
			return cfg_error(file, ln, "bad %s (one word, no '/')", key);
		strcpy(dst, val);
	} else if (!strcmp(key, "apps")) {
		if (key_words(file, ln, key, val, &m->apps[0][0], sizeof(m->apps[0]), EM_MAX_LIST,
			      &m->napps))
			return -1;
	} else if (!strcmp(key, "variants")) {
		if (key_words(file, ln, key, val, &m->variants[0][0], sizeof(m->variants[0]),
			      EM_MAX_LIST, &m->nvariants))
			return -1;
		for (i = 0; i < m->nvariants; i++)
			if (!em_variant_args(m->variants[i]))
				return cfg_error(file, ln, "unknown variant '%s' (one of"
						 EM_VARIANTS(VARIANT_NAME) ")", m->variants[i]);
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
	} else if (!strcmp(key, "nvuvm_branch")) {
		/* a version, the name of the image's /lib/modules/<branch>/ */
		if (!*val || strlen(val) >= sizeof(m->nvuvm_branch) ||
		    strspn(val, "0123456789.") != strlen(val))
			return cfg_error(file, ln, "bad nvuvm_branch '%s' (a driver version, "
					 "535.261.03)", val);
		strcpy(m->nvuvm_branch, val);
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
		if (parse_uint(val, &m->memory_mib, 128, 1 << 20))
			return cfg_error(file, ln, "bad memory '%s' (MiB, >= 128)", val);
	} else if (!strcmp(key, "timeout")) {
		if (parse_uint(val, &m->timeout_s, 1, 86400))
			return cfg_error(file, ln, "bad timeout '%s' (seconds)", val);
	} else if (!strcmp(key, "jobs")) {
		if (parse_uint(val, &m->jobs, 0, EM_MAX_JOBS))
			return cfg_error(file, ln, "bad jobs '%s' (0 = cores, at most 32)", val);
	} else if (!strcmp(key, "run_args")) {
		if (strlen(val) >= sizeof(m->run_args) || strpbrk(val, ","))
			return cfg_error(file, ln, "bad run_args '%s'", val);
		strcpy(m->run_args, val);
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
		if (strcmp(val, "recovered") && !expected_errno(val))
			return cfg_error(file, ln, "bad expectation '%s' (recovered, EIO, "
					 "ETIMEDOUT, fatal:EIO or fatal:ETIMEDOUT)", val);
		strcpy(m->inject_expects[i], val);
	} else if (!strcmp(key, "modparams")) {
		char *w;

		if (strlen(val) >= sizeof(m->modparams) || strpbrk(val, ",'\""))
			return cfg_error(file, ln, "bad modparams '%s'", val);
		strcpy(m->modparams, val);
		for (w = m->modparams; *w; w++)
			if (*w == ' ' || *w == '\t')
				*w = ',';
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
	if (strstr(m->run_args, "-P"))
		return cfg_error(file, ln, "policies and run_args -P: name the policies "
				 "once, in policies%s", "");
	for (i = 0; i < m->nvariants; i++)
		if (variant_takes_policies(m->variants[i]))
			return 0;
	return cfg_error(file, ln, "policies: no variant runs the stock policy (uvm, "
			 "prefetch, mapped, static and autouvm take policies; adaptive, "
			 "ac, ariadne and ember run their own)%s", "");
}

/*
 * A matrix with driver nvidia-uvm: only what means the same there (the
 * variants of nvuvm_variants; the injection kinds inject_expect_nvuvm[]
 * does not refuse; no ember.ko policies or parameters, no libvirt hosts,
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
	if (m->modparams[0])
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
	if (strstr(m->run_args, "-P"))
		return cfg_error(file, ln, "driver nvidia-uvm: run_args -P selects an "
				 "ember.ko policy%s", "");
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
	strcpy(m->profile, "h200-128m");
	m->seeds[0] = 1;
	m->nseeds = 1;
	m->memory_mib = 1024;
	m->timeout_s = 600;

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
	if (!ret && matrix_has_nvuvm(m))
		ret = check_nvuvm(m, path, ln);
	if (!ret && m->nvuvm_branch[0] && !matrix_has_nvuvm(m))
		ret = cfg_error(path, ln, "nvuvm_branch without driver nvidia-uvm%s", "");
	if (!ret)
		ret = check_traces(m, path, ln);
	return ret;
}

/* ---- ember.ko's parameters ---- */

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
	char list[sizeof(m->modparams)], *save = NULL, *kv;
	int n, i, bad = 0;

	if (!m->modparams[0])
		return 0;
	n = load_modparams(initrd, params, EM_MAX_MODPARAMS);
	if (n < 0)
		return -1;
	strcpy(list, m->modparams);
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

/* ---- runs ---- */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static char *git_commit(void)
{
	char buf[64] = "unknown";
	FILE *p = popen("git rev-parse --short=12 HEAD 2>/dev/null", "r");

	if (p) {
		if (!fgets(buf, sizeof(buf), p))
			strcpy(buf, "unknown");
		pclose(p);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

/* Whether a finished run's result.json names this commit. */
static bool same_commit(const struct em_run *r, const char *commit)
{
	char path[4200];
	json_t *o;
	bool same;

	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	o = json_load_file(path, 0, NULL);
	same = o && !strcmp(json_string_value(json_object_get(o, "commit")) ?: "", commit);
	json_decref(o);
	return same;
}

bool em_status_acceptable(const char *status)
{
	return !strcmp(status, "ok") || !strcmp(status, "recovered") ||
	       !strcmp(status, "clean-error") || !strcmp(status, "fatal-error") ||
	       !strcmp(status, "not-fired");
}

/*
 * What every run is checked for first, injected or not: the watchdog, the
 * console (oops, BUG, WARNING, panic: with panic=-1 -no-reboot a panic
 * still exits QEMU with 0) and QEMU's exit status. Returns the status, or
 * NULL when none of them tripped; why says what was seen.
 */
static const char *judge_vm(const struct em_run *r, const struct em_run_outcome *o,
			    const char *hang, char *why, size_t len)
{
	char path[4200];
	const char *problem;

	if (o->timed_out) {
		snprintf(why, len, "watchdog: still running at the timeout");
		return hang;
	}
	snprintf(path, sizeof(path), "%s/console.log", r->dir);
	problem = em_vm_console_problem(path);
	if (problem) {
		snprintf(why, len, "console: %s", problem);
		return strcmp(problem, "no console log") ? "oops" : "error";
	}
	if (o->exit_status) {
		snprintf(why, len, "QEMU exit status %d", o->exit_status);
		return "error";
	}
	return NULL;
}

static json_int_t run_int(json_t *run, const char *key)
{
	return json_integer_value(json_object_get(run, key));
}

/* A run without injection: ok, or failed (run error or wrong data). */
static const char *judge(json_t *run, const struct em_run *r,
			 const struct em_run_outcome *o, char *why, size_t len)
{
	const char *vm = judge_vm(r, o, "timeout", why, len);

	if (vm)
		return vm;
	if (!run) {
		snprintf(why, len, "no result line from the guest");
		return "error";
	}
	if (run_int(run, "ret") || run_int(run, "mismatches") ||
	    run_int(run, "result_ok") == 0 || run_int(run, "lost_pages")) {
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT
			 " mismatches, %" JSON_INTEGER_FORMAT " pages lost",
			 run_int(run, "ret"), run_int(run, "mismatches"),
			 run_int(run, "lost_pages"));
		return "failed";
	}
	return "ok";
}

/*
 * An injected run's outcome: hang, oops, error (the VM or the arming
 * failed), corrupted (wrong data anywhere: the output, the pages read back
 * after a failure, the health check; or more pages lost than its kinds
 * may lose, lost_pages_bound()), not-fired (the injection never hit
 * a launch, and the run was correct), recovered (it hit a launch and the
 * output verified; for ce-error, with ce_retries > 0), clean-error (it
 * hit a launch and the run failed with the kind's errno, its data read
 * back intact and the health check passed), or unexpected (anything else: a wrong errno, an outcome the
 * kind does not declare, data not read back, a failed health check).
 */
static const char *judge_injected(const struct em_matrix *m, json_t *run,
				  const struct em_run *r,
				  const struct em_run_outcome *o, char *why,
				  size_t len)
{
	const char *vm = judge_vm(r, o, "hang", why, len);
	const char *expected = em_run_expected(m, r->driver, r->inject_kind);
	bool may_recover = strstr(expected, "recovered") != NULL;
	bool fatal = !strncmp(expected, "fatal:", 6);
	int err = expected_errno(expected);
	/* after a fatal error no page off the CPU can be read, declared or not */
	unsigned long long lost_bound = fatal ? ULLONG_MAX :
					lost_pages_bound(r->driver, r->inject_spec);
	const char *failed;
	json_int_t ret, lost;

	if (vm)
		return vm;
	if (r->inject_error[0] || !run) {
		snprintf(why, len, "%s", r->inject_error[0] ? r->inject_error :
			 "no result line from the guest");
		return "error";
	}
	ret = run_int(run, "ret");
	lost = run_int(run, "lost_pages");
	failed = json_string_value(json_object_get(run, "failed")) ?: "";
	if (run_int(run, "mismatches") || run_int(run, "health_mismatches") ||
	    (!ret && run_int(run, "result_ok") == 0)) {
		snprintf(why, len, "%" JSON_INTEGER_FORMAT " wrong words, %"
			 JSON_INTEGER_FORMAT " in the health check",
			 run_int(run, "mismatches"), run_int(run, "health_mismatches"));
		return "corrupted";
	}
	/* a lost page faults rather than reading wrong, but its data is gone */
	if (lost < 0 || (unsigned long long)lost > lost_bound) {
		snprintf(why, len, "%" JSON_INTEGER_FORMAT " pages lost, more than the "
			 "%llu its injection may lose (%s)", lost, lost < 0 ? 0 : lost_bound,
			 lost_bound ? "its poisoned chunks" : "it promises no loss");
		return "corrupted";
	}
	if (r->injections_in_launch <= 0) {
		if (!ret)
			return "not-fired";
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s) without the "
			 "injection hitting a launch", ret, failed);
		return "unexpected";
	}
	if (!ret) {
		/*
		 * A failed copy moves no bytes: a run that got past one did so
		 * only by ember.ko resubmitting it. Correct output without a
		 * retry means the failure went unseen (or the copy was not
		 * needed), which is not the recovery this kind tests.
		 */
		if (may_recover && !strcmp(r->inject_kind, "ce-error") &&
		    run_int(run, "ce_retries") <= 0) {
			snprintf(why, len, "correct output, but ce_retries %" JSON_INTEGER_FORMAT
				 ": the failed copy was never resubmitted",
				 run_int(run, "ce_retries"));
			return "unexpected";
		}
		if (may_recover)
			return "recovered";
		snprintf(why, len, "recovered, where %s must fail the launch (%s)",
			 r->inject_kind, expected);
		return "unexpected";
	}
	if (!err || ret != -err) {
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s), expected %s", ret,
			 failed, expected);
		return "unexpected";
	}
	if (fatal) {
		char path[4200];

		/* NVIDIA's own line, not just any failure with that errno */
		snprintf(path, sizeof(path), "%s/console.log", r->dir);
		if (!em_vm_console_has(path, EM_NVUVM_FATAL_LINE)) {
			snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s) without "
				 "nvidia-uvm's '" EM_NVUVM_FATAL_LINE "'", ret, failed);
			return "unexpected";
		}
		return "fatal-error";
	}
	if (!run_int(run, "words_checked")) {
		snprintf(why, len, "ret %" JSON_INTEGER_FORMAT " (%s): the data at the "
			 "error was not read back", ret, failed);
		return "unexpected";
	}
	if (run_int(run, "health_ret") || !run_int(run, "health_words")) {
		snprintf(why, len, "health check after the error: ret %" JSON_INTEGER_FORMAT,
			 run_int(run, "health_ret"));
		return "unexpected";
	}
	return "clean-error";
}

/*
 * A guest line that is there but does not parse (kept by em_results_load):
 * why says jansson's reason and shows the line, instead of "no result line".
 */
static void unparsed_reason(json_t *all, char *why, size_t len)
{
	json_t *bad = all ? em_results_find(all, "unparsed", "reason") : NULL;

	if (bad)
		snprintf(why, len, "result line does not parse (%s): %s",
			 json_string_value(json_object_get(bad, "reason")),
			 json_string_value(json_object_get(bad, "line")));
}

const char *em_run_record(const struct em_matrix *m, const struct em_run *r,
			  const char *commit, const char *results_path,
			  const struct em_run_outcome *o)
{
	char path[4200], tmp[4300];
	unsigned int bad;
	json_t *all = em_results_load(results_path, &bad);
	json_t *run = all ? em_results_find(all, "run", "kernel") : NULL;
	char why[800] = "";
	const char *status = r->inject_kind ?
			     judge_injected(m, run, r, o, why, sizeof(why)) :
			     judge(run, r, o, why, sizeof(why));
	struct em_result_src src = {
		.m = m, .r = r, .o = o, .commit = commit, .status = status, .why = why,
		.expected = r->inject_kind ? em_run_expected(m, r->driver, r->inject_kind) : NULL,
	};
	json_t *obj;

	if (!run && !strcmp(status, "error"))
		unparsed_reason(all, why, sizeof(why));
	/* the host's fields (result_fields.h), then the guest's and device's objects */
	obj = em_result_json(&src);
	if (run)
		json_object_set(obj, "run", run);
	if (r->device)
		json_object_set(obj, "device", r->device);
	/* result.json appears atomically: its presence marks the run done */
	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!json_dump_file(obj, tmp, JSON_COMPACT | JSON_SORT_KEYS))
		rename(tmp, path);
	json_decref(obj);
	json_decref(all);
	return status;
}

void em_run_progress(size_t done, size_t total, size_t running,
		     const struct em_run *last, const char *status, double wall)
{
	bool tty = isatty(STDERR_FILENO);

	fprintf(stderr, "%s[%zu/%zu] %zu running%s%s%s%s", tty ? "\r\033[K" : "",
		done, total, running, last ? " | " : "", last ? last->id : "",
		last ? " " : "", last ? status : "");
	if (last)
		fprintf(stderr, " (%.1f s)", wall);
	if (!tty || done == total)
		fputc('\n', stderr);
	fflush(stderr);
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
	if (!m->npolicies || !variant_takes_policies(variant)) {
		names[0] = own;
		return 1;
	}
	for (i = 0; i < m->npolicies; i++)
		names[i] = m->policies[i];
	return m->npolicies;
}

static struct em_run *plan(const struct em_matrix *m, const struct em_paths *p,
			   size_t *n)
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

					r->m = m;
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
						 m->run_args, r->sweep);
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

/* "-k a -x 1" -> "-k,a,-x,1": the guest's init splits ember_run= at commas. */
static void commas(char *s)
{
	char *w = s, *p;
	bool space = true;

	for (p = s; *p; p++) {
		if (*p == ' ') {
			if (!space)
				*w++ = ',';
			space = true;
		} else {
			*w++ = *p;
			space = false;
		}
	}
	if (w > s && w[-1] == ',')
		w--;
	*w = '\0';
}

/*
 * Merges every run's result.json into results.jsonl and results.csv (its
 * columns result_fields.h's list, read back from each result.json).
 */
static void write_summary(const struct em_matrix *m, const struct em_paths *p,
			  struct em_run *runs, size_t n)
{
	char path[4200];
	FILE *jl, *csv;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s/results.jsonl", p->results, m->name);
	jl = fopen(path, "we");
	snprintf(path, sizeof(path), "%s/%s/results.csv", p->results, m->name);
	csv = fopen(path, "we");
	if (!jl || !csv) {
		fprintf(stderr, "ember-agent: cannot write %s\n", path);
		if (jl)
			fclose(jl);
		if (csv)
			fclose(csv);
		return;
	}
	em_result_csv_header(csv);
	for (i = 0; i < n; i++) {
		char rp[4200];
		json_t *o;
		char *line;

		snprintf(rp, sizeof(rp), "%s/result.json", runs[i].dir);
		o = json_load_file(rp, 0, NULL);
		if (!o)
			continue;
		line = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		fprintf(jl, "%s\n", line);
		free(line);
		em_result_csv_row(csv, o);
		json_decref(o);
	}
	fclose(jl);
	fclose(csv);
}

int em_matrix_list(const struct em_matrix *m, const struct em_paths *p)
{
	size_t n = 0, i;
	struct em_run *runs = plan(m, p, &n);

	if (!runs)
		return -1;
	for (i = 0; i < n; i++) {
		const struct em_run *r = &runs[i];

		printf("%s %s", r->id, r->args);
		/* nvidia-uvm: what the guest loads, and with which parameters */
		if (!strcmp(r->driver, EM_DRIVER_NVIDIA_UVM))
			printf(" module=%s params=%s", r->nvuvm_module,
			       r->nvuvm_modparams[0] ? r->nvuvm_modparams : "-");
		putchar('\n');
	}
	free(runs);
	return 0;
}

/*
 * Matrix m's runs, planned and checked before any VM boots: *n runs, *done
 * of them finished by an earlier invocation. Returns 0, -1 (out of memory,
 * or a campaign with connect), or -2 (refused: a missing image, a bad
 * parameter).
 */
static int prepare_matrix(const struct em_matrix *m, const struct em_paths *p,
			  const char *commit, struct em_run **runsp, size_t *n, size_t *done)
{
	size_t i, skipped = 0, other_commit = 0;
	struct em_run *runs = plan(m, p, n);

	*runsp = NULL;
	if (!runs)
		return -1;
	if (matrix_has_nvuvm(m) && !p->initrd_nvidia_uvm) {
		fprintf(stderr, "ember-agent: %s: driver nvidia-uvm needs the nvidia-uvm image "
			"(--nvidia-uvm-initrd, make image-nvidia-uvm); no VM started\n", m->name);
		free(runs);
		return -2;
	}
	if (em_matrix_check_modparams(m, p->initrd)) {
		fprintf(stderr, "ember-agent: %s: no VM started\n", m->name);
		free(runs);
		return -2;
	}
	if (m->nconnect && m->ninjects) {
		fprintf(stderr, "ember-agent: injection campaigns run with QEMU directly "
			"(they arm injections over QMP); drop 'connect'\n");
		free(runs);
		return -1;
	}
	for (i = 0; i < *n; i++)
		if (em_run_finished(&runs[i])) {
			skipped++;
			other_commit += !same_commit(&runs[i], commit);
		}
	if (skipped)
		fprintf(stderr, "ember-agent: resuming %s: %zu of %zu runs already finished\n",
			m->name, skipped, *n);
	if (other_commit)
		fprintf(stderr, "ember-agent: %s: %zu of the finished runs were made at another "
			"commit than this one (%s); results.csv mixes them (see its commit "
			"column), `make run-clean` starts over\n", m->name, other_commit, commit);
	/* the guest's init splits ember_run= at commas */
	for (i = 0; i < *n; i++)
		commas(runs[i].args);
	*runsp = runs;
	*done = skipped;
	return 0;
}

/* Whether two matrices name the same libvirt hosts (none: QEMU here). */
static bool same_hosts(const struct em_matrix *a, const struct em_matrix *b)
{
	unsigned int i;

	if (a->nconnect != b->nconnect)
		return false;
	for (i = 0; i < a->nconnect; i++)
		if (strcmp(a->connect[i], b->connect[i]))
			return false;
	return true;
}

int em_matrices_run(const struct em_matrix *ms, size_t nm, const struct em_paths *p)
{
	struct sigaction sa = { .sa_handler = on_signal };
	size_t *first = calloc(nm + 1, sizeof(*first));	/* matrix k: [first[k], first[k+1]) */
	struct em_run *pool = NULL;
	char *commit = git_commit();
	struct em_backend be = { 0 };
	size_t k, i, done = 0;
	int failed = 0;

	if (!first || !nm) {
		free(first);
		free(commit);
		return -1;
	}
	for (k = 1; k < nm; k++) {
		if (!same_hosts(&ms[0], &ms[k])) {
			fprintf(stderr, "ember-agent: %s and %s name different connect hosts; one "
				"pool needs the same ones\n", ms[0].name, ms[k].name);
			failed = -2;
			goto out;
		}
		for (i = 0; i < k; i++)
			if (!strcmp(ms[i].name, ms[k].name)) {
				fprintf(stderr, "ember-agent: two matrices named %s (one results "
					"folder each)\n", ms[k].name);
				failed = -2;
				goto out;
			}
	}
	/* every matrix's runs, in order, one queue */
	for (k = 0; k < nm; k++) {
		struct em_run *runs, *grown;
		size_t n, finished;

		failed = prepare_matrix(&ms[k], p, commit, &runs, &n, &finished);
		if (failed)
			goto out;
		grown = realloc(pool, (first[k] + n ? first[k] + n : 1) * sizeof(*pool));
		if (!grown) {
			free(runs);
			failed = -1;
			goto out;
		}
		pool = grown;
		memcpy(pool + first[k], runs, n * sizeof(*runs));
		free(runs);
		first[k + 1] = first[k] + n;
		done += finished;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the pool's hosts and jobs are the first matrix's (the hosts are all's) */
	if (ms[0].nconnect ? em_libvirt_backend_open(&be, &ms[0], p) :
			     em_qemu_backend_open(&be, &ms[0], p)) {
		failed = -1;
		goto summary;
	}
	failed = em_schedule(pool, first[nm], commit, done, &be, &interrupted);
	be.ops->close(&be);
summary:
	for (k = 0; k < nm; k++)
		write_summary(&ms[k], p, pool + first[k], first[k + 1] - first[k]);
out:
	for (i = 0; pool && i < first[nm]; i++)
		json_decref(pool[i].device);
	free(pool);
	free(first);
	free(commit);
	return failed;
}

int em_matrix_run(const struct em_matrix *m, const struct em_paths *p)
{
	return em_matrices_run(m, 1, p);
}
