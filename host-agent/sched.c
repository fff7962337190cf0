// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "sched.h"

#include <stdio.h>
#include <unistd.h>

bool em_run_finished(const struct em_run *r)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	return access(path, F_OK) == 0;
}

unsigned int em_matrix_jobs(const struct em_matrix *m)
{
	long cores;

	if (m->jobs)
		return m->jobs;
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 ? (unsigned int)cores : 1;
}

/*
 * Starts runs in plan order while the back-end has room; a run that does
 * not start counts as failed (recorded as an error where the back-end
 * records start failures). Returns how many are running now.
 */
static size_t fill(const struct em_matrix *m, struct em_run *runs, size_t n,
		   const char *commit, struct em_backend *be,
		   volatile sig_atomic_t *interrupted, size_t *next, size_t running,
		   size_t *done, int *failed)
{
	while (!*interrupted && *next < n && be->ops->has_room(be)) {
		struct em_run *r = &runs[(*next)++];
		const char *host = "local";

		if (em_run_finished(r))
			continue;
		if (be->ops->start(be, r, &host)) {
			(*failed)++;
			if (be->ops->record_start_failure) {
				struct em_run_outcome o = { .exit_status = -1, .host = host };

				em_run_record(m, r, commit, "/nonexistent", &o);
				(*done)++;
			}
			continue;
		}
		running++;
	}
	return running;
}

int em_schedule(const struct em_matrix *m, struct em_run *runs, size_t n,
		const char *commit, size_t done, struct em_backend *be,
		volatile sig_atomic_t *interrupted)
{
	size_t next = 0, running = 0;
	int failed = 0;

	em_run_progress(done, n, 0, NULL, NULL, 0);
	while (!*interrupted && (next < n || running)) {
		struct em_run_outcome o;
		const char *results_path, *status;
		struct em_run *r;

		running = fill(m, runs, n, commit, be, interrupted, &next, running, &done,
			       &failed);
		if (!running)
			break;
		r = be->ops->wait(be, interrupted, &o, &results_path);
		if (!r)
			break;
		status = em_run_record(m, r, commit, results_path, &o);
		if (!em_status_acceptable(status))
			failed++;
		done++;
		running--;
		em_run_progress(done, n, running, r, status, o.wall_s);
		be->ops->release(be, r);
	}
	if (*interrupted) {
		be->ops->stop_all(be);
		fprintf(stderr, "\nember-agent: interrupted; %zu runs finished, rerun to resume\n",
			done);
		failed = -1;
	}
	return failed;
}
