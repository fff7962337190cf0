/* SPDX-License-Identifier: MIT */
/*
 * A small QMP client (QEMU Machine Protocol over a unix socket), built on
 * jansson: connect, negotiate capabilities, execute commands. Asynchronous
 * events that arrive between replies are skipped.
 */
#ifndef EMBER_AGENT_QMP_H
#define EMBER_AGENT_QMP_H

#include <stdio.h>

#include <jansson.h>

struct em_qmp {
	int fd;
	FILE *in;
};

/*
 * Connects to the QMP socket at path, retrying for up to timeout_ms while
 * QEMU creates it, and leaves command mode negotiated. Returns 0 or -errno
 * with a message in err.
 */
int em_qmp_connect(struct em_qmp *q, const char *path, unsigned int timeout_ms,
		   char *err, size_t errlen);

/*
 * Executes cmd with args (a JSON object, stolen; may be NULL). Returns the
 * "return" value (a new reference), or NULL with QEMU's error description
 * (or the I/O failure) in err.
 */
json_t *em_qmp_execute(struct em_qmp *q, const char *cmd, json_t *args,
		       char *err, size_t errlen);

void em_qmp_close(struct em_qmp *q);

#endif /* EMBER_AGENT_QMP_H */
