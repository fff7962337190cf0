// SPDX-License-Identifier: MIT
/*
 * libtrace writer. The file is written front to back: a placeholder
 * header, each launch's ACCESSES section as it is added, then at close
 * META, EVENTS, LAUNCHES, NAMES, the section table, and the real header
 * (written last, so a capture that dies midway leaves a file the reader
 * refuses: its header has no magic).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "trace.h"
#include "trace_internal.h"

/* A growable byte buffer. */
struct byte_buffer {
	uint8_t *data;
	size_t size;
	size_t capacity;
};

struct section_entry {
	uint32_t type;
	uint32_t compression;	/* enum trace_compression */
	uint32_t launch_index;
	uint64_t offset;
	uint64_t stored_size;
	uint64_t raw_size;
	uint32_t crc;
	/* what was compressed (a delta-coded section's coded stream) */
	uint64_t input_size;
	uint32_t input_crc;
};

struct trace_writer {
	FILE *file;
	char *path;
	uint64_t position;	/* bytes written so far */
	uint32_t flags;
	int level;
	uint32_t accesses_compression;	/* how ACCESSES sections are stored */
	struct byte_buffer meta;
	struct byte_buffer events;	/* encoded event records */
	struct byte_buffer launches;	/* encoded launch records */
	struct byte_buffer names;
	uint32_t launch_count;
	struct section_entry *sections;
	size_t section_count;
	size_t section_capacity;
	/*
	 * The ACCESSES sections written, by the CRC of what was compressed
	 * (open addressing, 0 empty, else the section's index + 1): a launch
	 * whose accesses equal an earlier one's shares its stored bytes
	 * (docs/trace-format.md, "Shared sections")
	 */
	size_t *by_crc;
	size_t by_crc_size;	/* a power of two, at least twice the entries */
	size_t by_crc_count;
	bool shared;		/* some section shares another's bytes */
	char error[320];
};

static int writer_fail(struct trace_writer *writer, const char *format, ...)
{
	va_list args;
	int n = snprintf(writer->error, sizeof(writer->error), "%s: ",
			 writer->path ? writer->path : "(trace)");

	if (n < 0 || (size_t)n >= sizeof(writer->error))
		n = 0;
	va_start(args, format);
	vsnprintf(writer->error + n, sizeof(writer->error) - (size_t)n, format,
		  args);
	va_end(args);
	return -1;
}

static int buffer_append(struct byte_buffer *buffer, const void *data,
			 size_t size)
{
	if (size > SIZE_MAX - buffer->size)
		return -1;
	if (buffer->size + size > buffer->capacity) {
		size_t capacity = buffer->capacity ? buffer->capacity : 4096;
		uint8_t *grown;

		while (capacity < buffer->size + size)
			capacity *= 2;
		grown = realloc(buffer->data, capacity);
		if (!grown)
			return -1;
		buffer->data = grown;
		buffer->capacity = capacity;
	}
	memcpy(buffer->data + buffer->size, data, size);
	buffer->size += size;
	return 0;
}

static int write_bytes(struct trace_writer *writer, const void *data,
		       size_t size)
{
	if (size && fwrite(data, 1, size, writer->file) != size)
		return writer_fail(writer, "write at offset %llu: %s",
				   (unsigned long long)writer->position,
				   strerror(errno));
	writer->position += size;
	return 0;
}

/*
 * Whether the section stored at `c` decompresses to `input` (`size`
 * bytes): its stored bytes are read back from the file.
 */
