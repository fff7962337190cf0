// SPDX-License-Identifier: MIT
/*
 * ember-agent: the host side of the testbed. Boots VMs with an emgpu (QEMU
 * directly), runs guest scenarios and reports what the guest saw.
 *
 *   ember-agent vm [options]        boot one VM and print its results
 *   ember-agent stats --qmp SOCK    print a running emgpu's stats (JSON)
 *   ember-agent inject --qmp SOCK SPEC
 *                                   arm a fault injection ("clear" disarms)
 *   ember-agent run CONFIG [opts]   run an experiment matrix (resumable)
 *   ember-agent report DIR          speedup tables vs the paper, and plots
 *   ember-agent agreement DIR...    the agreement page: testbed, paper and card
 *   ember-agent calibrate --card F  the card's microbenchmarks vs the testbed's
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "judge.h"
#include "libvirt_run.h"
#include "matrix.h"
#include "modparams.h"
#include "qmp.h"
#include "report.h"
#include "result_record.h"
#include "term.h"
#include "variant_table.h"
#include "vm.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ember-agent vm --qemu PATH --kernel PATH --initrd PATH [options]\n"
		"\n"
		"Boots one VM with an emgpu and prints the guest's results.\n"
		"  --profile NAME     emgpu profile (default h200-256m)\n"
		"  --seed N           device seed (default 1)\n"
		"  --scenarios LIST   guest scenarios, comma-separated (default info)\n"
		"  --run 'ARGS'       run ember-run ARGS in the guest (e.g. '-k gather -x 1.5')\n"
		"  --fuzz-ioctl 'ARGS'  run ember-fuzz-ioctl ARGS in the guest (e.g. '-s 1 -t 60')\n"
		"  --memory MIB       guest RAM (default 512)\n"
		"  --workdir DIR      logs and results (default results/vm)\n"
		"  --timeout SEC      kill the VM after SEC seconds (default 120)\n"
		"  --accel tcg|kvm    accelerator (default tcg)\n"
		"  --json             print the raw JSON lines\n"
		"  --vfio DDDD:BB:SS.F  pass a real card through (vfio-pci; needs --accel kvm)\n"
		"  --modparams 'LIST' module parameters for the guest's init (ember_modparams=)\n"
		"  --append 'WORDS'   more kernel command line words (the real-card image's\n"
		"                     ember_apps=... ember_variants=...; images/nvidia/init)\n"
		"  --device-opts ',K=V,...'  more emgpu properties (e.g. ',personality=ga10x')\n"
		"  --dry-run          print the QEMU command line instead of running it\n"
		"  --libvirt-xml      print the equivalent libvirt domain XML instead\n"
		"\n"
		"usage: ember-agent stats --qmp SOCKET\n"
		"       ember-agent inject --qmp SOCKET SPEC\n"
		"\n"
		"Talk to a running VM's emgpu over QMP (a VM booted by `vm` listens on\n"
		"<workdir>/qmp.sock). SPEC is e.g. kind=ce-error,trigger=event:100,count=1;\n"
		"\"clear\" disarms every injection.\n"
		"\n"
		"usage: ember-agent run CONFIG... --qemu PATH --kernel PATH --initrd PATH\n"
		"                   [--nvidia-uvm-initrd PATH] [--results DIR] [--accel tcg|kvm]\n"
		"       ember-agent run CONFIG... --list\n"
		"       ember-agent report DIR [--paper CSV] [--no-plot]\n"
		"       ember-agent agreement DIR... --paper CSV --out PAGE\n"
		"                   [--card JSONL... --card-testbed DIR --card-scale SCALE]\n"
		"                   [--causes MD] [--plot-href HREF] [--no-plot]\n"
		"                   [--title TEXT] [--programs-page HREF]\n"
		"       ember-agent result-fields\n"
		"       ember-agent guest-caps\n"
		"       ember-agent variants\n"
		"       ember-agent inject-expect\n"
		"       ember-agent modparams\n"
		"\n"
		"`run` boots one VM per combination of the config's apps, variants,\n"
		"policies, drivers, factors and seeds (syntax in host-agent/matrix.h), in\n"
		"parallel (driver nvidia-uvm: the --nvidia-uvm-initrd image), into\n"
		"DIR/<name>/ (default results/); finished runs are kept, so a rerun\n"
		"resumes; --list prints each run's id and ember-run arguments instead.\n"
		"Several configs run as one pool: one queue over all their runs, the\n"
		"first config's jobs and hosts (every config must name the same connect).\n"
		"`report` prints speedups over UVM beside the paper's table in\n"
		"CSV (experiments/paper/table*.csv), each cell's order of the variants and\n"
		"a summary line per size, and draws DIR/speedup-<factor>x.png with gnuplot;\n"
		"a column per variant, policy, driver, sweep point and seed, and a cell that\n"
		"two runs claim is an error that names them (exit status 1).\n"
		"`agreement` writes PAGE (Markdown): per results DIR, driver and factor,\n"
		"every cell's speedup over UVM beside the paper's (CSV, the column of the\n"
		"results' GPU), the cells within 25%%, the variant pairs in its order and\n"
		"the fastest variant picked; per footprint of the card's runs (--card,\n"
		"tests/hw/apps.sh's), every cell beside the testbed's run of it in the\n"
		"--card-testbed DIR (make compare-card's runs, scaled down by SCALE), with\n"
		"the same counts as compare-card prints them (--card-testbed without\n"
		"--card: the page says that set was not made); then the file --causes\n"
		"verbatim; and the plot of testbed against paper per cell beside PAGE\n"
		"(.png for its extension), linked as HREF (default its file name). It\n"
		"prints the counts.\n"
		"`result-fields` prints every field of result.json and column of results.csv\n"
		"(host-agent/result_fields.h, the one list both are written from) as a\n"
		"Markdown table; `guest-caps` the caps on what a guest may write on the\n"
		"host (host-agent/vm.h) likewise; `variants` the matrix variants\n"
		"(userspace/variants.h)\n"
		"likewise, `inject-expect` what each injection kind must lead to under\n"
		"each driver (host-agent/judge.c's tables), `modparams` the module\n"
		"parameters of ember.ko (Table 1's aside: docs/table1.md), ember_ac.ko\n"
		"and ember_ariadne.ko from the lists that declare them (policy/,\n"
		"guest-kmod/ember/ember_params.h).\n"
		"\n"
		"usage: ember-agent calibrate --card JSONL --qemu PATH --kernel PATH --initrd PATH\n"
		"                   [--profile NAME] [--ubench 'ARGS'] [--workdir DIR]\n"
		"                   [--memory MIB] [--timeout SEC] [--accel tcg|kvm]\n"
		"                   [--driver-cost measured|assumed] [--fit-cpu A,B]\n"
		"       ember-agent calibrate --card JSONL --model RESULTS.jsonl [--profile NAME]\n"
		"                   [--driver-cost measured|assumed]\n"
		"                   [--fit-cpu A,B --fit-models RESULTS_A,RESULTS_B]\n"
		"\n"
		"`calibrate` runs ember-ubench (the card's microbenchmarks, cuda/ubench) in\n"
		"a VM (default profile h200x16-2g, the measured driver cost) and prints each\n"
		"row beside the card's (experiments/card-results/), with the error and a\n"
		"closing \"N of M within 25%%\"; --model prints from a VM's results.jsonl\n"
		"without booting one. --fit-cpu A,B first runs it at cpu_insn_ps A and B ps,\n"
		"fits cpu_insn_ps on the fault-path rows (fitted and held-out rows printed\n"
		"apart), then runs it at the fit and prints what a fault batch and a fault\n"
		"cost beside the card's fault latency; --fit-models takes the two runs' files.\n");
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qemu", required_argument, NULL, 'q' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "nvidia-uvm-initrd", required_argument, NULL, 'n' },
		{ "results", required_argument, NULL, 'o' },
		{ "accel", required_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{ 0 }
	};
	struct em_paths p = { .results = "results" };
	struct em_matrix *ms;
	bool list = false;
	int c, k, nm;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q': p.qemu = optarg; break;
		case 'k': p.kernel = optarg; break;
		case 'i': p.initrd = optarg; break;
		case 'n': p.initrd_nvidia_uvm = optarg; break;
		case 'o': p.results = optarg; break;
		case 'a': p.accel = optarg; break;
		case 'l': list = true; break;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || (!list && (!p.qemu || !p.kernel || !p.initrd))) {
		usage(stderr);
		return 2;
	}
	nm = argc - optind;
	ms = calloc((size_t)nm, sizeof(*ms));
	if (!ms) {
		fprintf(stderr, "ember-agent: out of memory\n");
		return 1;
	}
	for (k = 0; k < nm; k++)
		if (em_matrix_load(argv[optind + k], &ms[k])) {
			free(ms);
			return 2;
		}
	if (list) {
		for (c = 0, k = 0; k < nm; k++)
			c |= em_matrix_list(&ms[k], &p);
		free(ms);
		return c ? 1 : 0;
	}
	c = em_matrices_run(ms, (size_t)nm, &p);
	if (c >= 0) {
		if (c)
			fprintf(stderr, "ember-agent: %d runs did not succeed; their logs are in "
				"%s/%s/runs/%s\n", c, p.results, ms[0].name,
				nm > 1 ? " and the other matrices' runs/" : "");
		for (k = 0; k < nm; k++)
			printf("results: %s/%s/results.jsonl and results.csv\n", p.results,
			       ms[k].name);
	}
	free(ms);
	if (c == -2)
		return 2;
	if (c < 0)
		return 130;
	return c ? 1 : 0;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "paper", required_argument, NULL, 'p' },
		{ "no-plot", no_argument, NULL, 'n' },
		{ 0 }
	};
	const char *paper = NULL;
	bool draw = true;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': paper = optarg; break;
		case 'n': draw = false; break;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	return em_report(argv[optind], paper, draw);
}

static int cmd_agreement(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "paper", required_argument, NULL, 'p' },
		{ "card", required_argument, NULL, 'c' },
		{ "card-testbed", required_argument, NULL, 't' },
		{ "card-scale", required_argument, NULL, 's' },
		{ "causes", required_argument, NULL, 'C' },
		{ "out", required_argument, NULL, 'o' },
		{ "plot-href", required_argument, NULL, 'h' },
		{ "no-plot", no_argument, NULL, 'n' },
		{ "title", required_argument, NULL, 'T' },
		{ "programs-page", required_argument, NULL, 'P' },
		{ 0 }
	};
	struct em_agreement_args a = { .draw = true };
	char **cards = calloc((size_t)argc, sizeof(*cards));
	int c, rc;

	if (!cards)
		return 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': a.paper_csv = optarg; break;
		case 'c': cards[a.ncards++] = optarg; break;
		case 't': a.card_testbed = optarg; break;
		case 's': a.card_scale = strtod(optarg, NULL); break;
		case 'C': a.causes = optarg; break;
		case 'o': a.page = optarg; break;
		case 'h': a.plot_href = optarg; break;
		case 'n': a.draw = false; break;
		case 'T': a.title = optarg; break;
		case 'P': a.programs_page = optarg; break;
		default: usage(stderr); free(cards); return 2;
		}
	}
	/*
	 * the card's rows need the testbed's runs of them and their scale;
	 * the runs' set alone names the card part that was not made
	 */
	if (optind == argc || !a.paper_csv || !a.page || (a.ncards && !a.card_testbed) ||
	    (a.ncards && !(a.card_scale > 0))) {
		usage(stderr);
		free(cards);
		return 2;
	}
	a.dirs = argv + optind;
	a.ndirs = (size_t)(argc - optind);
	a.cards = cards;
	rc = em_agreement(&a);
	free(cards);
	return rc;
}

