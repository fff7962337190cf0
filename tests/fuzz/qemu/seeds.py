#!/usr/bin/env python3
"""Hand-written generic-fuzz inputs for emgpu, added to the corpus.

    seeds.py CORPUS_DIR

Each seed reaches a path the fuzzer is unlikely to find alone: a DMA of
the device's aimed at its own BARs (re-entrancy, refused by
emgpu_dma_to_self() in qemu-device/emgpu.c). generic-fuzz maps the
device's BARs through libqos from 0xe0000000 up (pci_enum), so BAR0 is at
0xe0000000 and the MSI-X BAR (4) right after it, at 0xe0004000.

Input format (tests/qtest/fuzz/generic_fuzz.c, QEMU 7.2): commands split
by "FUZZ"; a command is one opcode byte (enum cmds) and its operands.
OP_WRITE is struct { u8 size (2: 32 bits); u8 base (the index'th fuzzable
range, emgpu-regs first); u8 pad[2]; u32 offset; u64 value; }. Files are
named by their SHA-1, as libFuzzer names what it finds.
"""
import hashlib
import os
import struct
import sys

OP_WRITE = 3
LONG = 2
BAR0 = 0xE0000000
MSIX_BAR = 0xE0004000

# emgpu_hw.h
CE_RING_LO, CE_RING_HI, CE_RING_SIZE, CE_RING_PUT, CE_DOORBELL = (
    0x0500, 0x0504, 0x0508, 0x0510, 0x0514)
LAUNCH_DESC_LO, LAUNCH_DESC_HI, LAUNCH_DOORBELL = 0x0600, 0x0604, 0x0608


def wr(reg, val):
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", LONG, 0, reg, val)


SEEDS = {
    # the doorbell's MMIO handler reads a launch descriptor from BAR0
    "launch descriptor in BAR0": [
        wr(LAUNCH_DESC_HI, 0), wr(LAUNCH_DESC_LO, BAR0),
        wr(LAUNCH_DOORBELL, 1)],
    # the copy engine fetches its descriptors from a ring in BAR0
    "copy ring in BAR0": [
        wr(CE_RING_HI, 0), wr(CE_RING_LO, BAR0), wr(CE_RING_SIZE, 64),
        wr(CE_RING_PUT, 1), wr(CE_DOORBELL, 1)],
    # ... and from a ring in the MSI-X table
    "copy ring in the MSI-X table": [
        wr(CE_RING_HI, 0), wr(CE_RING_LO, MSIX_BAR), wr(CE_RING_SIZE, 64),
        wr(CE_RING_PUT, 1), wr(CE_DOORBELL, 1)],
}


def main():
    out = sys.argv[1]
    for name, cmds in SEEDS.items():
        data = b"FUZZ".join(cmds)
        path = os.path.join(out, hashlib.sha1(data).hexdigest())
        with open(path, "wb") as f:
            f.write(data)
        print(f"{path}: {name}")


if __name__ == "__main__":
    main()
