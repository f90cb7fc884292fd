#!/usr/bin/env bash
# The GPU check, run on a machine with a CUDA GPU (e.g. through the device tool):
#   build (Ninja, all cores, ptxas resource report) → test suites → compute-sanitizer
#   (memcheck, racecheck, synccheck) on small runs → SASS checks → benchmark → summary.
# Stages can be chosen: scripts/gpu-check.sh [prebuilt] [build] [test] [sanitize] [sass] [prefetch] [bench]
# [stress] [exhaustive] [cli] [quick] [e2e] [jit] [fast] [pathwise] [fresh] [books] [pyoverhead] [pysegv] [pybuild] [pysegv-gdb] [peers] [fsi] [split] [scale] [exercise] [ncu] [book-source] [build-old] [book-trace] [terminal-ab] [prebuilt-ab] [final] [book-ab] [regcap] [loaders-ab] [ncu-loaders] [ncu-greeks] [extra] (default: build test sanitize sass bench). Logs go to $OUT (or
# /tmp/pfmc-gpu-check); the summary is printed last. Carry .deps/root (scripts/carry-deps.sh:
# Random123 and SLEEF, which the GPU machine lacks), for `peers` .peers (scripts/fetch-peers.sh),
# and for `prebuilt` build-carry/prebuilt.tar.xz (scripts/carry-build.sh: the check set's
# binaries built here, so that no stage builds on the GPU machine).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/pfmc-gpu-check}
# Every log goes to LOG; only the files worth keeping are copied to OUT at the end (the device
# tool brings back at most 8 files).
LOG=${PFMC_LOG_DIR:-/tmp/pfmc-gpu-logs}
mkdir -p "$OUT" "$LOG"
: > "$OUT/summary.txt"
stages=${*:-build test sanitize sass bench}
has() { [[ " $stages " == *" $1 "* ]]; }
summary=()
# Each line of the summary is also appended to $OUT/summary.txt at once: a run cut short still
# brings back what it had found.
note() {
  local line="[${SECONDS}s] $1" # seconds since the check began: where a cut-short call spent them
  summary+=("$line")
  echo "== $line"
  echo "$line" >> "$OUT/summary.txt"
}
# Runs a stage's command under a time limit (seconds): a stall costs that stage, not the run.
limit() {
  local seconds=$1
  shift
  timeout --kill-after=10 "$seconds" "$@"
}
keep() { for f in "$@"; do [ -f "$LOG/$f" ] && cp "$LOG/$f" "$OUT/"; done; }
# same_prices FIRST.json LABEL:OTHER.json ...: how many of FIRST's instruments have the same
# price and standard error, bit for bit, in each OTHER (pfmc price --format json results).
same_prices() {
  python3 - "$@" <<'PY'
import json, sys
key = lambda f: {i["id"]: (i["price"], i["std_error"]) for i in json.load(open(f))["instruments"]}
first = key(sys.argv[1])
counts = []
for arg in sys.argv[2:]:
    label, path = arg.split(":", 1)
    other = key(path)
    same = sum(1 for k in first if first[k] == other.get(k))
    counts.append("%s %d of %d identical" % (label, same, len(first)))
print("; ".join(counts))
PY
}
# check_builds STAGE "NEW TARGETS" OLD_SOURCE OLD_BUILD "OLD TARGETS": this tree's check build in
# build-device-check (2/3 of the cores) and, where OLD_SOURCE is a folder and OLD_BUILD lacks the
# first of its targets, the tree before's beside it (1/3); logs $LOG/STAGE_build_{new,old}.log, a
# line of the summary.
check_builds() {
  local stage=$1 new_targets=$2 old=$3 old_build=$4 old_targets=$5 t0=$SECONDS
  (cmake -S . -B build-device-check "${check_flags[@]}" \
     && limit 500 ninja -C build-device-check -j $(( $(nproc) * 2 / 3 )) $new_targets) \
    > "$LOG/${stage}_build_new.log" 2>&1 &
  if [ -d "$old" ] && [ ! -x "$old_build/${old_targets%% *}" ]; then
    (cmake -S "$old" -B "$old_build" "${check_flags[@]}" \
       && limit 500 ninja -C "$old_build" -j $(( $(nproc) / 3 )) $old_targets) \
      > "$LOG/${stage}_build_old.log" 2>&1 &
  fi
  wait
  note "$stage: builds in $((SECONDS - t0)) s: new $(tail -1 "$LOG/${stage}_build_new.log" | cut -c1-60); old $(tail -1 "$LOG/${stage}_build_old.log" 2>/dev/null | cut -c1-60)"
}
# sharded_tests NAME FILTER SECONDS: build-device-check's test_gpu on FILTER in 8 processes at
# once (gtest shards; each compiles its kernels on first use), each cut at SECONDS; their output
# in $LOG/NAME_tests.txt (kept), a line of the summary: the tests passed (each test's `OK` line,
# so that a shard cut short still counts what it finished), skipped and failed, and the shards
# that ended. Sets `failed` to the failed tests' names, colon-separated.
sharded_tests() {
  local name=$1 filter=$2 seconds=$3 t0=$SECONDS
  for i in 0 1 2 3 4 5 6 7; do
    GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i PFMC_TEST_WARM=0 limit "$seconds" \
      ./build-device-check/test_gpu --gtest_filter="$filter" > "$LOG/${name}_test_$i.log" 2>&1 &
  done
  wait
  cat "$LOG"/${name}_test_[0-9].log > "$LOG/${name}_tests.txt"
  keep "${name}_tests.txt"
  failed=$(grep -hE '^\[  FAILED  \] [A-Za-z]' "$LOG/${name}_tests.txt" | awk '{print $4}' | sort -u | tr '\n' ':')
  note "$name tests (8 shards) in $((SECONDS - t0)) s: $(grep -c '^\[       OK \]' "$LOG/${name}_tests.txt") passed, $(grep -c '^\[  SKIPPED \] [A-Za-z]' "$LOG/${name}_tests.txt") skipped, shards ended: $(grep -c '^\[==========\] .* ran\.' "$LOG/${name}_tests.txt") of 8; failed: ${failed:-none}"
  grep -hE 'Failure|Expected|Which is' "$LOG/${name}_tests.txt" | head -40
}
B=build-device

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  | tee "$LOG/gpu.txt"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# The check set of kernels (the rest compiled on first use): what the stages that compare this
# tree with the one before build.
check_flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
             -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_KERNELS=check -DPFMC_LAUNCH_CHECK_SET=ON
             -DPFMC_MPI=OFF -DPFMC_PYTHON=OFF -DPFMC_DEPS_ROOT="$PWD/.deps/root")
export PFMC_TUNING_CACHE="$LOG/tuning.json"
# The kernels compiled on first use (kernels/compile/): a cache of the build folder's own (kept
# between calls on a warm machine) unless PFMC_KERNEL_CACHE names one.
export PFMC_KERNEL_CACHE=${PFMC_KERNEL_CACHE:-$PWD/$B/kernel-cache}
# The suite's kernels compiled on the development machine (scripts/carry-suite-cache.sh), when
# carried: unpacked into that cache for the test stage (the keys name this include folder), and
# said in the summary — a run with them is not a cold-cache run.
carried_cache=
if has test && [ -f build-carry/suite-cache.tar.xz ]; then
  mkdir -p "$PFMC_KERNEL_CACHE"
  tar -C "$PFMC_KERNEL_CACHE" -xJf build-carry/suite-cache.tar.xz
  export PFMC_CUDA_INCLUDE=${PFMC_CUDA_INCLUDE:-/usr/local/cuda/include}
  carried_cache=" (from a carried cache of $(find "$PFMC_KERNEL_CACHE" -name '*.cubin' | wc -l) entries: not a cold cache)"
fi
# Open MPI unpacked into .deps/mpi (scripts/carry-deps.sh --mpi; the GPU machine has none):
# relocated with OPAL_PREFIX, the build pointed at its header and library (no wrapper compiler).
mpi_flags=(-DPFMC_MPI=OFF)
if [ -d .deps/mpi/usr ]; then
  export OPAL_PREFIX=$PWD/.deps/mpi/usr
  mpi_lib=$OPAL_PREFIX/lib/x86_64-linux-gnu
  export PATH=$OPAL_PREFIX/bin:$PATH
  export LD_LIBRARY_PATH=$mpi_lib:$mpi_lib/openmpi/lib:${LD_LIBRARY_PATH:-}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_osc=pt2pt
  mpi_flags=(-DPFMC_MPI=ON -DMPI_CXX_COMPILER=/nonexistent -DMPI_CXX_SKIP_MPICXX=ON
             -DMPI_CXX_HEADER_DIR=$mpi_lib/openmpi/include -DMPI_CXX_LIB_NAMES=mpi
             -DMPI_mpi_LIBRARY=$mpi_lib/openmpi/lib/libmpi.so
             -DMPIEXEC_EXECUTABLE=$OPAL_PREFIX/bin/orterun)
fi

# pytest for the Python suite, where the GPU machine's Python has none (scripts/carry-deps.sh
# --pytest; tests/python_installed.sh adds it to its environment).
if [ -d .deps/pytest/usr/lib/python3/dist-packages ]; then
  export PFMC_TEST_TOOLS=$PWD/.deps/pytest/usr/lib/python3/dist-packages
fi
# The carried libraries (libcsv, SLEEF) for what has no build-tree path to them: the Python
# module pip installs (ImportError: libcsv.so.3 without this).
if [ -d .deps/root/usr/lib/x86_64-linux-gnu ]; then
  export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

prebuilt_ok=
if has prebuilt && [ -f build-carry/prebuilt.tar.xz ]; then
  # scripts/carry-build.sh's binaries and kernel cache, built and compiled on the development
  # machine: unpacked into build-device-check (the check builds' folder) and used by the stages
  # that follow in place of a check build, once test_gpu lists its tests here (else they build).
  start=$SECONDS
  mkdir -p build-device-check
  tar -C build-device-check -xJf build-carry/prebuilt.tar.xz
  export LD_LIBRARY_PATH=$PWD/build-device-check/lib:$PWD/.deps/root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  export PFMC_CUDA_INCLUDE=/usr/local/cuda/include PFMC_KERNEL_CACHE=$PWD/build-device-check/kernel-cache
  if PFMC_TEST_WARM=0 ./build-device-check/test_gpu --gtest_list_tests > "$LOG/prebuilt_list.txt" 2>&1 \
     && ./build-device-check/pfmc kernels > "$LOG/prebuilt_kernels.txt" 2>&1; then
    prebuilt_ok=1
  fi
  note "prebuilt: $(head -1 build-device-check/commit) unpacked in $((SECONDS - start)) s; runs here: ${prebuilt_ok:-no ($(tail -2 "$LOG/prebuilt_list.txt" | tr '\n' ' '))}; $(tail -1 "$LOG/prebuilt_kernels.txt")"
fi

if has build; then
  start=$SECONDS
  cmake --preset device -DCMAKE_CUDA_COMPILER="$NVCC" "${mpi_flags[@]}" > "$LOG/configure.log" 2>&1 \
    || { note "configure with ${mpi_flags[0]} failed: $(grep -m1 -i error "$LOG/configure.log")";
         cmake --preset device -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_MPI=OFF >> "$LOG/configure.log" 2>&1; } \
    && limit ${PFMC_BUILD_SECONDS:-540} cmake --build --preset device -j "$(nproc)" > "$LOG/build.log" 2>&1
  rc=$?
  python3 scripts/ptxas-table.py "$LOG/build.log" > "$LOG/ptxas.txt"
  note "build: rc=$rc in $((SECONDS - start)) s; ptxas: $(tail -1 "$LOG/ptxas.txt"); pfmc $(stat -c %s "$B/pfmc" 2>/dev/null || echo '?') bytes"
  # Each object's compile time (Ninja's log: start and end in ms), the slowest first.
  if [ -f "$B/.ninja_log" ]; then
    awk -F'\t' '!/^#/ {printf "%8.1f s  %s\n", ($2 - $1) / 1000, $4}' "$B/.ninja_log" \
      | sort -rn > "$LOG/build_times.txt"
    note "build: $(awk '{s += $1} END {printf "%.0f", s}' "$LOG/build_times.txt") s of compiles in all; kernel modules $(grep instantiate_ "$LOG/build_times.txt" | awk '{s += $1} END {printf "%.0f", s}') s"
    keep build_times.txt
  fi
  [ $rc -eq 0 ] || { tail -40 "$LOG/build.log"; printf '%s\n' "${summary[@]}"; exit 1; }
fi

if has test; then
  # The whole default suite in one device call (issue 59): the kernels it launches that the
  # binary lacks (tests/gpu_coverage.cpp's list) compiled on every core, the longest first; then
  # test_gpu in 4 gtest shards sharing the GPU, beside the other suites under ctest; then the
  # fault suite alone (its hog process holds the GPU's memory). Each part's time is in its line.
  start=$SECONDS
  limit 400 "./$B/test_gpu" --gtest_filter=-* > "$LOG/test_gpu_warm.log" 2>&1
  rc=$?
  note "kernel cache warmed: rc=$rc $(grep -m1 'kernels not built in' "$LOG/test_gpu_warm.log") in $((SECONDS - start)) s$carried_cache"
  grep -m5 'test_gpu: .*NVRTC\|could not compile' "$LOG/test_gpu_warm.log"
  start=$SECONDS
  shards=${PFMC_TEST_SHARDS:-4}
  rm -f "$LOG"/test_gpu_[0-9]*.rc "$LOG"/test_gpu_[0-9]*.log
  for ((i = 0; i < shards; ++i)); do
    (GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i PFMC_TEST_WARM=0 \
       limit ${PFMC_TEST_SECONDS:-330} "./$B/test_gpu" --gtest_brief=1 > "$LOG/test_gpu_$i.log" 2>&1
     echo $? > "$LOG/test_gpu_$i.rc") &
  done
  limit ${PFMC_TEST_SECONDS:-330} ctest --preset device -j 4 --timeout 300 --output-on-failure \
    -E '^test_gpu(_faults)?$' > "$LOG/ctest.log" 2>&1
  rc=$?
  wait
  cat "$LOG"/test_gpu_[0-9]*.log > "$LOG/test_gpu.log"
  failed=$(grep -hE '^\[  FAILED  \] [A-Za-z]' "$LOG/test_gpu.log" | awk '{print $4}' | sort -u | tr '\n' ' ')
  late=$(grep -h 'compiled on first use during the tests' "$LOG/test_gpu.log" | awk '{s += $2} END {print s + 0}')
  note "test_gpu ($shards shards) in $((SECONDS - start)) s: $(cat "$LOG"/test_gpu_[0-9]*.rc | grep -cx 0) of $shards shards passed (exit status 0), $(grep -hoE '^\[  PASSED  \] [0-9]+' "$LOG/test_gpu.log" | awk '{s += $4} END {print s + 0}') tests passed, $(echo $failed | wc -w) failed${failed:+: $failed}; $late kernels compiled during the tests"
  [ "$late" = 0 ] || grep -h 'pfmc: compiled .* (first use' "$LOG/test_gpu.log" | sort -u | head -20
  note "ctest (the other suites, beside test_gpu): rc=$rc $(grep -E 'tests passed|tests failed' "$LOG/ctest.log" | tail -1)"
  # A suite that failed under ctest: its name and its failures, into the summary.
  failed_suites=$(grep -E '^[[:space:]]*[0-9]+ - [a-z_]+ \(' "$LOG/ctest.log" | grep -v '(Skipped)' \
                    | awk '{print $3}' | tr '\n' ' ')
  [ -z "$failed_suites" ] || note "ctest failed: $failed_suites"
  [ -z "$failed_suites" ] || keep ctest.log
  [ -z "$failed" ] || keep test_gpu.log
  grep -E '^\[  FAILED  \]|Failure$' -A6 "$LOG/ctest.log" | head -60 | tee "$LOG/ctest_failures.txt"
  grep -E "Failure" -A6 "$LOG/test_gpu.log" | head -60
  grep -E "^  [a-z_]+ +mc " "$LOG/test_gpu.log"
  # Issue 14's GPU faults: every case's line comes back.
  start=$SECONDS
  limit 240 bash tests/gpu_faults.sh "./$B/pfmc" "./$B/pfmc_gpu_hog" "$PWD" > "$LOG/gpu_faults.txt" 2>&1
  rc=$?
  note "gpu faults in $((SECONDS - start)) s: rc=$rc $(grep -c '^ok:' "$LOG/gpu_faults.txt") ok, $(grep -c '^FAIL:' "$LOG/gpu_faults.txt") failed; $(grep '^8 processes' "$LOG/gpu_faults.txt")"
  cat "$LOG/gpu_faults.txt"
  keep gpu_faults.txt
