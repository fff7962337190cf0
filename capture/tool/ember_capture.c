// SPDX-License-Identifier: MIT
/*
 * ember-capture: a Compute Sanitizer tool, injected into an unmodified CUDA
 * program with CUDA_INJECTION64_PATH=libember-capture.so, that writes one
 * trace (docs/trace-format.md) of what the program did: allocations and
 * frees (resource domain), advice and prefetches (driver API domain, by the
 * function's name), copies, memsets, synchronizations and launches in the
 * order they were issued, and per launch each warp's 128-byte lines
 * (ember_capture_patch.cu).
 *
 * Each launch is synchronized before and after: its time on the card is
 * the host's clock across it (launch overhead included), and its records
 * are drained at its end, so one device buffer serves every launch. The
 * buffer is as large as the host can sort at a launch's end (a quarter of
 * its memory at HOST_BYTES_PER_RECORD a record) and the card can hold, so
 * no launch of a program whose records fit the host is cut short; records
 * past it are counted, never dropped silently. Lines outside every
 * allocation the tool saw are counted and left out (the trace's reader
 * refuses them).
 *
 * Environment:
 *   EMBER_CAPTURE_OUTPUT       trace path (default ember-capture.trace)
 *   EMBER_CAPTURE_PATCH        the patch fatbin (default: beside this .so)
 *   EMBER_CAPTURE_MODE         "accesses" (default) or "timing" (no patch)
 *   EMBER_CAPTURE_MAX_RECORDS  cap on records per launch (default: the
 *                              buffer above, at most 2^32 - 1)
 *   EMBER_CAPTURE_META         "key=value;key=value" added to META
 *   EMBER_CAPTURE_GATE         a FIFO: the process waits for its turn on
 *                              the card there before the tool does
 *                              anything (capture_gate.h), and META's
 *                              gate_wait_ms says how long it waited
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sanitizer.h>

#include "capture_gate.h"
#include "capture_patch.h"
#include "trace.h"

/* What the host holds per record while it sorts and writes a launch: the
 * drained record (16), its sort slot (8), its line (8), a warp entry
 * (16) and the section's raw and compressed bytes (8 + 8). */
#define HOST_BYTES_PER_RECORD 64
/* The sort slots number records in 32 bits. */
#define MAX_RECORDS_PER_LAUNCH 0xffffffffull
/* The least buffer worth allocating when the card is short of memory. */
#define MIN_RECORDS_PER_LAUNCH (1ull << 20)
#define MAX_CONTEXTS 8
#define CALLBACK_NAME "ember_capture_global_access"

struct live_allocation {
	uint64_t base;
	uint64_t size;
	uint32_t kind;		/* enum trace_memory_kind */
};

struct context_buffer {
	CUcontext context;
	void *device;		/* struct capture_launch_buffer, then records */
	uint64_t capacity;	/* records the device buffer holds */
};

struct pending_launch {
	uint32_t launch_index;
	struct trace_launch record;
	uint64_t begin_ns;
	Sanitizer_StreamHandle stream;
	struct context_buffer *buffer;
};

struct capture_state {
	Sanitizer_SubscriberHandle subscriber;
	pthread_mutex_t lock;		/* events, allocations, writer */
	pthread_mutex_t launch_lock;	/* one launch in flight: one buffer */
	struct trace_writer *writer;
	uint64_t start_ns;
	int record_accesses;
	char patch_path[4096];
	uint64_t max_records;
	struct context_buffer contexts[MAX_CONTEXTS];
	struct live_allocation *live;	/* sorted by base */
	size_t live_count, live_capacity;
	struct pending_launch launch;
	struct capture_launch_buffer host_header;
	struct capture_device_record *host_records;	/* grown to a launch's count */
	uint64_t host_records_capacity;
	uint64_t events_skipped;	/* advice, prefetch, memset on unknown memory */
	uint64_t total_dropped, total_outside;
	int failed;
};

/*
 * The one root pointer. The sanitizer hands every callback our state as
 * its userdata, but the trace can only be finished in an atexit() handler,
 * which takes no argument: this is how that handler finds the state.
 */
static struct capture_state *capture_root;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void complain(const char *what, SanitizerResult result)
{
	const char *text = "?";

	sanitizerGetResultString(result, &text);
	fprintf(stderr, "ember-capture: %s: %s\n", what, text);
}