static int stored_holds(struct trace_writer *writer, const struct section_entry *c,
			const void *input, size_t size, bool *equal)
{
	uint8_t *stored = malloc(c->stored_size ? c->stored_size : 1);
	uint8_t *plain = malloc(size ? size : 1);
	size_t n;
	int rc = -1;

	*equal = false;
	if (!stored || !plain) {
		writer_fail(writer, "out of memory");
		goto out;
	}
	if (fflush(writer->file) || fseeko(writer->file, (off_t)c->offset, SEEK_SET) ||
	    fread(stored, 1, c->stored_size, writer->file) != c->stored_size) {
		writer_fail(writer, "reading back at offset %llu: %s",
			    (unsigned long long)c->offset,
			    ferror(writer->file) ? strerror(errno) : "short file");
		goto out;
	}
	if (fseeko(writer->file, (off_t)writer->position, SEEK_SET)) {
		writer_fail(writer, "seeking to the end: %s", strerror(errno));
		goto out;
	}
	n = ZSTD_decompress(plain, size, stored, c->stored_size);
	*equal = !ZSTD_isError(n) && n == size && !memcmp(plain, input, size);
	rc = 0;
out:
	free(stored);
	free(plain);
	return rc;
}

/* The slot of `crc` in by_crc: its section's, or the empty one to take. */
static size_t crc_slot(const struct trace_writer *writer, uint32_t crc)
{
	size_t mask = writer->by_crc_size - 1, i = crc & mask;

	while (writer->by_crc[i] &&
	       writer->sections[writer->by_crc[i] - 1].input_crc != crc)
		i = (i + 1) & mask;
	return i;
}

/* Remembers ACCESSES section `index` by its input's CRC (the first only). */
static int remember_accesses(struct trace_writer *writer, size_t index)
{
	size_t slot;

	if (2 * (writer->by_crc_count + 1) > writer->by_crc_size) {
		size_t size = writer->by_crc_size ? 2 * writer->by_crc_size : 256;
		size_t *old = writer->by_crc, old_size = writer->by_crc_size;

		writer->by_crc = calloc(size, sizeof(*writer->by_crc));
		if (!writer->by_crc) {
			writer->by_crc = old;
			return writer_fail(writer, "out of memory");
		}
		writer->by_crc_size = size;
		for (size_t i = 0; i < old_size; i++)
			if (old[i])
				writer->by_crc[crc_slot(writer,
					writer->sections[old[i] - 1].input_crc)] = old[i];
		free(old);
	}
	slot = crc_slot(writer, writer->sections[index].input_crc);
	if (!writer->by_crc[slot]) {
		writer->by_crc[slot] = index + 1;
		writer->by_crc_count++;
	}
	return 0;
}

/*
 * The earlier ACCESSES section stored as `e` would be, from the same bytes
 * (the candidate of its input's CRC, decompressed and compared byte for
 * byte), or NULL. A repeat costs a decompression, not a compression.
 */
static int find_shared(struct trace_writer *writer, const struct section_entry *e,
		       const void *input, const struct section_entry **found)
{
	const struct section_entry *c;
	size_t slot;
	bool equal;

	*found = NULL;
	if (!writer->by_crc_size)
		return 0;
	slot = crc_slot(writer, e->input_crc);
	if (!writer->by_crc[slot])
		return 0;
	c = &writer->sections[writer->by_crc[slot] - 1];
	if (c->compression != e->compression || c->input_size != e->input_size ||
	    c->raw_size != e->raw_size)
		return 0;
	if (stored_holds(writer, c, input, e->input_size, &equal))
		return -1;
	if (equal)
		*found = c;
	return 0;
}

/* Compresses `raw` and writes it as one section. A delta-coded section's
 * raw bytes are its coded stream: its table entry gives the size they
 * decode to, `decoded_size`; other sections' raw bytes are their own. An
 * ACCESSES section whose raw bytes an earlier one had shares its bytes. */
