// SPDX-License-Identifier: MIT
/*
 * trace-model: a capture trace's launches through libgpumodel directly,
 * no VM and no driver: the GPU model's time of each launch with every
 * page of the trace's data mapped before it runs, all in VRAM (resident,
 * as after a prefetch) or all in sysmem (mapped, as accessed-by maps a
 * host-resident page on the card), beside the card's time of the same
 * launch. What a VM's replay adds to it (faults, migrations, the
 * driver's time) is the driver's; what this prints is the model's alone
 * (docs/trace-replay.md, "The model alone").
 *
 * Each launch is laid out as userspace/replay.c lays it out (the plan's
 * scaling and line offsets, the warp table and the records in sysmem,
 * min(SM slots, captured warps) warps, em_replay_compute_units()), the
 * trace's allocations one after another (no address is reused after a
 * free, so the sum of the allocations must fit).
 *
 * usage: trace-model [-v] [-x FACTOR] [-p PROFILE]... ACCESSES TIMING [CARD...]
 *   ACCESSES  the accesses trace; TIMING the card's times the replay
 *             spreads (-T: a resident capture); CARD: timing captures of
 *             the same program under the mapped variant (rounds), whose
 *             median per launch is the card's mapped time
 *   -p        a profile (repeatable; default h200-64m), -x the factor of
 *             its VRAM the footprint is scaled to (default 0.5, the
 *             validation matrices')
 *   -v        every launch's line, then the summary
 * The summary: per row (the card, each profile) the launches' sums
 * resident and mapped, their difference per record, and mapped - resident
 * per launch fitted as a + b x records (least squares over the launches
 * with records, given TM_FIT_MIN of them).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpumodel/gpumodel.h"
#include "gpumodel/kernel.h"
#include "gpumodel/testlib.h"
#include "replay.h"

#define MiB		(1ull << 20)
#define TM_VA		0x10000000000ull
#define TM_ALIGN	(2 * MiB)
#define TM_TABLES	(4 * MiB)	/* page tables at the top of VRAM */
#define TM_MAX_PROFILES	4
#define TM_MAX_CARD	16

enum tm_place { TM_VRAM, TM_SYSMEM, TM_PLACES };

struct tm_env {
	struct gm_gpu *g;
	struct gmt_flat flat;		/* guest RAM: the data (mapped) and the streams */
	struct gmt_pt pt;
	uint64_t data_bytes;		/* the allocations, laid out from TM_VA */
	uint64_t streams;		/* guest RAM offset of the warp table */
	uint64_t recs;			/* and of the records */
};

static void vram_read(void *o, uint64_t a, void *b, uint64_t n)
{
	struct tm_env *e = o;

	if (gm_vram_read(e->g, a, b, n))
		abort();
}

static void vram_write(void *o, uint64_t a, const void *b, uint64_t n)
{
	struct tm_env *e = o;

	if (gm_vram_write(e->g, a, b, n))
		abort();
}

static int die(const char *what)
{
	fprintf(stderr, "trace-model: %s\n", what);
	return 1;
}

/*
 * A model with the trace's allocations (offsets in the replay, from
 * TM_VA) mapped in VRAM or sysmem, and room in sysmem for the largest
 * launch's streams. 0, or -1 when they do not fit.
 */
static int env_new(struct tm_env *e, const struct gm_profile *prof,
		   enum tm_place where, uint64_t data_bytes,
		   const struct em_replay_plan *p)
{
	struct gm_callbacks cb = { .dma_read = gmt_flat_dma_read,
				   .dma_write = gmt_flat_dma_write };
	struct gm_config cfg = { .profile = *prof, .seed = 1 };
	uint64_t table_bytes = (p->max_warps * 16 + TM_ALIGN - 1) & ~(TM_ALIGN - 1);
	uint64_t rec_bytes = (p->max_records * 4 + TM_ALIGN - 1) & ~(TM_ALIGN - 1);
	unsigned int ap = where == TM_VRAM ? EMGPU_APERTURE_VIDMEM : EMGPU_APERTURE_SYSMEM;
	uint64_t o;

	memset(e, 0, sizeof(*e));
	if (where == TM_VRAM && data_bytes > prof->vram_bytes - TM_TABLES)
		return -1;
	e->data_bytes = data_bytes;
	e->streams = where == TM_SYSMEM ? data_bytes : 0;
	e->recs = e->streams + table_bytes;
	e->flat.size = e->recs + rec_bytes;
	e->flat.mem = calloc(1, e->flat.size);
	if (!e->flat.mem)
		return -1;
	cb.opaque = &e->flat;
	e->g = gm_create(&cfg, &cb);
	if (!e->g)
		return -1;
	e->pt = (struct gmt_pt){ .opaque = e, .read = vram_read, .write = vram_write,
				 .aperture = EMGPU_APERTURE_VIDMEM };
	gmt_pt_init(&e->pt, prof->vram_bytes - TM_TABLES, TM_TABLES);
	gm_set_pdb(e->g, gmt_pt_pdb(&e->pt));
	/* 4 KiB pages, as the driver maps a host page or a VRAM page */
	for (o = 0; o < data_bytes; o += 4096)
		gmt_pt_map(&e->pt, TM_VA + o, ap, o, EMGPU_PAGE_SHIFT, 0);
	/* the streams: advised CPU + accessed-by GPU by the replayer, in sysmem */
	for (o = 0; o < table_bytes + rec_bytes; o += 4096)
		gmt_pt_map(&e->pt, TM_VA + data_bytes + o, EMGPU_APERTURE_SYSMEM,
			   e->streams + o, EMGPU_PAGE_SHIFT, 0);
	return 0;
}