/* stats | inject: one QMP command on a running VM's emgpu. */
static int cmd_qmp(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qmp", required_argument, NULL, 'q' },
		{ 0 }
	};
	const char *sock = NULL, *spec = NULL;
	bool inject = !strcmp(argv[0], "inject");
	char err[512] = "";
	struct em_qmp q;
	json_t *r;
	char *text;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'q') {
			usage(stderr);
			return 2;
		}
		sock = optarg;
	}
	if (inject && optind < argc)
		spec = argv[optind++];
	if (!sock || (inject && !spec) || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (em_qmp_connect(&q, sock, 0, err, sizeof(err))) {
		fprintf(stderr, "ember-agent: %s\n", err);
		return 1;
	}
	if (inject)
		r = em_qmp_execute(&q, "qom-set", json_pack("{s:s,s:s,s:s}", "path",
				   EM_VM_GPU_QOM_PATH, "property", "inject", "value", spec),
				   err, sizeof(err));
	else
		r = em_qmp_execute(&q, "qom-get", json_pack("{s:s,s:s}", "path",
				   EM_VM_GPU_QOM_PATH, "property", "stats"), err, sizeof(err));
	em_qmp_close(&q);
	if (!r) {
		fprintf(stderr, "ember-agent: %s\n", err);
		return 1;
	}
	if (!inject) {
		text = json_dumps(r, JSON_INDENT(2) | JSON_SORT_KEYS);
		puts(text ? text : "{}");
		free(text);
	}
	json_decref(r);
	return 0;
}

