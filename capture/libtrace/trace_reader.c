// SPDX-License-Identifier: MIT
/*
 * libtrace reader. trace_open() checks the file in the order a byte
 * depends on another: header, section table, each section's bounds and
 * CRC, then the decompressed META, NAMES, LAUNCHES and EVENTS (record
 * counts against sizes, then the events' meaning: frees, advice,
 * prefetches and memsets name live allocations). It reads the file once,
 * front to back, a chunk at a time, and keeps only the header, the table
 * and the small sections: a launch's ACCESSES section is read again from
 * the file (its CRC checked again: the bytes checked are the bytes used),
 * decompressed and checked only when it is opened, so a large trace costs
 * one launch's memory at a time, never the whole file's.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "trace.h"
#include "trace_internal.h"

struct section {
	uint32_t type;
	uint32_t compression;
	uint64_t offset;
	uint64_t stored_size;
	uint64_t raw_size;
	uint32_t crc;
	uint32_t launch_index;
	size_t table_position;	/* entry's byte offset in the file */
};

struct allocation {
	uint64_t base;
	uint64_t size;
	uint32_t kind;		/* enum trace_memory_kind */
	size_t alloc_event;
	size_t free_event;	/* SIZE_MAX while never freed */
};

/* The chunk the file is read in while its CRCs are computed. */
#define READ_CHUNK (1u << 20)

struct trace_reader {
	char *name;
	uint8_t *file;		/* trace_open_memory(): the whole file; else NULL */
	int fd;			/* trace_open(): the file, read where needed */
	size_t file_size;
	uint8_t header[TRACE_HEADER_SIZE];
	uint8_t *table;		/* the section table and its CRC */
	struct trace_reader_limits limits;
	struct trace_info info;
	struct section *sections;
	/* while the table is checked: the sections with bytes of their own */
	size_t *owners;
	size_t owned;
	char *meta;
	size_t meta_size;
	char *names;
	size_t names_size;
	struct trace_event *events;
	size_t event_count;
	struct trace_launch *launches;
	size_t launch_count;
	size_t *launch_events;		/* LAUNCH event index per launch */
	size_t *access_sections;	/* section index per launch, or SIZE_MAX */
	struct allocation *allocations;
	size_t allocation_count;
};

static int delta_load(struct trace_reader *r, size_t launch_index,
		      uint8_t **payload, struct trace_error *error);

struct trace_warps {
	uint8_t *payload;	/* decompressed; its records decoded in place */
	size_t count;
	uint32_t *warp_ids;
	uint32_t *record_counts;
	uint64_t **records;	/* into payload, one array per warp */
};

static int vrefuse(struct trace_error *error, int errnum, const char *name,
		   uint64_t offset, const char *format, va_list args)
{
	int n = snprintf(error->message, sizeof(error->message),
			 "%s: offset %llu: ", name, (unsigned long long)offset);

	if (n < 0 || (size_t)n >= sizeof(error->message))
		n = 0;
	vsnprintf(error->message + n, sizeof(error->message) - (size_t)n,
		  format, args);
	error->offset = offset;
	error->errnum = errnum;
	errno = errnum;
	return -1;
}

/* A malformed trace: EBADMSG. */
static int refuse(struct trace_error *error, const char *name,
		  uint64_t offset, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vrefuse(error, EBADMSG, name, offset, format, args);
	va_end(args);
	return -1;
}

/* Any other refusal, with its errno value. */
static int refuse_errno(struct trace_error *error, int errnum,
			const char *name, uint64_t offset,
			const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vrefuse(error, errnum, name, offset, format, args);
	va_end(args);
	return -1;
}

/* size bytes at offset: from memory, or read from the file. */
static int read_at(const struct trace_reader *r, uint64_t offset, void *buf,
		   size_t size, struct trace_error *error)
{
	uint8_t *p = buf;

	if (r->file) {
		memcpy(buf, r->file + offset, size);
		return 0;
	}
	while (size) {
		ssize_t n = pread(r->fd, p, size, (off_t)offset);

		if (n <= 0)
			return refuse_errno(error, n ? errno : EIO, r->name, offset,
					    "read failed: %s", n ? strerror(errno) :
					    "the file shrank");
		p += n;
		offset += (uint64_t)n;
		size -= (size_t)n;
	}
	return 0;
}

/* The CRC-32 of size bytes at offset, continued from *crc, a chunk at a
 * time (the whole file's CRC goes on in *file_crc, if not NULL: combined,
 * so the bytes are summed once). */
static int crc_at(const struct trace_reader *r, uint64_t offset, uint64_t size,
		  uint32_t *crc, uint32_t *file_crc, struct trace_error *error)
{
	uint8_t *chunk;

	if (r->file) {
		uint32_t c = trace_crc32(0, r->file + offset, size);

		*crc = trace_crc32_combine(*crc, c, size);
		if (file_crc)
			*file_crc = trace_crc32_combine(*file_crc, c, size);
		return 0;
	}
	chunk = malloc(READ_CHUNK);
	if (!chunk)
		return refuse_errno(error, ENOMEM, r->name, offset, "out of memory");
	while (size) {
		size_t n = size < READ_CHUNK ? (size_t)size : READ_CHUNK;
		uint32_t c;

		if (read_at(r, offset, chunk, n, error)) {
			free(chunk);
			return -1;
		}
		c = trace_crc32(0, chunk, n);
		*crc = trace_crc32_combine(*crc, c, n);
		if (file_crc)
			*file_crc = trace_crc32_combine(*file_crc, c, n);
		offset += n;
		size -= n;
	}
	free(chunk);
	return 0;
}

/*
 * The defaults: far above any capture (whose sections compress tens of
 * times at most), far below what would exhaust a host.
 */
void trace_reader_default_limits(struct trace_reader_limits *limits)
{
	limits->max_section_raw_bytes = 1ull << 30;
	limits->max_total_raw_bytes = 1ull << 34;
	limits->max_compression_ratio = 1024;
	limits->max_file_bytes = 1ull << 34;
}

static const char *section_type_name(uint32_t type)
{
	switch (type) {
	case TRACE_SECTION_META: return "META";
	case TRACE_SECTION_EVENTS: return "EVENTS";
	case TRACE_SECTION_LAUNCHES: return "LAUNCHES";
	case TRACE_SECTION_NAMES: return "NAMES";
	case TRACE_SECTION_ACCESSES: return "ACCESSES";
	default: return "unknown";
	}
}

static int check_header(struct trace_reader *r, struct trace_error *error)
{
	const uint8_t *h = r->header;
	struct trace_info *info = &r->info;
	uint64_t table_offset, table_end;

	if (r->file_size < TRACE_HEADER_SIZE)
		return refuse(error, r->name, r->file_size,
			      "truncated: %zu bytes, the header needs %d",
			      r->file_size, TRACE_HEADER_SIZE);
	if (read_at(r, 0, r->header, TRACE_HEADER_SIZE, error))
		return -1;
	if (memcmp(h + HDR_MAGIC, TRACE_MAGIC, TRACE_MAGIC_SIZE))
		return refuse(error, r->name, HDR_MAGIC,
			      "bad magic: not an Ember trace (or its capture never finished)");
	info->version_major = get_le16(h + HDR_VERSION_MAJOR);
	info->version_minor = get_le16(h + HDR_VERSION_MINOR);
	if (info->version_major != TRACE_VERSION_MAJOR)
		return refuse(error, r->name, HDR_VERSION_MAJOR,
			      "wrong version %u.%u: this reader reads %d.x",
			      info->version_major, info->version_minor,
			      TRACE_VERSION_MAJOR);
	if (get_le32(h + HDR_CRC) != trace_crc32(0, h, HDR_CRC))
		return refuse(error, r->name, HDR_CRC,
			      "header checksum mismatch: stored %08x, computed %08x",
			      get_le32(h + HDR_CRC), trace_crc32(0, h, HDR_CRC));
	if (get_le32(h + HDR_HEADER_SIZE) != TRACE_HEADER_SIZE)
		return refuse(error, r->name, HDR_HEADER_SIZE,
			      "header size %u, expected %d",
			      get_le32(h + HDR_HEADER_SIZE), TRACE_HEADER_SIZE);
	info->flags = get_le32(h + HDR_FLAGS);
	if (info->flags & ~TRACE_FLAGS_KNOWN)
		return refuse(error, r->name, HDR_FLAGS,
			      "unknown header flags %#x", info->flags);
	info->line_size = get_le32(h + HDR_LINE_SIZE);
	if (info->line_size != TRACE_LINE_SIZE)
		return refuse(error, r->name, HDR_LINE_SIZE,
			      "line size %u, this reader reads %d-byte lines",
			      info->line_size, TRACE_LINE_SIZE);
	info->warp_size = get_le32(h + HDR_WARP_SIZE);
	if (info->warp_size != TRACE_WARP_SIZE)
		return refuse(error, r->name, HDR_WARP_SIZE,
			      "warp size %u, expected %d", info->warp_size,
			      TRACE_WARP_SIZE);
	for (int i = HDR_RESERVED; i < HDR_CRC; i++)
		if (h[i])
			return refuse(error, r->name, (uint64_t)i,
				      "reserved header byte is not zero");
	info->file_size = get_le64(h + HDR_FILE_SIZE);
	if (info->file_size > r->file_size)
		return refuse(error, r->name, r->file_size,
			      "truncated: the header says %llu bytes, the file has %zu",
			      (unsigned long long)info->file_size, r->file_size);
	if (info->file_size < r->file_size)
		return refuse(error, r->name, info->file_size,
			      "%zu bytes after the trace's end (header says %llu)",
			      r->file_size - (size_t)info->file_size,
			      (unsigned long long)info->file_size);
	info->section_count = get_le32(h + HDR_SECTION_COUNT);
	table_offset = get_le64(h + HDR_TABLE_OFFSET);
	if (info->section_count > TRACE_MAX_SECTIONS)
		return refuse(error, r->name, HDR_SECTION_COUNT,
			      "absurd section count %u", info->section_count);
	table_end = (uint64_t)info->section_count * TRACE_SECTION_ENTRY_SIZE + 4;
	if (table_offset < TRACE_HEADER_SIZE ||
	    table_offset > r->file_size || table_end > r->file_size - table_offset)
		return refuse(error, r->name, HDR_TABLE_OFFSET,
			      "section table (%u entries at offset %llu) lies outside the file's %zu bytes",
			      info->section_count,
			      (unsigned long long)table_offset, r->file_size);
	if (table_offset + table_end != r->file_size)
		return refuse(error, r->name, table_offset + table_end,
			      "bytes after the section table");
	r->table = malloc(table_end);
	if (!r->table)
		return refuse_errno(error, ENOMEM, r->name, table_offset, "out of memory");
	return read_at(r, table_offset, r->table, table_end, error);
}

