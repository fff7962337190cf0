// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "libvirt_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "vm.h"

#define MAX_CONN	16
#define MAX_ACTIVE	64
#define NPORTS		2	/* serial0: console, serial1: results */

struct lv_conn {
	const char *uri;
	virConnectPtr conn;
	unsigned int running;
};

struct lv_job {
	struct em_run *run;
	struct lv_conn *c;
	virDomainPtr dom;
	virStreamPtr st[NPORTS];
	FILE *out[NPORTS];
	char results_path[4200];
	double started;
	bool timed_out;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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
	fputs("  </qemu:commandline>\n</domain>\n", f);
	fclose(f);
	return xml;
}

static char *domain_xml(const struct em_matrix *m, const struct em_paths *p,
			const struct em_run *r)
{
	struct em_vm_config cfg = {
		.qemu = p->qemu, .kernel = p->kernel, .initrd = p->initrd,
		.profile = m->profile, .seed = r->seed, .run_args = r->args,
		.memory_mib = m->memory_mib,
		.modparams = m->modparams[0] ? m->modparams : NULL,
	};
	char name[200];

	snprintf(name, sizeof(name), "ember-%s", r->id);
	return em_libvirt_domain_xml(&cfg, name);
}

static void job_close(struct lv_job *j)
{
	int i;

	for (i = 0; i < NPORTS; i++) {
		if (j->st[i]) {
			virStreamAbort(j->st[i]);
			virStreamFree(j->st[i]);
			j->st[i] = NULL;
		}
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

/* Creates the domain paused, attaches both console streams, then runs it. */
static int job_start(struct lv_job *j, const struct em_matrix *m,
		     const struct em_paths *p)
{
	static const char *const names[NPORTS] = { "console.log", "results.jsonl" };
	char *xml = domain_xml(m, p, j->run), path[4200], dev[16];
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
	return -1;
}

/* Copies what the consoles have; returns 1 once the domain is gone. */
static int job_poll(struct lv_job *j, unsigned int timeout_s)
{
	char buf[4096];
	int i, n, state, reason;

	for (i = 0; i < NPORTS; i++) {
		if (!j->st[i])
			continue;
		while ((n = virStreamRecv(j->st[i], buf, sizeof(buf))) > 0) {
			int k;

			for (k = 0; k < n; k++)
				if (buf[k] != '\r')
					fputc(buf[k], j->out[i]);
		}
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
	if (virDomainGetState(j->dom, &state, &reason, 0) < 0 ||
	    state == VIR_DOMAIN_SHUTOFF || state == VIR_DOMAIN_CRASHED)
		return 1;
	if (now_s() - j->started >= timeout_s && !j->timed_out) {
		j->timed_out = true;
		virDomainDestroy(j->dom);
	}
	return 0;
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

int em_libvirt_run_matrix(const struct em_matrix *m, const struct em_paths *p,
			  struct em_run *runs, size_t n, const char *commit,
			  size_t done, volatile sig_atomic_t *interrupted)
{
	struct lv_conn conns[MAX_CONN] = { 0 };
	struct lv_job jobs[MAX_ACTIVE];
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	unsigned int nc = 0, i, per_host = m->jobs;
	size_t next = 0, active = 0, k;
	struct em_paths abs = *p;
	int failed = 0, usable = 0;

	if (!per_host) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		per_host = cores > 0 ? (unsigned int)cores : 1;
	}
	for (i = 0; i < m->nconnect && i < MAX_CONN; i++) {
		conns[nc].uri = m->connect[i];
		conns[nc].conn = virConnectOpen(m->connect[i]);
		if (!conns[nc].conn)
			fprintf(stderr, "ember-agent: cannot connect to libvirt at %s: %s\n",
				m->connect[i], lv_error());
		else
			usable++;
		nc++;
	}
	if (!usable) {
		fprintf(stderr, "ember-agent: no libvirt host reachable; nothing ran\n");
		return -1;
	}
	abs.qemu = abs.kernel = abs.initrd = NULL;
	/* the daemon resolves paths from its own directory: make them absolute */
	abs.qemu = realpath(p->qemu, NULL);
	abs.kernel = realpath(p->kernel, NULL);
	abs.initrd = realpath(p->initrd, NULL);
	if (!abs.qemu || !abs.kernel || !abs.initrd) {
		fprintf(stderr, "ember-agent: cannot resolve the QEMU, kernel or initrd path\n");
		failed = -1;
		goto out;
	}
	p = &abs;

	em_run_progress(done, n, 0, NULL, NULL, 0);
	while (!*interrupted && (next < n || active)) {
		struct lv_conn *c;

		while (!*interrupted && next < n && active < MAX_ACTIVE &&
		       (c = least_loaded(conns, nc, per_host))) {
			struct em_run *r = &runs[next++];
			char rp[4200];

			snprintf(rp, sizeof(rp), "%s/result.json", r->dir);
			if (access(rp, F_OK) == 0)
				continue;
			memset(&jobs[active], 0, sizeof(jobs[active]));
			jobs[active].run = r;
			jobs[active].c = c;
			if (job_start(&jobs[active], m, p)) {
				struct em_run_outcome o = { .exit_status = -1, .host = c->uri };

				em_run_record(m, r, commit, "/nonexistent", &o);
				failed++;
				done++;
				continue;
			}
			active++;
		}
		if (!active)
			break;
		nanosleep(&tick, NULL);
		for (k = 0; k < active; k++) {
			struct lv_job *j = &jobs[k];
			struct em_run_outcome o;
			const char *status;

			if (!job_poll(j, m->timeout_s))
				continue;
			job_poll(j, m->timeout_s);	/* drain what is left */
			o = (struct em_run_outcome){
				.timed_out = j->timed_out, .exit_status = 0,
				.wall_s = now_s() - j->started, .host = j->c->uri,
			};
			job_close(j);
			j->c->running--;
			status = em_run_record(m, j->run, commit, j->results_path, &o);
			if (!em_status_acceptable(status))
				failed++;
			done++;
			em_run_progress(done, n, active - 1, j->run, status, o.wall_s);
			jobs[k--] = jobs[--active];
		}
	}
	if (*interrupted) {
		for (k = 0; k < active; k++) {
			virDomainDestroy(jobs[k].dom);
			job_close(&jobs[k]);
		}
		fprintf(stderr, "\nember-agent: interrupted; rerun to resume\n");
		failed = -1;
	}
out:
	for (i = 0; i < nc; i++)
		if (conns[i].conn)
			virConnectClose(conns[i].conn);
	free((char *)abs.qemu);
	free((char *)abs.kernel);
	free((char *)abs.initrd);
	return failed;
}