#define CHECKED(call, what)                                                   \
	do {                                                                  \
		SanitizerResult checked_result = (call);                      \
		if (checked_result != SANITIZER_SUCCESS)                      \
			complain(what, checked_result);                       \
	} while (0)

static void add_event(struct capture_state *s, uint16_t kind, uint32_t arg32,
		      uint64_t address, uint64_t size, uint64_t arg64)
{
	struct trace_event e = { .kind = kind, .arg32 = arg32,
				 .address = address, .size = size,
				 .arg64 = arg64,
				 .host_time_ns = now_ns() - s->start_ns };

	if (s->writer && trace_writer_add_event(s->writer, &e) && !s->failed) {
		fprintf(stderr, "ember-capture: %s\n",
			trace_writer_last_error(s->writer));
		s->failed = 1;
	}
}

/* Index of the first live allocation with base above `address`. */
static size_t live_upper_bound(const struct capture_state *s, uint64_t address)
{
	size_t low = 0, high = s->live_count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (s->live[mid].base <= address)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

static const struct live_allocation *live_holding(const struct capture_state *s,
						  uint64_t address, uint64_t size)
{
	size_t at = live_upper_bound(s, address);
	const struct live_allocation *a;

	if (!at)
		return NULL;
	a = &s->live[at - 1];
	if (address - a->base >= a->size || size > a->size - (address - a->base))
		return NULL;
	return a;
}

static void on_alloc(struct capture_state *s, uint64_t base, uint64_t size,
		     uint32_t kind)
{
	size_t at;

	if (!size)
		return;
	at = live_upper_bound(s, base);
	/* A range the tool still holds as live (a free it did not see):
	 * forget the old one so the trace stays consistent. */
	if (at && base - s->live[at - 1].base < s->live[at - 1].size) {
		add_event(s, TRACE_EVENT_FREE, 0, s->live[at - 1].base, 0, 0);
		memmove(&s->live[at - 1], &s->live[at],
			(s->live_count - at) * sizeof(*s->live));
		s->live_count--;
		at--;
	}
	while (at < s->live_count && s->live[at].base - base < size) {
		add_event(s, TRACE_EVENT_FREE, 0, s->live[at].base, 0, 0);
		memmove(&s->live[at], &s->live[at + 1],
			(s->live_count - at - 1) * sizeof(*s->live));
		s->live_count--;
	}
	if (s->live_count == s->live_capacity) {
		size_t capacity = s->live_capacity ? s->live_capacity * 2 : 256;
		struct live_allocation *grown =
			realloc(s->live, capacity * sizeof(*grown));

		if (!grown) {
			s->failed = 1;
			return;
		}
		s->live = grown;
		s->live_capacity = capacity;
	}
	memmove(&s->live[at + 1], &s->live[at],
		(s->live_count - at) * sizeof(*s->live));
	s->live[at] = (struct live_allocation){ base, size, kind };
	s->live_count++;
	add_event(s, TRACE_EVENT_ALLOC, kind, base, size, 0);
}

static void on_free(struct capture_state *s, uint64_t base)
{
	size_t at = live_upper_bound(s, base);

	if (!at || s->live[at - 1].base != base)
		return;		/* never seen allocated: nothing to free */
	memmove(&s->live[at - 1], &s->live[at],
		(s->live_count - at) * sizeof(*s->live));
	s->live_count--;
	add_event(s, TRACE_EVENT_FREE, 0, base, 0, 0);
}

/* The record buffer: max_records if the card has room, else the most
 * it has, halving down to MIN_RECORDS_PER_LAUNCH. */
static void allocate_record_buffer(struct capture_state *s, struct context_buffer *b)
{
	for (uint64_t records = s->max_records;; records /= 2) {
		size_t bytes = sizeof(struct capture_launch_buffer) + 64 +
			       records * sizeof(struct capture_device_record);
		SanitizerResult result = sanitizerAlloc(b->context, &b->device, bytes);

		if (result == SANITIZER_SUCCESS) {
			b->capacity = records;
			if (records < s->max_records)
				fprintf(stderr, "ember-capture: record buffer of %llu records (card short of memory)\n",
					(unsigned long long)records);
			return;
		}
		if (records / 2 < MIN_RECORDS_PER_LAUNCH) {
			complain("allocating the record buffer", result);
			b->device = NULL;
			return;
		}
	}
}

static void context_created(struct capture_state *s, CUcontext context)
{
	for (int i = 0; i < MAX_CONTEXTS; i++) {
		if (s->contexts[i].context)
			continue;
		s->contexts[i].context = context;
		if (!s->record_accesses)
			return;
		CHECKED(sanitizerAddPatchesFromFile(s->patch_path, context),
			"loading the patch module");
		allocate_record_buffer(s, &s->contexts[i]);
		return;
	}
	fprintf(stderr, "ember-capture: more than %d contexts: later ones unrecorded\n",
		MAX_CONTEXTS);
}

static struct context_buffer *context_buffer(struct capture_state *s,
					     CUcontext context)
{
	for (int i = 0; i < MAX_CONTEXTS; i++)
		if (s->contexts[i].context == context)
			return &s->contexts[i];
	return NULL;
}

static void module_loaded(struct capture_state *s, CUmodule module)
{
	if (!s->record_accesses)
		return;
	CHECKED(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS,
					   module, CALLBACK_NAME),
		"patching global accesses");
	CHECKED(sanitizerPatchModule(module), "patching a module");
}

