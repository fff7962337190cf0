// SPDX-License-Identifier: MIT
/*
 * libum-trace.so: the card's unified-memory traffic of an unmodified CUDA
 * program, through CUPTI's unified memory counters (LD_PRELOAD; the
 * device machine has no working Nsight Systems). At exit one JSON line on
 * stderr: the host-to-device migrations (count, bytes, how many of each
 * size up to 4 KiB, 64 KiB, 512 KiB, 2 MiB and above, and by the cause
 * CUPTI gives: fault, prefetch, eviction, access counters), the
 * device-to-host ones, the GPU page-fault records (one a faulting page
 * and batch of the driver: count, and the fault groups they hold), remote
 * maps, thrashing and throttling events, and the record accounting that
 * says whether the counts are whole: records CUPTI dropped for want of
 * buffer space (cuptiActivityGetNumDroppedRecords), records counted when
 * the context began its teardown (-1: none began before exit), and records
 * that arrived only after a forced flush at exit (delivered late). Records
 * lost before CUPTI's buffers show in none of these (docs/real-cards.md): a
 * run is whole only if its bytes add up (tests/hw/um_records.py --jsonl). UM_TRACE_RECORDS=FILE also writes
 * every record as a CSV row (kind,value,start_ns,end_ns,address,flags) for
 * the analysis of tests/hw/um_records.py; UM_TRACE_FLUSH_MS=N has CUPTI
 * deliver its buffers every N ms (cuptiActivityFlushPeriod) instead of
 * when they fill. Timing under it is not the program's. Built by tests/hw/fidelity.sh (PARTS=um).
 */
#define _POSIX_C_SOURCE 200809L	/* nanosleep */
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BUF_BYTES (8u << 20)

enum { SIZE_CLASSES = 5, CAUSES = 6 };

struct um_totals {
	uint64_t htod, htod_bytes, by_size[SIZE_CLASSES], by_cause[CAUSES];
	uint64_t dtoh, dtoh_bytes;
	uint64_t fault_records, fault_groups;
	uint64_t remote_maps, remote_map_bytes, thrashing, throttling;
	uint64_t records, records_at_teardown, dropped;
	int teardown_seen;
};

/*
 * CUPTI's callbacks take no user pointer, so the state is file-scope;
 * buffer_completed may run on CUPTI's thread and on the exiting one, so
 * lock guards totals and records_csv.
 */
static struct {
	pthread_mutex_t lock;
	struct um_totals totals;
	FILE *records_csv;
	CUpti_SubscriberHandle subscriber;
} um = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = aligned_alloc(8, BUF_BYTES);
	*size = *buf ? BUF_BYTES : 0;
	*max = 0;
}

static void count_migration(struct um_totals *t, const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
	static const uint64_t limit[SIZE_CLASSES - 1] = { 4096, 65536, 524288, 2097152 };
	int i;

	t->htod++;
	t->htod_bytes += u->value;
	for (i = 0; i < SIZE_CLASSES - 1 && u->value > limit[i]; i++)
		;
	t->by_size[i]++;
	t->by_cause[u->flags < CAUSES ? u->flags : 0]++;
}

static void count(struct um_totals *t, const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
	t->records++;
	switch (u->counterKind) {
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
		count_migration(t, u);
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
		t->dtoh++;
		t->dtoh_bytes += u->value;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
		t->fault_records++;
		t->fault_groups += u->value;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP:
		t->remote_maps++;
		t->remote_map_bytes += u->value;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING:
		t->thrashing++;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING:
		t->throttling++;
		break;
	default:
		break;
	}
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf,
				      size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;

	(void)size;
	pthread_mutex_lock(&um.lock);
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
		const CUpti_ActivityUnifiedMemoryCounter3 *u = (const void *)rec;

		if (rec->kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
			continue;
		count(&um.totals, u);
		if (um.records_csv)
			fprintf(um.records_csv, "%d,%llu,%llu,%llu,0x%llx,%u\n",
				(int)u->counterKind, (unsigned long long)u->value,
				(unsigned long long)u->start, (unsigned long long)u->end,
				(unsigned long long)u->address, (unsigned)u->flags);
	}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
		um.totals.dropped += dropped;
	pthread_mutex_unlock(&um.lock);
	free(buf);
}

/*
 * The runtime registers its own exit handler after this library's, so it
 * tears the context down first: flush there, while the driver still
 * delivers, and remember how many records had come by then.
 */
static void CUPTIAPI on_resource(void *data, CUpti_CallbackDomain domain,
				 CUpti_CallbackId id, const void *info)
{
	(void)data;
	(void)info;
	if (domain != CUPTI_CB_DOMAIN_RESOURCE ||
	    id != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
		return;
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&um.lock);
	um.totals.records_at_teardown = um.totals.records;
	um.totals.teardown_seen = 1;
	pthread_mutex_unlock(&um.lock);
}

static uint64_t flush_and_count(void)
{
	uint64_t n;

	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&um.lock);
	n = um.totals.records;
	pthread_mutex_unlock(&um.lock);
	return n;
}