fi

if has exhaustive; then
  # The release tier (tests/gpu_coverage.hpp): every loader at every listed distance of every
  # entry, which no one call compiles. A call takes the entries $PFMC_EXHAUSTIVE_ENTRIES names
  # (model-list names, e.g. "heston_f32 multi4_f64"; the calls together take all of them): each
  # entry's kernels warmed on every core, then its identity cases, the entry's name in theirs.
  for entry in ${PFMC_EXHAUSTIVE_ENTRIES:?"names the model-list entries this call takes"}; do
    start=$SECONDS
    PFMC_GPU_SUITE=exhaustive PFMC_TEST_WARM_ENTRIES=$entry limit 500 "./$B/test_gpu" \
      --gtest_brief=1 --gtest_filter="*/${entry}_*" > "$LOG/exhaustive_$entry.log" 2>&1
    rc=$?
    note "exhaustive $entry: rc=$rc in $((SECONDS - start)) s: $(grep -m1 'kernels not built in' "$LOG/exhaustive_$entry.log" | cut -c1-80); $(grep -E '^\[  (PASSED|FAILED)  \] [0-9]' "$LOG/exhaustive_$entry.log" | tr '\n' ' ')"
    grep -E "Failure" -A6 "$LOG/exhaustive_$entry.log" | head -30
  done
fi

if has stress; then
  # The scrambled-Sobol flake (bench/NOTES.md v15): the two tests that caught it, 4 processes at
  # once, each repeating them, while the GPU is shared.
  start=$SECONDS
  for i in 1 2 3 4; do
    limit 300 "./$B/test_gpu" --gtest_brief=1 --gtest_repeat=${PFMC_STRESS_REPEATS:-6} \
      --gtest_filter='Gpu.ChunkInvarianceForEveryGenerator:Gpu.MatchesCpuOnTheSameDraws' \
      > "$LOG/stress_$i.log" 2>&1 &
  done
  wait
  cat "$LOG"/stress_*.log > "$LOG/stress.txt"
  note "stress: $(grep -c '^\[  PASSED' "$LOG/stress.txt") passed / $(grep -c '^\[  FAILED  \] [0-9]' "$LOG/stress.txt") failed repetitions of 2 tests in 4 processes, $((SECONDS - start)) s"
  grep -E "Failure|FAILED|rng" -A4 "$LOG/stress.txt" | head -40
  keep stress.txt
fi

if has sanitize; then
  sanitize_results=()
  # sanitize NAME BACKEND ARGS...: memcheck, racecheck and synccheck on one small `pfmc price`
  # run (3,000 paths, or $paths: a partial last block) with that backend at distance 4.
  paths=3000
  sanitize() {
    local name=$1 backend=$2
    shift 2
    for tool in memcheck racecheck synccheck; do
      local log="$LOG/sanitize_${tool}_${backend}_${name}.log"
      limit 120 compute-sanitizer --tool $tool --error-exitcode 9 "./$B/pfmc" price "$@" \
        --device gpu --paths $paths --quiet --format csv --backend "$backend" \
        --prefetch-distance 4 > "$log" 2>&1
      local rc=$?
      local errors
      errors=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
      sanitize_results+=("$tool $backend $name rc=$rc ${errors##*= }")
      [ $rc -eq 0 ] || note "sanitizer $tool $backend $name FAILED: rc=$rc ${errors}"
    done
  }
  # The example book on every backend this GPU runs.
  for backend in ${PFMC_SANITIZE_BACKENDS:-$(./$B/pfmc backends --format json | python3 -c 'import json,sys; print(" ".join(b["name"] for b in json.load(sys.stdin)["backends"] if b["runs_here"] and not b["bench_only"]))')}; do
    sanitize book "$backend" config/examples/book.yaml
  done
  # The models and methods of issue 5: Heston with the Greeks' scenario kernels, antithetic
  # pairs and control variates; the correlated baskets; local vol with scrambled Sobol.
  for backend in ${PFMC_SANITIZE_MODEL_BACKENDS:-none smem_rolling_async smem_batched_async smem_block_async tma inline}; do
    sanitize heston "$backend" config/examples/heston.yaml \
      --greeks delta,gamma,vega,rho,theta --antithetic --control-variate
    sanitize basket "$backend" config/examples/basket.yaml
    sanitize knocked_asian "$backend" config/examples/fsi_asian_barrier.yaml
    # Early exercise runs its own kernel whatever the backend: once is enough.
    [ "$backend" = inline ] && sanitize american "$backend" config/examples/american.yaml
    if [ "$backend" = inline ]; then # inline computes Philox draws
      sanitize local_vol "$backend" config/examples/local_vol.yaml --antithetic
    else
      sanitize local_vol "$backend" config/examples/local_vol.yaml --rng scrambled_sobol --replicates 2
    fi
  done
  # Short paths: 64 one-step groups in one launch, 32-thread blocks, 20,000 paths each: inline's
  # threads run two passes of their paths (engine::round_shape), the others read the Philox
  # generation kernel's draws. Then inline alone on 140,000 paths each: 8 passes and 2 rounds.
  python3 scripts/make-mc-sample-book.py --options 64 --paths 20000 --output "$LOG/short_book.yaml"
  paths=20000
  for backend in ${PFMC_SANITIZE_SHORT_BACKENDS:-none scalar_batched tma inline}; do
    sanitize short_paths "$backend" "$LOG/short_book.yaml" --block-size 32
  done
  paths=140000
  sanitize passes inline "$LOG/short_book.yaml" --block-size 32
  paths=3000
  clean=$(printf '%s\n' "${sanitize_results[@]}" | grep -c "rc=0 .*0 errors\|rc=0 .*0 hazards")
  note "sanitizers: $clean of ${#sanitize_results[@]} runs clean (memcheck, racecheck, synccheck x backends)"
fi

if has sass; then
  cuobjdump -sass "$B/libpfmc_kernels.a" > "$LOG/sass.txt" 2>&1
  note "sass: $(grep -c 'Function :' "$LOG/sass.txt") kernels; LDGSTS $(grep -c LDGSTS "$LOG/sass.txt"), UBLKCP $(grep -c UBLKCP "$LOG/sass.txt"), CCTL/prefetch $(grep -c -E 'CCTL|UBLKPF' "$LOG/sass.txt"), LDL $(grep -c 'LDL' "$LOG/sass.txt"), STL $(grep -c 'STL' "$LOG/sass.txt")"
fi

if has prefetch; then
  # Issue 11: the prefetching post's figure (config/examples/post_figure.yaml, the post's five
  # loaders and the block-wide cp.async ring) and both reference workloads with every backend
  # and distance, each against the ideal (pfmc bench, median of 5, warm); then the SASS of the
  # cp.async loaders (LDGSTS present, no BAR.SYNC beyond none's).
  start=$SECONDS
  post_backends=scalar_batched,smem_batched,scalar_rolling,smem_rolling,smem_rolling_async,smem_batched_async,smem_block_async
  : > "$LOG/prefetch_tables.txt"
  for w in post_figure latency_bound bandwidth_bound; do
    backends=all
    [ $w = post_figure ] && backends=$post_backends
    limit 120 "./$B/pfmc" bench "config/examples/$w.yaml" --quiet --repeat 5 --backends $backends \
      --csv "$LOG/prefetch_$w.csv" --plot "$LOG/prefetch_$w.png" > "$LOG/prefetch_$w.txt" 2>&1
    note "prefetch $w: rc=$? $(grep 'ideal (free draws)' "$LOG/prefetch_$w.txt")"
    cat "$LOG/prefetch_$w.txt" >> "$LOG/prefetch_tables.txt"
    keep prefetch_tables.txt "prefetch_$w.csv" "prefetch_$w.png" # now: a call cut short keeps them
  done
  # Black-Scholes float's modules' SASS (every loader at every distance): the whole library's
  # took minutes to dump and read.
  for module in common prefetch async; do
    cuobjdump -sass "$B/CMakeFiles/pfmc_kernels.dir/generated/kernels/instantiate_black_scholes_f32_$module.cu.o" 2>&1
  done > "$LOG/sass_bs_f32.txt"
  limit 60 python3 scripts/sass-loaders.py "$LOG/sass_bs_f32.txt" | tee "$LOG/sass_loaders.txt" >> "$LOG/prefetch_tables.txt"
  cat "$LOG/sass_loaders.txt"
  keep prefetch_tables.txt
  note "prefetch: $((SECONDS - start)) s"
fi

if has bench; then
  start=$SECONDS
  limit ${PFMC_BENCH_SECONDS:-240} "./$B/pfmc_bench" ${PFMC_BENCH_ARGS:-} --benchmark_repetitions=${PFMC_BENCH_REPETITIONS:-3} \
    --benchmark_report_aggregates_only=true --benchmark_min_time=${PFMC_BENCH_MIN_TIME:-0.1s} \
    ${PFMC_BENCH_FILTER:+--benchmark_filter=$PFMC_BENCH_FILTER} \
    --benchmark_out="$LOG/bench.json" --benchmark_out_format=json > "$LOG/bench.txt" 2>&1
  note "bench: rc=$? in $((SECONDS - start)) s"
  head -4 "$LOG/bench.txt"
  python3 scripts/bench-table.py "$LOG/bench.json" | tee "$LOG/bench_table.txt"
  keep bench.json
fi

if has quick; then
  # The reference workloads with the default backends and the best of v7 (pfmc bench, median of
  # 5 in one warm process): what a change to the path kernel must not slow down.
  start=$SECONDS
  for w in latency_bound bandwidth_bound heston; do
    limit 120 "./$B/pfmc" bench "config/examples/$w.yaml" --backends none,scalar_batched,inline \
      --distances 8 --repeat 5 > "$LOG/quick_$w.txt" 2>&1
    note "quick $w: rc=$?"
    cat "$LOG/quick_$w.txt"
  done
  keep quick_latency_bound.txt quick_bandwidth_bound.txt quick_heston.txt
  note "quick: $((SECONDS - start)) s"
fi