static void launch_begin(struct capture_state *s, const Sanitizer_LaunchData *ld)
{
	struct pending_launch *p = &s->launch;
	uint64_t threads = (uint64_t)ld->blockDim_x * ld->blockDim_y * ld->blockDim_z;

	pthread_mutex_lock(&s->launch_lock);
	memset(p, 0, sizeof(*p));
	p->record.grid[0] = ld->gridDim_x;
	p->record.grid[1] = ld->gridDim_y;
	p->record.grid[2] = ld->gridDim_z;
	p->record.block[0] = ld->blockDim_x;
	p->record.block[1] = ld->blockDim_y;
	p->record.block[2] = ld->blockDim_z;
	p->record.warps_per_block = (uint32_t)((threads + 31) / 32);
	if (!s->record_accesses)
		p->record.flags = TRACE_LAUNCH_NO_ACCESSES;
	p->stream = ld->hStream;
	pthread_mutex_lock(&s->lock);
	if (s->writer &&
	    trace_writer_add_launch(s->writer, &p->record,
				    ld->functionName ? ld->functionName : "?",
				    now_ns() - s->start_ns, &p->launch_index))
		s->failed = 1;
	pthread_mutex_unlock(&s->lock);

	p->buffer = context_buffer(s, ld->context);
	if (s->record_accesses && p->buffer && p->buffer->device) {
		uint8_t *device = p->buffer->device;

		s->host_header.claimed = 0;
		s->host_header.capacity = p->buffer->capacity;
		s->host_header.records = (struct capture_device_record *)
			(device + ((sizeof(struct capture_launch_buffer) + 63) & ~63ull));
		s->host_header.warps_per_block = p->record.warps_per_block;
		CHECKED(sanitizerMemcpyHostToDeviceAsync(device, &s->host_header,
							 sizeof(s->host_header),
							 ld->hStream),
			"writing the buffer header");
		CHECKED(sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function,
						       ld->hStream, device),
			"setting the patch's data");
	}
	/* What ran before is not this kernel's time. */
	CHECKED(sanitizerStreamSynchronize(ld->hStream), "synchronizing");
	p->begin_ns = now_ns();
}

struct warp_slot {
	uint32_t warp_id;
	uint32_t position;
};

static int compare_warp_slot(const void *a, const void *b)
{
	const struct warp_slot *x = a, *y = b;

	if (x->warp_id != y->warp_id)
		return x->warp_id < y->warp_id ? -1 : 1;
	return x->position < y->position ? -1 : x->position > y->position;
}

/* Orders the drained records warp by warp (each warp's in claim order,
 * which is its program order), leaves out lines outside every live
 * allocation, and writes the launch's ACCESSES section. */
