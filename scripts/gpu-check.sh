#!/usr/bin/env bash
# The GPU check, run on a machine with a CUDA GPU (e.g. through the device tool):
#   build (Ninja, all cores, ptxas resource report) → test suites → compute-sanitizer
#   (memcheck, racecheck, synccheck) on small runs → SASS checks → benchmark → summary.
# Stages can be chosen: scripts/gpu-check.sh [build] [test] [sanitize] [sass] [bench] [ncu]
# [extra] (default: build test sanitize sass bench). Logs go to $OUT (or /tmp/pfmc-gpu-check); the summary is printed
# last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/pfmc-gpu-check}
mkdir -p "$OUT"
stages=${*:-build test sanitize sass bench}
has() { [[ " $stages " == *" $1 "* ]]; }
summary=()
note() { summary+=("$1"); echo "== $1"; }
B=build-device

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  | tee "$OUT/gpu.txt"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

if has build; then
  start=$SECONDS
  cmake --preset device -DCMAKE_CUDA_COMPILER="$NVCC" > "$OUT/configure.log" 2>&1 \
    && cmake --build --preset device -j "$(nproc)" > "$OUT/build.log" 2>&1
  rc=$?
  python3 scripts/ptxas-table.py "$OUT/build.log" > "$OUT/ptxas.txt"
  note "build: rc=$rc in $((SECONDS - start)) s; ptxas: $(tail -1 "$OUT/ptxas.txt")"
  [ $rc -eq 0 ] || { tail -40 "$OUT/build.log"; printf '%s\n' "${summary[@]}"; exit 1; }
fi

if has test; then
  start=$SECONDS
  ctest --preset device -j 4 > "$OUT/ctest.log" 2>&1
  rc=$?
  for t in test_gpu test_engine_cpu; do
    "./$B/$t" --gtest_brief=1 > "$OUT/$t.log" 2>&1
  done
  note "tests: rc=$rc in $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1); test_gpu: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/test_gpu.log" | tr '\n' ' ')"
  grep -E "FAILED|Failure" -A6 "$OUT/test_gpu.log" | head -60
  grep -E "^  [a-z_]+ +mc " "$OUT/test_gpu.log"
fi

if has sanitize; then
  sanitize_results=()
  # A small run of the example book (3,000 paths: a partial last block) per backend and tool.
  small="price config/examples/portfolio.yaml --device gpu --paths 3000 --quiet --format csv"
  for backend in ${PFMC_SANITIZE_BACKENDS:-$(./$B/pfmc backends --format json | python3 -c 'import json,sys; print(" ".join(b["name"] for b in json.load(sys.stdin)["backends"] if b["runs_here"]))')}; do
    for tool in memcheck racecheck synccheck; do
      compute-sanitizer --tool $tool --error-exitcode 9 "./$B/pfmc" $small --backend "$backend" \
        --prefetch-distance 4 > "$OUT/sanitize_${tool}_${backend}.log" 2>&1
      rc=$?
      errors=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize_${tool}_${backend}.log" | tail -1)
      sanitize_results+=("$tool $backend rc=$rc ${errors##*= }")
      [ $rc -eq 0 ] || note "sanitizer $tool $backend FAILED: rc=$rc ${errors}"
    done
  done
  clean=$(printf '%s\n' "${sanitize_results[@]}" | grep -c "rc=0 .*0 errors\|rc=0 .*0 hazards")
  note "sanitizers: $clean of ${#sanitize_results[@]} runs clean (memcheck, racecheck, synccheck x backends)"
fi

if has sass; then
  cuobjdump -sass "$B/libpfmc_kernels.a" > "$OUT/sass.txt" 2>&1
  note "sass: $(grep -c 'Function :' "$OUT/sass.txt") kernels; LDGSTS $(grep -c LDGSTS "$OUT/sass.txt"), UBLKCP $(grep -c UBLKCP "$OUT/sass.txt"), CCTL/prefetch $(grep -c -E 'CCTL|UBLKPF' "$OUT/sass.txt"), LDL $(grep -c 'LDL' "$OUT/sass.txt"), STL $(grep -c 'STL' "$OUT/sass.txt")"
fi

if has bench; then
  start=$SECONDS
  "./$B/pfmc_bench" ${PFMC_BENCH_ARGS:-} --benchmark_repetitions=${PFMC_BENCH_REPETITIONS:-3} \
    --benchmark_report_aggregates_only=true --benchmark_min_time=${PFMC_BENCH_MIN_TIME:-0.1s} \
    ${PFMC_BENCH_FILTER:+--benchmark_filter=$PFMC_BENCH_FILTER} \
    --benchmark_out="$OUT/bench.json" --benchmark_out_format=json > "$OUT/bench.txt" 2>&1
  note "bench: rc=$? in $((SECONDS - start)) s"
  head -4 "$OUT/bench.txt"
  python3 scripts/bench-table.py "$OUT/bench.json" | tee "$OUT/bench_table.txt"
fi

if has ncu && [ -f "$OUT/bench.json" ]; then
  start=$SECONDS
  scripts/ncu-compare.sh "$B" "$OUT" "$OUT/bench.json" | tee "$OUT/ncu_summary.txt"
  note "ncu: $(grep -c '^ncu ' "$OUT/ncu_summary.txt") kernels profiled in $((SECONDS - start)) s"
fi

if has extra && [ -x scripts/gpu-extra.sh ]; then
  scripts/gpu-extra.sh "$B" "$OUT" 2>&1 | tee "$OUT/extra.log" | tail -40
fi

echo
echo "==================== summary ===================="
printf '%s\n' "${summary[@]}"
