// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "qmp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

double em_qmp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Ends the exchange as failed; the first reason is kept. */
static void fail(struct em_qmp *q, const char *fmt, ...)
{
	va_list ap;

	if (q->state != EM_QMP_FAILED) {
		va_start(ap, fmt);
		vsnprintf(q->err, sizeof(q->err), fmt, ap);
		va_end(ap);
	}
	q->state = EM_QMP_FAILED;
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

void em_qmp_open(struct em_qmp *q, const char *path, double deadline)
{
	memset(q, 0, sizeof(*q));
	q->fd = -1;
	q->deadline = deadline;
	q->state = EM_QMP_CONNECTING;
	q->pending = json_array();
	q->replies = json_array();
	if (strlen(path) >= sizeof(q->path))
		fail(q, "QMP socket path too long: %s", path);
	else
		strcpy(q->path, path);
}

void em_qmp_queue(struct em_qmp *q, const char *cmd, json_t *args)
{
	json_t *req = json_pack("{s:s}", "execute", cmd);

	if (args)
		json_object_set_new(req, "arguments", args);
	json_array_append_new(q->pending, req);
}

/* One try: QEMU may not have created the socket yet, or its backlog is full. */
static void try_connect(struct em_qmp *q)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	strcpy(sa.sun_path, q->path);
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (q->fd < 0) {
		fail(q, "QMP socket: %s", strerror(errno));
		return;
	}
	if (!connect(q->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		q->state = EM_QMP_GREETING;
		return;
	}
	if (errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN) {
		fail(q, "cannot connect to QMP at %s: %s", q->path, strerror(errno));
		return;
	}
	close(q->fd);
	q->fd = -1;
}

/* Starts writing req (the capabilities or pending[0]). */
static void send_request(struct em_qmp *q, json_t *req)
{
	char *text = json_dumps(req, JSON_COMPACT);

	if (!text) {
		fail(q, "cannot encode a QMP command");
		return;
	}
	free(q->out);
	if (asprintf(&q->out, "%s\n", text) < 0) {
		q->out = NULL;
		fail(q, "out of memory");
	}
	free(text);
	q->out_len = q->out ? strlen(q->out) : 0;
	q->out_off = 0;
}

static void write_some(struct em_qmp *q)
{
	ssize_t n;

	while (q->out && q->out_off < q->out_len) {
		n = send(q->fd, q->out + q->out_off, q->out_len - q->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				fail(q, "QMP write: %s", strerror(errno));
			return;
		}
		q->out_off += (size_t)n;
	}
	free(q->out);
	q->out = NULL;
}

/* What one complete message from QEMU means in the exchange's state. */
static void take_message(struct em_qmp *q, json_t *msg)
{
	if (json_object_get(msg, "event"))
		return;
	switch (q->state) {
	case EM_QMP_GREETING: {
		json_t *caps;

		if (!json_object_get(msg, "QMP")) {
			fail(q, "no QMP greeting on %s", q->path);
			return;
		}
		q->state = EM_QMP_CAPABILITIES;
		caps = json_pack("{s:s}", "execute", "qmp_capabilities");
		send_request(q, caps);
		json_decref(caps);
		return;
	}
	case EM_QMP_CAPABILITIES:
		if (!json_object_get(msg, "return")) {
			fail(q, "QMP refused qmp_capabilities");
			return;
		}
		q->state = EM_QMP_READY;
		return;
	case EM_QMP_READY:
		if (!q->awaiting) {
			fail(q, "a QMP reply to no command");
			return;
		}
		json_array_append(q->replies, msg);
		json_array_remove(q->pending, 0);
		q->awaiting = false;
		return;
	default:
		return;
	}
}

/* Reads what QEMU sent and takes each complete line. */
static void read_some(struct em_qmp *q)
{
	char buf[4096];
	ssize_t n, i;

	while (q->state != EM_QMP_FAILED) {
		n = recv(q->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0) {
			fail(q, "QMP connection closed");
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				fail(q, "QMP read: %s", strerror(errno));
			return;
		}
		for (i = 0; i < n && q->state != EM_QMP_FAILED; i++) {
			json_t *msg;

			if (buf[i] != '\n') {
				if (q->in_len + 1 >= EM_QMP_MESSAGE_MAX) {
					fail(q, "a QMP message over %u bytes", EM_QMP_MESSAGE_MAX);
					return;
				}
				if (q->in_len + 1 >= q->in_cap) {
					size_t cap = q->in_cap ? q->in_cap * 2 : 4096;
					char *in = realloc(q->in, cap);

					if (!in) {
						fail(q, "out of memory");
						return;
					}
					q->in = in;
					q->in_cap = cap;
				}
				q->in[q->in_len++] = buf[i];
				continue;
			}
			if (!q->in_len)
				continue;
			q->in[q->in_len] = '\0';
			q->in_len = 0;
			msg = json_loads(q->in, 0, NULL);
			if (!json_is_object(msg))
				/* never skip a reply: the next one would answer the wrong command */
				fail(q, "malformed QMP message");
			else
				take_message(q, msg);
			json_decref(msg);
		}
	}
}

/* Over: every command answered, or failed. */
static bool over(const struct em_qmp *q)
{
	return q->state == EM_QMP_FAILED ||
	       (q->state == EM_QMP_READY && !json_array_size(q->pending) && !q->out);
}

bool em_qmp_step(struct em_qmp *q, double now)
{
	enum em_qmp_state was;
	size_t answered;

	/* again while it moves on: a reply taken may let the next command go */
	do {
		was = q->state;
		answered = json_array_size(q->replies);
		if (q->state == EM_QMP_CONNECTING)
			try_connect(q);
		if (q->state == EM_QMP_FAILED || q->state == EM_QMP_CONNECTING)
			break;
		if (q->state == EM_QMP_READY && !q->awaiting && !q->out &&
		    json_array_size(q->pending)) {
			send_request(q, json_array_get(q->pending, 0));
			q->awaiting = q->out != NULL;
		}
		write_some(q);
		if (q->state != EM_QMP_FAILED)
			read_some(q);
	} while ((q->state != was || json_array_size(q->replies) != answered) && !over(q));
	if (!over(q) && now >= q->deadline)
		fail(q, q->state == EM_QMP_CONNECTING ? "cannot connect to QMP at %s" :
		     "no answer from QMP at %s in time", q->path);
	return over(q);
}

short em_qmp_events(const struct em_qmp *q)
{
	if (q->fd < 0 || q->state == EM_QMP_CONNECTING || q->state == EM_QMP_FAILED)
		return 0;
	return POLLIN | (q->out ? POLLOUT : 0);
}

json_t *em_qmp_reply(const struct em_qmp *q, size_t i, char *err, size_t errlen)
{
	json_t *reply = json_array_get(q->replies, i), *ret, *e;

	if (!reply) {
		if (errlen)
			snprintf(err, errlen, "%s", q->state == EM_QMP_FAILED ? q->err : "no reply");
		return NULL;
	}
	ret = json_object_get(reply, "return");
	if (ret)
		return ret;
	e = json_object_get(reply, "error");
	if (errlen)
		snprintf(err, errlen, "%s", json_is_string(json_object_get(e, "desc")) ?
			 json_string_value(json_object_get(e, "desc")) : "malformed QMP reply");
	return NULL;
}

void em_qmp_close(struct em_qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	json_decref(q->pending);
	json_decref(q->replies);
	free(q->out);
	free(q->in);
	q->pending = q->replies = NULL;
	q->out = q->in = NULL;
	q->in_len = q->in_cap = q->out_len = q->out_off = 0;
}

/* Drives the exchange to its end in place. */
static void run_in_place(struct em_qmp *q)
{
	while (!em_qmp_step(q, em_qmp_now())) {
		struct pollfd p = { .fd = q->fd, .events = em_qmp_events(q) };

		/* nothing to wait on while connecting: try again shortly */
		poll(&p, p.events ? 1 : 0, 10);
	}
}

int em_qmp_connect(struct em_qmp *q, const char *path, unsigned int timeout_ms,
		   char *err, size_t errlen)
{
	em_qmp_open(q, path, em_qmp_now() + timeout_ms / 1e3 + EM_QMP_REPLY_TIMEOUT_S);
	run_in_place(q);
	if (q->state == EM_QMP_READY)
		return 0;
	if (errlen)
		snprintf(err, errlen, "%s", q->err);
	em_qmp_close(q);
	return -EPROTO;
}

json_t *em_qmp_execute(struct em_qmp *q, const char *cmd, json_t *args,
		       char *err, size_t errlen)
{
	size_t i = json_array_size(q->replies);
	json_t *ret;

	if (q->state != EM_QMP_READY) {
		json_decref(args);
		snprintf(err, errlen, "%s", q->state == EM_QMP_FAILED ? q->err : "QMP not ready");
		return NULL;
	}
	q->deadline = em_qmp_now() + EM_QMP_REPLY_TIMEOUT_S;
	em_qmp_queue(q, cmd, args);
	run_in_place(q);
	ret = em_qmp_reply(q, i, err, errlen);
	return json_incref(ret);
}
