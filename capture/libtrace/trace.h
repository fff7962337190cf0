/* SPDX-License-Identifier: MIT */
/*
 * libtrace: reader and writer of Ember capture traces (docs/trace-format.md).
 *
 * A trace holds what ember-capture saw of one run of a CUDA program on a
 * card: the stream of memory-management events (allocations, advice,
 * prefetches, copies, launches) in the order the program issued them, one
 * record per launch (grid, kernel name, time on the card, counts), and per
 * launch the 128-byte lines each warp touched, in the warp's order.
 *
 * The reader validates the whole file before it hands anything out (header,
 * section table, checksums, counts against sizes, event semantics), and the
 * access section of one launch when it is opened (every line inside an
 * allocation live at that launch). Every refusal names the file and the
 * byte offset. No globals, no threads: each struct holds its own state.
 */
#ifndef EMBER_TRACE_H
#define EMBER_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAGIC "EMBTRACE"
#define TRACE_MAGIC_SIZE 8
#define TRACE_VERSION_MAJOR 1
/* 1: a file with a TRACE_COMPRESSION_DELTA_ZSTD section; 2: one whose
 * ACCESSES sections share bytes (a launch repeating an earlier launch's
 * lines); files with neither are written as 1.0, byte for byte what a 1.0
 * writer wrote. */
#define TRACE_VERSION_MINOR 2
#define TRACE_HEADER_SIZE 64
#define TRACE_SECTION_ENTRY_SIZE 48
#define TRACE_EVENT_SIZE 48
#define TRACE_LAUNCH_SIZE 80
#define TRACE_WARP_ENTRY_SIZE 8
#define TRACE_LINE_SIZE 128
#define TRACE_WARP_SIZE 32

/* Header flags (trace_info.flags). */
#define TRACE_FLAG_ACCESSES_DROPPED (1u << 0)	/* some launch hit the cap */
#define TRACE_FLAG_TIMES_INSTRUMENTED (1u << 1) /* gpu_time_ns under patching */
#define TRACE_FLAG_NO_ACCESSES (1u << 2)	/* timing-only capture */
#define TRACE_FLAGS_KNOWN 0x7u

enum trace_section_type {
	TRACE_SECTION_META = 1,		/* key=value lines, UTF-8 */
	TRACE_SECTION_EVENTS = 2,	/* event records */
	TRACE_SECTION_LAUNCHES = 3,	/* launch records */
	TRACE_SECTION_NAMES = 4,	/* NUL-terminated kernel names */
	TRACE_SECTION_ACCESSES = 5,	/* one launch's per-warp lines */
};

enum trace_compression {
	TRACE_COMPRESSION_NONE = 0,
	TRACE_COMPRESSION_ZSTD = 1,
	/* ACCESSES only: the warp table and each warp's records as varint
	 * deltas (docs/trace-format.md), then one zstd frame; the table's
	 * raw size is the decoded size, the layout compression 1 stores. */
	TRACE_COMPRESSION_DELTA_ZSTD = 2,
};

enum trace_event_kind {
	TRACE_EVENT_ALLOC = 1,		/* address, size, arg32 = memory kind */
	TRACE_EVENT_FREE = 2,		/* address (a live allocation's base) */
	TRACE_EVENT_ADVISE = 3,		/* address, size, arg32 = advice, arg64 = device */
	TRACE_EVENT_PREFETCH = 4,	/* address, size, arg64 = device */
	TRACE_EVENT_MEMCPY = 5,		/* address = dst, arg64 = src, size, arg32 = direction */
	TRACE_EVENT_MEMSET = 6,		/* address, size, arg32 = byte value */
	TRACE_EVENT_LAUNCH = 7,		/* arg32 = launch index */
	TRACE_EVENT_SYNC = 8,		/* a device or stream synchronize */
	TRACE_EVENT_KIND_MAX = 8,
};

/* ALLOC arg32: what kind of memory. */
enum trace_memory_kind {
	TRACE_MEMORY_MANAGED = 1,	/* cudaMallocManaged */
	TRACE_MEMORY_DEVICE = 2,	/* cudaMalloc and pools */
	TRACE_MEMORY_HOST = 3,		/* pinned host memory */
};

/* ADVISE arg32: CUDA's cudaMemoryAdvise numbering. */
enum trace_advice {
	TRACE_ADVISE_SET_READ_MOSTLY = 1,
	TRACE_ADVISE_UNSET_READ_MOSTLY = 2,
	TRACE_ADVISE_SET_PREFERRED_LOCATION = 3,
	TRACE_ADVISE_UNSET_PREFERRED_LOCATION = 4,
	TRACE_ADVISE_SET_ACCESSED_BY = 5,
	TRACE_ADVISE_UNSET_ACCESSED_BY = 6,
};