/* Prints one result object as "scenario  key = value" lines. */
static void print_result(json_t *obj)
{
	const char *scenario = json_string_value(json_object_get(obj, "scenario"));
	char safe_scenario[128], safe_key[256], safe_val[1024];
	const char *key;
	json_t *val;
	char *text;

	if (json_object_get(obj, "done"))
		return;
	/* the guest's words: escaped for the terminal (term.h) */
	em_term_safe(scenario ? scenario : "?", safe_scenario, sizeof(safe_scenario));
	json_object_foreach(obj, key, val) {
		if (!strcmp(key, "scenario"))
			continue;
		text = json_dumps(val, JSON_ENCODE_ANY);
		printf("  %-10s %-22s %s\n", safe_scenario,
		       em_term_safe(key, safe_key, sizeof(safe_key)),
		       em_term_safe(text ? text : "?", safe_val, sizeof(safe_val)));
		free(text);
	}
}

static bool valid_pci_address(const char *a)
{
	unsigned int d, b, s, f;
	char end;

	return sscanf(a, "%4x:%2x:%2x.%1x%c", &d, &b, &s, &f, &end) == 4 &&
	       strlen(a) == 12 && s < 32 && f < 8;
}

/* --dry-run: the QEMU command line, shell-quoted; --libvirt-xml: the domain. */
static int print_vm(const struct em_vm_config *cfg, bool xml)
{
	struct em_vm_argv av;
	char *dom;
	int i;

	if (xml) {
		dom = em_libvirt_domain_xml(cfg, "ember-vm");
		if (!dom)
			return 1;
		fputs(dom, stdout);
		free(dom);
		return 0;
	}
	em_vm_argv(cfg, cfg->workdir, &av);
	for (i = 0; av.argv[i]; i++) {
		const char *c;

		printf("%s'", i ? " " : "");
		for (c = av.argv[i]; *c; c++)
			if (*c == '\'')
				fputs("'\\''", stdout);
			else
				putchar(*c);
		putchar('\'');
	}
	putchar('\n');
	return 0;
}

