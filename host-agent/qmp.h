/* SPDX-License-Identifier: MIT */
/*
 * A small QMP client (QEMU Machine Protocol over a unix socket), built on
 * jansson. One exchange is a connection, the capabilities negotiated, and
 * commands answered in order; asynchronous events between replies are
 * skipped. Nothing in it blocks: em_qmp_step() does what the socket allows
 * now, so a caller's poll loop drives an exchange beside everything else
 * it watches (the VMs' wait loop does, at a guest's hold), and the whole
 * exchange ends, failed, at its deadline whatever QEMU does or does not
 * send. em_qmp_connect() and em_qmp_execute() are the same exchange
 * driven to its end in place, for callers that have nothing else to do.
 */
#ifndef EMBER_AGENT_QMP_H
#define EMBER_AGENT_QMP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* A reply QEMU does not send within this time means it is stuck. */
#define EM_QMP_REPLY_TIMEOUT_S	30
/* A message from QEMU longer than this ends the exchange (a stats object is kilobytes). */
#define EM_QMP_MESSAGE_MAX	(1u << 20)

enum em_qmp_state {
	EM_QMP_CONNECTING,	/* the socket may not exist yet: retried */
	EM_QMP_GREETING,	/* waiting for {"QMP":...} */
	EM_QMP_CAPABILITIES,	/* qmp_capabilities sent */
	EM_QMP_READY,		/* commands sent one at a time, each answered */
	EM_QMP_FAILED,		/* err says why; the connection is closed */
};

struct em_qmp {
	int fd;
	enum em_qmp_state state;
	char path[108];		/* sun_path */
	double deadline;	/* monotonic seconds: past it the exchange fails */
	json_t *pending;	/* commands not answered yet, in order */
	char *out;		/* the command being written */
	size_t out_len, out_off;
	bool awaiting;		/* pending[0] is sent; its reply is next */
	json_t *replies;	/* every reply so far, in order: {"return"} or {"error"} */
	char *in;		/* a message being received */
	size_t in_len, in_cap;
	char err[256];
};

/*
 * Starts an exchange with the QMP socket at path that must end by
 * deadline (monotonic seconds, em_qmp_now()). Never blocks; a failure
 * (a path too long) leaves the exchange failed, err saying why.
 */
void em_qmp_open(struct em_qmp *q, const char *path, double deadline);
/* Queues cmd with args (a JSON object, stolen; may be NULL). */
void em_qmp_queue(struct em_qmp *q, const char *cmd, json_t *args);
/*
 * Advances the exchange as far as the socket allows without blocking.
 * Returns true once it is over: every queued command answered, or failed
 * (err), the deadline passed included.
 */
bool em_qmp_step(struct em_qmp *q, double now);
/* The poll(2) events the exchange waits for on q->fd; 0: none (it retries on a timer). */
short em_qmp_events(const struct em_qmp *q);
/*
 * The "return" value of the i-th reply (borrowed), or NULL with QEMU's
 * error description, or why no reply came, in err.
 */
json_t *em_qmp_reply(const struct em_qmp *q, size_t i, char *err, size_t errlen);
/* Ends the exchange: the socket closed, everything freed. */
void em_qmp_close(struct em_qmp *q);
double em_qmp_now(void);

/*
 * Connects to the QMP socket at path, retrying for up to timeout_ms while
 * QEMU creates it, and leaves command mode negotiated, waiting in place.
 * Returns 0 or -errno with a message in err.
 */
int em_qmp_connect(struct em_qmp *q, const char *path, unsigned int timeout_ms,
		   char *err, size_t errlen);

/*
 * Executes cmd with args (a JSON object, stolen; may be NULL), waiting in
 * place up to EM_QMP_REPLY_TIMEOUT_S. Returns the "return" value (a new
 * reference), or NULL with QEMU's error description (or the I/O failure)
 * in err.
 */
json_t *em_qmp_execute(struct em_qmp *q, const char *cmd, json_t *args,
		       char *err, size_t errlen);

#endif /* EMBER_AGENT_QMP_H */