static void report(void)
{
	const struct timespec settle = { 0, 200 * 1000 * 1000 };
	struct um_totals t;
	uint64_t first, late;
	size_t dropped = 0;

	/* a second flush after a pause shows records still in flight */
	first = flush_and_count();
	nanosleep(&settle, NULL);
	late = flush_and_count() - first;
	pthread_mutex_lock(&um.lock);
	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS)
		um.totals.dropped += dropped;
	t = um.totals;
	if (um.records_csv)
		fclose(um.records_csv);
	um.records_csv = NULL;
	pthread_mutex_unlock(&um.lock);

	fprintf(stderr, "{\"um_htod_migrations\":%llu,\"um_htod_bytes\":%llu,"
		"\"um_htod_le_4k\":%llu,\"um_htod_le_64k\":%llu,\"um_htod_le_512k\":%llu,"
		"\"um_htod_le_2m\":%llu,\"um_htod_gt_2m\":%llu,"
		"\"um_htod_cause_unknown\":%llu,\"um_htod_cause_user\":%llu,"
		"\"um_htod_cause_coherence\":%llu,\"um_htod_cause_prefetch\":%llu,"
		"\"um_htod_cause_eviction\":%llu,\"um_htod_cause_access_counters\":%llu,"
		"\"um_dtoh_migrations\":%llu,\"um_dtoh_bytes\":%llu,"
		"\"um_gpu_fault_records\":%llu,\"um_gpu_fault_groups\":%llu,"
		"\"um_remote_maps\":%llu,\"um_remote_map_bytes\":%llu,"
		"\"um_thrashing\":%llu,\"um_throttling\":%llu,\"um_records\":%llu,"
		"\"um_records_at_teardown\":%lld,\"um_records_late\":%llu,\"um_dropped\":%llu}\n",
		(unsigned long long)t.htod, (unsigned long long)t.htod_bytes,
		(unsigned long long)t.by_size[0], (unsigned long long)t.by_size[1],
		(unsigned long long)t.by_size[2], (unsigned long long)t.by_size[3],
		(unsigned long long)t.by_size[4], (unsigned long long)t.by_cause[0],
		(unsigned long long)t.by_cause[1], (unsigned long long)t.by_cause[2],
		(unsigned long long)t.by_cause[3], (unsigned long long)t.by_cause[4],
		(unsigned long long)t.by_cause[5], (unsigned long long)t.dtoh,
		(unsigned long long)t.dtoh_bytes, (unsigned long long)t.fault_records,
		(unsigned long long)t.fault_groups, (unsigned long long)t.remote_maps,
		(unsigned long long)t.remote_map_bytes, (unsigned long long)t.thrashing,
		(unsigned long long)t.throttling, (unsigned long long)t.records,
		t.teardown_seen ? (long long)t.records_at_teardown : -1LL,
		(unsigned long long)late, (unsigned long long)t.dropped);
}

__attribute__((constructor)) static void um_trace_init(void)
{
	static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
	};
	enum { NKINDS = sizeof(kinds) / sizeof(kinds[0]) };
	CUpti_ActivityUnifiedMemoryCounterConfig cfg[NKINDS];
	const char *call = "cuptiActivityConfigureUnifiedMemoryCounter", *why = "";
	const char *csv = getenv("UM_TRACE_RECORDS");
	const char *flush_ms = getenv("UM_TRACE_FLUSH_MS");
	CUptiResult r;
	int i;

	for (i = 0; i < NKINDS; i++)
		cfg[i] = (CUpti_ActivityUnifiedMemoryCounterConfig){
			CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE,
			kinds[i], 0, 1
		};
	if (csv && csv[0]) {
		um.records_csv = fopen(csv, "w");
		if (um.records_csv)
			fputs("kind,value,start_ns,end_ns,address,flags\n", um.records_csv);
		else
			perror(csv);
	}

	cuInit(0);	/* the counters need the driver up (else NOT_READY) */
	r = cuptiActivityConfigureUnifiedMemoryCounter(cfg, NKINDS);
	if (r != CUPTI_SUCCESS) {	/* migrations and faults alone, then */
		fprintf(stderr, "um-trace: remote map, thrashing, throttling: %d\n", (int)r);
		r = cuptiActivityConfigureUnifiedMemoryCounter(cfg, 3);
	}
	if (r == CUPTI_SUCCESS) {
		call = "cuptiActivityRegisterCallbacks";
		r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	}
	if (r == CUPTI_SUCCESS) {
		call = "cuptiActivityEnable";
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	}
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &why);
		fprintf(stderr, "um-trace: %s: %s (%d)\n", call, why, (int)r);
		return;
	}
	if (flush_ms && atoi(flush_ms) > 0 &&
	    cuptiActivityFlushPeriod((uint32_t)atoi(flush_ms)) != CUPTI_SUCCESS)
		fprintf(stderr, "um-trace: cuptiActivityFlushPeriod failed\n");
	/* without the teardown flush the counts still come, at exit */
	call = "cuptiSubscribe";
	r = cuptiSubscribe(&um.subscriber, on_resource, NULL);
	if (r == CUPTI_SUCCESS) {
		call = "cuptiEnableCallback";
		r = cuptiEnableCallback(1, um.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
					CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	}
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &why);
		fprintf(stderr, "um-trace: %s: %s (%d)\n", call, why, (int)r);
	}
	atexit(report);
}