static void env_free(struct tm_env *e)
{
	if (e->g)
		gm_destroy(e->g);
	free(e->flat.mem);
}

/*
 * Launch li's streams written into the env as the replayer writes them;
 * its warps and compute per access in *d. Returns the record count, 0 if
 * the launch recorded none, or -1 on a read error (message in err).
 */
static long long lay_launch(struct tm_env *e, struct em_replay_plan *p,
			    const uint64_t *place, const uint32_t *live,
			    size_t nlive, size_t li, uint32_t slots,
			    struct emgpu_launch_desc *d, char *err, size_t errlen)
{
	const struct trace_launch *tl = trace_get_launch(p->reader, li);
	const struct trace_launch *tt = p->timing ? trace_get_launch(p->timing, li) : tl;
	uint64_t *table = (uint64_t *)(e->flat.mem + e->streams);
	uint32_t *recs = (uint32_t *)(e->flat.mem + e->recs);
	struct trace_records *s;
	struct trace_error terr;
	const uint64_t *r;
	uint64_t n = 0, args[7];
	uint32_t id, cnt, k;
	size_t w, nw;
	long a = -1;
	int ret;

	if (!tl->access_count)
		return 0;
	if (trace_records_open(p->reader, li, &s, &terr)) {
		snprintf(err, errlen, "%s", terr.message);
		return -1;
	}
	nw = trace_records_warps(s);
	for (w = 0; !(ret = trace_records_next(s, &id, &r, &cnt, &terr)); w++) {
		table[2 * w] = n;
		table[2 * w + 1] = cnt;
		for (k = 0; k < cnt; k++, n++) {
			uint64_t line = trace_access_line(r[k]);

			a = em_replay_find_line(p, live, nlive, line, a);
			if (a < 0) {
				trace_records_close(s);
				snprintf(err, errlen, "launch %zu: a line outside every allocation", li);
				return -1;
			}
			recs[n] = (uint32_t)((place[a] + em_replay_offset(p, &p->allocs[a], line)) /
					     128) << EMGPU_TRACE_REC_SHIFT |
				  (r[k] & TRACE_ACCESS_READ ? EMGPU_TRACE_REC_READ : 0) |
				  (r[k] & TRACE_ACCESS_WRITE ? EMGPU_TRACE_REC_WRITE : 0);
		}
	}
	trace_records_close(s);
	if (ret < 0) {
		snprintf(err, errlen, "%s", terr.message);
		return -1;
	}
	args[0] = TM_VA + e->data_bytes;
	args[1] = nw;
	args[2] = TM_VA + e->data_bytes + (e->recs - e->streams);
	args[3] = n;
	args[4] = TM_VA;
	args[5] = e->data_bytes;
	args[6] = em_replay_compute_units(tt->gpu_time_ns, nw < slots ? (uint32_t)nw : slots, n);
	*d = gmt_launch_desc(EMGPU_KERNEL_TRACE, nw < slots ? (uint32_t)nw : slots, 1, args, 7);
	return (long long)n;
}