/* ratio * file_size, saturated: the most a file may decompress to */
static uint64_t ratio_limit(uint64_t file_size, uint64_t ratio)
{
	if (ratio && file_size > UINT64_MAX / ratio)
		return UINT64_MAX;
	return file_size * ratio;
}

/*
 * Whether ACCESSES section `s` shares the bytes of an earlier one (format
 * 1.2: a launch that repeats another's lines): the section with bytes of
 * its own at its offset is an ACCESSES section equal to it in every field
 * but the launch index. Its bytes were checked with that section.
 */
static bool shares_bytes(const struct trace_reader *r, const struct section *s)
{
	size_t lo = 0, hi = r->owned;
	const struct section *o;

	if (s->type != TRACE_SECTION_ACCESSES)
		return false;
	while (lo < hi) {	/* owners are in file order */
		size_t mid = lo + (hi - lo) / 2;

		if (r->sections[r->owners[mid]].offset < s->offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->owned)
		return false;
	o = &r->sections[r->owners[lo]];
	return o->offset == s->offset && o->type == TRACE_SECTION_ACCESSES &&
	       o->compression == s->compression &&
	       o->stored_size == s->stored_size && o->raw_size == s->raw_size &&
	       o->crc == s->crc;
}

static int check_table(struct trace_reader *r, struct trace_error *error)
{
	uint64_t table_offset = get_le64(r->header + HDR_TABLE_OFFSET);
	const uint8_t *table = r->table;
	size_t count = r->info.section_count;
	size_t table_size = count * TRACE_SECTION_ENTRY_SIZE;
	uint64_t previous_end = TRACE_HEADER_SIZE, total_raw = 0, ratio_total = 0;
	uint64_t ratio_raw = ratio_limit(r->file_size,
					 r->limits.max_compression_ratio);
	uint32_t stored_crc = get_le32(table + table_size);
	uint32_t file_crc = trace_crc32(0, r->header, TRACE_HEADER_SIZE);

	if (stored_crc != trace_crc32(0, table, table_size))
		return refuse(error, r->name, table_offset + table_size,
			      "section table checksum mismatch: stored %08x, computed %08x",
			      stored_crc, trace_crc32(0, table, table_size));
	r->sections = calloc(count ? count : 1, sizeof(*r->sections));
	r->owners = calloc(count ? count : 1, sizeof(*r->owners));
	if (!r->sections || !r->owners)
		return refuse_errno(error, ENOMEM, r->name, table_offset, "out of memory");
	for (size_t i = 0; i < count; i++) {
		const uint8_t *e = table + i * TRACE_SECTION_ENTRY_SIZE;
		uint64_t at = table_offset + i * TRACE_SECTION_ENTRY_SIZE;
		struct section *s = &r->sections[i];
		bool shared;
		uint32_t crc;

		s->table_position = at;
		s->type = get_le32(e + SEC_TYPE);
		s->compression = get_le32(e + SEC_COMPRESSION);
		s->offset = get_le64(e + SEC_OFFSET);
		s->stored_size = get_le64(e + SEC_STORED_SIZE);
		s->raw_size = get_le64(e + SEC_RAW_SIZE);
		s->crc = get_le32(e + SEC_CRC);
		s->launch_index = get_le32(e + SEC_LAUNCH_INDEX);
		if (s->type < TRACE_SECTION_META || s->type > TRACE_SECTION_ACCESSES)
			return refuse(error, r->name, at + SEC_TYPE,
				      "section %zu: unknown type %u", i, s->type);
		if (s->compression > TRACE_COMPRESSION_DELTA_ZSTD)
			return refuse(error, r->name, at + SEC_COMPRESSION,
				      "section %zu: unknown compression %u", i,
				      s->compression);
		if (s->compression == TRACE_COMPRESSION_DELTA_ZSTD &&
		    s->type != TRACE_SECTION_ACCESSES)
			return refuse(error, r->name, at + SEC_COMPRESSION,
				      "section %zu (%s): delta coding (compression 2) is for ACCESSES sections only",
				      i, section_type_name(s->type));
		if (get_le64(e + SEC_RESERVED))
			return refuse(error, r->name, at + SEC_RESERVED,
				      "section %zu: reserved field is not zero", i);
		if (s->type != TRACE_SECTION_ACCESSES && s->launch_index)
			return refuse(error, r->name, at + SEC_LAUNCH_INDEX,
				      "section %zu (%s): launch index %u on a section of no launch",
				      i, section_type_name(s->type), s->launch_index);
		/*
		 * Sections follow each other in file order, between the
		 * header and the table, without overlap, but for an ACCESSES
		 * section that shares an earlier one's bytes.
		 */
		shared = s->offset < previous_end && shares_bytes(r, s);
		if (!shared && (s->offset < previous_end || s->offset > table_offset ||
				s->stored_size > table_offset - s->offset))
			return refuse(error, r->name, at + SEC_OFFSET,
				      "section %zu (%s): %llu bytes at offset %llu overlap another section or run past the table at %llu",
				      i, section_type_name(s->type),
				      (unsigned long long)s->stored_size,
				      (unsigned long long)s->offset,
				      (unsigned long long)table_offset);
		if (!shared) {
			previous_end = s->offset + s->stored_size;
			r->owners[r->owned++] = i;
		}
		if (s->raw_size > r->limits.max_section_raw_bytes)
			return refuse_errno(error, EFBIG, r->name, at + SEC_RAW_SIZE,
				      "section %zu (%s): absurd decompressed size %llu (limit %llu)",
				      i, section_type_name(s->type),
				      (unsigned long long)s->raw_size,
				      (unsigned long long)r->limits.max_section_raw_bytes);
		/* the sum of every decompressed size, overflow-safe */
		if (s->raw_size > r->limits.max_total_raw_bytes - total_raw)
			return refuse_errno(error, EFBIG, r->name, at + SEC_RAW_SIZE,
				      "section %zu (%s): decompressed sizes add up past the limit of %llu bytes",
				      i, section_type_name(s->type),
				      (unsigned long long)r->limits.max_total_raw_bytes);
		total_raw += s->raw_size;
		/* Delta-coded sections are out of the ratio: see trace.h. */
		if (s->compression != TRACE_COMPRESSION_DELTA_ZSTD)
			ratio_total += s->raw_size;
		if (ratio_total > ratio_raw)
			return refuse_errno(error, EFBIG, r->name, at + SEC_RAW_SIZE,
				      "section %zu (%s): decompressed sizes add up to %llu bytes, more than %llu times the file's %zu",
				      i, section_type_name(s->type),
				      (unsigned long long)ratio_total,
				      (unsigned long long)r->limits.max_compression_ratio,
				      r->file_size);
		if (s->compression == TRACE_COMPRESSION_NONE &&
		    s->raw_size != s->stored_size)
			return refuse(error, r->name, at + SEC_RAW_SIZE,
				      "section %zu: uncompressed, but sizes %llu and %llu differ",
				      i, (unsigned long long)s->raw_size,
				      (unsigned long long)s->stored_size);
		if (shared)
			continue;
		/* in file order, so the whole file's CRC goes on with it */
		crc = 0;
		if (crc_at(r, s->offset, s->stored_size, &crc, &file_crc, error))
			return -1;
		if (crc != s->crc)
			return refuse(error, r->name, s->offset,
				      "section %zu (%s): checksum mismatch: stored %08x, computed %08x",
				      i, section_type_name(s->type), s->crc, crc);
	}
	if (previous_end != table_offset)
		return refuse(error, r->name, previous_end,
			      "%llu unaccounted bytes before the section table",
			      (unsigned long long)(table_offset - previous_end));
	r->info.file_crc32 = trace_crc32(file_crc, table, table_size + 4);
	free(r->owners);
	r->owners = NULL;
	return 0;
}

/* The decompressed payload of section `index` (raw_size bytes, plus a NUL
 * so that text sections can be read as strings). Read from the file, its
 * bytes are checked against the CRC again: the bytes used are the bytes
 * the open checked. */
static int load_section(const struct trace_reader *r, size_t index,
			uint8_t **payload, struct trace_error *error)
{
	const struct section *s = &r->sections[index];
	bool none = s->compression == TRACE_COMPRESSION_NONE;
	uint8_t *raw = malloc(s->raw_size + 1), *stored = NULL;
	const uint8_t *in;
	size_t got;
	int rc = -1;

	*payload = NULL;
	if (!raw)
		return refuse_errno(error, ENOMEM, r->name, s->offset,
			      "section %zu: out of memory for %llu bytes", index,
			      (unsigned long long)s->raw_size);
	if (r->file) {
		in = r->file + s->offset;
	} else {
		stored = none ? raw : malloc(s->stored_size ? s->stored_size : 1);
		if (!stored) {
			refuse_errno(error, ENOMEM, r->name, s->offset,
				     "section %zu: out of memory for %llu bytes", index,
				     (unsigned long long)s->stored_size);
			goto out;
		}
		if (read_at(r, s->offset, stored, s->stored_size, error))
			goto out;
		if (trace_crc32(0, stored, s->stored_size) != s->crc) {
			refuse(error, r->name, s->offset,
			       "section %zu (%s): changed since the trace was opened "
			       "(checksum %08x, the table says %08x)", index,
			       section_type_name(s->type),
			       trace_crc32(0, stored, s->stored_size), s->crc);
			goto out;
		}
		in = stored;
	}
	if (none) {
		if (in != raw)
			memcpy(raw, in, s->raw_size);
	} else {
		unsigned long long content = ZSTD_getFrameContentSize(in, s->stored_size);

		if (content != s->raw_size) {
			refuse(error, r->name, s->offset,
			       "section %zu (%s): zstd frame holds %s%llu bytes, the table says %llu",
			       index, section_type_name(s->type),
			       content == ZSTD_CONTENTSIZE_ERROR ? "(not a frame) " :
			       content == ZSTD_CONTENTSIZE_UNKNOWN ? "(unknown) " : "",
			       content >= ZSTD_CONTENTSIZE_ERROR - 1 ? 0 : content,
			       (unsigned long long)s->raw_size);
			goto out;
		}
		got = ZSTD_decompress(raw, s->raw_size, in, s->stored_size);
		if (ZSTD_isError(got) || got != s->raw_size) {
			refuse(error, r->name, s->offset,
			       "section %zu (%s): zstd: %s", index,
			       section_type_name(s->type),
			       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short frame");
			goto out;
		}
	}
	raw[s->raw_size] = 0;
	*payload = raw;
	rc = 0;
out:
	if (stored != raw)
		free(stored);
	if (rc)
		free(raw);
	return rc;
}

/* A refusal about byte `at` of a section's decompressed payload. */
#define refuse_in(r, error, i, at, format, ...)                                \
	refuse(error, (r)->name, (r)->sections[i].offset,                      \
	       "section %zu (%s), payload byte %llu: " format, (size_t)(i),     \
	       section_type_name((r)->sections[i].type),                       \
	       (unsigned long long)(at), __VA_ARGS__)

/* Reads the "u32 count, u32 0, records" layout of EVENTS and LAUNCHES. */
static int counted_records(const struct trace_reader *r, size_t i,
			   const uint8_t *raw, size_t record_size,
			   size_t *count, struct trace_error *error)
{
	uint64_t raw_size = r->sections[i].raw_size;

	if (raw_size < 8)
		return refuse_in(r, error, i, raw_size,
				 "%llu bytes, too short for its count",
				 (unsigned long long)raw_size);
	*count = get_le32(raw);
	if (get_le32(raw + 4))
		return refuse_in(r, error, i, 4, "%s", "reserved word is not zero");
	if ((raw_size - 8) / record_size < *count)
		return refuse_in(r, error, i, 0,
				 "count %zu of %zu-byte records is beyond the section's %llu bytes",
				 *count, record_size, (unsigned long long)raw_size);
	if (raw_size != 8 + *count * record_size)
		return refuse_in(r, error, i, 8 + *count * record_size,
				 "%llu bytes after the last of %zu records",
				 (unsigned long long)(raw_size - 8 - *count * record_size),
				 *count);
	return 0;
}

static int find_sections(struct trace_reader *r, size_t *meta, size_t *events,
			 size_t *launches, size_t *names,
			 struct trace_error *error)
{
	size_t *slots[TRACE_SECTION_ACCESSES] = { NULL, meta, events, launches,
						  names };

	*meta = *events = *launches = *names = SIZE_MAX;
	for (size_t i = 0; i < r->info.section_count; i++) {
		uint32_t type = r->sections[i].type;

		if (type == TRACE_SECTION_ACCESSES)
			continue;
		if (*slots[type] != SIZE_MAX)
			return refuse(error, r->name,
				      r->sections[i].table_position,
				      "section %zu: a second %s section", i,
				      section_type_name(type));
		*slots[type] = i;
	}
	for (uint32_t type = TRACE_SECTION_META; type < TRACE_SECTION_ACCESSES;
	     type++)
		if (*slots[type] == SIZE_MAX)
			return refuse(error, r->name,
				      get_le64(r->header + HDR_TABLE_OFFSET),
				      "no %s section", section_type_name(type));
	return 0;
}

static int check_launches(struct trace_reader *r, size_t i, const uint8_t *raw,
			  struct trace_error *error)
{
	if (counted_records(r, i, raw, TRACE_LAUNCH_SIZE, &r->launch_count, error))
		return -1;
	r->launches = calloc(r->launch_count + 1, sizeof(*r->launches));
	r->launch_events = calloc(r->launch_count + 1, sizeof(size_t));
	r->access_sections = malloc((r->launch_count + 1) * sizeof(size_t));
	if (!r->launches || !r->launch_events || !r->access_sections)
		return refuse_errno(error, ENOMEM, r->name, r->sections[i].offset, "out of memory");
	for (size_t n = 0; n < r->launch_count; n++) {
		struct trace_launch *l = &r->launches[n];
		size_t at = 8 + n * TRACE_LAUNCH_SIZE;
		uint64_t threads, blocks;

		trace_decode_launch(raw + at, l);
		r->access_sections[n] = SIZE_MAX;
		if (l->launch_index != n)
			return refuse_in(r, error, i, at,
					 "launch %zu says it is launch %u", n,
					 l->launch_index);
		if (l->flags & ~TRACE_LAUNCH_FLAGS_KNOWN || l->reserved)
			return refuse_in(r, error, i, at + 4,
					 "launch %zu: unknown flags %#x or reserved bits", n,
					 l->flags);
		if (l->name_offset >= r->names_size)
			return refuse_in(r, error, i, at + 32,
					 "launch %zu: name offset %u beyond the %zu bytes of names",
					 n, l->name_offset, r->names_size);
		threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
		blocks = (uint64_t)l->grid[0] * l->grid[1];
		if (!threads || !blocks || !l->grid[2])
			return refuse_in(r, error, i, at + 8,
					 "launch %zu: empty grid or block", n);
		if (l->warps_per_block !=
		    (threads + TRACE_WARP_SIZE - 1) / TRACE_WARP_SIZE)
			return refuse_in(r, error, i, at + 36,
					 "launch %zu: %u warps per block, its block of %llu threads has %llu",
					 n, l->warps_per_block,
					 (unsigned long long)threads,
					 (unsigned long long)((threads + 31) / 32));
		/* Warp ids are u32: the grid's warps must be numbered in one. */
		if (blocks > UINT32_MAX / l->grid[2] ||
		    blocks * l->grid[2] > UINT32_MAX / l->warps_per_block)
			return refuse_in(r, error, i, at + 8,
					 "launch %zu: absurd grid of more than 2^32 warps", n);
		if (!!(l->flags & TRACE_LAUNCH_ACCESSES_DROPPED) != !!l->dropped_count)
			return refuse_in(r, error, i, at + 56,
					 "launch %zu: dropped count %llu disagrees with its flag",
					 n, (unsigned long long)l->dropped_count);
		if (l->dropped_count && !(r->info.flags & TRACE_FLAG_ACCESSES_DROPPED))
			return refuse_in(r, error, i, at + 56,
					 "launch %zu dropped records, the header's flag says none did",
					 n);
	}
	return 0;
}

/* Live allocations, sorted by base, while the event stream is checked. */
struct live_set {
	size_t *indices;	/* into r->allocations */
	size_t count;
};

/* Position of the first live allocation whose base is above `address`. */
static size_t live_upper_bound(const struct trace_reader *r,
			       const struct live_set *live, uint64_t address)
{
	size_t low = 0, high = live->count;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (r->allocations[live->indices[mid]].base <= address)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

/* The live allocation holding [address, address + size), or NULL. */
static const struct allocation *live_holding(const struct trace_reader *r,
					     const struct live_set *live,
					     uint64_t address, uint64_t size)
{
	size_t at = live_upper_bound(r, live, address);
	const struct allocation *a;

	if (!at)
		return NULL;
	a = &r->allocations[live->indices[at - 1]];
	if (address - a->base >= a->size || size > a->size - (address - a->base))
		return NULL;
	return a;
}

static int check_events(struct trace_reader *r, size_t i, const uint8_t *raw,
			struct trace_error *error)
{
	struct live_set live = { 0 };
	size_t next_launch = 0, capacity = 0;
	int rc = 0;

	if (counted_records(r, i, raw, TRACE_EVENT_SIZE, &r->event_count, error))
		return -1;
	r->events = calloc(r->event_count + 1, sizeof(*r->events));
	live.indices = malloc((r->event_count + 1) * sizeof(size_t));
	if (!r->events || !live.indices) {
		free(live.indices);
		return refuse_errno(error, ENOMEM, r->name, r->sections[i].offset, "out of memory");
	}
	for (size_t n = 0; n < r->event_count && !rc; n++) {
		struct trace_event *e = &r->events[n];
		size_t at = 8 + n * TRACE_EVENT_SIZE;
		const struct allocation *holder;

		trace_decode_event(raw + at, e);
		if (e->kind == 0 || e->kind > TRACE_EVENT_KIND_MAX) {
			rc = refuse_in(r, error, i, at, "event %zu: unknown kind %u",
				       n, e->kind);
			break;
		}
		if (e->flags || e->reserved) {
			rc = refuse_in(r, error, i, at + 2,
				       "event %zu (%s): flags or reserved field not zero",
				       n, trace_event_kind_name(e->kind));
			break;
		}
		if (e->kind != TRACE_EVENT_LAUNCH && e->kind != TRACE_EVENT_SYNC &&
		    e->kind != TRACE_EVENT_FREE &&
		    (!e->size || e->address > UINT64_MAX - e->size)) {
			rc = refuse_in(r, error, i, at + 16,
				       "event %zu (%s): empty or wrapping range %#llx+%llu",
				       n, trace_event_kind_name(e->kind),
				       (unsigned long long)e->address,
				       (unsigned long long)e->size);
			break;
		}
		switch (e->kind) {
		case TRACE_EVENT_ALLOC: {
			size_t pos = live_upper_bound(r, &live, e->address);
			const struct allocation *below =
				pos ? &r->allocations[live.indices[pos - 1]] : NULL;
			const struct allocation *above =
				pos < live.count ? &r->allocations[live.indices[pos]] : NULL;
			struct allocation *a;

			if (e->arg32 < TRACE_MEMORY_MANAGED || e->arg32 > TRACE_MEMORY_HOST) {
				rc = refuse_in(r, error, i, at + 4,
					       "event %zu (alloc): unknown memory kind %u",
					       n, e->arg32);
				break;
			}
			if ((below && e->address - below->base < below->size) ||
			    (above && above->base - e->address < e->size)) {
				rc = refuse_in(r, error, i, at + 8,
					       "event %zu (alloc): %#llx+%llu overlaps a live allocation",
					       n, (unsigned long long)e->address,
					       (unsigned long long)e->size);
				break;
			}
			if (r->allocation_count == capacity) {
				size_t grown_capacity = capacity ? capacity * 2 : 64;
				struct allocation *grown =
					realloc(r->allocations,
						grown_capacity * sizeof(*grown));

				if (!grown) {
					rc = refuse(error, r->name, r->sections[i].offset,
						    "out of memory");
					break;
				}
				r->allocations = grown;
				capacity = grown_capacity;
			}
			a = &r->allocations[r->allocation_count];
			*a = (struct allocation){ e->address, e->size, e->arg32, n,
						  SIZE_MAX };
			memmove(live.indices + pos + 1, live.indices + pos,
				(live.count - pos) * sizeof(size_t));
			live.indices[pos] = r->allocation_count++;
			live.count++;
			break;
		}
		case TRACE_EVENT_FREE: {
			size_t pos = live_upper_bound(r, &live, e->address);

			if (!pos || r->allocations[live.indices[pos - 1]].base != e->address) {
				rc = refuse_in(r, error, i, at + 8,
					       "event %zu (free): %#llx is no live allocation",
					       n, (unsigned long long)e->address);
				break;
			}
			r->allocations[live.indices[pos - 1]].free_event = n;
			memmove(live.indices + pos - 1, live.indices + pos,
				(live.count - pos) * sizeof(size_t));
			live.count--;
			break;
		}
		case TRACE_EVENT_ADVISE:
		case TRACE_EVENT_PREFETCH:
			if (e->kind == TRACE_EVENT_ADVISE &&
			    (e->arg32 < TRACE_ADVISE_SET_READ_MOSTLY ||
			     e->arg32 > TRACE_ADVISE_UNSET_ACCESSED_BY)) {
				rc = refuse_in(r, error, i, at + 4,
					       "event %zu (advise): unknown advice %u",
					       n, e->arg32);
				break;
			}
			holder = live_holding(r, &live, e->address, e->size);
			if (!holder || holder->kind != TRACE_MEMORY_MANAGED)
				rc = refuse_in(r, error, i, at + 8,
					       "event %zu (%s): %#llx+%llu is not inside a live managed allocation",
					       n, trace_event_kind_name(e->kind),
					       (unsigned long long)e->address,
					       (unsigned long long)e->size);
			break;
		case TRACE_EVENT_MEMSET:
			if (!live_holding(r, &live, e->address, e->size))
				rc = refuse_in(r, error, i, at + 8,
					       "event %zu (memset): %#llx+%llu is not inside a live allocation",
					       n, (unsigned long long)e->address,
					       (unsigned long long)e->size);
			break;
		case TRACE_EVENT_MEMCPY:
			if (e->arg32 > 4 || e->arg64 > UINT64_MAX - e->size)
				rc = refuse_in(r, error, i, at + 4,
					       "event %zu (memcpy): direction %u or source range is invalid",
					       n, e->arg32);
			break;
		case TRACE_EVENT_LAUNCH:
			if (e->arg32 != next_launch || next_launch >= r->launch_count) {
				rc = refuse_in(r, error, i, at + 4,
					       "event %zu (launch): launch %u, expected launch %zu of %zu",
					       n, e->arg32, next_launch, r->launch_count);
				break;
			}
			r->launch_events[next_launch++] = n;
			break;
		default:
			break;
		}
	}
	free(live.indices);
	if (!rc && next_launch != r->launch_count)
		rc = refuse_in(r, error, i, r->sections[i].raw_size,
			       "%zu launch records, but %zu launch events",
			       r->launch_count, next_launch);
	return rc;
}

static int check_access_sections(struct trace_reader *r,
				 struct trace_error *error)
{
	for (size_t i = 0; i < r->info.section_count; i++) {
		const struct section *s = &r->sections[i];

		if (s->type != TRACE_SECTION_ACCESSES)
			continue;
		if (s->launch_index >= r->launch_count)
			return refuse(error, r->name, s->table_position + SEC_LAUNCH_INDEX,
				      "section %zu (ACCESSES): launch %u of %zu", i,
				      s->launch_index, r->launch_count);
		if (r->access_sections[s->launch_index] != SIZE_MAX)
			return refuse(error, r->name, s->table_position + SEC_LAUNCH_INDEX,
				      "section %zu: a second ACCESSES section for launch %u",
				      i, s->launch_index);
		if (r->launches[s->launch_index].flags & TRACE_LAUNCH_NO_ACCESSES)
			return refuse(error, r->name, s->table_position,
				      "section %zu: accesses for launch %u, flagged as recorded without",
				      i, s->launch_index);
		/* Each record is 8 bytes: the count must fit the size. */
		if (r->launches[s->launch_index].access_count >
		    s->raw_size / 8)
			return refuse(error, r->name, s->table_position + SEC_RAW_SIZE,
				      "section %zu: launch %u's %llu records are beyond its %llu bytes",
				      i, s->launch_index,
				      (unsigned long long)r->launches[s->launch_index].access_count,
				      (unsigned long long)s->raw_size);
		r->access_sections[s->launch_index] = i;
	}
	for (size_t n = 0; n < r->launch_count; n++)
		if (r->access_sections[n] == SIZE_MAX && r->launches[n].access_count)
			return refuse(error, r->name,
				      get_le64(r->header + HDR_TABLE_OFFSET),
				      "launch %zu has %llu records but no ACCESSES section",
				      n, (unsigned long long)r->launches[n].access_count);
	return 0;
}

static int check_contents(struct trace_reader *r, struct trace_error *error)
{
	size_t meta, events, launches, names;
	uint8_t *raw = NULL;
	int rc;

	if (find_sections(r, &meta, &events, &launches, &names, error))
		return -1;
	if (load_section(r, meta, &raw, error))
		return -1;
	r->meta = (char *)raw;
	r->meta_size = r->sections[meta].raw_size;
	if (memchr(r->meta, 0, r->meta_size))
		return refuse_in(r, error, meta,
				 (const char *)memchr(r->meta, 0, r->meta_size) - r->meta,
				 "%s", "NUL inside the meta text");
	if (load_section(r, names, &raw, error))
		return -1;
	r->names = (char *)raw;
	r->names_size = r->sections[names].raw_size;
	if (r->names_size && r->names[r->names_size - 1])
		return refuse_in(r, error, names, r->names_size - 1, "%s",
				 "the last kernel name is not NUL-terminated");
	if (load_section(r, launches, &raw, error))
		return -1;
	rc = check_launches(r, launches, raw, error);
	free(raw);
	if (rc)
		return -1;
	if (load_section(r, events, &raw, error))
		return -1;
	rc = check_events(r, events, raw, error);
	free(raw);
	if (rc)
		return -1;
	return check_access_sections(r, error);
}

/* Opens a trace of `size` bytes: in memory (`file`, malloc'd, which the
 * reader takes over: freed with it, or here on a refusal) or in the file
 * `fd` (the same: closed with it, or here). */
static int open_owned(uint8_t *file, int fd, size_t size, const char *name,
		      const struct trace_reader_limits *limits,
		      struct trace_reader **out, struct trace_error *error)
{
	struct trace_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || !(r->name = strdup(name))) {
		free(r);
		free(file);
		if (fd >= 0)
			close(fd);
		return refuse_errno(error, ENOMEM, name, 0, "out of memory");
	}
	r->file = file;
	r->fd = fd;
	r->file_size = size;
	if (limits)
		r->limits = *limits;
	else
		trace_reader_default_limits(&r->limits);
	if (check_header(r, error) || check_table(r, error) ||
	    check_contents(r, error)) {
		trace_close(r);
		errno = error->errnum;	/* as refused, whatever the frees did */
		return -1;
	}
	*out = r;
	return 0;
}

int trace_open_memory(const void *data, size_t size, const char *name,
		      const struct trace_reader_limits *limits,
		      struct trace_reader **out, struct trace_error *error)
{
	struct trace_reader_limits defaults;
	uint8_t *file;

	*out = NULL;
	if (!limits) {
		trace_reader_default_limits(&defaults);
		limits = &defaults;
	}
	if (size > limits->max_file_bytes)
		return refuse_errno(error, EFBIG, name, 0,
				    "%zu bytes, above the limit of %llu", size,
				    (unsigned long long)limits->max_file_bytes);
	file = malloc(size ? size : 1);
	if (!file)
		return refuse_errno(error, ENOMEM, name, 0, "out of memory");
	memcpy(file, data, size);
	return open_owned(file, -1, size, name, limits, out, error);
}

int trace_open(const char *path, const struct trace_reader_limits *limits,
	       struct trace_reader **out, struct trace_error *error)
{
	struct trace_reader_limits defaults;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int saved;

	*out = NULL;
	if (!limits) {
		trace_reader_default_limits(&defaults);
		limits = &defaults;
	}
	if (fd < 0)
		return refuse_errno(error, errno, path, 0, "%s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		saved = S_ISREG(st.st_mode) ? errno : EINVAL;
		close(fd);
		return refuse_errno(error, saved, path, 0, "cannot size the file: %s",
				    saved == EINVAL ? "not a regular file" : strerror(saved));
	}
	if ((uint64_t)st.st_size > limits->max_file_bytes) {
		close(fd);
		return refuse_errno(error, EFBIG, path, 0,
				    "%lld bytes, above the limit of %llu",
				    (long long)st.st_size,
				    (unsigned long long)limits->max_file_bytes);
	}
	/* read where needed, never whole: a launch's section when it is opened */
	return open_owned(NULL, fd, (size_t)st.st_size, path, limits, out, error);
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	if (!r->file && r->fd >= 0)
		close(r->fd);
	free(r->name);
	free(r->file);
	free(r->table);
	free(r->sections);
	free(r->owners);
	free(r->meta);
	free(r->names);
	free(r->events);
	free(r->launches);
	free(r->launch_events);
	free(r->access_sections);
	free(r->allocations);
	free(r);
}

const struct trace_info *trace_get_info(const struct trace_reader *r)
{
	return &r->info;
}

const char *trace_get_meta(const struct trace_reader *r, size_t *length)
{
	if (length)
		*length = r->meta_size;
	return r->meta;
}

int trace_get_meta_value(const struct trace_reader *r, const char *key,
			 char *buf, size_t buf_size)
{
	size_t key_length = strlen(key);
	const char *line = r->meta;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t line_length = end ? (size_t)(end - line) : strlen(line);

		if (line_length > key_length && !strncmp(line, key, key_length) &&
		    line[key_length] == '=') {
			size_t value_length = line_length - key_length - 1;

			if (value_length >= buf_size)
				value_length = buf_size ? buf_size - 1 : 0;
			if (buf_size) {
				memcpy(buf, line + key_length + 1, value_length);
				buf[value_length] = 0;
			}
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

size_t trace_event_count(const struct trace_reader *r)
{
	return r->event_count;
}

const struct trace_event *trace_get_event(const struct trace_reader *r,
					  size_t index)
{
	return index < r->event_count ? &r->events[index] : NULL;
}

size_t trace_launch_count(const struct trace_reader *r)
{
	return r->launch_count;
}

const struct trace_launch *trace_get_launch(const struct trace_reader *r,
					    size_t index)
{
	return index < r->launch_count ? &r->launches[index] : NULL;
}

const char *trace_get_launch_name(const struct trace_reader *r, size_t index)
{
	return index < r->launch_count ? r->names + r->launches[index].name_offset :
					 NULL;
}

size_t trace_launch_event_index(const struct trace_reader *r, size_t index)
{
	return index < r->launch_count ? r->launch_events[index] : SIZE_MAX;
}

static int compare_allocation_base(const void *a, const void *b)
{
	const struct allocation *x = *(const struct allocation *const *)a;
	const struct allocation *y = *(const struct allocation *const *)b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/* The allocation of the sorted live list that holds any byte of `line`. */
static const struct allocation *
line_holder(const struct allocation *const *live, size_t count, uint64_t line)
{
	size_t low = 0, high = count;
	uint64_t last_byte = line + TRACE_LINE_SIZE - 1;

	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (live[mid]->base <= last_byte)
			low = mid + 1;
		else
			high = mid;
	}
	if (!low)
		return NULL;
	/* live[low-1] is the last to start at or before the line's end; the
	 * live allocations do not overlap, so no earlier one can reach it. */
	if (line >= live[low - 1]->base &&
	    line - live[low - 1]->base >= live[low - 1]->size)
		return NULL;
	return live[low - 1];
}

/*
 * The warp table and the records of launch_index's section si, decoded in
 * place, every record's flags and line checked (inside an allocation live
 * at the launch).
 */
static int check_warps(struct trace_reader *r, size_t launch_index, size_t si,
		       struct trace_warps *w, struct trace_error *error)
{
	const struct trace_launch *l = &r->launches[launch_index];
	size_t event = r->launch_events[launch_index];
	uint64_t raw_size = r->sections[si].raw_size, records_at, total = 0;
	uint64_t grid_warps = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2] *
			      l->warps_per_block;
	const struct allocation **live = NULL;
	size_t live_count = 0;
	int rc = 0;

	if (raw_size < 8)
		return refuse_in(r, error, si, 0, "%s", "too short for its warp count");
	w->count = get_le32(w->payload);
	if (get_le32(w->payload + 4))
		return refuse_in(r, error, si, 4, "%s", "reserved word is not zero");
	if ((raw_size - 8) / TRACE_WARP_ENTRY_SIZE < w->count)
		return refuse_in(r, error, si, 0,
				 "%zu warps are beyond the section's %llu bytes",
				 w->count, (unsigned long long)raw_size);
	records_at = 8 + (uint64_t)w->count * TRACE_WARP_ENTRY_SIZE;
	w->warp_ids = calloc(w->count + 1, sizeof(uint32_t));
	w->record_counts = calloc(w->count + 1, sizeof(uint32_t));
	w->records = calloc(w->count + 1, sizeof(uint64_t *));
	if (!w->warp_ids || !w->record_counts || !w->records)
		return refuse_errno(error, ENOMEM, r->name, r->sections[si].offset, "out of memory");
	for (size_t n = 0; n < w->count; n++) {
		const uint8_t *e = w->payload + 8 + n * TRACE_WARP_ENTRY_SIZE;

		w->warp_ids[n] = get_le32(e);
		w->record_counts[n] = get_le32(e + 4);
		if (w->warp_ids[n] >= grid_warps ||
		    (n && w->warp_ids[n] <= w->warp_ids[n - 1]))
			return refuse_in(r, error, si, 8 + n * TRACE_WARP_ENTRY_SIZE,
					 "warp entry %zu: warp %u is out of order or beyond the grid's %llu warps",
					 n, w->warp_ids[n], (unsigned long long)grid_warps);
		total += w->record_counts[n];
	}
	if (total != l->access_count)
		return refuse_in(r, error, si, 8,
				 "the warps hold %llu records, the launch record says %llu",
				 (unsigned long long)total,
				 (unsigned long long)l->access_count);
	if ((raw_size - records_at) / 8 < total || raw_size - records_at != total * 8)
		return refuse_in(r, error, si, records_at,
				 "%llu records do not fill the %llu bytes after the warp table",
				 (unsigned long long)total,
				 (unsigned long long)(raw_size - records_at));
	live = malloc((r->allocation_count + 1) * sizeof(*live));
	if (!live)
		return refuse_errno(error, ENOMEM, r->name, r->sections[si].offset,
				    "out of memory");
	/* The allocations live at this launch: made before its LAUNCH event
	 * and not yet freed. */
	for (size_t a = 0; a < r->allocation_count; a++)
		if (r->allocations[a].alloc_event < event &&
		    r->allocations[a].free_event > event)
			live[live_count++] = &r->allocations[a];
	qsort(live, live_count, sizeof(*live), compare_allocation_base);
	/* records_at is 8 + 8 x count from an allocation's start: aligned */
	for (size_t n = 0, k = 0; n < w->count && !rc; n++) {
		w->records[n] = (uint64_t *)(void *)(w->payload + records_at) + k;
		for (uint32_t j = 0; j < w->record_counts[n]; j++, k++) {
			uint64_t at = records_at + k * 8;
			uint64_t record = get_le64(w->payload + at);
			uint64_t flags = record & TRACE_ACCESS_FLAG_MASK;

			w->records[n][j] = record;

			if (!flags || flags & ~(TRACE_ACCESS_READ | TRACE_ACCESS_WRITE)) {
				rc = refuse_in(r, error, si, at,
					       "warp %u record %u: flags %#llx (must be read, write or both)",
					       w->warp_ids[n], j, (unsigned long long)flags);
				break;
			}
			if (!line_holder(live, live_count, trace_access_line(record))) {
				rc = refuse_in(r, error, si, at,
					       "warp %u record %u: line %#llx is outside every allocation live at launch %zu",
					       w->warp_ids[n], j,
					       (unsigned long long)trace_access_line(record),
					       launch_index);
				break;
			}
		}
	}
	free(live);
	return rc;
}

int trace_warps_open(struct trace_reader *r, size_t launch_index,
		     struct trace_warps **out, struct trace_error *error)
{
	struct trace_warps *w;
	size_t si;

	*out = NULL;
	if (launch_index >= r->launch_count)
		return refuse_errno(error, EINVAL, r->name, 0,
				    "no launch %zu (the trace has %zu)",
			      launch_index, r->launch_count);
	w = calloc(1, sizeof(*w));
	if (!w)
		return refuse_errno(error, ENOMEM, r->name, 0, "out of memory");
	si = r->access_sections[launch_index];
	if (si != SIZE_MAX &&
	    ((r->sections[si].compression == TRACE_COMPRESSION_DELTA_ZSTD ?
	      delta_load(r, launch_index, &w->payload, error) :
	      load_section(r, si, &w->payload, error)) ||
	     check_warps(r, launch_index, si, w, error))) {
		trace_warps_close(w);
		errno = error->errnum;
		return -1;
	}
	*out = w;
	return 0;
}

size_t trace_warps_count(const struct trace_warps *w)
{
	return w->count;
}

void trace_warps_get(const struct trace_warps *w, size_t index,
		     uint32_t *warp_id, const uint64_t **records,
		     uint32_t *record_count)
{
	*warp_id = w->warp_ids[index];
	*records = w->records[index];
	*record_count = w->record_counts[index];
}

void trace_warps_close(struct trace_warps *w)
{
	if (!w)
		return;
	free(w->payload);
	free(w->warp_ids);
	free(w->record_counts);
	free(w->records);
	free(w);
}

/*
 * One launch's streams a warp at a time (trace_records_open): the section
 * read from the file a chunk at a time and decompressed as it goes, so
 * that only the warp table and one warp's records are held. The bytes'
 * CRC is summed as they are read and compared at the end. A delta-coded
 * section's frame decompresses to its coded stream, decoded a warp at a
 * time from a chunk of it.
 */
struct trace_records {
	struct trace_reader *r;
	size_t si;			/* the section */
	ZSTD_DCtx *dctx;		/* NULL: stored uncompressed */
	uint8_t *in;			/* stored bytes read, not yet decompressed */
	size_t in_cap, in_size, in_pos;	/* in_cap: READ_CHUNK, or less */
	uint64_t stored_at, stored_left;	/* the next stored bytes to read */
	uint64_t raw_left;		/* frame bytes not yet produced */
	uint32_t crc;
	int frame_done;
	size_t count, next;		/* warps, the next to hand out */
	uint32_t *ids, *counts;
	uint64_t *records;		/* the current warp's, decoded */
	size_t records_cap;
	/* delta coding (TRACE_COMPRESSION_DELTA_ZSTD) */
	bool delta;
	uint8_t *coded;			/* a chunk of the coded stream */
	size_t coded_cap, coded_pos, coded_len;
	uint64_t coded_at;		/* coded bytes consumed: messages' offsets */
	int64_t first;			/* line of the last warp's first record */
};

/* The coded stream is decompressed this much at a time. */
#define CODED_CHUNK (64u << 10)

static int records_refuse(struct trace_records *s, struct trace_error *error,
			  const char *what)
{
	const struct section *sec = &s->r->sections[s->si];

	return refuse(error, s->r->name, sec->offset, "section %zu (ACCESSES): %s", s->si, what);
}

/* A refusal about byte `at` of a section's coded stream. */
#define refuse_coded(s, error, at, format, ...)                                \
	refuse(error, (s)->r->name, (s)->r->sections[(s)->si].offset,          \
	       "section %zu (ACCESSES), coded byte %llu: " format, (s)->si,     \
	       (unsigned long long)(at), __VA_ARGS__)

/* Reads the next chunk of stored bytes into s->in, its CRC summed. */
static int records_fill(struct trace_records *s, struct trace_error *error)
{
	size_t n = s->stored_left < s->in_cap ? (size_t)s->stored_left : s->in_cap;

	if (!n)
		return records_refuse(s, error, "zstd: the frame ends past the section");
	if (read_at(s->r, s->stored_at, s->in, n, error))
		return -1;
	s->crc = trace_crc32_combine(s->crc, trace_crc32(0, s->in, n), n);
	s->stored_at += n;
	s->stored_left -= n;
	s->in_size = n;
	s->in_pos = 0;
	return 0;
}

/* The next n decompressed bytes into dst. */
static int records_pull(struct trace_records *s, void *dst, size_t n,
			struct trace_error *error)
{
	uint8_t *p = dst;

	if (n > s->raw_left)
		return records_refuse(s, error, "the records run past the section's size");
	s->raw_left -= n;
	while (n) {
		ZSTD_outBuffer ob = { p, n, 0 };
		ZSTD_inBuffer ib;
		size_t ret;

		if (s->in_pos == s->in_size && records_fill(s, error))
			return -1;
		if (!s->dctx) {		/* uncompressed: the stored bytes are the raw ones */
			size_t k = s->in_size - s->in_pos < n ? s->in_size - s->in_pos : n;

			memcpy(p, s->in + s->in_pos, k);
			s->in_pos += k;
			p += k;
			n -= k;
			continue;
		}
		ib = (ZSTD_inBuffer){ s->in, s->in_size, s->in_pos };
		ret = ZSTD_decompressStream(s->dctx, &ob, &ib);
		if (ZSTD_isError(ret)) {
			char what[160];

			snprintf(what, sizeof(what), "zstd: %s", ZSTD_getErrorName(ret));
			return records_refuse(s, error, what);
		}
		s->in_pos = ib.pos;
		p += ob.pos;
		n -= ob.pos;
		if (!ret && n)
			return records_refuse(s, error, "zstd: short frame");
		s->frame_done = !ret;
	}
	return 0;
}

/* Why a coded varint or byte could not be read (0: it was). */
enum coded_fault {
	CODED_OK = 0,
	CODED_ERROR,		/* *error filled: a read or zstd failure */
	CODED_TRUNCATED,	/* the stream ends inside it */
	CODED_PAST_64_BITS,	/* a varint of more than 64 bits */
	CODED_OVERLONG,		/* a varint ending in a zero byte */
};

static const char *coded_fault_name(enum coded_fault fault)
{
	switch (fault) {
	case CODED_TRUNCATED: return "the coded stream ends inside it";
	case CODED_PAST_64_BITS: return "a varint of more than 64 bits";
	case CODED_OVERLONG: return "an overlong varint (its last byte is 0)";
	default: return "";
	}
}

/* The next coded byte, decompressing the next chunk when needed. */
static enum coded_fault coded_byte(struct trace_records *s, uint8_t *byte,
				   struct trace_error *error)
{
	if (s->coded_pos == s->coded_len) {
		size_t n = s->raw_left < s->coded_cap ? (size_t)s->raw_left : s->coded_cap;

		if (!n)
			return CODED_TRUNCATED;
		if (records_pull(s, s->coded, n, error))
			return CODED_ERROR;
		s->coded_pos = 0;
		s->coded_len = n;
	}
	*byte = s->coded[s->coded_pos++];
	s->coded_at++;
	return CODED_OK;
}

/* An unsigned LEB128 varint: 7 bits a byte, low first, the top bit set
 * on every byte but the last; at most 10 bytes (64 bits), and the
 * shortest (a last byte of 0 would only lengthen a shorter one). */
static enum coded_fault coded_varint(struct trace_records *s, uint64_t *value,
				     struct trace_error *error)
{
	uint64_t v = 0;

	for (unsigned int k = 0;; k++) {
		enum coded_fault fault;
		uint8_t b;

		if (s->coded_pos < s->coded_len) {	/* the common case, inline */
			b = s->coded[s->coded_pos++];
			s->coded_at++;
		} else if ((fault = coded_byte(s, &b, error))) {
			return fault;
		}
		if (k == DELTA_VARINT_MAX - 1 && b > 1)
			return CODED_PAST_64_BITS;
		v |= (uint64_t)(b & 0x7f) << (7 * k);
		if (!(b & 0x80)) {
			if (!b && k)
				return CODED_OVERLONG;
			*value = v;
			return CODED_OK;
		}
	}
}

/* Refuses a coded fault of what starts at coded byte `at`. */
static int coded_refuse(struct trace_records *s, struct trace_error *error,
			enum coded_fault fault, uint64_t at, const char *what)
{
	if (fault == CODED_ERROR)
		return -1;
	return refuse_coded(s, error, at, "%s: %s", what, coded_fault_name(fault));
}

/* The end: the frame complete, every stored byte read, their CRC the table's. */
static int records_finish(struct trace_records *s, struct trace_error *error)
{
	uint8_t spare;

	if (s->delta && (s->coded_pos != s->coded_len || s->raw_left))
		return refuse_coded(s, error, s->coded_at,
				    "%llu coded bytes after the last record",
				    (unsigned long long)(s->coded_len - s->coded_pos + s->raw_left));
	while (s->dctx && !s->frame_done) {
		ZSTD_outBuffer ob = { &spare, sizeof(spare), 0 };
		ZSTD_inBuffer ib;
		size_t ret;

		if (s->in_pos == s->in_size && records_fill(s, error))
			return -1;
		ib = (ZSTD_inBuffer){ s->in, s->in_size, s->in_pos };
		ret = ZSTD_decompressStream(s->dctx, &ob, &ib);
		if (ZSTD_isError(ret) || ob.pos)
			return records_refuse(s, error, "zstd: the frame holds more than the table says");
		s->in_pos = ib.pos;
		s->frame_done = !ret;
	}
	if (s->in_pos != s->in_size || s->stored_left)
		return records_refuse(s, error, "bytes after the zstd frame");
	if (s->crc != s->r->sections[s->si].crc) {
		char what[160];

		snprintf(what, sizeof(what), "changed since the trace was opened (checksum "
			 "%08x, the table says %08x)", s->crc, s->r->sections[s->si].crc);
		return records_refuse(s, error, what);
	}
	return 0;
}

/*
 * A delta-coded section's frame: its content size (the coded stream's)
 * from its header, at most what the table's decoded size can code to.
 */
static int delta_frame_size(struct trace_records *s, struct trace_error *error)
{
	uint64_t raw_size = s->r->sections[s->si].raw_size;
	unsigned long long content;
	char what[200];

	if (records_fill(s, error))
		return -1;
	content = ZSTD_getFrameContentSize(s->in, s->in_size);
	if (content >= ZSTD_CONTENTSIZE_ERROR - 1) {
		snprintf(what, sizeof(what), "zstd frame holds %s bytes",
			 content == ZSTD_CONTENTSIZE_ERROR ? "(not a frame)" : "(unknown)");
		return records_refuse(s, error, what);
	}
	if (content > delta_coded_max(raw_size)) {
		snprintf(what, sizeof(what), "zstd frame holds %llu coded bytes, more than "
			 "the %llu the table's %llu decoded bytes can code to", content,
			 (unsigned long long)delta_coded_max(raw_size),
			 (unsigned long long)raw_size);
		return records_refuse(s, error, what);
	}
	s->raw_left = content;
	return 0;
}

/* The delta coding's warp table: each id as the gap from the one before
 * less one (the first whole), then its record count. */
static int delta_warp_table(struct trace_records *s, uint64_t grid_warps,
			    struct trace_error *error)
{
	for (size_t n = 0; n < s->count; n++) {
		uint64_t at = s->coded_at, gap, count;
		uint64_t floor = n ? (uint64_t)s->ids[n - 1] + 1 : 0;
		enum coded_fault fault;

		if ((fault = coded_varint(s, &gap, error)) ||
		    (fault = coded_varint(s, &count, error))) {
			char what[64];

			snprintf(what, sizeof(what), "warp entry %zu", n);
			return coded_refuse(s, error, fault, at, what);
		}
		/* floor <= grid_warps <= 2^32: the id saturates, never wraps */
		if (gap >= grid_warps - floor)
			return refuse_coded(s, error, at,
					    "warp entry %zu: warp %llu is beyond the grid's %llu warps",
					    n, (unsigned long long)(gap > UINT64_MAX - floor ?
								    UINT64_MAX : floor + gap),
					    (unsigned long long)grid_warps);
		if (count > UINT32_MAX)
			return refuse_coded(s, error, at, "warp entry %zu: %llu records, more than 2^32",
					    n, (unsigned long long)count);
		s->ids[n] = (uint32_t)(floor + gap);
		s->counts[n] = (uint32_t)count;
	}
	return 0;
}

int trace_records_open(struct trace_reader *r, size_t launch_index,
		       struct trace_records **out, struct trace_error *error)
{
	const struct trace_launch *l;
	struct trace_records *s;
	uint64_t grid_warps, total = 0, raw_size;
	uint8_t head[8];
	size_t n;

	*out = NULL;
	if (launch_index >= r->launch_count)
		return refuse_errno(error, EINVAL, r->name, 0, "no launch %zu (the trace has %zu)",
				    launch_index, r->launch_count);
	l = &r->launches[launch_index];
	s = calloc(1, sizeof(*s));
	if (!s)
		return refuse_errno(error, ENOMEM, r->name, 0, "out of memory");
	s->r = r;
	s->si = r->access_sections[launch_index];
	if (s->si == SIZE_MAX) {	/* no section: no warps */
		*out = s;
		return 0;
	}
	raw_size = r->sections[s->si].raw_size;
	if (raw_size < 8) {
		refuse_in(r, error, s->si, 0, "%s", "too short for its warp count");
		goto fail;
	}
	s->stored_at = r->sections[s->si].offset;
	s->stored_left = r->sections[s->si].stored_size;
	s->raw_left = raw_size;
	s->delta = r->sections[s->si].compression == TRACE_COMPRESSION_DELTA_ZSTD;
	/* chunks no larger than the section: a small one costs little */
	s->in_cap = s->stored_left < READ_CHUNK ? (size_t)s->stored_left + 1 : READ_CHUNK;
	s->in = malloc(s->in_cap);
	if (r->sections[s->si].compression != TRACE_COMPRESSION_NONE &&
	    !(s->dctx = ZSTD_createDCtx()))
		goto nomem;
	if (!s->in)
		goto nomem;
	if (s->delta) {
		if (delta_frame_size(s, error))
			goto fail;
		s->coded_cap = s->raw_left < CODED_CHUNK ? (size_t)s->raw_left + 1 : CODED_CHUNK;
		if (!(s->coded = malloc(s->coded_cap)))
			goto nomem;
		for (n = 0; n < sizeof(head); n++) {
			enum coded_fault fault = coded_byte(s, &head[n], error);

			if (fault) {
				coded_refuse(s, error, fault, 0, "the warp count");
				goto fail;
			}
		}
	} else if (records_pull(s, head, sizeof(head), error)) {
		goto fail;
	}
	s->count = get_le32(head);
	if (get_le32(head + 4)) {
		refuse_in(r, error, s->si, 4, "%s", "reserved word is not zero");
		goto fail;
	}
	/* bounded by the table's size, as the allocations below are */
	if ((raw_size - 8) / TRACE_WARP_ENTRY_SIZE < s->count) {
		refuse_in(r, error, s->si, 0, "%zu warps are beyond the section's %llu bytes",
			  s->count, (unsigned long long)raw_size);
		goto fail;
	}
	s->ids = malloc((s->count + 1) * sizeof(*s->ids));
	s->counts = malloc((s->count + 1) * sizeof(*s->counts));
	if (!s->ids || !s->counts)
		goto nomem;
	grid_warps = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2] * l->warps_per_block;
	if (s->delta && delta_warp_table(s, grid_warps, error))
		goto fail;
	for (n = 0; n < s->count; n++) {
		uint8_t e[TRACE_WARP_ENTRY_SIZE];

		if (!s->delta) {
			if (records_pull(s, e, sizeof(e), error))
				goto fail;
			s->ids[n] = get_le32(e);
			s->counts[n] = get_le32(e + 4);
		}
		if (s->ids[n] >= grid_warps || (n && s->ids[n] <= s->ids[n - 1])) {
			refuse_in(r, error, s->si, 8 + n * TRACE_WARP_ENTRY_SIZE,
				  "warp entry %zu: warp %u is out of order or beyond the grid's %llu warps",
				  n, s->ids[n], (unsigned long long)grid_warps);
			goto fail;
		}
		total += s->counts[n];
	}
	/* the decoded size (a delta-coded section's too) is the table's */
	if (total != l->access_count || raw_size % 8 ||
	    (raw_size - 8) / 8 - s->count != total) {
		refuse_in(r, error, s->si, 8, "the warps hold %llu records, the launch record says "
			  "%llu, the section's %llu bytes %llu", (unsigned long long)total,
			  (unsigned long long)l->access_count, (unsigned long long)raw_size,
			  (unsigned long long)((raw_size - 8) / 8 - s->count));
		goto fail;
	}
	*out = s;
	return 0;
nomem:
	refuse_errno(error, ENOMEM, r->name, 0, "out of memory");
fail:
	trace_records_close(s);
	errno = error->errnum;
	return -1;
}

size_t trace_records_warps(const struct trace_records *s)
{
	return s->count;
}

/* One warp's n records of the coded stream into s->records. */
static int delta_warp(struct trace_records *s, uint32_t n, struct trace_error *error)
{
	int64_t previous = s->first;
	uint32_t id = s->ids[s->next];

	for (uint32_t j = 0; j < n; j++) {
		uint64_t at = s->coded_at, value, flags;
		enum coded_fault fault;
		int64_t line;
		char what[64];

		if ((fault = coded_varint(s, &value, error))) {
			snprintf(what, sizeof(what), "warp %u record %u", id, j);
			return coded_refuse(s, error, fault, at, what);
		}
		flags = value & DELTA_FLAGS_FOLDED;
		if (!flags) {	/* flags other than read, write or both: a byte */
			uint8_t b;

			if ((fault = coded_byte(s, &b, error))) {
				snprintf(what, sizeof(what), "warp %u record %u's flags", id, j);
				return coded_refuse(s, error, fault, at, what);
			}
			if (b & ~TRACE_ACCESS_FLAG_MASK || (b && !(b & ~DELTA_FLAGS_FOLDED)))
				return refuse_coded(s, error, at,
						    "warp %u record %u: flags byte %#x (bits 0..6, and not 1, 2 or 3: those fold into the varint)",
						    id, j, b);
			flags = b;
		}
		/* |delta| < 2^62 and 0 <= previous < 2^57: no overflow */
		line = previous + delta_unzigzag(value >> 2);
		if (line < 0 || (uint64_t)line >= DELTA_LINE_LIMIT)
			return refuse_coded(s, error, at,
					    "warp %u record %u: a delta of %lld lines from line %#llx leads outside 64 bits",
					    id, j, (long long)delta_unzigzag(value >> 2),
					    (unsigned long long)previous << DELTA_LINE_SHIFT);
		s->records[j] = (uint64_t)line << DELTA_LINE_SHIFT | flags;
		if (!j)
			s->first = line;
		previous = line;
	}
	return 0;
}

int trace_records_next(struct trace_records *s, uint32_t *warp_id,
		       const uint64_t **records, uint32_t *record_count,
		       struct trace_error *error)
{
	uint32_t n, j;

	if (s->next == s->count)
		return s->si == SIZE_MAX || !records_finish(s, error) ? 1 : -1;
	n = s->counts[s->next];
	if (n > s->records_cap) {
		uint64_t *grown = realloc(s->records, (size_t)n * sizeof(*grown));

		if (!grown)
			return refuse_errno(error, ENOMEM, s->r->name, 0, "out of memory");
		s->records = grown;
		s->records_cap = n;
	}
	if (s->delta) {
		if (delta_warp(s, n, error))
			return -1;
	} else {
		if (records_pull(s, s->records, (size_t)n * 8, error))
			return -1;
		for (j = 0; j < n; j++)
			s->records[j] = get_le64((const uint8_t *)&s->records[j]);
	}
	*warp_id = s->ids[s->next++];
	*records = s->records;
	*record_count = n;
	return 0;
}

void trace_records_close(struct trace_records *s)
{
	if (!s)
		return;
	ZSTD_freeDCtx(s->dctx);
	free(s->in);
	free(s->coded);
	free(s->ids);
	free(s->counts);
	free(s->records);
	free(s);
}

/*
 * A delta-coded section decoded whole, for trace_warps_open(): through
 * the stream above, into the layout compression 1 stores (raw_size
 * bytes, as the table says: trace_records_open() checked that the warps
 * fill exactly that), so that check_warps() reads both alike.
 */
static int delta_load(struct trace_reader *r, size_t launch_index,
		      uint8_t **payload, struct trace_error *error)
{
	uint64_t raw_size = r->sections[r->access_sections[launch_index]].raw_size;
	struct trace_records *s;
	const uint64_t *records;
	uint32_t id, count;
	uint8_t *raw, *p;
	int rc;

	*payload = NULL;
	if (trace_records_open(r, launch_index, &s, error))
		return -1;
	raw = malloc(raw_size + 1);
	if (!raw) {
		trace_records_close(s);
		return refuse_errno(error, ENOMEM, r->name, r->sections[s->si].offset,
				    "section %zu: out of memory for %llu bytes", s->si,
				    (unsigned long long)raw_size);
	}
	put_le32(raw, (uint32_t)s->count);
	put_le32(raw + 4, 0);
	p = raw + 8;
	for (size_t n = 0; n < s->count; n++, p += TRACE_WARP_ENTRY_SIZE) {
		put_le32(p, s->ids[n]);
		put_le32(p + 4, s->counts[n]);
	}
	while (!(rc = trace_records_next(s, &id, &records, &count, error)))
		for (uint32_t j = 0; j < count; j++, p += 8)
			put_le64(p, records[j]);
	trace_records_close(s);
	if (rc < 0) {
		free(raw);
		return -1;
	}
	raw[raw_size] = 0;
	*payload = raw;
	return 0;
}
