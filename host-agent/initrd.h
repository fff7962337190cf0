/* SPDX-License-Identifier: MIT */
/*
 * What a guest image carries: one file of an initramfs, a newc cpio as
 * images/common.sh's write_cpio makes them, found by its path and read for
 * its size and CRC-32, so that ember-agent refuses a run whose image lacks
 * a file the run needs (a trace:FILE app's /traces/FILE), or carries
 * other bytes than those checked on the host, before any VM boots.
 */
#ifndef EMBER_AGENT_INITRD_H
#define EMBER_AGENT_INITRD_H

#include <stdint.h>

/*
 * File `path` (relative to the image's root, "traces/x.trace") of the
 * initramfs `initrd`: 0 with its size and CRC-32 (trace_crc32's), -ENOENT
 * when the image has no such file, -EINVAL when initrd is not a newc
 * cpio, or another -errno when it cannot be read.
 */
int em_initrd_file(const char *initrd, const char *path, uint64_t *size, uint32_t *crc);

#endif /* EMBER_AGENT_INITRD_H */
