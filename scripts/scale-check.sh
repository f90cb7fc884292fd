#!/usr/bin/env bash
# Scaling of a split run (engine/scale/): every GPU of this host, then MPI ranks one per GPU.
# For each workload: pfmc price with --devices 1, 2, 4, 8 (as many as present) and, where pfmc
# was built with PFMC_MPI, mpirun with one rank per GPU; each configuration run --repeat times
# in a row (the first warms the GPUs; medians of the rest). Prints each configuration's median
# total and slowest-worker kernel time, its speed-up and efficiency over one device, and checks
# that every configuration's prices are bit-identical to one device's. On a host of one GPU it
# runs the same-GPU splits instead ([0, 0] and 2 ranks sharing it): identical bits, and their
# overhead over one process.
# Usage: scripts/scale-check.sh [--build DIR] [--repeat N] [--mpirun PATH] [WORKLOAD:PATHS ...]
#   default workloads: bandwidth_bound (8,192,000 paths x 365 steps, float, ~12 GB of draws)
#   and portfolio (1,000 instruments, 10 groups) at 4,000,000 paths: each GPU busy >= 100 ms.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-device repeat=4 mpirun=$(command -v mpirun || true)
workloads=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) workloads+=("$1"); shift ;;
  esac
done
[ ${#workloads[@]} -gt 0 ] || workloads=(bandwidth_bound:8192000 portfolio:4000000)
pfmc=./$build/pfmc
[ -x "$pfmc" ] || { echo "scale-check: no $pfmc (build first)" >&2; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 1 ] || { echo "scale-check: no GPU" >&2; exit 2; }
mpi_ok=0
if [ -n "$mpirun" ] && grep -q 'PFMC_MPI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  mpi_ok=1
fi
launch=("$mpirun" --oversubscribe)
[ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# run NAME COMMAND...: the command $repeat times (JSON to $work/NAME.K.json); prints the median
# of the runs after the first.
run() {
  local name=$1
  shift
  for k in $(seq 1 "$repeat"); do
    "$@" > "$work/$name.$k.json" 2> "$work/$name.err" || { cat "$work/$name.err" >&2; return 1; }
  done
  python3 - "$work" "$name" "$repeat" <<'PY'
import json, statistics, sys
work, name, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = [json.load(open(f"{work}/{name}.{k}.json")) for k in range(2, repeat + 1)] or \
       [json.load(open(f"{work}/{name}.1.json"))]
total = statistics.median(r["run"]["total_ms"] for r in runs)
kernel = statistics.median(r["run"]["kernel_ms"] for r in runs)
gather = statistics.median(r["run"].get("gather_ms", 0.0) for r in runs)
nbytes = runs[0]["run"].get("gather_bytes", 0)
print(f"{total:.1f} {kernel:.1f} {gather:.3f} {nbytes:.0f}")
PY
}

# same NAME BASE: whether NAME's prices are bit-identical to BASE's.
same() {
  python3 - "$work/$1.1.json" "$work/$2.1.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: ([(i["id"], i["price"], i["std_error"]) for i in r["instruments"]], r["portfolio"])
print("identical" if key(a) == key(b) else "DIFFERENT")
PY
}

for entry in "${workloads[@]}"; do
  workload=${entry%%:*} paths=${entry#*:}
  flags=(price "config/examples/$workload.yaml" --device gpu --paths "$paths" --format json --quiet)
  echo "== $workload, $paths paths, $gpus GPU(s) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  printf '%-22s %10s %10s %8s %7s %10s %9s  %s\n' configuration total_ms kernel_ms speedup eff gather_ms gather_B prices
  read -r base_total base_kernel _ _ < <(run "$workload-1" "$pfmc" "${flags[@]}") || { status=1; continue; }
  printf '%-22s %10.1f %10.1f %8s %7s %10s %9s  %s\n' "1 device" "$base_total" "$base_kernel" 1.00 100% - - reference
  configs=()
  for n in 2 4 8; do [ "$n" -le "$gpus" ] && configs+=("devices:$n"); done
  for n in 2 4 8; do [ "$n" -le "$gpus" ] && [ $mpi_ok -eq 1 ] && configs+=("ranks:$n"); done
  if [ "$gpus" -eq 1 ]; then
    configs+=("devices:0,0")
    [ $mpi_ok -eq 1 ] && configs+=("ranks:2")
  fi
  for c in "${configs[@]}"; do
    kind=${c%%:*} n=${c#*:} name="$workload-$kind-${n//,/_}"
    if [ "$kind" = devices ]; then
      line=$(run "$name" "$pfmc" "${flags[@]}" --devices "$n") || { status=1; continue; }
      workers=$(awk -F, '{print NF}' <<< "$n")
      label="--devices $n"
    else
      line=$(run "$name" "${launch[@]}" -np "$n" "$pfmc" "${flags[@]}") || { status=1; continue; }
      workers=$n
      label="mpirun -np $n"
    fi
    read -r total kernel gather nbytes <<< "$line"
    verdict=$(same "$name" "$workload-1")
    [ "$verdict" = identical ] || status=1
    python3 - "$label" "$total" "$kernel" "$base_total" "$workers" "$gather" "$nbytes" "$verdict" "$gpus" <<'PY'
import sys
label, total, kernel, base, workers, gather, nbytes, verdict, gpus = sys.argv[1:]
total, base, workers, gpus = float(total), float(base), int(workers), int(gpus)
speedup = base / total
# On one GPU the workers share it: the figure is the overhead over one process.
eff = speedup / min(workers, gpus) * 100
print(f"{label:<22} {total:10.1f} {float(kernel):10.1f} {speedup:8.2f} {eff:6.0f}% {gather:>10} {nbytes:>9}  {verdict}")
PY
  done
done
exit $status
