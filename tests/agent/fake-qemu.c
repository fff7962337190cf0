// SPDX-License-Identifier: MIT
/*
 * A stand-in for qemu-system-x86_64 that plays a hostile guest against the
 * real ember-agent: it takes the command line the agent builds (vm.c's
 * em_vm_argv), writes into the console file and the results FIFOs the agent
 * drains, and serves (or stalls) the QMP socket the agent talks to. What it
 * does is EMBER_FAKE_GUEST's mode:
 *
 *   escape         a result line whose scenario, key and values carry
 *                  terminal escape sequences (C0, C1, OSC), and a line
 *                  that is not JSON with raw escape bytes
 *   holds N        N hold lines at once, then the guest waits for "go";
 *                  QMP answers; the guest reports how many "go" lines
 *                  came ({"scenario":"fake","go":N}), then a run that
 *                  verified; the QMP side counts the commands it answered
 *                  (<workdir>/fake-qmp.count)
 *   stall N        N hold lines, one a second; QMP accepts and never says
 *                  a word; the guest never ends
 *   flood-results  valid JSON lines, endlessly
 *   endless-line   one line without end
 *   flood-console  console text, endlessly
 *   flood-log      QEMU's own output (stderr, qemu.log), endlessly
 *
 * Each mode but stall and the floods ends with {"scenario":"boot","end":1}
 * and exit status 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct fake {
	const char *console, *results, *qmp;
	char workdir[4096];
	int out;		/* results.out: the guest's lines */
	int in;			/* results.in: the host's answers */
	int qmp_fd;		/* the listening QMP socket */
};

static void die(const char *what)
{
	fprintf(stderr, "fake-qemu: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, s + off, len - off);
		if (n < 0)
			die("write");
		off += (size_t)n;
	}
}

static void parse_args(struct fake *f, int argc, char **argv)
{
	static char qmp[4096];
	int i;

	for (i = 1; i + 1 < argc; i++) {
		const char *v = argv[i + 1];

		if (!strcmp(argv[i], "-serial") && !strncmp(v, "file:", 5))
			f->console = v + 5;
		else if (!strcmp(argv[i], "-serial") && !strncmp(v, "pipe:", 5))
			f->results = v + 5;
		else if (!strcmp(argv[i], "-qmp") && !strncmp(v, "unix:", 5)) {
			snprintf(qmp, sizeof(qmp), "%s", v + 5);
			*strchrnul(qmp, ',') = '\0';
			f->qmp = qmp;
		}
	}
	if (!f->console || !f->results || !f->qmp) {
		fprintf(stderr, "fake-qemu: not an ember-agent command line\n");
		exit(2);
	}
	snprintf(f->workdir, sizeof(f->workdir), "%s", f->results);
	*strrchr(f->workdir, '/') = '\0';
}

/* As QEMU's pipe chardev: <base>.out written, <base>.in read. */
static void open_results(struct fake *f)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s.out", f->results);
	f->out = open(path, O_WRONLY);
	snprintf(path, sizeof(path), "%s.in", f->results);
	f->in = open(path, O_RDONLY | O_NONBLOCK);
	if (f->out < 0 || f->in < 0)
		die("results pipe");
}

