#!/usr/bin/env bash
# A short dieharder battery on the Fast profile's generator, Philox4x32-7 in pfmc's counter
# layout (tests/philox_stream.cpp), and the same battery on 2 rounds, which must fail it: the
# proof that the battery can fail. The full `dieharder -a` run is in docs/decisions.md#fast-math.
#
# The battery (about 20 s per generator on a 2-core CI machine, timed test by test): diehard
# birthdays, 32x32 and 6x8 binary rank, bitstream, count-the-1s (stream), 2d minimum distance,
# runs; STS monobit and runs; RGB lagged sum; DAB DCT. Rank 32x32 and STS runs take 20 of
# their default 100 p-samples (18 s and 10 s at 100). Every test of it fails on 1 or 2 rounds.
#
# Verdicts: a stream is a fixed function of its seed, so a verdict is reproducible, not a coin
# toss per run. FAILED fails the test. WEAK (a p-value outside [0.005, 0.995]: dieharder's docs
# say it turns up by chance about once in a hundred p-values) re-runs that test on another seed,
# and fails only if the re-run is WEAK or FAILED again (about 1e-4 by chance).
# Usage: tests/dieharder_battery.sh PFMC_PHILOX_STREAM    (exit 77: dieharder is not installed)
set -uo pipefail
stream=$1
if ! command -v dieharder >/dev/null; then
  echo "dieharder battery: skipped (dieharder is not installed: scripts/install-deps.sh)"
  exit 77
fi
battery=("-d 0" "-d 2 -p 20" "-d 3" "-d 4" "-d 8" "-d 11" "-d 15" "-d 100" "-d 101 -p 20"
         "-d 203" "-d 206")
fast_rounds=7 control_rounds=2 seed=42 retry_seed=4242

# run_test ROUNDS SEED "DIEHARDER ARGS": prints the test's result lines (name|ntup|tsamples|
# psamples|p-value|assessment) and the worst assessment last: PASSED, WEAK or FAILED.
run_test() {
  local results
  # shellcheck disable=SC2086 # the test's arguments split on purpose
  results=$("$stream" --rounds "$1" --seed "$2" | dieharder -g 200 $3 |
    awk -F'|' 'NF == 6 && $6 ~ /PASSED|WEAK|FAILED/')
  [ -n "$results" ] || { echo "no result from dieharder -g 200 $3"; echo FAILED; return; }
  echo "$results"
  if grep -q FAILED <<<"$results"; then echo FAILED
  elif grep -q WEAK <<<"$results"; then echo WEAK
  else echo PASSED; fi
}

# run_battery ROUNDS: runs every test; sets `verdicts` (one per test, after a WEAK's re-run).
run_battery() {
  verdicts=()
  local args output verdict
  for args in "${battery[@]}"; do
    output=$(run_test "$1" "$seed" "$args")
    verdict=${output##*$'\n'}
    sed '$d' <<<"$output" | sed "s/^/  [rounds $1, seed $seed] /"
    if [ "$verdict" = WEAK ]; then
      output=$(run_test "$1" "$retry_seed" "$args")
      verdict=${output##*$'\n'}
      [ "$verdict" = PASSED ] || verdict=FAILED
      sed '$d' <<<"$output" | sed "s/^/  [rounds $1, seed $retry_seed, re-run] /"
    fi
    verdicts+=("$verdict")
  done
}

count() { local n=0 v; for v in "${verdicts[@]}"; do [ "$v" = "$1" ] && n=$((n + 1)); done; echo $n; }

start=$SECONDS
run_battery $fast_rounds
fast_failed=$(count FAILED)
echo "Philox4x32-$fast_rounds: $(count PASSED) of ${#battery[@]} tests passed, $fast_failed failed"
run_battery $control_rounds
control_failed=$(count FAILED)
echo "Philox4x32-$control_rounds (control): $control_failed of ${#battery[@]} tests failed"
echo "dieharder battery: $((SECONDS - start)) s"
status=0
if [ "$fast_failed" -ne 0 ]; then
  echo "FAIL: Philox4x32-$fast_rounds failed $fast_failed test(s) of the battery"
  status=1
fi
if [ "$control_failed" -eq 0 ]; then
  echo "FAIL: the battery passed Philox4x32-$control_rounds: it cannot tell a weak generator"
  status=1
fi
exit $status
