/* SPDX-License-Identifier: MIT */
#ifndef EMBER_AGENT_REPORT_H
#define EMBER_AGENT_REPORT_H

#include <stdbool.h>

/*
 * Prints (and writes to <dir>/table.txt) the speedup-over-UVM tables of the
 * matrix in dir, beside the paper's table (paper_csv, may be NULL: one of
 * experiments/paper/table*.csv), each cell's order of the variants against
 * the paper's and a summary line per size, and
 * with draw, renders <dir>/speedup-<factor>x.png with gnuplot. A column is
 * a variant under one policy at one sweep point and seed; a cell that two
 * runs claim shows neither and is named as an error. 0, or 1 (a cell of
 * two runs, a plot that failed, no results).
 */
int em_report(const char *dir, const char *paper_csv, bool draw);

#endif /* EMBER_AGENT_REPORT_H */