static void write_accesses(struct capture_state *s, struct pending_launch *p,
			   uint64_t count)
{
	struct warp_slot *slots = malloc((count + 1) * sizeof(*slots));
	uint64_t *lines = malloc((count + 1) * sizeof(*lines));
	struct trace_warp_records *warps = malloc((count + 1) * sizeof(*warps));
	size_t warp_count = 0, kept = 0;
	uint64_t grid_warps = (uint64_t)p->record.grid[0] * p->record.grid[1] *
			      p->record.grid[2] * p->record.warps_per_block;

	if (!slots || !lines || !warps) {
		s->failed = 1;
		goto out;
	}
	for (uint64_t i = 0; i < count; i++)
		slots[i] = (struct warp_slot){ s->host_records[i].warp_id, (uint32_t)i };
	qsort(slots, count, sizeof(*slots), compare_warp_slot);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t record = s->host_records[slots[i].position].line_and_flags;
		uint64_t line = record & CAPTURE_LINE_MASK;

		if (slots[i].warp_id >= grid_warps ||
		    (!live_holding(s, line, 1) && !live_holding(s, line + 127, 1))) {
			p->record.outside_count++;
			continue;
		}
		if (!warp_count || warps[warp_count - 1].warp_id != slots[i].warp_id)
			warps[warp_count++] = (struct trace_warp_records){
				slots[i].warp_id, 0, lines + kept };
		warps[warp_count - 1].record_count++;
		lines[kept++] = record;
	}
	p->record.access_count = kept;
	if (kept && trace_writer_add_accesses(s->writer, p->launch_index, warps,
					      warp_count)) {
		fprintf(stderr, "ember-capture: %s\n",
			trace_writer_last_error(s->writer));
		s->failed = 1;
	}
out:
	free(slots);
	free(lines);
	free(warps);
}

static void launch_end(struct capture_state *s, const Sanitizer_LaunchData *ld)
{
	struct pending_launch *p = &s->launch;

	CHECKED(sanitizerStreamSynchronize(ld->hStream), "synchronizing");
	p->record.gpu_time_ns = now_ns() - p->begin_ns;
	pthread_mutex_lock(&s->lock);
	if (s->record_accesses && p->buffer && p->buffer->device && s->writer) {
		struct capture_launch_buffer header;
		uint64_t capacity = p->buffer->capacity, count;

		CHECKED(sanitizerMemcpyDeviceToHost(&header, p->buffer->device,
						    sizeof(header), ld->hStream),
			"reading the buffer header");
		count = header.claimed < capacity ? header.claimed : capacity;
		if (header.claimed > capacity) {
			p->record.dropped_count = header.claimed - capacity;
			p->record.flags |= TRACE_LAUNCH_ACCESSES_DROPPED;
			s->total_dropped += p->record.dropped_count;
		}
		if (count > s->host_records_capacity) {
			struct capture_device_record *grown =
				realloc(s->host_records, count * sizeof(*grown));

			if (!grown) {
				fprintf(stderr, "ember-capture: no memory for %llu records\n",
					(unsigned long long)count);
				p->record.dropped_count += count;
				p->record.flags |= TRACE_LAUNCH_ACCESSES_DROPPED;
				s->total_dropped += count;
				s->failed = 1;
				count = 0;
			} else {
				s->host_records = grown;
				s->host_records_capacity = count;
			}
		}
		if (count)
			CHECKED(sanitizerMemcpyDeviceToHost(s->host_records,
							    header.records,
							    count * sizeof(*s->host_records),
							    ld->hStream),
				"reading the records");
		write_accesses(s, p, count);
		s->total_outside += p->record.outside_count;
	}
	p->record.launch_index = p->launch_index;
	if (s->writer && trace_writer_update_launch(s->writer, &p->record))
		s->failed = 1;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&s->launch_lock);
}

/* Mirrors of the driver's parameter structs (cuda.h's signatures) for the
 * calls matched by name; the name says which layout applies. */
struct mem_location {
	int type;	/* CUmemLocationType: 1 device, 2 host, 3/4 host NUMA */
	int id;
};
struct cu_mem_advise_params {
	CUdeviceptr address;
	size_t count;
	int advice;
	int device;
};
struct cu_mem_advise_v2_params {
	CUdeviceptr address;
	size_t count;
	int advice;
	struct mem_location location;
};
struct cu_mem_prefetch_params {
	CUdeviceptr address;
	size_t count;
	int device;
	CUstream stream;
};
struct cu_mem_prefetch_v2_params {
	CUdeviceptr address;
	size_t count;
	struct mem_location location;
	unsigned int flags;
	CUstream stream;
};

static uint64_t device_of(int device)
{
	/* CU_DEVICE_CPU is -1. */
	return device < 0 ? TRACE_DEVICE_HOST : (uint64_t)device;
}

