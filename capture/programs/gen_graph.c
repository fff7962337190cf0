// SPDX-License-Identifier: MIT
/*
 * The input of EMOGI's bfs (the Ember paper's BFS): a graph in EMOGI's CSR
 * binary format (its README): PREFIX.bel.col holds the row offsets,
 * PREFIX.bel.dst the column indices, each file a header of two 8-byte
 * words (the element count, then a word the reader ignores) and the
 * elements as 8-byte words. The graph is uniformly random, VERTICES
 * vertices, each of out-degree 1 plus its share of the other edges,
 * drawn uniformly (splitmix64, seed 1), EDGES edges in all: a BFS over it reads the edge list once and the
 * labels at random, the paper's "random" access class.
 *   gen-graph VERTICES EDGES PREFIX
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpumodel/splitmix64.h"

static int write_words(FILE *f, const uint64_t *words, size_t count)
{
	return fwrite(words, sizeof(*words), count, f) == count ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t vertices, edges, state = 1, offset = 0, header[2];
	char path[4096];
	FILE *col, *dst;
	uint64_t *row;

	if (argc != 4 || !(vertices = strtoull(argv[1], NULL, 0)) ||
	    (edges = strtoull(argv[2], NULL, 0)) < vertices) {
		fprintf(stderr, "usage: gen-graph VERTICES EDGES PREFIX (EDGES >= VERTICES)\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s.bel.col", argv[3]);
	col = fopen(path, "wb");
	snprintf(path, sizeof(path), "%s.bel.dst", argv[3]);
	dst = fopen(path, "wb");
	row = malloc((vertices + 1) * sizeof(*row));
	if (!col || !dst || !row) {
		perror(argv[3]);
		return 1;
	}
	/* Degrees: each vertex 1, and each of the other edges given to a
	 * vertex drawn uniformly (a binomial degree around EDGES / VERTICES). */
	memset(row, 0, (vertices + 1) * sizeof(*row));
	for (uint64_t e = vertices; e < edges; e++)
		row[gm_splitmix64(&state) % vertices]++;
	for (uint64_t v = 0; v < vertices; v++) {
		uint64_t degree = 1 + row[v];

		row[v] = offset;
		offset += degree;
	}
	row[vertices] = offset;
	header[0] = vertices + 1;
	header[1] = 0;
	if (write_words(col, header, 2) || write_words(col, row, vertices + 1))
		goto fail;
	header[0] = edges;
	if (write_words(dst, header, 2))
		goto fail;
	for (uint64_t e = 0; e < edges; e++) {
		uint64_t to = gm_splitmix64(&state) % vertices;

		if (write_words(dst, &to, 1))
			goto fail;
	}
	if (fclose(col) || fclose(dst))
		goto fail;
	free(row);
	printf("gen-graph: %" PRIu64 " vertices, %" PRIu64 " edges, %" PRIu64 " bytes\n",
	       vertices, edges, 8 * (vertices + 1 + edges + 4));
	return 0;
fail:
	perror(argv[3]);
	return 1;
}
