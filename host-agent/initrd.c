// SPDX-License-Identifier: MIT
/* A file of a guest image: see initrd.h. */
#include "initrd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"	/* trace_crc32 */

/* newc: "070701" (or "070702", with checksums), then 13 fields of 8 hex digits */
#define NEWC_HEADER	110
#define NEWC_FILESIZE	(6 + 6 * 8)
#define NEWC_NAMESIZE	(6 + 11 * 8)
#define NEWC_TRAILER	"TRAILER!!!"

static int hex_field(const char *h, uint32_t *v)
{
	char buf[9], *end;

	memcpy(buf, h, 8);
	buf[8] = '\0';
	*v = (uint32_t)strtoul(buf, &end, 16);
	return *end ? -EINVAL : 0;
}

/* Skips (or, with crc, reads) n bytes, then the padding to a multiple of 4 from `at`. */
static int skip(FILE *f, uint64_t n, uint64_t *at, uint32_t *crc)
{
	unsigned char buf[65536];

	while (n) {
		size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);

		if (fread(buf, 1, k, f) != k)
			return ferror(f) ? -errno : -EINVAL;
		if (crc)
			*crc = trace_crc32(*crc, buf, k);
		n -= k;
		*at += k;
	}
	while (*at & 3) {
		if (fgetc(f) == EOF)
			return -EINVAL;
		(*at)++;
	}
	return 0;
}

int em_initrd_file(const char *initrd, const char *path, uint64_t *size, uint32_t *crc)
{
	char h[NEWC_HEADER], name[4096];
	FILE *f = fopen(initrd, "re");
	uint64_t at = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	for (;;) {
		uint32_t filesize, namesize;
		const char *n = name;
		bool match;

		if (fread(h, 1, sizeof(h), f) != sizeof(h) ||
		    (memcmp(h, "070701", 6) && memcmp(h, "070702", 6)) ||
		    hex_field(h + NEWC_FILESIZE, &filesize) ||
		    hex_field(h + NEWC_NAMESIZE, &namesize) ||
		    !namesize || namesize > sizeof(name) ||
		    fread(name, 1, namesize, f) != namesize || name[namesize - 1]) {
			ret = -EINVAL;
			break;
		}
		at += sizeof(h) + namesize;
		if (!strcmp(name, NEWC_TRAILER))
			break;	/* the end, and no such file */
		if (!strncmp(n, "./", 2))
			n += 2;
		match = !strcmp(n, path);
		if (skip(f, 0, &at, NULL)) {
			ret = -EINVAL;
			break;
		}
		*crc = 0;
		if (skip(f, filesize, &at, match ? crc : NULL)) {
			ret = -EINVAL;
			break;
		}
		if (match) {
			*size = filesize;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}
