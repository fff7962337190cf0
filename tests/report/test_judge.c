// SPDX-License-Identifier: MIT
/*
 * The fault-campaign judge (judge_injected() in host-agent/judge.c) on
 * guest results written here, no VM: lost pages bounded per kind (none,
 * poison: the pages of its chunks) and a recovered ce-error only with a
 * copy-engine retry; under nvidia-uvm, a ce-error's global fatal error
 * (EIO and NVIDIA's kernel line, no wrong word, any page lost). Each case goes through em_run_record(), as a real
 * run does, from a clean console log and one result line.
 *
 * usage: test-judge WORKDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "judge.h"

struct judge_case {
	const char *what;
	const char *kind;	/* NULL: a run without injection */
	const char *spec;
	const char *run_fields;	/* the result line's fields past "scenario" */
	const char *status;	/* what the judge must say */
	const char *driver;	/* NULL: ember */
	const char *console;	/* NULL: a clean ember.ko boot */
	const char *expect;	/* the matrix's expect.KIND; NULL: the driver's own */
};

/* a clean-error's read-back and health check, passed */
#define EIO_READ_BACK "\"ret\":-5,\"failed\":\"launch\",\"words_checked\":1000," \
		      "\"result_ok\":-1,\"health_ret\":0,\"health_words\":1000"
#define RECOVERED "\"ret\":0,\"words_checked\":1000,\"result_ok\":1"
#define CE_SPEC "kind=ce-error,trigger=event:40,count=2,during=launch"
/* nvidia-uvm's global fatal error: EIO, nothing verified, the health check failed */
#define FATAL "\"ret\":-5,\"failed\":\"launch\",\"words_checked\":0,\"result_ok\":-1," \
	      "\"health_ret\":-5,\"health_words\":0"
#define NVUVM_FATAL "nvidia-uvm: uvm_channel.c:1534 uvm_channel_check_errors[1]: " \
		    "Detected a channel error, channel CE\n" \
		    "nvidia-uvm: uvm_global.c:410 uvm_global_set_fatal_error_impl[1]: " \
		    "Encountered a global fatal error: Generic RC error\n"
#define POISON_SPEC "kind=poison,range=0x0+0x400000,during=launch"

