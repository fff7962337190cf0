/* SPDX-License-Identifier: MIT */
/*
 * The one scheduler of a matrix's runs, over a back-end that boots their
 * VMs: QEMU started here (run_qemu.c) or libvirt domains on one or more
 * hosts (libvirt_run.c). The scheduler owns the job queue (the runs in
 * plan order), resume (a run whose result.json exists is skipped),
 * parallelism (as many as the back-end has room for), recording (each
 * finished run's result.json, em_run_record) and progress; a back-end only
 * starts a run, says when one ended and how, and stops what runs when the
 * matrix is interrupted. A failed run is not retried within a matrix: it
 * keeps its result.json and logs, and `make run-clean` starts it over. A
 * run whose host went away (a libvirt host that died or dropped its
 * connection) did not fail: it is not recorded, goes back to the queue and
 * runs again on a live host, so every run is recorded exactly once; the
 * dead host gets no more runs.
 *
 * One direction only: the matrix (matrix.c) plans runs and calls the
 * scheduler; the scheduler and its back-ends take runs (run.h) and call
 * the judge (judge.h), never the matrix.
 */
#ifndef EMBER_AGENT_SCHED_H
#define EMBER_AGENT_SCHED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "run.h"

/* parallel VMs of one matrix at most (its key jobs) */
#define EM_MAX_JOBS	32

struct em_backend;

struct em_backend_ops {
	/* Whether another run can start now (a free slot, a host with room). */
	bool (*has_room)(const struct em_backend *be);
	/*
	 * Starts run r (its args already comma-separated). Returns 0, or -1
	 * with a message on stderr and *host naming where it was tried, or
	 * EM_START_HOST_LOST when that host turned out dead (the run is
	 * queued again, nothing recorded).
	 */
	int (*start)(struct em_backend *be, struct em_run *r, const char **host);
	/*
	 * Waits until a started run ends and returns it, with how it ended
	 * and the guest's results file; NULL when none runs, or when
	 * *interrupted is set (a back-end that polls looks at it; one whose
	 * VMs die with the signal returns them). o->host_lost: the run's host
	 * went away before it ended (nothing to record; release() it).
	 */
	struct em_run *(*wait)(struct em_backend *be, volatile sig_atomic_t *interrupted,
			       struct em_run_outcome *o, const char **results_path);
	/* Frees the slot of the run wait() returned, once it is recorded. */
	void (*release)(struct em_backend *be, struct em_run *r);
	/* Stops every run still going (the matrix was interrupted). */
	void (*stop_all)(struct em_backend *be);
	void (*close)(struct em_backend *be);
	/*
	 * Whether a run that did not start is recorded (status error, host
	 * named) or left to do: a libvirt host that refuses a domain is
	 * worth a line in the results; QEMU that cannot start here is this
	 * host's trouble, so a rerun tries the run again.
	 */
	bool record_start_failure;
};

/* em_backend_ops.start: the host is gone, run r elsewhere */
#define EM_START_HOST_LOST	(-2)

struct em_backend {
	const struct em_backend_ops *ops;
	void *state;		/* the back-end's own */
};

/*
 * The back-ends, running up to jobs VMs at once (on each host: libvirt's
 * nuris connection URIs). Each returns 0, or -1 after a message when it
 * cannot run anything (no libvirt host reachable, a path that does not
 * resolve).
 */
int em_qemu_backend_open(struct em_backend *be, unsigned int jobs, const struct em_paths *p);
int em_libvirt_backend_open(struct em_backend *be, const char *const *uris,
			    unsigned int nuris, unsigned int jobs, const struct em_paths *p);

/*
 * Runs the runs not finished yet (done of n are; of one matrix or several,
 * each recorded in its own folder, run->dir) on be; returns how many
 * did not succeed (runs left unrun because no host is left count too),
 * or -1 when interrupted (every running VM stopped).
 */
int em_schedule(struct em_run *runs, size_t n, const char *commit, size_t done,
		struct em_backend *be, volatile sig_atomic_t *interrupted);

/* Whether run r finished in an earlier invocation (its result.json exists). */
bool em_run_finished(const struct em_run *r);

#endif /* EMBER_AGENT_SCHED_H */