static int write_section(struct trace_writer *writer, uint32_t type,
			 uint32_t compression, uint32_t launch_index,
			 const void *raw, size_t raw_size, size_t decoded_size)
{
	size_t bound, stored_size;
	struct section_entry *entry;
	void *stored;

	if (writer->section_count == writer->section_capacity) {
		size_t capacity = writer->section_capacity ?
					  writer->section_capacity * 2 : 64;
		struct section_entry *grown =
			realloc(writer->sections, capacity * sizeof(*grown));

		if (!grown)
			return writer_fail(writer, "out of memory");
		writer->sections = grown;
		writer->section_capacity = capacity;
	}
	entry = &writer->sections[writer->section_count];
	entry->type = type;
	entry->compression = compression;
	entry->launch_index = launch_index;
	entry->raw_size = decoded_size;
	entry->input_size = raw_size;
	entry->input_crc = trace_crc32(0, raw ? raw : "", raw_size);
	if (type == TRACE_SECTION_ACCESSES) {
		const struct section_entry *same;

		if (find_shared(writer, entry, raw, &same))
			return -1;
		if (same) {	/* a launch that repeats an earlier one's lines */
			entry->offset = same->offset;
			entry->stored_size = same->stored_size;
			entry->crc = same->crc;
			writer->section_count++;
			writer->shared = true;
			return 0;
		}
	}
	bound = ZSTD_compressBound(raw_size);
	stored = malloc(bound ? bound : 1);
	if (!stored)
		return writer_fail(writer, "out of memory compressing a section");
	/* An empty section (no meta, no names) is a zstd frame of 0 bytes. */
	stored_size = ZSTD_compress(stored, bound, raw ? raw : "", raw_size,
				    writer->level);
	if (ZSTD_isError(stored_size)) {
		free(stored);
		return writer_fail(writer, "zstd: %s",
				   ZSTD_getErrorName(stored_size));
	}
	entry->offset = writer->position;
	entry->stored_size = stored_size;
	entry->crc = trace_crc32(0, stored, stored_size);
	if (write_bytes(writer, stored, stored_size)) {
		free(stored);
		return -1;
	}
	free(stored);
	writer->section_count++;
	if (type == TRACE_SECTION_ACCESSES)
		return remember_accesses(writer, writer->section_count - 1);
	return 0;
}

int trace_writer_open(const char *path, struct trace_writer **out,
		      struct trace_error *error)
{
	struct trace_writer *writer = calloc(1, sizeof(*writer));
	uint8_t placeholder[TRACE_HEADER_SIZE] = { 0 };

	*out = NULL;
	if (!writer || !(writer->path = strdup(path))) {
		free(writer);
		snprintf(error->message, sizeof(error->message),
			 "%s: out of memory", path);
		error->offset = 0;
		return -1;
	}
	writer->level = 3;
	writer->accesses_compression = TRACE_COMPRESSION_ZSTD;
	/* read too: a section is compared with an earlier one's bytes */
	writer->file = fopen(path, "w+b");
	if (!writer->file) {
		snprintf(error->message, sizeof(error->message), "%s: %s", path,
			 strerror(errno));
		error->offset = 0;
		free(writer->path);
		free(writer);
		return -1;
	}
	/* Zeros until close: no magic, so an unfinished file is refused. */
	if (write_bytes(writer, placeholder, sizeof(placeholder))) {
		snprintf(error->message, sizeof(error->message), "%s",
			 writer->error);
		error->offset = 0;
		trace_writer_abandon(writer);
		return -1;
	}
	*out = writer;
	return 0;
}

int trace_writer_set_meta(struct trace_writer *writer, const char *key,
			  const char *value)
{
	if (!*key || strpbrk(key, "=\n") || strchr(value, '\n'))
		return writer_fail(writer, "meta key '%s': '=' or newline", key);
	if (buffer_append(&writer->meta, key, strlen(key)) ||
	    buffer_append(&writer->meta, "=", 1) ||
	    buffer_append(&writer->meta, value, strlen(value)) ||
	    buffer_append(&writer->meta, "\n", 1))
		return writer_fail(writer, "out of memory");
	return 0;
}

void trace_writer_set_flags(struct trace_writer *writer, uint32_t flags)
{
	writer->flags = flags;
}

void trace_writer_set_level(struct trace_writer *writer, int level)
{
	writer->level = level;
}