/* PREFETCH/ADVISE arg64: a device ordinal, or this for the host. */
#define TRACE_DEVICE_HOST UINT64_MAX

/* MEMCPY arg32: cudaMemcpyKind numbering (0 h2h, 1 h2d, 2 d2h, 3 d2d, 4 default). */

struct trace_event {
	uint16_t kind;		/* enum trace_event_kind */
	uint16_t flags;		/* kind-specific; 0 today */
	uint32_t arg32;
	uint64_t address;
	uint64_t size;
	uint64_t arg64;
	uint64_t reserved;	/* 0 */
	uint64_t host_time_ns;	/* since the capture began */
};

/* Launch flags. */
#define TRACE_LAUNCH_ACCESSES_DROPPED (1u << 0) /* dropped_count > 0 */
#define TRACE_LAUNCH_NO_ACCESSES (1u << 1)	/* not recorded (timing only) */
#define TRACE_LAUNCH_FLAGS_KNOWN 0x3u

struct trace_launch {
	uint32_t launch_index;	/* equals its position in the launch table */
	uint32_t flags;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t name_offset;	/* into the NAMES section */
	uint32_t warps_per_block;
	uint64_t gpu_time_ns;	/* launch begin to end on the card */
	uint64_t access_count;	/* records in its ACCESSES section */
	uint64_t dropped_count;	/* records the per-launch cap dropped */
	uint64_t outside_count;	/* accesses outside every known allocation */
	uint64_t reserved;	/* 0 */
};

/* One access record: the line's byte address with these flags in its low
 * bits (a line is 128-byte aligned, so bits 0..6 are free). */
#define TRACE_ACCESS_READ 0x1ull
#define TRACE_ACCESS_WRITE 0x2ull
#define TRACE_ACCESS_FLAG_MASK 0x7full
#define trace_access_line(record) ((uint64_t)((record) & ~TRACE_ACCESS_FLAG_MASK))

/*
 * A refusal: what is wrong, in which file, at which byte, and its errno
 * value (also left in errno when a reader call returns -1): EBADMSG a
 * malformed trace, EFBIG a trace past a trace_reader_limits limit,
 * ENOMEM out of memory, EINVAL a bad argument (a launch the trace does not
 * have), or the system's errno for a file that cannot be opened or read.
 */
struct trace_error {
	uint64_t offset;	/* byte offset in the file */
	int errnum;		/* errno value, as above */
	char message[320];	/* "FILE: offset N: what" */
};

/* What the header says. */
struct trace_info {
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t flags;
	uint32_t line_size;
	uint32_t warp_size;
	uint32_t section_count;
	uint64_t file_size;
	uint32_t file_crc32;	/* CRC-32 of the whole file, computed by the open */
};

/*
 * Reader limits; trace_reader_default_limits() fills the defaults. Each is
 * checked against the section table before anything is decompressed, so a
 * hostile file costs at most its own size in memory and the limits' worth
 * of decompression; a trace past one is refused with EFBIG.
 */
struct trace_reader_limits {
	uint64_t max_section_raw_bytes;	/* a section's decompressed size */
	uint64_t max_total_raw_bytes;	/* all sections' decompressed sizes */
	/* all sections' decompressed sizes over the file's size, delta-coded
	 * ACCESSES sections left out: a sequential sweep codes to a small
	 * fraction of a byte a record, far past any ratio that would still
	 * stop a bomb of zstd alone; the two limits above bound them */
	uint64_t max_compression_ratio;
	uint64_t max_file_bytes;
};

struct trace_reader;
struct trace_warps;

void trace_reader_default_limits(struct trace_reader_limits *limits);

/* Open and validate a trace from a file (read once, front to back; only
 * the header, the table and the small sections are kept, a launch's
 * accesses are read again when opened), or from memory (copied; `name` is
 * used in messages). Return 0, or -1 with *error filled and errno set to
 * error->errnum. */
int trace_open(const char *path, const struct trace_reader_limits *limits,
	       struct trace_reader **reader, struct trace_error *error);
int trace_open_memory(const void *data, size_t size, const char *name,
		      const struct trace_reader_limits *limits,
		      struct trace_reader **reader, struct trace_error *error);
void trace_close(struct trace_reader *reader);

const struct trace_info *trace_get_info(const struct trace_reader *reader);
/* The META section's text (NUL-terminated) and its length. */
const char *trace_get_meta(const struct trace_reader *reader, size_t *length);
/* The value of one META key, copied into buf; 0, or -1 if absent. */
int trace_get_meta_value(const struct trace_reader *reader, const char *key,
			 char *buf, size_t buf_size);

size_t trace_event_count(const struct trace_reader *reader);
const struct trace_event *trace_get_event(const struct trace_reader *reader,
					  size_t index);
size_t trace_launch_count(const struct trace_reader *reader);
const struct trace_launch *trace_get_launch(const struct trace_reader *reader,
					    size_t index);
