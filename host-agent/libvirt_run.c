// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "libvirt_run.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

#include "sched.h"
#include "vm.h"

#define MAX_CONN	16
#define MAX_ACTIVE	64
#define NPORTS		2	/* serial0: console, serial1: results */
/*
 * Keepalive on every connection: a host that stops answering (frozen,
 * unplugged: no connection reset comes) is closed after about
 * KEEPALIVE_S * (KEEPALIVE_COUNT + 1) seconds, and its runs go elsewhere.
 */
#define KEEPALIVE_S	3
#define KEEPALIVE_COUNT	4

/*
 * libvirt's event loop, which keepalive needs: libvirt's default one is
 * process-wide (registered once, before the first connection), run by a
 * thread of the back-end while it is open.
 */
struct lv_events {
	pthread_t thread;
	bool running;
	atomic_bool stop;
	int wake_timer;		/* fires at once to end a wait, or -1 */
};

static pthread_once_t lv_events_once = PTHREAD_ONCE_INIT;
static int lv_events_registered = -1;	/* virEventRegisterDefaultImpl's */

static void lv_events_register(void)
{
	lv_events_registered = virEventRegisterDefaultImpl();
}

static void *lv_events_loop(void *arg)
{
	struct lv_events *ev = arg;

	while (!atomic_load(&ev->stop))
		if (virEventRunDefaultImpl() < 0)
			break;
	return NULL;
}

