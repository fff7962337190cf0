#!/usr/bin/env bash
# Fetches EMOGI's BFS, which capture/scripts/paper-programs-on-card.sh
# builds and captures, at a pinned commit, into DEST (default .emogi/,
# git-ignored: its sources are never committed here).
#   bash capture/scripts/fetch-emogi.sh [SOURCE [DEST]]
# SOURCE: a git URL or a local clone (default the authors' repository).
# EMOGI (illinois-impact/EMOGI; Min et al., VLDB 2021): out-of-memory graph
# traversal over managed memory. The repository states no licence (no
# LICENSE file, none in its README or in bfs.cu): we only fetch and build
# it, never redistribute it. We take bfs.cu (the 8-byte-edge BFS) with the
# headers it includes, its Makefile and README.
set -euo pipefail
source=${1:-https://github.com/illinois-impact/EMOGI.git}
dest=${2:-.emogi}
commit=382dbcce08bcd6e39c0cb31e1a894e5d5954dc01	# 2020-12-04, "Update README.md"
paths=(README.md Makefile bfs.cu helper_emogi.h helper_cuda.h helper_string.h)

. "$(dirname "$0")/fetch-pinned.sh"
fetch_pinned fetch-emogi "$source" "$dest" "$commit" "${paths[@]}"