static uint64_t device_of_location(struct mem_location location)
{
	return location.type == 1 ? (uint64_t)location.id : TRACE_DEVICE_HOST;
}

/* Advice, prefetches and memsets of memory the tool saw allocated (advice
 * and prefetches: managed memory); others (memory from the virtual memory
 * API, say) are counted in META's events_skipped, not written, since the
 * trace's reader would refuse them. */
static void add_range_event(struct capture_state *s, uint16_t kind,
			    uint32_t arg32, uint64_t address, uint64_t size,
			    uint64_t arg64)
{
	const struct live_allocation *holder = size ? live_holding(s, address, size) : NULL;

	if (!holder || (kind != TRACE_EVENT_MEMSET && holder->kind != TRACE_MEMORY_MANAGED)) {
		s->events_skipped++;
		return;
	}
	add_event(s, kind, arg32, address, size, arg64);
}

static void driver_call(struct capture_state *s, const Sanitizer_CallbackData *cd)
{
	const char *name = cd->functionName;

	if (cd->callbackSite != SANITIZER_API_EXIT || !name ||
	    strncmp(name, "cuMem", 5) ||
	    (cd->functionReturnValue && *(const CUresult *)cd->functionReturnValue))
		return;
	if (!strncmp(name, "cuMemAdvise", 11)) {
		pthread_mutex_lock(&s->lock);
		if (strstr(name, "_v2")) {
			const struct cu_mem_advise_v2_params *a = cd->functionParams;

			add_range_event(s, TRACE_EVENT_ADVISE, (uint32_t)a->advice,
					a->address, a->count,
					device_of_location(a->location));
		} else {
			const struct cu_mem_advise_params *a = cd->functionParams;

			add_range_event(s, TRACE_EVENT_ADVISE, (uint32_t)a->advice,
					a->address, a->count, device_of(a->device));
		}
		pthread_mutex_unlock(&s->lock);
	} else if (!strncmp(name, "cuMemPrefetchAsync", 18) &&
		   !strstr(name, "Batch")) {
		pthread_mutex_lock(&s->lock);
		if (strstr(name, "_v2")) {
			const struct cu_mem_prefetch_v2_params *a = cd->functionParams;

			add_range_event(s, TRACE_EVENT_PREFETCH, 0, a->address,
					a->count, device_of_location(a->location));
		} else {
			const struct cu_mem_prefetch_params *a = cd->functionParams;

			add_range_event(s, TRACE_EVENT_PREFETCH, 0, a->address,
					a->count, device_of(a->device));
		}
		pthread_mutex_unlock(&s->lock);
	}
}

static void resource_event(struct capture_state *s, Sanitizer_CallbackId cbid,
			   const void *data)
{
	const Sanitizer_ResourceMemoryData *m = data;
	uint32_t kind;

	switch (cbid) {
	case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED:
		pthread_mutex_lock(&s->lock);
		context_created(s, ((const Sanitizer_ResourceContextData *)data)->context);
		pthread_mutex_unlock(&s->lock);
		break;
	case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
		module_loaded(s, ((const Sanitizer_ResourceModuleData *)data)->module);
		break;
	case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
	case SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC:
	case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
		kind = m->flags & SANITIZER_MEMORY_FLAG_MANAGED ? TRACE_MEMORY_MANAGED :
		       cbid == SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC ||
				       m->flags & SANITIZER_MEMORY_FLAG_HOST_PINNED ?
			       TRACE_MEMORY_HOST : TRACE_MEMORY_DEVICE;
		pthread_mutex_lock(&s->lock);
		on_alloc(s, m->address, m->size, kind);
		pthread_mutex_unlock(&s->lock);
		break;
	case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
	case SANITIZER_CBID_RESOURCE_HOST_MEMORY_FREE:
	case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
		pthread_mutex_lock(&s->lock);
		on_free(s, m->address);
		pthread_mutex_unlock(&s->lock);
		break;
	default:
		break;
	}
}

