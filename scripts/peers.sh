#!/usr/bin/env bash
# Builds and times pfmc's peers on this GPU, so that they and pfmc are measured on the same
# device in the same session. Run from anywhere in the repository on the GPU machine (CUDA 13
# nvcc, an H100: sm_90; no network needed):
#   a) NVIDIA cuda-samples MonteCarloMultiGPU: 8,192 European calls × 262,144 paths, one step
#      to maturity (scripts/make-mc-sample-book.py writes the same book for pfmc). A one-shot
#      process that times its own run, so it is run 3 times. Its "Total time (ms.)" covers
#      copying the options in, the pricing kernel (its normals drawn in the kernel from cuRAND
#      XORWOW states) and copying the sums back; setting up the RNG states comes before it.
#   b) NVIDIA fsi-samples gQuant cuda_pricing.cu: an Asian barrier call, 8,192,000 paths × 365
#      steps in float, the normals drawn up front by cuRAND's host API. The shipped program
#      times only its kernel; the scratch copy is patched to time, with CUDA events, one
#      curandGenerateNormal call and one kernel launch, each after a warm-up call of its own
#      (the warm-up's figures are printed too: the first generation includes the generator's
#      setup). Built twice: with the shipped MTGP32 generator and with MRG32K3A.
# The sources come from .peers/ (git-ignored), filled by scripts/fetch-peers.sh on the
# development machine. Everything is built under a scratch folder in /tmp, never in the
# repository. Every step logs to $OUT/peers.log ($OUT unset: /tmp/peers.log); the summary
# table is printed last and appended to the log. Exit status: 0 when every peer built and ran.
# Settings: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), PEERS_ARCH (sm_90),
# PEERS_RUNS (3: runs of MonteCarloMultiGPU), PEERS_FSI_ARGS ("8192000 365": paths, steps),
# PEERS_ONLY ("mc fsi": which peers to build and run).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
peers=$PWD/.peers
carry_hint="run scripts/fetch-peers.sh on the development machine and carry .peers"
[ -d "$peers" ] || { echo "peers: .peers/ is missing in $PWD ($carry_hint)"; exit 1; }
monte_carlo=$peers/cuda-samples/Samples/5_Domain_Specific/MonteCarloMultiGPU
asian_barrier=$peers/fsi-samples/gQuant/plugins/gquant_plugin/notebooks/asian_barrier_option
for f in "$monte_carlo/MonteCarloMultiGPU.cpp" "$peers/cuda-samples/Common/helper_cuda.h" \
         "$asian_barrier/cuda_pricing.cu"; do
  [ -f "$f" ] || { echo "peers: ${f#"$PWD"/} is missing ($carry_hint)"; exit 1; }
done

log=${OUT:-/tmp}/peers.log
mkdir -p "$(dirname "$log")"
: > "$log"
work=$(mktemp -d /tmp/pfmc-peers.XXXXXX)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
arch=${PEERS_ARCH:-sm_90}
runs=${PEERS_RUNS:-3}
read -r -a fsi_args <<< "${PEERS_FSI_ARGS:-8192000 365}"
only=" ${PEERS_ONLY:-mc fsi} "
wanted() { [[ "$only" == *" $1 "* ]]; }
# The flags every peer is built with; each adds what its own build adds.
nvcc_flags=(-O3 -std=c++17 "-arch=$arch")
summary=()
failed=0

# say WORDS...: one line to the terminal and the log.
say() { echo "$*" | tee -a "$log"; }
# step WHAT COMMAND...: logs WHAT and the command, runs it with its output appended to the log
# and kept in $work/step.out for the caller to read figures from, and returns its status (a
# stall is stopped after 10 minutes).
step() {
  local what=$1
  shift
  say "== $what"
  echo "\$ $*" >> "$log"
  timeout --kill-after=10 600 "$@" 2>&1 | tee "$work/step.out" >> "$log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || say "!! $what failed (exit status $rc); see $log"
  return "$rc"
}
# row PEER RESULT: a line of the summary table.
row() { summary+=("$(printf '%-28s %s' "$1" "$2")"); }

