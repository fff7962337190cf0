// SPDX-License-Identifier: MIT
/*
 * Running matrices: each planned (matrix.c) and checked before any VM
 * boots, resumed where an earlier invocation stopped, their runs handed to
 * the scheduler (sched.c) as one pool, and each matrix's results merged
 * into results.jsonl and results.csv at the end.
 */
#define _GNU_SOURCE
#include "matrix.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "result_record.h"
#include "sched.h"

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

/*
 * Matrix m's runs, planned and checked before any VM boots: *n runs, *done
 * of them finished by an earlier invocation. Returns 0, -1 (out of memory,
 * or a campaign with connect), or -2 (refused: a missing image).
 */
static int prepare_matrix(const struct em_matrix *m, const struct em_paths *p,
			  const char *commit, struct em_run **runsp, size_t *n, size_t *done)
{
	size_t i, skipped = 0, other_commit = 0;
	struct em_run *runs = em_matrix_plan(m, p, n);

	*runsp = NULL;
	if (!runs)
		return -1;
	if (em_matrix_has_nvuvm(m) && !p->initrd_nvidia_uvm) {
		fprintf(stderr, "ember-agent: %s: driver nvidia-uvm needs the nvidia-uvm image "
			"(--nvidia-uvm-initrd, make image-nvidia-uvm); no VM started\n", m->name);
		free(runs);
		return -2;
	}
	if (em_matrix_check_images(m, p)) {
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

/* The parallel VMs of a matrix: its jobs, or one per core. */
static unsigned int jobs(const struct em_matrix *m)
{
	long cores;

	if (m->jobs)
		return m->jobs;
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 ? (unsigned int)cores : 1;
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
	const char *uris[EM_MAX_LIST];
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
	for (k = 0; k < ms[0].nconnect; k++)
		uris[k] = ms[0].connect[k];
	if (ms[0].nconnect ? em_libvirt_backend_open(&be, uris, ms[0].nconnect, jobs(&ms[0]), p) :
			     em_qemu_backend_open(&be, jobs(&ms[0]), p)) {
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
