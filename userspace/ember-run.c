// SPDX-License-Identifier: MIT
/*
 * ember-run: runs one workload on emgpu through libember and prints one
 * JSON line of results (see workload.h).
 *
 * usage: ember-run [-k stream|gather|hotset|movinghot|APP] [-x FACTOR] [-v uvm|prefetch|
 *                  mapped|static] [-s SEED] [-p PASSES] [-w WARPS] [-P POLICY]
 *                  [-d DRIFT] [-r RANDOM -u REUSE -m pass|passes]
 * APP is one of the applications (workloads/app_list.h); -p is its size or phase
 * count there (rows, iterations, tokens, ...). -v autouvm (applications
 * only) runs AutoUVM's executor with the profile -A (default
 * /tmp/ember-autouvm.profile), recorded by a profiling run first when the
 * file does not exist; a profile of another program, version or a corrupt
 * one is reported in the JSON and ignored. -d (movinghot) moves the hot
 * window by DRIFT % of itself per phase (the paper's Table 10).
 * -r, -u, -m (hotset; any one sets the other two's defaults 0, 1, pass) are
 * a cell of the paper's Figure 16: RANDOM % of the accesses go to random
 * lines, each page is read REUSE times, within one pass or one per pass
 * (workload.h). A value out of range is refused before anything runs.
 * -k trace:FILE replays a capture trace (docs/trace-replay.md; FILE without
 * a '/' is looked for in /traces), its footprint scaled to FACTOR x VRAM,
 * under -v uvm|prefetch|mapped|static and any -P; -T names the same
 * program's timing-only trace, whose card times are used instead. A bad
 * trace is refused with the reader's message before the device is used.
 * -V DIGEST (applications): the host's digest of a correct run's outputs
 * (ember-agent computes it natively, app_inputs.h), checked in place of
 * the CPU reference, which runs when the digest differs.
 * $EMBER_DRIVER picks libember's driver: ember (ember.ko, the default) or
 * nvidia-uvm (NVIDIA's nvidia-uvm through the stand-in); the JSON names
 * it ("driver"), and prints the counters that driver does not count as
 * null.
 */
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "workload.h"
#include "apps.h"
#include "replay.h"

static void usage(FILE *f)
{
	fputs("usage: ember-run [-k ", f);
	em_app_names(f);
	fputs("|trace:FILE] [-T TIMING-TRACE] [-x FACTOR] "
	      "[-v uvm|prefetch|mapped|static|autouvm] [-s SEED] [-p PASSES] "
	      "[-w WARPS] [-P POLICY] [-A AUTOUVM-PROFILE] [-d DRIFT] "
	      "[-r RANDOM% -u REUSE -m pass|passes] [-V DIGEST]\n", f);
}

/* A whole decimal number in [min, max], or -1 after saying why. */
static long parse_bounded(char opt, const char *what, const char *s, long min,
			  long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "ember-run: -%c: %s must be a whole number from %ld to %ld, "
			"not '%s'\n", opt, what, min, max, s);
		return -1;
	}
	return v;
}

/*
 * Selects the policy; one not registered yet is loaded from its module,
 * /lib/modules/ember_NAME.ko (the guest image carries them), as the kernel
 * would request_module() it.
 */
static int set_policy(const char *name)
{
	char path[64];
	int ret = emSetPolicy(name), fd;

	if (ret != -ENOENT)
		return ret;
	snprintf(path, sizeof(path), "/lib/modules/ember_%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ret;
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
		fprintf(stderr, "ember-run: loading %s: %s\n", path, strerror(errno));
		close(fd);
		return ret;
	}
	close(fd);
	return emSetPolicy(name);
}