static void listen_qmp(struct fake *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->qmp);
	unlink(f->qmp);
	f->qmp_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (f->qmp_fd < 0 || bind(f->qmp_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(f->qmp_fd, 16))
		die("qmp socket");
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Counts the "go" lines the host sends within ms. */
static unsigned int count_go(struct fake *f, unsigned int ms)
{
	struct pollfd p = { .fd = f->in, .events = POLLIN };
	char buf[4096];
	unsigned int go = 0;
	ssize_t n, i;

	while (poll(&p, 1, (int)ms) > 0) {
		n = read(f->in, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (i = 0; i + 2 < n; i++)
			go += !memcmp(buf + i, "go\n", 3);
	}
	return go;
}

/*
 * A QMP server in a child: greeting, capabilities, then a reply to every
 * command; the commands seen, counted into <workdir>/fake-qmp.count.
 */
static void serve_qmp(struct fake *f)
{
	char path[4200], buf[8192];
	unsigned int commands = 0;
	FILE *cnt;
	int c;

	if (fork())
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);	/* gone with the VM the agent kills */
	snprintf(path, sizeof(path), "%s/fake-qmp.count", f->workdir);
	while ((c = accept(f->qmp_fd, NULL, NULL)) >= 0) {
		ssize_t n;

		put(c, "{\"QMP\":{\"version\":{},\"capabilities\":[]}}\r\n");
		while ((n = read(c, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = '\0';
			if (strstr(buf, "qmp_capabilities")) {
				put(c, "{\"return\":{}}\r\n");
				continue;
			}
			commands++;
			put(c, "{\"event\":\"NOISE\",\"data\":{}}\r\n");
			put(c, "{\"return\":{\"sim_ns\":1,\"injections_fired\":0}}\r\n");
			cnt = fopen(path, "w");
			if (cnt) {
				fprintf(cnt, "%u\n", commands);
				fclose(cnt);
			}
		}
		close(c);
	}
	_exit(0);
}

static void end_boot(struct fake *f)
{
	put(f->out, "{\"scenario\":\"boot\",\"end\":1}\n");
	sleep_ms(100);
	exit(0);
}

static void flood(int fd, const char *text)
{
	for (;;)
		put(fd, text);
}

int main(int argc, char **argv)
{
	const char *mode = getenv("EMBER_FAKE_GUEST");
	unsigned int n = argc > 0 && getenv("EMBER_FAKE_N") ?
			 (unsigned int)atoi(getenv("EMBER_FAKE_N")) : 1, i;
	struct fake f = { 0 };
	char line[256];
	int console;

	signal(SIGPIPE, SIG_IGN);
	parse_args(&f, argc, argv);
	listen_qmp(&f);
	console = open(f.console, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (console < 0)
		die(f.console);
	open_results(&f);
	put(console, "fake-qemu: booted\n");
	if (!mode)
		mode = "";

	if (!strcmp(mode, "escape")) {
		/* ESC [2J (clear), OSC 0 (window title), C1 CSI (U+009B), BEL */
		put(f.out, "{\"scenario\":\"\\u001b[2Jwiped\",\"\\u001b]0;owned\\u0007key\":1,"
			   "\"csi\":\"\\u009b31mred\",\"bell\":\"\\u0007\"}\n");
		put(f.out, "\033[31mnot json\033[0m\n");
		end_boot(&f);
	}
	if (!strcmp(mode, "holds")) {
		serve_qmp(&f);
		for (i = 0; i < n; i++)
			put(f.out, "{\"scenario\":\"hold\",\"waiting\":true}\n");
		/* every answer the host gives within 2 s */
		snprintf(line, sizeof(line), "{\"scenario\":\"fake\",\"go\":%u}\n",
			 count_go(&f, 2000));
		put(f.out, line);
		put(f.out, "{\"scenario\":\"run\",\"kernel\":\"hotset\",\"ret\":0,"
			   "\"mismatches\":0,\"result_ok\":1,\"lost_pages\":0}\n");
		end_boot(&f);
	}
	if (!strcmp(mode, "stall")) {
		for (i = 0; i < n; i++) {
			put(f.out, "{\"scenario\":\"hold\",\"waiting\":true}\n");
			sleep_ms(1000);
		}
		for (;;)
			pause();
	}
	if (!strcmp(mode, "flood-results"))
		flood(f.out, "{\"scenario\":\"flood\",\"text\":\"0123456789abcdef0123456789\"}\n");
	if (!strcmp(mode, "endless-line"))
		flood(f.out, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	if (!strcmp(mode, "flood-console"))
		flood(console, "[    0.000000] flood flood flood flood flood flood flood\n");
	if (!strcmp(mode, "flood-log"))
		flood(STDERR_FILENO, "qemu-system-x86_64: warning: flood flood flood\n");
	end_boot(&f);
}