static const struct judge_case cases[] = {
	{ "ce-error recovered by a retry", "ce-error", CE_SPEC,
	  RECOVERED ",\"ce_retries\":1,\"lost_pages\":0", "recovered", NULL, NULL, NULL },
	{ "ce-error correct without a retry", "ce-error", CE_SPEC,
	  RECOVERED ",\"ce_retries\":0,\"lost_pages\":0", "unexpected", NULL, NULL, NULL },
	{ "ce-stall recovered, a page lost", "ce-stall",
	  "kind=ce-stall,trigger=event:40,count=8,factor=100,during=launch",
	  RECOVERED ",\"ce_retries\":0,\"lost_pages\":1", "corrupted", NULL, NULL, NULL },
	{ "hang's EIO, a page lost (VRAM survives a reset)", "hang",
	  "kind=hang,trigger=event:200,count=1,during=launch",
	  EIO_READ_BACK ",\"lost_pages\":1", "corrupted", NULL, NULL, NULL },
	{ "poison's EIO, its two chunks lost", "poison", POISON_SPEC,
	  EIO_READ_BACK ",\"lost_pages\":1024", "clean-error", NULL, NULL, NULL },
	{ "poison's EIO, a page more than its chunks", "poison", POISON_SPEC,
	  EIO_READ_BACK ",\"lost_pages\":1025", "corrupted", NULL, NULL, NULL },
	{ "poison across a chunk boundary: two chunks", "poison",
	  "kind=poison,range=0x100000+0x200000,during=launch",
	  EIO_READ_BACK ",\"lost_pages\":1000", "clean-error", NULL, NULL, NULL },
	{ "poison beside a hang: the poison's chunks", "poison",
	  POISON_SPEC ";kind=hang,trigger=event:200,count=1,during=launch",
	  EIO_READ_BACK ",\"lost_pages\":512", "clean-error", NULL, NULL, NULL },
	{ "a run without injection, a page lost", NULL, NULL,
	  RECOVERED ",\"lost_pages\":1", "failed", NULL, NULL, NULL },
	{ "a run without injection, nothing lost", NULL, NULL,
	  RECOVERED ",\"lost_pages\":0", "ok", NULL, NULL, NULL },
	/*
	 * nvidia-uvm: a channel error ends in its global fatal error, where a
	 * matrix declares so (the driver's table refuses ce-error: without the
	 * RM's RC recovery the run stalls, docs/fault-injection.md)
	 */
	{ "nvidia-uvm ce-error: fatal, pages lost", "ce-error", CE_SPEC,
	  FATAL ",\"mismatches\":0,\"lost_pages\":4096", "fatal-error",
	  "nvidia-uvm", NVUVM_FATAL, "fatal:EIO" },
	{ "nvidia-uvm ce-error: EIO without NVIDIA's line", "ce-error", CE_SPEC,
	  FATAL ",\"mismatches\":0,\"lost_pages\":4096", "unexpected", "nvidia-uvm", NULL,
	  "fatal:EIO" },
	{ "nvidia-uvm ce-error: a wrong word read back", "ce-error", CE_SPEC,
	  FATAL ",\"mismatches\":1,\"lost_pages\":0", "corrupted", "nvidia-uvm", NVUVM_FATAL,
	  "fatal:EIO" },
	{ "nvidia-uvm ce-error: ETIMEDOUT", "ce-error", CE_SPEC,
	  "\"ret\":-110,\"failed\":\"launch\",\"words_checked\":0,\"result_ok\":-1,"
	  "\"health_ret\":-5,\"health_words\":0,\"lost_pages\":10", "unexpected",
	  "nvidia-uvm", NVUVM_FATAL, "fatal:EIO" },
	{ "nvidia-uvm ce-error: recovered", "ce-error", CE_SPEC,
	  RECOVERED ",\"ce_retries\":0,\"lost_pages\":0", "unexpected", "nvidia-uvm", NULL,
	  "fatal:EIO" },
	{ "nvidia-uvm fault-dup recovered, a page lost", "fault-dup",
	  "kind=fault-dup,trigger=prob:0.25,count=64,during=launch",
	  RECOVERED ",\"lost_pages\":1", "corrupted", "nvidia-uvm", NULL, NULL },
	{ "nvidia-uvm fault-dup recovered", "fault-dup",
	  "kind=fault-dup,trigger=prob:0.25,count=64,during=launch",
	  RECOVERED ",\"lost_pages\":0", "recovered", "nvidia-uvm", NULL, NULL },
};

/* Writes path with text; false on failure. */
static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	bool ok = f && fputs(text, f) >= 0;

	if (f && fclose(f))
		ok = false;
	return ok;
}

static bool judge_one(const char *work, size_t n, const struct judge_case *c)
{
	static const struct em_run_settings settings = { .profile = "h200-128m" };
	/* the matrix's expect.KIND, or NULL: the driver's own */
	struct em_run r = { .settings = &settings, .app = "gather", .variant = "uvm",
			    .factor = 0.5, .seed = 1, .inject_expected = c->expect };
	struct em_run_outcome o = { .host = "local" };
	char path[4300], line[1024];
	const char *status;

	snprintf(r.id, sizeof(r.id), "case%zu", n);
	snprintf(r.dir, sizeof(r.dir), "%s/case%zu", work, n);
	mkdir(r.dir, 0755);
	r.driver = c->driver ? c->driver : EM_DRIVER_EMBER;
	r.inject_kind = c->kind;
	r.inject_spec = c->spec;
	r.injections_fired = c->kind ? 1 : -1;
	r.injections_in_launch = c->kind ? 1 : -1;
	snprintf(path, sizeof(path), "%s/console.log", r.dir);
	if (!write_file(path, c->console ? c->console : "ember: loaded\n"))
		return false;
	snprintf(path, sizeof(path), "%s/results.jsonl", r.dir);
	snprintf(line, sizeof(line), "{\"scenario\":\"run\",\"kernel\":\"gather\",%s}\n",
		 c->run_fields);
	if (!write_file(path, line))
		return false;
	status = em_run_record(&r, "test", path, &o);
	if (strcmp(status, c->status)) {
		printf("FAIL: %s: %s, expected %s\n", c->what, status, c->status);
		return false;
	}
	printf("ok: %s: %s\n", c->what, status);
	return true;
}

int main(int argc, char **argv)
{
	unsigned int fails = 0;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
		return 2;
	}
	mkdir(argv[1], 0755);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fails += !judge_one(argv[1], i, &cases[i]);
	printf("judge-test: %u failed\n", fails);
	return fails ? 1 : 0;
}