int main(int argc, char **argv)
{
	struct em_wl_config cfg = {
		.kernel = "stream", .variant = "uvm", .factor = 0.5, .seed = 1,
	};
	struct em_wl_result res;
	struct em_replay_result replay;
	const char *policy = NULL, *timing = NULL;
	unsigned int i;
	long v;
	int opt, ret;

	cfg.reuse = 1;
	cfg.pattern = "pass";
	while ((opt = getopt(argc, argv, "k:x:v:s:p:w:P:A:d:r:u:m:V:T:h")) != -1) {
		switch (opt) {
		case 'k': cfg.kernel = optarg; break;
		case 'x': cfg.factor = strtod(optarg, NULL); break;
		case 'v': cfg.variant = optarg; break;
		case 's': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'p': cfg.passes = strtoul(optarg, NULL, 0); break;
		case 'w': cfg.warps = strtoul(optarg, NULL, 0); break;
		case 'P': policy = optarg; break;
		case 'A': cfg.autouvm_profile = optarg; break;
		case 'V': cfg.verify_digest = optarg; break;
		case 'T': timing = optarg; break;
		case 'd':
			cfg.drift = strtoul(optarg, NULL, 0);
			cfg.drifting = 1;
			break;
		case 'r':
		case 'u':
			v = parse_bounded((char)opt, opt == 'r' ? "randomness (%)" :
					  "reuse (accesses per page)", optarg,
					  opt == 'r' ? 0 : 1,
					  opt == 'r' ? 100 : EM_WL_MAX_REUSE);
			if (v < 0)
				return 2;
			*(opt == 'r' ? &cfg.randomness : &cfg.reuse) = (uint32_t)v;
			cfg.grid = 1;
			break;
		case 'm':
			if (strcmp(optarg, "pass") && strcmp(optarg, "passes")) {
				fprintf(stderr, "ember-run: -m: pattern must be pass or "
					"passes, not '%s'\n", optarg);
				return 2;
			}
			cfg.pattern = optarg;
			cfg.grid = 1;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (cfg.seed > INT64_MAX) {
		fprintf(stderr, "ember-run: seed must be below 2^63\n");
		return 2;
	}
	if (cfg.factor <= 0 || cfg.factor > 64) {
		fprintf(stderr, "ember-run: factor must be in (0, 64]\n");
		return 2;
	}
	if (cfg.grid && strcmp(cfg.kernel, "hotset")) {
		fprintf(stderr, "ember-run: -r, -u and -m apply to -k hotset only\n");
		return 2;
	}
	if (cfg.grid && cfg.passes > 1) {
		fprintf(stderr, "ember-run: -p with -r/-u/-m: the pattern sets the passes\n");
		return 2;
	}
	if (!emDriverName()) {
		fprintf(stderr, "ember-run: EMBER_DRIVER='%s': the drivers are ember and "
			"nvidia-uvm\n", getenv("EMBER_DRIVER"));
		return 2;
	}
	if (policy && (ret = set_policy(policy))) {
		printf("{\"ret\":%d,\"failed\":\"set_policy\"}\n", ret);
		return 1;
	}
	if (!strncmp(cfg.kernel, "trace:", 6)) {
		ret = em_replay_run(&cfg, &res, timing, &replay);
		/* a refused trace ran nothing: no health to check */
		if (res.ret && !replay.error[0])
			em_wl_health(&cfg, &res);
	} else {
		ret = em_wl_run(&cfg, &res);
		/* a failed run: is the driver still healthy on this VA space? */
		if (res.ret)
			em_wl_health(&cfg, &res);
	}
	fputc('{', stdout);
	em_wl_json(stdout, &cfg, &res);
	em_app_json(stdout, &cfg, &res);
	if (!strncmp(cfg.kernel, "trace:", 6))
		em_replay_json(stdout, &replay);
	/*
	 * The policy hooks ember.ko called for this VA space, in enum
	 * ember_policy_hook order (fini comes when the VA space closes, after
	 * this line; emGetStats(, 1) counts it)
	 */
	if (res.counted.hook_calls[0]) {
		fputs(",\"hook_calls\":[", stdout);
		for (i = 0; i < EMBER_POLICY_HOOKS; i++)
			printf("%s%llu", i ? "," : "",
			       (unsigned long long)res.stats.hook_calls[i]);
		fputs("]}\n", stdout);
	} else {
		fputs(",\"hook_calls\":null}\n", stdout);	/* not counted by the driver */
	}
	emReset();
	return ret || res.mismatches ? 1 : 0;
}
