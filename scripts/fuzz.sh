#!/usr/bin/env bash
# The host-only code under AddressSanitizer + UndefinedBehaviorSanitizer, and the config fuzzer
# (tests/fuzz): builds tests/fuzz with clang into build-fuzz/, runs the sanitized suites
# (test_config, test_analytic; and the CPU engine's test_engine_cpu built by g++ with the same
# sanitizers), replays the committed crash corpus (tests/fuzz/crashes/: each
# input that once failed must now pass), then fuzzes for SECONDS: two thirds on YAML configs from
# config/examples/ and any corpus folders given (CI passes the configs its suites wrote:
# tests/fuzz_corpus.hpp), one third on CSV trade lists and positions (tests/fuzz/fuzz_csv.cpp,
# seeds in tests/fuzz/csv_seeds/).
# Usage: scripts/fuzz.sh [--seconds N] [--runs N] [--jobs N] [--no-engine] [CORPUS_DIR...]
# (--jobs: fuzzing processes at once, 1 by default; --no-engine: skip the sanitized CPU engine)
# Exit status: 0 clean; non-zero when a suite fails or the fuzzer finds a crash, a leak, a
# sanitizer report, an exception other than ConfigError, a timeout or an out-of-memory (the
# input is left in build-fuzz/ as crash-*, leak-*, timeout-* or oom-*).
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
B=build-fuzz
mkdir -p "$B"
CXX=$cxx cmake -S tests/fuzz -B "$B" > "$B/configure.log" 2>&1 \
  || { cat "$B/configure.log"; exit 2; }
cmake --build "$B" -j "$(nproc)" > "$B/build.log" 2>&1 || { tail -30 "$B/build.log"; exit 2; }
echo "fuzz: sanitized suites"
(cd "$B" && ctest --output-on-failure)
# The CPU engine and its suite (pricing, draws, exercise, splits, atomic files, the tuning cache)
# under g++'s AddressSanitizer + UndefinedBehaviorSanitizer: the main project with PFMC_SANITIZE,
# no kernels, into build-sanitize/ (its CUDA host code is compiled with them too). --no-engine
# skips it.
if [ "$engine" = 1 ]; then
  S=build-sanitize
  mkdir -p "$S"
  cuda_flags=()
  [ -x /usr/local/cuda/bin/nvcc ] && cuda_flags=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  generator=()
  command -v ninja > /dev/null && [ ! -f "$S/Makefile" ] && generator=(-G Ninja)
  # -O1 and line tables for the C++ (AddressSanitizer's advice; half the compile of -O2 -g), -O0
  # for the CUDA files' host code, which no CPU test runs far (a third of its compile): the
  # sanitized build was CI's longest step.
  cmake -S . -B "$S" "${generator[@]}" "${cuda_flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CUDA_FLAGS_RELWITHDEBINFO="-O0 -Xcompiler=-g1 -DNDEBUG" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPFMC_SANITIZE=ON -DPFMC_KERNELS=none -DPFMC_PYTHON=OFF \
    -DPFMC_MPI=OFF -DPFMC_BUILD_BENCH=OFF > "$S/fuzz-configure.log" 2>&1 \
    || { cat "$S/fuzz-configure.log"; exit 2; }
  cmake --build "$S" -j "$(nproc)" --target test_engine_cpu > "$S/fuzz-build.log" 2>&1 \
    || { tail -30 "$S/fuzz-build.log"; exit 2; }
  echo "fuzz: the CPU engine's suite under ASan + UBSan"
  ASAN_OPTIONS=detect_leaks=1 "./$S/test_engine_cpu" --gtest_brief=1 > "$S/fuzz-test.log" 2>&1 \
    || { grep -E "FAILED|ERROR|runtime error" -A20 "$S/fuzz-test.log" | head -60; exit 1; }
  tail -3 "$S/fuzz-test.log"
fi
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
