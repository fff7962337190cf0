// SPDX-License-Identifier: MIT
/*
 * capture_gate_pass (CUnit): a process at the gate stays there until the
 * scheduler writes its turn, and one whose FIFO closes without a turn, or
 * that has no FIFO, is refused with the path and the reason.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "capture_gate.h"

#define GATE "gate.fifo"

/* A child at the gate: exits 0 once through, 1 when refused, having
 * written the refusal to `why` (a pipe). */
static pid_t child_at_gate(const char *path, int why)
{
	pid_t pid = fork();

	if (pid == 0) {
		char error[256] = "";
		int rc = capture_gate_pass(path, error, sizeof(error));

		if (write(why, error, strlen(error)) < 0)
			_exit(3);
		_exit(rc ? 1 : 0);
	}
	return pid;
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

/* The child's exit status, or -1 while it still runs after `ms`. */
static int status_after(pid_t pid, long ms)
{
	int status;

	for (long waited = 0; waited <= ms; waited += 10, sleep_ms(10))
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	return -1;
}

static void read_why(int fd, char *buf, size_t size)
{
	ssize_t n = read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = 0;
}

static void test_waits_for_its_turn(void)
{
	int why[2], fd;
	pid_t pid;

	unlink(GATE);
	CU_ASSERT_EQUAL_FATAL(mkfifo(GATE, 0600), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(why), 0);
	pid = child_at_gate(GATE, why[1]);
	CU_ASSERT_EQUAL(status_after(pid, 200), -1);
	fd = open(GATE, O_WRONLY);
	CU_ASSERT_FATAL(fd >= 0);
	/* Opened but no byte yet: still waiting. */
	CU_ASSERT_EQUAL(status_after(pid, 200), -1);
	CU_ASSERT_EQUAL(write(fd, "x", 1), 1);
	close(fd);
	CU_ASSERT_EQUAL(status_after(pid, 2000), 0);
	close(why[0]);
	close(why[1]);
	unlink(GATE);
}

static void test_closed_without_a_turn(void)
{
	char buf[256];
	int why[2], fd;
	pid_t pid;

	unlink(GATE);
	CU_ASSERT_EQUAL_FATAL(mkfifo(GATE, 0600), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(why), 0);
	pid = child_at_gate(GATE, why[1]);
	fd = open(GATE, O_WRONLY);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(status_after(pid, 2000), 1);
	read_why(why[0], buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, GATE ": closed without a turn");
	close(why[0]);
	close(why[1]);
	unlink(GATE);
}

static void test_no_fifo(void)
{
	char error[256];

	unlink(GATE);
	CU_ASSERT_EQUAL(capture_gate_pass(GATE, error, sizeof(error)), -1);
	CU_ASSERT_STRING_EQUAL(error, GATE ": No such file or directory");
}

int main(void)
{
	CU_pSuite suite;
	unsigned int failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	suite = CU_add_suite("capture gate", NULL, NULL);
	CU_add_test(suite, "waits for its turn", test_waits_for_its_turn);
	CU_add_test(suite, "closed without a turn", test_closed_without_a_turn);
	CU_add_test(suite, "no FIFO", test_no_fifo);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
