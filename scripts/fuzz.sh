#!/usr/bin/env bash
# The host code under AddressSanitizer + UndefinedBehaviorSanitizer, and the config and CSV
# fuzzers: one build with clang into build-sanitize/ (the main project with PFMC_SANITIZE and
# PFMC_FUZZ, no kernels; the CUDA files compiled by nvcc, not instrumented: CMakeLists.txt), then
# the host suites under the sanitizers (test_config, test_analytic, test_market, and the CPU
# engine's test_engine_cpu with leak detection), the committed crash corpus replayed
# (tests/fuzz/crashes/: each input that once failed must now pass), then fuzzing for SECONDS:
# two thirds on YAML configs from config/examples/ and any corpus folders given (CI passes the
# configs its suites wrote: tests/fuzz_corpus.hpp), one third on CSV trade lists and positions
# (tests/fuzz/fuzz_csv.cpp, seeds in tests/fuzz/csv_seeds/).
# Usage: scripts/fuzz.sh [--seconds N] [--runs N] [--jobs N] [--no-engine] [CORPUS_DIR...]
# (--jobs: fuzzing processes at once, 1 by default; --no-engine: skip the CPU engine's suite)
# Exit status: 0 clean; non-zero when a suite fails or the fuzzer finds a crash, a leak, a
# sanitizer report, an exception other than ConfigError, a timeout or an out-of-memory (the
# input is left in build-sanitize/ as crash-*, leak-*, timeout-* or oom-*).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=120
runs=-1
engine=1
jobs=1
corpora=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) seconds=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --no-engine) engine=0; shift ;;
  --jobs) jobs=$2; shift 2 ;;
  *) corpora+=("$1"); shift ;;
  esac