if has fast; then
  # Issue 36: the fast math profile (simulation.math: fast). This tree and the one before it
  # (AB_TREES' `old`, default build-oldsrc/src: `git archive` of the parent, carried) built with
  # the check set (black_scholes_f32's `none` and `inline` ahead, the rest compiled on first
  # use), side by side; then: the fast profile's GPU tests in 8 processes at once (gtest shards:
  # each compiles its kernels on first use), the MonteCarloMultiGPU book timed in turn (old and
  # new accurate: the default not slower; new fast), the bits of the old and new accurate runs
  # and of fast `inline` against fast `none`, ncu's instruction counts of the book's `inline`
  # kernel (512 options) in both profiles, and NVIDIA's sample (scripts/peers.sh, 3 runs).
  start=$SECONDS
  check_builds fast "${FAST_TARGETS:-pfmc pfmc_bench test_gpu}" "${FAST_OLD:-build-oldsrc/src}" \
    build-device-ab-old "pfmc_bench pfmc"
  fast_tests=${FAST_TESTS-*GpuFastMath*:Gpu.FastProfile*:Gpu.Philox*:Gpu.MatchesCpuOnTheSameDraws:Gpu.FloatMatchesCpuFloat:Gpu.BookMatchesClosedForms}
  if [ -n "$fast_tests" ]; then
    sharded_tests fast "$fast_tests" "${FAST_TEST_SECONDS:-300}"
    grep -hE 'worst|fast profile' "$LOG/fast_tests.txt" | head -40
  fi
  python3 scripts/make-mc-sample-book.py --output "$LOG/fast_book.yaml"
  python3 scripts/make-mc-sample-book.py --options 512 --output "$LOG/fast_book512.yaml"
  for math in accurate fast; do
    for backend in none inline; do
      for n in "" 512; do
        # accurate: the default, unnamed (the tree before this profile has no `math` key)
        add=""
        [ $math = fast ] && add="math: fast, "
        sed "s/backend: auto/backend: $backend/; s/^simulation: {/simulation: {$add/" \
          "$LOG/fast_book$n.yaml" > "$LOG/fast_book${n}_${math}_$backend.yaml"
      done
    done
  done
  # fast_time LABEL BENCH YAML: book_priced (median of 5 from the loaded config; the last run's
  # kernel time).
  fast_time() {
    limit 300 "$2" --workloads= --end-to-end --book="$3" --benchmark_filter=book_priced \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > "$LOG/fast_$1.txt" 2>&1
    note "fast $1: rc=$? $(grep -E 'book_priced.*median' "$LOG/fast_$1.txt" | grep -oE 'manual_time_median +[0-9.]+ ms|kernel_ms=[0-9.]+' | tr '\n' ' ')"
  }
  for round in 1 2 3; do
    [ -x build-device-ab-old/pfmc_bench ] &&
      fast_time "old_accurate_inline_$round" build-device-ab-old/pfmc_bench "$LOG/fast_book_accurate_inline.yaml"
    fast_time "new_accurate_inline_$round" build-device-check/pfmc_bench "$LOG/fast_book_accurate_inline.yaml"
    [ -x build-device-ab-old/pfmc_bench ] &&
      fast_time "old_fast_inline_$round" build-device-ab-old/pfmc_bench "$LOG/fast_book_fast_inline.yaml"
    fast_time "new_fast_inline_$round" build-device-check/pfmc_bench "$LOG/fast_book_fast_inline.yaml"
  done
  # FAST_BLOCKS (e.g. "64 256"): the fast book at other block sizes (engine.block_size).
  for bs in ${FAST_BLOCKS:-}; do
    sed "s/^engine: {/engine: {block_size: $bs, /" "$LOG/fast_book_fast_inline.yaml" \
      > "$LOG/fast_book_fast_inline_b$bs.yaml"
    fast_time "new_fast_inline_b${bs}_1" build-device-check/pfmc_bench "$LOG/fast_book_fast_inline_b$bs.yaml"
  done
  cat "$LOG"/fast_*_[0-9].txt > "$LOG/fast_bench.txt"
  keep fast_bench.txt
  for run in old_accurate_inline new_accurate_inline old_fast_inline new_fast_inline new_fast_none; do
    bin=build-device-check/pfmc
    [[ $run == old_* ]] && bin=build-device-ab-old/pfmc
    book=$LOG/fast_book_${run#*_}.yaml
    [ -x $bin ] && limit 120 ./$bin price "$book" --quiet --format json --output "$LOG/fast_$run.json" \
      > "$LOG/fast_price_$run.txt" 2>&1
  done
  # The accurate profile's bits, this tree against the one before, on the example books.
  for yaml in config/examples/book.yaml config/examples/portfolio.yaml config/examples/heston.yaml config/examples/basket.yaml config/examples/american.yaml; do
    for backend in none inline; do
      for tree in old new; do
        bin=build-device-check/pfmc
        [ $tree = old ] && bin=build-device-ab-old/pfmc
        [ -x $bin ] && limit 120 ./$bin price "$yaml" --backend $backend --quiet --format json \
          --output "$LOG/fast_example_${tree}_$(basename $yaml .yaml)_$backend.json" > /dev/null 2>&1
      done
    done
  done
  note "fast: accurate bits, this tree against the one before: $(python3 -c '
import glob, json, os, sys
out = []
for new in sorted(glob.glob(sys.argv[1] + "/fast_example_new_*.json")):
    old = new.replace("_new_", "_old_")
    name = os.path.basename(new)[len("fast_example_new_"):-len(".json")]
    try:
        a, b = json.load(open(old)), json.load(open(new))
    except Exception:
        out.append(name + " missing"); continue
    n = sum(all(x[k] == y[k] for k in ("price", "std_error")) for x, y in zip(a["instruments"], b["instruments"]))
    out.append("%s %d/%d" % (name, n, len(a["instruments"])))
print("; ".join(out))
' "$LOG" 2>&1)"
  note "fast bits: $(python3 -c '
import json, sys
def load(f):
    try: return json.load(open(f))
    except Exception as e: return None
def same(a, b):
    if a is None or b is None: return "missing"
    n = sum(all(x[k] == y[k] for k in ("price", "std_error")) for x, y in zip(a["instruments"], b["instruments"]))
    return "%d of %d identical" % (n, len(a["instruments"]))
old, new, fi, fn, ofi = (load(sys.argv[1] + "/fast_" + r + ".json") for r in ("old_accurate_inline", "new_accurate_inline", "new_fast_inline", "new_fast_none", "old_fast_inline"))
print("accurate old vs new:", same(old, new), "; fast old vs new:", same(ofi, fi), "; fast inline vs none:", same(fn, fi),
      "; fast vs accurate:", same(new, fi), "; run math:", (fi or {}).get("run", {}).get("math"))
' "$LOG" 2>&1)"
  if command -v ncu > /dev/null; then
    for math in accurate fast; do
      limit 200 ncu --clock-control none -k regex:path_kernel --metrics \
        smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
        ./build-device-check/pfmc price "$LOG/fast_book512_${math}_inline.yaml" --quiet \
        > "$LOG/fast_ncu_$math.txt" 2>&1
      note "fast ncu $math (512 options x 262,144 paths, inline): $(grep -E 'inst_executed|issue_active|warps_active|registers|duration' "$LOG/fast_ncu_$math.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
    done
    cat "$LOG"/fast_ncu_*.txt > "$LOG/fast_ncu.txt"
    keep fast_ncu.txt
  fi
  # The reference workloads in both profiles: `inline` and `none`, medians of 3 (FAST_WORKLOADS=0:
  # not run).
  [ "${FAST_WORKLOADS:-1}" = 1 ] && limit 300 ./build-device-check/pfmc_bench --maths=accurate,fast --benchmark_filter='/(inline|none)/' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$LOG/fast_workloads.txt" 2>&1
  note "fast workloads: rc=$? $(grep -E '_median' "$LOG/fast_workloads.txt" | awk '{print $1, $2, $3}' | tr '\n' ';' | cut -c1-700)"
  keep fast_workloads.txt
  if [ -d .peers ]; then
    OUT=$LOG PEERS_ONLY=mc limit 300 bash scripts/peers.sh > "$LOG/fast_peers.txt" 2>&1
    note "fast peers: $(grep -E 'MonteCarloMultiGPU run' "$LOG/fast_peers.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
    keep peers.log
  fi
  note "fast: $((SECONDS - start)) s"
fi

if has pathwise; then
  # Issue 37: pathwise Greeks. This tree and its parent (PATHWISE_OLD, default build-oldsrc/src:
  # `git archive` of the parent, carried) built with the check set side by side (the pathwise
  # models' kernels compiled on first use by NVRTC); then the GPU suites of the Greeks in 8
  # processes at once (gtest shards), compute-sanitizer on pathwise runs, the default's prices
  # against the parent's bit for bit, and the shipped basket and portfolio books priced warm
  # (pfmc_bench's book_priced, medians of 5) with no Greeks, delta and vega, the first-order
  # Greeks and all five, pathwise and bumped.
  start=$SECONDS
  pw_parts=" ${PATHWISE_PARTS:-tests bench bits sanitize} " # what runs after the builds
  check_builds pw "pfmc pfmc_bench test_gpu" "${PATHWISE_OLD:-build-oldsrc/src}" build-device-pw-old pfmc
  pw_tests=${PATHWISE_TESTS-*Pathwise*:GpuModels.EveryModelAndMethodMatchesTheCpuBackendOnTheSameDraws:GpuModels.TwoAssetMaxAndMinMatchStulzAndGreeksMatchBlackScholes:*ModelBackendIdentity*:GpuReferenceCases*:*Greek*}
  if [ -n "$pw_tests" ] && [[ $pw_parts == *" tests "* ]]; then
    sharded_tests pw "$pw_tests" "${PATHWISE_TEST_SECONDS:-330}"
    grep -hE 'gpu (call|put)' "$LOG/pw_tests.txt" | head -40
  fi
  # The books: the shipped examples with their simulation line extended.
  for book in basket portfolio; do
    for v in price dv_pathwise dv_bump first_pathwise first_bump all_auto all_bump; do
      case $v in
        price) add="" ;;
        dv_*) add=", greeks: [delta, vega], greeks_method: ${v#dv_}" ;;
        first_*) add=", greeks: [delta, vega, rho, theta], greeks_method: ${v#first_}" ;;
        all_auto) add=", greeks: [delta, gamma, vega, rho, theta]" ;;
        all_bump) add=", greeks: [delta, gamma, vega, rho, theta], greeks_method: bump" ;;
      esac
      sed -E "s/^(simulation: \{[^}]*)\}/\1$add}/" config/examples/$book.yaml > "$LOG/pw_${book}_$v.yaml"
    done
  done
  pw_time() { # LABEL YAML
    limit 300 build-device-check/pfmc_bench --workloads= --end-to-end --book="$2" --benchmark_filter=book_priced \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > "$LOG/pw_$1.txt" 2>&1
    note "pathwise $1: rc=$? $(grep -E 'book_priced.*median' "$LOG/pw_$1.txt" | grep -oE 'manual_time_median +[0-9.]+ ms|kernel_ms=[0-9.]+' | tr '\n' ' ') $(grep -m1 -oE 'refused|error: .{0,160}|ConfigError.{0,160}' "$LOG/pw_$1.txt")"
  }
  for book in basket portfolio; do
    for v in ${PATHWISE_VARIANTS:-price dv_pathwise dv_bump first_pathwise first_bump all_auto all_bump}; do
      [[ $pw_parts == *" bench "* ]] && pw_time "${book}_$v" "$LOG/pw_${book}_$v.yaml"
    done
  done
  cat "$LOG"/pw_basket_*.txt "$LOG"/pw_portfolio_*.txt > "$LOG/pw_bench.txt" 2>/dev/null
  keep pw_bench.txt
  # One priced run of each (JSON: the Greeks, their errors and methods).
  for v in first_pathwise first_bump all_auto; do
    limit 120 build-device-check/pfmc price "$LOG/pw_basket_$v.yaml" --quiet --format json \
      --output "$LOG/pw_basket_$v.json" > /dev/null 2>&1
  done
  python3 - "$LOG" > "$LOG/pw_compare.txt" 2>&1 <<'PY'
import json, sys
d = sys.argv[1]
def load(v):
    try: return json.load(open(f"{d}/pw_basket_{v}.json"))
    except Exception as e: return None
p, b = load("first_pathwise"), load("first_bump")
if p and b:
    worst = 0.0
    for x, y in zip(p["instruments"], b["instruments"]):
        for g, v in x["greeks"].items():
            vals = v if isinstance(v, dict) else {"": v}
            for u, val in vals.items():
                e1 = x["greeks_std_error"][g][u] if u else x["greeks_std_error"][g]
                w = y["greeks"][g][u] if u else y["greeks"][g]
                e2 = y["greeks_std_error"][g][u] if u else y["greeks_std_error"][g]
                z = abs(val - w) / max((e1 * e1 + e2 * e2) ** 0.5, 1e-300)
                worst = max(worst, z)
                print(f"{x['id']:24s} {g:5s} {u:6s} pathwise {val:12.6f} ± {e1:.6f}  bump {w:12.6f} ± {e2:.6f}  {z:.2f} combined SE  se ratio {e1 / e2:.3f}")
    print("worst", worst)
PY
  keep pw_compare.txt
  note "pathwise vs bump on basket.yaml (GPU, same draws): $(tail -1 "$LOG/pw_compare.txt")"
  # The default's prices, this tree against its parent, bit for bit.
  for yaml in ${PATHWISE_BITS_BOOKS:-config/examples/book.yaml config/examples/portfolio.yaml config/examples/basket.yaml config/examples/american.yaml}; do
    for backend in none inline; do
      for tree in old new; do
        [[ $pw_parts == *" bits "* ]] || continue
        bin=build-device-check/pfmc
        [ $tree = old ] && bin=build-device-pw-old/pfmc
        [ -x $bin ] && limit 120 ./$bin price "$yaml" --backend $backend --quiet --format json \
          --output "$LOG/pw_example_${tree}_$(basename $yaml .yaml)_$backend.json" > /dev/null 2>&1
      done
    done
  done
  note "pathwise: default prices, this tree against its parent: $(python3 -c '
import glob, json, os, sys
out = []
for new in sorted(glob.glob(sys.argv[1] + "/pw_example_new_*.json")):
    old = new.replace("_new_", "_old_")
    name = os.path.basename(new)[len("pw_example_new_"):-len(".json")]
    try:
        a, b = json.load(open(old)), json.load(open(new))
    except Exception:
        out.append(name + " missing"); continue
    n = sum(all(x[k] == y[k] for k in ("price", "std_error")) for x, y in zip(a["instruments"], b["instruments"]))
    out.append("%s %d/%d" % (name, n, len(a["instruments"])))