/* Runs the launch to its end; every page is mapped, so nothing may stop it. */
static int run_launch(struct tm_env *e, const struct emgpu_launch_desc *d,
		      uint64_t *ns)
{
	enum gm_stop s;

	if (gm_launch(e->g, d))
		return -1;
	do
		s = gm_run(e->g, 0);
	while (s == GM_STOP_BUDGET || s == GM_STOP_TIMER);
	if (s != GM_STOP_LAUNCH_DONE)
		return -1;
	*ns = gm_launch_time_ns(e->g);
	return 0;
}

/*
 * Every launch of the plan on the profile in one place: ns[li] (0 for a
 * launch without records), recs[li]. 0, or 1 with a message printed.
 */
static int model_launches(struct em_replay_plan *p, const struct gm_profile *prof,
			  enum tm_place where, uint64_t *ns, uint64_t *recs)
{
	uint64_t *place = calloc(p->nallocs ? p->nallocs : 1, sizeof(*place));
	uint32_t *live = calloc(EM_REPLAY_MAX_ALLOCS, sizeof(*live));
	uint32_t slots = prof->num_sms * prof->warps_per_sm;
	uint64_t data = 0;
	struct tm_env e;
	char err[320];
	size_t i, nlive = 0;
	int ret = 1;

	if (!place || !live)
		goto out;
	for (i = 0; i < p->nallocs; i++) {
		place[i] = data;
		data += (p->allocs[i].size + TM_ALIGN - 1) & ~(TM_ALIGN - 1);
	}
	if (env_new(&e, prof, where, data, p)) {
		fprintf(stderr, "trace-model: %s: the allocations (%llu bytes, laid out "
			"without reuse) do not fit %s\n", p->name, (unsigned long long)data,
			prof->name);
		env_free(&e);
		goto out;
	}
	for (i = 0; i < trace_event_count(p->reader); i++) {
		const struct trace_event *ev = trace_get_event(p->reader, i);
		struct emgpu_launch_desc d;
		long long n;

		if (ev->kind == TRACE_EVENT_ALLOC)
			em_replay_live_add(p, live, &nlive, p->alloc_of_event[i]);
		else if (ev->kind == TRACE_EVENT_FREE)
			em_replay_live_remove(live, &nlive, p->alloc_of_event[i]);
		if (ev->kind != TRACE_EVENT_LAUNCH)
			continue;
		n = lay_launch(&e, p, place, live, nlive, ev->arg32, slots, &d, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "trace-model: %s\n", err);
			goto out_env;
		}
		recs[ev->arg32] = (uint64_t)n;
		ns[ev->arg32] = 0;
		if (n && run_launch(&e, &d, &ns[ev->arg32])) {
			fprintf(stderr, "trace-model: %s: launch %u did not finish\n",
				p->name, ev->arg32);
			goto out_env;
		}
	}
	ret = 0;
out_env:
	env_free(&e);
out:
	free(place);
	free(live);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* mapped - resident = a + b x records over the launches with records */
static void fit(const uint64_t *res, const uint64_t *map, const uint64_t *recs,
		size_t n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = (double)recs[i], y = (double)map[i] - (double)res[i];

		if (!recs[i])
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		m++;
	}
	*b = m * sxx - sx * sx != 0 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : 0;
	*a = m ? (sy - *b * sx) / m : 0;
}

static uint64_t sum(const uint64_t *v, const uint64_t *recs, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += recs[i] ? v[i] : 0;
	return s;
}

/* launches with records: the fit of a few launches of one size says nothing */
#define TM_FIT_MIN	16

static void row(const char *name, const uint64_t *res, const uint64_t *map,
		const uint64_t *recs, size_t n)
{
	uint64_t r = sum(recs, recs, n), m = 0;
	double a, b;
	size_t i;

	for (i = 0; i < n; i++)
		m += recs[i] != 0;
	printf("| %s | %.3f | %.3f | %.2f |", name, sum(res, recs, n) / 1e6,
	       sum(map, recs, n) / 1e6,
	       r ? ((double)sum(map, recs, n) - (double)sum(res, recs, n)) / (double)r : 0);
	if (m < TM_FIT_MIN) {
		printf(" - |\n");
		return;
	}
	fit(res, map, recs, n, &a, &b);
	printf(" %.2f us + %.2f ns x records |\n", a / 1e3, b);
}

