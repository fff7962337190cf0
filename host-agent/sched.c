// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "judge.h"

bool em_run_finished(const struct em_run *r)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/result.json", r->dir);
	return access(path, F_OK) == 0;
}

/* One matrix's scheduling: the queue, what runs, and the counts. */
struct sched {
	struct em_run *runs;
	size_t n;
	const char *commit;
	struct em_backend *be;
	size_t next;		/* the next run of the plan to start */
	/* runs whose host went away, to start again before the plan's next */
	struct em_run **requeued;
	size_t nrequeued;
	size_t running, done;
	int failed;
};

/* The next run to start, or NULL: a requeued one first, then the plan's. */
static struct em_run *next_run(struct sched *s)
{
	while (s->nrequeued || s->next < s->n) {
		struct em_run *r = s->nrequeued ? s->requeued[--s->nrequeued] :
				   &s->runs[s->next++];

		if (!em_run_finished(r))
			return r;
	}
	return NULL;
}

/* Whether runs are left to start. */
static bool work_left(const struct sched *s)
{
	return s->nrequeued || s->next < s->n;
}

/*
 * Starts runs while the back-end has room; a run that does not start
 * counts as failed (recorded as an error where the back-end records start
 * failures), one whose host turned out dead goes back to the queue.
 */
static void fill(struct sched *s, volatile sig_atomic_t *interrupted)
{
	struct em_backend *be = s->be;

	while (!*interrupted && work_left(s) && be->ops->has_room(be)) {
		struct em_run *r = next_run(s);
		const char *host = "local";
		int err;

		if (!r)
			break;
		err = be->ops->start(be, r, &host);
		if (err == EM_START_HOST_LOST) {
			fprintf(stderr, "ember-agent: %s: its host %s went away as it "
				"started; it runs again elsewhere\n", r->id, host);
			s->requeued[s->nrequeued++] = r;
			continue;
		}
		if (err) {
			s->failed++;
			if (be->ops->record_start_failure) {
				struct em_run_outcome o = { .exit_status = -1, .host = host };

				em_run_record(r, s->commit, "/nonexistent", &o);
				s->done++;
			}
			continue;
		}
		s->running++;
	}
}

/* The runs not started because no host is left, counted as failed. */
static void count_unrun(struct sched *s)
{
	size_t left = 0;

	while (next_run(s))
		left++;
	if (!left)
		return;
	fprintf(stderr, "ember-agent: no host left to run on; %zu runs not run "
		"(rerun to resume)\n", left);
	s->failed += (int)left;
}

int em_schedule(struct em_run *runs, size_t n, const char *commit, size_t done,
		struct em_backend *be, volatile sig_atomic_t *interrupted)
{
	struct sched s = {
		.runs = runs, .n = n, .commit = commit, .be = be, .done = done,
		/* a run is requeued at most once at a time: n slots suffice */
		.requeued = calloc(n ? n : 1, sizeof(*s.requeued)),
	};

	if (!s.requeued) {
		fprintf(stderr, "ember-agent: out of memory\n");
		return -1;
	}
	em_run_progress(s.done, n, 0, NULL, NULL, 0);
	while (!*interrupted && (work_left(&s) || s.running)) {
		struct em_run_outcome o;
		const char *results_path, *status;
		struct em_run *r;

		fill(&s, interrupted);
		if (!s.running) {
			count_unrun(&s);
			break;
		}
		r = be->ops->wait(be, interrupted, &o, &results_path);
		if (!r)
			break;
		s.running--;
		if (o.host_lost) {
			/* not a result: the run starts again on a live host */
			fprintf(stderr, "ember-agent: %s: its host %s went away after "
				"%.1f s; it runs again elsewhere\n", r->id, o.host, o.wall_s);
			be->ops->release(be, r);
			s.requeued[s.nrequeued++] = r;
			continue;
		}
		status = em_run_record(r, commit, results_path, &o);
		if (!em_status_acceptable(status))
			s.failed++;
		s.done++;
		em_run_progress(s.done, n, s.running, r, status, o.wall_s);
		be->ops->release(be, r);
	}
	if (*interrupted) {
		be->ops->stop_all(be);
		fprintf(stderr, "\nember-agent: interrupted; %zu runs finished, rerun to resume\n",
			s.done);
		s.failed = -1;
	}
	free(s.requeued);
	return s.failed;
}