/* "-k stream -x 0.5" -> "-k,stream,-x,0.5" for the kernel command line. */
static char *commas(const char *args)
{
	char *s = strdup(args), *p;

	for (p = s; p && *p; p++)
		if (*p == ' ')
			*p = ',';
	return s;
}

static int cmd_vm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qemu", required_argument, NULL, 'q' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "profile", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "scenarios", required_argument, NULL, 'S' },
		{ "run", required_argument, NULL, 'r' },
		{ "fuzz-ioctl", required_argument, NULL, 'F' },
		{ "memory", required_argument, NULL, 'm' },
		{ "workdir", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "accel", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "vfio", required_argument, NULL, 'V' },
		{ "modparams", required_argument, NULL, 'M' },
		{ "append", required_argument, NULL, 'A' },
		{ "device-opts", required_argument, NULL, 'D' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "libvirt-xml", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct em_vm_config cfg = {
		.profile = "h200-256m",
		.scenarios = "info",
		.workdir = "results/vm",
		.seed = 1,
	};
	struct em_vm_outcome out;
	struct em_vm vm;
	json_t *results, *obj;
	unsigned int bad;
	char *run_args = NULL, *fuzz_args = NULL, *modparams = NULL;
	const char *problem;
	bool raw = false, dry_run = false, xml = false;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q': cfg.qemu = optarg; break;
		case 'k': cfg.kernel = optarg; break;
		case 'i': cfg.initrd = optarg; break;
		case 'p': cfg.profile = optarg; break;
		case 's': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'S': cfg.scenarios = optarg; break;
		case 'r': run_args = commas(optarg); cfg.run_args = run_args; break;
		case 'F': fuzz_args = commas(optarg); cfg.fuzz_args = fuzz_args; break;
		case 'm': cfg.memory_mib = strtoul(optarg, NULL, 0); break;
		case 'w': cfg.workdir = optarg; break;
		case 't': cfg.timeout_s = strtoul(optarg, NULL, 0); break;
		case 'a': cfg.accel = optarg; break;
		case 'j': raw = true; break;
		case 'V': cfg.vfio = optarg; break;
		case 'M': modparams = commas(optarg); cfg.modparams = modparams; break;
		case 'A': cfg.append = optarg; break;
		case 'D': cfg.device_opts = optarg; break;
		case 'n': dry_run = true; break;
		case 'x': xml = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!cfg.qemu || !cfg.kernel || !cfg.initrd) {
		usage(stderr);
		return 2;
	}
	if (cfg.vfio && !valid_pci_address(cfg.vfio)) {
		fprintf(stderr, "ember-agent: --vfio %s: expected a PCI address DDDD:BB:SS.F\n",
			cfg.vfio);
		return 2;
	}
	if (dry_run || xml)
		return print_vm(&cfg, xml);

	if (em_vm_start(&vm, &cfg))
		return 1;
	em_vm_wait(&vm, &out);

	results = em_results_load(vm.results_path, &bad);
	if (!raw)
		printf("VM: profile %s, %s, %.1f s, QEMU exit %d%s\n", cfg.profile,
		       vm.cfg.accel, out.wall_s, out.exit_status,
		       out.timed_out ? " (timed out)" : "");
	json_array_foreach(results, i, obj) {
		if (raw) {
			/* ASCII: no control character reaches the terminal raw */
			char *line = json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII);

			puts(line);
			free(line);
		} else {
			print_result(obj);
		}
	}
	if (!raw)
		printf("logs: %s, %s\n", vm.console_path, vm.qemu_log_path);
	problem = em_vm_console_problem(vm.console_path);
	if (problem)
		fprintf(stderr, "ember-agent: console: %s\n", problem);
	if (out.cap_hit >= 0)
		fprintf(stderr, "ember-agent: the guest wrote past %s's cap of %" PRIu64
			" bytes: the VM was stopped\n", em_vm_cap_file(out.cap_hit),
			em_vm_cap_bytes(out.cap_hit));
	if (out.guest_errors)
		fprintf(stderr, "ember-agent: %u lines from the guest ignored (longer than "
			"%u bytes)\n", out.guest_errors, EM_VM_LINE_MAX);
	c = !results || out.timed_out || out.exit_status || problem || out.cap_hit >= 0 ||
	    !em_results_find(results, "boot", "end");
	if (c)
		fprintf(stderr, "ember-agent: the VM did not finish cleanly; see %s and %s\n",
			vm.console_path, vm.qemu_log_path);
	json_decref(results);
	free(run_args);
	free(fuzz_args);
	free(modparams);
	return c;
}