done
cxx=$(command -v clang++ || command -v clang++-16 || command -v clang++-15 || command -v clang++-14 || true)
[ -n "$cxx" ] || { echo "fuzz: clang++ not found (Debian: clang)" >&2; exit 2; }
B=build-sanitize
# A folder configured by g++ (this script's build before 2026-12-08) starts again with clang.
if [ -f "$B/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:.*clang" "$B/CMakeCache.txt"; then
  rm -rf "$B"
fi
mkdir -p "$B"
cuda_flags=()
[ -x /usr/local/cuda/bin/nvcc ] && cuda_flags=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
generator=()
command -v ninja > /dev/null && [ ! -f "$B/Makefile" ] && generator=(-G Ninja)
# -O1 and line tables (AddressSanitizer's advice; half the compile of -O2 -g), -O0 for the CUDA
# files' host code, which no CPU test runs far. clang, not g++: the fuzzers need its libFuzzer,
# and it built the sanitized engine in 274 s against g++'s 389 s, its suite 202 s against 227 s
# (the 2-core machine, 2026-12-08; docs/performance.md#cis-time).
CXX=$cxx cmake -S . -B "$B" "${generator[@]}" "${cuda_flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O0 -Xcompiler=-g1 -DNDEBUG" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DPFMC_SANITIZE=ON -DPFMC_FUZZ=ON -DPFMC_KERNELS=none \
  -DPFMC_PYTHON=OFF -DPFMC_MPI=OFF -DPFMC_BUILD_BENCH=OFF > "$B/fuzz-configure.log" 2>&1 \
  || { cat "$B/fuzz-configure.log"; exit 2; }
suites=(test_config test_analytic test_market)
[ "$engine" = 1 ] && suites+=(test_engine_cpu)
cmake --build "$B" -j "$(nproc)" --target "${suites[@]}" fuzz_config fuzz_csv \
  > "$B/fuzz-build.log" 2>&1 || { tail -30 "$B/fuzz-build.log"; exit 2; }
# The CPU engine's suite but four long Monte Carlo runs, each of whose code a shorter test runs
# under the sanitizers too (they took 76 s of its 202): the historical VaR's 500 revaluations
# (Risk.ScenarioValuesEqualSeparatePricesOfTheShiftedMarketOnEveryModel prices scenarios through
# the same pass, Risk.HistoricalWindowsSumTheirDaysMoves builds the windows), Heston's pathwise
# Greeks in both schemes and precisions (PathwiseGreeks.HestonMatchesTheIndependentReference:
# both schemes), the Longstaff-Schwartz puts (Exercise.AmericanPutGreeksAgreeWithQuantLibs and
# the suite's other regressions), the basket reference case (its shipped_basket case). Release runs
# them all (ctest).
engine_filter="-Risk.HistoricalVarAndEsMatchAFullRevaluationInClosedForm"
engine_filter+=":PathwiseGreeks.HestonEuropeansMatchQuantLibsAnalyticDerivatives"
engine_filter+=":Exercise.LongstaffSchwartzPutsAgreeWithQuantLibsFiniteDifferences"
engine_filter+=":AllModels/ReferenceCases.CpuMatchesEveryIndependentReference/baskets"
for suite in "${suites[@]}"; do
  echo "fuzz: $suite under ASan + UBSan"
  filter=()
  [ "$suite" = test_engine_cpu ] && filter=(--gtest_filter="$engine_filter")
  ASAN_OPTIONS=detect_leaks=1 "./$B/$suite" --gtest_brief=1 "${filter[@]}" > "$B/$suite.log" 2>&1 \
    || { grep -E "FAILED|ERROR|runtime error" -A20 "$B/$suite.log" | head -60; exit 1; }
  tail -1 "$B/$suite.log"
done
shopt -s nullglob
replays=(tests/fuzz/crashes/*)
if [ ${#replays[@]} -gt 0 ]; then
  echo "fuzz: replaying ${#replays[@]} committed crash input(s)"
  "./$B/fuzz_config" "${replays[@]}"
fi
corpus="$B/corpus"
mkdir -p "$corpus"
cp config/examples/*.yaml "$corpus/"
for c in "${corpora[@]}"; do
  [ -d "$c" ] && cp "$c"/* "$corpus/" 2>/dev/null || true
done
rm -f "$B"/crash-* "$B"/timeout-* "$B"/oom-* "$B"/leak-*
csv_corpus="$B/csv_corpus"
mkdir -p "$csv_corpus"
cp tests/fuzz/csv_seeds/* "$csv_corpus/"
# fuzz TARGET CORPUS SECONDS: one target in fork mode. An input that hangs or exhausts memory is
# kept and counted, and the fuzzing goes on (yaml-cpp 0.7's LoadAll did on a stray `,`, no longer
# called: tests/fuzz/known/README.md); a crash, a sanitizer report or an exception other than
# ConfigError stops it and fails the script.
fuzz() {
  local target=$1 seeds=$2 budget=$3
  echo "fuzz: $target: $(ls "$seeds" | wc -l) seeds, ${budget} s"
  "./$B/$target" -fork="$jobs" -ignore_timeouts=1 -ignore_ooms=1 -ignore_crashes=0 \
    -max_total_time="$budget" -runs="$runs" -rss_limit_mb=2048 -timeout=5 -max_len=65536 \
    -artifact_prefix="$B/" -print_final_stats=1 "$seeds" > "$B/$target.log" 2>&1 || true
  local last counts ooms timeouts crashes executed found
  last=$(grep -E "^#[0-9]+: cov:" "$B/$target.log" | tail -1)
  echo "fuzz: $target: ${last:-no status line}"
  counts=$(printf '%s' "$last" | sed -nE 's#.*oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+).*#\1 \2 \3#p')
  read -r ooms timeouts crashes <<< "${counts:-0 0 0}"
  executed=$(printf '%s' "$last" | sed -nE 's/^#([0-9]+):.*/\1/p')
  echo "fuzz: $target: ${executed:-0} executions; ${timeouts} timeout(s), ${ooms} out-of-memory (kept in $B/)"
  found=("$B"/crash-*)
  if [ "${crashes}" != 0 ] || [ ${#found[@]} -gt 0 ] \
    || grep -qE "ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)|runtime error:|uncaught exception|deadly signal" "$B/$target.log"; then
    echo "fuzz: $target: FAILED: a crash, a sanitizer report or an uncaught exception (log: $B/$target.log)"
    grep -E -A25 "ERROR: |runtime error:|uncaught exception|deadly signal" "$B/$target.log" | head -60
    exit 1
  fi
}
# Two thirds of the time to the YAML configs, one third to the CSV trade lists.
fuzz fuzz_config "$corpus" $((seconds * 2 / 3))
fuzz fuzz_csv "$csv_corpus" $((seconds - seconds * 2 / 3))
