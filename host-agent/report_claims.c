// SPDX-License-Identifier: MIT
/* The claims of ARIADNE and AutoUVM beside what the table measured. */
#define _GNU_SOURCE
#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Geometric mean over the table's apps of time(num) / time(den) at factor
 * f: the speedup of den over num. 0 when no app has both.
 */
static double geomean_ratio(const struct table *t, size_t f, int num, int den,
			    unsigned int *n)
{
	double logsum = 0;
	size_t a;

	*n = 0;
	for (a = 0; a < t->napps; a++) {
		const struct cell *x = rep_cell_at(t, a, f, num), *y = rep_cell_at(t, a, f, den);

		if (x->sim_ns > 0 && y->sim_ns > 0) {
			logsum += log(x->sim_ns / y->sim_ns);
			(*n)++;
		}
	}
	return *n ? exp(logsum / *n) : 0;
}

/*
 * The claims of the papers behind ariadne.conf and autouvm.conf, beside
 * what this table measured: ARIADNE (HPCA'26) over AC at 130 / 175 /
 * 300 % oversubscription and AC against UVM without it; AutoUVM over UVM.
 */
void rep_print_claims(const struct table *t, FILE *out)
{
	static const struct {
		double factor, claim;
	} ariadne_claims[] = { { 1.3, 1.9 }, { 1.75, 2.3 }, { 3.0, 4.0 } };
	int uvm = rep_paper_col(t, "uvm"), ac = rep_paper_col(t, "ac");
	int ar = rep_paper_col(t, "ariadne"), au = rep_paper_col(t, "autouvm");
	double r, logsum = 0;
	unsigned int n, nf = 0;
	size_t f, i, a;

	if (ar >= 0 && ac >= 0) {
		fprintf(out, "\nModelled ms (setup + kernels) per app and factor; ARIADNE over AC\n");
		fprintf(out, "%-10s %6s %10s %10s %10s %10s %8s\n", "app", "factor", "uvm",
			"ac", "ariadne", "ember", "ar/ac");
		for (a = 0; a < t->napps; a++)
			for (f = 0; f < t->nfactors; f++) {
				int cols[4] = { uvm, ac, ar, rep_paper_col(t, "ember") };
				size_t c;

				fprintf(out, "%-10s %5gx", t->apps[a], t->factors[f]);
				for (c = 0; c < 4; c++) {
					const struct cell *x = rep_cell_at(t, a, f, cols[c]);

					if (x->sim_ns > 0)
						fprintf(out, " %10.3f", x->sim_ns / 1e6);
					else
						fprintf(out, " %10s", rep_cell_word(x));
				}
				if (rep_cell_at(t, a, f, ac)->sim_ns > 0 && rep_cell_at(t, a, f, ar)->sim_ns > 0)
					fprintf(out, " %7.2fx", rep_cell_at(t, a, f, ac)->sim_ns /
						rep_cell_at(t, a, f, ar)->sim_ns);
				fputc('\n', out);
			}
		fprintf(out, "\nARIADNE's claims (geomean over the apps; the paper's in brackets)\n");
		for (f = 0; f < t->nfactors; f++) {
			char x[16];

			snprintf(x, sizeof(x), "%gx", t->factors[f]);
			if (t->factors[f] <= 1.0) {
				r = geomean_ratio(t, f, ac, uvm, &n);
				fprintf(out, "AC slower than UVM at %-6s %6.2fx  [1.3x]  (%u apps)\n",
					x, r, n);
				continue;
			}
			for (i = 0; i < sizeof(ariadne_claims) / sizeof(ariadne_claims[0]); i++)
				if (fabs(ariadne_claims[i].factor - t->factors[f]) < 1e-9)
					break;
			r = geomean_ratio(t, f, ac, ar, &n);
			if (i < sizeof(ariadne_claims) / sizeof(ariadne_claims[0]))
				fprintf(out, "ARIADNE over AC at %-6s   %6.2fx  [%.1fx]  (%u apps)\n",
					x, r, ariadne_claims[i].claim, n);
			else
				fprintf(out, "ARIADNE over AC at %-6s   %6.2fx  (%u apps; no claim)\n",
					x, r, n);
		}
	}
	if (au >= 0 && uvm >= 0) {
		fprintf(out, "\nAutoUVM's claim: 3.1x over UVM on average (ten LLMs, 2.0x oversubscription)\n");
		for (f = 0; f < t->nfactors; f++) {
			char x[16];

			r = geomean_ratio(t, f, uvm, au, &n);
			if (!n)
				continue;
			snprintf(x, sizeof(x), "%gx", t->factors[f]);
			fprintf(out, "AutoUVM over UVM at %-6s  %6.2fx  (%u apps)\n", x, r, n);
			logsum += log(r);
			nf++;
		}
		if (nf)
			fprintf(out, "AutoUVM over UVM, mean of factors: %.2fx  [3.1x]\n",
				exp(logsum / nf));
		fprintf(out, "tokens/s (decode; all device time):\n");
		for (a = 0; a < t->napps; a++)
			for (f = 0; f < t->nfactors; f++) {
				size_t v;

				if (rep_cell_at(t, a, f, uvm)->tokens_per_s <= 0)
					continue;
				fprintf(out, "  %-10s %5gx", t->apps[a], t->factors[f]);
				for (v = 0; v < t->ncols; v++)
					if (t->cells[a][f][v].tokens_per_s > 0)
						fprintf(out, "  %s %.1f", t->cols[v].label,
							t->cells[a][f][v].tokens_per_s);
				fputc('\n', out);
			}
	}
}
