#!/usr/bin/env bash
# The MPI suite (a build with PFMC_MPI): `mpirun -np N pfmc price` on the CPU backend gives one
# process's bits for 2 and 3 ranks (the JSON prices, errors, Greeks and portfolio compared
# exactly), rank 0 alone writes; a rank that fails (here rank 1 of an MPMD job, given a config
# that does not exist) makes the job exit non-zero with the rank and its error in one line, and
# no output file is written.
# Usage: tests/mpi_split.sh PFMC MPIEXEC SOURCE_DIR
set -uo pipefail
pfmc=$1 mpiexec=$2 source=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config="$source/config/examples/portfolio.yaml"
flags=(--device cpu --cpu-threads 1 --paths 30000 --format json --quiet)
launch=("$mpiexec" --oversubscribe)
[ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
fail() { echo "FAIL: $*" >&2; exit 1; }

"$pfmc" price "$config" "${flags[@]}" --output "$work/one.json" || fail "one process"
for n in 2 3; do
  "${launch[@]}" -np "$n" "$pfmc" price "$config" "${flags[@]}" --output "$work/ranks$n.json" \
      >"$work/ranks$n.out" 2>&1 || { cat "$work/ranks$n.out"; fail "$n ranks exited $?"; }
  python3 - "$work/one.json" "$work/ranks$n.json" "$n" <<'PY' || fail "$n ranks: other bits"
import json, sys
one, split, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
def prices(r):
    return [(i["id"], i["price"], i["std_error"], [(g["value"], g["std_error"]) for g in i.get("greeks", [])])
            for i in r["instruments"]], r["portfolio"]
assert prices(one) == prices(split), "prices differ"
workers = split["run"]["workers"]
assert split["run"]["processes"] == n and len(workers) == n, workers
assert sorted(w["rank"] for w in workers) == list(range(n)), workers
assert abs(sum(w["share"] for w in workers) - 1.0) < 1e-12, workers
print(f"{n} ranks: {len(one['instruments'])} instruments bit-identical to one process; "
      f"gather {split['run']['gather_ms']:.3f} ms")
PY
done

# Rank 1 fails: the job fails, rank 0 names it, nothing is written.
"${launch[@]}" -np 1 "$pfmc" price "$config" "${flags[@]}" --output "$work/failed.json" : \
    -np 1 "$pfmc" price "$work/missing.yaml" "${flags[@]}" --output "$work/failed.json" \
    >"$work/failed.out" 2>&1 && fail "a job with a failing rank exited 0"
grep -q "rank 1: .*missing.yaml" "$work/failed.out" || { cat "$work/failed.out"; fail "no 'rank 1:' line"; }
[ "$(grep -c "missing.yaml" "$work/failed.out")" -eq 1 ] || { cat "$work/failed.out"; fail "the error is not one line"; }
[ -e "$work/failed.json" ] && fail "an output file was written"
echo "failing rank: $(grep "rank 1:" "$work/failed.out")"
echo "mpi split: ok"
