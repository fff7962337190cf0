// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "qmp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A reply QEMU does not send within this time means it is stuck. */
#define QMP_REPLY_TIMEOUT_S 30

static void set_err(char *err, size_t len, const char *fmt, const char *arg)
{
	if (len)
		snprintf(err, len, fmt, arg);
}

/* Reads the next message that is not an asynchronous event. */
static json_t *read_message(struct em_qmp *q, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	json_t *msg;

	for (;;) {
		if (getline(&line, &cap, q->in) < 0) {
			free(line);
			set_err(err, errlen, "QMP connection closed%s", "");
			return NULL;
		}
		msg = json_loads(line, 0, NULL);
		if (!json_is_object(msg)) {
			/* never skip a reply: the next one would answer the wrong command */
			json_decref(msg);
			free(line);
			set_err(err, errlen, "malformed QMP message%s", "");
			return NULL;
		}
		if (json_object_get(msg, "event")) {
			json_decref(msg);
			continue;
		}
		free(line);
		return msg;
	}
}

json_t *em_qmp_execute(struct em_qmp *q, const char *cmd, json_t *args,
		       char *err, size_t errlen)
{
	json_t *req = json_pack("{s:s}", "execute", cmd), *reply, *ret, *e;
	char *text;
	ssize_t n;

	if (args)
		json_object_set_new(req, "arguments", args);
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!text) {
		set_err(err, errlen, "cannot encode %s", cmd);
		return NULL;
	}
	n = dprintf(q->fd, "%s\n", text);
	free(text);
	if (n < 0) {
		set_err(err, errlen, "QMP write: %s", strerror(errno));
		return NULL;
	}
	reply = read_message(q, err, errlen);
	if (!reply)
		return NULL;
	ret = json_object_get(reply, "return");
	if (ret) {
		json_incref(ret);
		json_decref(reply);
		return ret;
	}
	e = json_object_get(reply, "error");
	set_err(err, errlen, "%s", e ? json_string_value(json_object_get(e, "desc")) :
		"malformed QMP reply");
	json_decref(reply);
	return NULL;
}

int em_qmp_connect(struct em_qmp *q, const char *path, unsigned int timeout_ms,
		   char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = QMP_REPLY_TIMEOUT_S };
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned int waited = 0;
	json_t *greeting, *ok;

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		set_err(err, errlen, "QMP socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	for (;;) {
		q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (q->fd < 0)
			return -errno;
		if (!connect(q->fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(q->fd);
		q->fd = -1;
		if (waited >= timeout_ms) {
			set_err(err, errlen, "cannot connect to QMP at %s", path);
			return -ECONNREFUSED;
		}
		nanosleep(&tick, NULL);
		waited += 10;
	}
	setsockopt(q->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	q->in = fdopen(dup(q->fd), "r");
	if (!q->in) {
		em_qmp_close(q);
		return -errno;
	}
	greeting = read_message(q, err, errlen);
	if (!greeting || !json_object_get(greeting, "QMP")) {
		json_decref(greeting);
		em_qmp_close(q);
		set_err(err, errlen, "no QMP greeting on %s", path);
		return -EPROTO;
	}
	json_decref(greeting);
	ok = em_qmp_execute(q, "qmp_capabilities", NULL, err, errlen);
	if (!ok) {
		em_qmp_close(q);
		return -EPROTO;
	}
	json_decref(ok);
	return 0;
}

void em_qmp_close(struct em_qmp *q)
{
	if (q->in)
		fclose(q->in);
	if (q->fd >= 0)
		close(q->fd);
	q->in = NULL;
	q->fd = -1;
}
