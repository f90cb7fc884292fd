#!/usr/bin/env bash
# The GPU suite's kernels compiled here, for a GPU call whose test stage must not compile them:
# BUILD's test_gpu (any build of this tree's kernels/ and models/; CI's check build will do)
# compiles tests/gpu_coverage.cpp's warm set for sm_90 into a kernel cache (NVRTC needs no GPU;
# an entry's key holds the kernel, the arch, the sources' digest and NVRTC's version, no driver),
# packed as build-carry/suite-cache.tar.xz (ignored by git). Carry it; `scripts/gpu-check.sh
# test` unpacks it into the build's kernel cache, and its summary says the run had it (such a
# run is not a cold-cache one). On the 2-core development machine this takes about an hour: the
# entries are kept per sources' digest, so a run after a change to neither folder packs at once.
#   scripts/carry-suite-cache.sh [BUILD (default build-ci)]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-ci}
sources=$( (git ls-files -s kernels models; git diff HEAD -- kernels models) | sha1sum | cut -c1-12)
cache=build-carry/suite-cache-$sources
mkdir -p build-carry
find build-carry -maxdepth 1 -name 'suite-cache-*' ! -path "$cache" -exec rm -rf {} +
mkdir -p "$cache"
start=$SECONDS
# The include folder is part of every entry's key: the GPU machine's test stage names the same.
PFMC_TEST_WARM_ARCH=90 PFMC_CUDA_INCLUDE=/usr/local/cuda/include PFMC_KERNEL_CACHE=$PWD/$cache \
  "$build/test_gpu" | tail -2
echo "$sources" > "$cache/sources"
tar -C "$cache" -cf - --exclude='*.lock' . | xz -T "$(nproc)" -6 > build-carry/suite-cache.tar.xz
echo "build-carry/suite-cache.tar.xz: $(find "$cache" -name '*.cubin' | wc -l) entries, $(stat -c %s build-carry/suite-cache.tar.xz) bytes, in $((SECONDS - start)) s (carry it)"
