// SPDX-License-Identifier: MIT
/*
 * ssb's CPU side (app_inputs.h): sizes, inputs, the CPU reference (the
 * table and the scan reference are colscan.c's).
 * The kernel: models/src/kernels/colscan.c; the launches: userspace/apps.c and
 * cuda/apps/ember_apps.cu.
 */
#include <errno.h>
#include <string.h>

#include "app_common.h"

/*
 * ---- ssb: the 13 SSB queries (O'Neil et al.; the paper's Tables 7-8 run
 * them on Crystal), one per run, over lineorder's columns ----
 *
 * Crystal keeps the dimension tables in small GPU hash tables and streams
 * the fact table's columns; what moves is lineorder. So the table here is
 * lineorder alone (b0, 9 columns of u32), and a join with a filtered
 * dimension is a range filter on the foreign key with the dimension
 * filter's selectivity: keys are uniform over SF 1's cardinalities
 * (customer 30,000, supplier 2,000, part 200,000), the filtered keys are
 * the range's low end. Dates are day numbers 0..2554 (7 x 365 days,
 * 1992..1998, no leap days): year y is [365 y, 365 y + 364]. The colscan
 * kernel reads f1, then f2 and f3 only for lines where a row still passes
 * (Crystal's predicated loads), then a and b. Where Crystal reads a
 * column only as a group-by key (flight 2's lo_orderdate), it is a filter
 * that passes every row, so it is read as Crystal reads it.
 * Flight 4 needs 6 columns and 4 filters; the kernel has 3 filters and
 * sums a x b (SSB: revenue - supplycost): q4.1 leaves out lo_orderdate
 * (its group-by key), q4.2-q4.3 leave out lo_partkey and fold the part
 * filter's selectivity into the customer range (same product, same rows
 * surviving when keys are independent). Output: b1, one u64 per line.
 */
enum {
	LO_DATE, LO_DISC, LO_QTY, LO_PRICE, LO_REV, LO_COST, LO_CUST, LO_SUPP,
	LO_PART, LO_COLS
};
_Static_assert(LO_COLS == EM_SSB_COLS, "lineorder's columns");

#define SSB_DAYS	2555u
#define SSB_CUST	30000u
#define SSB_SUPP	2000u
#define SSB_PART	200000u
#define SSB_YEAR(y)	(365u * ((y) - 1992))

#define SSB_NAME(query)	query,
static const char *const ssb_names[] = { EM_SSB_QUERY_NAMES(SSB_NAME) };
#undef SSB_NAME
_Static_assert(sizeof(ssb_names) / sizeof(ssb_names[0]) == EM_SSB_QUERIES, "SSB queries");