int trace_writer_set_accesses_compression(struct trace_writer *writer,
					  uint32_t compression)
{
	if (compression != TRACE_COMPRESSION_ZSTD &&
	    compression != TRACE_COMPRESSION_DELTA_ZSTD)
		return writer_fail(writer, "ACCESSES sections cannot be stored with compression %u",
				   compression);
	writer->accesses_compression = compression;
	return 0;
}

int trace_writer_add_event(struct trace_writer *writer,
			   const struct trace_event *event)
{
	uint8_t encoded[TRACE_EVENT_SIZE];

	trace_encode_event(encoded, event);
	if (buffer_append(&writer->events, encoded, sizeof(encoded)))
		return writer_fail(writer, "out of memory");
	return 0;
}

int trace_writer_add_launch(struct trace_writer *writer,
			    const struct trace_launch *launch,
			    const char *kernel_name, uint64_t host_time_ns,
			    uint32_t *launch_index)
{
	struct trace_launch record = *launch;
	struct trace_event event = { 0 };
	uint8_t encoded[TRACE_LAUNCH_SIZE];

	if (writer->names.size > UINT32_MAX - strlen(kernel_name) - 1)
		return writer_fail(writer, "kernel names exceed 4 GiB");
	record.launch_index = writer->launch_count;
	record.name_offset = (uint32_t)writer->names.size;
	if (buffer_append(&writer->names, kernel_name, strlen(kernel_name) + 1))
		return writer_fail(writer, "out of memory");
	trace_encode_launch(encoded, &record);
	if (buffer_append(&writer->launches, encoded, sizeof(encoded)))
		return writer_fail(writer, "out of memory");
	event.kind = TRACE_EVENT_LAUNCH;
	event.arg32 = record.launch_index;
	event.host_time_ns = host_time_ns;
	if (trace_writer_add_event(writer, &event))
		return -1;
	*launch_index = writer->launch_count++;
	return 0;
}

int trace_writer_update_launch(struct trace_writer *writer,
			       const struct trace_launch *launch)
{
	uint8_t *slot;
	struct trace_launch record = *launch;

	if (launch->launch_index >= writer->launch_count)
		return writer_fail(writer, "update of unknown launch %u",
				   launch->launch_index);
	slot = writer->launches.data +
	       (size_t)launch->launch_index * TRACE_LAUNCH_SIZE;
	/* The name stays where add_launch put it. */
	record.name_offset = get_le32(slot + 32);
	trace_encode_launch(slot, &record);
	return 0;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * The delta coding of one launch's warps (docs/trace-format.md, "Delta
 * coding") into `coded` (delta_coded_max() of the decoded size, at
 * least); returns the coded size. A warp's first record is coded against
 * the first record of the warp before it that has one: a launch's warps
 * mostly start a fixed stride apart, so the stream repeats from warp to
 * warp and zstd finds it.
 */
static size_t delta_encode(uint8_t *coded, const struct trace_warp_records *warps,
			   size_t warp_count)
{
	uint8_t *p = coded;
	int64_t first = 0;

	put_le32(p, (uint32_t)warp_count);
	put_le32(p + 4, 0);
	p += 8;
	for (size_t i = 0; i < warp_count; i++) {
		/* ids ascend: the gap less one, the first id whole */
		p = put_varint(p, i ? (uint64_t)warps[i].warp_id - warps[i - 1].warp_id - 1 :
				      warps[i].warp_id);
		p = put_varint(p, warps[i].record_count);
	}
	for (size_t i = 0; i < warp_count; i++) {
		int64_t previous = first;

		for (uint32_t j = 0; j < warps[i].record_count; j++) {
			uint64_t record = warps[i].records[j];
			uint64_t flags = record & TRACE_ACCESS_FLAG_MASK;
			int64_t line = (int64_t)(record >> DELTA_LINE_SHIFT);
			uint64_t folded = flags && !(flags & ~DELTA_FLAGS_FOLDED) ? flags : 0;

			p = put_varint(p, delta_zigzag(line - previous) << 2 | folded);
			if (!folded)
				*p++ = (uint8_t)flags;
			if (!j)
				first = line;
			previous = line;
		}
	}
	return (size_t)(p - coded);
}

