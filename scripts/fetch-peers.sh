#!/usr/bin/env bash
# Fills .peers/ (git-ignored) with the peer sources that scripts/peers.sh builds on the GPU
# machine, which has no network: they travel with the working tree, so only the files the
# builds need are taken (a few hundred kB, against the 64 MiB upload limit).
#   cuda-samples/  MonteCarloMultiGPU's sources and the Common/ headers they include
#   fsi-samples/   gQuant's asian_barrier_option cuda_pricing.cu and its two helper headers
# Each folder also gets SOURCE: the mirror and commit the files came from.
# Run on the development machine, from anywhere: scripts/fetch-peers.sh [DEST] (default: the
# repository's .peers/). The mirrors can be moved with CUDA_SAMPLES_MIRROR and FSI_MIRROR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.peers}
cuda_samples=${CUDA_SAMPLES_MIRROR:-/work/.mirror/NVIDIA+cuda-samples/repo}
fsi=${FSI_MIRROR:-/work/.mirror/NVIDIA+fsi-samples/repo}

monte_carlo=Samples/5_Domain_Specific/MonteCarloMultiGPU
# helper_cuda.h and helper_functions.h, and what they include in turn.
common_headers="helper_cuda.h helper_functions.h helper_string.h helper_timer.h helper_image.h
exception.h"
asian_barrier=gQuant/plugins/gquant_plugin/notebooks/asian_barrier_option

# extract MIRROR NAME PATH...: the paths at the mirror's HEAD into DEST/NAME, replacing what
# an earlier run put there.
extract() {
  local mirror=$1 name=$2
  shift 2
  git -C "$mirror" rev-parse --verify -q HEAD > /dev/null 2>&1 \
    || { echo "fetch-peers: no git mirror at $mirror" >&2; exit 1; }
  rm -rf "${dest:?}/$name"
  mkdir -p "$dest/$name"
  # The mirrors are snapshots whose largest blobs may be absent: archive names each one it
  # meets on its walk ("error: invalid object", exit status 0). The check below is what counts.
  git -C "$mirror" archive HEAD "$@" 2> >(grep -v '^error: invalid object' >&2) \
    | tar -x -C "$dest/$name"
  local path
  for path in "$@"; do
    [ -s "$dest/$name/$path" ] || { echo "fetch-peers: $mirror lacks $path" >&2; exit 1; }
  done
  echo "$mirror $(git -C "$mirror" rev-parse HEAD)" > "$dest/$name/SOURCE"
}

monte_carlo_files=()
for f in CMakeLists.txt README.md MonteCarloMultiGPU.cpp MonteCarlo_common.h MonteCarlo_gold.cpp \
         MonteCarlo_kernel.cu MonteCarlo_reduction.cuh multithreading.cpp multithreading.h \
         realtype.h; do
  monte_carlo_files+=("$monte_carlo/$f")
done
for f in $common_headers; do monte_carlo_files+=("Common/$f"); done
extract "$cuda_samples" cuda-samples LICENSE "${monte_carlo_files[@]}"

# The two helpers are the ones shipped beside cuda_pricing.cu; CUDA 13 no longer compiles that
# helper_cuda.h, so peers.sh builds against cuda-samples' Common/ copy (it says why).
extract "$fsi" fsi-samples gQuant/LICENSE "$asian_barrier/cuda_pricing.cu" \
  "$asian_barrier/helper_cuda.h" "$asian_barrier/helper_string.h"

echo "fetch-peers: $dest holds $(find "$dest" -type f | wc -l) files, $(du -sh "$dest" | cut -f1)"