say "peers: scratch $work, log $log, $("$NVCC" --version | tail -1)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  >> "$log" 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
cat "$peers"/*/SOURCE >> "$log"

# --- a) MonteCarloMultiGPU ----------------------------------------------------------------------
# The sources and flags of its CMakeLists.txt: --extended-lambda and separable compilation
# (-rdc=true) as it builds, -lineinfo left out (it changes no code).
monte_carlo_bin=$work/MonteCarloMultiGPU
if ! wanted mc; then
  say "MonteCarloMultiGPU: skipped (PEERS_ONLY=$only)"
elif step "build MonteCarloMultiGPU" "$NVCC" "${nvcc_flags[@]}" --extended-lambda -rdc=true \
     -I"$peers/cuda-samples/Common" -I"$monte_carlo" \
     "$monte_carlo/MonteCarloMultiGPU.cpp" "$monte_carlo/MonteCarlo_kernel.cu" \
     "$monte_carlo/MonteCarlo_gold.cpp" "$monte_carlo/multithreading.cpp" \
     -o "$monte_carlo_bin" -lcurand; then
  for run in $(seq "$runs"); do
    output=$work/MonteCarloMultiGPU.$run.txt
    # Run in the scratch folder: the sample writes nothing, but a peer has no business in ours.
    (cd "$work" && step "run MonteCarloMultiGPU ($run of $runs)" "$monte_carlo_bin") || failed=1
    cp "$work/step.out" "$output"
    total=$(grep -m1 '^Total time (ms.)' "$output")
    rate=$(grep -m1 '^Options per sec.' "$output")
    verdict=$(grep -m1 -E '^Test (passed|failed)' "$output")
    if [ -n "$total" ] && [ -n "$rate" ]; then
      say "$total; $rate; ${verdict:-no test verdict}"
      row "MonteCarloMultiGPU run $run" \
        "total_ms ${total##*: } options_per_s ${rate##*: } (${verdict:-no test verdict})"
    else
      failed=1
      say "!! MonteCarloMultiGPU run $run printed no Total time or Options per sec. line"
      row "MonteCarloMultiGPU run $run" "no figures (see the log)"
    fi
  done
else
  failed=1
  row "MonteCarloMultiGPU" "build failed"
fi

# --- b) fsi cuda_pricing.cu ---------------------------------------------------------------------
# The timing patch, as GNU sed commands on the shipped file's lines. Every inserted line ends
# with the marker "// peers.sh", so that counting the markers proves each anchor matched once.
# The events: 0-1 warm-up generation, 2-3 timed generation, 4-5 warm-up kernel, 6-7 timed
# kernel. PEERS_GENERATOR (the generator's name) comes from the compile line.
timing_patch=$work/fsi-timing.sed
cat > "$timing_patch" << 'EOF'
/^[[:space:]]*CHECKCURAND(curandGenerateNormal(curandGenerator, d_normals, N_NORMALS, 0.0f, 1.0f));$/{
i\
    cudaEvent_t peers_event[8]; // peers.sh\
    for (cudaEvent_t& event : peers_event) checkCudaErrors(cudaEventCreate(&event)); // peers.sh\
    checkCudaErrors(cudaEventRecord(peers_event[0])); // peers.sh\
    CHECKCURAND(curandGenerateNormal(curandGenerator, d_normals, N_NORMALS, 0.0f, 1.0f)); // peers.sh: warm-up\
    checkCudaErrors(cudaEventRecord(peers_event[1])); // peers.sh\
    checkCudaErrors(cudaDeviceSynchronize()); // peers.sh\
    checkCudaErrors(cudaEventRecord(peers_event[2])); // peers.sh
a\
    checkCudaErrors(cudaEventRecord(peers_event[3])); // peers.sh
}
/^[[:space:]]*barrier_option<<<GRID_SIZE, BLOCK_SIZE>>>(d_s, T, K, B, S0, sigma, mu, r, d_normals, N_STEPS, N_PATHS);$/{
i\
    checkCudaErrors(cudaEventRecord(peers_event[4])); // peers.sh\
    barrier_option<<<GRID_SIZE, BLOCK_SIZE>>>(d_s, T, K, B, S0, sigma, mu, r, d_normals, N_STEPS, N_PATHS); // peers.sh: warm-up\
    checkCudaErrors(cudaEventRecord(peers_event[5])); // peers.sh\
    checkCudaErrors(cudaDeviceSynchronize()); // peers.sh\
    checkCudaErrors(cudaEventRecord(peers_event[6])); // peers.sh
a\
    checkCudaErrors(cudaEventRecord(peers_event[7])); // peers.sh\
    checkCudaErrors(cudaGetLastError()); // peers.sh
}
/^[[:space:]]*gpu_sum = mySum\[0\] \/ N_PATHS;$/a\
    float peers_ms[4]; // peers.sh\
    for (int i = 0; i < 4; ++i) checkCudaErrors(cudaEventElapsedTime(&peers_ms[i], peers_event[2 * i], peers_event[2 * i + 1])); // peers.sh\
    printf("fsi %s warm-up generation_ms %.3f kernel_ms %.3f\\n", PEERS_GENERATOR, peers_ms[0], peers_ms[2]); // peers.sh\
    printf("fsi %s generation_ms %.3f kernel_ms %.3f total_ms %.3f price %.6f\\n", PEERS_GENERATOR, peers_ms[1], peers_ms[3], peers_ms[1] + peers_ms[3], gpu_sum); // peers.sh
EOF
expected_markers=$(grep -c '// peers.sh' "$timing_patch")

# fsi_variant NAME CURAND_RNG: patch, check, build and run one generator's copy. It builds
# against cuda-samples' Common/ helper_cuda.h, not the copy shipped beside cuda_pricing.cu: CUDA 13
# dropped cudaDeviceProp::computeMode and clockRate, which the old copy reads (in device-choice
# helpers the program never calls); checkCudaErrors is the same in both.
fsi_variant() {
  local name=$1 generator=$2
  local dir=$work/fsi-$name
  mkdir -p "$dir"
  cp "$asian_barrier/cuda_pricing.cu" "$dir/"
  sed -i -f "$timing_patch" -e "s/CURAND_RNG_PSEUDO_MTGP32/$generator/" "$dir/cuda_pricing.cu"
  local markers generators
  markers=$(grep -c '// peers.sh' "$dir/cuda_pricing.cu")
  generators=$(grep -c "curandCreateGenerator(&curandGenerator, $generator)" "$dir/cuda_pricing.cu")
  if [ "$markers" -ne "$expected_markers" ] || [ "$generators" -ne 1 ]; then
    say "!! fsi $name: the timing patch did not apply ($markers of $expected_markers lines" \
        "inserted, $generators generator lines naming $generator): has cuda_pricing.cu changed?"
    row "fsi $name" "patch did not apply"
    return 1
  fi
  say "fsi $name: patched ($markers lines inserted, generator $generator)"
  if ! step "build fsi $name" "$NVCC" "${nvcc_flags[@]}" -I"$peers/cuda-samples/Common" \
       "-DPEERS_GENERATOR=\"$name\"" \
       "$dir/cuda_pricing.cu" -o "$dir/cuda_pricing" -lcurand; then
    row "fsi $name" "build failed"
    return 1
  fi
  local rc=0
  (cd "$dir" && step "run fsi $name ${fsi_args[*]}" ./cuda_pricing "${fsi_args[@]}") || rc=1
  local figures warm_up
  figures=$(grep -m1 "^fsi $name generation_ms" "$work/step.out")
  warm_up=$(grep -m1 "^fsi $name warm-up" "$work/step.out")
  if [ -z "$figures" ]; then
    say "!! fsi $name printed no figures line"
    row "fsi $name" "no figures (see the log)"
    return 1
  fi
  say "$figures"
  say "${warm_up:-fsi $name: no warm-up line}"
  row "fsi $name" "${figures#"fsi $name "}"
  row "fsi $name (warm-up)" "${warm_up#"fsi $name warm-up "}"
  return $rc
}
if wanted fsi; then
  fsi_variant mtgp32 CURAND_RNG_PSEUDO_MTGP32 || failed=1
  fsi_variant mrg32k3a CURAND_RNG_PSEUDO_MRG32K3A || failed=1
else
  say "fsi: skipped (PEERS_ONLY=$only)"
fi

{
  echo
  echo "peers on ${gpu:-an unnamed GPU} (${arch}; fsi: ${fsi_args[*]} paths and steps)"
  printf '%s\n' "${summary[@]}"
} | tee -a "$log"
exit $failed
