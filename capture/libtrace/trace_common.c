// SPDX-License-Identifier: MIT
/* libtrace: CRC-32, record encoding and names shared by reader and writer. */
#include "trace.h"
#include "trace_internal.h"

/*
 * CRC-32 a byte at a time: the 256-entry table is made by the compiler
 * from the polynomial (CRC_BYTE: eight shifts of a byte), so no table is
 * typed in or built at run time (no global state). A replay reads a
 * large trace's accesses two or three times, each time checked against
 * its CRC: a byte a lookup keeps that well below decompressing them.
 */
#define CRC_BIT(c)	(((c) >> 1) ^ (0xedb88320u & (0u - ((c) & 1u))))
#define CRC_BYTE(c)	CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT((uint32_t)(c)))))))))
#define CRC_4(n)	CRC_BYTE(n), CRC_BYTE((n) + 1), CRC_BYTE((n) + 2), CRC_BYTE((n) + 3)
#define CRC_16(n)	CRC_4(n), CRC_4((n) + 4), CRC_4((n) + 8), CRC_4((n) + 12)
#define CRC_64(n)	CRC_16(n), CRC_16((n) + 16), CRC_16((n) + 32), CRC_16((n) + 48)
static const uint32_t crc32_byte_table[256] = {
	CRC_64(0), CRC_64(64), CRC_64(128), CRC_64(192),
};

uint32_t trace_crc32(uint32_t crc, const void *data, size_t size)
{
	const uint8_t *p = data;

	crc = ~crc;
	for (size_t i = 0; i < size; i++)
		crc = (crc >> 8) ^ crc32_byte_table[(crc ^ p[i]) & 0xff];
	return ~crc;
}

/* a x b modulo the CRC polynomial, both reflected (bit 31 is x^0) */
static uint32_t crc32_multiply(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if (!(a & (m - 1)))
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ 0xedb88320u : b >> 1;
	}
	return p;
}

uint32_t trace_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t size2)
{
	/* crc1 x x^(8 size2): x^8, squared for each bit of size2 */
	uint32_t power = 1u << 23, shift = 1u << 31;

	for (; size2; size2 >>= 1, power = crc32_multiply(power, power))
		if (size2 & 1)
			shift = crc32_multiply(power, shift);
	return crc32_multiply(shift, crc1) ^ crc2;
}

void trace_encode_event(uint8_t *out, const struct trace_event *event)
{
	put_le16(out + 0, event->kind);
	put_le16(out + 2, event->flags);
	put_le32(out + 4, event->arg32);
	put_le64(out + 8, event->address);
	put_le64(out + 16, event->size);
	put_le64(out + 24, event->arg64);
	put_le64(out + 32, event->reserved);
	put_le64(out + 40, event->host_time_ns);
}

void trace_decode_event(const uint8_t *in, struct trace_event *event)
{
	event->kind = get_le16(in + 0);
	event->flags = get_le16(in + 2);
	event->arg32 = get_le32(in + 4);
	event->address = get_le64(in + 8);
	event->size = get_le64(in + 16);
	event->arg64 = get_le64(in + 24);
	event->reserved = get_le64(in + 32);
	event->host_time_ns = get_le64(in + 40);
}

void trace_encode_launch(uint8_t *out, const struct trace_launch *launch)
{
	put_le32(out + 0, launch->launch_index);
	put_le32(out + 4, launch->flags);
	for (int i = 0; i < 3; i++) {
		put_le32(out + 8 + 4 * i, launch->grid[i]);
		put_le32(out + 20 + 4 * i, launch->block[i]);
	}
	put_le32(out + 32, launch->name_offset);
	put_le32(out + 36, launch->warps_per_block);
	put_le64(out + 40, launch->gpu_time_ns);
	put_le64(out + 48, launch->access_count);
	put_le64(out + 56, launch->dropped_count);
	put_le64(out + 64, launch->outside_count);
	put_le64(out + 72, launch->reserved);
}

void trace_decode_launch(const uint8_t *in, struct trace_launch *launch)
{
	launch->launch_index = get_le32(in + 0);
	launch->flags = get_le32(in + 4);
	for (int i = 0; i < 3; i++) {
		launch->grid[i] = get_le32(in + 8 + 4 * i);
		launch->block[i] = get_le32(in + 20 + 4 * i);
	}
	launch->name_offset = get_le32(in + 32);
	launch->warps_per_block = get_le32(in + 36);
	launch->gpu_time_ns = get_le64(in + 40);
	launch->access_count = get_le64(in + 48);
	launch->dropped_count = get_le64(in + 56);
	launch->outside_count = get_le64(in + 64);
	launch->reserved = get_le64(in + 72);
}

const char *trace_event_kind_name(uint16_t kind)
{
	static const char *const names[] = {
		[TRACE_EVENT_ALLOC] = "alloc",	   [TRACE_EVENT_FREE] = "free",
		[TRACE_EVENT_ADVISE] = "advise",   [TRACE_EVENT_PREFETCH] = "prefetch",
		[TRACE_EVENT_MEMCPY] = "memcpy",   [TRACE_EVENT_MEMSET] = "memset",
		[TRACE_EVENT_LAUNCH] = "launch",   [TRACE_EVENT_SYNC] = "sync",
	};

	if (kind == 0 || kind > TRACE_EVENT_KIND_MAX)
		return "unknown";
	return names[kind];
}