static void SANITIZERAPI on_callback(void *userdata, Sanitizer_CallbackDomain domain,
				     Sanitizer_CallbackId cbid, const void *data)
{
	struct capture_state *s = userdata;

	switch (domain) {
	case SANITIZER_CB_DOMAIN_RESOURCE:
		resource_event(s, cbid, data);
		break;
	case SANITIZER_CB_DOMAIN_LAUNCH:
		if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
			launch_begin(s, data);
		else if (cbid == SANITIZER_CBID_LAUNCH_END)
			launch_end(s, data);
		break;
	case SANITIZER_CB_DOMAIN_MEMCPY: {
		const Sanitizer_MemcpyData *c = data;

		pthread_mutex_lock(&s->lock);
		if (c->size)
			add_event(s, TRACE_EVENT_MEMCPY, (uint32_t)c->direction,
				  c->dstAddress, c->size, c->srcAddress);
		pthread_mutex_unlock(&s->lock);
		break;
	}
	case SANITIZER_CB_DOMAIN_MEMSET: {
		const Sanitizer_MemsetData *m = data;
		uint64_t rows = m->height ? m->height : 1;
		uint64_t size = rows > 1 ? m->pitch * (rows - 1) + m->width * m->elementSize :
					   m->width * m->elementSize;

		pthread_mutex_lock(&s->lock);
		add_range_event(s, TRACE_EVENT_MEMSET, m->value, m->address, size, 0);
		pthread_mutex_unlock(&s->lock);
		break;
	}
	case SANITIZER_CB_DOMAIN_SYNCHRONIZE:
		pthread_mutex_lock(&s->lock);
		add_event(s, TRACE_EVENT_SYNC, 0, 0, 0, 0);
		pthread_mutex_unlock(&s->lock);
		break;
	case SANITIZER_CB_DOMAIN_DRIVER_API:
		driver_call(s, data);
		break;
	default:
		break;
	}
}

static void finish_trace(void)
{
	struct capture_state *s = capture_root;
	struct trace_error error;
	char number[32];

	if (!s || !s->writer)
		return;
	pthread_mutex_lock(&s->lock);
	snprintf(number, sizeof(number), "%llu", (unsigned long long)s->events_skipped);
	trace_writer_set_meta(s->writer, "events_skipped", number);
	trace_writer_set_flags(s->writer,
			       TRACE_FLAG_TIMES_INSTRUMENTED * s->record_accesses |
			       TRACE_FLAG_NO_ACCESSES * !s->record_accesses |
			       (s->total_dropped ? TRACE_FLAG_ACCESSES_DROPPED : 0));
	if (trace_writer_close(s->writer, &error))
		fprintf(stderr, "ember-capture: %s\n", error.message);
	else
		fprintf(stderr, "ember-capture: trace written%s (dropped %llu, outside %llu, skipped %llu)\n",
			s->failed ? " with errors" : "",
			(unsigned long long)s->total_dropped,
			(unsigned long long)s->total_outside,
			(unsigned long long)s->events_skipped);
	s->writer = NULL;
	pthread_mutex_unlock(&s->lock);
}

static void add_meta_from_environment(struct capture_state *s)
{
	const char *meta = getenv("EMBER_CAPTURE_META");
	char *copy, *pair, *save = NULL;
	char command[4096] = "";
	FILE *cmdline = fopen("/proc/self/cmdline", "rb");
	time_t now = time(NULL);
	char date[64];

	if (cmdline) {
		size_t n = fread(command, 1, sizeof(command) - 1, cmdline);

		for (size_t i = 0; i + 1 < n; i++)
			if (!command[i] || command[i] == '\n')
				command[i] = ' ';
		command[n] = 0;
		fclose(cmdline);
	}
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	trace_writer_set_meta(s->writer, "tool", "ember-capture 1");
	trace_writer_set_meta(s->writer, "command", command);
	trace_writer_set_meta(s->writer, "date", date);
	trace_writer_set_meta(s->writer, "mode", s->record_accesses ? "accesses" : "timing");
	snprintf(date, sizeof(date), "%llu", (unsigned long long)s->max_records);
	trace_writer_set_meta(s->writer, "cap_records", date);
	if (!meta || !(copy = strdup(meta)))
		return;
	for (pair = strtok_r(copy, ";", &save); pair; pair = strtok_r(NULL, ";", &save)) {
		char *equals = strchr(pair, '=');

		if (equals) {
			*equals = 0;
			trace_writer_set_meta(s->writer, pair, equals + 1);
		}
	}
	free(copy);
}

