/* SPDX-License-Identifier: MIT */
/* libtrace internals shared by the reader and the writer: the on-disk
 * layout's field offsets (docs/trace-format.md) and little-endian access. */
#ifndef EMBER_TRACE_INTERNAL_H
#define EMBER_TRACE_INTERNAL_H

#include <stdint.h>
#include <string.h>

/* Header field offsets. */
#define HDR_MAGIC 0
#define HDR_VERSION_MAJOR 8
#define HDR_VERSION_MINOR 10
#define HDR_FLAGS 12
#define HDR_HEADER_SIZE 16
#define HDR_LINE_SIZE 20
#define HDR_WARP_SIZE 24
#define HDR_SECTION_COUNT 28
#define HDR_TABLE_OFFSET 32
#define HDR_FILE_SIZE 40
#define HDR_RESERVED 48
#define HDR_CRC 60

/* Section table entry field offsets. */
#define SEC_TYPE 0
#define SEC_COMPRESSION 4
#define SEC_OFFSET 8
#define SEC_STORED_SIZE 16
#define SEC_RAW_SIZE 24
#define SEC_CRC 32
#define SEC_LAUNCH_INDEX 36
#define SEC_RESERVED 40

/* Sections hold at most this many of anything, so that every count times
 * its record size fits in 64 bits with room to spare. */
#define TRACE_MAX_SECTIONS (1u << 24)

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | ((uint64_t)get_le32(p + 4) << 32);
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * TRACE_COMPRESSION_DELTA_ZSTD (docs/trace-format.md, "Delta coding"):
 * unsigned LEB128 varints, a record's line as the zigzag of its distance
 * in lines from the record before it, its flags in the value's low two
 * bits (1 read, 2 write, 3 both) or, with those bits 0, in a byte after.
 */
#define DELTA_VARINT_MAX 10		/* bytes of a 64-bit varint */
#define DELTA_LINE_SHIFT 7		/* a line's number is its address >> 7 */
#define DELTA_LINE_LIMIT (1ull << (64 - DELTA_LINE_SHIFT)) /* line numbers */
#define DELTA_FLAGS_FOLDED 0x3ull	/* flags that fit in the low bits */
/* Coded bytes per decoded byte, at most: a warp entry's two varints (up
 * to 10 bytes for 8) and a record (a 9-byte varint and a flags byte for
 * 8) both stay within 5/4. */
#define delta_coded_max(raw_size) ((raw_size) + (raw_size) / 4)

static inline uint64_t delta_zigzag(int64_t v)
{
	return v < 0 ? ((uint64_t)-(v + 1) << 1) | 1 : (uint64_t)v << 1;
}

static inline int64_t delta_unzigzag(uint64_t v)
{
	return v & 1 ? -(int64_t)(v >> 1) - 1 : (int64_t)(v >> 1);
}

/* Event and launch records, encoded and decoded field by field so that the
 * file's layout does not depend on the compiler's struct padding. */
void trace_encode_event(uint8_t *out, const struct trace_event *event);
void trace_decode_event(const uint8_t *in, struct trace_event *event);
void trace_encode_launch(uint8_t *out, const struct trace_launch *launch);
void trace_decode_launch(const uint8_t *in, struct trace_launch *launch);

#endif