static void lv_events_wake(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

/* Starts the loop; false when it cannot run (keepalive is then off). */
static bool lv_events_start(struct lv_events *ev)
{
	pthread_once(&lv_events_once, lv_events_register);
	ev->wake_timer = -1;
	if (lv_events_registered < 0)
		return false;
	atomic_store(&ev->stop, false);
	ev->running = !pthread_create(&ev->thread, NULL, lv_events_loop, ev);
	return ev->running;
}

static void lv_events_stop(struct lv_events *ev)
{
	if (!ev->running)
		return;
	atomic_store(&ev->stop, true);
	/* a timeout of 0 ms fires on the loop's next turn: it sees stop */
	ev->wake_timer = virEventAddTimeout(0, lv_events_wake, NULL, NULL);
	pthread_join(ev->thread, NULL);
	if (ev->wake_timer >= 0)
		virEventRemoveTimeout(ev->wake_timer);
	ev->running = false;
}

/* A host; conn is NULL once it is unreachable or went away. */
struct lv_conn {
	const char *uri;
	virConnectPtr conn;
	unsigned int running;
};

/* job_poll's verdicts */
enum { JOB_RUNNING, JOB_ENDED, JOB_HOST_LOST };

struct lv_job {
	struct em_run *run;
	struct lv_conn *c;
	virDomainPtr dom;
	virStreamPtr st[NPORTS];
	FILE *out[NPORTS];
	char results_path[4200];
	/* the results port's line being received (the hold line is acted on) */
	char line[8192];
	size_t line_len;
	/* the console's line being received, as far as EM_VM_END_LINE's length */
	char console_line[sizeof(EM_VM_END_LINE)];
	size_t console_len;
	/* the guest's last lines (host_ends), on the results port and the console */
	bool results_end, console_end;
	bool ending;		/* its streams closed, the domain told to stop */
	double started;
	bool timed_out;
	bool held;		/* the guest's one hold was answered */
	unsigned int guest_errors;	/* holds after the first, ignored */
	uint64_t bytes[NPORTS];	/* kept of each port, against its cap (vm.h) */
	int cap_hit;		/* enum em_vm_cap, or -1 */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * libvirt's errors are read where they matter (lv_error); its default
 * handler would also print expected ones, such as the domain of a run
 * that just powered off being gone.
 */
static void lv_quiet(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

static const char *lv_error(void)
{
	const char *msg = virGetLastErrorMessage();

	return msg ? msg : "unknown libvirt error";
}

/* Appends s to buf with XML's special characters escaped. */
static void xml_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void qemu_arg(FILE *f, const char *arg)
{
	fputs("    <qemu:arg value='", f);
	xml_put(f, arg);
	fputs("'/>\n", f);
}

/*
 * A transient domain equivalent to host-agent/vm.c's QEMU command line: the
 * emgpu and the firmware directories go through <qemu:commandline>, both
 * serial ports are ptys read through console streams, and a passed-through
 * card (cfg->vfio) is a managed <hostdev>.
 */
char *em_libvirt_domain_xml(const struct em_vm_config *cfg, const char *name)
{
	char cmdline[1024], device[512], *xml = NULL;
	unsigned int dom, bus, slot, fn;
	size_t len = 0, i;
	FILE *f = open_memstream(&xml, &len);

	if (!f)
		return NULL;
	em_vm_cmdline(cfg, cmdline, sizeof(cmdline));
	em_vm_device(cfg, device, sizeof(device));
	fprintf(f, "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
		"  <name>", cfg->accel && !strcmp(cfg->accel, "kvm") ? "kvm" : "qemu");
	xml_put(f, name);
	fprintf(f, "</name>\n  <memory unit='MiB'>%u</memory>\n  <vcpu>1</vcpu>\n"
		"  <os>\n    <type arch='x86_64' machine='q35'>hvm</type>\n    <kernel>",
		cfg->memory_mib ? cfg->memory_mib : 512);
	xml_put(f, cfg->kernel);
	fputs("</kernel>\n    <initrd>", f);
	xml_put(f, cfg->initrd);
	fputs("</initrd>\n    <cmdline>", f);
	xml_put(f, cmdline);
	fputs("</cmdline>\n  </os>\n"
	      "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
	      "  <on_crash>destroy</on_crash>\n  <devices>\n    <emulator>", f);
	xml_put(f, cfg->qemu);
	fputs("</emulator>\n"
	      "    <serial type='pty'><target port='0'/></serial>\n"
	      "    <serial type='pty'><target port='1'/></serial>\n"
	      "    <controller type='usb' model='none'/>\n"
	      "    <memballoon model='none'/>\n", f);
	if (cfg->vfio && sscanf(cfg->vfio, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) == 4)
		fprintf(f, "    <hostdev mode='subsystem' type='pci' managed='yes'>\n"
			"      <source><address domain='0x%04x' bus='0x%02x' slot='0x%02x' "
			"function='0x%x'/></source>\n    </hostdev>\n", dom, bus, slot, fn);
	fputs("  </devices>\n  <qemu:commandline>\n", f);
	for (i = 0; i < EM_VM_FIRMWARE_DIRS; i++) {
		qemu_arg(f, "-L");
		qemu_arg(f, em_vm_firmware_dirs[i]);
	}
	qemu_arg(f, "-device");
	qemu_arg(f, device);
	if (em_vm_counts_insns(cfg)) {
#define EM_VM_XML_ARG_(arg) qemu_arg(f, arg);
		EM_VM_ICOUNT_ARGS(EM_VM_XML_ARG_)
#undef EM_VM_XML_ARG_
	}
	fputs("  </qemu:commandline>\n</domain>\n", f);
	fclose(f);
	return xml;
}

static char *domain_xml(const struct em_paths *p, const struct em_run *r)
{
	const struct em_run_settings *set = r->settings;
	struct em_vm_config cfg = {
		.qemu = p->qemu, .kernel = p->kernel, .initrd = p->initrd,
		.profile = set->profile, .seed = r->seed, .run_args = r->args,
		.memory_mib = set->memory_mib, .accel = p->accel,
		.driver_cost = set->driver_cost,
		.modparams = set->modparams[0] ? set->modparams : NULL,
		/* the device's stats are read at the guest's end, as with QEMU */
		.hold_at_end = true,
		.host_ends = true,
	};
	char name[200];

	snprintf(name, sizeof(name), "ember-%s", r->id);
	return em_libvirt_domain_xml(&cfg, name);
}

/*
 * Closes the console streams. Done before the domain is stopped: libvirt
 * 9.0's virChrdevFree (the domain going) holds the device hash's lock and
 * takes each open stream's, while a stream closing at the domain's end
 * holds its own and takes the hash's, so the two can deadlock the daemon.
 */
static void job_close_streams(struct lv_job *j)
{
	int i;

	for (i = 0; i < NPORTS; i++) {
		if (j->st[i]) {
			virStreamAbort(j->st[i]);
			virStreamFree(j->st[i]);
			j->st[i] = NULL;
		}
	}
}

/* Stops the domain, its console streams closed first (job_close_streams). */
static void job_stop(struct lv_job *j)
{
	job_close_streams(j);
	if (!j->ending && j->dom)
		virDomainDestroy(j->dom);
	j->ending = true;
}

static void job_close(struct lv_job *j)
{
	int i;

	job_close_streams(j);
	for (i = 0; i < NPORTS; i++) {
		if (j->out[i]) {
			fclose(j->out[i]);
			j->out[i] = NULL;
		}
	}
	if (j->dom) {
		virDomainFree(j->dom);
		j->dom = NULL;
	}
}

/*
 * Whether host c is gone: a libvirt call on it failed and its connection
 * is no longer alive (the daemon died, the host went down). A lost host
 * is closed and gets no more runs; says so once.
 */
static bool host_lost(struct lv_conn *c)
{
	char why[256];

	if (!c->conn)
		return true;
	/* the failed call's error, before IsAlive resets it */
	snprintf(why, sizeof(why), "%s", lv_error());
	if (virConnectIsAlive(c->conn) == 1)
		return false;
	fprintf(stderr, "ember-agent: libvirt host %s went away (%s); no more runs go there\n",
		c->uri, why);
	virConnectClose(c->conn);
	c->conn = NULL;
	return true;
}

/*
 * Creates the domain paused, attaches both console streams, then runs it.
 * Returns 0, -1, or EM_START_HOST_LOST when the host went away meanwhile.
 */
static int job_start(struct lv_job *j, const struct em_paths *p)
{
	static const char *const names[NPORTS] = { "console.log", "results.jsonl" };
	char *xml = domain_xml(p, j->run), path[4200], dev[16];
	int i;

	if (!xml || em_mkdir_p(j->run->dir)) {
		free(xml);
		return -1;
	}
	for (i = 0; i < NPORTS; i++) {
		snprintf(path, sizeof(path), "%s/%s", j->run->dir, names[i]);
		j->out[i] = fopen(path, "we");
		if (!j->out[i])
			goto fail;
	}
	snprintf(j->results_path, sizeof(j->results_path), "%s/results.jsonl", j->run->dir);
	snprintf(path, sizeof(path), "%s/domain.xml", j->run->dir);
	{
		FILE *x = fopen(path, "we");

		if (x) {
			fputs(xml, x);
			fclose(x);
		}
	}
	j->dom = virDomainCreateXML(j->c->conn, xml, VIR_DOMAIN_START_PAUSED);
	free(xml);
	xml = NULL;
	if (!j->dom) {
		fprintf(stderr, "ember-agent: %s on %s: %s\n", j->run->id, j->c->uri, lv_error());
		goto fail;
	}
	for (i = 0; i < NPORTS; i++) {
		snprintf(dev, sizeof(dev), "serial%d", i);
		j->st[i] = virStreamNew(j->c->conn, VIR_STREAM_NONBLOCK);
		if (!j->st[i] || virDomainOpenConsole(j->dom, dev, j->st[i], 0)) {
			fprintf(stderr, "ember-agent: %s: console %s: %s\n", j->run->id, dev,
				lv_error());
			goto fail;
		}
	}
	if (virDomainResume(j->dom)) {
		fprintf(stderr, "ember-agent: %s: resume: %s\n", j->run->id, lv_error());
		goto fail;
	}
	j->started = now_s();
	j->c->running++;
	return 0;
fail:
	free(xml);
	if (j->dom)
		virDomainDestroy(j->dom);
	job_close(j);
	return host_lost(j->c) ? EM_START_HOST_LOST : -1;
}

/*
 * The guest holds at its end (ember_hold=1): read the device's stats over
 * the domain's QMP monitor (libvirt passes the command through, on remote
 * hosts too), keep them as the run's "device", then let the guest go on.
 */
static void read_device_stats(struct lv_job *j)
{
	static const char cmd[] =
		"{\"execute\":\"qom-get\",\"arguments\":{\"path\":\""
		EM_VM_GPU_QOM_PATH "\",\"property\":\"stats\"}}";
	char *reply = NULL;

	if (!virDomainQemuMonitorCommand(j->dom, cmd, &reply, 0)) {
		json_t *o = json_loads(reply, 0, NULL);
		json_t *stats = json_object_get(o, "return");

		json_decref(j->run->device);
		j->run->device = json_is_object(stats) ? json_incref(stats) : NULL;
		json_decref(o);
	} else {
		fprintf(stderr, "ember-agent: %s: device stats on %s: %s\n", j->run->id,
			j->c->uri, lv_error());
	}
	free(reply);
	if (j->st[1] && virStreamSend(j->st[1], "go\n", 3) != 3)
		fprintf(stderr, "ember-agent: %s: cannot release the guest's hold: %s\n",
			j->run->id, lv_error());
}

/* A complete line from the results port: the first hold line is answered. */
static void results_line(struct lv_job *j)
{
	json_t *obj = json_loads(j->line, 0, NULL);
	const char *scenario = json_string_value(json_object_get(obj, "scenario"));

	if (scenario && !strcmp(scenario, "boot") &&
	    json_is_true(json_object_get(obj, "end")))
		j->results_end = true;
	if (scenario && !strcmp(scenario, "hold") && json_object_get(obj, "waiting")) {
		if (j->held) {
			j->guest_errors++;
		} else {
			j->held = true;
			read_device_stats(j);
		}
	}
	json_decref(obj);
}

/* A console character: whether its line is the guest's last (host_ends). */
static void console_char(struct lv_job *j, char c)
{
	if (c != '\n') {
		if (j->console_len < sizeof(j->console_line) - 1)
			j->console_line[j->console_len] = c;
		j->console_len++;
		return;
	}
	if (j->console_len == sizeof(EM_VM_END_LINE) - 1 &&
	    !memcmp(j->console_line, EM_VM_END_LINE, j->console_len))
		j->console_end = true;
	j->console_len = 0;
}

/*
 * Keeps what port i sent, up to its cap (vm.h's EM_VM_CAPS: past it
 * job_poll stops the domain); the results port's lines are also parsed,
 * and the console's for its last.
 */
static void job_take(struct lv_job *j, int i, const char *buf, int n)
{
	static const enum em_vm_cap port_cap[NPORTS] = { EM_VM_CAP_CONSOLE, EM_VM_CAP_RESULTS };
	uint64_t cap = em_vm_cap_bytes(port_cap[i]);
	int k;

	if (j->cap_hit >= 0)
		return;
	if (j->bytes[i] + (uint64_t)n > cap) {
		n = (int)(cap - j->bytes[i]);
		j->cap_hit = (int)port_cap[i];
	}
	j->bytes[i] += (uint64_t)n;
	for (k = 0; k < n; k++) {
		if (buf[k] == '\r')
			continue;
		fputc(buf[k], j->out[i]);
		if (i == 0) {
			console_char(j, buf[k]);
			continue;
		}
		if (buf[k] == '\n') {
			j->line[j->line_len] = '\0';
			results_line(j);
			j->line_len = 0;
		} else if (j->line_len < sizeof(j->line) - 1) {
			j->line[j->line_len++] = buf[k];
		}
	}
}

/*
 * Copies what the consoles have; JOB_ENDED once the domain is gone,
 * JOB_HOST_LOST once its host is.
 */
static int job_poll(struct lv_job *j, unsigned int timeout_s)
{
	char buf[4096];
	int i, n, state, reason;

	if (!j->c->conn)	/* another run found the host gone */
		return JOB_HOST_LOST;
	for (i = 0; i < NPORTS; i++) {
		if (!j->st[i])
			continue;
		n = -2;		/* nothing read: past a cap, this port is not read */
		while (j->cap_hit < 0 && (n = virStreamRecv(j->st[i], buf, sizeof(buf))) > 0)
			job_take(j, i, buf, n);
		fflush(j->out[i]);
		if (n == 0 || n == -1) {	/* end of stream, or the domain went */
			if (n == 0)
				virStreamFinish(j->st[i]);
			else
				virStreamAbort(j->st[i]);
			virStreamFree(j->st[i]);
			j->st[i] = NULL;
		}
	}
	/*
	 * The guest has said its last on both ports (host_ends): nothing of
	 * either is left in flight, so the streams close, then the domain.
	 */
	if ((j->cap_hit >= 0 || (j->results_end && j->console_end)) && !j->ending)
		job_stop(j);
	if (virDomainGetState(j->dom, &state, &reason, 0) < 0) {
		/* a transient domain that powered off is gone: it ended */
		if (virGetLastErrorCode() == VIR_ERR_NO_DOMAIN)
			return JOB_ENDED;
		return host_lost(j->c) ? JOB_HOST_LOST : JOB_ENDED;
	}
	if (state == VIR_DOMAIN_SHUTOFF || state == VIR_DOMAIN_CRASHED)
		return JOB_ENDED;
	if (now_s() - j->started >= timeout_s && !j->timed_out) {
		j->timed_out = true;
		job_stop(j);
	}
	return JOB_RUNNING;
}

static struct lv_conn *least_loaded(struct lv_conn *c, unsigned int nc,
				    unsigned int per_host)
{
	struct lv_conn *best = NULL;
	unsigned int i;

	for (i = 0; i < nc; i++)
		if (c[i].conn && c[i].running < per_host &&
		    (!best || c[i].running < best->running))
			best = &c[i];
	return best;
}

/* The libvirt back-end of the scheduler (sched.h). */
struct lv_backend {
	struct em_paths abs;	/* the paths made absolute, for the daemons */
	struct lv_conn conns[MAX_CONN];
	unsigned int nc, per_host;
	/* the running domains, dense: [0, active) */
	struct lv_job jobs[MAX_ACTIVE];
	size_t active;
	struct lv_events events;
};

static bool lv_has_room(const struct em_backend *be)
{
	struct lv_backend *b = be->state;

	return b->active < MAX_ACTIVE && least_loaded(b->conns, b->nc, b->per_host);
}

static int lv_start(struct em_backend *be, struct em_run *r, const char **host)
{
	struct lv_backend *b = be->state;
	struct lv_job *j = &b->jobs[b->active];

	int err;

	memset(j, 0, sizeof(*j));
	j->cap_hit = -1;
	j->run = r;
	j->c = least_loaded(b->conns, b->nc, b->per_host);
	*host = j->c->uri;
	/* a run started again after its host went away: that host's stats go */
	json_decref(r->device);
	r->device = NULL;
	err = job_start(j, &b->abs);
	if (err)
		return err;
	b->active++;
	return 0;
}

/*
 * Polls the domains every 20 ms, copying their consoles, until one is
 * gone (drained, closed) or the matrix is interrupted.
 */
static struct em_run *lv_wait(struct em_backend *be, volatile sig_atomic_t *interrupted,
			      struct em_run_outcome *o, const char **results_path)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct lv_backend *b = be->state;
	size_t k;

	while (b->active) {
		for (k = 0; k < b->active; k++) {
			struct lv_job *j = &b->jobs[k];
			unsigned int timeout_s = j->run->settings->timeout_s;
			int verdict = job_poll(j, timeout_s);

			if (verdict == JOB_RUNNING)
				continue;
			if (verdict == JOB_ENDED)
				job_poll(j, timeout_s);	/* drain what is left */
			*o = (struct em_run_outcome){
				.timed_out = j->timed_out, .exit_status = 0,
				.wall_s = now_s() - j->started, .host = j->c->uri,
				.host_lost = verdict == JOB_HOST_LOST,
				.guest_errors = j->guest_errors,
				.cap_file = j->cap_hit >= 0 ? em_vm_cap_file(j->cap_hit) : NULL,
				.cap_bytes = j->cap_hit >= 0 ? em_vm_cap_bytes(j->cap_hit) : 0,
			};
			job_close(j);
			j->c->running--;
			*results_path = j->results_path;
			return j->run;
		}
		if (*interrupted)
			return NULL;
		nanosleep(&tick, NULL);
	}
	return NULL;
}

/* Keeps the running set dense: the last job moves into the freed slot. */
static void lv_release(struct em_backend *be, struct em_run *r)
{
	struct lv_backend *b = be->state;
	size_t k;

	for (k = 0; k < b->active && b->jobs[k].run != r; k++)
		;
	if (k == b->active)
		return;
	b->jobs[k] = b->jobs[--b->active];
}

static void lv_stop_all(struct em_backend *be)
{
	struct lv_backend *b = be->state;
	size_t k;

	for (k = 0; k < b->active; k++) {
		if (b->jobs[k].c->conn)
			job_stop(&b->jobs[k]);
		job_close(&b->jobs[k]);
	}
	b->active = 0;
}

static void lv_close(struct em_backend *be)
{
	struct lv_backend *b = be->state;
	unsigned int i;

	if (!b)
		return;
	for (i = 0; i < b->nc; i++)
		if (b->conns[i].conn)
			virConnectClose(b->conns[i].conn);
	lv_events_stop(&b->events);
	free((char *)b->abs.qemu);
	free((char *)b->abs.kernel);
	free((char *)b->abs.initrd);
	free(b);
	be->state = NULL;
}

static const struct em_backend_ops lv_ops = {
	.has_room = lv_has_room,
	.start = lv_start,
	.wait = lv_wait,
	.release = lv_release,
	.stop_all = lv_stop_all,
	.close = lv_close,
	.record_start_failure = true,
};

int em_libvirt_backend_open(struct em_backend *be, const char *const *uris,
			    unsigned int nuris, unsigned int jobs, const struct em_paths *p)
{
	struct lv_backend *b = calloc(1, sizeof(*b));
	unsigned int i;
	int usable = 0;

	if (!b) {
		fprintf(stderr, "ember-agent: out of memory\n");
		return -1;
	}
	be->ops = &lv_ops;
	be->state = b;
	b->per_host = jobs;
	virSetErrorFunc(NULL, lv_quiet);
	if (!lv_events_start(&b->events))
		fprintf(stderr, "ember-agent: no libvirt event loop; a host that stops "
			"answering without closing its connection is not noticed\n");
	for (i = 0; i < nuris && i < MAX_CONN; i++) {
		b->conns[b->nc].uri = uris[i];
		b->conns[b->nc].conn = virConnectOpen(uris[i]);
		if (!b->conns[b->nc].conn) {
			fprintf(stderr, "ember-agent: cannot connect to libvirt at %s: %s\n",
				uris[i], lv_error());
		} else {
			usable++;
			/* 1: a driver without keepalive (nothing remote to lose) */
			if (b->events.running &&
			    virConnectSetKeepAlive(b->conns[b->nc].conn, KEEPALIVE_S,
						   KEEPALIVE_COUNT) < 0)
				fprintf(stderr, "ember-agent: %s: no keepalive: %s\n",
					uris[i], lv_error());
		}
		b->nc++;
	}
	if (!usable) {
		fprintf(stderr, "ember-agent: no libvirt host reachable; nothing ran\n");
		lv_close(be);
		return -1;
	}
	/* the daemon resolves paths from its own directory: make them absolute */
	b->abs = *p;
	b->abs.qemu = realpath(p->qemu, NULL);
	b->abs.kernel = realpath(p->kernel, NULL);
	b->abs.initrd = realpath(p->initrd, NULL);
	if (!b->abs.qemu || !b->abs.kernel || !b->abs.initrd) {
		fprintf(stderr, "ember-agent: cannot resolve the QEMU, kernel or initrd path\n");
		lv_close(be);
		return -1;
	}
	return 0;
}
