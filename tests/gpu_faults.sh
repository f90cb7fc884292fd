#!/usr/bin/env bash
# The GPU fault suite (issue 14), on a machine with a GPU (exit 77 = skipped without one):
#   - engine.max_device_memory above the card's memory,
#   - an allocation that fails mid-run and a path-kernel launch that fails (PFMC_INJECT_FAULT,
#     kernels/fault_injection.hpp: the runtime's own errors, provoked),
#   - a second process holding all but 1 GiB of the memory, then all but ~64 MiB,
#   - SIGINT and SIGTERM during a GPU run,
#   - 8 `pfmc price` processes on the GPU at once.
# A failure must be one line on stderr, exit 1 (130/143 for the signals), no output file; a run
# that succeeds must give the bits of the same run alone.
# Usage: tests/gpu_faults.sh PFMC HOG SOURCE_DIR
set -uo pipefail
pfmc=$1 hog=$2 source=$3
# The whole listing, then its first line: `| head -1` closed the pipe early, and pfmc's failed
# write (exit 1, under pipefail) once made a machine without a GPU look like one.
listing=$("$pfmc" backends 2>&1)
if [[ "${listing%%$'\n'*}" == "device: none"* ]]; then
  echo "gpu faults: skipped (no GPU: ${listing%%$'\n'*})"
  exit 77
fi
work=$(mktemp -d)
hog_pid=
trap '[ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null; rm -rf "$work"' EXIT
config="$source/config/examples/portfolio.yaml"
flags=(--device gpu --paths 200000 --format json --quiet)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

same_prices() { # same_prices A.json B.json: the instruments' prices and errors, bit for bit
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(i["id"], i["price"], i["std_error"]) for i in r["instruments"]]
sys.exit(0 if key(a) == key(b) else 1)
PY
}

# expect_failure NAME STATUS PATTERN COMMAND...: exit STATUS, one stderr line matching PATTERN,
# no output file.
expect_failure() {
  local name=$1 status=$2 pattern=$3
  shift 3
  rm -f "$work/out.json"
  "$@" --output "$work/out.json" > "$work/stdout" 2> "$work/stderr"
  local rc=$? lines
  lines=$(grep -c . "$work/stderr")
  if [ $rc -ne "$status" ] || [ "$lines" -ne 1 ] || ! grep -Eq "$pattern" "$work/stderr" ||
     [ -e "$work/out.json" ] || ls "$work"/.out.json* > /dev/null 2>&1; then
    fail "$name: exit $rc, $lines stderr line(s), output $([ -e "$work/out.json" ] && echo written || echo absent)"
    sed 's/^/    /' "$work/stderr" | head -5
  else
    echo "ok: $name: exit $rc: $(cat "$work/stderr")"
  fi
}

"$pfmc" price "$config" "${flags[@]}" --output "$work/alone.json" 2> "$work/alone.err" \
  || { cat "$work/alone.err"; echo "FAIL: the run alone failed"; exit 1; }
echo "ok: alone: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['run']; print(r['backend'] if 'backend' in r else '', r.get('kernel_ms'), 'ms of kernels')" "$work/alone.json" 2>/dev/null)"

expect_failure "max_device_memory above the card" 1 "engine.max_device_memory: .* is more than GPU 0" \
  "$pfmc" price "$config" "${flags[@]}" --max-device-memory 1024GiB

# Allocations: the first, and later ones (after launches have run); an N past the run's last
# allocation lets the run finish, with the bits of the run alone.
failed_late=0
for n in 1 2 4 8 16 32; do
  rm -f "$work/out.json"
  PFMC_INJECT_FAULT=alloc:$n "$pfmc" price "$config" "${flags[@]}" --output "$work/out.json" \
    > /dev/null 2> "$work/stderr"
  rc=$?
  if [ $rc -eq 0 ]; then
    same_prices "$work/alone.json" "$work/out.json" && echo "ok: alloc:$n: past the run's allocations, same bits" \
      || fail "alloc:$n: finished with other prices"
  elif [ $rc -eq 1 ] && [ "$(grep -c . "$work/stderr")" -eq 1 ] &&
       grep -q "out of GPU memory: .* could not be allocated on GPU 0" "$work/stderr" && [ ! -e "$work/out.json" ]; then
    echo "ok: alloc:$n: exit 1: $(cat "$work/stderr")"
    [ $n -gt 1 ] && failed_late=1
  else
    fail "alloc:$n: exit $rc"; sed 's/^/    /' "$work/stderr" | head -5
  fi
