// SPDX-License-Identifier: MIT
/*
 * The input of UVMBench's kmeans_standard (the Ember paper's k-means): a
 * text file of POINTS lines "x y label", the points drawn around CLUSTERS
 * centres (splitmix64, seed 1), so that the program's shape is the one its
 * authors ran: two float arrays of POINTS entries, 8 bytes a point.
 *   gen-points POINTS CLUSTERS FILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpumodel/splitmix64.h"

/* A uniform draw in [0, 1). */
static double unit(uint64_t *state)
{
	return (double)(gm_splitmix64(state) >> 11) / (double)(1ull << 53);
}

int main(int argc, char **argv)
{
	uint64_t points, clusters, state = 1;
	FILE *out;

	if (argc != 4 || !(points = strtoull(argv[1], NULL, 0)) ||
	    !(clusters = strtoull(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: gen-points POINTS CLUSTERS FILE\n");
		return 2;
	}
	out = fopen(argv[3], "w");
	if (!out) {
		perror(argv[3]);
		return 1;
	}
	for (uint64_t i = 0; i < points; i++) {
		uint64_t c = i % clusters;
		double cx = 10.0 * (double)c, cy = 5.0 * (double)(c % 3);

		fprintf(out, "%.4f %.4f %" PRIu64 "\n", cx + unit(&state) - 0.5,
			cy + unit(&state) - 0.5, c);
	}
	if (fclose(out)) {
		perror(argv[3]);
		return 1;
	}
	return 0;
}
