// SPDX-License-Identifier: MIT
/*
 * make calibrate's report (em_calibrate_print() in host-agent/calibrate.c)
 * on card and testbed lines written here, no VM: per row the card's median
 * over sessions of each session's median, its spread, the tolerance
 * max(spread, 25 %) and which it was, fitted and held-out rows apart with
 * their counts, a line copied between card files counted once, and the
 * table of what each constant was fitted on; em_calibrate_fit_cpu() on
 * two runs whose rows lie on known lines, and the driver's cost per batch
 * and per fault from device stats.
 *
 * usage: test-calibrate WORKDIR
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calibrate.h"

#define MIB (1024.0 * 1024)

/* GB/s rows of 256 MiB: seconds for a rate of gbps */
#define RATE_LINE(bench, buffer, gbps)					\
	"{\"bench\":\"" bench "\",\"buffer\":" #buffer ",\"bytes\":" #buffer \
	",\"seconds\":0.01,\"gbps\":" #gbps "}\n"
#define TIME_LINE(bench, us)						\
	"{\"bench\":\"" bench "\",\"buffer\":2097152,\"bytes\":4,"	\
	"\"seconds\":" #us "e-6,\"gbps\":0.001}\n"

/*
 * Three sessions. prefetch 40, 50, 60 GB/s (spread 40 %); launch 6 and
 * 8 us in session a (its median 7), 6 and 7.5 in b and c (spread 21 %);
 * fault_seq at 128 MiB 6, 7, 8 GB/s (spread 29 %); mapped_reuse_16m in c
 * alone. Session d has a fault_random row of its own, then a copy of
 * a's prefetch line, which "d.jsonl:2" leaves out (not a fourth session's
 * row). b's launch line is a's first, character for character: two
 * sessions can measure the same value.
 */
static const char *const sessions[][2] = {
	{ "a.jsonl",
	  "# session a\n"
	  "{\"device\":\"NVIDIA H200\",\"bytes\":268435456}\n"
	  RATE_LINE("prefetch", 268435456, 40)
	  TIME_LINE("launch", 6) TIME_LINE("launch", 8)
	  RATE_LINE("fault_seq", 134217728, 6) },
	{ "b.jsonl",
	  RATE_LINE("prefetch", 268435456, 50) TIME_LINE("launch", 6)
	  RATE_LINE("fault_seq", 134217728, 7) },
	{ "c.jsonl",
	  RATE_LINE("prefetch", 268435456, 60) TIME_LINE("launch", 7.5)
	  RATE_LINE("fault_seq", 134217728, 8)
	  RATE_LINE("mapped_reuse_16m", 268435456, 26) },
	{ "d.jsonl:2",
	  RATE_LINE("fault_random", 268435456, 2)
	  "# a copy of a's prefetch line\n"
	  RATE_LINE("prefetch", 268435456, 40) },
};

/*
 * The testbed: prefetch +36 % (inside its 40 % spread), launch +30 %
 * (outside 25 %), fault_random -10 %, fault_seq 128 MiB +20 %,
 * mapped_reuse_16m -23 %, hbm_read with no card row (left out), and
 * prefetch a second time (printed once).
 */
static const char model[] =
	"{\"scenario\":\"boot\",\"event\":\"end\"}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"hbm_read\",\"buffer\":268435456,\"gbps\":4000}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"prefetch\",\"buffer\":268435456,\"gbps\":68}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"fault_random\",\"buffer\":268435456,\"gbps\":1.8}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"launch\",\"buffer\":2097152,\"seconds\":9.1e-6}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"fault_seq\",\"buffer\":134217728,\"gbps\":8.4}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"mapped_reuse_16m\",\"buffer\":268435456,\"gbps\":20}\n"
	"{\"scenario\":\"ubench\",\"bench\":\"prefetch\",\"buffer\":268435456,\"gbps\":68}\n";

