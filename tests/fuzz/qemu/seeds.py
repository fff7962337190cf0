#!/usr/bin/env python3
"""Hand-written generic-fuzz inputs for emgpu, added to the corpus.

    seeds.py CORPUS_DIR
    seeds.py --ga10x CORPUS_DIR     (personality=ga10x, personality.sh)

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

OP_READ, OP_WRITE, OP_CLOCK_STEP = 2, 3, 9
LONG, QUAD = 2, 3
BAR0 = 0xE0000000
MSIX_BAR = 0xE0004000

# emgpu_hw.h
CE_RING_LO, CE_RING_HI, CE_RING_SIZE, CE_RING_PUT, CE_DOORBELL = (
    0x0500, 0x0504, 0x0508, 0x0510, 0x0514)
LAUNCH_DESC_LO, LAUNCH_DESC_HI, LAUNCH_DOORBELL = 0x0600, 0x0604, 0x0608


def wr(reg, val, base=0, size=LONG):
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", size, base, reg, val)


def rd(reg, base=0, size=LONG):
    return bytes([OP_READ]) + struct.pack("<BBxxI", size, base, reg)


def clock_step():
    """Runs QEMU's virtual clock to the next timer: the GA10x poll."""
    return bytes([OP_CLOCK_STEP])


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


# personality=ga10x at h200-64m: BAR0 (64 KiB) at 0xe0000000, BAR2 (64
# MiB, the second fuzzable range) at 0xe4000000, the MSI-X BAR after it.
GA10X_BAR2 = 0xE4000000
GA10X_BAR2_RANGE = 1
GA10X_BAR2_SIZE = 64 << 20
# ga10x/regs.h
PTIMER_TIME_0, PTIMER_TIME_1, DOORBELL = 0x8000, 0x8004, 0x8010
INTR_EN_SET, INTR_EN = 0x8104, 0x810C
CHAN0_GPFIFO_LO, CHAN0_GPFIFO_ENTRIES, CHAN0_CTRL, CHAN0_TOKEN = (
    0x9010, 0x9018, 0x9030, 0x9038)

SEEDS_GA10X = {
    # PTIMER as nvidia-uvm reads it: TIME_1, TIME_0, TIME_1
    "ga10x PTIMER": [rd(PTIMER_TIME_1), rd(PTIMER_TIME_0), rd(PTIMER_TIME_1)],
    # a doorbell (arms the poll), then the virtual clock to the poll
    "ga10x doorbell and poll": [
        wr(INTR_EN_SET, 0x1F), rd(INTR_EN), rd(CHAN0_TOKEN),
        wr(CHAN0_GPFIFO_ENTRIES, 8), wr(CHAN0_GPFIFO_LO, 0x100000 | 2),
        wr(CHAN0_CTRL, 1), wr(DOORBELL, 0), clock_step(), clock_step()],
    # BAR2: words and quads at both ends of VRAM, read back
    "ga10x BAR2 ends": [
        wr(0, 0x1122334455667788, GA10X_BAR2_RANGE, QUAD),
        wr(GA10X_BAR2_SIZE - 4, 0xDEADBEEF, GA10X_BAR2_RANGE),
        rd(0, GA10X_BAR2_RANGE, QUAD), rd(GA10X_BAR2_SIZE - 4,
                                          GA10X_BAR2_RANGE)],
    # the copy engine fetches its descriptors from a ring in BAR2
    "copy ring in BAR2": [
        wr(CE_RING_HI, 0), wr(CE_RING_LO, GA10X_BAR2), wr(CE_RING_SIZE, 64),
        wr(CE_RING_PUT, 1), wr(CE_DOORBELL, 1)],
    # a channel's GPFIFO in BAR2: its fetch must be refused
    "ga10x GPFIFO in BAR2": [
        wr(CHAN0_GPFIFO_ENTRIES, 8), wr(CHAN0_GPFIFO_LO, GA10X_BAR2 | 2),
        wr(CHAN0_CTRL, 1), rd(CHAN0_TOKEN), wr(DOORBELL, 0), clock_step()],
}


def main():
    args = sys.argv[1:]
    seeds = SEEDS
    if args and args[0] == "--ga10x":
        seeds = SEEDS_GA10X
        args = args[1:]
    out = args[0]
    for name, cmds in seeds.items():
        data = b"FUZZ".join(cmds)
        path = os.path.join(out, hashlib.sha1(data).hexdigest())
        with open(path, "wb") as f:
            f.write(data)
        print(f"{path}: {name}")


if __name__ == "__main__":
    main()
