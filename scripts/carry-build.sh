#!/usr/bin/env bash
# Prepares a GPU call that needs no build there: on the development machine (no GPU), the check
# set's pfmc, pfmc_bench and test_gpu (PFMC_KERNELS=check, PFMC_LAUNCH_CHECK_SET: minutes to
# build) and the kernels they will compile on first use, compiled for sm_90 into a kernel cache
# (NVRTC needs no GPU; an entry's key has no driver in it), packed with the libraries the GPU
# machine lacks into build-carry/prebuilt.tar.xz (ignored by git). Carry it with .deps/root;
# `scripts/gpu-check.sh prebuilt` unpacks it into build-device-check and checks that the
# binaries run there.
#   scripts/carry-build.sh [BUILD_DIR (default build-carry/check)] [CONFIG ...: more configs
#   whose kernels to warm (pfmc kernels --warm)]
# The cache: the MonteCarloMultiGPU book's kernels in both math profiles (`inline`), and with
# CARRY_SUITE=1 the GPU suite's warm set (tests/gpu_test_main.cpp, PFMC_TEST_WARM_ARCH: about
# 1,000 kernels, hours on 2 cores; the GPU machine's 16 cores warm it in minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-carry/check}
shift || true
stage=build-carry/stage
cuda_include=/usr/local/cuda/include # the same on both machines: it is in every entry's key
# The cache, kept between runs while the kernels' sources stay as they are (every entry's key
# has their digest: after a change the old entries would only add bytes).
sources=$( (git ls-files -s kernels models cmake CMakeLists.txt;
            git diff HEAD -- kernels models cmake CMakeLists.txt) | sha1sum | cut -c1-12)
cache=build-carry/kernel-cache-$sources
find build-carry -maxdepth 1 -name 'kernel-cache-*' ! -path "$cache" -exec rm -rf {} +
rm -rf "$stage" && mkdir -p "$stage/lib" "$cache"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPFMC_KERNELS=check -DPFMC_LAUNCH_CHECK_SET=ON -DPFMC_MPI=OFF -DPFMC_PYTHON=OFF \
  -DPFMC_DEPS_ROOT="$PWD/.deps/root" > "$stage/configure.log"
ninja -C "$build" -j "$(nproc)" pfmc pfmc_bench test_gpu
cp "$build/pfmc" "$build/pfmc_bench" "$build/test_gpu" "$stage/"
# What the GPU machine's loader will not find: Debian's yaml-cpp 0.7 and Google Benchmark (it
# has other versions); .deps/root's own (libcsv, SLEEF) travel in .deps/root.
for lib in libyaml-cpp.so.0.7 libbenchmark.so.1debian; do
  cp -L "/lib/x86_64-linux-gnu/$lib" "$stage/lib/"
done
export PFMC_CUDA_INCLUDE=$cuda_include PFMC_KERNEL_CACHE=$PWD/$cache
start=$SECONDS
[ "${CARRY_SUITE:-0}" = 1 ] && PFMC_TEST_WARM_ARCH=90 "$build/test_gpu" | tail -3
python3 scripts/make-mc-sample-book.py --output "$stage/book.yaml" > /dev/null
for math in accurate fast; do
  sed "s/backend: auto/backend: inline/; s/^simulation: {/simulation: {math: $math, /" \
    "$stage/book.yaml" > "$stage/book_$math.yaml"
  "$build/pfmc" kernels --warm "$stage/book_$math.yaml" --arch 90 --quiet
done
for config in "$@"; do
  "$build/pfmc" kernels --warm "$config" --arch 90 --quiet
done
echo "kernels warmed in $((SECONDS - start)) s: $(find "$cache" -name '*.cubin' | wc -l) entries, $(du -sh "$cache" | cut -f1)"
ln -s "$PWD/$cache" "$stage/kernel-cache"
git rev-parse HEAD > "$stage/commit"
git status --short --untracked-files=no >> "$stage/commit"
tar -C "$stage" -chf - --exclude='*.lock' pfmc pfmc_bench test_gpu lib kernel-cache commit \
  | xz -T "$(nproc)" -6 > build-carry/prebuilt.tar.xz
echo "build-carry/prebuilt.tar.xz: $(stat -c %s build-carry/prebuilt.tar.xz) bytes (carry it)"