int main(int argc, char **argv)
{
	const char *profiles[TM_MAX_PROFILES];
	struct gm_profile prof[TM_MAX_PROFILES];
	uint64_t *ns[TM_MAX_PROFILES][TM_PLACES], *recs, *card_res, *card_map;
	struct trace_reader *card[TM_MAX_CARD];
	struct trace_reader_limits lim;
	struct em_replay_plan p;
	struct trace_error terr;
	double factor = 0.5;
	int nprof = 0, ncard = 0, verbose = 0, c, i, k;
	char err[320], name[96];
	size_t nl, li;

	while ((c = getopt(argc, argv, "vx:p:")) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 'x':
			factor = atof(optarg);
			break;
		case 'p':
			if (nprof == TM_MAX_PROFILES)
				return die("too many profiles");
			profiles[nprof++] = optarg;
			break;
		default:
			return die("usage: trace-model [-v] [-x FACTOR] [-p PROFILE]... "
				   "ACCESSES TIMING [CARD...]");
		}
	}
	if (argc - optind < 2 || argc - optind - 2 > TM_MAX_CARD || factor <= 0)
		return die("usage: trace-model [-v] [-x FACTOR] [-p PROFILE]... "
			   "ACCESSES TIMING [CARD...]");
	if (!nprof)
		profiles[nprof++] = "h200-64m";
	for (i = 0; i < nprof; i++)
		if (gm_profile_lookup(profiles[i], &prof[i]))
			return die("unknown profile");
	trace_reader_default_limits(&lim);
	for (i = optind + 2; i < argc; i++)
		if (trace_open(argv[i], &lim, &card[ncard++], &terr))
			return die(terr.message);
	if (em_replay_open(&p, argv[optind], argv[optind + 1], true, err, sizeof(err)))
		return die(err);
	nl = trace_launch_count(p.reader);
	for (i = 0; i < ncard; i++)
		if (trace_launch_count(card[i]) != nl)
			return die("a card trace of another program (launch count)");
	recs = calloc(nl, sizeof(*recs));
	card_res = calloc(nl, sizeof(*card_res));
	card_map = calloc(nl, sizeof(*card_map));
	if (!recs || !card_res || !card_map)
		return die(strerror(ENOMEM));
	for (i = 0; i < nprof; i++) {
		/* the footprint as the VM's replay scales it on this profile */
		if (em_replay_layout(&p, (uint64_t)(factor * (double)prof[i].vram_bytes),
				     err, sizeof(err)))
			return die(err);
		for (k = 0; k < TM_PLACES; k++) {
			ns[i][k] = calloc(nl, sizeof(uint64_t));
			if (!ns[i][k] || model_launches(&p, &prof[i], (enum tm_place)k,
							ns[i][k], recs))
				return 1;
		}
	}
	for (li = 0; li < nl; li++) {
		uint64_t v[TM_MAX_CARD];

		card_res[li] = trace_get_launch(p.timing, li)->gpu_time_ns;
		for (i = 0; i < ncard; i++)
			v[i] = trace_get_launch(card[i], li)->gpu_time_ns;
		qsort(v, (size_t)ncard, sizeof(v[0]), cmp_u64);
		card_map[li] = ncard ? (ncard % 2 ? v[ncard / 2] :
					(v[ncard / 2 - 1] + v[ncard / 2]) / 2) : 0;
		if (!verbose)
			continue;
		printf("launch %zu warps %llu records %llu card_resident_ns %llu card_mapped_ns %llu",
		       li, (unsigned long long)(trace_get_launch(p.reader, li)->grid[0] *
						 (uint64_t)trace_get_launch(p.reader, li)->grid[1] *
						 trace_get_launch(p.reader, li)->grid[2] *
						 trace_get_launch(p.reader, li)->warps_per_block),
		       (unsigned long long)recs[li], (unsigned long long)card_res[li],
		       (unsigned long long)card_map[li]);
		for (i = 0; i < nprof; i++)
			printf(" %s_resident_ns %llu %s_mapped_ns %llu", profiles[i],
			       (unsigned long long)ns[i][TM_VRAM][li], profiles[i],
			       (unsigned long long)ns[i][TM_SYSMEM][li]);
		printf("\n");
	}
	printf("| %s at %g x VRAM | resident, ms | mapped, ms | mapped - resident per record, ns | "
	       "mapped - resident per launch (fit) |\n", p.name, factor);
	printf("| --- | --- | --- | --- | --- |\n");
	if (ncard)
		row("card (resident: TIMING; mapped: median of CARD)", card_res, card_map, recs, nl);
	for (i = 0; i < nprof; i++) {
		snprintf(name, sizeof(name), "model, %s", profiles[i]);
		row(name, ns[i][TM_VRAM], ns[i][TM_SYSMEM], recs, nl);
	}
	em_replay_close(&p);
	return 0;
}
