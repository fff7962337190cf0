#!/usr/bin/env bash
# Fetches the UVMBench programs that capture/scripts/validate-on-card.sh and
# capture/scripts/paper-programs-on-card.sh build and capture, at a pinned
# commit, into DEST (default .uvmbench/, git-ignored: their sources are
# never committed here).
#   bash capture/scripts/fetch-uvmbench.sh [SOURCE [DEST]]
# SOURCE: a git URL or a local clone (default the authors' repository).
# UVMBench (OSU-STARLAB/UVM_benchmark, MIT licence): Rodinia, Polybench and
# others rewritten by its authors onto cudaMallocManaged. We take, as
# shipped: rodinia/pathfinder and rodinia/nw, kmeans (kmeans_standard, the
# Ember paper's k-means) and CNN, with the common/make.config their
# Makefiles include, and the licence. CNN's MNIST files are left out (its
# data/ folder: 55 MB of images and labels).
set -euo pipefail
source=${1:-https://github.com/OSU-STARLAB/UVM_benchmark.git}
dest=${2:-.uvmbench}
commit=05588a9b98290332b862a9b65a6a8cbb6ca81bcc	# 2020-09-08, "fix the knn index bug"
paths=(LICENSE README.md common/make.config
       UVM_benchmarks/rodinia/pathfinder UVM_benchmarks/rodinia/nw
       UVM_benchmarks/kmeans
       UVM_benchmarks/CNN/{Makefile,README.md,run,main.cu,layer.cu,layer.h,mnist.h})

. "$(dirname "$0")/fetch-pinned.sh"
fetch_pinned fetch-uvmbench "$source" "$dest" "$commit" "${paths[@]}"