done
[ $failed_late -eq 1 ] || fail "no allocation after the first one failed: the run has too few"

# With no tuning cache, `auto` first probes its default (a warm-up and a timed launch), so the
# first launch is the probe's and the third the run's own; with the probe cached (the run before
# saved it), the first launch is the run's.
expect_failure "the first path-kernel launch fails (auto's probe)" 1 \
  "path kernel's launch failed .*cudaError" \
  env PFMC_INJECT_FAULT=launch:1 "$pfmc" price "$config" "${flags[@]}" \
  --tuning-cache "$work/no_cache_1.json"
expect_failure "the third path-kernel launch fails (the run's, after the probe)" 1 \
  "path kernel's launch failed .*cudaError" \
  env PFMC_INJECT_FAULT=launch:3 "$pfmc" price "$config" "${flags[@]}" \
  --tuning-cache "$work/no_cache_3.json"
"$pfmc" price "$config" "${flags[@]}" --tuning-cache "$work/probed.json" \
  --output "$work/probed_run.json" 2> /dev/null
expect_failure "the first path-kernel launch fails (the run's, the probe cached)" 1 \
  "path kernel's launch failed .*cudaError" \
  env PFMC_INJECT_FAULT=launch:1 "$pfmc" price "$config" "${flags[@]}" \
  --tuning-cache "$work/probed.json"

# A second process holds the memory.
for leave in 1024 64; do
  "$hog" "$leave" 120 > "$work/hog.out" 2> "$work/hog.err" &
  hog_pid=$!
  for _ in $(seq 100); do grep -q holding "$work/hog.out" && break; sleep 0.2; done
  if ! grep -q holding "$work/hog.out"; then
    fail "hog leaving $leave MiB did not start: $(cat "$work/hog.err")"
  else
    echo "hog: $(cat "$work/hog.out")"
    rm -f "$work/out.json"
    "$pfmc" price "$config" "${flags[@]}" --output "$work/out.json" > /dev/null 2> "$work/stderr"
    rc=$?
    if [ $rc -eq 0 ]; then
      same_prices "$work/alone.json" "$work/out.json" \
        && echo "ok: beside a process leaving $leave MiB: priced, same bits" \
        || fail "beside a process leaving $leave MiB: other prices"
    elif [ $rc -eq 1 ] && [ "$(grep -c . "$work/stderr")" -eq 1 ] && [ ! -e "$work/out.json" ]; then
      echo "ok: beside a process leaving $leave MiB: exit 1: $(cat "$work/stderr")"
    else
      fail "beside a process leaving $leave MiB: exit $rc"; sed 's/^/    /' "$work/stderr" | head -5
    fi
  fi
  kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null; hog_pid=
done

# Signals during a GPU run of several seconds: the kernels in flight finish, nothing is written.
for signal in INT TERM; do
  status=$([ $signal = INT ] && echo 130 || echo 143)
  rm -f "$work/out.json"
  "$pfmc" price "$config" --device gpu --paths 400000000 --format json --quiet \
    --output "$work/out.json" > /dev/null 2> "$work/stderr" &
  pid=$!
  sleep 2
  sent=$(date +%s.%N)
  kill -$signal $pid
  wait $pid
  rc=$?
  took=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$sent")
  if [ $rc -eq "$status" ] && [ "$(grep -c . "$work/stderr")" -eq 1 ] && [ ! -e "$work/out.json" ] &&
     python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 2.0 else 1)" "$took"; then
    echo "ok: SIG$signal during a GPU run: exit $rc after ${took} s: $(cat "$work/stderr")"
  else
    fail "SIG$signal during a GPU run: exit $rc after ${took} s"; sed 's/^/    /' "$work/stderr" | head -5
  fi
done

# 8 processes at once, each the same run as alone.
pids=()
for i in $(seq 8); do
  "$pfmc" price "$config" "${flags[@]}" --output "$work/p$i.json" 2> "$work/p$i.err" &
  pids+=($!)
done
same=0
for i in $(seq 8); do
  wait "${pids[$((i - 1))]}" || { fail "process $i of 8 exited non-zero"; cat "$work/p$i.err"; continue; }
  same_prices "$work/alone.json" "$work/p$i.json" && same=$((same + 1)) || fail "process $i of 8: other prices"
done
echo "8 processes at once: $same of 8 priced with the bits of the run alone"

[ $failures -eq 0 ] && echo "gpu faults: ok" || echo "gpu faults: $failures failure(s)"
[ $failures -eq 0 ]