/* The patch fatbin defaults to the file beside this library. */
static void default_patch_path(char *path, size_t size)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)default_patch_path, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/'))) {
		snprintf(path, size, "ember-capture-patch.fatbin");
		return;
	}
	snprintf(path, size, "%.*s/ember-capture-patch.fatbin",
		 (int)(slash - info.dli_fname), info.dli_fname);
}

/* The most records a launch may leave: what a quarter of the host's
 * memory sorts and writes, at most MAX_RECORDS_PER_LAUNCH. */
static uint64_t host_max_records(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
	uint64_t records;

	if (pages <= 0 || page_size <= 0)
		return MIN_RECORDS_PER_LAUNCH;
	records = (uint64_t)pages * (uint64_t)page_size / 4 / HOST_BYTES_PER_RECORD;
	if (records > MAX_RECORDS_PER_LAUNCH)
		records = MAX_RECORDS_PER_LAUNCH;
	return records < MIN_RECORDS_PER_LAUNCH ? MIN_RECORDS_PER_LAUNCH : records;
}

int InitializeInjection(void);

/* Called by the CUDA driver when CUDA_INJECTION64_PATH names this library.
 * Returns 1 on success: on 0 the driver unloads the library again. */
int InitializeInjection(void)
{
	struct capture_state *s = calloc(1, sizeof(*s));
	const char *output = getenv("EMBER_CAPTURE_OUTPUT");
	const char *mode = getenv("EMBER_CAPTURE_MODE");
	const char *cap = getenv("EMBER_CAPTURE_MAX_RECORDS");
	const char *patch = getenv("EMBER_CAPTURE_PATCH");
	const char *gate = getenv("EMBER_CAPTURE_GATE");
	const char *delta = getenv("EMBER_CAPTURE_DELTA");
	uint64_t gate_ns = now_ns();
	struct trace_error error;
	char why[512];

	/*
	 * The driver calls this from cuInit, before the process has a context:
	 * a process waiting here has done nothing on the card. One refused
	 * its turn must not go on (returning 0 would only unload the tool and
	 * let the program run beside the turn's holder), so it exits.
	 */
	if (gate && *gate && capture_gate_pass(gate, why, sizeof(why))) {
		fprintf(stderr, "ember-capture: gate %s: exiting before any work on the card\n",
			why);
		_exit(EXIT_FAILURE);
	}
	gate_ns = now_ns() - gate_ns;
	if (!s)
		return 0;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->launch_lock, NULL);
	s->start_ns = now_ns();
	s->record_accesses = !(mode && !strcmp(mode, "timing"));
	s->max_records = cap ? strtoull(cap, NULL, 0) : host_max_records();
	if (!s->max_records || s->max_records > MAX_RECORDS_PER_LAUNCH)
		s->max_records = host_max_records();
	if (patch)
		snprintf(s->patch_path, sizeof(s->patch_path), "%s", patch);
	else
		default_patch_path(s->patch_path, sizeof(s->patch_path));
	if (trace_writer_open(output ? output : "ember-capture.trace", &s->writer,
			      &error)) {
		fprintf(stderr, "ember-capture: %s\n", error.message);
		return 0;
	}
	trace_writer_set_level(s->writer, 9);
	/* delta-coded accesses: a fraction of the bytes, and of zstd's work */
	if (delta && !strcmp(delta, "1"))
		trace_writer_set_accesses_compression(s->writer,
						      TRACE_COMPRESSION_DELTA_ZSTD);
	add_meta_from_environment(s);
	if (gate && *gate) {
		snprintf(why, sizeof(why), "%llu", (unsigned long long)(gate_ns / 1000000));
		trace_writer_set_meta(s->writer, "gate_wait_ms", why);
	}
	capture_root = s;
	atexit(finish_trace);
	CHECKED(sanitizerSubscribe(&s->subscriber, on_callback, s), "subscribing");
	CHECKED(sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_RESOURCE),
		"resource domain");
	CHECKED(sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_LAUNCH),
		"launch domain");
	CHECKED(sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_MEMCPY),
		"memcpy domain");
	CHECKED(sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_MEMSET),
		"memset domain");
	CHECKED(sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_SYNCHRONIZE),
		"synchronize domain");
	CHECKED(sanitizerEnableDomain(1, s->subscriber, SANITIZER_CB_DOMAIN_DRIVER_API),
		"driver API domain");
	return 1;
}