print("; ".join(out))
' "$LOG" 2>&1)"
  # compute-sanitizer on small pathwise runs.
  if command -v compute-sanitizer > /dev/null && [[ $pw_parts == *" sanitize "* ]]; then
    sed -E 's/paths: [0-9]+/paths: 20000/' "$LOG/pw_basket_first_pathwise.yaml" > "$LOG/pw_small.yaml"
    clean=0; total=0
    for tool in ${PATHWISE_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
      for backend in none inline; do
        total=$((total + 1))
        limit 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build-device-check/pfmc price \
          "$LOG/pw_small.yaml" --backend $backend --quiet > "$LOG/pw_san_${tool}_$backend.txt" 2>&1 && clean=$((clean + 1))
      done
    done
    note "pathwise sanitizers: $clean of $total clean $(grep -h 'ERROR SUMMARY' "$LOG"/pw_san_*.txt | sort | uniq -c | tr '\n' ' ')"
  fi
  note "pathwise: $((SECONDS - start)) s"
fi

if has book-ab; then
  # The MonteCarloMultiGPU book on this tree against older or variant trees, on one machine.
  # AB_TREES: NAME=FOLDER pairs (default "old=build-oldsrc/src new=."); a folder other than "."
  # is a `git archive REV | tar -x -C FOLDER` in an ignored place, carried. Each is built with
  # the check set of kernels (black_scholes_f32's `none` and `inline`: the book's) and timed in
  # turn: AB_ROUNDS rounds of pfmc_bench's book_priced (median of 5 runs from the loaded config,
  # and the last run's kernel time), `none` in the first round only; AB_BLOCKS: further block
  # sizes of `inline` on this tree. Then whether this tree's `inline` gives `none`'s bits on the
  # book (every price and standard error, JSON) and, where ncu is, the instructions its
  # `inline` kernel executes on a book of 512 options.
  start=$SECONDS
  read -r -a ab_trees <<< "${AB_TREES:-old=build-oldsrc/src new=.}"
  jobs=$(( $(nproc) / ${#ab_trees[@]} ))
  [ $jobs -ge 1 ] || jobs=1
  for pair in "${ab_trees[@]}"; do
    name=${pair%%=*}
    folder=${pair#*=}
    [ -d "$folder" ] || { note "book-ab: $name's folder $folder is missing"; continue; }
    build=build-device-ab-$name
    [ "$folder" = . ] && build=build-device-check
    (cmake -S "$folder" -B $build "${check_flags[@]}" \
       && limit ${PFMC_BUILD_SECONDS:-400} ninja -C $build -j $jobs pfmc pfmc_bench) \
      > "$LOG/ab_build_$name.log" 2>&1 &
  done
  wait
  note "book-ab builds in $((SECONDS - start)) s: $(for pair in "${ab_trees[@]}"; do echo -n "${pair%%=*}: $(tail -1 "$LOG/ab_build_${pair%%=*}.log" | cut -c1-50); "; done)"
  # ab_time LABEL BENCH YAML: pfmc_bench's book_priced of YAML (median of 5 runs, the last run's
  # kernel time) into ab_LABEL.txt and the summary.
  ab_time() {
    limit 300 "./$2" --workloads= --end-to-end --book="$3" --benchmark_filter=book_priced \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > "$LOG/ab_$1.txt" 2>&1
    note "book-ab $1: rc=$? $(grep -E 'book_priced.*median' "$LOG/ab_$1.txt" | grep -oE 'manual_time_median +[0-9.]+ ms|kernel_ms=[0-9.]+' | tr '\n' ' ')"
  }
  python3 scripts/make-mc-sample-book.py --output "$LOG/ab_book.yaml"
  for backend in none inline; do
    sed "s/backend: auto/backend: $backend/" "$LOG/ab_book.yaml" > "$LOG/ab_book_$backend.yaml"
  done
  for round in $(seq 1 ${AB_ROUNDS:-3}); do
    for pair in "${ab_trees[@]}"; do
      name=${pair%%=*}
      bin=build-device-ab-$name/pfmc_bench
      [ "${pair#*=}" = . ] && bin=build-device-check/pfmc_bench
      [ -x "$bin" ] || continue
      for backend in inline none; do
        [ $backend = none ] && [ $round -gt 1 ] && continue
        ab_time "${name}_${backend}_$round" "$bin" "$LOG/ab_book_$backend.yaml"
      done
    done
  done
  for block in ${AB_BLOCKS:-}; do
    sed "s/backend: auto/backend: inline, block_size: $block/" "$LOG/ab_book.yaml" \
      > "$LOG/ab_book_b$block.yaml"
    ab_time "this_inline_block${block}_1" build-device-check/pfmc_bench "$LOG/ab_book_b$block.yaml"
  done
  cat "$LOG"/ab_*_[0-9]*.txt > "$LOG/ab_bench.txt"
  keep ab_bench.txt
  for backend in none inline; do
    limit 120 ./build-device-check/pfmc price "$LOG/ab_book.yaml" --backend $backend --quiet \
      --format json --output "$LOG/ab_$backend.json" > "$LOG/ab_price_$backend.txt" 2>&1
  done
  note "book-ab bits, inline against none: $(python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
keys = ("price", "std_error")
same = sum(all(x[k] == y[k] for k in keys) for x, y in zip(a["instruments"], b["instruments"]))
print("%d of %d instruments identical; inline run: kernel %.3f ms" % (same, len(a["instruments"]), b["run"]["kernel_ms"]))
' "$LOG/ab_none.json" "$LOG/ab_inline.json" 2>&1)"
  if command -v ncu > /dev/null; then
    python3 scripts/make-mc-sample-book.py --options 512 --output "$LOG/ab_book512.yaml"
    limit 200 ncu --clock-control none -k regex:path_kernel --metrics \
      smsp__inst_executed.sum,smsp__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
      ./build-device-check/pfmc price "$LOG/ab_book512.yaml" --backend inline --quiet \
      > "$LOG/ab_ncu.txt" 2>&1
    note "book-ab ncu (512 options × 262,144 paths, inline): $(grep -E 'inst_executed|issue_active|warps_active|registers' "$LOG/ab_ncu.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
    keep ab_ncu.txt
  fi
  note "book-ab: $((SECONDS - start)) s"
fi

if has regcap; then
  # The register-cap experiment (bench/NOTES.md v21, "The spills, kernel by kernel"): the
  # Black-Scholes kernels built twice, as shipped and with one cap of REGCAP registers (default
  # 128) for every kernel (PFMC_REGISTER_CAP; uncapped they take 126-162 and spill nothing),
  # each build on half the cores, then timed in turn on the workloads of 64- and 128-thread
  # blocks. Bits: a cap changes registers, not arithmetic; the JSON prices are compared.
  start=$SECONDS
  cap=${REGCAP:-128}
  rc_flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
            -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_KERNELS=all
            "-DPFMC_KERNEL_ENTRIES=black_scholes_f32;black_scholes_f64" -DPFMC_PTXAS_VERBOSE=ON
            -DPFMC_BUILD_TESTS=OFF -DPFMC_BUILD_BENCH=OFF -DPFMC_MPI=OFF -DPFMC_PYTHON=OFF
            -DPFMC_DEPS_ROOT="$PWD/.deps/root")
  half=$(( $(nproc) / 2 ))
  [ $half -ge 1 ] || half=1
  for variant in shipped capped; do
    extra=()
    [ $variant = capped ] && extra=(-DPFMC_REGISTER_CAP="$cap")
    ( cmake -S . -B "build-regcap-$variant" "${rc_flags[@]}" "${extra[@]}" \
        > "$LOG/regcap_${variant}_configure.log" 2>&1 &&
      limit 540 cmake --build "build-regcap-$variant" -j "$half" --target pfmc \
        > "$LOG/regcap_${variant}_build.log" 2>&1 ) &
  done
  wait
  for variant in shipped capped; do
    [ -x "build-regcap-$variant/pfmc" ] || note "regcap: the $variant build failed (log: regcap_${variant}_build.log)"
  done
  if [ -x build-regcap-shipped/pfmc ] && [ -x build-regcap-capped/pfmc ]; then
    python3 scripts/spill-causes.py "$LOG/regcap_shipped_build.log" "$LOG/regcap_capped_build.log" \
      > "$LOG/regcap_spills.txt" 2>&1
    note "regcap spills: $(tail -1 "$LOG/regcap_spills.txt")"
    for round in 1 2; do
      for w in latency_bound post_figure bandwidth_bound; do
        for variant in shipped capped; do
          limit 150 "build-regcap-$variant/pfmc" bench "config/examples/$w.yaml" \
            --backends none,scalar_batched,smem_batched_async,scalar_rolling --distances 4,8 \
            --repeat 5 --quiet > "$LOG/regcap_${w}_${variant}_$round.txt" 2>&1
          note "regcap $w $variant round $round: rc=$?"
          cat "$LOG/regcap_${w}_${variant}_$round.txt"
        done
      done
    done
    for w in latency_bound post_figure; do
      for variant in shipped capped; do
        limit 60 "build-regcap-$variant/pfmc" price "config/examples/$w.yaml" \
          --backend scalar_batched --prefetch-distance 8 --format json \
          > "$LOG/regcap_${w}_${variant}.json" 2> /dev/null
      done
      if python3 -c 'import json,sys; a,b=(json.load(open(f))["instruments"] for f in sys.argv[1:]); sys.exit(a!=b)' \
          "$LOG/regcap_${w}_shipped.json" "$LOG/regcap_${w}_capped.json"; then
        note "regcap $w: the capped build's prices are the shipped build's, bit for bit"
      else
        note "regcap $w: prices DIFFER between the builds (or a run failed)"
      fi
    done
    cat "$LOG"/regcap_*_[12].txt > "$LOG/regcap_tables.txt"
    keep regcap_spills.txt regcap_tables.txt
  fi
  note "regcap: $((SECONDS - start)) s"
fi

if has loaders-ab; then
  # Loaders on this tree against older or variant trees (issue 11), on one machine: AB_TREES as
  # in book-ab (default "old=build-oldsrc/src new=."), each built with the Black-Scholes kernels
  # only (float and double, every loader and distance; half the cores each), then timed in turn
  # with `pfmc bench` (median of 5, warm): latency_bound (LAB_BACKENDS at 1, 2, 4, 6, 8; two
  # rounds), post_figure (the post's loaders, every distance) and bandwidth_bound (LAB_BW_BACKENDS
  # at 4, 6, 8). Then, on the last tree: the SASS of latency_bound's wide kernels
  # (scripts/sass-loop.py: the step loop of each, and what it holds); the ncu-loaders stage
  # profiles the tree named `new`.
  start=$SECONDS
  lab_flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
             -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_KERNELS=all
             "-DPFMC_KERNEL_ENTRIES=black_scholes_f32;black_scholes_f64"
             -DPFMC_BUILD_TESTS=OFF -DPFMC_BUILD_BENCH=OFF -DPFMC_MPI=OFF -DPFMC_PYTHON=OFF
             -DPFMC_DEPS_ROOT="$PWD/.deps/root")
  read -r -a lab_trees <<< "${AB_TREES:-old=build-oldsrc/src new=.}"
  jobs=$(( $(nproc) / ${#lab_trees[@]} ))
  [ $jobs -ge 1 ] || jobs=1
  for pair in "${lab_trees[@]}"; do
    name=${pair%%=*}
    folder=${pair#*=}
    [ -d "$folder" ] || { note "loaders-ab: $name's folder $folder is missing"; continue; }
    (cmake -S "$folder" -B "build-device-lab-$name" "${lab_flags[@]}" \
       && limit ${PFMC_BUILD_SECONDS:-400} ninja -C "build-device-lab-$name" -j $jobs pfmc) \
      > "$LOG/lab_build_$name.log" 2>&1 &
  done
  wait
  note "loaders-ab builds in $((SECONDS - start)) s: $(for pair in "${lab_trees[@]}"; do echo -n "${pair%%=*}: $(tail -1 "$LOG/lab_build_${pair%%=*}.log" | cut -c1-40); "; done)"
  lab_backends=${LAB_BACKENDS:-ideal,none,scalar_batched,scalar_rolling,smem_batched_async,smem_rolling_async}
  : > "$LOG/lab_tables.txt"
  # lab_bench NAME LABEL WORKLOAD ARGS...: one tree's pfmc bench into the tables.
  lab_bench() {
    local name=$1 label=$2 w=$3
    shift 3
    limit 150 "build-device-lab-$name/pfmc" bench "config/examples/$w.yaml" --quiet --repeat 5 "$@" \
      > "$LOG/lab_${label}.txt" 2>&1
    note "loaders-ab $label: rc=$? $(grep -E 'ideal \(free draws\)' "$LOG/lab_${label}.txt" | cut -c1-160)"
    { echo "### $label ($name: $*)"; cat "$LOG/lab_${label}.txt"; } >> "$LOG/lab_tables.txt"
  }
  for round in 1 2; do
    for pair in "${lab_trees[@]}"; do
      name=${pair%%=*}
      [ -x "build-device-lab-$name/pfmc" ] || continue
      lab_bench "$name" "${name}_latency_bound_$round" latency_bound --backends "$lab_backends" \
        --distances 1,2,4,6,8
      [ $round = 1 ] || continue
      lab_bench "$name" "${name}_post_figure" post_figure --distances all --backends \
        "${LAB_POST_BACKENDS:-ideal,scalar_batched,smem_batched,scalar_rolling,smem_rolling,smem_rolling_async,smem_batched_async,smem_block_async}"
      lab_bench "$name" "${name}_bandwidth_bound" bandwidth_bound --distances 4,6,8 --backends \
        "${LAB_BW_BACKENDS:-none,scalar_batched,smem_batched_async,smem_rolling_async}"
    done
    keep lab_tables.txt
  done
  if [ "${LAB_SASS:-1}" = 1 ]; then # LAB_SASS=0: no SASS
    lib=build-device-lab-${lab_trees[-1]%%=*}/CMakeFiles/pfmc_kernels.dir/generated/kernels
    for module in common prefetch async; do
      cuobjdump -sass "$lib/instantiate_black_scholes_f64_$module.cu.o" 2>&1
    done > "$LOG/lab_sass_f64.txt"
    limit 60 python3 scripts/sass-loop.py "$LOG/lab_sass_f64.txt" --wide \
      --loaders IdealLoader:8 ScalarBatchedLoader:8 RegisterRingLoader:8 SmemBatchedAsyncLoader:8 \
      SmemRollingAsyncLoader:6 SmemRollingAsyncLoader:8 > "$LOG/lab_sass_loops.txt" 2>&1
    note "loaders-ab sass: $(grep -c '^== ' "$LOG/lab_sass_loops.txt") loops"
    keep lab_sass_loops.txt
  fi
  note "loaders-ab: $((SECONDS - start)) s"
fi

if has ncu-greeks && command -v ncu > /dev/null; then
  # Issue 37: where basket.yaml's pathwise Greeks spend the 4-asset model's kernel, first order
  # against all five (bench/NOTES.md v40: the five's 36.6 ms over the first order is not the
  # moved levels' arithmetic). The check set's pfmc (built here where missing), `inline`, 200,000
  # paths, the first launch of the 4-asset model of every tangent: ncu's stall reasons,
  # instructions, local-memory sectors and hit rates, then the kernel split by function
  # (scripts/ncu-split.py: the step loop against the payoff passes, each one's local accesses).
  start=$SECONDS
  [ -x build-device-check/pfmc ] || check_builds ncu-greeks "pfmc" none none none
  : > "$LOG/ng_ncu.txt"
  stalls=regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio
  for greeks in delta,vega,rho,theta delta,gamma,vega,rho,theta; do
    rep="$LOG/ng_$(echo "$greeks" | tr -cd 'a-z')"
    echo "######## ncu basket.yaml --greeks $greeks" >> "$LOG/ng_ncu.txt"
    limit 300 ncu --clock-control none --kernel-name-base demangled \
      -k "regex:path_kernel<.*PathwiseBlackScholes<double, .int.4" -c 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      --section SourceCounters --section MemoryWorkloadAnalysis_Tables --section LaunchStats \
      --metrics "smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,$stalls" \
      -f -o "$rep" ./build-device-check/pfmc price config/examples/basket.yaml --greeks "$greeks" \
      --greeks-method pathwise --backend inline --paths 200000 --quiet > "$rep.run.txt" 2>&1
    rc=$?
    [ -f "$rep.ncu-rep" ] || tail -30 "$rep.run.txt" >> "$LOG/ng_ncu.txt"
    ncu -i "$rep.ncu-rep" --print-details all >> "$LOG/ng_ncu.txt" 2>&1
    ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.source.csv" 2>&1
    { echo "---- by function"; python3 scripts/ncu-split.py "$rep.source.csv"; } >> "$LOG/ng_ncu.txt" 2>&1
    note "ncu-greeks $greeks: rc=$rc $(ncu -i "$rep.ncu-rep" --page details --csv 2>/dev/null | grep -E '"(Duration|smsp__inst_executed.sum|l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum|l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum)"' | awk -F'","' '{print $(NF-2)"="$NF}' | tr -d '"' | tr '\n' ' ')"
  done
  keep ng_ncu.txt
  note "ncu-greeks: $((SECONDS - start)) s"
fi

if has ncu-loaders && command -v ncu > /dev/null; then
  # Where latency_bound's wide kernels spend their cycles, loader by loader (LAB_NCU:
  # backend:distance pairs; `ideal` is the same loop with free draws): the Black-Scholes kernels
  # built alone (as loaders-ab's last tree, reused where built), then per kernel ncu's stall
  # reasons, instruction counts, local-memory traffic and cache hit rates, and its 30 hottest
  # SASS instructions by warp-stall samples (scripts/ncu-hot.py).
  start=$SECONDS
  nb=build-device-lab-new
  if [ ! -x $nb/pfmc ]; then
    cmake -S . -B $nb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_KERNELS=all "-DPFMC_KERNEL_ENTRIES=black_scholes_f32;black_scholes_f64" \
      -DPFMC_BUILD_TESTS=OFF -DPFMC_BUILD_BENCH=OFF -DPFMC_MPI=OFF -DPFMC_PYTHON=OFF \
      -DPFMC_DEPS_ROOT="$PWD/.deps/root" > "$LOG/nl_configure.log" 2>&1 \
      && limit ${PFMC_BUILD_SECONDS:-400} ninja -C $nb pfmc > "$LOG/nl_build.log" 2>&1
    note "ncu-loaders build: rc=$? in $((SECONDS - start)) s"
  fi
  : > "$LOG/nl_ncu.txt"
  stalls=regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio
  for pair in ${LAB_NCU:-ideal:8 scalar_batched:8 scalar_rolling:8 smem_rolling_async:8 none:0}; do
    backend=${pair%%:*}
    d=${pair#*:}
    case $backend in
      ideal) k="IdealLoader<double, .int.1, .int.$d>" ;;
      scalar_batched) k="ScalarBatchedLoader<double, .int.1, .int.$d>" ;;
      scalar_rolling) k="RegisterRingLoader<double, .int.1, .int.$d, [a-z:]*PlainLoad>" ;;
      smem_rolling_async) k="SmemRollingAsyncLoader<double, .int.1, .int.$d>" ;;
      smem_batched_async) k="SmemBatchedAsyncLoader<double, .int.1, .int.$d>" ;;
      none) k="NoneLoader<double, .int.1, .int.0>" ;;
      *) note "ncu-loaders: no kernel name known for '$backend' (LAB_NCU)"; continue ;;
    esac
    args=(--backends "$backend")
    [ "$d" != 0 ] && args+=(--distances "$d")
    [ $backend = none ] || args+=(--padding auto)
    rep="$LOG/nl_$backend$d"
    echo "######## ncu latency_bound $backend d$d ($k)" >> "$LOG/nl_ncu.txt"
    limit 150 ncu --clock-control none --kernel-name-base demangled -k "regex:$k.*.int.128>" -c 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
      --metrics "smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,$stalls" \
      -f -o "$rep" "$nb/pfmc" bench config/examples/latency_bound.yaml --quiet --repeat 1 \
      "${args[@]}" > "$LOG/nl_run_$backend$d.txt" 2>&1
    rc=$?
    [ -f "$rep.ncu-rep" ] || tail -30 "$LOG/nl_run_$backend$d.txt" >> "$LOG/nl_ncu.txt"
    ncu -i "$rep.ncu-rep" --print-details all >> "$LOG/nl_ncu.txt" 2>&1
    ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.source.csv" 2>&1
    { echo "---- hottest instructions"; python3 scripts/ncu-hot.py "$rep.source.csv" 30; } >> "$LOG/nl_ncu.txt" 2>&1
    note "ncu-loaders $pair: rc=$rc $(ncu -i "$rep.ncu-rep" --page details --csv 2>/dev/null | grep -E '"(Duration|smsp__inst_executed.sum)"' | awk -F'","' '{print $(NF-2)"="$NF}' | tr -d '"' | tr '\n' ' ')"
  done
  keep nl_ncu.txt
  note "ncu-loaders: $((SECONDS - start)) s"
fi

if has book-source; then
  # Where the book's `inline` kernel spends its instructions: ncu's executed-instruction count
  # per SASS line of the path kernel on 512 of the sample's options (one launch), and its warps'
  # stall reasons. BOOK_SOURCE_BUILD: the build folder whose pfmc runs (default $B; book-ab's
  # build-device-check works, its kernels include the book's). BOOK_SOURCE_MATH: the profiles
  # (default accurate; `accurate fast` both; the fast one runs the terminal kernel), with the
  # pipes' utilisation (ComputeWorkloadAnalysis). With .peers carried, NVIDIA's MonteCarloMultiGPU
  # kernel the same way (its own 8,192 options: one launch), for its instruction mix.
  start=$SECONDS
  # BOOK_SOURCE_OPTIONS: the book's options (default 512; 8,192 for the whole book, whose
  # terminal launch works through several blocks of paths a thread block).
  python3 scripts/make-mc-sample-book.py --options "${BOOK_SOURCE_OPTIONS:-512}" \
    --output "$LOG/book512.yaml"
  # Each pipe's share of its peak (instructions issued to it, and cycles it was busy): which
  # pipe, if any, holds the issue rate.
  PIPE_METRICS='regex:^sm__inst_executed_pipe_[a-z0-9_]+\.avg\.pct_of_peak_sustained_active$,regex:^sm__pipe_[a-z0-9_]+_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$'
  for math in ${BOOK_SOURCE_MATH:-accurate}; do
    sed "s/^simulation: {/simulation: {math: $math, /" "$LOG/book512.yaml" > "$LOG/book512_$math.yaml"
    "./${BOOK_SOURCE_BUILD:-$B}/pfmc" price "$LOG/book512_$math.yaml" --quiet --backend inline \
      > /dev/null 2>&1 # its kernel compiled on first use, outside the profile
    limit 180 ncu --clock-control none -k regex:path_kernel -c 1 --section SourceCounters \
      --section SpeedOfLight --section WarpStateStats --section Occupancy --section InstructionStats \
      --section ComputeWorkloadAnalysis --metrics "$PIPE_METRICS" \
      -f -o "$LOG/book512_$math" "./${BOOK_SOURCE_BUILD:-$B}/pfmc" price "$LOG/book512_$math.yaml" \
      --quiet --backend inline > "$LOG/book_source_$math.log" 2>&1
    ncu -i "$LOG/book512_$math.ncu-rep" --page details --print-details all \
      > "$LOG/book_stalls_$math.txt" 2>> "$LOG/book_source_$math.log"
    ncu -i "$LOG/book512_$math.ncu-rep" --page source --csv --print-source sass \
      > "$LOG/book_source_$math.csv" 2>> "$LOG/book_source_$math.log"
    ncu -i "$LOG/book512_$math.ncu-rep" --page raw --csv > "$LOG/book_raw_$math.csv" \
      2>> "$LOG/book_source_$math.log"
    note "book-source $math: $(grep -E 'Duration|Executed Instructions ' "$LOG/book_stalls_$math.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-200)"
  done
  sample=.peers/cuda-samples/Samples/5_Domain_Specific/MonteCarloMultiGPU
  if [ -d "$sample" ]; then
    mkdir -p "$LOG/mc_sample"
    "$NVCC" -O3 -std=c++17 -arch=sm_90 --extended-lambda -rdc=true -I.peers/cuda-samples/Common \
      -I"$sample" "$sample/MonteCarloMultiGPU.cpp" "$sample/MonteCarlo_kernel.cu" \
      "$sample/MonteCarlo_gold.cpp" "$sample/multithreading.cpp" -o "$LOG/mc_sample/mc" -lcurand \
      > "$LOG/book_source_sample.log" 2>&1
    (cd "$LOG/mc_sample" && limit 180 ncu --clock-control none -k regex:MonteCarloOneBlockPerOption \
      -c 1 --section SourceCounters --section SpeedOfLight --section WarpStateStats \
      --section InstructionStats --section ComputeWorkloadAnalysis --metrics "$PIPE_METRICS" \
      -f -o "$LOG/sample" ./mc) \
      >> "$LOG/book_source_sample.log" 2>&1
    ncu -i "$LOG/sample.ncu-rep" --page details --print-details all \
      > "$LOG/book_stalls_sample.txt" 2>> "$LOG/book_source_sample.log"
    ncu -i "$LOG/sample.ncu-rep" --page source --csv --print-source sass \
      > "$LOG/book_source_sample.csv" 2>> "$LOG/book_source_sample.log"
    ncu -i "$LOG/sample.ncu-rep" --page raw --csv > "$LOG/book_raw_sample.csv" \
      2>> "$LOG/book_source_sample.log"
    note "book-source sample: $(grep -E 'Duration|Executed Instructions ' "$LOG/book_stalls_sample.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-200)"
  fi
  (cd "$LOG" && tar czf book_source.tgz book_stalls_*.txt book_source_*.csv book_raw_*.csv book_source_*.log)
  keep book_source.tgz
  note "book-source: $(wc -c < "$LOG/book_source.tgz") bytes in $((SECONDS - start)) s"
