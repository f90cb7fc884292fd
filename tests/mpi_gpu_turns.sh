#!/usr/bin/env bash
# Turns on a shared GPU (engine/scale/communicator.hpp), on a host with a GPU and a build with
# PFMC_MPI: 2 ranks pinned to GPU 0 (`--devices 0,`: on a host of several GPUs they would take
# one each) give one process's bits, rank 0 does not wait and rank 1 waits for it; a rank that fails before its turn (either rank) lets the other run, and the job
# exits non-zero naming it, without hanging (each job under a 120 s limit).
# Usage: tests/mpi_gpu_turns.sh PFMC MPIEXEC SOURCE_DIR
set -uo pipefail
pfmc=$1 mpiexec=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config="$source/config/examples/portfolio.yaml"
flags=(--device gpu --devices 0, --paths 400000 --format json --quiet)
launch=(timeout 120 "$mpiexec" --oversubscribe)
[ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
fail() { echo "FAIL: $*" >&2; exit 1; }

"$pfmc" price "$config" "${flags[@]}" --output "$work/one.json" || fail "one process"
"${launch[@]}" -np 2 "$pfmc" price "$config" "${flags[@]}" --output "$work/two.json" \
    >"$work/two.out" 2>&1 || { cat "$work/two.out"; fail "2 ranks exited $?"; }
python3 - "$work/one.json" "$work/two.json" <<'PY' || fail "2 ranks sharing the GPU"
import json, sys
one, two = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: ([(i["id"], i["price"], i["std_error"]) for i in r["instruments"]], r["portfolio"])
assert key(one) == key(two), "prices differ"
waits = {w["rank"]: w["turn_wait_ms"] for w in two["run"]["workers"]}
assert waits[0] == 0.0 and waits[1] > 0.0, waits
print(f"2 ranks on one GPU: bit-identical; rank 1 waited {waits[1]:.1f} ms for rank 0's turn")
PY
for failing in 0 1; do
  args=()
  for r in 0 1; do
    [ "$r" -eq 0 ] || args+=(:)
    c=$config
    [ "$r" -eq "$failing" ] && c=$work/missing.yaml
    args+=(-np 1 "$pfmc" price "$c" "${flags[@]}" --output "$work/failed.json")
  done
  "${launch[@]}" "${args[@]}" >"$work/failed.out" 2>&1
  rc=$?
  [ $rc -eq 124 ] && fail "rank $failing failing: the job hung"
  [ $rc -ne 0 ] || fail "rank $failing failing: the job exited 0"
  # Rank 0's own config error is printed as one process prints it; another rank's is named.
  pattern="rank $failing: .*missing.yaml"
  [ "$failing" -eq 0 ] && pattern="missing.yaml"
  [ "$(grep -c "$pattern" "$work/failed.out")" -eq 1 ] || { cat "$work/failed.out"; fail "no one line naming the error"; }
  [ -e "$work/failed.json" ] && fail "an output file was written"
  echo "rank $failing failing: exit $rc, $(grep "$pattern" "$work/failed.out")"
done
echo "mpi gpu turns: ok"
