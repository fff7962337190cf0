#!/usr/bin/env python3
"""Trims Nsight Compute's raw CSVs of tests/hw/fidelity.sh to one row per
kernel launch: its time, the sysmem traffic the L2 and PCIe counted and
the global stores at the L1 (a column is empty where ncu did not measure it).

usage: sysmem_csv.py [--header] NAME=NCU_CSV...

NAME "writes" is uvm-ubench --fidelity --bytes 256M --reps 1 under ncu -k
regex:write_: its launches are, per buffer of 16, 64 and 256 MiB, the
order of fidelity() in cuda/ubench/uvm_ubench.cu, which names each row.
"""
import csv
import sys

COLS = [
    ("time_ns", "gpu__time_duration.sum"),
    ("l2_sysmem_write_requests", "lts__t_requests_aperture_sysmem_op_write.sum"),
    ("sm_sysmem_write_sectors", "lts__t_sectors_srcunit_tex_aperture_sysmem_op_write.sum"),
    ("l2_sysmem_read_sectors", "lts__t_sectors_aperture_sysmem_op_read.sum"),
    ("pcie_read_bytes", "pcie__read_bytes.sum"),
    ("pcie_write_bytes", "pcie__write_bytes.sum"),
    ("global_store_insts", "smsp__inst_executed_op_global_st.sum"),
    ("l1_global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("l1_global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("l2_sysmem_write_requests_from_sm", "lts__t_requests_srcunit_tex_aperture_sysmem_op_write.sum"),
]
WRITES = ["mapped_write_4b", "mapped_write_fill", "mapped_write_streams"] + [
    "mapped_write_run_%d" % k for k in (1, 2, 4, 8, 16, 32)]


def rows(path):
    lines = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(lines) if r and r[0] == "ID")
    names = lines[head]
    for r in lines[head + 2:]:	# the row after the names holds the units
        if len(r) == len(names):
            yield dict(zip(names, r))


def main(argv):
    out = csv.writer(sys.stdout, lineterminator="\n")
    if argv and argv[0] == "--header":
        argv = argv[1:]
        out.writerow(["run", "launch", "kernel", "bench", "buffer"] + [c for c, _ in COLS])
    for arg in argv:
        name, path = arg.split("=", 1)
        for i, r in enumerate(rows(path)):
            bench, buffer = "", ""
            if name == "writes" and i < 3 * len(WRITES):
                bench = WRITES[i % len(WRITES)]
                buffer = (16 << 20) << (2 * (i // len(WRITES)))
            kernel = r["Kernel Name"].split("(")[0]
            out.writerow([name, i, kernel, bench, buffer] +
                         [r.get(m, "").replace(",", "") for _, m in COLS])


if __name__ == "__main__":
    main(sys.argv[1:])