fi

if has terminal-ab && [ -x build-device-check/pfmc_bench ]; then
  # Issue 36's terminal kernels (kernels/path_kernel.cuh, kTerminalRegisters): the
  # MonteCarloMultiGPU book (8,192 options × 262,144 paths, one step, float, `inline`) priced warm
  # by pfmc_bench's book_priced with them on and off ($PFMC_TERMINAL_KERNELS=0: the whole
  # kernel, as before), in turn, both math profiles; their prices bit for bit (and `none`'s);
  # ncu's instructions, issue rate and occupancy on 512 options; NVIDIA's sample in the same call.
  start=$SECONDS
  python3 scripts/make-mc-sample-book.py --output "$LOG/ab_book.yaml"
  for math in fast accurate; do
    sed "s/backend: auto/backend: inline/; s/^simulation: {/simulation: {math: $math, /" \
      "$LOG/ab_book.yaml" > "$LOG/ab_book_$math.yaml"
  done
  for round in 1 2; do
    for math in ${TERMINAL_MATH:-fast accurate}; do
      for on in 1 0; do
        PFMC_TERMINAL_KERNELS=$on limit 120 build-device-check/pfmc_bench --workloads= --end-to-end \
          --book="$LOG/ab_book_$math.yaml" --benchmark_filter=book_priced \
          --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
          > "$LOG/ab_bench_${math}_${on}_$round.txt" 2>&1
        note "terminal-ab $math terminal=$on round $round: $(grep -E 'book_priced.*median' "$LOG/ab_bench_${math}_${on}_$round.txt" | grep -oE 'manual_time_median +[0-9.]+ ms|kernel_ms=[0-9.]+|run_ms=[0-9.]+' | tr '\n' ' ')"
      done
    done
  done
  cat "$LOG"/ab_bench_*.txt > "$LOG/terminal_ab_bench.txt"
  keep terminal_ab_bench.txt
  for math in fast accurate; do
    for run in "1 inline" "0 inline" "1 none"; do
      set -- $run
      PFMC_TERMINAL_KERNELS=$1 limit 120 build-device-check/pfmc price "$LOG/ab_book_$math.yaml" \
        --backend $2 --format json --quiet > "$LOG/ab_${math}_$1_$2.json" 2> "$LOG/ab_${math}_$1_$2.err"
    done
    note "terminal-ab $math bits: $(same_prices "$LOG/ab_${math}_1_inline.json" \
      "terminal vs whole:$LOG/ab_${math}_0_inline.json" "terminal vs none:$LOG/ab_${math}_1_none.json")"
  done
  if command -v ncu > /dev/null; then
    python3 scripts/make-mc-sample-book.py --options 512 --output "$LOG/ab512.yaml"
    sed "s/^simulation: {/simulation: {math: fast, /" "$LOG/ab512.yaml" > "$LOG/ab512_fast.yaml"
    for on in 1 0; do
      PFMC_TERMINAL_KERNELS=$on build-device-check/pfmc price "$LOG/ab512_fast.yaml" --quiet \
        --backend inline > /dev/null 2>&1
      PFMC_TERMINAL_KERNELS=$on limit 150 ncu --clock-control none -k regex:path_kernel -c 1 --metrics \
        smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum,launch__occupancy_limit_registers \
        build-device-check/pfmc price "$LOG/ab512_fast.yaml" --quiet --backend inline \
        > "$LOG/ab_ncu_$on.txt" 2>&1
      note "terminal-ab ncu terminal=$on: $(grep -E 'inst_executed|issue_active|warps_active|registers|duration' "$LOG/ab_ncu_$on.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
    done
  fi
  if [ -d .peers ]; then
    OUT=$LOG PEERS_ONLY=mc limit 120 bash scripts/peers.sh > "$LOG/ab_peers.txt" 2>&1
    note "terminal-ab peers: $(grep -E 'MonteCarloMultiGPU run' "$LOG/ab_peers.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
  fi
  note "terminal-ab: $((SECONDS - start)) s"
fi

if has prebuilt-ab && [ -f build-carry/prebuilt-old.tar.xz ] && [ -x build-device-check/pfmc_bench ]; then
  # This tree's prebuilt binaries (build-device-check) against an older tree's, on one machine
  # with no build: build-carry/prebuilt-old.tar.xz is scripts/carry-build.sh's tarball of that
  # tree (kept aside before packing this one), unpacked into build-device-old with its own kernel
  # cache. The MonteCarloMultiGPU book, `inline`, each profile of PREBUILT_AB_MATH (default fast):
  # book_priced in turn (3 rounds, median of 5 from the loaded config), then both trees' prices
  # and standard errors bit for bit, and against this tree's `none`.
  start=$SECONDS
  mkdir -p build-device-old
  tar -C build-device-old -xJf build-carry/prebuilt-old.tar.xz
  # PREBUILT_AB_CONFIG: a config to time instead of the book (as it is; labelled `config`).
  python3 scripts/make-mc-sample-book.py --output "$LOG/pab_book.yaml"
  pab_dir() { [ "$1" = old ] && echo build-device-old || echo build-device-check; }
  pab_runs=${PREBUILT_AB_MATH:-fast}
  if [ -n "${PREBUILT_AB_CONFIG:-}" ]; then
    cp "$PREBUILT_AB_CONFIG" "$LOG/pab_book_config.yaml"
    pab_runs=config
  fi
  for math in $pab_runs; do
    [ "$math" = config ] || sed "s/backend: auto/backend: inline/; s/^simulation: {/simulation: {math: $math, /" \
      "$LOG/pab_book.yaml" > "$LOG/pab_book_$math.yaml"
    for round in 1 2 3; do
      # PREBUILT_AB_EXTRA: more runs of this tree, each NAME:VARIABLE=VALUE (say
      # cta1:PFMC_TERMINAL_BLOCKS_PER_CTA=1), timed in the same turns.
      for tree in old new ${PREBUILT_AB_EXTRA:-}; do
        dir=$(pab_dir ${tree%%:*})
        setting=(); [ "${tree#*:}" != "$tree" ] && setting=("${tree#*:}")
        tree=${tree%%:*}
        env "${setting[@]}" PFMC_KERNEL_CACHE="$PWD/$dir/kernel-cache" timeout --kill-after=10 120 \
          "$dir/pfmc_bench" --workloads= \
          --end-to-end --book="$LOG/pab_book_$math.yaml" --benchmark_filter=book_priced \
          --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
          > "$LOG/pab_${math}_${tree}_$round.txt" 2>&1
        note "prebuilt-ab $math $tree round $round: $(grep -E 'book_priced.*median' "$LOG/pab_${math}_${tree}_$round.txt" | grep -oE 'manual_time_median +[0-9.]+ ms|kernel_ms=[0-9.]+|run_ms=[0-9.]+' | tr '\n' ' ')"
      done
    done
    for run in "old inline" "new inline" "new none"; do
      set -- $run
      dir=$(pab_dir $1)
      PFMC_KERNEL_CACHE=$PWD/$dir/kernel-cache limit 120 "$dir/pfmc" price \
        "$LOG/pab_book_$math.yaml" --backend $2 --format json --quiet \
        > "$LOG/pab_${math}_$1_$2.json" 2> "$LOG/pab_${math}_$1_$2.err"
    done
    note "prebuilt-ab $math bits: $(same_prices "$LOG/pab_${math}_new_inline.json" \
      "new vs old:$LOG/pab_${math}_old_inline.json" "new inline vs new none:$LOG/pab_${math}_new_none.json")"
  done
  cat "$LOG"/pab_*_[0-9].txt > "$LOG/prebuilt_ab_bench.txt"
  keep prebuilt_ab_bench.txt
  note "prebuilt-ab: $((SECONDS - start)) s"
