/* SPDX-License-Identifier: MIT */
/*
 * The driver's CPU cost: one rule for every driver and personality.
 *
 * The embedder reports the guest's retired instructions at every access
 * to the device (gm_guest_insns()). The instructions between two reports
 * are the work of the activity open over them, which the device's own
 * events decide (gpumodel.h, GM_CPU_ACTIVITIES): a fault batch from its
 * hand-off to REPLAY or CANCEL, notifications from their hand-off to the
 * hand-back, and outside those a copy the driver started, from the write
 * that started it to the guest's next access. What falls in none is the
 * application's or the idle kernel's, counted as "other".
 *
 * Under GM_DRIVER_COST_MEASURED the activity's thread is charged
 * instructions x cpu_insn_ps as the work happens, so a copy issued in a
 * batch starts after the instructions that led to it and the replay after
 * all of the batch's. The assumed constants are then counted
 * (cpu_assumed_ns) but not charged; under GM_DRIVER_COST_ASSUMED they are
 * charged as before and the instructions only counted.
 *
 * Instructions are reported by the embedder at exact points of the
 * guest's execution (QEMU's -icount with the model run from the virtual
 * clock), so the counts and the charges repeat from boot to boot.
 */
#include <string.h>

#include "internal.h"

static const char *const cost_names[] = {
#define GM_DRIVER_COST_NAME(id, name) [GM_DRIVER_COST_##id] = #name,
	GM_DRIVER_COSTS(GM_DRIVER_COST_NAME)
#undef GM_DRIVER_COST_NAME
};

const char *gm_driver_cost_name(enum gm_driver_cost c)
{
	return (unsigned int)c < sizeof(cost_names) / sizeof(cost_names[0]) ?
	       cost_names[c] : NULL;
}

int gm_driver_cost_lookup(const char *name, enum gm_driver_cost *out)
{
	int i = gm_name_index(cost_names, sizeof(cost_names) / sizeof(cost_names[0]),
			      name);

	if (i < 0)
		return -1;
	*out = (enum gm_driver_cost)i;
	return 0;
}

void gm_assumed_charge(struct gm_gpu *g, unsigned int thread, uint64_t ns)
{
	g->st.cpu_assumed_ns += ns;
	if (gm_cost_assumed(g))
		gm_driver_charge(g, thread, ns);
}

/* The activity the instructions since the last report belong to. */
static enum gm_cpu_activity cpu_activity(const struct gm_gpu *g,
					 unsigned int *thread)
{
	if (g->cpu.fault_open || g->cpu.notify_open) {
		*thread = g->cpu.fault_open ? EMGPU_DRV_THREAD_FAULT :
					      EMGPU_DRV_THREAD_NOTIFY;
		if (g->cpu.copy == GM_CPU_EVICT)
			return GM_CPU_EVICT;
		return g->cpu.fault_open ? GM_CPU_FAULT : GM_CPU_NOTIFY;
	}
	*thread = EMGPU_DRV_THREAD_WORKER;
	return g->cpu.copy;
}

static void count(struct gm_gpu *g, enum gm_cpu_activity a, uint64_t insns)
{
	uint64_t *in[GM_CPU_ACTIVITIES_COUNT] = {
#define GM_CPU_INSNS_PTR(X, id, name, what) [GM_CPU_##id] = &g->st.cpu_insns_##name,
		GM_CPU_ACTIVITIES(GM_CPU_INSNS_PTR, )
#undef GM_CPU_INSNS_PTR
	};
	uint64_t *ns[GM_CPU_ACTIVITIES_COUNT] = {
#define GM_CPU_NS_PTR(X, id, name, what) [GM_CPU_##id] = &g->st.cpu_ns_##name,
		GM_CPU_ACTIVITIES(GM_CPU_NS_PTR, )
#undef GM_CPU_NS_PTR
	};
	uint64_t before = g->cpu.ps[a] / GM_PS_PER_NS;

	*in[a] += insns;
	g->cpu.ps[a] += insns * g->prof.cpu_insn_ps;
	*ns[a] = g->cpu.ps[a] / GM_PS_PER_NS;
	g->st.cpu_measured_ns += *ns[a] - before;
}

void gm_guest_insns(struct gm_gpu *g, uint64_t retired)
{
	enum gm_cpu_activity a;
	unsigned int thread;
	uint64_t n;

	if (!g->cpu.counting) {	/* the first report only sets the mark */
		g->cpu.counting = 1;
		g->cpu.mark = retired;
		return;
	}
	n = retired >= g->cpu.mark ? retired - g->cpu.mark : 0;
	g->cpu.mark = retired;
	a = cpu_activity(g, &thread);
	/* outside a batch a copy's work lasts until the guest's next access */
	if (!g->cpu.fault_open && !g->cpu.notify_open)
		g->cpu.copy = GM_CPU_NONE;
	if (!n)
		return;
	if (a == GM_CPU_NONE) {
		g->st.cpu_insns_other += n;
		return;
	}
	count(g, a, n);
	if (!gm_cost_assumed(g)) {
		g->drv_busy[thread] = gm_max(g->drv_busy[thread], g->now) +
				      (gm_time_t)n * g->prof.cpu_insn_ps;
		gm_idle_work(g, g->drv_busy[thread]);
	}
}

/*
 * The measured charges of a batch go into the trace hash once, at its end
 * (one event per batch, not one per register access).
 */
static void batch_event(struct gm_gpu *g, unsigned int thread)
{
	if (g->cpu.counting && !gm_cost_assumed(g))
		gm_event(g, GM_EV_DRIVER, thread | 1ull << 17,
			 g->st.cpu_measured_ns, 0);
}

void gm_cpu_handoff(struct gm_gpu *g, enum gm_stop why)
{
	if (why == GM_STOP_FAULT) {
		g->cpu.fault_open = 1;
		g->cpu.copy = GM_CPU_NONE;
	} else if (why == GM_STOP_NOTIFY) {
		g->cpu.notify_open = 1;
		g->cpu.copy = GM_CPU_NONE;
	}
}

/* A batch answered: its activity closes (*open), its charges hashed. */
static void batch_done(struct gm_gpu *g, int *open, unsigned int thread)
{
	if (!*open)
		return;
	*open = 0;
	g->cpu.copy = GM_CPU_NONE;
	batch_event(g, thread);
}

void gm_cpu_fault_done(struct gm_gpu *g)
{
	batch_done(g, &g->cpu.fault_open, EMGPU_DRV_THREAD_FAULT);
}

void gm_cpu_notify_done(struct gm_gpu *g)
{
	batch_done(g, &g->cpu.notify_open, EMGPU_DRV_THREAD_NOTIFY);
}

void gm_cpu_copy(struct gm_gpu *g, uint32_t op, unsigned int sa,
		 unsigned int da)
{
	int batch = g->cpu.fault_open || g->cpu.notify_open;

	if (op == EMGPU_CE_OP_COPY && sa == EMGPU_APERTURE_VIDMEM &&
	    da == EMGPU_APERTURE_SYSMEM)
		g->cpu.copy = GM_CPU_EVICT;
	else if (batch)
		g->cpu.copy = GM_CPU_NONE;	/* back to the batch's own work */
	else if (op == EMGPU_CE_OP_COPY && sa == EMGPU_APERTURE_SYSMEM &&
		 da == EMGPU_APERTURE_VIDMEM)
		g->cpu.copy = GM_CPU_PREFETCH;
	else
		g->cpu.copy = GM_CPU_WORKER;
}