/* "A,B": two cpu_insn_ps values, distinct. */
static int parse_ps_pair(const char *arg, unsigned int ps[2])
{
	char *end;

	ps[0] = strtoul(arg, &end, 10);
	if (*end != ',')
		return -1;
	ps[1] = strtoul(end + 1, &end, 10);
	return *end || !ps[0] || !ps[1] || ps[0] == ps[1] ? -1 : 0;
}

/* One ubench VM of calibrate at cpu_insn_ps ps (0: the profile's) in dir. */
static int calibrate_vm(struct em_vm_config base, const char *dir, unsigned int ps,
			const char *ubench, json_t **device)
{
	char opts[64], *args = commas(ubench);
	int rc;

	base.workdir = dir;
	if (ps) {
		snprintf(opts, sizeof(opts), ",cpu-insn-ps=%u", ps);
		base.device_opts = opts;
	}
	base.ubench_args = args;
	rc = em_calibrate_run(&base, device);
	free(args);
	return rc;
}

static int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "card", required_argument, NULL, 'c' },
		{ "model", required_argument, NULL, 'M' },
		{ "qemu", required_argument, NULL, 'q' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "profile", required_argument, NULL, 'p' },
		{ "ubench", required_argument, NULL, 'u' },
		{ "workdir", required_argument, NULL, 'w' },
		{ "memory", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "accel", required_argument, NULL, 'a' },
		{ "driver-cost", required_argument, NULL, 'd' },
		{ "fit-cpu", required_argument, NULL, 'f' },
		{ "fit-models", required_argument, NULL, 'F' },
		{ 0 }
	};
	struct em_vm_config cfg = {
		.profile = "h200x16-2g",
		.scenarios = "",
		.workdir = "results/calibrate",
		.seed = 1,
		.memory_mib = 2048,
		.timeout_s = 900,
		.driver_cost = "measured",
	};
	const char *card = NULL, *model = NULL, *ubench = "-b 256m -r 3 -S 16m -S 64m -S 1g -H";
	char path[4200], dirs[2][4200], *fit_models = NULL, *comma;
	const char *models[2] = { dirs[0], dirs[1] };
	unsigned int ps[2] = { 0, 0 }, fitted = 0;
	json_t *device = NULL;
	bool measured;
	int c, rc, k;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c': card = optarg; break;
		case 'M': model = optarg; break;
		case 'q': cfg.qemu = optarg; break;
		case 'k': cfg.kernel = optarg; break;
		case 'i': cfg.initrd = optarg; break;
		case 'p': cfg.profile = optarg; break;
		case 'u': ubench = optarg; break;
		case 'w': cfg.workdir = optarg; break;
		case 'm': cfg.memory_mib = strtoul(optarg, NULL, 0); break;
		case 't': cfg.timeout_s = strtoul(optarg, NULL, 0); break;
		case 'a': cfg.accel = optarg; break;
		case 'd': cfg.driver_cost = optarg; break;
		case 'f':
			if (parse_ps_pair(optarg, ps)) {
				fprintf(stderr, "calibrate: --fit-cpu '%s': not A,B (two "
					"distinct cpu_insn_ps values in ps)\n", optarg);
				return 2;
			}
			break;
		case 'F': fit_models = optarg; break;
		default: usage(stderr); return 2;
		}
	}
	if (strcmp(cfg.driver_cost, "measured") && strcmp(cfg.driver_cost, "assumed")) {
		fprintf(stderr, "calibrate: --driver-cost '%s': measured or assumed\n",
			cfg.driver_cost);
		return 2;
	}
	measured = !strcmp(cfg.driver_cost, "measured");
	if (!card || (ps[0] && !measured) || (fit_models && (!ps[0] || !model)) ||
	    (!model && (!cfg.qemu || !cfg.kernel || !cfg.initrd))) {
		usage(stderr);
		return 2;
	}
	if (ps[0]) {
		/* the two runs the fit is drawn through, then the run at the fit */
		if (fit_models) {
			snprintf(dirs[0], sizeof(dirs[0]), "%s", fit_models);
			comma = strchr(dirs[0], ',');
			if (!comma) {
				usage(stderr);
				return 2;
			}
			*comma = '\0';
			snprintf(dirs[1], sizeof(dirs[1]), "%s", strchr(fit_models, ',') + 1);
		} else {
			for (k = 0; k < 2; k++) {
				snprintf(dirs[k], sizeof(dirs[k]), "%s/cpu-insn-ps-%u", cfg.workdir,
					 ps[k]);
				rc = calibrate_vm(cfg, dirs[k], ps[k], ubench, &device);
				json_decref(device);
				device = NULL;
				if (rc)
					return rc;
				strncat(dirs[k], "/results.jsonl", sizeof(dirs[k]) - strlen(dirs[k]) - 1);
			}
		}
		if (em_calibrate_fit_cpu(card, models, ps, stdout, &fitted))
			return 1;
		fflush(stdout);
	}
	if (!model) {
		rc = calibrate_vm(cfg, cfg.workdir, fitted, ubench, &device);
		if (rc)
			return rc;
		snprintf(path, sizeof(path), "%s/results.jsonl", cfg.workdir);
		model = path;
	}
	rc = em_calibrate_print(card, model, cfg.profile, measured, stdout);
	if (device && measured)
		em_calibrate_driver_cost(card, device, stdout);
	json_decref(device);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "vm"))
		return cmd_vm(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stats") || !strcmp(argv[1], "inject"))
		return cmd_qmp(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "agreement"))
		return cmd_agreement(argc - 1, argv + 1);
	if (!strcmp(argv[1], "calibrate"))
		return cmd_calibrate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "variants") && argc == 2) {
		em_variants_markdown(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "inject-expect") && argc == 2) {
		printf("Under ember.ko:\n\n");
		em_inject_expect_markdown(EM_DRIVER_EMBER, stdout);
		printf("\nUnder nvidia-uvm:\n\n");
		em_inject_expect_markdown(EM_DRIVER_NVIDIA_UVM, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "modparams") && argc == 2) {
		em_modparams_markdown(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "result-fields") && argc == 2) {
		em_result_fields_markdown(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "guest-caps") && argc == 2) {
		em_vm_caps_markdown(stdout);
		return 0;
	}
	fprintf(stderr, "ember-agent: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