fi

if has final; then
  # A tree's closing check on one call: the check-set build (the rest compiled on first use) of
  # pfmc, pfmc_bench and test_gpu, and the tree before it (FINAL_OLD, default build-oldsrc/src)
  # built beside it; the whole GPU suite in 8 processes at once (gtest shards); a test that
  # fails run again on the tree before (whether it failed there too); compute-sanitizer on
  # pathwise Greeks and the fast profile's book; the fast book's kernels against NVIDIA's sample.
  start=$SECONDS
  [ -n "$prebuilt_ok" ] || check_builds final "pfmc pfmc_bench test_gpu" \
    "${FINAL_OLD:-build-oldsrc/src}" build-device-final-old test_gpu
  # The suite's kernels that the check build lacks, compiled first on every core
  # (tests/gpu_test_main.cpp): eight shards each compiling its own on first use were all still
  # compiling after 200 s (v29).
  t0=$SECONDS
  limit ${FINAL_WARM_SECONDS:-300} ./build-device-check/test_gpu --gtest_filter=-* \
    > "$LOG/final_warm.log" 2>&1
  note "final: kernel cache warmed: rc=$? $(grep -m1 'kernels not built in' "$LOG/final_warm.log") in $((SECONDS - t0)) s"
  sharded_tests final "${FINAL_TESTS:-*}" "${FINAL_TEST_SECONDS:-240}"
  if [ -n "$failed" ] && [ -x build-device-final-old/test_gpu ]; then
    PFMC_TEST_WARM=0 limit 120 ./build-device-final-old/test_gpu --gtest_brief=1 \
      --gtest_filter="${failed%:}" > "$LOG/final_old_tests.txt" 2>&1
    keep final_old_tests.txt
    note "final: the failed tests on the tree before: $(grep -hE '^\[  (PASSED|FAILED)  \]' "$LOG/final_old_tests.txt" | tr '\n' ' ' | cut -c1-300)"
  fi
  if command -v compute-sanitizer > /dev/null; then
    sed -E 's/^(simulation: \{[^}]*)\}/\1, greeks: [delta, vega, rho, theta], greeks_method: pathwise}/; s/paths: [0-9]+/paths: 20000/' \
      config/examples/basket.yaml > "$LOG/final_pw_small.yaml"
    python3 scripts/make-mc-sample-book.py --options 64 --paths 65536 --output "$LOG/final_book64.yaml"
    sed 's/^simulation: {/simulation: {math: fast, antithetic: true, /' "$LOG/final_book64.yaml" > "$LOG/final_book64_fast.yaml"
    clean=0; total=0
    for tool in memcheck racecheck synccheck; do
      for run in "final_pw_small inline" "final_book64_fast inline"; do
        set -- $run
        total=$((total + 1))
        limit 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build-device-check/pfmc price \
          "$LOG/$1.yaml" --backend $2 --quiet > "$LOG/final_san_${tool}_$1_$2.txt" 2>&1 && clean=$((clean + 1))
      done
    done
    note "final sanitizers: $clean of $total clean $(grep -h 'ERROR SUMMARY' "$LOG"/final_san_*.txt | sort | uniq -c | tr '\n' ' ')"
  fi
  python3 scripts/make-mc-sample-book.py --output "$LOG/final_book.yaml"
  sed 's/backend: auto/backend: inline/; s/^simulation: {/simulation: {math: fast, /' "$LOG/final_book.yaml" > "$LOG/final_book_fast.yaml"
  for round in ${FINAL_ROUNDS:-1 2}; do
    limit 120 build-device-check/pfmc_bench --workloads= --end-to-end --book="$LOG/final_book_fast.yaml" \
      --benchmark_filter=book_priced --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      > "$LOG/final_bench_$round.txt" 2>&1
    note "final fast book $round: $(grep -E 'book_priced.*median' "$LOG/final_bench_$round.txt" | grep -oE 'manual_time_median +[0-9.]+ ms|[a-z_]+_ms=[0-9.]+' | tr '\n' ' ')"
  done
  cat "$LOG"/final_bench_[0-9].txt > "$LOG/final_bench.txt"
  keep final_bench.txt
  if [ -d .peers ]; then
    OUT=$LOG PEERS_ONLY=mc limit 120 bash scripts/peers.sh > "$LOG/final_peers.txt" 2>&1
    note "final peers: $(grep -E 'MonteCarloMultiGPU run' "$LOG/final_peers.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
  fi
  note "final: $((SECONDS - start)) s"
fi

if has book-trace && [ -x build-device-check/pfmc_bench ]; then
  # Where book_priced's host time goes (issue 36): PFMC_TRACE's spans of the MonteCarloMultiGPU
  # book priced warm from its loaded config (fast profile, `inline`), summed by name over the
  # benchmark's runs and divided by the runs (`price` spans): ms a run.
  start=$SECONDS
  book=$LOG/fast_book_fast_inline.yaml
  [ -f "$book" ] || { python3 scripts/make-mc-sample-book.py --output "$LOG/trace_book.yaml";
    sed 's/backend: auto/backend: inline/; s/^simulation: {/simulation: {math: fast, /' \
      "$LOG/trace_book.yaml" > "$LOG/trace_book_fast.yaml"; book=$LOG/trace_book_fast.yaml; }
  PFMC_TRACE="$LOG/book_trace.json" limit 200 ./build-device-check/pfmc_bench --workloads= \
    --end-to-end --book="$book" --benchmark_filter=book_priced --benchmark_repetitions=3 \
    > "$LOG/book_trace_bench.txt" 2>&1
  python3 - "$LOG/book_trace.json" > "$LOG/book_trace.txt" 2>&1 <<'PY'
import json, sys, collections
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
runs = sum(1 for e in events if e.get("name") == "price") or 1
total, count = collections.Counter(), collections.Counter()
for e in events:
    total[e["name"]] += e.get("dur", 0.0) / 1000.0
    count[e["name"]] += 1
print("%d price runs; ms a run by span (summed over threads), count a run" % runs)
for name, ms in total.most_common(40):
    print("%10.2f ms  %8.1f  %s" % (ms / runs, count[name] / runs, name))
PY
  keep book_trace.txt book_trace_bench.txt
  note "book-trace: $(head -8 "$LOG/book_trace.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-500)"
fi

if has build-old; then
  # The build's cost on the tree before (BUILD_OLD, default build-oldsrc/src: `git archive` of
  # the parent, carried), with the device preset as the build stage's: CPU-seconds of compiles,
  # wall time, the size of pfmc. Run after `build`, alone on the machine.
  start=$SECONDS
  old=${BUILD_OLD:-build-oldsrc/src}
  (cd "$old" && cmake --preset device -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_MPI=OFF \
     -DPFMC_DEPS_ROOT="$OLDPWD/.deps/root" > "$LOG/configure_old.log" 2>&1 \
     && limit ${PFMC_BUILD_SECONDS:-540} cmake --build --preset device -j "$(nproc)" > "$LOG/build_old.log" 2>&1)
  rc=$?
  note "build-old ($old): rc=$rc in $((SECONDS - start)) s; pfmc $(stat -c %s "$old/build-device/pfmc" 2>/dev/null || echo '?') bytes; $(awk -F'\t' '!/^#/ {s += ($2 - $1) / 1000} END {printf "%.0f", s}' "$old/build-device/.ninja_log" 2>/dev/null) s of compiles"
fi

if has cli; then
  # The user-facing commands on the reference workloads: tuning time and choice, and the sweep
  # (table, CSV, plot) of the two kernel workloads.
  start=$SECONDS
  for w in latency_bound bandwidth_bound portfolio; do
    limit 60 python3 scripts/measure.py "./$B/pfmc" tune "config/examples/$w.yaml" \
      --quiet --tuning-cache "$LOG/tune_cache.json" > "$LOG/tune_$w.log" 2>&1
    note "tune $w: $(tail -2 "$LOG/tune_$w.log" | tr '\n' ' ')"
  done
  for w in latency_bound bandwidth_bound; do
    limit 90 "./$B/pfmc" bench "config/examples/$w.yaml" --quiet --repeat 5 --csv "$LOG/bench_$w.csv" \
      --plot "$LOG/plot_$w.png" > "$LOG/bench_cli_$w.txt" 2>&1
    note "bench $w: rc=$? $(grep -c . "$LOG/bench_$w.csv") rows"
  done
  python3 scripts/tuner-check.py latency_bound="$LOG/bench_latency_bound.csv:$LOG/tune_latency_bound.log" \
    bandwidth_bound="$LOG/bench_bandwidth_bound.csv:$LOG/tune_bandwidth_bound.log" | tee "$LOG/tuner_check.txt"
  # Host memory does not grow with paths: peak RSS of a run with 10x the paths.
  for p in 1000000 10000000; do
    limit 60 python3 scripts/measure.py "./$B/pfmc" price config/examples/bandwidth_bound.yaml --paths $p \
      --backend none --quiet --format json > "$LOG/rss_$p.json" 2> "$LOG/rss_$p.txt"
    note "paths $p: $(tail -1 "$LOG/rss_$p.txt")"
  done
  keep plot_latency_bound.png plot_bandwidth_bound.png bench_latency_bound.csv bench_bandwidth_bound.csv
  note "cli: $((SECONDS - start)) s"
fi

if has e2e; then
  # Config to results: the portfolio and NVIDIA's MonteCarloMultiGPU book in a warm process
  # (pfmc_bench, median of 5), then fresh processes of `pfmc price` (wall time, and the run's
  # own breakdown: device, kernel loading, kernels).
  start=$SECONDS
  python3 scripts/make-mc-sample-book.py --output "$LOG/mc_book.yaml"
  limit 300 "./$B/pfmc_bench" --workloads= --end-to-end --book="$LOG/mc_book.yaml" \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_out="$LOG/e2e.json" --benchmark_out_format=json > "$LOG/e2e.txt" 2>&1
  note "e2e warm: rc=$?"
  python3 scripts/bench-table.py "$LOG/e2e.json" | tee "$LOG/e2e_table.txt"
  for w in portfolio book; do
    file=config/examples/portfolio.yaml
    [ $w = book ] && file="$LOG/mc_book.yaml"
    for i in 1 2 3 4 5; do
      limit 60 python3 scripts/measure.py "./$B/pfmc" price "$file" --quiet --format json \
        --output "$LOG/fresh_${w}_$i.json" 2> "$LOG/fresh_${w}_$i.txt"
      note "fresh $w $i: $(tail -1 "$LOG/fresh_${w}_$i.txt") $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run"]; print("backend %s config %.1f ms, price %.1f ms (device %.1f, plan %.1f, kernel loading %.1f, kernels %.3f, generation %.3f), launches %d" % (r["backend"], r["config_ms"], r["total_ms"], r["device_ms"], r["plan_ms"], r["kernel_load_ms"], r["kernel_ms"], r["rng_ms"], r["kernel_launches"]))' "$LOG/fresh_${w}_$i.json" 2>&1)"
    done
  done
  keep e2e.json e2e_table.txt
  note "e2e: $((SECONDS - start)) s"
fi

if has jit; then
  # Compile on first use (issue 34): what is built in; a combination the binary lacks, first use
  # (NVRTC compile and load) and from the cache, fresh processes; the same instantiation's SASS
  # built in and compiled by NVRTC; every example config's prices with every kernel compiled on
  # first use against the built-in kernels'; the kernels' time built in and compiled.
  start=$SECONDS
  "./$B/pfmc" kernels > "$LOG/jit_kernels.txt" 2>&1
  note "jit: $(tail -2 "$LOG/jit_kernels.txt" | head -1 | tr -s ' ')"
  run_json() { # LABEL ARGS...: one fresh pfmc price, its compile and kernel figures
    local label=$1
    shift
    local t0=$(date +%s.%N)
    "./$B/pfmc" price "$@" --quiet --format json --output "$LOG/jit_run.json" 2>> "$LOG/jit_notices.txt"
    local rc=$? t1=$(date +%s.%N)
    note "jit: $label: rc=$rc wall $(python3 -c "print('%.3f' % ($t1 - $t0))") s; $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run"]; print("compiled %d (%.0f ms), from cache %d (%.1f ms), kernel %.3f ms, kernel_load %.1f ms, total %.1f ms" % (r["kernels_compiled"], r["compile_ms"], r["kernels_from_cache"], r["cache_load_ms"], r["kernel_ms"], r["kernel_load_ms"], r["total_ms"]))' "$LOG/jit_run.json" 2>&1 | tail -1)"
  }
  for combo in "heston.yaml --backend tma" "heston.yaml --backend smem_rolling_async --prefetch-distance 6" \
               "basket.yaml --backend l2_hint_256b --prefetch-distance 8"; do
    set -- $combo
    cfg=$1
    shift
    run_json "first use $cfg $*" "config/examples/$cfg" "$@"
    run_json "from the cache $cfg $*" "config/examples/$cfg" "$@"
  done
  # SASS: Black-Scholes float `none`, built in and compiled by NVRTC (PFMC_COMPILE_AT_RUNTIME).
  PFMC_COMPILE_AT_RUNTIME=1 "./$B/pfmc" price config/examples/post_figure.yaml --backend none \
    --precision float --paths 4096 --quiet --format json > /dev/null 2>> "$LOG/jit_notices.txt"
  python3 - "$PFMC_KERNEL_CACHE" "$LOG" <<'PY' > "$LOG/jit_sass.txt" 2>&1