int trace_writer_add_accesses(struct trace_writer *writer,
			      uint32_t launch_index,
			      const struct trace_warp_records *warps,
			      size_t warp_count)
{
	bool delta = writer->accesses_compression == TRACE_COMPRESSION_DELTA_ZSTD;
	size_t record_total = 0, raw_size, at;
	uint8_t *raw;
	int rc;

	for (size_t i = 0; i < warp_count; i++) {
		record_total += warps[i].record_count;
		/* coded as gaps: descending ids have none (the plain layout
		 * writes them, for the reader to refuse) */
		if (delta && i && warps[i].warp_id <= warps[i - 1].warp_id)
			return writer_fail(writer, "launch %u: warp %u after warp %u: delta coding needs ascending warp ids",
					   launch_index, warps[i].warp_id, warps[i - 1].warp_id);
	}
	if (warp_count > UINT32_MAX ||
	    record_total > (SIZE_MAX - 8) / 8 - warp_count)
		return writer_fail(writer, "launch %u: too many records",
				   launch_index);
	raw_size = 8 + TRACE_WARP_ENTRY_SIZE * warp_count + 8 * record_total;
	if (delta && raw_size > SIZE_MAX / 5 * 4)
		return writer_fail(writer, "launch %u: too many records",
				   launch_index);
	raw = malloc(delta ? delta_coded_max(raw_size) : raw_size);
	if (!raw)
		return writer_fail(writer, "out of memory");
	if (delta) {
		rc = write_section(writer, TRACE_SECTION_ACCESSES,
				   TRACE_COMPRESSION_DELTA_ZSTD, launch_index, raw,
				   delta_encode(raw, warps, warp_count), raw_size);
		free(raw);
		return rc;
	}
	put_le32(raw, (uint32_t)warp_count);
	put_le32(raw + 4, 0);
	at = 8;
	for (size_t i = 0; i < warp_count; i++, at += TRACE_WARP_ENTRY_SIZE) {
		put_le32(raw + at, warps[i].warp_id);
		put_le32(raw + at + 4, warps[i].record_count);
	}
	for (size_t i = 0; i < warp_count; i++)
		for (uint32_t j = 0; j < warps[i].record_count; j++, at += 8)
			put_le64(raw + at, warps[i].records[j]);
	rc = write_section(writer, TRACE_SECTION_ACCESSES, TRACE_COMPRESSION_ZSTD,
			   launch_index, raw, raw_size, raw_size);
	free(raw);
	return rc;
}

static void writer_free(struct trace_writer *writer)
{
	free(writer->meta.data);
	free(writer->events.data);
	free(writer->launches.data);
	free(writer->names.data);
	free(writer->sections);
	free(writer->by_crc);
	free(writer->path);
	free(writer);
}

void trace_writer_abandon(struct trace_writer *writer)
{
	if (!writer)
		return;
	if (writer->file)
		fclose(writer->file);
	writer_free(writer);
}

const char *trace_writer_last_error(const struct trace_writer *writer)
{
	return writer->error;
}