const char *trace_get_launch_name(const struct trace_reader *reader,
				  size_t index);
/* The position in the event stream of launch `index`'s LAUNCH event. */
size_t trace_launch_event_index(const struct trace_reader *reader,
				size_t index);

/* One launch's per-warp access streams, decompressed and validated (every
 * line inside an allocation live at that launch). A launch with no
 * ACCESSES section opens with zero warps. */
int trace_warps_open(struct trace_reader *reader, size_t launch_index,
		     struct trace_warps **warps, struct trace_error *error);
/*
 * One launch's streams read a warp at a time, for a trace too large to
 * hold a launch of whole: the section is read from the file and
 * decompressed as the warps are asked for, so only the warp table (8 bytes
 * a warp) and one warp's records are held. Its sizes, counts and warp
 * order are checked as with trace_warps_open(), and its CRC at the end
 * (trace_records_next() returning 1), but not each record's flags and
 * line: for a caller that checked this file's streams once already
 * (ember-agent, on the host, before the VM that replays it boots:
 * docs/trace-replay.md). Such a record may name any line and carry any
 * flags.
 */
struct trace_records;
int trace_records_open(struct trace_reader *reader, size_t launch_index,
		       struct trace_records **records, struct trace_error *error);
size_t trace_records_warps(const struct trace_records *records);
/* The next warp in ascending id, its records valid until the next call:
 * 0, 1 after the last (the section then checked whole), or -1. */
int trace_records_next(struct trace_records *records, uint32_t *warp_id,
		       const uint64_t **warp_records, uint32_t *record_count,
		       struct trace_error *error);
void trace_records_close(struct trace_records *records);
size_t trace_warps_count(const struct trace_warps *warps);
/* Warp `index` (in ascending warp id): its id in the grid (block linear
 * index * warps_per_block + warp in block) and its records. */
void trace_warps_get(const struct trace_warps *warps, size_t index,
		     uint32_t *warp_id, const uint64_t **records,
		     uint32_t *record_count);
void trace_warps_close(struct trace_warps *warps);

/* Writer. Events and launches are kept in memory until close; each
 * launch's accesses are compressed and written when added, so a capture's
 * memory is bounded by one launch. The writer checks only what it must to
 * write a well-formed file: semantics are the reader's to check, so tests
 * can write hostile traces with it. */
struct trace_writer;

/* One warp's share of an access section. */
struct trace_warp_records {
	uint32_t warp_id;
	uint32_t record_count;
	const uint64_t *records;
};

int trace_writer_open(const char *path, struct trace_writer **writer,
		      struct trace_error *error);
/* Appends "key=value\n" to META; key has no '=' or newline, value no newline. */
int trace_writer_set_meta(struct trace_writer *writer, const char *key,
			  const char *value);
void trace_writer_set_flags(struct trace_writer *writer, uint32_t flags);
/* zstd level of every section written after this (default 3). */
void trace_writer_set_level(struct trace_writer *writer, int level);
/* How ACCESSES sections written after this are stored:
 * TRACE_COMPRESSION_ZSTD (the default) or TRACE_COMPRESSION_DELTA_ZSTD;
 * 0, or -1 for another value. */
int trace_writer_set_accesses_compression(struct trace_writer *writer,
					  uint32_t compression);
int trace_writer_add_event(struct trace_writer *writer,
			   const struct trace_event *event);
/* Appends the launch (launch_index and name_offset are filled in) and its
 * LAUNCH event; *launch_index receives the index. */
int trace_writer_add_launch(struct trace_writer *writer,
			    const struct trace_launch *launch,
			    const char *kernel_name, uint64_t host_time_ns,
			    uint32_t *launch_index);
/* Rewrites a launch's record once its counts and time are known. */
int trace_writer_update_launch(struct trace_writer *writer,
			       const struct trace_launch *launch);
int trace_writer_add_accesses(struct trace_writer *writer,
			      uint32_t launch_index,
			      const struct trace_warp_records *warps,
			      size_t warp_count);
/* Writes the remaining sections, the table and the header; frees writer. */
int trace_writer_close(struct trace_writer *writer, struct trace_error *error);
/* Why the last writer call failed. */
const char *trace_writer_last_error(const struct trace_writer *writer);
/* Frees a writer after a failure, leaving whatever was written. */
void trace_writer_abandon(struct trace_writer *writer);

/* CRC-32 (ISO-HDLC: zlib's crc32, reflected polynomial 0xEDB88320),
 * continued from `crc` (0 to start). */
uint32_t trace_crc32(uint32_t crc, const void *data, size_t size);
/* The CRC-32 of A then B from A's, B's and B's size (zlib's crc32_combine). */
uint32_t trace_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t size2);

const char *trace_event_kind_name(uint16_t kind);

#endif
