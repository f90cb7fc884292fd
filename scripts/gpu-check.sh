#!/usr/bin/env bash
# The GPU check, run on a machine with a CUDA GPU (e.g. through the device tool): the stages a
# maintainer runs, each a line or more of the summary that is printed last; logs go to $OUT (or
# /tmp/pfmc-gpu-check). `scripts/gpu-check.sh --help` lists the stages. Carry .deps/root
# (scripts/carry-deps.sh: Random123 and SLEEF, which the GPU machine lacks), for `peers` .peers
# (scripts/fetch-peers.sh), and for `prebuilt` build-carry/prebuilt.tar.xz (scripts/carry-build.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
usage() {
  cat <<'EOF'
usage: scripts/gpu-check.sh [STAGE ...]   (default: build test sanitize sass bench)
  prebuilt    unpack build-carry/prebuilt.tar.xz (scripts/carry-build.sh) into build-device-check
              and check that its binaries run here
  build       the device preset on every core (ptxas resource table, compile times; the limit
              is PFMC_BUILD_SECONDS, default 540)
  test        the kernel cache warmed (from build-carry/suite-cache.tar.xz when carried:
              scripts/carry-suite-cache.sh), test_gpu in PFMC_TEST_SHARDS gtest shards beside
              ctest's other suites (each cut at PFMC_TEST_SECONDS, default 330), the GPU faults
  exhaustive  the release tier: the model-list entries PFMC_EXHAUSTIVE_ENTRIES names
  sanitize    compute-sanitizer (memcheck, racecheck, synccheck) on small `pfmc price` runs
  sass        what the kernels' SASS holds (cp.async, bulk copies, prefetches, local memory)
  bench       pfmc_bench (PFMC_BENCH_ARGS, _FILTER, _REPETITIONS, _MIN_TIME, _SECONDS), its table
  e2e         config to results: pfmc_bench's end-to-end books, fresh `pfmc price` processes
  jit         kernels compiled on first use: time, cache, SASS and prices against built-in ones
  peers       the peer programs on the same GPU (scripts/peers.sh)
  split       the GpuSplit suite on 1, 2 and all of this host's GPUs; MPI turns on a shared GPU
  scale       split runs' scaling over this host's GPUs (scripts/scale-check.py)
Logs go to $OUT (default /tmp/pfmc-gpu-check), the summary last and in $OUT/summary.txt.
EOF
}
stages=${*:-build test sanitize sass bench}
# The stages are the usage's list: a name not in it (a stage since removed) stops the check.
for stage in $stages; do
  case $stage in -h | --help) usage; exit 0 ;; esac
  [[ " $(usage | awk '/^  [a-z]/ {print $1}' | tr '\n' ' ') " == *" $stage "* ]] \
    || { echo "gpu-check: no stage '$stage'" >&2; usage >&2; exit 2; }
done
OUT=${OUT:-/tmp/pfmc-gpu-check}
# Every log goes to LOG; only the files worth keeping are copied to OUT at the end (the device
# tool brings back at most 8 files).
LOG=${PFMC_LOG_DIR:-/tmp/pfmc-gpu-logs}
mkdir -p "$OUT" "$LOG"
: > "$OUT/summary.txt"
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
B=build-device

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  | tee "$LOG/gpu.txt"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
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
  # machine: unpacked into build-device-check and checked to run here (test_gpu lists its tests,
  # pfmc its kernels). The stages below use build-device, not these binaries.
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

if has peers; then
  start=$SECONDS
  limit 400 scripts/peers.sh > "$LOG/peers.txt" 2>&1
  note "peers: rc=$? in $((SECONDS - start)) s"
  tail -15 "$LOG/peers.txt"
  keep peers.txt
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


keep ptxas.txt ctest_failures.txt
echo
echo "==================== summary ===================="
printf '%s\n' "${summary[@]}"