static int write_table_and_header(struct trace_writer *writer)
{
	size_t table_size = writer->section_count * TRACE_SECTION_ENTRY_SIZE;
	uint8_t *table = calloc(1, table_size + 4);
	uint8_t header[TRACE_HEADER_SIZE] = { 0 };
	uint64_t table_offset = writer->position;
	uint16_t minor = 0;

	if (!table)
		return writer_fail(writer, "out of memory");
	for (size_t i = 0; i < writer->section_count; i++) {
		uint8_t *e = table + i * TRACE_SECTION_ENTRY_SIZE;
		const struct section_entry *s = &writer->sections[i];

		put_le32(e + SEC_TYPE, s->type);
		put_le32(e + SEC_COMPRESSION, s->compression);
		/* 1.1 only where 1.1 is needed: a 1.0 reader reads the rest */
		if (s->compression == TRACE_COMPRESSION_DELTA_ZSTD && minor < 1)
			minor = 1;
		put_le64(e + SEC_OFFSET, s->offset);
		put_le64(e + SEC_STORED_SIZE, s->stored_size);
		put_le64(e + SEC_RAW_SIZE, s->raw_size);
		put_le32(e + SEC_CRC, s->crc);
		put_le32(e + SEC_LAUNCH_INDEX, s->launch_index);
	}
	if (writer->shared)
		minor = 2;
	put_le32(table + table_size, trace_crc32(0, table, table_size));
	if (write_bytes(writer, table, table_size + 4)) {
		free(table);
		return -1;
	}
	free(table);

	memcpy(header + HDR_MAGIC, TRACE_MAGIC, TRACE_MAGIC_SIZE);
	put_le16(header + HDR_VERSION_MAJOR, TRACE_VERSION_MAJOR);
	put_le16(header + HDR_VERSION_MINOR, minor);
	put_le32(header + HDR_FLAGS, writer->flags);
	put_le32(header + HDR_HEADER_SIZE, TRACE_HEADER_SIZE);
	put_le32(header + HDR_LINE_SIZE, TRACE_LINE_SIZE);
	put_le32(header + HDR_WARP_SIZE, TRACE_WARP_SIZE);
	put_le32(header + HDR_SECTION_COUNT, (uint32_t)writer->section_count);
	put_le64(header + HDR_TABLE_OFFSET, table_offset);
	put_le64(header + HDR_FILE_SIZE, writer->position);
	put_le32(header + HDR_CRC, trace_crc32(0, header, HDR_CRC));
	if (fseek(writer->file, 0, SEEK_SET) ||
	    fwrite(header, 1, sizeof(header), writer->file) != sizeof(header))
		return writer_fail(writer, "writing the header: %s",
				   strerror(errno));
	return 0;
}

int trace_writer_close(struct trace_writer *writer, struct trace_error *error)
{
	int rc = 0;
	uint8_t count[8];
	struct byte_buffer events = { 0 };

	/* EVENTS and LAUNCHES start with their record count (u32, u32 0). */
	put_le32(count, (uint32_t)(writer->events.size / TRACE_EVENT_SIZE));
	put_le32(count + 4, 0);
	if (buffer_append(&events, count, sizeof(count)) ||
	    buffer_append(&events, writer->events.data, writer->events.size))
		rc = writer_fail(writer, "out of memory");
	if (!rc)
		rc = write_section(writer, TRACE_SECTION_META, TRACE_COMPRESSION_ZSTD, 0,
				   writer->meta.data, writer->meta.size, writer->meta.size);
	if (!rc)
		rc = write_section(writer, TRACE_SECTION_EVENTS, TRACE_COMPRESSION_ZSTD, 0,
				   events.data, events.size, events.size);
	free(events.data);
	if (!rc) {
		struct byte_buffer launches = { 0 };

		put_le32(count, writer->launch_count);
		if (buffer_append(&launches, count, sizeof(count)) ||
		    buffer_append(&launches, writer->launches.data,
				  writer->launches.size))
			rc = writer_fail(writer, "out of memory");
		if (!rc)
			rc = write_section(writer, TRACE_SECTION_LAUNCHES,
					   TRACE_COMPRESSION_ZSTD, 0, launches.data,
					   launches.size, launches.size);
		free(launches.data);
	}
	if (!rc)
		rc = write_section(writer, TRACE_SECTION_NAMES, TRACE_COMPRESSION_ZSTD, 0,
				   writer->names.data, writer->names.size,
				   writer->names.size);
	if (!rc)
		rc = write_table_and_header(writer);
	if (fclose(writer->file) && !rc)
		rc = writer_fail(writer, "close: %s", strerror(errno));
	writer->file = NULL;
	if (rc && error) {
		snprintf(error->message, sizeof(error->message), "%s",
			 writer->error);
		error->offset = writer->position;
	}
	writer_free(writer);
	return rc;
}
