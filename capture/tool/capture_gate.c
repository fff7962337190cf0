// SPDX-License-Identifier: MIT
/* The card's turn (capture_gate.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_gate.h"

int capture_gate_pass(const char *path, char *error, size_t size)
{
	char turn;
	ssize_t n;
	int fd;

	/* Opening a FIFO for reading blocks until a writer opens it. */
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		snprintf(error, size, "%s: %s", path, strerror(errno));
		return -1;
	}
	do
		n = read(fd, &turn, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		snprintf(error, size, "%s: %s", path, strerror(errno));
	else if (n == 0)
		snprintf(error, size, "%s: closed without a turn", path);
	close(fd);
	return n == 1 ? 0 : -1;
}
