// SPDX-License-Identifier: MIT
/*
 * libum-trace.so: the card's unified-memory traffic of an unmodified CUDA
 * program, through CUPTI's unified memory counters (LD_PRELOAD; the
 * device machine has no working Nsight Systems). At exit one JSON line on
 * stderr: the host-to-device migrations (count, bytes, and how many of
 * each size up to 4 KiB, 64 KiB, 512 KiB, 2 MiB and above) and the GPU
 * page-fault groups CUPTI reports (count, and the faults they hold), to
 * set beside the testbed's bytes_h2d and fault_batches. Timing under it
 * is not the program's. Built by tests/hw/fidelity.sh (PARTS=um).
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BUF_BYTES (8u << 20)

struct um_totals {
	uint64_t htod, htod_bytes, by_size[5];
	uint64_t fault_groups, faults;
	uint64_t dropped;
};

static struct um_totals totals;	/* CUPTI's callbacks take no context */

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = aligned_alloc(8, BUF_BYTES);
	*size = *buf ? BUF_BYTES : 0;
	*max = 0;
}

static void count(const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
	static const uint64_t limit[4] = { 4096, 65536, 524288, 2097152 };
	int i;

	if (u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD) {
		totals.htod++;
		totals.htod_bytes += u->value;
		for (i = 0; i < 4 && u->value > limit[i]; i++)
			;
		totals.by_size[i]++;
	} else if (u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT) {
		totals.fault_groups++;
		totals.faults += u->value;
	}
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf,
				      size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;

	(void)ctx;
	(void)stream;
	(void)size;
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
		if (rec->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
			count((const CUpti_ActivityUnifiedMemoryCounter3 *)rec);
	cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
	totals.dropped += dropped;
	free(buf);
}

static void report(void)
{
	cuptiActivityFlushAll(1);
	fprintf(stderr, "{\"um_htod_migrations\":%llu,\"um_htod_bytes\":%llu,"
		"\"um_htod_le_4k\":%llu,\"um_htod_le_64k\":%llu,\"um_htod_le_512k\":%llu,"
		"\"um_htod_le_2m\":%llu,\"um_htod_gt_2m\":%llu,\"um_gpu_fault_groups\":%llu,"
		"\"um_gpu_faults\":%llu,\"um_dropped\":%llu}\n",
		(unsigned long long)totals.htod, (unsigned long long)totals.htod_bytes,
		(unsigned long long)totals.by_size[0], (unsigned long long)totals.by_size[1],
		(unsigned long long)totals.by_size[2], (unsigned long long)totals.by_size[3],
		(unsigned long long)totals.by_size[4], (unsigned long long)totals.fault_groups,
		(unsigned long long)totals.faults, (unsigned long long)totals.dropped);
}

__attribute__((constructor)) static void um_trace_init(void)
{
	CUpti_ActivityUnifiedMemoryCounterConfig cfg[2] = {
		{ CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE,
		  CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, 0, 1 },
		{ CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE,
		  CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, 0, 1 },
	};

	const char *call = "cuptiActivityConfigureUnifiedMemoryCounter", *why = "";
	CUptiResult r;

	cuInit(0);	/* the counters need the driver up (else NOT_READY) */
	r = cuptiActivityConfigureUnifiedMemoryCounter(cfg, 2);

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
	atexit(report);
}