import glob, subprocess, sys
cache, log = sys.argv[1], sys.argv[2]
for path in glob.glob(cache + "/*.cubin"):
    data = open(path, "rb").read()
    at = len(b"pfmc-kernel 1\n")
    end = data.index(b"\n", at); n = int(data[at:end]); key = data[end + 1:end + 1 + n].decode()
    if "BlackScholes<float>, pfmc::kernels::NoneLoader" not in key or "false, 0>" not in key:
        continue
    at = end + 1 + n
    end = data.index(b"\n", at); lowered = data[at:end].decode(); at = end + 1
    end = data.index(b"\n", at); size = int(data[at:end]); image = data[end + 1:end + 1 + size]
    open(log + "/jit_none.cubin", "wb").write(image)
    def sass(args):
        text = subprocess.run(["cuobjdump", "-sass"] + args, capture_output=True, text=True).stdout
        lines, keep = [], False
        for line in text.splitlines():
            if "Function : " in line:
                keep = lowered in line
                continue
            if keep and "/*" in line and ";" in line:
                lines.append(line.split("*/", 1)[1].split(";")[0].strip())
        return lines
    jit = sass([log + "/jit_none.cubin"])
    aot = sass(["-fun", lowered, "build-device/pfmc"])
    print("kernel", lowered)
    print("instructions: built in %d, NVRTC %d; identical: %s" % (len(aot), len(jit), aot == jit))
    if aot != jit:
        import difflib
        print("\n".join(list(difflib.unified_diff(aot, jit, lineterm=""))[:40]))
    break
else:
    print("no cached entry of the none kernel")
PY
  note "jit: SASS $(grep -m1 instructions "$LOG/jit_sass.txt")"
  # Every example config: the same bits with every kernel compiled on first use (`none`: the
  # tuner's choice would compile every candidate twice over).
  same=0 differ=0
  for cfg in config/examples/*.yaml; do
    a=$("./$B/pfmc" price "$cfg" --paths 20000 --backend none --quiet --format json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps([[i["id"], i["price"], i["std_error"]] for i in j["instruments"]]))' 2>&1)
    b=$(PFMC_COMPILE_AT_RUNTIME=1 "./$B/pfmc" price "$cfg" --paths 20000 --backend none --quiet --format json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps([[i["id"], i["price"], i["std_error"]] for i in j["instruments"]]))' 2>&1)
    if [ "$a" = "$b" ]; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFER $cfg" >> "$LOG/jit_sass.txt"; fi
  done
  note "jit: example configs built in vs compiled on first use: $same same, $differ differ"
  # A fresh `pfmc price` of the portfolio against a bare CUDA context (cudaFree(0)) on this
  # machine, alternated, medians of 7; then with eager module loading and --devices all.
  printf '#include <cuda_runtime.h>\nint main() { return cudaFree(0) == cudaSuccess ? 0 : 1; }\n' > "$LOG/bare.cu"
  "$NVCC" -O2 -o "$LOG/bare" "$LOG/bare.cu" > /dev/null 2>&1
  : > "$LOG/fresh_pairs.txt"
  for i in 1 2 3 4 5 6 7; do
    /usr/bin/time -f "bare %e" "$LOG/bare" 2>> "$LOG/fresh_pairs.txt"
    /usr/bin/time -f "pfmc %e" "./$B/pfmc" price config/examples/portfolio.yaml --quiet > /dev/null 2>> "$LOG/fresh_pairs.txt"
    CUDA_MODULE_LOADING=EAGER /usr/bin/time -f "eager %e" "./$B/pfmc" price config/examples/portfolio.yaml --quiet > /dev/null 2>> "$LOG/fresh_pairs.txt"
  done
  note "jit: fresh medians of 7 (s): $(for k in bare pfmc eager; do printf '%s %s; ' $k "$(grep "^$k " "$LOG/fresh_pairs.txt" | awk '{print $2}' | sort -n | sed -n 4p)"; done)"
  keep jit_sass.txt jit_kernels.txt jit_notices.txt
  note "jit: $((SECONDS - start)) s"
fi

if has fresh; then
  # Where a fresh `pfmc price` of the portfolio spends its wall time outside the run's own
  # phases (issue 9's ≤ 0.3 s): the process alone (`--version`: start, static initialisation —
  # the runtime's registration of every kernel module — and exit), the config without CUDA
  # (`validate`), the CUDA context and device query (`backends`), then the whole price; medians
  # of 7 fresh processes each; the dynamic linker's own count; perf where the machine has it.
  start=$SECONDS
  median_wall() { # COMMAND...: the median wall seconds of 7 runs
    for i in 1 2 3 4 5 6 7; do
      /usr/bin/time -f "%e" "$@" > /dev/null 2>> "$LOG/fresh_times.txt.tmp" || true
      tail -1 "$LOG/fresh_times.txt.tmp"
    done | sort -n | sed -n 4p
  }
  : > "$LOG/fresh_times.txt.tmp"
  note "fresh: binary $(du -h "./$B/pfmc" | cut -f1); --version $(median_wall "./$B/pfmc" --version) s; validate $(median_wall "./$B/pfmc" validate config/examples/portfolio.yaml) s; backends $(median_wall "./$B/pfmc" backends) s; price $(median_wall "./$B/pfmc" price config/examples/portfolio.yaml --quiet) s (medians of 7)"
  LD_DEBUG=statistics "./$B/pfmc" --version > /dev/null 2> "$LOG/fresh_ld.txt"
  note "fresh: dynamic linker $(grep -E 'total startup time|time needed for relocation|number of relocations:' "$LOG/fresh_ld.txt" | sed -E 's/^ *[0-9]+: *//' | tr -s ' ' | tr '\n' ';' | cut -c1-300)"
  if command -v perf > /dev/null; then
    perf stat -e task-clock,page-faults "./$B/pfmc" --version > /dev/null 2> "$LOG/fresh_perf.txt"
    note "fresh: perf --version $(grep -E 'task-clock|page-faults|elapsed' "$LOG/fresh_perf.txt" | tr -s ' ' | tr '\n' ';')"
  else
    note "fresh: no perf here"
  fi
  "./$B/pfmc" price config/examples/portfolio.yaml --quiet --format json --output "$LOG/fresh_price.json" 2> /dev/null
  note "fresh: the run's phases $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run"]; print(" ".join("%s %.1f" % (k, v) for k, v in r.items() if k.endswith("_ms") and isinstance(v, (int, float))))' "$LOG/fresh_price.json" 2>&1 | cut -c1-600)"
  note "fresh: $((SECONDS - start)) s"
fi

if has books; then
  # CSV books of 1k, 10k and 100k instruments (scripts/make-portfolio.py): load, plan, priced
  # and end to end in a warm process (pfmc_bench, median of 3), `pfmc validate` in a fresh
  # process (wall time, max RSS), and what pfmc.price() from Python costs over C++.
  start=$SECONDS
  list=""
  for n in 1000 10000 100000; do
    python3 scripts/make-portfolio.py --instruments $n --csv "$LOG/book$n.yaml"
    list="$list${list:+,}$LOG/book$n.yaml"
    limit 60 python3 scripts/measure.py "./$B/pfmc" validate "$LOG/book$n.yaml" > /dev/null 2> "$LOG/validate_$n.txt"
    note "validate $n: $(tail -1 "$LOG/validate_$n.txt")"
  done
  limit 400 "./$B/pfmc_bench" --workloads= --books="$list" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_out="$LOG/books.json" \
    --benchmark_out_format=json > "$LOG/books.txt" 2>&1
  note "books: rc=$?"
  grep -E "median" "$LOG/books.txt" | tee -a "$OUT/summary.txt"
  if [ -d "$B/python/pfmc" ]; then
    for n in 1000 100000; do
      PYTHONPATH="$B/python" limit 300 python3 scripts/python-overhead.py "./$B/pfmc_bench" \
        "$LOG/book$n.yaml" --repeat 3 --rounds 3 > "$LOG/python_$n.txt" 2>&1
      note "python $n: $(tail -5 "$LOG/python_$n.txt" | tr -s ' \n' ' ')"
    done
  else
    note "python: not built here ($(python3 --version 2>&1); no headers or pybind11)"
  fi
  keep books.json
  note "books: $((SECONDS - start)) s"
fi

if has pyoverhead && [ -d "$B/python/pfmc" ]; then
  # What pfmc.price() costs over C++ (scripts/python-overhead.py) on the 1k and 100k CSV books.
  for n in 1000 100000; do
    python3 scripts/make-portfolio.py --instruments $n --csv "$LOG/book$n.yaml"
    PYTHONPATH="$B/python" limit 300 python3 scripts/python-overhead.py "./$B/pfmc_bench" \
      "$LOG/book$n.yaml" --repeat ${PFMC_PY_REPEAT:-3} --rounds ${PFMC_PY_ROUNDS:-3} > "$LOG/python_$n.txt" 2>&1
    note "python $n: $(tail -5 "$LOG/python_$n.txt" | tr -s ' \n' ' ')"
  done
fi

if has pybuild; then
  # The Python module alone, over the check set of kernels (black_scholes_f32's loaders and one
  # kernel per model kind; PFMC_KERNELS=check) and unstripped: minutes instead of the whole
  # build's eight, for the crash hunts below (pysegv-gdb).
  start=$SECONDS
  cmake -S . -B build-device-check -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DPFMC_KERNELS=check -DPFMC_LAUNCH_CHECK_SET=ON -DPFMC_MPI=OFF -DCMAKE_STRIP=/bin/true \
    > "$LOG/pybuild_configure.log" 2>&1 \
    && limit ${PFMC_BUILD_SECONDS:-400} ninja -C build-device-check _pfmc > "$LOG/pybuild.log" 2>&1
  note "pybuild: rc=$? in $((SECONDS - start)) s $(tail -1 "$LOG/pybuild.log" | cut -c1-120)"
fi

if has pysegv-gdb; then
  # A GPU run after `import numpy` returns from the engine with a callee-saved register changed
  # (bench/NOTES.md v18). Which library of numpy's brings it on (each loaded alone through
  # ctypes), which symbols bind across (LD_DEBUG), who writes the register's saved slot (gdb,
  # carried in .deps/gdb: scripts/carry-deps.sh --gdb; scripts/gdb-watch-saved.py), and what
  # compute-sanitizer says of the GPU's accesses.
  PB=build-device-check
  [ -d "$PB/python/pfmc" ] || PB=$B
  cat > "$LOG/repro.py" <<'PY'
import os, sys
for lib in filter(None, os.environ.get("PRELOAD_LIBS", "").split(":")):
    import ctypes
    ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL if os.environ.get("PRELOAD_GLOBAL") else 0)
if os.environ.get("IMPORT_NUMPY"):
    import numpy
import pfmc
SMALL = {"market": {"underlyings": [{"name": "S", "spot": 100}], "rates": {"zero_rate": 0.05}},
         "models": [{"name": "bs", "type": "black_scholes", "underlying": "S", "volatility": 0.2}],
         "instruments": [{"id": "c", "type": "european", "option": "call", "strike": 100,
                          "maturity": 1.0, "model": "bs"}],
         "simulation": {"paths": 20000, "seed": 7, "precision": "float"}}