static const char *const expected[] = {
	"fitted rows (a constant of models/src/profile.c was set from each):",
	"prefetch            256 MiB   GB/s     50.00    3    40%     68.00   +36%  40% spread fitted (ce_setup_ns drv_pte_update_ns)",
	"fault_random        256 MiB   GB/s      2.00    1     0%      1.80   -10%  25% 25%    fitted (drv_fault_block_ns)",
	"launch                2 MiB     us      7.00    3    21%      9.10   +30%  25% 25%    fitted (launch_ns)  <-",
	"fitted: 2 of 3 within tolerance (1 within 25% alone)",
	"held-out rows (no constant was fitted on them):",
	"fault_seq           128 MiB   GB/s      7.00    3    29%      8.40   +20%  29% spread held-out",
	"mapped_reuse_16m    256 MiB   GB/s     26.00    1     0%     20.00   -23%  25% 25%    held-out",
	"held-out: 2 of 2 within tolerance (2 within 25% alone)",
	"fitted: 2 of 3 within tolerance; held-out: 2 of 2",
};

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0) {
		perror(path);
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* line, whole, somewhere in out; says which */
static int line_in(const char *out, const char *line)
{
	const char *p = out;
	size_t len = strlen(line);
	int found = 0;

	while ((p = strstr(p, line))) {
		if ((p == out || p[-1] == '\n') && (p[len] == '\n' || !p[len])) {
			found = 1;
			break;
		}
		p += len;
	}
	printf("%s: %s\n", found ? "ok" : "FAIL: missing", line);
	return found;
}

/* Each expected line, whole, somewhere in out; 0 when all are there. */
static int check_lines(const char *out)
{
	int fails = 0;
	size_t i;

	for (i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		fails += !line_in(out, expected[i]);
	return fails;
}

/* A 256 MiB row of bench taking us microseconds. */
#define US_LINE(bench, buffer, us)					\
	"{\"scenario\":\"ubench\",\"bench\":\"" bench "\",\"buffer\":" #buffer \
	",\"seconds\":" #us "e-6}\n"
#define GBPS_LINE(bench, buffer, gbps)					\
	"{\"scenario\":\"ubench\",\"bench\":\"" bench "\",\"buffer\":" #buffer \
	",\"gbps\":" #gbps "}\n"

/*
 * cpu_insn_ps: runs at 100 and 200 ps whose fitted rows all meet the card
 * at 150 ps (fault_latency 40 -> 60 us, card 50; fault_parallel at 256 MiB
 * 20 -> 40 ms, card 30; fault_seq 10 -> 10/3 GB/s, card 5, whose time is
 * linear), a held-out row 10 % under the card there (fault_parallel at
 * 64 MiB, 8 -> 10 ms, card 10), and launch, which the constant does not
 * move (left out).
 */
static const char cpu_card[] =
	US_LINE("fault_latency", 2097152, 50) US_LINE("fault_parallel", 268435456, 30000)
	GBPS_LINE("fault_seq", 268435456, 5) US_LINE("fault_parallel", 67108864, 10000)
	US_LINE("launch", 2097152, 7);
static const char cpu_run_a[] =
	US_LINE("fault_latency", 2097152, 40) US_LINE("fault_parallel", 268435456, 20000)
	GBPS_LINE("fault_seq", 268435456, 10) US_LINE("fault_parallel", 67108864, 8000)
	US_LINE("launch", 2097152, 7);
static const char cpu_run_b[] =
	US_LINE("fault_latency", 2097152, 60) US_LINE("fault_parallel", 268435456, 40000)
	GBPS_LINE("fault_seq", 268435456, 3.3333333333333) US_LINE("fault_parallel", 67108864, 10000)
	US_LINE("launch", 2097152, 7);

static const char *const cpu_expected[] = {
	"rows the constant does not move, left out: 1",
	"fault_latency         2 MiB     us     50.00     0%     40.00     60.00     50.00    +0%  25%",
	"fault_parallel       64 MiB     us  10000.00     0%   8000.00  10000.00   9000.00   -10%  25%",
	"fitted: 3 of 3 within tolerance (3 within 25% alone)",
	"held-out: 1 of 1 within tolerance (1 within 25% alone)",
	"cpu_insn_ps fitted: 150 ps (least squares 150.0); fitted: 3 of 3 within tolerance; held-out: 1 of 1",
};

static int check_cpu_fit(const char *dir)
{
	char card[4096], a[4096], b[4096], *out = NULL;
	const char *models[2] = { a, b };
	const unsigned int ps[2] = { 100, 200 };
	unsigned int fitted = 0;
	json_t *device;
	size_t len = 0, i;
	int fails = 0, rc;
	FILE *f;

	snprintf(card, sizeof(card), "%s/cpu-card.jsonl", dir);
	snprintf(a, sizeof(a), "%s/cpu-100.jsonl", dir);
	snprintf(b, sizeof(b), "%s/cpu-200.jsonl", dir);
	if (write_file(card, cpu_card) || write_file(a, cpu_run_a) || write_file(b, cpu_run_b))
		return 1;
	f = open_memstream(&out, &len);
	if (!f)
		return 1;
	rc = em_calibrate_fit_cpu(card, models, ps, f, &fitted);
	/*
	 * 3e9 instructions charged 450 ms (150 ps each) in 1000 batches (900
	 * replays, 100 cancels), 20000 entries
	 */
	device = json_pack("{s:I,s:I,s:i,s:i,s:i}", "cpu_insns_fault", (json_int_t)3000000000LL,
			   "cpu_ns_fault", (json_int_t)450000000LL, "replays", 900, "cancels", 100,
			   "fault_entries", 20000);
	em_calibrate_driver_cost(card, device, f);
	json_decref(device);
	fclose(f);
	fputs(out, stdout);
	if (rc || fitted != 150) {
		printf("FAIL: em_calibrate_fit_cpu returned %d, fitted %u ps, expected 0, 150\n", rc,
		       fitted);
		fails++;
	}
	for (i = 0; i < sizeof(cpu_expected) / sizeof(cpu_expected[0]); i++)
		fails += !line_in(out, cpu_expected[i]);
	/* 3e6 instructions a batch at 150 ps: 450 us; 150000 a fault: 22.5 us */
	fails += !line_in(out, "  per batch    3000000 instructions     450.00 us");
	fails += !line_in(out, "  per fault     150000 instructions      22.50 us");
	fails += !line_in(out, "  the card's fault_latency (one isolated fault, 2 MiB): 50.00 us "
			  "(1 sessions, spread 0%)");
	free(out);
	/* one run twice: nothing moves, no fit */
	f = fopen("/dev/null", "w");
	models[1] = a;
	rc = em_calibrate_fit_cpu(card, models, ps, f, &fitted);
	fclose(f);
	if (rc != -1) {
		printf("FAIL: two equal runs returned %d, expected -1\n", rc);
		fails++;
	}
	return fails;
}

static int check_fit_table(void)
{
	static const struct {
		const char *bench;
		double buffer;
		const char *fitted_on;	/* NULL: held out */
	} cases[] = {
		{ "fault_seq", 64 * MIB, "fault_service_ns drv_fault_page_ns" },
		{ "fault_seq", 128 * MIB, NULL },
		{ "fault_seq", 512 * MIB, NULL },
		{ "prefetch", 256 * MIB, "ce_setup_ns drv_pte_update_ns" },
		{ "prefetch", 64 * MIB, NULL },
		{ "fault_parallel", 1024 * MIB, NULL },
		{ "mapped_reuse_4k", 64 * MIB, "no-sysmem-cache" },
		{ "mapped_reuse_16m", 256 * MIB, NULL },
		{ "fault_random_sparse", 256 * MIB, NULL },
		{ "static_half", 256 * MIB, NULL },
		{ "prefetch_advised", 256 * MIB, NULL },
		{ "hbm_read", 4096 * MIB, "vram_bw_mbps warp_mlp" },
	};
	const char *by, *got;
	int fails = 0;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = em_calibrate_fitted_on(cases[i].bench, cases[i].buffer, false);
		if (!got != !cases[i].fitted_on ||
		    (got && strcmp(got, cases[i].fitted_on))) {
			printf("FAIL: %s at %.0f MiB fitted on '%s', expected '%s'\n",
			       cases[i].bench, cases[i].buffer / MIB, got ? got : "(held out)",
			       cases[i].fitted_on ? cases[i].fitted_on : "(held out)");
			fails++;
		} else {
			printf("ok: %s at %.0f MiB: %s\n", cases[i].bench,
			       cases[i].buffer / MIB, got ? got : "held-out");
		}
	}
	/* under the measured rule cpu_insn_ps stands where drv_* stood */
	static const struct {
		const char *bench;
		double buffer;
		const char *fitted_on;
	} measured[] = {
		{ "fault_seq", 64 * MIB, "fault_service_ns cpu_insn_ps" },
		{ "fault_latency", 2 * MIB, "cpu_insn_ps" },
		{ "prefetch", 256 * MIB, "ce_setup_ns" },
		{ "prefetch_to_host", 256 * MIB, NULL },
		{ "gpu_first_touch", 256 * MIB, NULL },
		{ "hbm_read", 256 * MIB, "vram_bw_mbps warp_mlp" },
	};

	for (i = 0; i < sizeof(measured) / sizeof(measured[0]); i++) {
		got = em_calibrate_fitted_on(measured[i].bench, measured[i].buffer, true);
		if (!got != !measured[i].fitted_on ||
		    (got && strcmp(got, measured[i].fitted_on))) {
			printf("FAIL: measured: %s at %.0f MiB fitted on '%s', expected '%s'\n",
			       measured[i].bench, measured[i].buffer / MIB,
			       got ? got : "(held out)",
			       measured[i].fitted_on ? measured[i].fitted_on : "(held out)");
			fails++;
		} else {
			printf("ok: measured: %s at %.0f MiB: %s\n", measured[i].bench,
			       measured[i].buffer / MIB, got ? got : "held-out");
		}
	}
	/* exactly 25 % is the floor's; just above it the spread's */
	if (em_calibrate_tolerance(0.25, &by) != 0.25 || strcmp(by, "25%") ||
	    em_calibrate_tolerance(0.30, &by) != 0.30 || strcmp(by, "spread") ||
	    em_calibrate_tolerance(0, &by) != 0.25 || strcmp(by, "25%")) {
		printf("FAIL: tolerance is not max(spread, 25%%)\n");
		fails++;
	} else {
		printf("ok: tolerance max(spread, 25%%), by the floor at 25%% exactly\n");
	}
	return fails;
}

int main(int argc, char **argv)
{
	char path[4096], cards[4 * 4096 + 4] = "", *out = NULL;
	size_t i, len = 0;
	int fails = 0, rc;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: test-calibrate WORKDIR\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	for (i = 0; i < sizeof(sessions) / sizeof(sessions[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], sessions[i][0]);
		if (i)
			strcat(cards, ",");
		strcat(cards, path);
		*strchrnul(path, ':') = '\0';	/* the file itself */
		if (write_file(path, sessions[i][1]))
			return 1;
	}
	snprintf(path, sizeof(path), "%s/model.jsonl", argv[1]);
	if (write_file(path, model))
		return 1;

	f = open_memstream(&out, &len);
	if (!f)
		return 1;
	rc = em_calibrate_print(cards, path, "h200x16-2g", false, f);
	fclose(f);
	fputs(out, stdout);
	fails += check_lines(out);
	if (rc != 1) {
		printf("FAIL: returned %d, expected 1 (launch outside its tolerance)\n", rc);
		fails++;
	}
	if (!strstr(out, "(4 sessions: ")) {
		printf("FAIL: four card files are four sessions\n");
		fails++;
	}
	free(out);

	/* a card file that is not there, or a malformed line count: -1 */
	f = fopen("/dev/null", "w");
	rc = em_calibrate_print("/nonexistent/card.jsonl", path, "h200x16-2g", false, f);
	if (rc != -1) {
		printf("FAIL: a missing card file returned %d, expected -1\n", rc);
		fails++;
	}
	snprintf(cards, sizeof(cards), "%s/a.jsonl:x", argv[1]);
	rc = em_calibrate_print(cards, path, "h200x16-2g", false, f);
	fclose(f);
	if (rc != -1) {
		printf("FAIL: 'a.jsonl:x' returned %d, expected -1\n", rc);
		fails++;
	}
	fails += check_fit_table();
	fails += check_cpu_fit(argv[1]);
	printf("%s: %d failed\n", fails ? "FAIL" : "ok", fails);
	return fails ? 1 : 0;
}