/* f1 lo hi, f2 lo hi, f3 lo hi, a, b; the SSB predicate beside each */
static const uint32_t ssb_q[EM_SSB_QUERIES][11] = {
	/* d_year = 1993, lo_discount 1..3, lo_quantity < 25 */
	{ LO_DATE, SSB_YEAR(1993), SSB_YEAR(1993) + 364, LO_DISC, 1, 3, LO_QTY, 1, 24,
	  LO_PRICE, LO_DISC },
	/* d_yearmonthnum = 199401, lo_discount 4..6, lo_quantity 26..35 */
	{ LO_DATE, SSB_YEAR(1994), SSB_YEAR(1994) + 30, LO_DISC, 4, 6, LO_QTY, 26, 35,
	  LO_PRICE, LO_DISC },
	/* d_weeknuminyear = 6 and d_year = 1994, lo_discount 5..7, lo_quantity 26..35 */
	{ LO_DATE, SSB_YEAR(1994) + 35, SSB_YEAR(1994) + 41, LO_DISC, 5, 7, LO_QTY, 26,
	  35, LO_PRICE, LO_DISC },
	/* s_region = 'AMERICA' (1/5), p_category = 'MFGR#12' (1/25); by d_year */
	{ LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0, SSB_PART / 25 - 1, LO_DATE, 0,
	  SSB_DAYS - 1, LO_REV, EM_CS_NONE },
	/* s_region = 'ASIA', p_brand1 'MFGR#2221'..'MFGR#2228' (8 of 1000) */
	{ LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0, SSB_PART / 125 - 1, LO_DATE, 0,
	  SSB_DAYS - 1, LO_REV, EM_CS_NONE },
	/* s_region = 'EUROPE', p_brand1 = 'MFGR#2239' (1 of 1000) */
	{ LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0, SSB_PART / 1000 - 1, LO_DATE, 0,
	  SSB_DAYS - 1, LO_REV, EM_CS_NONE },
	/* c_region = s_region = 'ASIA' (1/5 each), d_year 1992..1997 */
	{ LO_CUST, 0, SSB_CUST / 5 - 1, LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_DATE, 0,
	  SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* c_nation = s_nation = 'UNITED STATES' (1/25 each), d_year 1992..1997 */
	{ LO_CUST, 0, SSB_CUST / 25 - 1, LO_SUPP, 0, SSB_SUPP / 25 - 1, LO_DATE, 0,
	  SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* c_city, s_city in two cities (2 of 250 each), d_year 1992..1997 */
	{ LO_CUST, 0, SSB_CUST / 125 - 1, LO_SUPP, 0, SSB_SUPP / 125 - 1, LO_DATE, 0,
	  SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* the same cities, d_yearmonth = 'Dec1997' */
	{ LO_CUST, 0, SSB_CUST / 125 - 1, LO_SUPP, 0, SSB_SUPP / 125 - 1, LO_DATE,
	  SSB_YEAR(1997) + 334, SSB_YEAR(1997) + 364, LO_REV, EM_CS_NONE },
	/* c_region = s_region = 'AMERICA', p_mfgr in 2 of 5 */
	{ LO_CUST, 0, SSB_CUST / 5 - 1, LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_PART, 0,
	  SSB_PART * 2 / 5 - 1, LO_REV, LO_COST },
	/* as q4.1 and d_year 1997..1998 (2/7); p_mfgr's 2/5 on the customer key */
	{ LO_CUST, 0, SSB_CUST / 5 * 2 / 5 - 1, LO_SUPP, 0, SSB_SUPP / 5 - 1, LO_DATE,
	  SSB_YEAR(1997), SSB_DAYS - 1, LO_REV, LO_COST },
	/* c_region 'AMERICA', s_nation 'UNITED STATES' (1/25), d_year 1997..1998,
	 * p_category 'MFGR#14' (1/25, on the customer key) */
	{ LO_CUST, 0, SSB_CUST / 5 / 25 - 1, LO_SUPP, 0, SSB_SUPP / 25 - 1, LO_DATE,
	  SSB_YEAR(1997), SSB_DAYS - 1, LO_REV, LO_COST },
};

int em_app_ssb_query(const char *name)
{
	int q;

	if (!name || strncmp(name, "ssb-", 4))
		return -1;
	for (q = 0; q < EM_SSB_QUERIES; q++)
		if (!strcmp(name + 4, ssb_names[q]))
			return q;
	return -1;
}

void em_app_ssb_args(int q, uint64_t args[4])
{
	cs_scan_args(ssb_q[q], args);
}

static uint32_t ssb_val(const struct em_app_data *a, unsigned int col, uint64_t i)
{
	uint32_t h = gen(a->seed, 80 + col, i);

	switch (col) {
	case LO_DATE:	return h % SSB_DAYS;
	case LO_CUST:	return h % SSB_CUST;
	case LO_SUPP:	return h % SSB_SUPP;
	case LO_PART:	return h % SSB_PART;
	default:	return cs_val(a, col, i);	/* as colscan's columns */
	}
}

static void ssb_size(struct em_app_data *a)
{
	uint64_t n = ((a->foot > 4 * MiB ? a->foot - 2 * MiB : 2 * MiB) /
		      (4 * LO_COLS)) & ~511ull;

	a->n[0] = n < 512 ? 512 : n;
	set_bytes(a, 0, LO_COLS * a->n[0] * 4);
	set_bytes(a, 1, a->n[0] / 4);
}

static void ssb_fill(struct em_app_data *a)
{
	cs_table_fill(a, LO_COLS, ssb_val);
}

static int ssb_verify(struct em_app_data *a)
{
	if (a->query < 0 || a->query >= EM_SSB_QUERIES)
		return -EINVAL;
	cs_table_check(a, LO_COLS, ssb_val);
	cs_scan_check(a, w32(a, 0), a->n[0], ssb_q[a->query], a->p[1]);
	return 0;
}

const struct em_app_ref em_app_ssb = { "ssb", 1, ssb_size, ssb_fill, ssb_verify, NULL, NULL, NULL };