r = pfmc.price(SMALL, device="gpu", backend=os.environ.get("BACKEND", "auto"))
print("price ok", r.instruments[0]["price"])
PY
  run_repro() { # NAME [ENV=VALUE...]
    local name=$1
    shift
    (cd "$LOG" && env "$@" PYTHONPATH="$OLDPWD/$PB/python" timeout --kill-after=10 120 python3 repro.py) \
      > "$LOG/gdbx_$name.txt" 2>&1
    note "repro $name: rc=$? $(grep -m1 -E 'price ok|Error|error' "$LOG/gdbx_$name.txt" | cut -c1-160)"
  }
  # How the module takes the C++ library: a second copy of libstdc++ in a process that loads the
  # shared one (numpy does) shares its GNU-unique locale ids and mixes up facets.
  module=$(ls "$PB"/python/pfmc/_pfmc*.so)
  {
    echo "== compiler: $(c++ --version | head -1); $(readlink -f "$(command -v c++)")"
    echo "== needed:"; readelf -d "$module" | grep NEEDED
    echo "== defined std::locale / ostream insert / codecvt symbols (all, dynamic):"
    nm --defined-only "$module" 2>/dev/null | grep -c -E '_ZNSt6locale|_ZNSo9_M_insert|codecvt'
    nm -D --defined-only "$module" | grep -c -E '_ZNSt6locale|_ZNSo9_M_insert|codecvt'
    echo "== unique symbols: $(readelf -sW --dyn-syms "$module" | grep -c UNIQUE)"
    readelf -sW --dyn-syms "$module" | grep UNIQUE | head -8
    echo "== libstdc++ candidates:"; c++ -print-file-name=libstdc++.so; c++ -print-file-name=libstdc++.a
    ls -la "$(c++ -print-file-name=libstdc++.so)" /usr/lib/x86_64-linux-gnu/libstdc++.so* 2>&1
    echo "== the module's link:"; ninja -C "$PB" -t commands _pfmc | tail -1 | tr ' ' '\n' | grep -E 'static|stdc|\.a$|^-l|-Wl' | head -30
    echo "== libraries of a numpy process:"
    python3 -c "import numpy; print(''.join(sorted({l.split()[-1] + chr(10) for l in open('/proc/self/maps') if 'stdc++' in l or 'gcc_s' in l})))"
  } > "$LOG/gdbx_link.txt" 2>&1
  cat "$LOG/gdbx_link.txt"
  note "hmm: $(nvidia-smi -q | grep -i -m2 -E 'addressing|hmm' | tr -s ' ' | tr '\n' ';') kernel $(uname -r)"
  run_repro plain
  run_repro numpy IMPORT_NUMPY=1
  run_repro numpy_none IMPORT_NUMPY=1 BACKEND=none
  run_repro numpy_blocking IMPORT_NUMPY=1 CUDA_LAUNCH_BLOCKING=1
  nplibs=$(python3 -c "import numpy, os; d = os.path.join(os.path.dirname(numpy.__file__), '..', 'numpy.libs'); print(' '.join(sorted(os.path.realpath(os.path.join(d, f)) for f in os.listdir(d))))" 2>/dev/null)
  for lib in $nplibs; do
    run_repro "lib_$(basename "$lib" | cut -d- -f1)" PRELOAD_LIBS="$lib"
    run_repro "global_$(basename "$lib" | cut -d- -f1)" PRELOAD_LIBS="$lib" PRELOAD_GLOBAL=1
  done
  # Symbols bound across: from our module or CUDA's libraries into numpy's, or the reverse.
  (cd "$LOG" && IMPORT_NUMPY=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$LOG/bindings" PYTHONPATH="$OLDPWD/$PB/python" \
    timeout 120 python3 repro.py > /dev/null 2>&1)
  cat "$LOG"/bindings.* 2>/dev/null | grep -E 'binding file' \
    | grep -E '(_pfmc|libcuda|libcudart|libcurand).*to .*numpy\.libs|numpy\.libs.*to .*(_pfmc|libcuda|libcudart|libcurand|libstdc|libgcc)' \
    | sed -E 's/^ *[0-9]+: *//' | sort | uniq -c | sort -rn | head -20 > "$LOG/gdbx_bindings.txt"
  note "bindings across: $(wc -l < "$LOG/gdbx_bindings.txt") kinds; $(head -3 "$LOG/gdbx_bindings.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
  # gdb: the saved slot of r12 in engine::price, watched.
  if [ -x .deps/gdb/usr/bin/gdb ]; then
    G=$PWD/.deps/gdb
    (cd "$LOG" && IMPORT_NUMPY=1 PYTHONPATH="$OLDPWD/$PB/python" PYTHONHOME=$G/usr WATCH_UNSET=PYTHONHOME \
      timeout --kill-after=10 240 /lib64/ld-linux-x86-64.so.2 --library-path $G/usr/lib/x86_64-linux-gnu \
      $G/usr/bin/gdb --data-directory=$G/usr/share/gdb -batch -x "$OLDPWD/scripts/gdb-watch-saved.py" --args "$(command -v python3)" repro.py) \
      > "$LOG/gdbx_gdb.txt" 2>&1
    note "gdb: rc=$? $(grep -E '^\[watch\] (returned|fault|write [0-9]+ to the slot: 0x[0-9a-f]{1,4} )' "$LOG/gdbx_gdb.txt" | head -4 | tr '\n' ';' | cut -c1-600)"
    grep -E '^\[watch\]|^#[0-9]' "$LOG/gdbx_gdb.txt" | cut -c1-240 | head -80
  fi
  (cd "$LOG" && IMPORT_NUMPY=1 PYTHONPATH="$OLDPWD/$PB/python" timeout --kill-after=10 240 \
    compute-sanitizer --tool memcheck --print-limit 20 python3 repro.py) > "$LOG/gdbx_memcheck.txt" 2>&1
  note "memcheck: rc=$? $(grep -m3 -E 'ERROR SUMMARY|Invalid|price ok' "$LOG/gdbx_memcheck.txt" | tr '\n' ';' | cut -c1-300)"
  grep -E 'Invalid|at 0x|by thread|Address' "$LOG/gdbx_memcheck.txt" | head -20
  keep gdbx_gdb.txt gdbx_memcheck.txt gdbx_bindings.txt gdbx_link.txt
fi

if has pysegv && [ -d "$B/python/pfmc" ]; then
  # pfmc.bench() inside pytest's process ended in a segmentation fault on this machine (and not
  # in a plain python3): the same call in-process under variants of pytest, with a C backtrace
  # (scripts/segv-backtrace.c, preloaded; pytest's own faulthandler off where it is used).
  gcc -shared -fPIC -O1 -o "$LOG/segv.so" scripts/segv-backtrace.c
  cat > "$LOG/test_bench_inproc.py" <<'PY'
import sys
import pfmc
SMALL = {"market": {"underlyings": [{"name": "S", "spot": 100}], "rates": {"zero_rate": 0.05}},
         "models": [{"name": "bs", "type": "black_scholes", "underlying": "S", "volatility": 0.2}],
         "instruments": [{"id": "c", "type": "european", "option": "call", "strike": 100,
                          "maturity": 1.0, "model": "bs"}],
         "simulation": {"paths": 20000, "seed": 7}}
def test_bench_in_process():
    # What else this process holds: imported packages of note, CUDA libraries mapped.
    mods = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy", "jax", "cupy"))
    libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if ".so" in l and any(
        k in l for k in ("cuda", "curand", "cublas", "nvrtc", "torch", "nccl"))})
    print("modules:", len(mods), mods[:8], file=sys.stderr)
    print("libraries:", *libs, sep="\n  ", file=sys.stderr)
    rows = pfmc.bench(SMALL, backends=["none", "inline"], distances=[8], repeat=2)
    assert {r["backend"] for r in rows} == {"ideal", "inline", "none"}
PY
  python3 -c 'import sys, importlib.metadata as m; print(sys.executable, sys.version.split()[0]); print("pytest plugins:", sorted(e.name + "=" + e.value for e in m.entry_points(group="pytest11")))' > "$LOG/pysegv_env.txt" 2>&1
  note "pysegv env: $(tr '\n' ' ' < "$LOG/pysegv_env.txt" | tail -c 800)"
  variants=("pytest|-s" "pytest-noautoload|-s" "pytest-nofh|-p no:faulthandler -s")
  for v in "${variants[@]}"; do
    name=${v%%|*} flags=${v#*|}
    autoload=
    [ "$name" = pytest-noautoload ] && autoload=1
    # shellcheck disable=SC2086  # the flags are words
    PYTEST_DISABLE_PLUGIN_AUTOLOAD=$autoload SEGV_BACKTRACE_FILE="$LOG/segv_$name.txt" \
      LD_PRELOAD="$LOG/segv.so" PYTHONPATH="$B/python" \
      limit 120 python3 -m pytest -q -p no:cacheprovider $flags "$LOG/test_bench_inproc.py" \
      > "$LOG/pysegv_$name.txt" 2>&1
    note "pysegv $name: rc=$? $(grep -E '^(modules|  /)' "$LOG/pysegv_$name.txt" | tr '\n' ' ' | tail -c 900) $(tail -1 "$LOG/pysegv_$name.txt")"
  done
  (ulimit -s unlimited; SEGV_BACKTRACE_FILE="$LOG/segv_stack.txt" LD_PRELOAD="$LOG/segv.so" \
    PYTHONPATH="$B/python" limit 120 python3 -m pytest -q -p no:cacheprovider -p no:faulthandler \
    "$LOG/test_bench_inproc.py" > "$LOG/pysegv_stack.txt" 2>&1)
  note "pysegv unlimited stack: rc=$? $(tail -1 "$LOG/pysegv_stack.txt")"
  SEGV_BACKTRACE_FILE="$LOG/segv_plain.txt" LD_PRELOAD="$LOG/segv.so" PYTHONPATH="$B/python" \
    limit 120 python3 -c "import sys; sys.path.insert(0, '$LOG'); import test_bench_inproc as t; t.test_bench_in_process(); print('plain ok')" \
    > "$LOG/pysegv_plain.txt" 2>&1
  note "pysegv plain python3: rc=$? $(tr '\n' ' ' < "$LOG/pysegv_plain.txt" | tail -c 900)"
  for first in torch numpy; do
    PYTHONPATH="$B/python" limit 120 python3 -c "import sys; sys.path.insert(0, '$LOG'); import $first; import test_bench_inproc as t; t.test_bench_in_process(); print('after import $first: ok')" \
      > "$LOG/pysegv_$first.txt" 2>&1
    note "pysegv plain python3 after import $first: rc=$? $(tail -1 "$LOG/pysegv_$first.txt")"
  done
  # The frames in pfmc's module and libraries, as source lines.
  for f in "$LOG"/segv_*.txt; do
    [ -f "$f" ] || continue
    grep -E '^/.*\(\+0x[0-9a-f]+\)' "$f" | sed -E 's/^([^(]+)\(\+(0x[0-9a-f]+)\).*/\1 \2/' \
      | while read -r object offset; do
          echo "$(basename "$object") $offset $(addr2line -f -C -e "$object" "$offset" 2>/dev/null | tr '\n' ' ')"
        done > "$f.lines"
    cat "$f.lines" | head -40
  done
  cat "$LOG"/segv_*.txt.lines > "$LOG/segv_lines.txt" 2>/dev/null
  keep pysegv_env.txt pysegv_pytest.txt pysegv_pytest-noautoload.txt pysegv_torch.txt segv_lines.txt
fi

if has peers; then
  start=$SECONDS
  limit 400 scripts/peers.sh > "$LOG/peers.txt" 2>&1
  note "peers: rc=$? in $((SECONDS - start)) s"
  tail -15 "$LOG/peers.txt"
  keep peers.txt
fi

if has fsi; then
  # fsi-samples' product (a knocked-out arithmetic Asian, 8,192,000 paths x 365 steps, float):
  # pfmc bench (median of 5, warm) and the fsi kernel with its cuRAND generation, same GPU.
  start=$SECONDS
  limit 200 "./$B/pfmc" bench config/examples/fsi_asian_barrier.yaml \
    --backends none,scalar_batched,inline --distances 8,12 --repeat 5 > "$LOG/fsi_pfmc.txt" 2>&1
  note "fsi pfmc: rc=$? in $((SECONDS - start)) s"
  cat "$LOG/fsi_pfmc.txt"
  PEERS_ONLY=fsi limit 300 scripts/peers.sh > "$LOG/fsi_peer.txt" 2>&1
  note "fsi peer: rc=$? in $((SECONDS - start)) s; $(grep -E '^fsi [a-z0-9]+ +generation_ms' "$LOG/fsi_peer.txt" | tr '\n' ';')"
  tail -6 "$LOG/fsi_peer.txt"
  keep fsi_pfmc.txt fsi_peer.txt
fi

if has split; then
  # Split runs (issues 15, 35): the GpuSplit suite on this host's GPUs and, on a host of several,
  # as a host of 1 and of 2 (CUDA_VISIBLE_DEVICES); then the MPI turns on a shared GPU. The
  # scaling itself: the `scale` stage.
  start=$SECONDS
  gpus=$(nvidia-smi -L | grep -c '^GPU ')
  : > "$LOG/split_tests.txt"
  for visible in all 0 0,1; do
    [ "$visible" = all ] || [ "$gpus" -gt 1 ] || continue
    [ "$visible" = 0,1 ] && [ "$gpus" -lt 3 ] && continue
    if [ "$visible" = all ]; then v=(); else v=(env CUDA_VISIBLE_DEVICES=$visible); fi
    PFMC_TEST_WARM=0 limit 300 "${v[@]}" "./$B/test_gpu" --gtest_brief=1 --gtest_filter='GpuSplit*' \
      > "$LOG/split_tests_$visible.txt" 2>&1
    note "split tests (GPUs: $visible of $gpus): rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$LOG/split_tests_$visible.txt" | tr '\n' ' ')"
    grep -E "Failure|FAILED" -A6 "$LOG/split_tests_$visible.txt" | head -30
    cat "$LOG/split_tests_$visible.txt" >> "$LOG/split_tests.txt"
  done
  if grep -q 'PFMC_MPI:BOOL=ON' "$B/CMakeCache.txt"; then
    limit 300 tests/mpi_gpu_turns.sh "./$B/pfmc" "$(command -v mpirun)" . > "$LOG/mpi_turns.txt" 2>&1
    note "mpi turns: rc=$? $(tr '\n' ';' < "$LOG/mpi_turns.txt" | tail -c 600)"
  fi
  note "split: $((SECONDS - start)) s"
  keep split_tests.txt mpi_turns.txt
fi

if has scale; then
  # Issue 35: split runs over this host's GPUs, fresh processes and a warm one
  # (scripts/scale-check.py), with a host-clock trace of a fresh run at 1 and at all devices.
  # PFMC_SCALE_BUILD: another build folder (an older tree's, for a before/after in one call);
  # PFMC_SCALE_TAG names the logs; PFMC_SCALE_ARGS adds options (--no-warm, --repeat N).
  start=$SECONDS
  tag=${PFMC_SCALE_TAG:-new}
  limit ${PFMC_SCALE_SECONDS:-540} python3 scripts/scale-check.py --build "${PFMC_SCALE_BUILD:-$B}" \
    --trace "$LOG/trace_$tag" --json "$LOG/scale_$tag.json" ${PFMC_SCALE_ARGS:-} \
    ${PFMC_SCALE_WORKLOADS:-} > "$LOG/scale_$tag.txt" 2>&1
  note "scale-check ($tag): rc=$? in $((SECONDS - start)) s"
  cat "$LOG/scale_$tag.txt"
  [ -d "$LOG/trace_$tag" ] && tar -czf "$LOG/traces_$tag.tgz" -C "$LOG" "trace_$tag"
  keep "scale_$tag.txt" "scale_$tag.json" "traces_$tag.tgz"
fi

if has exercise; then
  # Early exercise (issue 12): config/examples/american.yaml warm in one process (the Python
  # package: medians of 5 after a warm-up), then ncu's speed of light of its kernels: the
  # regression pass's record launch and first reduction, and the pricing launch.
  start=$SECONDS
  if [ -d "$B/python/pfmc" ]; then
    PYTHONPATH="$B/python" limit 120 python3 scripts/exercise-bench.py --repeat 5 \
      > "$LOG/exercise.txt" 2>&1
    note "exercise: rc=$? $(tr '\n' ';' < "$LOG/exercise.txt")"
  else
    note "exercise: the Python package is not built here"
  fi
  # The path kernel's two launches (the regression's records, then the pricing) and the first
  # regression step.
  : > "$LOG/exercise_ncu.txt"
  for kernel in "path_kernel -c 2" "regression_step -c 1"; do
    set -- $kernel
    limit 180 ncu --clock-control none -k regex:$1 $2 $3 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis "./$B/pfmc" price config/examples/american.yaml \
      --quiet >> "$LOG/exercise_ncu.txt" 2>&1
  done
  note "exercise ncu: rc=$? $(grep -E 'path_kernel|regression_step|Compute \(SM\) Throughput|Memory Throughput|Duration' "$LOG/exercise_ncu.txt" | sed -E 's/ +/ /g' | cut -c1-90 | tr '\n' ';')"
  keep exercise.txt exercise_ncu.txt
  note "exercise: $((SECONDS - start)) s"
fi

if has ncu && [ -f "$LOG/bench.json" ]; then
  start=$SECONDS
  limit 120 scripts/ncu-compare.sh "$B" "$LOG" "$LOG/bench.json" | tee "$LOG/ncu_summary.txt"
  keep ncu_summary.txt
  note "ncu: $(grep -c '^ncu ' "$LOG/ncu_summary.txt") kernels profiled in $((SECONDS - start)) s"
fi

if has extra && [ -x scripts/gpu-extra.sh ]; then
  scripts/gpu-extra.sh "$B" "$OUT" 2>&1 | tee "$LOG/extra.log" | tail -40
fi

keep ptxas.txt ctest_failures.txt
echo
echo "==================== summary ===================="
printf '%s\n' "${summary[@]}"
